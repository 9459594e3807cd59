//===- generators/blocks/Reduction.cpp - Reduction building blocks --------===//
///
/// \file
/// Raw reduction ops, element cuts, and the tree, recursive-doubling and
/// ring pieces of seed 004 (the contributor replay that annotates them is
/// verifier/ContribReplay.cpp, shared with the checker).
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Reduction.h"


using namespace choreo;

void RawSteps::add(unsigned Step, Rank Src, Rank Dst,
                   llvm::ArrayRef<Interval> Ranges, bool Reduce) {
  RawOp O{Src, Dst, {}};
  for (const Interval &I : Ranges) {
    if (I.Hi <= I.Lo)
      continue;
    if (!O.Blocks.empty() && O.Blocks.back().Hi == I.Lo) {
      O.Blocks.back().Hi = I.Hi;
      continue;
    }
    Block B;
    B.Lo = I.Lo;
    B.Hi = I.Hi;
    B.Reduce = Reduce;
    O.Blocks.push_back(B);
  }
  if (O.Blocks.empty())
    return;
  if (Steps.size() <= Step)
    Steps.resize(Step + 1);
  Steps[Step].push_back(std::move(O));
}

StepList RawSteps::take() const {
  StepList L;
  for (const auto &St : Steps) {
    L.newStep();
    for (const RawOp &O : St)
      L.addOp(O.Src, O.Dst, O.Blocks);
  }
  return L;
}

std::vector<uint64_t> choreo::elementCuts(uint64_t N, uint64_t Elem,
                                          uint64_t Parts) {
  std::vector<uint64_t> Cuts(Parts + 1);
  uint64_t Count = Elem ? N / Elem : 0;
  for (uint64_t I = 0; I <= Parts; ++I)
    Cuts[I] = partStart(Count, Parts, I) * Elem;
  return Cuts;
}

uint32_t choreo::floorPow2(uint32_t P) {
  uint32_t M = 1;
  while (M * 2 <= P)
    M *= 2;
  return M;
}

unsigned choreo::treeReduce(RawSteps &R, unsigned First, uint32_t P, uint64_t N,
                            uint32_t Root, bool Commutative) {
  uint32_t TreeRoot = Commutative ? Root : 0;
  unsigned St = First;
  for (uint64_t Mask = 1; Mask < P; Mask <<= 1, ++St)
    for (uint64_t Rel = Mask; Rel < P; Rel += 2 * Mask)
      R.add(St, (Rel + TreeRoot) % P, (Rel - Mask + TreeRoot) % P, 0, N,
            /*Reduce=*/true);
  if (TreeRoot != Root)
    R.add(St++, TreeRoot, Root, 0, N, /*Reduce=*/false);
  return St;
}

unsigned choreo::treeBcast(RawSteps &R, unsigned First, uint32_t P, uint64_t N,
                           uint32_t Root) {
  if (P < 2)
    return First;
  unsigned St = First;
  for (uint64_t Mask = floorPow2(P - 1); Mask > 0; Mask >>= 1, ++St)
    for (uint64_t Rel = 0; Rel + Mask < P; Rel += 2 * Mask)
      R.add(St, (Rel + Root) % P, (Rel + Mask + Root) % P, 0, N,
            /*Reduce=*/false);
  return St;
}

void choreo::recursiveDoublingAllreduce(RawSteps &R, uint32_t P, uint64_t N) {
  unsigned St = 0;
  std::vector<Rank> RankOf =
      foldToPowerOfTwo(R, 0, P, N, Fold::EvenToOdd, 0, std::nullopt, St);
  uint32_t Pof2 = RankOf.size();
  for (uint32_t Mask = 1; Mask < Pof2; Mask <<= 1, ++St)
    for (uint32_t X = 0; X < Pof2; ++X)
      R.add(St, RankOf[X], RankOf[X ^ Mask], 0, N, /*Reduce=*/true);
  for (uint32_t I = 0; I < P - Pof2; ++I)
    R.add(St, 2 * I + 1, 2 * I, 0, N, /*Reduce=*/false);
}

