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
