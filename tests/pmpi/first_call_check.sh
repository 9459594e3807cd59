#!/bin/sh
# first_call_check.sh MPIEXEC PROG LIB: the first-call benchmark
# (bench/first_call.c) checks what it measures. Natively and with LIB
# preloaded: a clean run passes; with FIRST_CALL_SELFTEST=0 (rank 0 spoils
# one byte of every result before checking it) every one of the 22 cases'
# two calls is reported wrong and the job fails; bad arguments fail every
# rank with a message naming the argument.
set -eu
MPIEXEC=$1; PROG=$2; LIB=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "first_call_check: $*"; exit 1; }
for MODE in native preloaded; do
  set -- "$MPIEXEC"
  [ "$MODE" = preloaded ] && set -- "$MPIEXEC" -genv LD_PRELOAD "$LIB"
  "$@" -n 4 "$PROG" 8 1024 </dev/null >"$TMP/ok" 2>&1 || {
    cat "$TMP/ok"; fail "$MODE: the clean run failed"; }
  grep -q "^# first_call: passed" "$TMP/ok" || fail "$MODE: the clean run did not pass"
  if env FIRST_CALL_SELFTEST=0 "$@" -n 4 "$PROG" 8 1024 </dev/null >"$TMP/bad" 2>&1; then
    cat "$TMP/bad"; fail "$MODE: spoilt results, yet the run passed"
  fi
  N=$(grep -c "^first_call: rank 0: .*call: wrong result at" "$TMP/bad" || true)
  [ "$N" -eq 44 ] || { cat "$TMP/bad"; fail "$MODE: $N of 44 spoilt results reported"; }
  grep -q "FAILED: 44 wrong results" "$TMP/bad" || fail "$MODE: no FAILED line"
  echo "first_call_check: $MODE: clean run passed, 44 of 44 spoilt results caught"
done
# Bad arguments: "ARGUMENTS|what the message names".
for CASE in "0|SMALL '0': expected bytes" "8 x|LARGE 'x': expected bytes" \
  "8 8 8|too many arguments (3)"; do
  A=${CASE%%|*}; WANT=${CASE#*|}
  # shellcheck disable=SC2086
  if "$MPIEXEC" -n 2 "$PROG" $A </dev/null >"$TMP/arg" 2>&1; then
    fail "arguments '$A' accepted"
  fi
  grep -qF "first_call: $WANT" "$TMP/arg" || { cat "$TMP/arg"; fail "arguments '$A': no '$WANT'"; }
done
echo "first_call_check: passed"