std::vector<Rank> choreo::foldToPowerOfTwo(RawSteps &R, unsigned First,
                                           uint32_t P, uint64_t N, Fold F,
                                           uint64_t Half,
                                           std::optional<uint32_t> KeepOdd,
                                           unsigned &Next) {
  uint32_t Pof2 = floorPow2(P), Rem = P - Pof2;
  std::vector<Rank> RankOf(Pof2);
  for (uint32_t X = 0; X < Pof2; ++X) {
    bool Odd = F == Fold::EvenToOdd || (KeepOdd && *KeepOdd == X);
    RankOf[X] = X < Rem ? 2 * X + (Odd ? 1 : 0) : X + Rem;
  }
  Next = First;
  if (Rem == 0)
    return RankOf;
  for (uint32_t I = 0; I < Rem; ++I) {
    Rank Even = 2 * I, Odd = 2 * I + 1;
    switch (F) {
    case Fold::EvenToOdd:
      R.add(First, Even, Odd, 0, N, true);
      break;
    case Fold::OddToEven:
      R.add(First, Odd, Even, 0, N, true);
      break;
    case Fold::Halves:
      R.add(First, Even, Odd, Half, N, true);
      R.add(First, Odd, Even, 0, Half, true);
      if (KeepOdd && *KeepOdd == I)
        R.add(First + 1, Even, Odd, 0, Half, false);
      else
        R.add(First + 1, Odd, Even, Half, N, false);
      break;
    }
  }
  Next = First + (F == Fold::Halves ? 2 : 1);
  return RankOf;
}

SegmentLayout choreo::bitReversedLayout(uint64_t N, uint64_t Elem,
                                        uint32_t Pof2) {
  SegmentLayout L;
  L.Cuts = elementCuts(N, Elem, Pof2);
  unsigned K = 0;
  while ((1u << K) < Pof2)
    ++K;
  for (uint32_t J = 0; J < Pof2; ++J) {
    uint32_t Rev = 0;
    for (unsigned B = 0; B < K; ++B)
      if (J & (1u << B))
        Rev |= 1u << (K - 1 - B);
    L.Owner.push_back(Rev);
  }
  return L;
}

std::vector<unsigned> choreo::bitOrder(uint32_t Pof2, bool Doubling) {
  std::vector<unsigned> Bits;
  for (unsigned B = 0; (1u << B) < Pof2; ++B)
    Bits.push_back(B);
  if (!Doubling)
    std::reverse(Bits.begin(), Bits.end());
  return Bits;
}

namespace {

/// The segments of a layout grouped by their owners' bits under Mask, each
/// group in byte order: like(Y) is the byte ranges of the segments whose
/// owner o has ((o ^ Y) & Mask) == 0. Built once per step (a counting sort,
/// linear in the segments), so that a step's ops cost what they carry, not
/// a pass over every segment each.
class SegmentsLike {
public:
  SegmentsLike(const SegmentLayout &L, uint32_t Mask) : Mask(Mask) {
    uint32_t Keys = 0;
    for (uint32_t O : L.Owner)
      Keys = std::max(Keys, (O & Mask) + 1);
    Start.assign(Keys + 1, 0);
    for (uint32_t O : L.Owner)
      ++Start[(O & Mask) + 1];
    for (uint32_t K = 0; K < Keys; ++K)
      Start[K + 1] += Start[K];
    Ranges.resize(L.Owner.size());
    std::vector<uint32_t> At(Start.begin(), Start.end() - 1);
    for (size_t J = 0; J < L.Owner.size(); ++J)
      Ranges[At[L.Owner[J] & Mask]++] = {L.Cuts[J], L.Cuts[J + 1]};
  }
  llvm::ArrayRef<Interval> like(uint32_t Y) const {
    uint32_t K = Y & Mask;
    if (K + 1 >= Start.size())
      return {};
    return llvm::ArrayRef<Interval>(Ranges).slice(Start[K],
                                                  Start[K + 1] - Start[K]);
  }

private:
  uint32_t Mask;
  std::vector<uint32_t> Start;
  std::vector<Interval> Ranges;
};

uint32_t maskUpTo(llvm::ArrayRef<unsigned> Bits, size_t I) {
  uint32_t M = 0;
  for (size_t T = 0; T <= I; ++T)
    M |= 1u << Bits[T];
  return M;
}

} // namespace

