#!/bin/sh
# sanitize.sh - build choreo with ASan + UBSan in build-san/ and run every
# test but the layering check instrumented: unit, lit, MPI, the drop-in
# library (preloaded after ASan's runtime), seeds and fuzzers. The environment
# MPICH's UCX and LeakSanitizer need is exported here (for the unit tests,
# which ctest discovers) and set on the other tests by tests/CMakeLists.txt.
# usage: scripts/sanitize.sh [ctest arguments, e.g. -R lit]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build-san"
# -O1 -g1 (line tables): instrumented code that still runs at a useful
# speed, compiled in about half the time of -O2 -g; reports name file:line.
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCHOREO_SANITIZE=address,undefined \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
cmake --build "$build" -j2
export UCX_MEM_MMAP_HOOK_MODE=none
export LSAN_OPTIONS="suppressions=$src/tests/sanitizer/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure -j2 -LE layering "$@"
