#!/bin/sh
# demo.sh [BUILD_DIR]: the main job. Generates Kang et al.'s intergroup
# allgather (Algorithm 1) for p = 6, q = 2 and MPICH's root-gathering
# baseline, proves both, shows the schedule step by step, predicts both
# costs in the alpha-beta model, and executes it
# under mpiexec on an intercommunicator of 6 + 2 processes, checking every
# rank's result against the expected bytes and MPICH's own MPI_Allgather.
set -eu
BUILD=${1:-build}
BIN="$BUILD/bin"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "== generate: inter-allgather-kang and its baseline, p = 6, q = 2, 64 KiB per rank"
"$BIN/choreo" gen inter-allgather-kang --p 6 --q 2 --bytes-a 64K --bytes-b 64K -o "$OUT/kang.cbor"
"$BIN/choreo" gen inter-allgather-root --p 6 --q 2 --bytes-a 64K --bytes-b 64K -o "$OUT/root.cbor"

echo "== prove"
"$BIN/choreo" verify "$OUT/kang.cbor"
"$BIN/choreo" verify "$OUT/root.cbor"

echo "== show (the exchange rounds and the first intragroup step)"
"$BIN/choreo" show "$OUT/kang.cbor" | sed -n '1,40p'

echo "== predicted cost (alpha = 2 us, beta = 0.1 ns/byte): Algorithm 1, then the baseline"
"$BIN/choreo" cost "$OUT/kang.cbor" --alpha 2e-6 --beta 1e-10
"$BIN/choreo" cost "$OUT/root.cbor" --alpha 2e-6 --beta 1e-10

echo "== execute under mpiexec (8 processes), check, and time against MPICH"
mpiexec -n 8 "$BIN/choreo-run" "$OUT/kang.cbor" --check --native --iterations 10 </dev/null
