#!/usr/bin/env bash
# bench/emu/overlap.sh - overlap of non-blocking collectives on the emulated cluster.
#
#   bench/emu/overlap.sh [--build DIR] [--nodes N] [--rate R] [--min BYTES]
#       [--max BYTES] [--iters I] [--tests T] [--coll NAME]... [--out DIR]
#
# Brings up N nodes (cluster.sh up: one rate-limited port each, every port
# `up` before any MPI_Init), runs build/bin/choreo-bench-overlap (bench/overlap.c)
# for each collective (default iallreduce, ibcast, iallgather, iallgatherv)
# on one rank per node, natively and with LD_PRELOAD=libchoreo-mpi.so
# (CHOREO_MARGIN=off: choreo's schedule, not MPICH's by the margin;
# CHOREO_VERBOSE=1 to record which), and writes DIR/overlap.jsonl (one row a
# line, with "lib": native|choreo), DIR/overlap.md (the table) and
# DIR/overlap.log (the runs' stderr, the algorithms, `uptime` before and
# after). Takes the cluster down on exit. Needs root; exit 77 with the
# reason where namespaces cannot be made. See docs/pmpi.md, "Overlap".
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
BUILD=$here/../../build NODES=4 RATE=200mbit MIN=65536 MAX=4194304 ITERS=7 TESTS=100
OUT=$here/results COLLS=()
die() { echo "overlap.sh: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --nodes) NODES=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --min) MIN=$2; shift 2 ;;
    --max) MAX=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --tests) TESTS=$2; shift 2 ;;
    --coll) COLLS+=("$2"); shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) die "unknown option '$1' (--build --nodes --rate --min --max --iters --tests --coll --out)" ;;
  esac
done
[[ ${#COLLS[@]} -gt 0 ]] || COLLS=(iallreduce ibcast iallgather iallgatherv)
[[ $NODES =~ ^[0-9]+$ && $NODES -ge 2 ]] || die "--nodes must be a number of nodes >= 2, got '$NODES'"
BUILD=$(readlink -f "$BUILD")
bench=$BUILD/bin/choreo-bench-overlap lib=$BUILD/lib/libchoreo-mpi.so
for f in "$bench" "$lib" "$BUILD/lib/libchoreo-emu-finalize.so"; do
  [[ -f $f ]] || die "no $f (cmake --build $BUILD --target choreo-bench-overlap choreo_mpi choreo-emu-finalize)"
done
if ! why=$("$here/cluster.sh" check 2>&1); then
  echo "overlap.sh: skipped: $why"
  exit 77
fi
export CHOREO_EMU_PREFIX=${CHOREO_EMU_PREFIX:-choreo-emu-o}
export CHOREO_EMU_SHIM=$BUILD/lib/libchoreo-emu-finalize.so
trap '"$here/cluster.sh" down' EXIT
mkdir -p "$OUT"
jsonl=$OUT/overlap.jsonl log=$OUT/overlap.log
: >"$jsonl"
{ echo "# $(date -u +%FT%TZ) nodes=$NODES rate=$RATE iters=$ITERS tests=$TESTS"; echo "uptime before: $(uptime)"; } >"$log"
"$here/cluster.sh" up "$NODES" --rate "$RATE" >>"$log"
# The model choreo's auto prices with: the port's beta, a step's start-up
# on this many ranks sharing 2 cores (docs/emulation.md).
bits=$(python3 -c "import re,sys; m=re.fullmatch(r'([0-9.]+)([kmg]?)bit','$RATE'); print(float(m[1])*{'':1,'k':1e3,'m':1e6,'g':1e9}[m[2]])")
beta=$(python3 -c "print(8/$bits)")
for coll in "${COLLS[@]}"; do
  for libname in native choreo; do
    echo "== $coll $libname: $(uptime)" >>"$log"
    pre=()
    [[ $libname == choreo ]] && pre=(-genv LD_PRELOAD "$lib" -genv CHOREO_MARGIN off
                                     -genv CHOREO_VERBOSE 1 -genv CHOREO_BETA "$beta"
                                     -genv CHOREO_ALPHA 1e-4)
    timeout 1200 mpiexec "${pre[@]}" -n "$NODES" "$here/rank.sh" "$bench" "$coll" \
      "$MIN" "$MAX" "$ITERS" "$TESTS" </dev/null 2>>"$log" |
      sed "s/^{/{\"lib\": \"$libname\", /" | tee -a "$jsonl"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || die "$coll ($libname) failed; see $log"
  done
done
echo "uptime after: $(uptime)" >>"$log"
python3 - "$jsonl" "$OUT/overlap.md" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rows:
    by.setdefault((r["coll"], r["bytes"]), {})[r["lib"]] = r
def size(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"
out = ["| call | bytes | lib | t_coll ms | t_compute ms | t_both ms | overlap % | t_tested ms | overlap tested % |",
       "|---|---|---|---|---|---|---|---|---|"]
for (c, b), libs in by.items():
    for lib in ("native", "choreo"):
        r = libs.get(lib)
        if r:
            out.append(f"| {c} | {size(b)} | {lib} | {r['t_coll']*1e3:.1f} | {r['t_compute']*1e3:.1f} | "
                       f"{r['t_both']*1e3:.1f} | {r['overlap']:.0f} | {r['t_tested']*1e3:.1f} | {r['overlap_tested']:.0f} |")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
