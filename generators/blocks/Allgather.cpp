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

namespace {

/// Calls Visit with the senders of one step in the order the whole step
/// visits them (ascending): every rank of N, or, for rank Only's ops alone,
/// Only and From (the rank that sends to Only in this step).
template <class Fn>
void forSenders(uint32_t N, std::optional<uint32_t> Only, uint32_t From,
                Fn Visit) {
  if (!Only) {
    for (uint32_t I = 0; I < N; ++I)
      Visit(I);
    return;
  }
  uint32_t Lo = std::min(*Only, From), Hi = std::max(*Only, From);
  Visit(Lo);
  if (Hi != Lo && Hi < N)
    Visit(Hi);
}

/// Space for a step list of Steps steps: every op, or Only's two per step.
/// Where the step builders put their ops: L, over local ranks, or
/// renamed by Map with every block carrying set Contrib and replacing.
struct AllgatherOpSink {
  StepList &L;
  llvm::function_ref<Rank(uint32_t)> Map = nullptr;
  uint32_t Contrib = Block::NoContrib;
  void add(uint32_t I, uint32_t J, llvm::SmallVector<Block, 2> Bs) const {
    if (Bs.empty())
      return;
    if (!Map) {
      L.addOp(I, J, Bs);
      return;
    }
    for (Block &B : Bs) {
      B.Reduce = false;
      B.Contrib = Contrib;
    }
    L.addOp(Map(I), Map(J), Bs);
  }
};

void reserveOps(StepList &L, uint32_t N, unsigned Steps,
                std::optional<uint32_t> Only) {
  size_t Ops = Only ? 2 * size_t(Steps) : size_t(N) * Steps;
  L.reserve(L.numOps() + Ops, L.numBlocks() + Ops);
}

void ringSteps(const AllgatherOpSink &Out, llvm::ArrayRef<uint64_t> Counts,
               std::optional<uint32_t> Only) {
  StepList &L = Out.L;
  uint32_t N = Counts.size();
  std::vector<uint64_t> Displ = prefixSums(Counts);
  if (N < 2)
    return;
  reserveOps(L, N, N - 1, Only);
  uint32_t Left = Only ? (*Only + N - 1) % N : 0;
  for (uint32_t S = 0; S + 1 < N; ++S) {
    L.newStep();
    forSenders(N, Only, Left, [&](uint32_t I) {
      Out.add(I, (I + 1) % N, cyclicRun(Displ, (I + N - S) % N, 1));
    });
  }
}

void bruckSteps(const AllgatherOpSink &Out, llvm::ArrayRef<uint64_t> Counts,
                std::optional<uint32_t> Only) {
  StepList &L = Out.L;
  uint32_t N = Counts.size();
  std::vector<uint64_t> Displ = prefixSums(Counts);
  reserveOps(L, N, ceilLog2(N), Only);
  for (uint64_t Dist = 1; Dist < N; Dist <<= 1) {
    L.newStep();
    uint32_t Len = std::min<uint64_t>(Dist, N - Dist);
    uint32_t From = Only ? (*Only + Dist) % N : 0;
    forSenders(N, Only, From, [&](uint32_t I) {
      Out.add(I, (I + N - Dist) % N, cyclicRun(Displ, I, Len));
    });
  }
}

void recursiveDoublingSteps(const AllgatherOpSink &Out,
                            llvm::ArrayRef<uint64_t> Counts,
                            std::optional<uint32_t> Only) {
  StepList &L = Out.L;
  uint32_t N = Counts.size();
  std::vector<uint64_t> Displ = prefixSums(Counts);
  reserveOps(L, N, ceilLog2(N), Only);
  for (uint32_t Mask = 1; Mask < N; Mask <<= 1) {
    L.newStep();
    forSenders(N, Only, Only ? *Only ^ Mask : 0, [&](uint32_t I) {
      uint32_t Partner = I ^ Mask;
      if (Partner >= N)
        return;
      uint32_t Tree = I & ~(Mask - 1);
      Out.add(I, Partner, cyclicRun(Displ, Tree, std::min(Mask, N - Tree)));
    });
  }
}

} // namespace

StepList choreo::ringAllgatherv(llvm::ArrayRef<uint64_t> Counts) {
  StepList L;
  ringSteps({L}, Counts, std::nullopt);
  return L;
}

StepList choreo::bruckAllgatherv(llvm::ArrayRef<uint64_t> Counts) {
  StepList L;
  bruckSteps({L}, Counts, std::nullopt);
  return L;
}

StepList choreo::recursiveDoublingAllgatherv(llvm::ArrayRef<uint64_t> Counts) {
  StepList L;
  recursiveDoublingSteps({L}, Counts, std::nullopt);
  return L;
}

namespace {

void appendAllgatherRankSteps(const AllgatherOpSink &Out, IntraAlgorithm A,
                     llvm::ArrayRef<uint64_t> Counts, uint32_t Me) {
  switch (A) {
  case IntraAlgorithm::Ring:
    return ringSteps(Out, Counts, Me);
  case IntraAlgorithm::Bruck:
    return bruckSteps(Out, Counts, Me);
  case IntraAlgorithm::RecursiveDoubling:
    return recursiveDoublingSteps(Out, Counts, Me);
  }
}

} // namespace

void choreo::appendIntraAllgathervRank(StepList &L, IntraAlgorithm A,
                                       llvm::ArrayRef<uint64_t> Counts,
                                       uint32_t Me) {
  appendAllgatherRankSteps({L}, A, Counts, Me);
}

void choreo::appendIntraAllgathervRank(StepList &L, IntraAlgorithm A,
                                       llvm::ArrayRef<uint64_t> Counts,
                                       uint32_t Me,
                                       llvm::function_ref<Rank(uint32_t)> Map,
                                       uint32_t Contrib) {
  appendAllgatherRankSteps({L, Map, Contrib}, A, Counts, Me);
}

StepList choreo::intraAllgathervRank(IntraAlgorithm A,
                                     llvm::ArrayRef<uint64_t> Counts,
                                     uint32_t Me) {
  StepList L;
  appendIntraAllgathervRank(L, A, Counts, Me);
  return L;
}

unsigned choreo::intraAllgatherSteps(IntraAlgorithm A, uint32_t N) {
  if (A == IntraAlgorithm::Ring)
    return N > 1 ? N - 1 : 0;
  return ceilLog2(N);
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

RankPart choreo::intraAllgathervPart(IntraAlgorithm A,
                                     llvm::ArrayRef<uint64_t> Counts,
                                     uint32_t Me) {
  RankPart P;
  P.Steps = intraAllgathervRank(A, Counts, Me);
  bool Any = llvm::any_of(Counts, [](uint64_t X) { return X > 0; });
  P.Used.assign(P.Steps.numSteps(), Any);
  return P;
}
