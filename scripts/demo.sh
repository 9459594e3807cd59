#!/bin/sh
# demo.sh [BUILD_DIR]: the main job. Generates Kang et al.'s intergroup
# allgather (Algorithm 1) for p = 6, q = 2 and MPICH's root-gathering
# baseline, proves both, and shows the schedule step by step.
set -eu
BUILD=${1:-build}
CHOREO="$BUILD/bin/choreo"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "== generate: inter-allgather-kang, p = 6, q = 2, 1 KiB per rank"
"$CHOREO" gen inter-allgather-kang --p 6 --q 2 --bytes-a 1K --bytes-b 1K -o "$OUT/kang.json"
"$CHOREO" gen inter-allgather-root --p 6 --q 2 --bytes-a 1K --bytes-b 1K -o "$OUT/root.json"

echo "== prove"
"$CHOREO" verify "$OUT/kang.json"
"$CHOREO" verify "$OUT/root.json"

echo "== show (first steps)"
"$CHOREO" show "$OUT/kang.json" | head -n 28
