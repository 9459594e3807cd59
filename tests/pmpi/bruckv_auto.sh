#!/bin/sh
# bruckv_auto.sh MPIEXEC APP LIB: MPI_Alltoallv, MPI_Ialltoallv and
# MPI_Alltoallv_init (tests/pmpi/pmpi_bruckv.c's matrices of 0 to 45 ints
# a block, each compared bit for bit, gaps included, with MPICH's own
# PMPI_Alltoallv) where alltoall-bruck is chosen by the call's sizes, so
# that its rank parts need the Bruck round of the sizes decided after the
# counts are known (docs/pmpi.md, "Bruck's MPI_Alltoallv under auto and
# rules"):
#  1. CHOREO_ALLTOALLV=auto on 6 ranks, the margin at 0.1 (pmpi_bruckv.c's
#     auto mode): the model prices alltoall-bruck beside the others (best
#     of 4) and picks it for the small blocks, blocking and started, over
#     MPICH's own alltoallv-mpich; one block alone is handed to MPICH (the
#     margin's baseline);
#  2. CHOREO_DEFAULT=auto (the margin off) on 5 ranks: the same;
#  3. a selection rule that reads avg_msg_size and picks
#     alltoall-bruck:radix=3 (CHOREO_FALLBACK=error) on 5 ranks: the
#     blocking and persistent calls run it (the started one goes to MPICH:
#     its rule reads sizes it learns only after the start).
#  1b. the same with every matrix in every form (check mode): the one
#     block's persistent call goes to MPICH's MPI_Alltoallv_init after the
#     library's persistent requests were freed;
#  4. ranks whose selections differ (auto on 2, alltoall-pairwise on 3):
#     they want different rounds, run none (agreed in the or-allreduce of
#     the used offsets), and every rank fails naming each rank's choice;
#     nobody hangs.
# The library of before fails 1 to 3: auto never names alltoall-bruck (its
# parts were refused, naming --relayed), and the rule's build was refused.
set -eu
. "$(dirname "$0")/job.sh"

job "auto: the job did not end cleanly" -genv LD_PRELOAD "$LIB" \
  -genv CHOREO_ALLTOALLV auto -genv CHOREO_MARGIN 0.1 \
  -genv CHOREO_FALLBACK error -genv CHOREO_VERBOSE 1 -n 6 "$APP" auto
grep -q "pmpi_bruckv: passed" "$TMP/out" || fail "auto: results differ from MPICH's"
grep -q "MPI_Alltoallv (communicator of 6, .*) on MPI_COMM_WORLD: alltoall-bruck (CHOREO_ALLTOALLV; auto: model time .* s, best of 4 priced in the job); proved by 6 ranks.*each rank's part from its row and column" "$TMP/out" ||
  fail "auto: the model did not pick alltoall-bruck for a blocking call"
grep -q "MPI_Alltoallv (communicator of 6, .*) on MPI_COMM_WORLD, started: alltoall-bruck (CHOREO_ALLTOALLV; auto: model time .* s, best of 4 priced in the run); each rank's part" "$TMP/out" ||
  fail "auto: the model did not pick alltoall-bruck for a started call"
grep -q "MPI_Alltoallv (communicator of 6, 28 bytes in all) on MPI_COMM_WORLD: native (auto: .* predicted .* s, MPICH's own (alltoallv-mpich) .* s: not 10 % faster (CHOREO_MARGIN)" "$TMP/out" ||
  fail "auto: the one block was not weighed against MPICH's own"
! grep -q "cannot serve it" "$TMP/out" || fail "auto: a build was refused"
echo "bruckv_auto: auto (margin 0.1) picked alltoall-bruck, bit for bit as MPICH's"

