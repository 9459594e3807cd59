//===- generators/blocks/Reduction.cpp - Raw reduction ops and layouts ----===//
///
/// \file
/// Raw reduction ops with their contributor sets (RawSteps), element cuts,
/// the new ranks of a fold and the segment layouts of halving-doubling;
/// the algorithms are in ReductionTrees.cpp and ReductionHalving.cpp.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Reduction.h"

#include "llvm/ADT/bit.h"

using namespace choreo;

//===--- RawSteps ---------------------------------------------------------===//

uint32_t RawSteps::ranks(Rank Lo, Rank Hi) {
  return Table.addContrib(RankSet(uint64_t(Lo) + Base, uint64_t(Hi) + Base));
}

uint32_t RawSteps::contrib(RankSet S) {
  if (!Base)
    return Table.addContrib(S);
  RankSet Shifted;
  for (const Interval &X : S.intervals())
    Shifted.insert(X.Lo + Base, X.Hi + Base);
  return Table.addContrib(Shifted);
}

RawSteps::RawStep &RawSteps::at(unsigned Step) {
  if (Only)
    return Flat;
  if (Steps.size() <= Step)
    Steps.resize(Step + 1);
  return Steps[Step];
}

void RawSteps::toFlat() {
  Direct = false;
  for (unsigned St = 0; St < Table.numSteps(); ++St)
    for (const Op &O : Table.step(St)) {
      llvm::ArrayRef<Block> Bs = Table.blocks(O);
      // Every block of a raw op carries its set and combine flag.
      Flat.Ops.push_back({O.Src, O.Dst, Bs.front().Contrib, Bs.front().Reduce,
                          St, uint32_t(Flat.Ranges.size()),
                          uint32_t(Bs.size())});
      for (const Block &B : Bs)
        Flat.Ranges.push_back({B.Lo, B.Hi});
    }
  Table.clearOps();
}

void RawSteps::begin(unsigned Step, Rank Src, Rank Dst, bool Reduce,
                     uint32_t Contrib) {
  Open = nullptr;
  OpenDirect = false;
  if (!wants(Src, Dst))
    return;
  Src += Base;
  Dst += Base;
  if (Only && Direct) {
    // Step order so far: straight into the list while it lasts.
    if (Step + 1 >= Table.numSteps()) {
      while (Table.numSteps() <= Step)
        Table.newStep();
      OpenDirect = true;
      OpenSrc = Src;
      OpenDst = Dst;
      OpenReduce = Reduce;
      OpenContrib = Contrib;
      OpenBlocks.clear();
      return;
    }
    toFlat();
  }
  Open = &at(Step);
  Open->Ops.push_back(
      {Src, Dst, Contrib, Reduce, Step, uint32_t(Open->Ranges.size()), 0});
}

void RawSteps::piece(uint64_t Lo, uint64_t Hi) {
  if (Hi <= Lo)
    return;
  if (OpenDirect) {
    if (!OpenBlocks.empty() && OpenBlocks.back().Hi == Lo) {
      OpenBlocks.back().Hi = Hi;
      return;
    }
    Block B;
    B.Lo = Lo;
    B.Hi = Hi;
    B.Reduce = OpenReduce;
    B.Contrib = OpenContrib;
    OpenBlocks.push_back(B);
    return;
  }
  if (!Open)
    return;
  RawOp &O = Open->Ops.back();
  if (O.NumRanges && Open->Ranges.back().Hi == Lo) {
    Open->Ranges.back().Hi = Hi;
    return;
  }
  Open->Ranges.push_back({Lo, Hi});
  ++O.NumRanges;
}

void RawSteps::end() {
  if (OpenDirect && !OpenBlocks.empty())
    Table.addOp(OpenSrc, OpenDst, OpenBlocks);
  OpenDirect = false;
  if (Open && Open->Ops.back().NumRanges == 0)
    Open->Ops.pop_back();
  Open = nullptr;
}

void RawSteps::add(unsigned Step, Rank Src, Rank Dst,
                   llvm::ArrayRef<Interval> Ranges, bool Reduce,
                   uint32_t Contrib) {
  begin(Step, Src, Dst, Reduce, Contrib);
  for (const Interval &I : Ranges)
    piece(I.Lo, I.Hi);
  end();
}

