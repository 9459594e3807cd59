#!/bin/sh
# reduce_timings.sh [BIN_DIR]: choreo's allreduce schedules against MPICH's
# MPI_Allreduce (choreo-run --native; MPICH's non-blocking call waited on
# with MPI_Testall + sched_yield, as choreo waits: its blocking call
# busy-polls, which with more ranks than cores is 10-100x slower) at p = 8 and 13 for vectors
# of 8 B .. 16 MiB (doubles, MPI_SUM), every result checked first. Prints
# one line per run: p, bytes, algorithm, choreo's median, MPICH's median
# (seconds, slowest rank per iteration) and their ratio.
set -eu
BIN=${1:-build/bin}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf "%-4s %-9s %-30s %-12s %-12s %s\n" p bytes algorithm choreo mpich ratio
for P in 8 13; do
  for N in 8 1024 65536 1048576 16777216; do
    IT=20
    [ "$N" -ge 1048576 ] && IT=5
    for A in allreduce-recursive-doubling allreduce-halving-doubling \
             allreduce-binary-blocks allreduce-ring allreduce-mpich; do
      "$BIN/choreo" gen "$A" --p "$P" --bytes "$N" -o "$TMP/s.json"
      mpiexec -n "$P" "$BIN/choreo-run" "$TMP/s.json" --check --native \
        --op sum-double --iterations $IT --json </dev/null > "$TMP/out.json"
      python3 - "$P" "$N" "$A" "$TMP/out.json" <<'PY'
import json, sys
p, n, a, f = sys.argv[1:]
j = json.load(open(f))
c = j["median_s"]; m = j["native_nonblocking_median_s"]
print(f"{p:<4} {n:<9} {a:<30} {c:<12.4e} {m:<12.4e} {c / m:.2f}")
PY
    done
  done
done
