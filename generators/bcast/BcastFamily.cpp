//===- generators/bcast/BcastFamily.cpp - The broadcast family ------------===//
///
/// \file
/// The plain broadcasts by name, their op counts, Algorithm 1 of seed 002
/// (hierarchical broadcast) with G chosen by the cost model (lock-step
/// times from cost/StepProfile.h). The generators' options and builds are
/// BcastGenerator.cpp's; the rank forms BcastRank.cpp's.
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

#include "cost/StepProfile.h"
#include "generators/SizeChecks.h"
#include "generators/bcast/Circulant.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <map>

using namespace choreo;

namespace {

const BcastAlgo Algos[] = {BcastAlgo::Flat,        BcastAlgo::Chain,
                           BcastAlgo::Pipeline,    BcastAlgo::Binary,
                           BcastAlgo::Binomial,    BcastAlgo::SplitBinary,
                           BcastAlgo::ScatterRing, BcastAlgo::ScatterRd,
                           BcastAlgo::Mpich,       BcastAlgo::Circulant};

} // namespace

llvm::StringRef choreo::bcastAlgoName(BcastAlgo A) {
  switch (A) {
  case BcastAlgo::Flat:
    return "flat";
  case BcastAlgo::Chain:
    return "chain";
  case BcastAlgo::Pipeline:
    return "pipeline";
  case BcastAlgo::Binary:
    return "binary";
  case BcastAlgo::Binomial:
    return "binomial";
  case BcastAlgo::SplitBinary:
    return "split-binary";
  case BcastAlgo::ScatterRing:
    return "scatter-ring";
  case BcastAlgo::ScatterRd:
    return "scatter-rd";
  case BcastAlgo::Mpich:
    return "mpich";
  case BcastAlgo::Circulant:
    return "circulant";
  }
  return "?";
}

std::optional<BcastAlgo> choreo::bcastAlgoByName(llvm::StringRef Name) {
  for (BcastAlgo A : Algos)
    if (bcastAlgoName(A) == Name)
      return A;
  return std::nullopt;
}

llvm::ArrayRef<BcastAlgo> choreo::allBcastAlgos() { return Algos; }

StepList choreo::plainBcast(BcastAlgo A, uint32_t N, uint64_t Bytes,
                            uint32_t Root, llvm::ArrayRef<uint64_t> Cuts) {
  switch (A) {
  case BcastAlgo::Flat:
    return flatBcast(N, Bytes, Root);
  case BcastAlgo::Chain: {
    uint64_t One[] = {0, Bytes};
    return pipelineBcast(N, One, Root);
  }
  case BcastAlgo::Pipeline:
    return pipelineBcast(N, Cuts, Root);
  case BcastAlgo::Binary:
    return binaryBcast(N, Bytes, Root);
  case BcastAlgo::Binomial:
    return binomialBcast(N, Bytes, Root);
  case BcastAlgo::SplitBinary:
    return splitBinaryBcast(N, Bytes, Root);
  case BcastAlgo::ScatterRing:
    return scatterAllgatherBcast(N, Bytes, Root, IntraAlgorithm::Ring);
  case BcastAlgo::ScatterRd:
    return scatterRecursiveDoublingBcast(N, Bytes, Root);
  case BcastAlgo::Mpich:
    return mpichBcast(N, Bytes, Root);
  case BcastAlgo::Circulant:
    return circulantBcast(N, Cuts, Root);
  }
  return {};
}

bool choreo::cutsSegments(BcastAlgo A) {
  return A == BcastAlgo::Pipeline || A == BcastAlgo::Circulant;
}

uint64_t choreo::plainBcastOps(BcastAlgo A, uint32_t N, uint64_t Bytes,
                               uint64_t X) {
  if (N < 2 || Bytes == 0)
    return 0;
  uint64_t P = N, L = ceilLog2(N);
  switch (A) {
  case BcastAlgo::Flat:
  case BcastAlgo::Chain:
  case BcastAlgo::Binary:
  case BcastAlgo::Binomial:
    return P - 1;
  case BcastAlgo::Pipeline:
    return satMul(P - 1, X);
  case BcastAlgo::SplitBinary:
    return 2 * P;
  case BcastAlgo::ScatterRing:
    return (P - 1) + P * (P - 1);
  case BcastAlgo::ScatterRd:
    // Scatter, one exchange per rank and mask, and at most one fill-in op
    // per rank and halving step.
    return (P - 1) + P * L + P * L * L;
  case BcastAlgo::Mpich:
    switch (mpichBcastChoice(N, Bytes)) {
    case MpichBcast::Binomial:
      return P - 1;
    case MpichBcast::ScatterRecursiveDoubling:
      return (P - 1) + P * L;
    case MpichBcast::ScatterRing:
      return (P - 1) + P * (P - 1);
    }
    return 0;
  case BcastAlgo::Circulant:
    // At most one send per rank and round.
    return satMul(P, satAdd(X - 1, L));
  }
  return 0;
}

std::vector<uint32_t> choreo::evenGroups(uint32_t P, uint32_t G) {
  std::vector<uint32_t> Sizes(G, P / G);
  for (uint32_t I = 0; I < P % G; ++I)
    ++Sizes[I];
  return Sizes;
}

namespace {

/// Group starts, the root's group and each group's leader.
struct GroupLayout {
  std::vector<uint32_t> Start, Leader;
  uint32_t RootGroup = 0;
};

GroupLayout layout(llvm::ArrayRef<uint32_t> Sizes, uint32_t Root) {
  GroupLayout G;
  uint32_t At = 0;
  for (uint32_t I = 0; I < Sizes.size(); ++I) {
    G.Start.push_back(At);
    bool HasRoot = Root >= At && Root < At + Sizes[I];
    if (HasRoot)
      G.RootGroup = I;
    G.Leader.push_back(HasRoot ? Root : At);
    At += Sizes[I];
  }
  return G;
}

} // namespace

