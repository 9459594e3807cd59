//===- generators/blocks/BcastRank.cpp - One rank of a broadcast ----------===//
///
/// \file
/// The rank forms of the broadcast building blocks of Bcast.cpp: rank Me's
/// ops in the block's steps, from the algorithms' arithmetic (a binomial
/// rank's parent and children, a tree node's step, the scatter's chunk
/// ranges, MPICH's recursive-doubling subtrees), with which steps of the
/// whole block hold an op (RankPart, Blocks.h).
///
//===----------------------------------------------------------------------===//

#include "generators/SizeChecks.h"
#include "generators/blocks/Blocks.h"

using namespace choreo;

StepList RankPart::kept() const & {
  StepList L;
  L.reserve(Steps.numOps(), Steps.numBlocks());
  for (unsigned S = 0; S < Steps.numSteps(); ++S) {
    if (!Used[S])
      continue;
    L.newStep();
    for (const Op &O : Steps.step(S))
      L.addOp(O.Src, O.Dst, Steps.blocks(O));
  }
  return L;
}

StepList RankPart::kept() && {
  if (llvm::all_of(Used, [](bool U) { return U; }))
    return std::move(Steps);
  return static_cast<const RankPart &>(*this).kept();
}

void RankPart::append(const RankPart &Next) {
  Steps.append(Next.Steps);
  Used.insert(Used.end(), Next.Used.begin(), Next.Used.end());
}

void RankPart::append(RankPart &&Next) {
  Steps.append(std::move(Next.Steps));
  Used.insert(Used.end(), Next.Used.begin(), Next.Used.end());
}

namespace {

/// Largest power of two strictly below N (N >= 2): the first mask of
/// MPICH's binomial trees (as Bcast.cpp).
uint64_t topMask(uint32_t N) {
  uint64_t M = 1;
  while (M < N)
    M <<= 1;
  return M >> 1;
}

uint64_t lowBit(uint64_t X) { return X & (~X + 1); }

/// Ranks relative to Root and back.
struct Relative {
  uint32_t N, Root;
  Rank actual(uint64_t Rel) const { return Rank((Rel + Root) % N); }
  uint64_t of(uint32_t Me) const { return (uint64_t(Me) + N - Root) % N; }
};

/// A part of Steps steps, all used, none holding an op yet.
RankPart emptyPart(unsigned Steps, bool Used = true) {
  RankPart P;
  for (unsigned I = 0; I < Steps; ++I)
    P.Steps.newStep();
  P.Used.assign(Steps, Used);
  return P;
}

void addRange(StepList &L, Rank Src, Rank Dst, uint64_t Lo, uint64_t Hi) {
  llvm::SmallVector<Block, 1> Piece;
  addPiece(Piece, 0, Lo, Hi);
  addOpIfAny(L, Src, Dst, Piece);
}

/// Appends steps until L has Step + 1 of them.
void openUpTo(StepList &L, unsigned Step) {
  while (L.numSteps() <= Step)
    L.newStep();
}

/// MPICH's binomial scatter (Bcast.cpp's appendScatter) at relative rank
/// R: at mask m a sender R (a multiple of 2m with R + m < N) sends
/// [clip((R + m) C), clip(min(R + 2m, N) C)) to R + m, where C is the
/// chunk; the step of mask m is used when m C < Bytes.
RankPart scatterRank(uint32_t N, uint64_t Bytes, const Relative &Rel,
                     uint64_t R) {
  uint64_t C = ceilDiv(Bytes, N);
  RankPart P;
  uint64_t Low = R ? lowBit(R) : UINT64_MAX;
  for (uint64_t M = topMask(N); M > 0; M >>= 1) {
    P.Steps.newStep();
    P.Used.push_back(clippedStart(M, C, Bytes) < Bytes);
    if (R == NoRank)
      continue;
    uint64_t Sender = Low == M ? R - M : (M < Low && R + M < N ? R : N);
    if (Sender == N)
      continue;
    addRange(P.Steps, Rel.actual(Sender), Rel.actual(Sender + M),
             clippedStart(Sender + M, C, Bytes),
             clippedStart(std::min<uint64_t>(Sender + 2 * M, N), C, Bytes));
  }
  return P;
}

/// Open MPI's fanout-2 tree over shifted ranks (Bcast.cpp's
/// binaryChildren): node C >= 1 at level l (2^l <= C + 1 < 2^(l+1)) is the
/// first child of C - 2^(l-1) when C + 1 < 3 2^(l-1), else the second
/// child of C - 2^l.
struct BinaryTree {
  uint32_t N;
  std::pair<uint64_t, unsigned> parent(uint64_t C) const {
    uint64_t Half = topMask(uint32_t(C + 2)) >> 1; // 2^(l-1)
    if (C + 1 < 3 * Half)
      return {C - Half, 0};
    return {C - 2 * Half, 1};
  }
  llvm::SmallVector<uint64_t, 2> children(uint64_t R) const {
    uint64_t Delta = 1;
    while (2 * Delta <= R + 1)
      Delta *= 2;
    llvm::SmallVector<uint64_t, 2> C;
    for (uint64_t I = 1; I <= 2 && R + I * Delta < N; ++I)
      C.push_back(R + I * Delta);
    return C;
  }
  /// The step node R receives in (-1 for the root): its parent's plus one
  /// for a first child, two for a second.
  int64_t received(uint64_t R) const {
    int64_t S = -1;
    while (R != 0) {
      auto [Parent, Index] = parent(R);
      S += 1 + Index;
      R = Parent;
    }
    return S;
  }
  /// The tree's steps: one after the latest receive (O(N)).
  unsigned steps() const {
    std::vector<int32_t> Received(N, -1);
    int32_t Last = -1;
    for (uint64_t C = 1; C < N; ++C) {
      auto [Parent, Index] = parent(C);
      Received[C] = Received[Parent] + 1 + int32_t(Index);
      Last = std::max(Last, Received[C]);
    }
    return unsigned(Last + 1);
  }
};

/// The tree's steps with R's receive and sends, each op carrying the range
/// Range(child) returns; every step up to the last is used (a parent sends
/// to its first child one step after it receives, to its second two).
template <class RangeFn>
RankPart binaryTreeRank(uint32_t N, const Relative &Rel, uint64_t R,
                        RangeFn Range) {
  BinaryTree T{N};
  RankPart P = emptyPart(T.steps());
  if (R == NoRank)
    return P;
  int64_t Got = T.received(R);
  // Ops in step order: the receive comes before the sends.
  std::vector<std::pair<unsigned, std::pair<uint64_t, uint64_t>>> Mine;
  if (R != 0)
    Mine.push_back({unsigned(Got), {T.parent(R).first, R}});
  auto C = T.children(R);
  for (unsigned I = 0; I < C.size(); ++I)
    Mine.push_back({unsigned(Got + 1 + I), {R, C[I]}});
  StepList L;
  for (auto &[Step, Edge] : Mine) {
    openUpTo(L, Step);
    auto [Lo, Hi] = Range(Edge.second);
    addRange(L, Rel.actual(Edge.first), Rel.actual(Edge.second), Lo, Hi);
  }
  openUpTo(L, P.Used.size() ? unsigned(P.Used.size() - 1) : 0);
  if (P.Used.empty())
    L = StepList();
  P.Steps = std::move(L);
  return P;
}

} // namespace

