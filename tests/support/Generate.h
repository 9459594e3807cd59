//===- tests/support/Generate.h - Schedules from argument text --*- C++ -*-===//
///
/// \file
/// Generating a schedule from a generator and an argument string ("--p 8
/// --q 3 ..."), as `choreo gen` would: what the unit tests, the job-proof
/// test and the differential tests build their corpora with.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TESTS_SUPPORT_GENERATE_H
#define CHOREO_TESTS_SUPPORT_GENERATE_H

#include "generators/Generator.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace choreo::test {

/// G's schedule for the space-separated Args, or the parse or build error.
llvm::Expected<Schedule> generateFromArgs(const Generator &G,
                                          llvm::StringRef Args);

/// generateFromArgs, an error dropped (a sweep's options G refuses).
std::optional<Schedule> tryGenerate(const Generator &G, llvm::StringRef Args);

/// Every generator's N-rank schedules over a few argument sets (sizes,
/// roots, irregular counts with zeros, a non-commutative operator, two
/// groups), each named "ID ARGS": the corpus of the tests that run in a job
/// of N ranks.
std::vector<std::pair<std::string, Schedule>> jobCorpus(int N);

} // namespace choreo::test

#endif
