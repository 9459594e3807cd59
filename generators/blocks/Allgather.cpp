//===- generators/blocks/Allgather.cpp - Intragroup allgather(v)s ---------===//
///
/// \file
/// Ring, Bruck and recursive-doubling allgather(v) over local ranks, and the
/// piece helpers every building block uses.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Blocks.h"
#include "ir/Schedule.h"

using namespace choreo;

bool choreo::isPowerOfTwo(uint64_t X) { return X && !(X & (X - 1)); }

unsigned choreo::ceilLog2(uint64_t X) {
  unsigned L = 0;
  while ((uint64_t(1) << L) < X)
    ++L;
  return L;
}

llvm::SmallVector<Block, 2> choreo::cyclicRun(llvm::ArrayRef<uint64_t> Displ,
                                              uint32_t First, uint32_t Len) {
  uint32_t N = Displ.size() - 1;
  llvm::SmallVector<Block, 2> Out;
  uint32_t End = First + Len;
  if (End <= N) {
    addPiece(Out, 0, Displ[First], Displ[End]);
  } else {
    addPiece(Out, 0, Displ[First], Displ[N]);
    addPiece(Out, 0, Displ[0], Displ[End - N]);
  }
  return Out;
}

StepList choreo::ringAllgatherv(llvm::ArrayRef<uint64_t> Counts) {
  uint32_t N = Counts.size();
  std::vector<uint64_t> Displ = prefixSums(Counts);
  StepList L;
  if (N > 1)
    L.reserve(size_t(N) * (N - 1), size_t(N) * (N - 1));
  for (uint32_t S = 0; S + 1 < N; ++S) {
    L.newStep();
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t Owner = (I + N - S) % N;
      addOpIfAny(L, I, (I + 1) % N, cyclicRun(Displ, Owner, 1));
    }
  }
  return L;
}

StepList choreo::ringAllgathervRank(llvm::ArrayRef<uint64_t> Counts,
                                   uint32_t Me) {
  uint32_t N = Counts.size();
  std::vector<uint64_t> Displ = prefixSums(Counts);
  StepList L;
  if (N < 2)
    return L;
  // Senders whose ops touch Me, in the order ringAllgatherv visits them.
  uint32_t Left = (Me + N - 1) % N;
  uint32_t First = std::min(Left, Me), Second = std::max(Left, Me);
  L.reserve(2 * size_t(N - 1), 2 * size_t(N - 1));
  for (uint32_t S = 0; S + 1 < N; ++S) {
    L.newStep();
    for (uint32_t I : {First, Second})
      addOpIfAny(L, I, (I + 1) % N, cyclicRun(Displ, (I + N - S) % N, 1));
  }
  return L;
}

llvm::StringRef choreo::intraAlgorithmName(IntraAlgorithm A) {
  switch (A) {
  case IntraAlgorithm::Ring:
    return "ring";
  case IntraAlgorithm::Bruck:
    return "bruck";
  case IntraAlgorithm::RecursiveDoubling:
    return "recdbl";
  }
  return "?";
}

StepList choreo::intraAllgatherv(IntraAlgorithm A,
                                 llvm::ArrayRef<uint64_t> Counts) {
  switch (A) {
  case IntraAlgorithm::Ring:
    return ringAllgatherv(Counts);
  case IntraAlgorithm::Bruck:
    return bruckAllgatherv(Counts);
  case IntraAlgorithm::RecursiveDoubling:
    return recursiveDoublingAllgatherv(Counts);
  }
  return {};
}

StepList choreo::bruckAllgatherv(llvm::ArrayRef<uint64_t> Counts) {
  uint32_t N = Counts.size();
  std::vector<uint64_t> Displ = prefixSums(Counts);
  StepList L;
  for (uint64_t Dist = 1; Dist < N; Dist <<= 1) {
    L.newStep();
    uint32_t Len = std::min<uint64_t>(Dist, N - Dist);
    for (uint32_t I = 0; I < N; ++I)
      addOpIfAny(L, I, (I + N - Dist) % N, cyclicRun(Displ, I, Len));
  }
  return L;
}

StepList choreo::recursiveDoublingAllgatherv(llvm::ArrayRef<uint64_t> Counts) {
  uint32_t N = Counts.size();
  std::vector<uint64_t> Displ = prefixSums(Counts);
  StepList L;
  for (uint32_t Mask = 1; Mask < N; Mask <<= 1) {
    L.newStep();
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t Partner = I ^ Mask;
      if (Partner >= N)
        continue;
      uint32_t Tree = I & ~(Mask - 1);
      addOpIfAny(L, I, Partner, cyclicRun(Displ, Tree, std::min(Mask, N - Tree)));
    }
  }
  return L;
}