RankPart choreo::binomialBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root,
                                   uint32_t Me) {
  if (N < 2 || Bytes == 0)
    return {};
  if (Me == NoRank)
    return emptyPart(ceilLog2(N));
  Relative Rel{N, Root};
  uint64_t R = Rel.of(Me), Low = R ? lowBit(R) : UINT64_MAX;
  RankPart P;
  for (uint64_t M = topMask(N); M > 0; M >>= 1) {
    P.Steps.newStep();
    P.Used.push_back(true);
    if (Low == M)
      addRange(P.Steps, Rel.actual(R - M), Me, 0, Bytes);
    else if (M < Low && R + M < N)
      addRange(P.Steps, Me, Rel.actual(R + M), 0, Bytes);
  }
  return P;
}

RankPart choreo::flatBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root,
                               uint32_t Me) {
  if (N < 2 || Bytes == 0)
    return {};
  if (Me == NoRank)
    return emptyPart(N - 1);
  Relative Rel{N, Root};
  uint64_t R = Rel.of(Me);
  RankPart P;
  P.Used.assign(N - 1, true);
  if (R == 0) {
    P.Steps.reserve(N - 1, N - 1);
    for (uint64_t To = 1; To < N; ++To) {
      P.Steps.newStep();
      addRange(P.Steps, Me, Rel.actual(To), 0, Bytes);
    }
    return P;
  }
  openUpTo(P.Steps, unsigned(R - 1));
  addRange(P.Steps, Root, Me, 0, Bytes);
  openUpTo(P.Steps, N - 2);
  return P;
}