StepList choreo::hierarchicalBcast(const Hierarchy &H, uint64_t Bytes,
                                   uint32_t Root,
                                   llvm::ArrayRef<uint64_t> Cuts) {
  GroupLayout G = layout(H.GroupSizes, Root);
  uint32_t NumGroups = H.GroupSizes.size();
  StepList L = plainBcast(H.Outer, NumGroups, Bytes, G.RootGroup, Cuts)
                   .relabeled(G.Leader);
  // Every group's broadcast over local ranks; groups of one size and local
  // root share one (at most three distinct: two sizes, the root's group).
  std::map<std::pair<uint32_t, uint32_t>, StepList> Local;
  std::vector<const StepList *> Of(NumGroups);
  unsigned Steps = 0;
  for (uint32_t I = 0; I < NumGroups; ++I) {
    std::pair<uint32_t, uint32_t> Key(H.GroupSizes[I],
                                      G.Leader[I] - G.Start[I]);
    auto It = Local.find(Key);
    if (It == Local.end())
      It = Local
               .emplace(Key,
                        plainBcast(H.Inner, Key.first, Bytes, Key.second, Cuts))
               .first;
    Of[I] = &It->second;
    Steps = std::max(Steps, It->second.numSteps());
  }
  // Alongside: step s holds step s of every group, in group order.
  for (unsigned S = 0; S < Steps; ++S) {
    L.newStep();
    for (uint32_t I = 0; I < NumGroups; ++I) {
      if (S >= Of[I]->numSteps())
        continue;
      for (const Op &O : Of[I]->step(S))
        L.addOp(G.Start[I] + O.Src, G.Start[I] + O.Dst, Of[I]->blocks(O));
    }
  }
  return L;
}

uint64_t choreo::hierarchicalBcastOps(const Hierarchy &H, uint64_t Bytes,
                                      uint64_t X) {
  uint64_t Ops = plainBcastOps(H.Outer, H.GroupSizes.size(), Bytes, X);
  for (uint32_t Size : H.GroupSizes)
    Ops = satAdd(Ops, plainBcastOps(H.Inner, Size, Bytes, X));
  return Ops;
}

namespace {

CostModel alphaBeta(double Alpha, double Beta) {
  CostModel M;
  M.Alpha = Alpha;
  M.Beta = Beta;
  return M;
}

/// Step profiles (cost/StepProfile.h) of plain broadcasts, by algorithm and
/// size (the root does not change them: a relabelling).
class ProfileCache {
public:
  ProfileCache(uint64_t Bytes, llvm::ArrayRef<uint64_t> Cuts)
      : Bytes(Bytes), Cuts(Cuts) {}
  const StepProfile &get(BcastAlgo A, uint32_t N) {
    auto Key = std::make_pair(int(A), N);
    auto It = Cache.find(Key);
    if (It == Cache.end())
      It = Cache.emplace(Key, stepProfile(plainBcast(A, N, Bytes, 0, Cuts)))
               .first;
    return It->second;
  }

private:
  uint64_t Bytes;
  llvm::ArrayRef<uint64_t> Cuts;
  std::map<std::pair<int, uint32_t>, StepProfile> Cache;
};

/// The outer broadcast's steps, then the groups' alongside.
double hierarchyTime(const Hierarchy &H, ProfileCache &C, const CostModel &M) {
  const StepProfile *Outer = &C.get(H.Outer, H.GroupSizes.size());
  double T = alongsideLockstepTime({Outer}, M);
  std::vector<const StepProfile *> Inner;
  std::vector<uint32_t> Seen;
  for (uint32_t Size : H.GroupSizes)
    if (!llvm::is_contained(Seen, Size)) {
      Seen.push_back(Size);
      Inner.push_back(&C.get(H.Inner, Size));
    }
  return T + alongsideLockstepTime(Inner, M);
}

} // namespace

double choreo::hierarchicalLockstepTime(const Hierarchy &H, uint64_t Bytes,
                                        llvm::ArrayRef<uint64_t> Cuts,
                                        double Alpha, double Beta) {
  ProfileCache C(Bytes, Cuts);
  return hierarchyTime(H, C, alphaBeta(Alpha, Beta));
}

uint32_t choreo::bestGroupCount(BcastAlgo Outer, BcastAlgo Inner, uint32_t P,
                                uint64_t Bytes, llvm::ArrayRef<uint64_t> Cuts,
                                double Alpha, double Beta) {
  std::vector<uint32_t> Candidates;
  if (P <= 256) {
    for (uint32_t G = 1; G <= P; ++G)
      Candidates.push_back(G);
  } else {
    uint32_t K = 2 * uint32_t(std::ceil(std::sqrt(double(P))));
    for (uint32_t G = 1; G <= K; ++G) {
      Candidates.push_back(G);
      Candidates.push_back((P + G - 1) / G);
    }
    llvm::sort(Candidates);
    Candidates.erase(std::unique(Candidates.begin(), Candidates.end()),
                     Candidates.end());
  }
  ProfileCache C(Bytes, Cuts);
  CostModel M = alphaBeta(Alpha, Beta);
  uint32_t Best = 1;
  double BestTime = INFINITY;
  for (uint32_t G : Candidates) {
    double T = hierarchyTime({Outer, Inner, evenGroups(P, G)}, C, M);
    if (T < BestTime) {
      BestTime = T;
      Best = G;
    }
  }
  return Best;
}