void RawSteps::keep(unsigned Step) {
  if (Kept.size() <= Step) // geometrically: a ring keeps p - 1 steps
    Kept.resize(std::max<size_t>(Step + 1, 2 * Kept.size()));
  Kept[Step] = true;
}

void RawSteps::addBlocks(StepList &L, const RawStep &S, const RawOp &O,
                         bool Contribs) {
  uint32_t Id = Contribs ? O.Contrib : Block::NoContrib;
  llvm::SmallVector<Block, 8> Blocks;
  for (const Interval &I :
       llvm::ArrayRef<Interval>(S.Ranges).slice(O.FirstRange, O.NumRanges)) {
    Block B;
    B.Lo = I.Lo;
    B.Hi = I.Hi;
    B.Reduce = O.Reduce;
    B.Contrib = Id;
    Blocks.push_back(B);
  }
  L.addOp(O.Src, O.Dst, Blocks);
}

StepList RawSteps::take() {
  StepList L = std::move(Table);
  Table = StepList();
  Everyone = Block::NoContrib;
  if (Only && Direct) {
    // The ops are in place, one list step per step index: the steps
    // without ops go but those the whole keeps.
    while (L.numSteps() < Kept.size())
      L.newStep();
    L.dropEmptySteps(Kept);
    return L;
  }
  if (Only) {
    // One rank's ops, by step (stable: the whole's order within a step),
    // in the steps the whole keeps.
    std::vector<uint32_t> Order(Flat.Ops.size());
    for (uint32_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    auto ByStep = [&](uint32_t A, uint32_t B) {
      return Flat.Ops[A].Step < Flat.Ops[B].Step;
    };
    // Most building blocks emit a rank's ops in step order already.
    if (!std::is_sorted(Order.begin(), Order.end(), ByStep))
      std::stable_sort(Order.begin(), Order.end(), ByStep);
    L.reserve(Flat.Ops.size(), Flat.Ranges.size());
    size_t Next = 0;
    size_t Last = Kept.size();
    if (!Order.empty())
      Last = std::max<size_t>(Last, Flat.Ops[Order.back()].Step + 1);
    for (size_t St = 0; St < Last; ++St) {
      bool HasOps = Next < Order.size() && Flat.Ops[Order[Next]].Step == St;
      if (!HasOps && !(St < Kept.size() && Kept[St]))
        continue;
      L.newStep();
      for (; Next < Order.size() && Flat.Ops[Order[Next]].Step == St; ++Next)
        addBlocks(L, Flat, Flat.Ops[Order[Next]], true);
    }
    Flat = RawStep();
    Direct = true;
    return L;
  }
  size_t NumOps = 0, NumBlocks = 0;
  for (const RawStep &S : Steps) {
    NumOps += S.Ops.size();
    NumBlocks += S.Ranges.size();
  }
  L.reserve(NumOps, NumBlocks);
  for (RawStep &S : Steps) {
    if (S.Ops.empty())
      continue;
    L.newStep();
    for (const RawOp &O : S.Ops)
      addBlocks(L, S, O, true);
    S = RawStep(); // free as we go: the list holds them now
  }
  Steps.clear();
  return L;
}

StepList RawSteps::takeRaw() {
  StepList L;
  for (RawStep &S : Steps) {
    L.newStep();
    for (const RawOp &O : S.Ops)
      addBlocks(L, S, O, false);
  }
  Steps.clear();
  return L;
}

//===--- Cuts and new ranks -----------------------------------------------===//

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
  while (M * 2 <= P && M * 2 != 0)
    M *= 2;
  return M;
}

std::vector<unsigned> choreo::bitOrder(uint32_t Pof2, bool Doubling) {
  std::vector<unsigned> Bits;
  for (unsigned B = 0; (uint64_t(1) << B) < Pof2; ++B)
    Bits.push_back(B);
  if (!Doubling)
    std::reverse(Bits.begin(), Bits.end());
  return Bits;
}

Rank NewRanks::rankOf(uint32_t X) const {
  if (X == 0 && Zero)
    return *Zero;
  if (X < Rem)
    return Base + 2 * X + ((OddStays || KeepOdd == X) ? 1 : 0);
  return Base + X + Rem;
}

