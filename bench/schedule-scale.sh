#!/bin/sh
# schedule-scale.sh [BUILD_DIR]: generation, CBOR I/O and verification of
# inter-allgather-kang for p = q = 1024 (2,097,152 ops), in-process phase by
# phase and end to end through the CLI. Target: each under 2 s.
set -eu
BUILD=${1:-build}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$BUILD/bin/choreo-bench-schedule" --out "$OUT/phases.cbor"
ARGS="--p 1024 --q 1024 --bytes-a 4096 --bytes-b 4096"
# GNU time (Debian package "time") adds the peak memory when present.
timed() {
  label=$1; shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "$label  %e s, max RSS %M KiB" "$@"
  else
    start=$(date +%s.%N); "$@"; end=$(date +%s.%N)
    echo "$label  $(echo "$end - $start" | bc) s"
  fi
}
timed "cli gen -o .cbor" "$BUILD/bin/choreo" gen inter-allgather-kang $ARGS -o "$OUT/k.cbor"
timed "cli verify .cbor" "$BUILD/bin/choreo" verify "$OUT/k.cbor"
