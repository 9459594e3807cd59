#!/bin/sh
# ialltoallv.sh MPIEXEC APP LIB: a started MPI_Ialltoallv whose rank 1
# expects one int more from rank 0 than rank 0 sends, on 5 ranks, built
# from rows and columns: every rank's MPI_Wait returns an error naming rank
# 1 and the count (rank 0 sends it 0 bytes, its recvcounts say 4), nobody
# hangs, and a correct call afterwards works.
set -eu
MPIEXEC=$1; APP=$2; LIB=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for ALGO in alltoallv-mpich alltoall-pairwise; do
  timeout 60 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -genv CHOREO_ALLTOALLV "$ALGO" \
    -n 5 "$APP" mismatch </dev/null >"$TMP/out" 2>&1 || { cat "$TMP/out"; echo "ialltoallv: $ALGO: the job did not end cleanly"; exit 1; }
  cat "$TMP/out"
  grep -q "pmpi_ialltoallv: passed" "$TMP/out" || { echo "ialltoallv: $ALGO: the correct call after it failed"; exit 1; }
  n=$(grep -c "^pmpi_ialltoallv: rank [0-9]: error" "$TMP/out" || true)
  [ "$n" -eq 5 ] || { echo "ialltoallv: $ALGO: expected 5 ranks to fail, got $n"; exit 1; }
  m=$(grep -c "choreo-mpi: MPI_Ialltoallv on MPI_COMM_WORLD: MPI_Alltoallv: the recvcounts of rank 1 do not match what the other ranks' sendcounts send it (rank 0 sends it 0 bytes, its recvcounts say 4)" "$TMP/out" || true)
  [ "$m" -eq 5 ] || { echo "ialltoallv: $ALGO: expected 5 ranks to name rank 1 and the count, got $m"; exit 1; }
  echo "ialltoallv: $ALGO: every rank failed naming rank 1 and the count"
done
