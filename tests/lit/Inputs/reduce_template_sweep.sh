#!/bin/sh
# reduce_template_sweep.sh CHOREO PYTHON DIR: every reduction template
# against its generator (Inputs/same_schedule.py), one line per comparison.
set -eu
C=$1; PY=$2; D=$3
SAME="$(dirname "$0")/same_schedule.py"
compare() { # GEN-ARGS -- TEMPLATE-ARGS
  gen=""; while [ "$1" != "--" ]; do gen="$gen $1"; shift; done; shift
  $C gen $gen -o "$D/g.json"
  $C gen --template "$@" -o "$D/t.json"
  printf '%s: ' "$gen"
  $PY "$SAME" "$D/g.json" "$D/t.json"
}
for p in 1 2 5 13; do
  for n in 0 104; do
    compare allreduce-ring --p $p --bytes $n -- allreduce-ring --p $p --bytes $n
    compare reduce-scatter-ring --p $p --bytes $n -- reduce-scatter-ring --p $p --bytes $n
  done
done
for k in 0 1 3 5; do
  p=$((1 << k))
  for n in 1000; do
    compare allreduce-recursive-doubling --p $p --bytes $n --op noncommutative -- allreduce-recursive-doubling --k $k --bytes $n
  done
done
# The fold: p = 2^k + m, 1 <= m < 2^k.
for km in "1 1" "2 3" "3 5" "4 9"; do
  set -- $km
  p=$(((1 << $1) + $2))
  compare allreduce-recursive-doubling --p $p --bytes 1000 --op noncommutative -- allreduce-recursive-doubling-fold --k $1 --m $2 --bytes 1000
done
