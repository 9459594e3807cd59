#!/bin/sh
# alltoall.sh MPIEXEC APP LIB: an erroneous MPI_Alltoallv (rank 1's
# recvcounts expect one int more from rank 0 than rank 0's sendcounts send)
# under the library: every rank's call returns an error and every rank
# names rank 1; nobody hangs; the same after a correct call of the shape.
# Then ranks whose environments disagree on
# handing MPI_Alltoallv to MPICH: every rank fails naming that.
set -eu
. "$(dirname "$0")/job.sh"
job "the job did not end cleanly" -genv LD_PRELOAD "$LIB" -n 4 "$APP" mismatch
count_is 4 "expected 4 ranks to fail" "^pmpi_alltoall: rank [0-9]: error"
count_is 4 "expected 4 ranks to name rank 1" "choreo-mpi: MPI_Alltoallv: the recvcounts of rank 1 do not match what the other ranks' sendcounts send it"
echo "alltoall: every rank failed naming rank 1"

# A correct call whose plan is cached, then rank 1 expecting less from rank
# 0 (a new matrix: its key differs): every rank's second call fails naming
# rank 1, built from rows and columns (alltoallv-mpich; alltoall-bruck
# with the blocks it relays).
for ALGO in alltoallv-mpich alltoall-bruck; do
  job "$ALGO: the job did not end cleanly" -genv LD_PRELOAD "$LIB" -genv CHOREO_ALLTOALLV "$ALGO" \
    -n 4 "$APP" again
  ! grep -q "the correct call failed" "$TMP/out" || fail "$ALGO: a correct call failed"
  count_is 4 "$ALGO: expected 4 ranks to fail the second call" "^pmpi_alltoall: rank [0-9]: error"
  count_is 4 "$ALGO: expected 4 ranks to name rank 1" "choreo-mpi: MPI_Alltoallv: the recvcounts of rank 1 do not match what the other ranks' sendcounts send it"
  echo "alltoall: $ALGO: after a correct call, every rank failed naming rank 1"
done

# With the margin on, auto hands MPI_Alltoallv to MPICH without its counts
# (no exchange) unless CHOREO_ALLTOALLV asks for choreo: a rank whose
# environment says otherwise than the others' would exchange while they
# call MPICH. The ranks agree on that decision at the communicator's first
# MPI_Alltoallv: every rank fails naming it, nobody hangs.
job "the job with differing environments did not end cleanly" \
  -genv LD_PRELOAD "$LIB" -genv CHOREO_MARGIN 0.1 \
  -n 1 -env CHOREO_ALLTOALLV auto "$APP" once : -n 3 "$APP" once
count_is 4 "expected 4 ranks to fail on differing environments" "^pmpi_alltoall: rank [0-9]: error"
count_is 4 "expected 4 ranks to name the disagreement" "choreo-mpi: MPI_Alltoallv on MPI_COMM_WORLD: the ranks disagree on whether MPI_Alltoallv goes to MPICH without its counts"
echo "alltoall: every rank failed naming the differing hand-over"
