#!/bin/sh
# alltoall.sh MPIEXEC APP LIB: an erroneous MPI_Alltoallv (rank 1's
# recvcounts expect one int more from rank 0 than rank 0's sendcounts send)
# under the library: every rank's call returns an error and every rank
# names rank 1; nobody hangs.
set -eu
MPIEXEC=$1; APP=$2; LIB=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
timeout 60 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n 4 "$APP" mismatch \
  </dev/null >"$TMP/out" 2>&1 || { cat "$TMP/out"; echo "alltoall: the job did not end cleanly"; exit 1; }
cat "$TMP/out"
n=$(grep -c "^pmpi_alltoall: rank [0-9]: error" "$TMP/out" || true)
[ "$n" -eq 4 ] || { echo "alltoall: expected 4 ranks to fail, got $n"; exit 1; }
m=$(grep -c "choreo-mpi: MPI_Alltoallv: the recvcounts of rank 1 do not match what the other ranks' sendcounts send it" "$TMP/out" || true)
[ "$m" -eq 4 ] || { echo "alltoall: expected 4 ranks to name rank 1, got $m"; exit 1; }
echo "alltoall: every rank failed naming rank 1"
