//===- tests/unit/TestUtil.h - Helpers for choreo's unit tests --*- C++ -*-===//
///
/// \file
/// Generating schedules from argument strings, and reading the first
/// diagnostic of an error.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TESTS_TESTUTIL_H
#define CHOREO_TESTS_TESTUTIL_H

#include "generators/Generator.h"
#include "ir/ScheduleIO.h"
#include "support/Generate.h"
#include "verifier/Verifier.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

namespace choreo::test {

/// Generates Algo with space-separated Args ("--p 8 --q 3 ..."); on error
/// fails the test and returns an empty schedule.
inline Schedule gen(llvm::StringRef Algo, llvm::StringRef Args) {
  const Generator *G = findGenerator(Algo);
  if (!G) {
    ADD_FAILURE() << "no generator " << Algo.str();
    return Schedule();
  }
  auto S = generateFromArgs(*G, Args);
  if (!S) {
    ADD_FAILURE() << Algo.str() << " " << Args.str() << ": "
                  << llvm::toString(S.takeError());
    return Schedule();
  }
  return std::move(*S);
}

/// The error text of an Expected that must fail (all its diagnostics).
template <typename T> std::string errorText(llvm::Expected<T> E) {
  if (E) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(E.takeError());
}

inline std::string toJsonText(const Schedule &S) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeSchedule(S, OS, FileFormat::Json);
  return Out;
}

inline std::string toCborBytes(const Schedule &S) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeSchedule(S, OS, FileFormat::Cbor);
  return Out;
}

/// The first diagnostic message of a failed verification, or "".
inline std::string firstMessage(const VerifyResult &R) {
  return R.Diags.empty() ? "" : R.Diags.front().Message;
}

} // namespace choreo::test

#endif
