#!/bin/sh
# tests/trace/trace-test.sh - runs `choreo trace ...` and checks its exit
# code and output.
# usage: trace-test.sh EXIT 'PATTERN;PATTERN;!ABSENT' -- COMMAND...
# Every PATTERN must occur in the output (fixed strings), no !ABSENT may.
EXIT=$1
PATTERNS=$2
shift 3
OUT=$("$@" 2>&1 </dev/null)
RC=$?
printf '%s\n' "$OUT"
FAIL=0
if [ "$RC" != "$EXIT" ]; then
  echo "FAIL: exit code $RC, expected $EXIT"
  FAIL=1
fi
OLDIFS=$IFS
IFS=';'
for P in $PATTERNS; do
  IFS=$OLDIFS
  case "$P" in
  !*)
    if printf '%s\n' "$OUT" | grep -qF -- "${P#!}"; then
      echo "FAIL: the output holds '${P#!}'"
      FAIL=1
    fi
    ;;
  *)
    if ! printf '%s\n' "$OUT" | grep -qF -- "$P"; then
      echo "FAIL: the output lacks '$P'"
      FAIL=1
    fi
    ;;
  esac
done
exit $FAIL
