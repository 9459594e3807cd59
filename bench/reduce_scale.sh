#!/bin/sh
# reduce_scale.sh [BUILD_DIR]: generation of the reductions at scale,
# p = 1000 and n = 8 MiB (allreduce-ring: 2 M ops, about a million distinct
# contributor sets), time and peak memory of `choreo gen -o .cbor`; and the
# reduction templates' proofs (seconds, `choreo prove`).
set -eu
BUILD=${1:-build}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
timed() {
  label=$1; shift
  /usr/bin/time -f "$label  %e s, %U s user, max RSS %M KiB" "$@"
}
for g in allreduce-ring reduce-scatter-ring allreduce-halving-doubling allreduce-binary-blocks; do
  timed "gen $g --p 1000 --bytes 8M" "$BUILD/bin/choreo" gen $g --p 1000 --bytes 8M -o "$OUT/s.cbor"
done
timed "gen --template allreduce-ring --p 1000 --bytes 8M" "$BUILD/bin/choreo" gen --template allreduce-ring --p 1000 --bytes 8M -o "$OUT/t.cbor"
for t in reduce-scatter-ring allreduce-ring allreduce-recursive-doubling reduce-chain; do
  timed "prove $t" "$BUILD/bin/choreo" prove $t
done
