#!/bin/sh
# flow_control.sh MPIEXEC BIN_DIR: the executor's receiver-driven flow
# control (docs/executor.md, "Flow control") under choreo-run --check with
# --flow-control 1, so that every message with data waits for its
# receiver's clear-to-send and acknowledgement: broadcasts (hierarchical
# flat tree, circulant, pipeline), reductions (ring allreduce with its
# exchanges in both directions, halving-doubling reduce-scatter), Bruck's
# allgather, Kang's intercommunicator allgather, each waiting yielding
# (MPI_Testsome + sched_yield) and busy (MPI_Testsome in a loop); the
# results must match the expected bytes and MPICH's. Then ranks given
# different thresholds are refused on every rank (exit 2).
set -eu
MPIEXEC=$1; BIN=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
N=0
FILES=""
gen() {
  N=$((N + 1))
  "$BIN/choreo" gen "$@" -o "$TMP/s$N.json"
  FILES="$FILES $TMP/s$N.json"
}
gen bcast-flat --p 5 --bytes 100000 --root 2 --groups 2
gen bcast-circulant --p 5 --bytes 50001 --root 3 --segments 4
gen bcast-pipeline --p 5 --bytes 30000 --segments 3
gen allreduce-ring --p 5 --bytes 40000 --element-bytes 4
gen reduce-scatter-halving-doubling --p 5 --bytes 20000 --element-bytes 4
gen allgather-bruck --p 5 --bytes 7000
gen inter-allgather-kang --p 3 --q 2 --bytes-a 9000 --bytes-b 5000
for W in yield busy; do
  # shellcheck disable=SC2086
  out=$("$MPIEXEC" -n 5 "$BIN/choreo-run" $FILES --check --iterations 3 \
        --flow-control 1 --wait $W --json </dev/null 2>&1) || {
    echo "$out"; echo "flow_control: the run waiting $W failed"; exit 1; }
  echo "$out"
  test "$(echo "$out" | grep -c '"flow_control_bytes":1,"check":"passed"')" -eq "$N" || {
    echo "flow_control: not every schedule passed its check waiting $W"; exit 1; }
done
set +e
out=$("$MPIEXEC" -n 2 "$BIN/choreo-run" "$TMP/s1.json" --flow-control 1 : \
      -n 3 "$BIN/choreo-run" "$TMP/s1.json" </dev/null 2>&1)
rc=$?
set -e
echo "$out"
[ "$rc" -eq 2 ] || { echo "flow_control: different thresholds: exit $rc, not 2"; exit 1; }
echo "$out" | grep -q -- "--flow-control" || {
  echo "flow_control: the refusal does not name --flow-control"; exit 1; }
echo "flow_control: $N schedules passed with every message gated, yielding and busy"
