# The fuzz targets' compiler (tests/fuzz/CMakeLists.txt): this build's when
# it has -fsanitize=fuzzer, otherwise a small clang-19 build of just the
# fuzz targets (CHOREO_FUZZ_ONLY) in build/tests/fuzz/fuzz-clang. Included
# from the top-level CMakeLists.txt before any target: ninja starts the
# ready jobs in the order of its manifest, so the clang build, the fresh
# build's longest chain of its own, starts first instead of last.
# Sets CHOREO_HAVE_LIBFUZZER, CHOREO_FUZZ_HAVE, CLANG_DIR, CLANG_TARGETS.
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
check_cxx_source_compiles(
  "#include <cstdint>
   #include <cstddef>
   extern \"C\" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }"
  CHOREO_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)

set(CHOREO_FUZZ_SECONDS 10 CACHE STRING
  "Seconds of libFuzzer per fuzz.* test (after its seeds)")
option(CHOREO_FUZZ_CLANG
  "Build the fuzz targets with clang-19 when the compiler has no libFuzzer" ON)
# The selection fuzzer links the generators and the cost model: in the
# clang build that is about 90 more instrumented files than the reader's and
# the template language's (35), a quarter of a fresh build's time; so the
# default build leaves it to scripts/fuzz.sh (its seeds are replayed by
# fuzz.selection.seeds in every build).
option(CHOREO_FUZZ_CLANG_SELECTION
  "Also build the selection fuzzer in the clang-19 fuzz build" OFF)
set(CLANG_TARGETS choreo-fuzz-reader choreo-fuzz-template)
if(CHOREO_FUZZ_CLANG_SELECTION)
  list(APPEND CLANG_TARGETS choreo-fuzz-selection)
endif()
set(CHOREO_FUZZ_HAVE 0)
set(CLANG_DIR ${CMAKE_BINARY_DIR}/tests/fuzz/fuzz-clang)
if(CHOREO_HAVE_LIBFUZZER)
  set(CHOREO_FUZZ_HAVE 1)
elseif(CHOREO_FUZZ_CLANG AND NOT CHOREO_FUZZ_ONLY)
  find_program(CHOREO_CLANGXX_19 clang++-19)
  find_program(CHOREO_CLANG_19 clang-19)
  if(CHOREO_CLANGXX_19 AND CHOREO_CLANG_19)
    set(CHOREO_FUZZ_HAVE 1)
    include(ExternalProject)
    set(LAUNCHERS "")
    foreach(LANG C CXX)
      if(CMAKE_${LANG}_COMPILER_LAUNCHER)
        list(APPEND LAUNCHERS
          -DCMAKE_${LANG}_COMPILER_LAUNCHER=${CMAKE_${LANG}_COMPILER_LAUNCHER})
      endif()
    endforeach()
    # Rebuilt (a no-op when nothing changed) by every `cmake --build`, so
    # the fuzzers always fuzz the sources of this tree.
    ExternalProject_Add(choreo-fuzz-clang
      PREFIX ${CMAKE_BINARY_DIR}/tests/fuzz/choreo-fuzz-clang-prefix
      SOURCE_DIR ${CMAKE_SOURCE_DIR}
      BINARY_DIR ${CLANG_DIR}
      CMAKE_ARGS -G ${CMAKE_GENERATOR}
        -DCMAKE_C_COMPILER=${CHOREO_CLANG_19}
        -DCMAKE_CXX_COMPILER=${CHOREO_CLANGXX_19}
        -DCHOREO_FUZZ_ONLY=ON ${LAUNCHERS}
      BUILD_COMMAND ${CMAKE_COMMAND} --build ${CLANG_DIR}
        --target ${CLANG_TARGETS}
      INSTALL_COMMAND ""
      BUILD_ALWAYS ON
      USES_TERMINAL_BUILD ON)
  endif()
endif()
