#!/bin/sh
# run-app.sh MPIEXEC APP LIB NP [VAR=VALUE...] [-- EXPECT...]: runs the
# unmodified application APP under mpiexec natively and with
# LD_PRELOAD=LIB (with the variables given and CHOREO_VERBOSE=1). Fails
# unless both runs pass their own checks, every rank's results are
# identical bit for bit, and the preloaded run's verbose output names every
# EXPECT (an algorithm that must have run, so that a library that passed
# everything to MPICH cannot pass).
set -eu
MPIEXEC=$1; APP=$2; LIB=$3; NP=$4; shift 4
VARS=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do VARS="$VARS $1"; shift; done
[ $# -gt 0 ] && shift
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/native" "$TMP/choreo"
"$MPIEXEC" -n "$NP" "$APP" "$TMP/native" </dev/null >"$TMP/native.out" 2>&1 || {
  cat "$TMP/native.out"; echo "run-app: the native run failed"; exit 1; }
# shellcheck disable=SC2086
env LD_PRELOAD="$LIB" CHOREO_VERBOSE=1 $VARS \
  "$MPIEXEC" -n "$NP" "$APP" "$TMP/choreo" </dev/null >"$TMP/choreo.out" 2>&1 || {
  cat "$TMP/choreo.out"; echo "run-app: the run with $LIB failed"; exit 1; }
cat "$TMP/choreo.out"
grep -q "passed" "$TMP/native.out" || { echo "run-app: native run did not pass"; exit 1; }
grep -q "passed" "$TMP/choreo.out" || { echo "run-app: preloaded run did not pass"; exit 1; }
for F in "$TMP"/native/*; do
  cmp "$F" "$TMP/choreo/$(basename "$F")" || {
    echo "run-app: $(basename "$F") differs between the runs"; exit 1; }
done
[ "$(ls "$TMP/native" | wc -l)" -eq "$NP" ] || { echo "run-app: missing outputs"; exit 1; }
for E in "$@"; do
  grep -qF -- "$E" "$TMP/choreo.out" || {
    echo "run-app: the preloaded run never mentions '$E'"; exit 1; }
done
echo "run-app: identical results, bit for bit, on $NP ranks"
