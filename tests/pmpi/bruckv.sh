#!/bin/sh
# bruckv.sh MPIEXEC APP LIB: MPI_Alltoallv, MPI_Ialltoallv and
# MPI_Alltoallv_init with CHOREO_ALLTOALLV=alltoall-bruck
# (tests/pmpi/pmpi_bruckv.c), each rank's part built from its row, its
# column and the blocks it relays (a Bruck round of the sizes, never the
# matrix), bit for bit as MPICH's own call: on 2, 3, 5 and 7 ranks with
# radix 2, on 4 and 6 with radix 3 (one with concurrent messages), on 7
# with radix 5. Then recvcounts that do not match the sendcounts on 5
# ranks: every rank's blocking and started call fails naming rank 1,
# nobody hangs, and a correct call afterwards works.
set -eu
. "$(dirname "$0")/job.sh"
for RUN in 2:alltoall-bruck 3:alltoall-bruck 5:alltoall-bruck \
           7:alltoall-bruck 4:alltoall-bruck:radix=3 \
           6:alltoall-bruck:radix=3:concurrent=on 7:alltoall-bruck:radix=5; do
  N=${RUN%%:*}; ALGO=${RUN#*:}
  job "$ALGO on $N ranks: the job did not end cleanly" -genv LD_PRELOAD "$LIB" \
    -genv CHOREO_ALLTOALLV "$ALGO" -genv CHOREO_FALLBACK error \
    -genv CHOREO_VERBOSE 1 -n "$N" "$APP" check
  grep -q "pmpi_bruckv: passed" "$TMP/out" || fail "$ALGO on $N ranks: results differ from MPICH's"
  # (The blocking call's line names the generator, the started one's the
  # choice with its options.)
  grep -q "MPI_Alltoallv (communicator of $N, .* on MPI_COMM_WORLD: alltoall-bruck (CHOREO_ALLTOALLV); proved by $N ranks.*each rank's part from its row and column" "$TMP/out" ||
    fail "$ALGO on $N ranks: the blocking call was not built from rows and columns"
  grep -q "started: $ALGO (CHOREO_ALLTOALLV); each rank's part from its row and column" "$TMP/out" ||
    fail "$ALGO on $N ranks: the started call was not built from rows and columns"
  ! grep -q "native (" "$TMP/out" || fail "$ALGO on $N ranks: a call went to MPICH"
  echo "bruckv: $ALGO on $N ranks: bit for bit as MPICH's"
done
job "mismatch: the job did not end cleanly" -genv LD_PRELOAD "$LIB" \
  -genv CHOREO_ALLTOALLV alltoall-bruck -n 5 "$APP" mismatch
count_is 5 "mismatch: expected 5 ranks' blocking calls to fail" "^pmpi_bruckv: rank [0-9]: blocking error"
count_is 5 "mismatch: expected 5 ranks' started calls to fail" "^pmpi_bruckv: rank [0-9]: started error"
count_is 10 "mismatch: expected 10 errors naming rank 1" "the recvcounts of rank 1 do not match what the other ranks' sendcounts send it"
count_is 5 "mismatch: expected 5 ranks' correct call to return" "^pmpi_bruckv: rank [0-9]: correct call returned"
grep -q "pmpi_bruckv: passed" "$TMP/out" || fail "mismatch: the correct call's results differ from MPICH's"
echo "bruckv: mismatch: every rank failed naming rank 1, then a correct call ran"
