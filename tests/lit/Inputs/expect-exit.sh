#!/bin/sh
# expect-exit.sh CODE CMD...: runs CMD (its output passes through) and fails
# unless CMD exits with exactly CODE.
want=$1; shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "expect-exit: '$*' exited with $got, expected $want" >&2
  exit 1
fi
exit 0
