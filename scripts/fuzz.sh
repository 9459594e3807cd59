#!/bin/sh
# fuzz.sh - fuzz the schedule reader, the template language and the drop-in
# library's selection file with libFuzzer.
# Configures build-fuzz/ with clang-19 and CHOREO_FUZZ_ONLY (every object
# instrumented for coverage and built with ASan + UBSan; the same build that
# the fuzz ctests of a GCC build use, there in build/tests/fuzz/fuzz-clang/),
# builds only the fuzz targets and runs each on a copy of its seed corpus
# (tests/fuzz/corpus/) for SECONDS (default 60). Crashes land in
# build-fuzz/tests/fuzz/work-*/crashes/.
# usage: scripts/fuzz.sh [SECONDS]
set -eu
seconds=${1:-60}
src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build-fuzz"
CC=clang-19 CXX=clang++-19 cmake -S "$src" -B "$build" -G Ninja \
  -DCHOREO_FUZZ_ONLY=ON \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
cmake --build "$build" -j2 --target choreo-fuzz-reader choreo-fuzz-template \
  choreo-fuzz-selection
for kind in reader template selection; do
  sh "$src/tests/fuzz/run-fuzzer.sh" 1 "$build/bin/choreo-fuzz-$kind" \
    "$src/tests/fuzz/corpus/$kind" "$seconds" "$build/tests/fuzz/work-$kind"
done