unsigned choreo::halvingReduceScatter(RawSteps &R, unsigned First,
                                      llvm::ArrayRef<Rank> RankOf,
                                      const SegmentLayout &Lay,
                                      llvm::ArrayRef<unsigned> Bits) {
  uint32_t Pof2 = RankOf.size();
  for (size_t I = 0; I < Bits.size(); ++I) {
    SegmentsLike Like(Lay, maskUpTo(Bits, I));
    for (uint32_t X = 0; X < Pof2; ++X) {
      uint32_t Y = X ^ (1u << Bits[I]);
      R.add(First + I, RankOf[X], RankOf[Y], Like.like(Y), true);
    }
  }
  return First + Bits.size();
}

uint64_t choreo::halvingReduceScatterBlocks(const SegmentLayout &Lay,
                                            uint32_t Pof2) {
  uint64_t NonEmpty = 0;
  for (size_t J = 0; J + 1 < Lay.Cuts.size(); ++J)
    NonEmpty += Lay.Cuts[J + 1] > Lay.Cuts[J];
  return NonEmpty * (Pof2 ? Pof2 - 1 : 0);
}

unsigned choreo::doublingAllgather(RawSteps &R, unsigned First,
                                   llvm::ArrayRef<Rank> RankOf,
                                   const SegmentLayout &Lay,
                                   llvm::ArrayRef<unsigned> Bits) {
  uint32_t Pof2 = RankOf.size();
  unsigned St = First;
  for (size_t I = Bits.size(); I-- > 0; ++St) {
    SegmentsLike Like(Lay, maskUpTo(Bits, I));
    for (uint32_t X = 0; X < Pof2; ++X)
      R.add(St, RankOf[X], RankOf[X ^ (1u << Bits[I])], Like.like(X), false);
  }
  return St;
}

unsigned choreo::treeGatherSegments(RawSteps &R, unsigned First,
                                    llvm::ArrayRef<Rank> RankOf,
                                    const SegmentLayout &Lay,
                                    llvm::ArrayRef<unsigned> Bits,
                                    uint32_t NewRoot) {
  uint32_t Pof2 = RankOf.size();
  unsigned St = First;
  for (size_t I = Bits.size(); I-- > 0; ++St) {
    uint32_t Bit = 1u << Bits[I];
    SegmentsLike Like(Lay, maskUpTo(Bits, I));
    // Active: agreeing with the root on the bits not yet gathered (the
    // bits after I in the order).
    uint32_t Done = 0;
    for (size_t T = I + 1; T < Bits.size(); ++T)
      Done |= 1u << Bits[T];
    for (uint32_t X = 0; X < Pof2; ++X) {
      if ((X ^ NewRoot) & Done)
        continue;
      if (((X ^ NewRoot) & Bit) == 0)
        continue; // X receives
      R.add(St, RankOf[X], RankOf[X ^ Bit], Like.like(X), false);
    }
  }
  return St;
}

unsigned choreo::pairwiseReduceScatter(RawSteps &R, unsigned First, uint32_t P,
                                       llvm::ArrayRef<uint64_t> Cuts) {
  for (uint32_t I = 1; I < P; ++I)
    for (uint32_t X = 0; X < P; ++X) {
      uint32_t To = (X + I) % P;
      R.add(First + I - 1, X, To, Cuts[To], Cuts[To + 1], true);
    }
  return First + (P > 1 ? P - 1 : 0);
}

unsigned choreo::ringAllgatherSegments(RawSteps &R, unsigned First, uint32_t P,
                                       llvm::ArrayRef<uint64_t> Cuts) {
  for (uint32_t S = 0; S + 1 < P; ++S)
    for (uint32_t X = 0; X < P; ++X) {
      uint32_t Seg = (X + P - S) % P;
      R.add(First + S, X, (X + 1) % P, Cuts[Seg], Cuts[Seg + 1], false);
    }
  return First + (P > 1 ? P - 1 : 0);
}