# Every matrix in every form at the margin: the one block's persistent call
# goes to MPICH's own MPI_Alltoallv_init after the library's persistent
# requests of the earlier matrices were freed; MPICH 4.0.2 never started it
# while the library's requests were receives from MPI_PROC_NULL (every rank
# waited until the alarm; tests/pmpi/pmpi_preq_reuse.c).
job "auto, every form: the job did not end cleanly" -genv LD_PRELOAD "$LIB" \
  -genv CHOREO_ALLTOALLV auto -genv CHOREO_MARGIN 0.1 \
  -genv CHOREO_VERBOSE 1 -n 6 "$APP" check
grep -q "pmpi_bruckv: passed" "$TMP/out" || fail "auto, every form: results differ from MPICH's"
grep -q "MPI_Alltoallv (communicator of 6, 28 bytes in all) on MPI_COMM_WORLD: native (auto: " "$TMP/out" ||
  fail "auto, every form: the one block was not handed to MPICH"
echo "bruckv_auto: auto (margin 0.1), every form, MPICH's persistent call after the library's"

job "default: the job did not end cleanly" -genv LD_PRELOAD "$LIB" \
  -genv CHOREO_DEFAULT auto -genv CHOREO_MARGIN off \
  -genv CHOREO_FALLBACK error -genv CHOREO_VERBOSE 1 -n 5 "$APP" check
grep -q "pmpi_bruckv: passed" "$TMP/out" || fail "default: results differ from MPICH's"
grep -q "MPI_Alltoallv (communicator of 5, .*) on MPI_COMM_WORLD: alltoall-bruck (CHOREO_DEFAULT; auto: model time .* s, best of 4 priced in the job); proved by 5 ranks" "$TMP/out" ||
  fail "default: the model did not pick alltoall-bruck for a blocking call"
echo "bruckv_auto: CHOREO_DEFAULT=auto picked alltoall-bruck, bit for bit as MPICH's"

cat >"$TMP/rules.json" <<'EOF'
{
  "collective=alltoallv": {
    "avg_msg_size<=64": {"algorithm=alltoall-bruck:radix=3": {}},
    "avg_msg_size=any": {"algorithm=alltoall-pairwise": {}}
  }
}
EOF
job "rule: the job did not end cleanly" -genv LD_PRELOAD "$LIB" \
  -genv CHOREO_SELECTION "$TMP/rules.json" -genv CHOREO_FALLBACK error \
  -genv CHOREO_VERBOSE 1 -n 5 "$APP" check
grep -q "pmpi_bruckv: passed" "$TMP/out" || fail "rule: results differ from MPICH's"
grep -q "MPI_Alltoallv (communicator of 5, .*) on MPI_COMM_WORLD: alltoall-bruck (rule 1 of .*rules.json (/collective=alltoallv/avg_msg_size<=64/algorithm=alltoall-bruck:radix=3)); proved by 5 ranks.*each rank's part from its row and column" "$TMP/out" ||
  fail "rule: the rule's alltoall-bruck did not run"
! grep -q "cannot serve it" "$TMP/out" || fail "rule: a build was refused"
echo "bruckv_auto: a rule reading the sizes ran alltoall-bruck:radix=3, bit for bit as MPICH's"

set +e
timeout 60 "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n 2 -env CHOREO_ALLTOALLV auto "$APP" check : \
  -n 3 -env CHOREO_ALLTOALLV alltoall-pairwise "$APP" check </dev/null >"$TMP/out" 2>&1
RC=$?
set -e
[ "$RC" -ne 124 ] || { cat "$TMP/out"; fail "differing selections: the job hung"; }
[ "$RC" -ne 0 ] || fail "differing selections: the job did not fail"
grep -q "the ranks disagree on this call: rank 0: .* -> auto (CHOREO_ALLTOALLV); .*rank 4: .* -> alltoall-pairwise (CHOREO_ALLTOALLV)" "$TMP/out" ||
  { cat "$TMP/out"; fail "differing selections: no rank named the choices"; }
echo "bruckv_auto: differing selections failed naming each rank's choice, no hang"
