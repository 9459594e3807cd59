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
  if (OneOn && S.numIntervals() == 1 && S.intervals()[0].Lo < OneLimit) {
    uint64_t Lo = S.intervals()[0].Lo, Hi = S.intervals()[0].Hi;
    if (Lo >= OneHead.size())
      return std::nullopt; // none with this Lo, chained or hashed
    for (uint32_t At = OneHead[Lo]; At != Block::NoContrib;
         At = ContribSameHash[At])
      if (Contribs[At].intervals()[0].Hi == Hi)
        return At;
    if (OneCount[Lo] < OneChain)
      return std::nullopt;
  }
  auto It = ContribHeads.find(S.hash());
  if (It == ContribHeads.end())
    return std::nullopt;
  for (uint32_t At = It->second; At != Block::NoContrib;
       At = ContribSameHash[At])
    if (Contribs[At] == S)
      return At;
  return std::nullopt;
}

void StepList::indexContrib(uint32_t Id) {
  if (Id < SubtreeOf.size() && SubtreeOf[Id])
    return; // a name is found by its key, never as a list
  const RankSet &S = Contribs[Id];
  if (OneOn && S.numIntervals() == 1 && S.intervals()[0].Lo < OneLimit) {
    uint64_t Lo = S.intervals()[0].Lo;
    if (Lo >= OneHead.size()) {
      size_t N = std::min<size_t>(std::max<size_t>(Lo + 1, 2 * OneHead.size()),
                                  OneLimit);
      OneHead.resize(N, Block::NoContrib);
      OneCount.resize(N, 0);
    }
    if (OneCount[Lo] < OneChain) {
      ContribSameHash[Id] = OneHead[Lo];
      OneHead[Lo] = Id;
      ++OneCount[Lo];
      return;
    }
  }
  auto [It, New] = ContribHeads.try_emplace(S.hash(), Id);
  ContribSameHash[Id] = New ? Block::NoContrib : It->second;
  It->second = Id;
}

uint32_t StepList::addContrib(const RankSet &S) {
  if (std::optional<uint32_t> Known = findContrib(S))
    return *Known;
  uint32_t Id = Contribs.size();
  Contribs.push_back(S);
  ContribSameHash.push_back(Block::NoContrib);
  if (!SubtreeOf.empty())
    SubtreeOf.push_back(0);
  if (!OneOn && Contribs.size() >= OneFrom) {
    // From now on one-interval sets are chained by Lo: index every set anew.
    OneOn = true;
    ContribHeads.clear();
    for (uint32_t I = 0; I < Contribs.size(); ++I)
      indexContrib(I);
    return Id;
  }
  indexContrib(Id);
  return Id;
}

uint32_t StepList::addSubtree(uint32_t Tree, Rank Of) {
  uint64_t Key = (uint64_t(Tree) + 1) << 32 | Of;
  auto [It, New] = SubtreeIds.try_emplace(Key, uint32_t(Contribs.size()));
  if (!New)
    return It->second;
  SubtreeOf.resize(Contribs.size(), 0);
  Contribs.push_back(RankSet(Of, uint64_t(Of) + 1));
  ContribSameHash.push_back(Block::NoContrib);
  SubtreeOf.push_back(Key);
  return It->second;
}

RankSet StepList::contribRanks(uint32_t Id) const {
  if (std::optional<SubtreeName> N = subtree(Id))
    return Family ? Family->expand(N->Tree, N->Of) : Contribs[Id];
  return Contribs[Id];
}

uint32_t StepList::copyContrib(const StepList &From, uint32_t Id) {
  if (std::optional<SubtreeName> N = From.subtree(Id)) {
    if (!Family)
      Family = From.Family;
    if (Family == From.Family)
      return addSubtree(N->Tree, N->Of);
    return addContrib(From.contribRanks(Id)); // another family: its ranks
  }
  return addContrib(From.contrib(Id));
}

Block StepList::latticeBlock(BufferId Buf, const Lattice &X) {
  Block B;
  B.Buf = Buf;
  B.Lo = X.Start;
  B.Hi = X.end();
  B.Contrib = Block::LatticeBit | uint32_t(Lattices.size());
  Lattices.push_back(X);
  return B;
}

void StepList::expandLattices() {
  if (Lattices.empty())
    return;
  std::vector<Block> Out;
  Out.reserve(Blocks.size());
  for (Op &O : Ops) {
    size_t First = Out.size();
    for (const Block &B : blocks(O)) {
      if (!validLattice(B)) {
        Out.push_back(B);
        continue;
      }
      forEachRange(B, [&](uint64_t Lo, uint64_t Hi) {
        Block Piece = B;
        Piece.Contrib = Block::NoContrib;
        Piece.Lo = Lo;
        Piece.Hi = Hi;
        Out.push_back(Piece);
      });
    }
    O.FirstBlock = First;
    O.NumBlocks = Out.size() - First;
  }
  Blocks = std::move(Out);
  Lattices.clear();
}

void StepList::reserve(size_t NumOps, size_t NumBlocks) {
  Ops.reserve(NumOps);
  Blocks.reserve(NumBlocks);
}

