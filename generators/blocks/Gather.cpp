//===- generators/blocks/Gather.cpp - Binomial gather ---------------------===//
///
/// \file
/// MPICH's binomial-tree gather as a building block.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Blocks.h"
#include "ir/Schedule.h"

using namespace choreo;

StepList choreo::binomialGather(llvm::ArrayRef<uint64_t> Counts,
                                uint32_t Root) {
  uint32_t N = Counts.size();
  std::vector<uint64_t> Displ = prefixSums(Counts);
  StepList L;
  for (uint64_t Mask = 1; Mask < N; Mask <<= 1) {
    L.newStep();
    for (uint64_t Rel = Mask; Rel < N; Rel += 2 * Mask) {
      // Relative rank Rel holds the blocks of relative ranks [Rel, Rel+Mask).
      uint32_t Len = std::min<uint64_t>(Mask, N - Rel);
      Rank Src = (Rel + Root) % N, Dst = (Rel - Mask + Root) % N;
      addOpIfAny(L, Src, Dst, cyclicRun(Displ, Src, Len));
    }
  }
  return L;
}

RankPart choreo::binomialGatherRank(llvm::ArrayRef<uint64_t> Counts,
                                    uint32_t Root, uint32_t Me) {
  uint32_t N = Counts.size();
  std::vector<uint64_t> Displ = prefixSums(Counts);
  RankPart P;
  // Relative rank Rel != 0 sends once, at the mask of its lowest bit: a
  // step is used when one of its senders carries a byte.
  auto RunBytes = [&](uint64_t Rel, uint64_t Mask) {
    uint32_t Len = std::min<uint64_t>(Mask, N - Rel);
    uint64_t Src = (Rel + Root) % N, End = Src + Len;
    return End <= N ? Displ[End] - Displ[Src]
                    : Displ[N] - Displ[Src] + Displ[End - N];
  };
  for (uint64_t Mask = 1; Mask < N; Mask <<= 1) {
    P.Steps.newStep();
    P.Used.push_back(false);
  }
  for (uint64_t Rel = 1; Rel < N; ++Rel) {
    uint64_t Mask = Rel & (~Rel + 1);
    if (RunBytes(Rel, Mask))
      P.Used[ceilLog2(Mask)] = true;
  }
  if (Me == NoRank)
    return P;
  uint64_t R = (uint64_t(Me) + N - Root) % N;
  uint64_t Low = R ? R & (~R + 1) : UINT64_MAX;
  StepList L;
  unsigned I = 0;
  for (uint64_t Mask = 1; Mask < N; Mask <<= 1, ++I) {
    L.newStep();
    // Receives from R + Mask below its lowest bit; sends at it.
    uint64_t Rel =
        Low == Mask ? R : (Mask < Low && R + Mask < N ? R + Mask : 0);
    if (Rel == 0)
      continue;
    uint32_t Len = std::min<uint64_t>(Mask, N - Rel);
    Rank Src = (Rel + Root) % N, Dst = (Rel - Mask + Root) % N;
    addOpIfAny(L, Src, Dst, cyclicRun(Displ, Src, Len));
  }
  P.Steps = std::move(L);
  return P;
}
