//===- harness/RunReport.cpp - choreo-run's report ------------------------===//
///
/// \file
/// Renders a run (harness/Run.h) as choreo-run prints it: a few lines of
/// text, or one JSON object.
///
//===----------------------------------------------------------------------===//

#include "harness/Harness.h"
#include "harness/Run.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::harness;
using llvm::formatv;

namespace {

void printJson(const RunOptions &O, const RunResult &R, llvm::raw_ostream &OS) {
  const Schedule &S = R.S;
  nlohmann::ordered_json J = {
      {"schedule", O.File},
      {"algorithm", S.Algorithm},
      {"collective", collectiveName(S.Kind).str()},
      {"ranks", S.NumRanks},
      {"steps", S.Steps.numSteps()},
      {"iterations", O.Iterations},
      {"median_s", median(R.Times)},
      {"min_s", *std::min_element(R.Times.begin(), R.Times.end())},
      {"max_s", *std::max_element(R.Times.begin(), R.Times.end())}};
  if (R.SharedClock)
    J["makespan_median_s"] = median(R.Makespans);
  if (O.FlowControlBytes)
    J["flow_control_bytes"] = O.FlowControlBytes;
  if (O.Check)
    J["check"] = R.Failures ? "failed" : "passed";
  if (O.Native) {
    J["native"] = nativeName(S).str();
    J["native_blocking_median_s"] = median(R.NativeBlocking);
    J["native_nonblocking_median_s"] = median(R.NativeNonBlocking);
    if (R.SharedClock) {
      J["native_blocking_makespan_median_s"] =
          median(R.NativeBlockingMakespans);
      J["native_nonblocking_makespan_median_s"] =
          median(R.NativeNonBlockingMakespans);
    }
  }
  OS << jsonText(J) << '\n';
}

void printText(const RunOptions &O, const RunResult &R, llvm::raw_ostream &OS) {
  const Schedule &S = R.S;
  std::string Where =
      R.Inter
          ? formatv("an intercommunicator of {0} + {1} ranks",
                    S.group("A")->Members.size(), S.group("B")->Members.size())
                .str()
          : formatv("{0} ranks", S.NumRanks).str();
  OS << formatv("choreo-run: {0} ({1}, {2} steps) on {3}\n",
                S.Algorithm.empty() ? "schedule" : S.Algorithm,
                collectiveName(S.Kind), S.Steps.numSteps(), Where);
  if (O.Check)
    OS << (R.Failures
               ? formatv("check: FAILED on {0} rank(s)\n", R.Failures).str()
           : S.spec().NoPayload
               ? formatv("check: passed (with the first, the middle and the "
                         "last rank arriving 50 ms late, no rank {0}left "
                         "choreo's barrier or MPICH's {1} early)\n",
                         S.spec().Intergroup ? "of the other group " : "",
                         nativeName(S))
                     .str()
               : formatv("check: passed (every rank's result matches "
                         "the expected bytes and MPICH's {0})\n",
                         nativeName(S))
                     .str());
  OS << formatv("choreo: median {0:e3} s over {1} iterations (min {2:e3}, "
                "max {3:e3}), slowest rank per iteration\n",
                median(R.Times), O.Iterations,
                *std::min_element(R.Times.begin(), R.Times.end()),
                *std::max_element(R.Times.begin(), R.Times.end()));
  if (R.SharedClock)
    OS << formatv("choreo: median makespan {0:e3} s (one clock: latest "
                  "end minus earliest start)\n",
                  median(R.Makespans));
  if (O.Native)
    OS << formatv("MPICH {0}: median {1:e3} s blocking, {2:e3} s "
                  "non-blocking with Testall + yield\n",
                  nativeName(S), median(R.NativeBlocking),
                  median(R.NativeNonBlocking));
}

} // namespace

void harness::printRunReport(const RunOptions &O, const RunResult &R,
                             llvm::raw_ostream &OS) {
  if (O.Json)
    printJson(O, R, OS);
  else
    printText(O, R, OS);
}
