#!/bin/sh
# calibrate.sh MPIEXEC BIN PYTHON: choreo-calibrate and the machine file in
# real jobs (docs/machine.md):
#  1. two ranks write a machine file whose model `choreo cost --machine`
#     prices with (alpha, beta, f_alpha, f_beta, gamma as written; alpha and
#     beta positive; one measured row per message size, 8 B to --max-bytes);
#     with CHOREO_NODES=N the nodes are N ranks each (both pairs measured),
#     and the one-way factors stay within 0.5 and 1; the MPI library's own
#     step start-up is written (library_step_startup: its 8-byte broadcast
#     per level of the binomial tree, beyond the 8-byte exchange);
#  2. refusals on every rank, exit 2: one rank, a bad option, an output file
#     that cannot be written, a bad CHOREO_NODES;
#  3. the drop-in library's auto prices with CHOREO_MACHINE's model (a
#     half-second alpha makes the model time of a 2-step allgather 1 s),
#     a step start-up of half a second alone makes it 1 s too,
#     and a machine file without beta fails every rank's call naming the
#     file and the JSON pointer; so does a negative CHOREO_MARGIN, and a
#     CHOREO_NATIVE_WAIT that is not auto, yield or block.
#  4. Handed-over calls wait yielding only where every rank asks to.
#  5. CHOREO_NATIVE_WAIT=auto counts the CPUs the launcher hands out: two
#     ranks bound to a core each (hydra's binding) block, as unbound ones
#     do; one more rank than CPUs, bound, yields; a job confined to one CPU
#     as a whole (taskset around mpiexec) yields.
set -eu
MPIEXEC=$1; BIN=$2; PY=$3; LIB=$4
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "calibrate: $*"; exit 1; }
run() { timeout 120 "$MPIEXEC" "$@" </dev/null; }

# 1. A machine file, and the model read from it.
run -n 2 "$BIN/choreo-calibrate" -o "$TMP/m.json" --seconds 2 --max-bytes 256K \
  > "$TMP/1" 2>&1 || { cat "$TMP/1"; fail "calibrate failed"; }
grep -q "choreo-calibrate: 2 ranks on 1 node(s); alpha" "$TMP/1" || { cat "$TMP/1"; fail "no summary"; }
"$BIN/choreo" gen allgather-ring --p 4 --bytes 64K -o "$TMP/r4.json"
"$BIN/choreo" cost "$TMP/r4.json" --machine "$TMP/m.json" --json > "$TMP/cost.json"
"$PY" - "$TMP/m.json" "$TMP/cost.json" <<'PYEOF' || fail "the machine file's model is not the one cost used"
import json, sys
m = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))["model"]
assert m["format"] == "choreo-machine" and m["version"] == 1
for k in ("alpha", "beta", "gamma", "f_alpha", "f_beta"):
    assert c[k] == m[k], (k, c[k], m[k])
assert m["alpha"] > 0 and m["beta"] > 0 and m["gamma"] > 0, m
sizes = [r["bytes"] for r in m["measured"]["intra"]["times"]]
assert sizes == [8, 64, 512, 4096, 32768, 262144], sizes
assert all(r["one_way_s"] > 0 and r["exchange_s"] > 0
           for r in m["measured"]["intra"]["times"])
assert m["step_startup"] >= 0, m
assert m["measured"]["ring_step_s"] > 0 and m["measured"]["exchange_8_bytes_s"] > 0, m
assert abs(m["step_startup"] - max(0.0, m["measured"]["ring_step_s"] - m["measured"]["exchange_8_bytes_s"])) < 1e-12, m
# The MPI library's own step start-up: its blocking ring beyond the same
# exchange; the one-step all-to-all recorded beside it.
assert m["measured"]["library_ring_step_s"] > 0 and m["measured"]["library_all_to_all_step_s"] > 0, m
M = m["measured"]
assert M["library_bcast_8_bytes_s"] > 0 and M["library_bcast_steps"] == 1, M
assert abs(m["library_step_startup"] - max(0.0, M["library_bcast_8_bytes_s"] - M["exchange_8_bytes_s"])) < 1e-12, m
assert set(m["gamma_by_op"]) == {"sum-int", "sum-double", "max-double",
                                 "maxloc-double-int"}
