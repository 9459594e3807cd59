//===- generators/allgather/IntraAllgather.cpp - Allgather(v)s ------------===//
///
/// \file
/// The schedule every intragroup allgather generator builds: its building
/// block over --p ranks, an allgatherv when --counts are given.
///
//===----------------------------------------------------------------------===//

#include "generators/allgather/IntraAllgather.h"

using namespace choreo;

llvm::Expected<Schedule> choreo::buildIntraAllgather(llvm::StringRef Id,
                                                     IntraAlgorithm Alg,
                                                     const OptionValues &V,
                                                     std::optional<Rank> Only) {
  auto N = groupCount(V, opt::ranks());
  if (!N)
    return N.takeError();
  if (Alg == IntraAlgorithm::RecursiveDoubling && !isPowerOfTwo(*N))
    return optionError("p", llvm::Twine("recursive doubling needs a power "
                                        "of two, got ") +
                                llvm::Twine(*N));
  bool Irregular = false;
  auto Sizes = intragroupSizes(V, *N, Irregular);
  if (!Sizes)
    return Sizes.takeError();
  // The ops built: every rank's, or Only's (two per step at most).
  uint64_t Steps = intraAllgatherSteps(Alg, *N);
  uint64_t Est = Only ? 2 * Steps : uint64_t(*N) * Steps;
  if (auto E = checkOpBudget(Id, Est))
    return E;
  Schedule S;
  S.Kind = Irregular ? Collective::Allgatherv : Collective::Allgather;
  setIntragroup(S, *N, *Sizes);
  S.Topo = topologyOf(V);
  // Only: rank Only's ops (every step carries every member's block, so no
  // step is empty unless all are).
  if (Only) {
    S.Steps = intraAllgathervRank(Alg, *Sizes, *Only);
    if (llvm::all_of(*Sizes, [](uint64_t X) { return X == 0; }))
      S.Steps = StepList();
    return S;
  }
  S.Steps = intraAllgatherv(Alg, *Sizes);
  S.Steps.dropEmptySteps();
  return S;
}
