#!/bin/sh
# rooted_robust.sh MPIEXEC ROOTED LIB: MPI_Gatherv and MPI_Scatterv (and
# their started forms) whose
# root was given counts that are not the members' (erroneous in MPI): with
# the library every rank's call fails with the same error naming the call,
# nobody hangs (tests/pmpi/pmpi_rooted.c, `mismatch`).
set -eu
MPIEXEC=$1; ROOTED=$2; LIB=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "rooted_robust: $*"; exit 1; }
timeout 60 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n 4 "$ROOTED" mismatch \
  </dev/null >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "the job did not end cleanly"; }
cat "$TMP/out"
for C in "MPI_Gatherv: the root's recvcounts do not match what the members send (in bytes: \[8,8,8,8\])" \
         "MPI_Scatterv: the root's sendcounts do not match what the members receive (in bytes: \[8,8,8,8\])" \
         "MPI_Igatherv on MPI_COMM_WORLD: MPI_Gatherv: the root's recvcounts do not match" \
         "MPI_Iscatterv on MPI_COMM_WORLD: MPI_Scatterv: the root's sendcounts do not match"; do
  n=$(grep -c "^rank [0-9]*: error: .*$C" "$TMP/out" || true)
  case $C in MPI_I*) want=4 ;; *) want=8 ;; esac # the started calls' too
  [ "$n" -eq "$want" ] || fail "expected $want ranks' calls to fail with '$C', got $n"
done
echo "rooted_robust: every rank failed the four calls alike"
