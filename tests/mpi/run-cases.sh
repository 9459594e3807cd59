#!/bin/sh
# run-cases.sh MPIEXEC BIN_DIR NPROCS ALGO ARGS... [-- ALGO ARGS...]...: makes
# one schedule per `choreo gen` command line (separated by --), then runs
# them all in one mpiexec job with choreo-run --check. Fails unless every
# schedule's result matched the expected bytes and MPICH's own collective.
set -eu
MPIEXEC=$1; BIN=$2; NP=$3; shift 3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
N=0
FILES=""
gen() {
  N=$((N + 1))
  echo "== $N: choreo gen $*"
  "$BIN/choreo" gen "$@" -o "$TMP/s$N.json"
  FILES="$FILES $TMP/s$N.json"
}
set -- "$@" --
CASE=""
for A in "$@"; do
  if [ "$A" = "--" ]; then
    # shellcheck disable=SC2086
    [ -n "$CASE" ] && gen $CASE
    CASE=""
  else
    CASE="$CASE $A"
  fi
done
# shellcheck disable=SC2086
out=$("$MPIEXEC" -n "$NP" "$BIN/choreo-run" $FILES --check --iterations 2 </dev/null 2>&1) || {
  echo "$out"; exit 1; }
echo "$out"
test "$(echo "$out" | grep -c "^check: passed")" -eq "$N"
