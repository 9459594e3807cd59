#!/bin/sh
# ialltoallv.sh MPIEXEC APP LIB: a started MPI_Ialltoallv whose rank 1
# expects one int more from rank 0 than rank 0 sends, on 5 ranks, built
# from rows and columns: every rank's MPI_Wait returns an error naming rank
# 1 and the count (rank 0 sends it 0 bytes, its recvcounts say 4), nobody
# hangs, and a correct call afterwards works.
set -eu
. "$(dirname "$0")/job.sh"
for ALGO in alltoallv-mpich alltoall-pairwise; do
  job "$ALGO: the job did not end cleanly" -genv LD_PRELOAD "$LIB" -genv CHOREO_ALLTOALLV "$ALGO" \
    -n 5 "$APP" mismatch
  grep -q "pmpi_ialltoallv: passed" "$TMP/out" || fail "$ALGO: the correct call after it failed"
  count_is 5 "$ALGO: expected 5 ranks to fail" "^pmpi_ialltoallv: rank [0-9]: error"
  count_is 5 "$ALGO: expected 5 ranks to name rank 1 and the count" "choreo-mpi: MPI_Ialltoallv on MPI_COMM_WORLD: MPI_Alltoallv: the recvcounts of rank 1 do not match what the other ranks' sendcounts send it (rank 0 sends it 0 bytes, its recvcounts say 4)"
  echo "ialltoallv: $ALGO: every rank failed naming rank 1 and the count"
done
