#!/bin/sh
# run-app.sh MPIEXEC APP LIB NP CONFIG [:: CONFIG]...: runs the unmodified
# application APP under mpiexec natively once, then with LD_PRELOAD=LIB (a
# library, or a colon-separated list of them) once
# per CONFIG. A CONFIG is [VAR=VALUE...] [-- EXPECT...]: the variables of
# that run (CHOREO_VERBOSE=1 is always set) and strings its verbose output
# must contain (an algorithm that must have run, so that a library passing
# everything to MPICH cannot pass); an EXPECT starting with '!' is a string
# it must not contain. Fails unless every run passes its own
# checks and every rank's results are identical, bit for bit, to the native
# run's.
set -eu
MPIEXEC=$1; APP=$2; LIB=$3; NP=$4; shift 4
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "run-app: $*"; exit 1; }
mkdir "$TMP/native"
"$MPIEXEC" -n "$NP" "$APP" "$TMP/native" </dev/null >"$TMP/native.out" 2>&1 || {
  cat "$TMP/native.out"; fail "the native run failed"; }
grep -q "passed" "$TMP/native.out" || fail "the native run did not pass"
[ "$(ls "$TMP/native" | wc -l)" -eq "$NP" ] || fail "missing outputs"
N=0
while [ $# -gt 0 ]; do
  N=$((N + 1))
  VARS=""
  while [ $# -gt 0 ] && [ "$1" != "--" ] && [ "$1" != "::" ]; do VARS="$VARS $1"; shift; done
  EXPECTS=""
  if [ $# -gt 0 ] && [ "$1" = "--" ]; then
    shift
    while [ $# -gt 0 ] && [ "$1" != "::" ]; do
      EXPECTS="$EXPECTS
$1"; shift
    done
  fi
  [ $# -gt 0 ] && shift # ::
  OUT="$TMP/run$N"
  mkdir "$OUT"
  # shellcheck disable=SC2086
  # The library goes into the ranks only (-genv), not into mpiexec.
  env CHOREO_VERBOSE=1 $VARS \
    "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n "$NP" "$APP" "$OUT" </dev/null >"$OUT.out" 2>&1 || {
    cat "$OUT.out"; fail "run $N ($VARS) with $LIB failed"; }
  echo "== run $N:$VARS"
  cat "$OUT.out"
  grep -q "passed" "$OUT.out" || fail "run $N did not pass"
  for F in "$TMP"/native/*; do
    cmp "$F" "$OUT/$(basename "$F")" ||
      fail "run $N: $(basename "$F") differs from the native run"
  done
  echo "$EXPECTS" | while IFS= read -r E; do
    [ -z "$E" ] && continue
    case $E in
      !*) ! grep -qF -- "${E#!}" "$OUT.out" || fail "run $N mentions '${E#!}'"; continue ;;
    esac
    grep -qF -- "$E" "$OUT.out" || fail "run $N never mentions '$E'"
  done
done
echo "run-app: $N runs with $LIB, results identical to the native run, bit for bit, on $NP ranks"