RankPart choreo::pipelineBcastRank(uint32_t N, llvm::ArrayRef<uint64_t> Cuts,
                                   uint32_t Root, uint32_t Me) {
  if (N < 2 || Cuts.size() < 2 || Cuts.back() == 0)
    return {};
  uint64_t X = Cuts.size() - 1;
  unsigned Steps = unsigned(X + N - 2);
  if (Me == NoRank)
    return emptyPart(Steps);
  Relative Rel{N, Root};
  uint64_t J = Rel.of(Me);
  RankPart P;
  P.Used.assign(Steps, true);
  P.Steps.reserve(2 * X, 2 * X);
  // At step T relative rank J receives segment T - J + 1 from J - 1 and
  // sends segment T - J to J + 1 (the sender J - 1 first).
  uint64_t First = J ? J - 1 : 0;
  for (uint64_t T = 0; T < Steps; ++T) {
    P.Steps.newStep();
    if (T < First)
      continue;
    if (J >= 1 && T + 1 >= J && T + 1 - J < X)
      addRange(P.Steps, Rel.actual(J - 1), Me, Cuts[T + 1 - J],
               Cuts[T + 2 - J]);
    if (J + 2 <= N && T >= J && T - J < X)
      addRange(P.Steps, Me, Rel.actual(J + 1), Cuts[T - J], Cuts[T - J + 1]);
  }
  return P;
}

RankPart choreo::binaryBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root,
                                 uint32_t Me) {
  if (N < 2 || Bytes == 0)
    return {};
  Relative Rel{N, Root};
  uint64_t R = Me == NoRank ? NoRank : Rel.of(Me);
  return binaryTreeRank(N, Rel, R, [&](uint64_t) {
    return std::pair<uint64_t, uint64_t>(0, Bytes);
  });
}

RankPart choreo::splitBinaryBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root,
                                      uint32_t Me) {
  if (N < 2 || Bytes == 0)
    return {};
  uint64_t Half = ceilDiv(Bytes, 2);
  if (Bytes - Half == 0) {
    uint64_t Cuts[] = {0, Bytes};
    return pipelineBcastRank(N, Cuts, Root, Me);
  }
  Relative Rel{N, Root};
  uint64_t R = Me == NoRank ? NoRank : Rel.of(Me);
  RankPart P = binaryTreeRank(N, Rel, R, [&](uint64_t Child) {
    return Child % 2 == 1 ? std::pair<uint64_t, uint64_t>(0, Half)
                          : std::pair<uint64_t, uint64_t>(Half, Bytes);
  });
  // The exchange: odd r with r + 1, or the root with the last odd r.
  P.Steps.newStep();
  P.Used.push_back(true);
  if (R == NoRank)
    return P;
  if (R % 2 == 1) {
    if (R + 1 < N) {
      addRange(P.Steps, Me, Rel.actual(R + 1), 0, Half);
      addRange(P.Steps, Rel.actual(R + 1), Me, Half, Bytes);
    } else {
      addRange(P.Steps, Root, Me, Half, Bytes);
    }
  } else if (R != 0) {
    addRange(P.Steps, Rel.actual(R - 1), Me, 0, Half);
    addRange(P.Steps, Me, Rel.actual(R - 1), Half, Bytes);
  } else if (N % 2 == 0) {
    addRange(P.Steps, Me, Rel.actual(N - 1), Half, Bytes);
  }
  return P;
}

RankPart choreo::scatterAllgatherBcastRank(uint32_t N, uint64_t Bytes,
                                           uint32_t Root,
                                           IntraAlgorithm Allgather,
                                           uint32_t Me) {
  if (N < 2 || Bytes == 0)
    return {};
  Relative Rel{N, Root};
  uint64_t R = Me == NoRank ? NoRank : Rel.of(Me);
  RankPart P = scatterRank(N, Bytes, Rel, R);
  if (R == NoRank) {
    for (unsigned I = 0; I < intraAllgatherSteps(Allgather, N); ++I) {
      P.Steps.newStep();
      P.Used.push_back(true);
    }
    return P;
  }
  uint64_t Chunk = ceilDiv(Bytes, N);
  std::vector<uint64_t> Counts(N);
  for (uint64_t I = 0; I < N; ++I)
    Counts[I] =
        clippedStart(I + 1, Chunk, Bytes) - clippedStart(I, Chunk, Bytes);
  // The allgather over relative ranks, appended in place, then every op
  // renamed to actual ranks (an N-entry map; the scatter's ops are actual
  // already, so they are renamed back to relative first).
  std::vector<Rank> ToActual(N), ToRelative(N);
  for (uint64_t I = 0; I < N; ++I) {
    ToActual[I] = Rel.actual(I);
    ToRelative[Rel.actual(I)] = Rank(I);
  }
  unsigned Scatter = P.Steps.numSteps();
  P.Steps.relabel(ToRelative);
  appendIntraAllgathervRank(P.Steps, Allgather, Counts, uint32_t(R));
  P.Steps.relabel(ToActual);
  P.Used.resize(Scatter + intraAllgatherSteps(Allgather, N), true);
  return P;
}

