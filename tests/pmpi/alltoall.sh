#!/bin/sh
# alltoall.sh MPIEXEC APP LIB: an erroneous MPI_Alltoallv (rank 1's
# recvcounts expect one int more from rank 0 than rank 0's sendcounts send)
# under the library: every rank's call returns an error and every rank
# names rank 1; nobody hangs; the same after a correct call of the shape.
# Then ranks whose environments disagree on
# handing MPI_Alltoallv to MPICH: every rank fails naming that.
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

# A correct call whose plan is cached, then rank 1 expecting less from rank
# 0 (a new matrix: its key differs): every rank's second call fails naming
# rank 1, built from rows and columns (alltoallv-mpich) and from the whole
# matrix (alltoall-bruck needs it).
for ALGO in alltoallv-mpich alltoall-bruck; do
  timeout 60 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -genv CHOREO_ALLTOALLV "$ALGO" \
    -n 4 "$APP" again </dev/null >"$TMP/out" 2>&1 || { cat "$TMP/out"; echo "alltoall: $ALGO: the job did not end cleanly"; exit 1; }
  cat "$TMP/out"
  ! grep -q "the correct call failed" "$TMP/out" || { echo "alltoall: $ALGO: a correct call failed"; exit 1; }
  n=$(grep -c "^pmpi_alltoall: rank [0-9]: error" "$TMP/out" || true)
  [ "$n" -eq 4 ] || { echo "alltoall: $ALGO: expected 4 ranks to fail the second call, got $n"; exit 1; }
  m=$(grep -c "choreo-mpi: MPI_Alltoallv: the recvcounts of rank 1 do not match what the other ranks' sendcounts send it" "$TMP/out" || true)
  [ "$m" -eq 4 ] || { echo "alltoall: $ALGO: expected 4 ranks to name rank 1, got $m"; exit 1; }
  echo "alltoall: $ALGO: after a correct call, every rank failed naming rank 1"
done

# With the margin on, auto hands MPI_Alltoallv to MPICH without its counts
# (no exchange) unless CHOREO_ALLTOALLV asks for choreo: a rank whose
# environment says otherwise than the others' would exchange while they
# call MPICH. The ranks agree on that decision at the communicator's first
# MPI_Alltoallv: every rank fails naming it, nobody hangs.
timeout 60 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -genv CHOREO_MARGIN 0.1 \
  -n 1 -env CHOREO_ALLTOALLV auto "$APP" once : -n 3 "$APP" once \
  </dev/null >"$TMP/out" 2>&1 || { cat "$TMP/out"; echo "alltoall: the job with differing environments did not end cleanly"; exit 1; }
cat "$TMP/out"
n=$(grep -c "^pmpi_alltoall: rank [0-9]: error" "$TMP/out" || true)
[ "$n" -eq 4 ] || { echo "alltoall: expected 4 ranks to fail on differing environments, got $n"; exit 1; }
m=$(grep -c "choreo-mpi: MPI_Alltoallv on MPI_COMM_WORLD: the ranks disagree on whether MPI_Alltoallv goes to MPICH without its counts" "$TMP/out" || true)
[ "$m" -eq 4 ] || { echo "alltoall: expected 4 ranks to name the disagreement, got $m"; exit 1; }
echo "alltoall: every rank failed naming the differing hand-over"
