#!/bin/sh
# comms.sh MPIEXEC COMMS LIB: the library's private communicators, and calls
# that fail on some ranks (tests/pmpi/pmpi_comms.c, run with and without
# LD_PRELOAD=LIB; every job under a timeout, so a hang fails the test):
#  1. MPI_Comm_dup + MPI_Allreduce until a dup fails: as many succeed
#     preloaded as natively, but for the library's one communicator (it
#     cost one per communicator, 1,023 of 2,046, before);
#  2. collectives interleaved over communicators sharing a group, some freed
#     and new ones made, and one of another group: every result right;
#  3. the context ids exhausted before the first collective: the call goes
#     to MPICH with a verbose note naming the failed MPI_Comm_dup (it was
#     blamed on the schedule), and once they are freed the library serves
#     the communicator again;
#  4. MPI_SUM on a contiguous type of 2 ints (3 and 5 ranks): every rank
#     gets MPICH's error, as natively (the combining ranks failed mid-plan
#     and the others waited for ever);
#  5. MPI_Allgatherv where rank 1's second call passes a shorter sendcount:
#     every rank fails (the others waited for ever), with CHOREO_CHECK=always
#     with one message naming rank 1's problem; the third call is right;
#  6. communicators split, used and freed in turn (MPICH reuses their
#     handles for communicators of other sizes): every result right, handed
#     over and with choreo's schedules.
set -eu
MPIEXEC=$1; COMMS=$2; LIB=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "comms: $*"; exit 1; }
# run OUT NP [VAR=VALUE...] -- ARGS: one job, preloaded unless VARS has
# NATIVE=1; fails on a hang (60 s) or a non-zero exit.
run() {
  out=$1; np=$2; shift 2
  envs="-env LD_PRELOAD $LIB"
  while [ "$1" != "--" ]; do
    case $1 in
      NATIVE=1) envs="" ;;
      *) envs="$envs -env ${1%%=*} ${1#*=}" ;;
    esac
    shift
  done
  shift
  # shellcheck disable=SC2086
  timeout 60 "$MPIEXEC" -n "$np" $envs "$COMMS" "$@" </dev/null >"$out" 2>&1 ||
    { rc=$?; cat "$out"; fail "job '$*' ($np ranks) did not end cleanly (rc $rc)"; }
}
# count N PATTERN FILE: exactly N lines match.
count() {
  n=$(grep -c -- "$2" "$3" || true)
  [ "$n" -eq "$1" ] || { cat "$3"; fail "expected $1 lines matching '$2', got $n"; }
}
has() { grep -q -- "$1" "$2" || { cat "$2"; fail "no line matching '$1'"; }; }

# 1. Dups: natively, then preloaded.
run "$TMP/1n" 2 NATIVE=1 -- dups 4096
run "$TMP/1p" 2 CHOREO_VERBOSE=1 -- dups 4096
native=$(sed -n 's/^comms: rank 0: ok dups //p' "$TMP/1n")
preloaded=$(sed -n 's/^comms: rank 0: ok dups //p' "$TMP/1p")
[ -n "$native" ] && [ -n "$preloaded" ] || { cat "$TMP/1n" "$TMP/1p"; fail "no dup count"; }
[ "$native" -gt 1100 ] || fail "only $native dups natively: nothing to compare"
[ "$preloaded" -ge $((native - 1)) ] ||
  fail "$preloaded dups succeed preloaded, $native natively"
count 2 "^comms: rank [01]: ok dups $preloaded\$" "$TMP/1p"
# The library served every communicator (rank 0 prints once per communicator).
count "$preloaded" "MPI_Allreduce (communicator of 2, 16 bytes) on .*: allreduce-" "$TMP/1p"