RankPart choreo::scatterRecursiveDoublingBcastRank(uint32_t N, uint64_t Bytes,
                                                   uint32_t Root, uint32_t Me) {
  if (N < 2 || Bytes == 0)
    return {};
  Relative Rel{N, Root};
  const uint64_t R = Me == NoRank ? NoRank : Rel.of(Me);
  RankPart P = scatterRank(N, Bytes, Rel, R);
  const uint64_t S = ceilDiv(Bytes, N);
  // Before the exchange at mask 2^I every relative rank holds its 2^I
  // subtree's chunks (those that exist); a rank without a partner gets the
  // partner subtree's chunks from the ranks of its subtree that have them,
  // by recursive halving (MPICH's non-power-of-two code, as Bcast.cpp).
  auto Clip = [&](uint64_t Chunk) { return clippedStart(Chunk, S, Bytes); };
  auto Subtree = [&](uint64_t Root, uint64_t Mask) {
    return std::pair(Clip(Root), Clip(std::min<uint64_t>(Root + Mask, N)));
  };
  unsigned I = 0;
  for (uint64_t Mask = 1; Mask < N; Mask <<= 1, ++I) {
    P.Steps.newStep();
    P.Used.push_back(true);
    uint64_t Partner = R ^ Mask;
    if (R != NoRank && Partner < N) {
      auto Send = Subtree(R >> I << I, Mask),
           Recv = Subtree(Partner >> I << I, Mask);
      auto Out = [&] {
        addRange(P.Steps, Me, Rel.actual(Partner), Send.first, Send.second);
      };
      auto In = [&] {
        addRange(P.Steps, Rel.actual(Partner), Me, Recv.first, Recv.second);
      };
      if (R < Partner) {
        Out();
        In();
      } else {
        In();
        Out();
      }
    }
    // Fill-in steps follow when some partner subtree is incomplete: the
    // last subtree's or the one before it's (the largest partner roots).
    uint64_t LastRoot = (uint64_t(N) - 1) >> I << I;
    bool FillIn = false;
    for (uint64_t MyRoot :
         {LastRoot, LastRoot >= Mask ? LastRoot - Mask : LastRoot})
      FillIn |= (MyRoot ^ Mask) + Mask > N;
    if (!FillIn)
      continue;
    // The one subtree that fills in: complete, with a partner subtree of
    // Completed < Mask ranks.
    uint64_t FillRoot = (uint64_t(N) - 1) >> (I + 1) << (I + 1);
    int64_t Completed = int64_t(N) - int64_t(FillRoot) - int64_t(Mask);
    bool Fills = Completed > 0 && Completed < int64_t(Mask);
    auto [PLo, PHi] = Subtree(FillRoot + Mask, Mask);
    bool Carries = PLo < PHi;
    // Sender X of the fill-in at Tmp (K = log2 Tmp), as Bcast.cpp tests it.
    auto Sends = [&](uint64_t X, uint64_t Tmp, unsigned K) {
      uint64_t MyRoot = X >> I << I;
      if (((X ^ Mask) >> I << I) + Mask <= N)
        return false;
      int64_t Done = int64_t(N) - int64_t(MyRoot) - int64_t(Mask);
      uint64_t Dst = X ^ Tmp;
      int64_t TreeRoot = int64_t(X >> K << K);
      return Dst > X && int64_t(X) < TreeRoot + Done &&
             int64_t(Dst) >= TreeRoot + Done;
    };
    unsigned K = I - 1;
    for (uint64_t Tmp = Mask >> 1; Tmp > 0; Tmp >>= 1, --K) {
      P.Steps.newStep();
      P.Used.push_back(Fills && Carries && Completed < int64_t(2 * Tmp));
      if (R == NoRank || R >> I << I != FillRoot)
        continue;
      uint64_t Other = R ^ Tmp;
      if (Other > R && Sends(R, Tmp, K))
        addRange(P.Steps, Me, Rel.actual(Other), PLo, PHi);
      else if (Other < R && Sends(Other, Tmp, K))
        addRange(P.Steps, Rel.actual(Other), Me, PLo, PHi);
    }
  }
  return P;
}

RankPart choreo::mpichBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root,
                                uint32_t Me) {
  switch (mpichBcastChoice(N, Bytes)) {
  case MpichBcast::Binomial:
    return binomialBcastRank(N, Bytes, Root, Me);
  case MpichBcast::ScatterRecursiveDoubling:
    return scatterAllgatherBcastRank(N, Bytes, Root,
                                     IntraAlgorithm::RecursiveDoubling, Me);
  case MpichBcast::ScatterRing:
    return scatterAllgatherBcastRank(N, Bytes, Root, IntraAlgorithm::Ring, Me);
  }
  return {};
}
