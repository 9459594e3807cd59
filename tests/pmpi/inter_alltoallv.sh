#!/bin/sh
# inter_alltoallv.sh MPIEXEC APP LIB: an intercommunicator MPI_Alltoallv
# (2 + 3 ranks) whose B rank 1 expects one int more from A's rank 0 than
# A's rank 0 sends, built from rows and columns under the preloaded
# library: every rank's blocking call and every rank's MPI_Wait of the
# started call return an error naming the rank and both counts, nobody
# hangs; MPI_IN_PLACE (erroneous on an intercommunicator, and MPICH 4.0.2
# waits for ever in MPI_Alltoallv, crashes in MPI_Alltoall) is refused on
# every rank at once; and a correct call afterwards works
# (tests/pmpi/pmpi_inter_a2av.c).
set -eu
MPIEXEC=$1; APP=$2; LIB=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
WANT="MPI_Alltoallv on an intercommunicator: the recvcounts of rank 1 of group B (high) do not match what the other group's sendcounts send it (rank 0 of group A (low) sends it 12 bytes, its recvcounts say 16)"
for ALGO in inter-alltoall-pairwise auto; do
  timeout 60 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -genv CHOREO_ALLTOALLV_INTER "$ALGO" \
    -genv CHOREO_MARGIN off -n 5 "$APP" mismatch </dev/null >"$TMP/out" 2>&1 || {
    cat "$TMP/out"; echo "inter_alltoallv: $ALGO: the job did not end cleanly"; exit 1; }
  cat "$TMP/out"
  grep -q "pmpi_inter_a2av: passed" "$TMP/out" || {
    echo "inter_alltoallv: $ALGO: the correct call after it failed"; exit 1; }
  for CALL in MPI_Alltoallv MPI_Ialltoallv; do
    n=$(grep -c "^rank [0-9]: $CALL: error: .*the recvcounts of rank 1 of group B" "$TMP/out" || true)
    [ "$n" -eq 5 ] || {
      echo "inter_alltoallv: $ALGO: expected 5 ranks' $CALL to fail, got $n"; exit 1; }
  done
  for CALL in "in-place MPI_Alltoallv" "in-place MPI_Alltoall"; do
    n=$(grep -c "^rank [0-9]: $CALL: error: .*MPI_IN_PLACE is not allowed" "$TMP/out" || true)
    [ "$n" -eq 5 ] || {
      echo "inter_alltoallv: $ALGO: expected 5 ranks' $CALL to be refused, got $n"; exit 1; }
  done
  # Every rank's library says so on standard error, for both calls.
  m=$(grep "^choreo-mpi: " "$TMP/out" | grep -cF "$WANT" || true)
  [ "$m" -eq 10 ] || {
    echo "inter_alltoallv: $ALGO: expected 10 errors naming the rank and the counts, got $m"; exit 1; }
  echo "inter_alltoallv: $ALGO: every rank failed both calls naming the rank and the counts"
done
