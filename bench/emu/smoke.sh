#!/usr/bin/env bash
# bench/emu/smoke.sh BUILD MPIEXEC - the emulated cluster's ctest (label emu).
#
# Two nodes at 100 Mbit/s: a 2-rank ring allgather of 256 KiB per rank,
# generated, proved and run with choreo-run --check under the emulation.
# Asserts the check passes, the run took at least 0.7 of the time the rate
# limit allows (the bytes really crossed the limited ports; without the tbf
# it takes a few milliseconds), and nothing is left behind after `down`.
# Exit 77 (skipped) with the reason when namespaces cannot be made here.
set -euo pipefail
build=$1 mpiexec=$2
here=$(dirname "$(readlink -f "$0")")
export CHOREO_EMU_PREFIX="choreo-emu-t$$"
if ! why=$("$here/cluster.sh" check 2>&1); then
  echo "emu.smoke: skipped: $why"
  exit 77
fi
work=$(mktemp -d)
trap '"$here/cluster.sh" down; rm -rf "$work"' EXIT
"$here/cluster.sh" up 2 --rate 100mbit
bytes=262144
"$build/bin/choreo" gen allgather-ring --p 2 --bytes $bytes -o "$work/ring.json"
"$build/bin/choreo" verify "$work/ring.json"
export CHOREO_EMU_SHIM="$build/lib/libchoreo-emu-finalize.so"
timeout 120 "$mpiexec" -n 2 "$here/rank.sh" "$build/bin/choreo-run" "$work/ring.json" \
  --check --json --iterations 3 </dev/null >"$work/run.json"
cat "$work/run.json"
python3 - "$work/run.json" $bytes <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); m = int(sys.argv[2])
assert r["check"] == "passed", r
t = r.get("makespan_median_s", r["median_s"])
floor = m * 8 / 100e6  # one step: each rank sends m bytes over its 100 Mbit/s port
print(f"emu.smoke: {t*1e3:.2f} ms measured, {floor*1e3:.2f} ms at the port's rate")
assert t >= 0.7 * floor, f"{t} s is faster than the emulated port allows ({floor} s): the rate limit does not apply"
PY
"$here/cluster.sh" down
left=$(ip netns list | grep -c "^$CHOREO_EMU_PREFIX-" || true)
[[ $left -eq 0 ]] || { echo "emu.smoke: $left namespaces left behind"; exit 1; }
echo "emu.smoke: passed"