# 2. Interleaved communicators of one group, and of another.
for chk in first always; do
  run "$TMP/2$chk" 4 CHOREO_VERBOSE=2 CHOREO_CHECK=$chk -- interleave
  count 4 "^comms: rank [0-3]: ok interleave\$" "$TMP/2$chk"
  has "MPI_Allgather (communicator of 2, 24 bytes in all) on a communicator: allgather-" "$TMP/2$chk"
  has "MPI_Bcast (communicator of 4, 20 bytes, root 3) on a communicator: bcast-" "$TMP/2$chk"
  grep -q "native (" "$TMP/2$chk" && { cat "$TMP/2$chk"; fail "a call went native"; }
done

# 3. No context id left for the library.
run "$TMP/3" 2 CHOREO_VERBOSE=1 -- exhaust
count 2 "^comms: rank [01]: ok after [0-9]* dups\$" "$TMP/3"
count 2 "^comms: rank [01]: ok after freeing them\$" "$TMP/3"
has "choreo-mpi: MPI_Allreduce on MPI_COMM_WORLD: native (no private communicator for choreo: MPI_Comm_dup failed: .*Too many communicators" "$TMP/3"
has "choreo-mpi: MPI_Allreduce (communicator of 2, 16 bytes) on MPI_COMM_WORLD: allreduce-" "$TMP/3"
grep -q "not its ops" "$TMP/3" && { cat "$TMP/3"; fail "blamed on the schedule"; }

# 4. An operator the datatype does not have: MPICH's error on every rank.
for np in 3 5; do
  for chk in first always; do
    run "$TMP/4$np$chk" "$np" CHOREO_VERBOSE=1 CHOREO_CHECK=$chk -- badop
    count $((2 * np)) "^comms: rank [0-9]: error: Invalid MPI_Op" "$TMP/4$np$chk"
    count "$np" "^comms: rank [0-9]: ok doubles\$" "$TMP/4$np$chk"
    count "$np" "^comms: rank [0-9]: ok after badop\$" "$TMP/4$np$chk"
    has "native (the operator is not defined on the datatype: Invalid MPI_Op: MPI_Op MPI_SUM operation not defined for this datatype; MPICH reports it)" "$TMP/4$np$chk"
  done
done

# 5. Rank 1 cannot bind the cached plan to its buffers.
run "$TMP/5" 3 -- shortsend
count 3 "^comms: rank [0-2]: ok first allgatherv\$" "$TMP/5"
count 1 "^comms: rank 1: error: .*rank 1: the send buffer holds 12 bytes but this rank's contribution to buffer all needs 16" "$TMP/5"
count 2 "^comms: rank [02]: error: .*: the message from rank [12] came empty: that rank, or one it depends on, could not run this call" "$TMP/5"
count 3 "^comms: rank [0-2]: ok third allgatherv\$" "$TMP/5"
run "$TMP/5a" 3 CHOREO_CHECK=always -- shortsend
count 3 "^comms: rank [0-2]: error: choreo-mpi: the ranks disagree on this call: rank 0: MPI_Allgatherv (communicator of 3, 48 bytes in all); rank 1: .*rank 1: the send buffer holds 12 bytes" "$TMP/5a"
count 3 "^comms: rank [0-2]: ok third allgatherv\$" "$TMP/5a"

# 6. Communicators split, used and freed in turn: MPICH hands a freed
#    handle to a new communicator of another size, and what the library
#    kept of the old one (its size and rank, the hand-over's decisions)
#    must not describe the new; handed to MPICH (the margin) and choreo's.
for margin in 0.1 off; do
  run "$TMP/6$margin" 4 CHOREO_MARGIN=$margin -- reuse
  count 4 "^comms: rank [0-3]: ok reuse [0-9]*\$" "$TMP/6$margin"
  grep -q "^comms: rank [0-3]: ok reuse [1-9]" "$TMP/6$margin" ||
    { cat "$TMP/6$margin"; fail "MPICH gave no freed handle to a communicator of another size: the case is not tested"; }
done
echo "comms: $preloaded of $native dups preloaded; every case ended cleanly on every rank"