namespace {

/// The ids in To's table of From's contributor sets, interned on first use
/// (one lookup per distinct set, not per block: a ring rank's blocks carry
/// one set each, a broadcast's allgather the same set in every block).
class ContribIdsIn {
public:
  ContribIdsIn(StepList &To, const StepList &From)
      : To(To), From(From), Ids(From.numContribs(), Block::NoContrib) {}
  uint32_t operator()(uint32_t Id) {
    if (Id >= Ids.size())
      return Id; // no such set: left for the verifier to name
    if (Ids[Id] == Block::NoContrib)
      Ids[Id] = To.copyContrib(From, Id);
    return Ids[Id];
  }

private:
  StepList &To;
  const StepList &From;
  std::vector<uint32_t> Ids;
};

} // namespace

void StepList::append(const StepList &Next) {
  Ops.reserve(Ops.size() + Next.Ops.size());
  Blocks.reserve(Blocks.size() + Next.Blocks.size());
  ContribIdsIn Map(*this, Next);
  for (unsigned S = 0; S < Next.numSteps(); ++S) {
    newStep();
    for (const Op &O : Next.step(S)) {
      size_t First = Blocks.size();
      for (Block B : Next.blocks(O)) {
        if (B.hasContrib())
          B.Contrib = Map(B.Contrib);
        else if (Next.validLattice(B))
          B = latticeBlock(B.Buf, Next.lattice(B));
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
  // Steps without ops (another group's, in a rank's part) only count.
  if (Other.Ops.empty()) {
    while (numSteps() < Other.numSteps())
      newStep();
    return;
  }
  // This list's blocks keep their sets' ids (its table is kept); Other's
  // sets are interned once each, not once per block.
  StepList Out;
  Out.Contribs = std::move(Contribs);
  Out.ContribHeads = std::move(ContribHeads);
  Out.ContribSameHash = std::move(ContribSameHash);
  Out.OneOn = OneOn;
  Out.OneHead = std::move(OneHead);
  Out.OneCount = std::move(OneCount);
  Out.SubtreeOf = std::move(SubtreeOf);
  Out.SubtreeIds = std::move(SubtreeIds);
  Out.Family = std::move(Family);
  Out.Lattices = std::move(Lattices);
  Out.reserve(numOps() + Other.numOps(), numBlocks() + Other.numBlocks());
  ContribIdsIn Map(Out, Other);
  unsigned N = std::max(numSteps(), Other.numSteps());
  for (unsigned S = 0; S < N; ++S) {
    Out.newStep();
    if (S < numSteps())
      for (const Op &O : step(S))
        Out.addOp(O.Src, O.Dst, blocks(O));
    if (S < Other.numSteps())
      for (const Op &O : Other.step(S)) {
        size_t First = Out.Blocks.size();
        Out.addOp(O.Src, O.Dst, Other.blocks(O));
        for (size_t K = First; K < Out.Blocks.size(); ++K)
          if (Out.Blocks[K].hasContrib())
            Out.Blocks[K].Contrib = Map(Out.Blocks[K].Contrib);
          else if (Other.validLattice(Out.Blocks[K]))
            Out.Blocks[K] = Out.latticeBlock(Out.Blocks[K].Buf,
                                             Other.lattice(Out.Blocks[K]));
      }
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
    // A name means ranks of its family's numbering: relabelled, it is
    // listed (expanded first).
    if (hasSubtrees())
      for (uint32_t I = 0; I < Contribs.size(); ++I)
        if (subtree(I))
          Contribs[I] = contribRanks(I);
    SubtreeOf.clear();
    SubtreeIds.clear();
    Family.reset();
    std::vector<RankSet> Old = std::move(Contribs);
    Contribs.clear();
    ContribHeads.clear();
    ContribSameHash.clear();
    OneOn = false;
    OneHead.clear();
    OneCount.clear();
    std::vector<uint32_t> ContribMap(Old.size());
    for (size_t I = 0; I < Old.size(); ++I) {
      // Runs of ranks the map keeps consecutive go in at once (a group's
      // [0, q) shifted is one insert, not q).
      RankSet Mapped;
      for (const Interval &R : Old[I].intervals())
        for (uint64_t X = R.Lo; X < R.Hi;) {
          uint64_t Start = MapRank(X), End = Start + 1;
          for (++X; X < R.Hi && MapRank(X) == End; ++X)
            ++End;
          Mapped.insert(Start, End);
        }
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
      if (validLattice(B)) // each lattice is one block's
        Lattices[B.latticeId()].Start += Buffers[B.Buf].Offset;
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

void StepList::dropEmptySteps(const std::vector<bool> &Keep) {
  std::vector<uint32_t> Begin{0};
  for (unsigned S = 0; S < numSteps(); ++S)
    if (StepBegin[S + 1] > StepBegin[S] || (S < Keep.size() && Keep[S]))
      Begin.push_back(StepBegin[S + 1]);
  StepBegin = std::move(Begin);
}

void StepList::clearOps() {
  StepBegin.assign(1, 0);
  Ops.clear();
  Blocks.clear();
  Lattices.clear();
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
