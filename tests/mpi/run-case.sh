#!/bin/sh
# run-case.sh MPIEXEC BIN_DIR NPROCS SOURCE...: makes a schedule (SOURCE is
# `gen ALGO ARGS...` for choreo gen, or `py SCRIPT ARGS...` for a python
# script printing one), then runs it under mpiexec with choreo-run --check.
# Fails unless every rank's result matched the expected bytes and MPICH's.
# CHOREO_RUN_ARGS (environment) adds choreo-run options (--op matmul-2x2).
set -eu
MPIEXEC=$1; BIN=$2; NP=$3; shift 3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
case "$1" in
  gen) shift; "$BIN/choreo" gen "$@" -o "$TMP/s.json" ;;
  py) shift; python3 "$@" > "$TMP/s.json" ;;
  *) echo "run-case.sh: unknown source $1" >&2; exit 2 ;;
esac
out=$("$MPIEXEC" -n "$NP" "$BIN/choreo-run" "$TMP/s.json" --check --iterations 3 ${CHOREO_RUN_ARGS:-} </dev/null 2>&1) || {
  echo "$out"; exit 1; }
echo "$out"
echo "$out" | grep -q "^check: passed"