PYEOF

# 1b. Nodes from CHOREO_NODES (6 ranks, 3 per node: 2 nodes, the intra pair
#     0-1 and the inter pair 0-3), on 2 cores: the ranks outside a pair
#     wait asleep, the one-way factors stay within 0.5 and 1 whatever the
#     ping-pong measured (6 ranks on 2 cores gave f_alpha in the hundreds
#     before), and every size has its mean time.
run -n 6 env CHOREO_NODES=3 "$BIN/choreo-calibrate" -o "$TMP/n.json" --seconds 1 --max-bytes 4K \
  > "$TMP/1b" 2>&1 || { cat "$TMP/1b"; fail "calibrate with CHOREO_NODES failed"; }
grep -q "choreo-calibrate: 6 ranks on 2 node(s)" "$TMP/1b" || { cat "$TMP/1b"; fail "CHOREO_NODES=3: not 2 nodes"; }
"$PY" - "$TMP/n.json" <<'PYEOF' || fail "CHOREO_NODES=3: wrong pairs or factors"
import json, sys
m = json.load(open(sys.argv[1]))
M = m["measured"]
assert M["nodes"] == 2 and M["nodes_from"] == "CHOREO_NODES", M
assert M["intra"]["ranks"] == [0, 1] and M["inter"]["ranks"] == [0, 3], M
assert 0.5 <= m["f_alpha"] <= 1 and 0.5 <= m["f_beta"] <= 1, m
for pair in ("intra", "inter"):
    assert all(r["one_way_mean_s"] > 0 and r["exchange_mean_s"] > 0 for r in M[pair]["times"]), M[pair]
assert m["library_step_startup"] >= 0 and M["library_all_to_all_step_s"] > 0, m
# 6 ranks: MPICH's 8-byte broadcast is a binomial tree of 3 levels.
assert M["library_bcast_steps"] == 3, M
assert abs(m["library_step_startup"] - max(0.0, M["library_bcast_8_bytes_s"] / 3 - M["exchange_8_bytes_s"])) < 1e-12, m
PYEOF
if run -n 2 env CHOREO_NODES=two "$BIN/choreo-calibrate" --seconds 1 > "$TMP/1c" 2>&1; then fail "CHOREO_NODES=two was not refused"; fi
[ "$(grep -c "rank [01]: CHOREO_NODES=two: expected shared or a positive number of ranks per node" "$TMP/1c")" -ge 1 ] ||
  { cat "$TMP/1c"; fail "CHOREO_NODES=two: no reason"; }

# 1d. --help names both start-ups.
run -n 1 "$BIN/choreo-calibrate" --help > "$TMP/1d" 2>&1 || { cat "$TMP/1d"; fail "--help failed"; }
grep -q "the MPI library's own collectives'" "$TMP/1d" || { cat "$TMP/1d"; fail "--help: no library start-up"; }

# 2. Refusals.
if run -n 1 "$BIN/choreo-calibrate" > "$TMP/2a" 2>&1; then fail "one rank was not refused"; fi
grep -q "needs at least 2 ranks" "$TMP/2a" || { cat "$TMP/2a"; fail "one rank: no reason"; }
if run -n 2 "$BIN/choreo-calibrate" --seconds 0 > "$TMP/2b" 2>&1; then fail "--seconds 0 was not refused"; fi
grep -q "rank 0: --seconds" "$TMP/2b" || { cat "$TMP/2b"; fail "--seconds 0: no reason"; }
if run -n 2 "$BIN/choreo-calibrate" --seconds 1 --max-bytes 1K -o "$TMP/no/such/m.json" > "$TMP/2c" 2>&1; then
  fail "an unwritable file was not refused"; fi
grep -q "cannot write $TMP/no/such/m.json" "$TMP/2c" || { cat "$TMP/2c"; fail "unwritable: no reason"; }