namespace {

std::vector<Rank> localRanks(Rank First, uint32_t Size) {
  std::vector<Rank> Out(Size);
  for (uint32_t X = 0; X < Size; ++X)
    Out[X] = First + X;
  return Out;
}

/// Block B's layout: its segments are unions of the largest block's, so
/// that a smaller block's segment splits exactly into the larger block's.
SegmentLayout blockLayout(const std::vector<uint64_t> &Fine, uint32_t Largest,
                          uint32_t Size) {
  SegmentLayout L = bitReversedLayout(0, 1, Size);
  uint32_t Step = Largest / Size;
  for (uint32_t J = 0; J <= Size; ++J)
    L.Cuts[J] = Fine[J * Step];
  return L;
}

} // namespace

unsigned choreo::binaryBlocksReduceScatter(RawSteps &R, uint32_t P, uint64_t N,
                                           uint64_t Elem,
                                           std::vector<BinaryBlock> &Blocks,
                                           SegmentLayout &Lay) {
  Blocks.clear();
  Rank First = 0;
  for (int B = 31; B >= 0; --B)
    if (P & (1u << B)) {
      Blocks.push_back({First, 1u << B});
      First += 1u << B;
    }
  uint32_t Largest = Blocks.front().Size;
  std::vector<uint64_t> Fine = elementCuts(N, Elem, Largest);
  std::vector<SegmentLayout> Lays;
  std::vector<unsigned> Done(Blocks.size());
  for (size_t B = 0; B < Blocks.size(); ++B) {
    Lays.push_back(blockLayout(Fine, Largest, Blocks[B].Size));
    Done[B] =
        halvingReduceScatter(R, 0, localRanks(Blocks[B].First, Blocks[B].Size),
                             Lays[B], bitOrder(Blocks[B].Size, true));
  }
  // From the smallest block up: block B + 1's segments, cut into block B's,
  // to their owners in B, one message per sender and step.
  for (size_t B = Blocks.size() - 1; B-- > 0;) {
    unsigned Start = std::max(Done[B + 1], Done[B]);
    uint32_t Ratio = Blocks[B].Size / Blocks[B + 1].Size;
    const SegmentLayout &Small = Lays[B + 1], &Big = Lays[B];
    for (uint32_t J = 0; J < Blocks[B + 1].Size; ++J)
      for (uint32_t T = 0; T < Ratio; ++T) {
        uint32_t K = J * Ratio + T;
        R.add(Start + T, Blocks[B + 1].First + Small.Owner[J],
              Blocks[B].First + Big.Owner[K], Big.Cuts[K], Big.Cuts[K + 1],
              true);
      }
    Done[B] = Start + Ratio;
  }
  Lay = Lays.front();
  return Done.front();
}

void choreo::binaryBlocksAllgather(RawSteps &R, unsigned First, uint64_t N,
                                   llvm::ArrayRef<BinaryBlock> Blocks,
                                   const SegmentLayout &Lay) {
  (void)N;
  uint32_t Largest = Blocks.front().Size;
  std::vector<uint64_t> Fine = Lay.Cuts;
  unsigned Ready = First; // block B holds its own segments from here
  for (size_t B = 0; B < Blocks.size(); ++B) {
    SegmentLayout Big = blockLayout(Fine, Largest, Blocks[B].Size);
    unsigned AllgatherAt = Ready;
    if (B + 1 < Blocks.size()) {
      SegmentLayout Small = blockLayout(Fine, Largest, Blocks[B + 1].Size);
      uint32_t Ratio = Blocks[B].Size / Blocks[B + 1].Size;
      for (uint32_t J = 0; J < Blocks[B + 1].Size; ++J)
        for (uint32_t T = 0; T < Ratio; ++T) {
          uint32_t K = J * Ratio + T;
          R.add(Ready + T, Blocks[B].First + Big.Owner[K],
                Blocks[B + 1].First + Small.Owner[J], Big.Cuts[K],
                Big.Cuts[K + 1], false);
        }
      AllgatherAt = Ready + Ratio;
      Ready += Ratio;
    }
    doublingAllgather(R, AllgatherAt,
                      localRanks(Blocks[B].First, Blocks[B].Size), Big,
                      bitOrder(Blocks[B].Size, true));
  }
}
