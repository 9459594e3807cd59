//===- generators/bcast/BcastRank.cpp - One rank of the broadcast family --===//
///
/// \file
/// The rank forms of the plain broadcasts by name and of Algorithm 1 of
/// seed 002 (hierarchicalBcast): a rank's outer and inner ops from the
/// building blocks' rank forms (blocks/BcastRank.cpp), and the steps the
/// whole schedule keeps, without building any other rank's ops.
///
//===----------------------------------------------------------------------===//

#include "generators/SizeChecks.h"
#include "generators/bcast/BcastFamily.h"
#include "generators/bcast/Circulant.h"

#include <map>

using namespace choreo;

RankPart choreo::plainBcastRank(BcastAlgo A, uint32_t N, uint64_t Bytes,
                                uint32_t Root, llvm::ArrayRef<uint64_t> Cuts,
                                uint32_t Me) {
  switch (A) {
  case BcastAlgo::Flat:
    return flatBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::Chain: {
    uint64_t One[] = {0, Bytes};
    return pipelineBcastRank(N, One, Root, Me);
  }
  case BcastAlgo::Pipeline:
    return pipelineBcastRank(N, Cuts, Root, Me);
  case BcastAlgo::Binary:
    return binaryBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::Binomial:
    return binomialBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::SplitBinary:
    return splitBinaryBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::ScatterRing:
    return scatterAllgatherBcastRank(N, Bytes, Root, IntraAlgorithm::Ring, Me);
  case BcastAlgo::ScatterRd:
    return scatterRecursiveDoublingBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::Mpich:
    return mpichBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::Circulant:
    return circulantBcastRank(N, Cuts, Root, Me);
  }
  return {};
}

uint64_t choreo::plainBcastRankOps(BcastAlgo A, uint32_t N, uint64_t Bytes,
                                   uint64_t X) {
  if (N < 2 || Bytes == 0)
    return 0;
  uint64_t P = N, L = ceilLog2(N);
  switch (A) {
  case BcastAlgo::Flat:
    return P - 1;
  case BcastAlgo::Chain:
  case BcastAlgo::Binary:
  case BcastAlgo::SplitBinary:
    return 5;
  case BcastAlgo::Binomial:
    return L;
  case BcastAlgo::Pipeline:
    return satMul(2, X);
  case BcastAlgo::ScatterRing:
    return L + 2 * (P - 1);
  case BcastAlgo::ScatterRd:
    return L + 2 * L + L * L;
  case BcastAlgo::Mpich:
    return L + 2 * (P - 1);
  case BcastAlgo::Circulant:
    return satMul(2, satAdd(X - 1, L));
  }
  return 0;
}

RankPart choreo::hierarchicalBcastRank(const Hierarchy &H, uint64_t Bytes,
                                       uint32_t Root,
                                       llvm::ArrayRef<uint64_t> Cuts,
                                       uint32_t Me) {
  // The groups' starts, the root's group and Me's (O(G)).
  uint32_t NumGroups = H.GroupSizes.size();
  std::vector<uint32_t> Start(NumGroups + 1, 0);
  for (uint32_t I = 0; I < NumGroups; ++I)
    Start[I + 1] = Start[I] + H.GroupSizes[I];
  auto GroupOf = [&](uint32_t R) {
    return uint32_t(std::upper_bound(Start.begin(), Start.end(), R) -
                    Start.begin() - 1);
  };
  uint32_t RootGroup = GroupOf(Root), MyGroup = GroupOf(Me);
  auto Leader = [&](uint32_t G) { return G == RootGroup ? Root : Start[G]; };

  // The outer broadcast among the leaders: Me's ops if Me leads its group.
  bool Leads = Leader(MyGroup) == Me;
  RankPart Outer = plainBcastRank(H.Outer, NumGroups, Bytes, RootGroup, Cuts,
                                  Leads ? MyGroup : NoRank);
  RankPart P;
  P.Used = Outer.Used;
  if (Leads)
    appendMapped(P.Steps, Outer.Steps, Leader);
  else
    for (unsigned S = 0; S < Outer.Steps.numSteps(); ++S)
      P.Steps.newStep();

  // The inner broadcasts, every group in the same steps: Me's group's ops,
  // and the steps any group uses (groups of one size and local root alike).
  std::map<std::pair<uint32_t, uint32_t>, std::vector<bool>> Seen;
  std::vector<bool> InnerUsed;
  for (uint32_t G = 0; G < NumGroups; ++G) {
    std::pair<uint32_t, uint32_t> Key(H.GroupSizes[G], Leader(G) - Start[G]);
    if (G != MyGroup && Seen.count(Key))
      continue;
    RankPart Part = plainBcastRank(H.Inner, Key.first, Bytes, Key.second, Cuts,
                                   G == MyGroup ? Me - Start[G] : NoRank);
    if (InnerUsed.size() < Part.Used.size())
      InnerUsed.resize(Part.Used.size(), false);
    for (size_t S = 0; S < Part.Used.size(); ++S)
      if (Part.Used[S])
        InnerUsed[S] = true;
    Seen[Key] = Part.Used;
    if (G == MyGroup) {
      uint32_t Base = Start[G];
      appendMapped(P.Steps, Part.Steps, [Base](Rank R) { return Base + R; });
    }
  }
  // Pad Me's inner phase to the longest group's.
  unsigned Want = P.Used.size() + InnerUsed.size();
  while (P.Steps.numSteps() < Want)
    P.Steps.newStep();
  P.Used.insert(P.Used.end(), InnerUsed.begin(), InnerUsed.end());
  return P;
}
