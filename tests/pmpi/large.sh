#!/bin/sh
# large.sh MPIEXEC APP LIB: runs tests/pmpi/pmpi_large.c on 2 ranks with
# LIB preloaded and named algorithms (timeout 100 s), and fails unless it
# passes and the library ran every call (the verbose output names each
# algorithm for the call's size).
set -eu
MPIEXEC=$1; APP=$2; LIB=$3
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
fail() { cat "$OUT"; echo "large: $*"; exit 1; }
env CHOREO_VERBOSE=1 CHOREO_FALLBACK=error CHOREO_MARGIN=off \
  CHOREO_BCAST=bcast-binomial CHOREO_ALLGATHER=allgather-ring \
  CHOREO_ALLREDUCE=allreduce-recursive-doubling \
  timeout 100 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n 2 "$APP" </dev/null \
  >"$OUT" 2>&1 || fail "the job failed or timed out"
grep -q "pmpi_large: passed" "$OUT" || fail "the job did not pass"
cat "$OUT"
grep -q "pmpi_large: skipped" "$OUT" && exit 0
for E in \
  "MPI_Bcast (communicator of 2, 2147487747 bytes, root 1) on MPI_COMM_WORLD: bcast-binomial (CHOREO_BCAST)" \
  "MPI_Allgather (communicator of 2, 4294967450 bytes in all) on MPI_COMM_WORLD: allgather-ring (CHOREO_ALLGATHER)" \
  "MPI_Allreduce (communicator of 2, 2147483651 bytes) on MPI_COMM_WORLD: allreduce-recursive-doubling (CHOREO_ALLREDUCE)"; do
  grep -qF -- "$E" "$OUT" || fail "never mentions '$E'"
done
echo "large: every call above 2^31 ran choreo's schedule and checked"
