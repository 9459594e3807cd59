# Fresh-build speed (docs/testing.md, "CI time"): unity batches and
# precompiled headers.
#
# A fresh build (CI, a first checkout) spends most of its time parsing the
# same standard, LLVM and nlohmann/json headers in every file and
# generating the same inline functions again in each object. With
# CHOREO_UNITY each target's sources are compiled in batches of
# CHOREO_UNITY_BATCH files (CMake's unity build); with CHOREO_PCH the
# third-party and standard headers every library uses are precompiled, once
# for the position-independent libraries, once for everything else, and
# once with GoogleTest for the unit tests.
#
# Both default to ON unless a compiler launcher (ccache) is set: an
# incremental build wants one object per file (an edit recompiles that file
# only, and ccache cannot reuse a compile that loads a precompiled header
# unless told to be sloppy), and it is also the build that checks that
# every file includes what it uses, which unity batches and a precompiled
# header would hide. The team's local builds use ccache; CI does not.
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(CHOREO_FAST_DEFAULT OFF)
else()
  set(CHOREO_FAST_DEFAULT ON)
endif()
option(CHOREO_UNITY "Compile each target's sources in unity batches"
  ${CHOREO_FAST_DEFAULT})
# The fuzz-only clang build (tests/fuzz) is instrumented and runs last in
# a fresh build, its few targets in a row: smaller batches keep its jobs
# parallel.
if(CHOREO_FUZZ_ONLY)
  set(CHOREO_UNITY_BATCH_DEFAULT 4)
else()
  set(CHOREO_UNITY_BATCH_DEFAULT 16)
endif()
set(CHOREO_UNITY_BATCH ${CHOREO_UNITY_BATCH_DEFAULT} CACHE STRING
  "Sources per unity batch (CHOREO_UNITY)")
option(CHOREO_PCH "Precompile the standard, LLVM and json headers"
  ${CHOREO_FAST_DEFAULT})
if(CHOREO_UNITY)
  # Initializes the UNITY_BUILD property of every target made after this.
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE ${CHOREO_UNITY_BATCH})
endif()

# What most sources include (counted over the tree), all outside choreo:
# precompiling choreo's own headers would rebuild the header at each edit.
set(CHOREO_PCH_HEADERS
  <algorithm> <cstdint> <cstring> <functional> <map> <memory> <optional>
  <set> <string> <tuple> <utility> <vector>
  <nlohmann/json.hpp>
  <llvm/ADT/ArrayRef.h> <llvm/ADT/STLExtras.h> <llvm/ADT/SmallVector.h>
  <llvm/ADT/StringExtras.h> <llvm/ADT/StringRef.h> <llvm/Support/Error.h>
  <llvm/Support/FormatVariadic.h> <llvm/Support/raw_ostream.h>)

# Sources that define a file-local name another source of their target
# defines too (two `topMask`s, two `collectiveOpt`s): compiled alone. A new
# clash shows as a "redefinition" or "ambiguous" error in a unity build
# only (-DCHOREO_UNITY=ON): rename the helper or add its file here.
set(CHOREO_UNITY_ALONE
  generators/blocks/BcastRank.cpp
  pmpi/Library.cpp
  tools/choreo/MpichTuning.cpp
  tools/choreo/SynthCommand.cpp
  tools/choreo/TraceCommand.cpp
  tools/choreo/TuneCommand.cpp
  tools/choreo/TuneFiles.cpp
  tests/unit/BcastFamilyTest.cpp
  tests/unit/CostTest.cpp
  tests/unit/RankPlanTest.cpp
  tests/unit/ReductionSweepTest.cpp
  tests/unit/ScanTest.cpp
  tests/unit/TemplateEquivalenceTest.cpp)

# Every target of DIR and below.
function(choreo_collect_targets DIR OUT)
  get_property(T DIRECTORY ${DIR} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(SUBS DIRECTORY ${DIR} PROPERTY SUBDIRECTORIES)
  foreach(S ${SUBS})
    choreo_collect_targets(${S} SUB)
    list(APPEND T ${SUB})
  endforeach()
  set(${OUT} ${T} PARENT_SCOPE)
endfunction()

# Called once at the end of the top-level CMakeLists.txt: the sources that
# clash stay out of the unity batches, and every C++ target of choreo's gets
# a precompiled header. GCC and clang refuse a precompiled header made
# with other code-generation flags (-fPIC against the default PIE), so the
# targets share one of three: the position-independent libraries
# (choreo_ir's), the other targets (the first of them), and the unit tests
# (with gtest). A target with compile options of its own (the libFuzzer
# targets) keeps to its own headers.
function(choreo_apply_fast_build)
  choreo_collect_targets(${CMAKE_SOURCE_DIR} ALL)
  if(CHOREO_UNITY)
    foreach(T ${ALL})
      get_target_property(DIR ${T} SOURCE_DIR)
      get_target_property(SRCS ${T} SOURCES)
      foreach(S ${SRCS})
        get_filename_component(ABS ${S} ABSOLUTE BASE_DIR ${DIR})
        file(RELATIVE_PATH REL ${CMAKE_SOURCE_DIR} ${ABS})
        if(REL IN_LIST CHOREO_UNITY_ALONE)
          set_property(SOURCE ${ABS} TARGET_DIRECTORY ${T}
            PROPERTY SKIP_UNITY_BUILD_INCLUSION ON)
        endif()
      endforeach()
    endforeach()
  endif()
  if(NOT CHOREO_PCH)
    return()
  endif()
  set(PIC_OWNER "")
  set(PIE_OWNER "")
  foreach(T ${ALL})
    get_target_property(TYPE ${T} TYPE)
    if(NOT TYPE MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(SRCS ${T} SOURCES)
    list(FILTER SRCS INCLUDE REGEX "\\.cpp$")
    # Options of the target's own beyond its directory's (the libFuzzer
    # targets' -fsanitize=fuzzer) would make the shared header unusable.
    get_target_property(OPTS ${T} COMPILE_OPTIONS)
    get_target_property(DIR ${T} SOURCE_DIR)
    get_directory_property(DOPTS DIRECTORY ${DIR} COMPILE_OPTIONS)
    if(NOT SRCS OR NOT "${OPTS}" STREQUAL "${DOPTS}")
      continue()
    endif()
    get_target_property(PIC ${T} POSITION_INDEPENDENT_CODE)
    if(TYPE MATCHES "^(SHARED|MODULE)_LIBRARY$")
      set(PIC ON)
    endif()
    # Only targets with choreo's include path (LLVM's, json's): a library
    # of choreo's among their links.
    get_target_property(LIBS ${T} LINK_LIBRARIES)
    set(CHOREO_LINKED "${LIBS}")
    list(FILTER CHOREO_LINKED INCLUDE REGEX "^choreo_")
    if(NOT CHOREO_LINKED)
      continue()
    endif()
    if("GTest::gtest" IN_LIST LIBS)
      target_precompile_headers(${T} PRIVATE ${CHOREO_PCH_HEADERS}
        <gtest/gtest.h>)
      set(GROUP "")
    elseif(PIC)
      set(GROUP PIC_OWNER)
    else()
      set(GROUP PIE_OWNER)
    endif()
    if(GROUP)
      if(NOT ${GROUP})
        target_precompile_headers(${T} PRIVATE ${CHOREO_PCH_HEADERS})
        set(${GROUP} ${T})
      else()
        target_precompile_headers(${T} REUSE_FROM ${${GROUP}})
      endif()
    endif()
  endforeach()
endfunction()