# 3. The library.
echo '{"format": "choreo-machine", "version": 1, "alpha": 0.5, "beta": 1e-9}' > "$TMP/slow.json"
run -n 4 -genv LD_PRELOAD "$LIB" -genv CHOREO_VERBOSE 1 -genv CHOREO_MACHINE "$TMP/slow.json" \
  -genv CHOREO_ALLGATHER auto -genv CHOREO_MARGIN off "$BIN/choreo-pmpi-robust" allgather > "$TMP/3a" 2>&1 ||
  { cat "$TMP/3a"; fail "the library with a machine file failed"; }
grep -q "allgather-bruck (CHOREO_ALLGATHER; auto: model time 1.000e+00 s" "$TMP/3a" ||
  { cat "$TMP/3a"; fail "the library did not price with CHOREO_MACHINE"; }
[ "$(grep -c '^robust: rank [0-9]*: ok' "$TMP/3a")" -eq 4 ] || { cat "$TMP/3a"; fail "a rank did not pass"; }
# The step start-up alone prices the calls: 2 steps of half a second.
echo '{"format": "choreo-machine", "version": 1, "alpha": 0, "beta": 1e-12, "step_startup": 0.5}' > "$TMP/steps.json"
run -n 4 -genv LD_PRELOAD "$LIB" -genv CHOREO_VERBOSE 1 -genv CHOREO_MACHINE "$TMP/steps.json" \
  -genv CHOREO_ALLGATHER auto -genv CHOREO_MARGIN off "$BIN/choreo-pmpi-robust" allgather > "$TMP/3s" 2>&1 ||
  { cat "$TMP/3s"; fail "the library with a step start-up failed"; }
grep -q "allgather-bruck (CHOREO_ALLGATHER; auto: model time 1.000e+00 s" "$TMP/3s" ||
  { cat "$TMP/3s"; fail "the library did not price the step start-up"; }
echo '{"format": "choreo-machine", "version": 1, "alpha": 0.5}' > "$TMP/nobeta.json"
run -n 3 -genv LD_PRELOAD "$LIB" -genv CHOREO_MACHINE "$TMP/nobeta.json" \
  "$BIN/choreo-pmpi-robust" allgather > "$TMP/3b" 2>&1 || fail "the bad machine file's job did not end cleanly"
n=$(grep -c "^robust: rank [0-9]*: error: .*CHOREO_MACHINE: .*nobeta.json: /beta: missing" "$TMP/3b" || true)
[ "$n" -eq 3 ] || { cat "$TMP/3b"; fail "expected 3 ranks to fail naming nobeta.json's /beta, got $n"; }
run -n 2 -genv LD_PRELOAD "$LIB" -genv CHOREO_MARGIN -0.5 \
  "$BIN/choreo-pmpi-robust" allgather > "$TMP/3c" 2>&1 || fail "the bad margin's job did not end cleanly"
n=$(grep -c "^robust: rank [0-9]*: error: .*CHOREO_MARGIN=-0.5: expected off or a fraction" "$TMP/3c" || true)
[ "$n" -eq 2 ] || { cat "$TMP/3c"; fail "expected 2 ranks to fail naming CHOREO_MARGIN, got $n"; }
run -n 2 -genv LD_PRELOAD "$LIB" -genv CHOREO_NATIVE_WAIT spin \
  "$BIN/choreo-pmpi-robust" allgather > "$TMP/3d" 2>&1 || fail "the bad native wait's job did not end cleanly"
n=$(grep -c "^robust: rank [0-9]*: error: .*CHOREO_NATIVE_WAIT=spin: expected auto, yield or block" "$TMP/3d" || true)
[ "$n" -eq 2 ] || { cat "$TMP/3d"; fail "expected 2 ranks to fail naming CHOREO_NATIVE_WAIT, got $n"; }
# 4. Handed-over blocking calls wait on MPICH's non-blocking form only when
#    every rank of the communicator says so: MPI's blocking and
#    non-blocking collectives do not match, so one rank asking to yield
#    while two block must not hang (all block); all three yield.
run -n 1 env LD_PRELOAD="$LIB" CHOREO_MARGIN=0.1 CHOREO_VERBOSE=1 CHOREO_NATIVE_WAIT=yield \
  "$BIN/choreo-pmpi-robust" bcast : -n 2 env LD_PRELOAD="$LIB" CHOREO_MARGIN=0.1 \
  CHOREO_VERBOSE=1 CHOREO_NATIVE_WAIT=block "$BIN/choreo-pmpi-robust" bcast \
  > "$TMP/4a" 2>&1 || { cat "$TMP/4a"; fail "the disagreeing native waits' job failed or hung"; }
