#!/bin/sh
# sanitize.sh - build choreo with ASan + UBSan in build-san/ and run the unit,
# lit, MPI and seed-corpus tests instrumented (the environment MPICH's UCX
# needs under ASan is set by tests/CMakeLists.txt, and lit passes it on).
# usage: scripts/sanitize.sh [ctest arguments, e.g. -R lit]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build-san"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCHOREO_SANITIZE=address,undefined \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
cmake --build "$build" -j2
export UCX_MEM_MMAP_HOOK_MODE=none
ctest --test-dir "$build" --output-on-failure -j2 -LE layering "$@"
