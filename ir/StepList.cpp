//===- ir/StepList.cpp - Rounds of send operations ------------------------===//
///
/// \file
/// Building and composing flat step lists.
///
//===----------------------------------------------------------------------===//

#include "ir/StepList.h"

#include <cassert>

using namespace choreo;

void StepList::newStep() { StepBegin.push_back(Ops.size()); }

void StepList::addOp(Rank Src, Rank Dst, llvm::ArrayRef<Block> OpBlocks) {
  if (numSteps() == 0)
    newStep();
  Op O;
  O.Src = Src;
  O.Dst = Dst;
  O.FirstBlock = Blocks.size();
  O.NumBlocks = OpBlocks.size();
  Blocks.insert(Blocks.end(), OpBlocks.begin(), OpBlocks.end());
  Ops.push_back(O);
  ++StepBegin.back();
}

std::optional<uint32_t> StepList::findContrib(const RankSet &S) const {
  auto It = ContribHeads.find(S.hash());
  if (It == ContribHeads.end())
    return std::nullopt;
  for (uint32_t At = It->second; At != Block::NoContrib;
       At = ContribSameHash[At])
    if (Contribs[At] == S)
      return At;
  return std::nullopt;
}

uint32_t StepList::addContrib(const RankSet &S) {
  uint32_t Id = Contribs.size();
  auto [It, New] = ContribHeads.try_emplace(S.hash(), Id);
  if (!New) {
    for (uint32_t At = It->second; At != Block::NoContrib;
         At = ContribSameHash[At])
      if (Contribs[At] == S)
        return At;
    ContribSameHash.push_back(It->second);
    It->second = Id;
  } else {
    ContribSameHash.push_back(Block::NoContrib);
  }
  Contribs.push_back(S);
  return Id;
}

void StepList::reserve(size_t NumOps, size_t NumBlocks) {
  Ops.reserve(NumOps);
  Blocks.reserve(NumBlocks);
}

void StepList::append(const StepList &Next) {
  Ops.reserve(Ops.size() + Next.Ops.size());
  Blocks.reserve(Blocks.size() + Next.Blocks.size());
  for (unsigned S = 0; S < Next.numSteps(); ++S) {
    newStep();
    for (const Op &O : Next.step(S)) {
      size_t First = Blocks.size();
      for (Block B : Next.blocks(O)) {
        if (B.hasContrib())
          B.Contrib = addContrib(Next.contrib(B.Contrib));
        Blocks.push_back(B);
      }
      Op Copy = O;
      Copy.FirstBlock = First;
      Ops.push_back(Copy);
      ++StepBegin.back();
    }
  }
}

void StepList::append(StepList &&Next) {
  if (numSteps() == 0) {
    *this = std::move(Next);
    return;
  }
  append(static_cast<const StepList &>(Next));
}

void StepList::mergeAlongside(const StepList &Other) {
  if (Other.numSteps() == 0)
    return;
  if (numSteps() == 0) {
    *this = Other;
    return;
  }
  StepList Out;
  Out.reserve(numOps() + Other.numOps(), numBlocks() + Other.numBlocks());
  unsigned N = std::max(numSteps(), Other.numSteps());
  auto CopyStep = [&Out](const StepList &From, unsigned S) {
    if (S >= From.numSteps())
      return;
    for (const Op &O : From.step(S)) {
      llvm::SmallVector<Block, 4> Bs(From.blocks(O).begin(),
                                     From.blocks(O).end());
      for (Block &B : Bs)
        if (B.hasContrib())
          B.Contrib = Out.addContrib(From.contrib(B.Contrib));
      Out.addOp(O.Src, O.Dst, Bs);
    }
  };
  for (unsigned S = 0; S < N; ++S) {
    Out.newStep();
    CopyStep(*this, S);
    CopyStep(Other, S);
  }
  *this = std::move(Out);
}

void StepList::relabel(llvm::ArrayRef<Rank> RankMap,
                       llvm::ArrayRef<BufferMap> Buffers) {
  auto MapRank = [&](Rank R) {
    assert(R < RankMap.size() && "rank outside the relabelling map");
    return RankMap[R];
  };
  if (!Contribs.empty()) {
    std::vector<RankSet> Old = std::move(Contribs);
    Contribs.clear();
    ContribHeads.clear();
    ContribSameHash.clear();
    std::vector<uint32_t> ContribMap(Old.size());
    for (size_t I = 0; I < Old.size(); ++I) {
      RankSet Mapped;
      for (const Interval &R : Old[I].intervals())
        for (uint64_t X = R.Lo; X < R.Hi; ++X)
          Mapped.insert(MapRank(X), MapRank(X) + 1);
      ContribMap[I] = addContrib(Mapped);
    }
    for (Block &B : Blocks)
      if (B.hasContrib())
        B.Contrib = ContribMap[B.Contrib];
  }
  for (Op &O : Ops) {
    O.Src = MapRank(O.Src);
    O.Dst = MapRank(O.Dst);
  }
  for (Block &B : Blocks)
    if (B.Buf < Buffers.size()) {
      B.Lo += Buffers[B.Buf].Offset;
      B.Hi += Buffers[B.Buf].Offset;
      B.Buf = Buffers[B.Buf].To;
    }
}

StepList StepList::relabeled(llvm::ArrayRef<Rank> RankMap,
                             llvm::ArrayRef<BufferMap> Buffers) const & {
  StepList Copy = *this;
  Copy.relabel(RankMap, Buffers);
  return Copy;
}

StepList StepList::relabeled(llvm::ArrayRef<Rank> RankMap,
                             llvm::ArrayRef<BufferMap> Buffers) && {
  relabel(RankMap, Buffers);
  return std::move(*this);
}

void StepList::remapBuffers(llvm::ArrayRef<BufferId> Map) {
  for (Block &B : Blocks)
    if (B.Buf < Map.size())
      B.Buf = Map[B.Buf];
}

void StepList::dropEmptySteps() {
  std::vector<uint32_t> Begin{0};
  for (unsigned S = 0; S < numSteps(); ++S)
    if (StepBegin[S + 1] > StepBegin[S])
      Begin.push_back(StepBegin[S + 1]);
  StepBegin = std::move(Begin);
}

StepList choreo::alongside(StepList A, const StepList &B) {
  A.mergeAlongside(B);
  return A;
}

void choreo::addPiece(llvm::SmallVectorImpl<Block> &Out, BufferId Buf,
                      uint64_t Lo, uint64_t Hi) {
  if (Hi <= Lo)
    return;
  if (!Out.empty() && Out.back().Buf == Buf && Out.back().Hi == Lo &&
      !Out.back().hasContrib()) {
    Out.back().Hi = Hi;
    return;
  }
  Block B;
  B.Buf = Buf;
  B.Lo = Lo;
  B.Hi = Hi;
  Out.push_back(B);
}

void choreo::addOpIfAny(StepList &L, Rank Src, Rank Dst,
                        llvm::ArrayRef<Block> Pieces) {
  if (!Pieces.empty())
    L.addOp(Src, Dst, Pieces);
}
