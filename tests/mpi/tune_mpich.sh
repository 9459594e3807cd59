#!/bin/sh
# tune_mpich.sh MPIEXEC BIN PYTHON: `choreo tune --mpich` files loaded into MPICH
# 4.0.2 (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) in real jobs
# (docs/machine.md):
#  1. the file covers every collective: a job calling each blocking and
#     non-blocking collective, intra and inter, and the neighbourhood ones
#     (choreo-tune-mpich-colls) completes with right results, also on 6
#     ranks under a file tuned for p = 2 only (recursive doubling, which
#     MPICH runs for powers of two only, must not serve p = 6); the same
#     file without one collective makes MPICH abort (so step 1 can fail);
#  2. MPICH runs the file's choice, not its own: with a start-up of a
#     second the model picks recursive doubling for every allreduce, and
#     choreo trace finds MPICH's MPI_Allreduce of 64 KiB at p = 4 equal op
#     for op to allreduce-recursive-doubling; without the file MPICH's
#     default (reduce_scatter + allgather) sends other messages;
#  3. the same for a broadcast the model moves off MPICH's default: at
#     p = 5 and 64 KiB (alpha 1 us, beta 0.1 ns/B) the file picks scatter +
#     ring where MPICH runs its binomial tree (p < 8): the trace has the
#     ring's messages with the file and the tree's without.
set -eu
MPIEXEC=$1; BIN=$2; PY=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "tune-mpich: $*"; exit 1; }
CVAR=MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE

# 1. Every collective, with the file, on 4 ranks (two halves of 2 for the
# intercommunicator).
"$BIN/choreo" tune --p 2,4,8 --max-bytes 1M --mpich "$TMP/mpich.json"
env $CVAR="$TMP/mpich.json" timeout 120 "$MPIEXEC" -n 4 \
  "$BIN/choreo-tune-mpich-colls" </dev/null > "$TMP/1" 2>&1 ||
  { cat "$TMP/1"; fail "the job with the tuned file failed"; }
grep -q "tune colls: ok" "$TMP/1" || { cat "$TMP/1"; fail "no result"; }
"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
del d["collective=ineighbor_alltoallw"]
json.dump(d, open(sys.argv[2], "w"))' "$TMP/mpich.json" "$TMP/missing.json"
if env $CVAR="$TMP/missing.json" timeout 120 "$MPIEXEC" -n 4 \
  "$BIN/choreo-tune-mpich-colls" </dev/null > "$TMP/1m" 2>&1; then
  fail "a file without ineighbor_alltoallw did not fail the job"
fi
# A grid of one power of two on 6 ranks: its comm_size=any branch serves
# p = 6, where MPICH's recursive-doubling allgather asserts.
"$BIN/choreo" tune --p 2 --max-bytes 64K --mpich "$TMP/p2.json"
env $CVAR="$TMP/p2.json" timeout 120 "$MPIEXEC" -n 6 \
  "$BIN/choreo-tune-mpich-colls" </dev/null > "$TMP/1p" 2>&1 ||
  { cat "$TMP/1p"; fail "the job of 6 ranks with a file tuned at p = 2 failed"; }
echo "1. every collective: ok (4 ranks, and 6 under a file tuned at p = 2); without ineighbor_alltoallw: the job fails"

# 2. The file's allreduce is the one MPICH runs.
echo '{"format": "choreo-machine", "version": 1, "alpha": 1, "beta": 1e-12}' > "$TMP/slow.json"
"$BIN/choreo" tune --machine "$TMP/slow.json" --p 4,8 --max-bytes 1M \
  --mpich "$TMP/slow-mpich.json"
# trace FILE ARGS: choreo trace ARGS on N ranks, with the tuning file FILE
# ("" for none).
trace() {
  F=$1; shift
  if [ -n "$F" ]; then set -- env "$CVAR=$F" "$BIN/choreo" trace "$@"
  else set -- env -u "$CVAR" "$BIN/choreo" trace "$@"; fi
  timeout 120 "$@" -- "$MPIEXEC" -n "$N" "$BIN/choreo-trace-driver" \
    </dev/null 2>&1 || true
}
N=4
OUT=$(trace "$TMP/slow-mpich.json" --collective allreduce \
  --bytes 64K --against allreduce-recursive-doubling)
echo "$OUT" | grep -q "against allreduce-recursive-doubling: equal op for op" ||
  { echo "$OUT"; fail "with the file, MPICH's allreduce is not recursive doubling"; }
OUT=$(trace "" --collective allreduce --bytes 64K \
  --against allreduce-recursive-doubling)
echo "$OUT" | grep -q "against allreduce-recursive-doubling: different messages" ||
  { echo "$OUT"; fail "without the file, MPICH's allreduce is recursive doubling too: the check proves nothing"; }
echo "2. allreduce 64K, p = 4: recursive doubling with the file, not without"

# 3. The file's broadcast.
echo '{"format": "choreo-machine", "version": 1, "alpha": 1e-6, "beta": 1e-10}' > "$TMP/fast.json"
"$BIN/choreo" tune --machine "$TMP/fast.json" --p 5 --max-bytes 1M \
  --mpich "$TMP/fast-mpich.json"
grep -q '"avg_msg_size=any": {' "$TMP/fast-mpich.json" || fail "no size rules"
N=5
OUT=$(trace "$TMP/fast-mpich.json" --collective bcast \
  --bytes 64K --against bcast-scatter-ring)
echo "$OUT" | grep -Eq "against bcast-scatter-ring: equal (op for op|once both are retimed)" ||
  { echo "$OUT"; fail "with the file, MPICH's bcast is not scatter + ring"; }
OUT=$(trace "" --collective bcast --bytes 64K --against bcast-scatter-ring)
echo "$OUT" | grep -q "against bcast-scatter-ring: different messages" ||
  { echo "$OUT"; fail "without the file, MPICH's bcast is scatter + ring too"; }
echo "3. bcast 64K, p = 5: scatter + ring with the file, binomial without"
echo "tune-mpich: passed"