[ "$(grep -c "^robust: rank [0-9]*: ok" "$TMP/4a")" -eq 3 ] || { cat "$TMP/4a"; fail "expected 3 ranks ok with disagreeing native waits"; }
grep -q "MPI_Bcast (communicator of 3, 8 bytes, root 0) on MPI_COMM_WORLD: native (auto:" "$TMP/4a" || { cat "$TMP/4a"; fail "the broadcast was not handed to MPICH"; }
! grep -q "waits yielding" "$TMP/4a" || { cat "$TMP/4a"; fail "a rank waited yielding though two ranks block"; }
run -n 3 env LD_PRELOAD="$LIB" CHOREO_MARGIN=0.1 CHOREO_VERBOSE=1 CHOREO_NATIVE_WAIT=yield \
  "$BIN/choreo-pmpi-robust" bcast > "$TMP/4b" 2>&1 || { cat "$TMP/4b"; fail "the yielding job failed"; }
[ "$(grep -c "^robust: rank [0-9]*: ok" "$TMP/4b")" -eq 3 ] || { cat "$TMP/4b"; fail "expected 3 ranks ok, yielding"; }
grep -q "a blocking call waits yielding, CHOREO_NATIVE_WAIT=yield" "$TMP/4b" || { cat "$TMP/4b"; fail "the yielding wait was not reported"; }
# 5. (Skipped where this machine has one CPU or more than 8.)
cpus=$(nproc)
if [ "$cpus" -ge 2 ] && [ "$cpus" -le 8 ]; then
  HYDRA_BINDING=core run -n 2 env LD_PRELOAD="$LIB" CHOREO_MARGIN=0.1 CHOREO_VERBOSE=1 \
    "$BIN/choreo-pmpi-robust" bcast > "$TMP/5a" 2>&1 || { cat "$TMP/5a"; fail "the bound job failed"; }
  grep -q "MPI_Bcast (communicator of 2, 8 bytes, root 0) on MPI_COMM_WORLD: native (auto:" "$TMP/5a" || { cat "$TMP/5a"; fail "the bound job's broadcast was not handed to MPICH"; }
  ! grep -q "waits yielding" "$TMP/5a" || { cat "$TMP/5a"; fail "two ranks bound to a core each waited yielding"; }
  n=$((cpus + 1))
  HYDRA_BINDING=core run -n "$n" env LD_PRELOAD="$LIB" CHOREO_MARGIN=0.1 CHOREO_VERBOSE=1 \
    "$BIN/choreo-pmpi-robust" bcast > "$TMP/5b" 2>&1 || { cat "$TMP/5b"; fail "the bound oversubscribed job failed"; }
  grep -q "waits yielding, CHOREO_NATIVE_WAIT=auto: $n ranks on this node, $cpus CPUs (the launcher's; this rank is bound to 1)" "$TMP/5b" ||
    { cat "$TMP/5b"; fail "$n ranks bound on $cpus CPUs did not wait yielding"; }
  taskset -c 0 "$MPIEXEC" -n 2 env LD_PRELOAD="$LIB" CHOREO_MARGIN=0.1 CHOREO_VERBOSE=1 \
    "$BIN/choreo-pmpi-robust" bcast </dev/null > "$TMP/5c" 2>&1 || { cat "$TMP/5c"; fail "the confined job failed"; }
  grep -q "waits yielding, CHOREO_NATIVE_WAIT=auto: 2 ranks on this node, 1 CPUs)" "$TMP/5c" ||
    { cat "$TMP/5c"; fail "2 ranks confined to one CPU did not wait yielding"; }
fi
echo "calibrate: passed"
