#!/bin/sh
# allgatherv_native.sh [BUILD_DIR]: seed 003's pipelined ring and MPICH's
# ring (replayed by choreo-run) against MPICH's own MPI_Allgatherv, p = 4,
# broadcast and decreasing distributions, base 256K, 1M, 8M (totals 256 KiB
# to 32 MiB). Prints choreo-run's median lines per case (docs/allgatherv.md).
set -eu
BUILD=${1:-build}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for d in broadcast decreasing; do
  for c in 256K 1M 8M; do
    for g in allgatherv-pipelined-ring allgatherv-mpich-ring; do
      "$BUILD/bin/choreo" gen $g --p 4 --distribution $d --base $c -o "$TMP/s.json"
      echo "== $d $c $g"
      mpiexec -n 4 "$BUILD/bin/choreo-run" "$TMP/s.json" --native --iterations 5 </dev/null 2>&1 | grep -E "median"
    done
  done
done