std::optional<uint32_t> NewRanks::newRankOf(Rank R) const {
  if (Zero && R == *Zero)
    return 0;
  if (R < Base || uint64_t(R - Base) >= uint64_t(Size) + Rem)
    return std::nullopt;
  uint32_t Rel = R - Base, X;
  if (Rel < 2 * Rem) {
    X = Rel / 2;
    bool Odd = OddStays || KeepOdd == X;
    if (Rel % 2 != (Odd ? 1u : 0u))
      return std::nullopt;
  } else {
    X = Rel - Rem;
  }
  if (X == 0 && Zero)
    return std::nullopt;
  return X;
}

//===--- Segment layouts --------------------------------------------------===//

SegmentLayout SegmentLayout::bitReversed(uint64_t N, uint64_t Elem,
                                         uint32_t Size, uint32_t Parts) {
  SegmentLayout L;
  L.Size = Size;
  L.Log = llvm::countr_zero(Size);
  L.Reversed = true;
  L.Elem = Elem ? Elem : 1;
  L.Count = Elem ? N / Elem : 0;
  L.Parts = Parts ? Parts : Size;
  L.Stride = L.Parts / Size;
  return L;
}

SegmentLayout SegmentLayout::inOrder(std::vector<uint64_t> Cuts) {
  SegmentLayout L;
  L.Size = Cuts.size() - 1;
  L.Log = llvm::countr_zero(L.Size);
  L.Cuts = std::move(Cuts);
  return L;
}

SegmentLayout SegmentLayout::reversedAt(std::vector<uint64_t> Cuts) {
  SegmentLayout L = inOrder(std::move(Cuts));
  L.Reversed = true;
  return L;
}

uint64_t SegmentLayout::cut(uint32_t J) const {
  if (!Cuts.empty())
    return Cuts[J];
  return partStart(Count, Parts, uint64_t(J) * Stride) * Elem;
}

uint32_t SegmentLayout::reverse(uint32_t X) const {
  return Log ? llvm::reverseBits(X) >> (32 - Log) : 0;
}

/// F(Lo, Hi) -> bool (go on) for runs of segments like Y under Mask, in
/// byte order: in segment-index space the condition fixes some bits; the
/// free bits below the lowest fixed one make runs of consecutive segments,
/// and the runs are the subsets of the free bits above it, ascending. Stops
/// where the vector ends (the later runs are empty).
template <class Fn>
void SegmentLayout::visitLike(uint32_t Y, uint32_t Mask, Fn F) const {
  uint32_t All = Size - 1;
  uint32_t JM = Mask & All, JV = Y & Mask & All;
  if (Reversed) {
    JM = reverse(JM);
    JV = reverse(JV);
  }
  uint64_t Run = JM ? (JM & (~JM + 1)) : uint64_t(Size);
  uint32_t Free = All & ~JM & ~uint32_t(Run - 1);
  uint64_t End = cut(Size);
  uint32_t Sub = 0;
  while (true) {
    uint32_t C = JV | Sub;
    uint64_t Lo = cut(C);
    if (Lo >= End)
      return;
    if (!F(Lo, cut(uint32_t(C + Run))))
      return;
    if (Sub == Free)
      return;
    Sub = ((Sub | ~Free) + 1) & Free;
  }
}

void SegmentLayout::forEachLike(uint32_t Y, uint32_t Mask,
                                RangeSink Sink) const {
  uint64_t A = 0, B = 0;
  visitLike(Y, Mask, [&](uint64_t Lo, uint64_t Hi) {
    if (B != Lo) {
      if (A < B)
        Sink(A, B);
      A = Lo;
    }
    B = Hi;
    return true;
  });
  if (A < B)
    Sink(A, B);
}

bool SegmentLayout::someLike(uint32_t Y, uint32_t Mask) const {
  bool Found = false;
  visitLike(Y, Mask, [&](uint64_t Lo, uint64_t Hi) {
    Found = Lo < Hi;
    return !Found;
  });
  return Found;
}

uint64_t choreo::halvingReduceScatterBlocks(const SegmentLayout &Lay) {
  uint64_t NonEmpty = 0;
  for (uint32_t J = 0; J < Lay.size(); ++J)
    NonEmpty += Lay.cut(J + 1) > Lay.cut(J);
  return NonEmpty * (Lay.size() - 1);
}
