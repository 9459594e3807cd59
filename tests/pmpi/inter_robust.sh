#!/bin/sh
# inter_robust.sh MPIEXEC APP LIB [NBV]: intercommunicator MPI_Gatherv and
# MPI_Scatterv whose root was given counts that are not the members'
# (erroneous in MPI): with the library every rank of both groups fails the
# call with the same error naming the call and the member, nobody hangs
# (tests/pmpi/pmpi_inter_more.c, `mismatch`, 3 + 2 ranks); with NBV the
# started MPI_Igatherv and MPI_Iscatterv alike, their requests completing
# with the error (tests/pmpi/pmpi_inter_nbv.c, `mismatch`).
set -eu
MPIEXEC=$1; APP=$2; LIB=$3; NBV=${4:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "inter_robust: $*"; exit 1; }
timeout 60 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n 5 "$APP" mismatch \
  </dev/null >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "the job did not end cleanly"; }
cat "$TMP/out"
for C in "MPI_Gatherv on an intercommunicator: the root's count for rank 1 of group B (high) is 12 bytes, but that rank passes 8" \
         "MPI_Scatterv on an intercommunicator: the root's count for rank 1 of group B (high) is 12 bytes, but that rank passes 8"; do
  n=$(grep -c "^rank [0-9]*: error: .*$C" "$TMP/out" || true)
  [ "$n" -eq 5 ] || fail "expected 5 ranks to fail with '$C', got $n"
done
if [ -n "$NBV" ]; then
  timeout 60 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n 5 "$NBV" mismatch \
    </dev/null >"$TMP/nbv" 2>&1 || { cat "$TMP/nbv"; fail "the started job did not end cleanly"; }
  cat "$TMP/nbv"
  for C in "MPI_Igatherv on a communicator: MPI_Gatherv on an intercommunicator: the root's count for rank 1 of group B (high) is 12 bytes, but that rank passes 8" \
           "MPI_Iscatterv on a communicator: MPI_Scatterv on an intercommunicator: the root's count for rank 1 of group B (high) is 12 bytes, but that rank passes 8"; do
    n=$(grep -c "^rank [0-9]*: error: .*$C" "$TMP/nbv" || true)
    [ "$n" -eq 5 ] || fail "expected 5 ranks' started calls to fail with '$C', got $n"
  done
fi
echo "inter_robust: every rank failed the calls alike"
