//===- generators/blocks/Exchange.cpp - Exchange by global byte index -----===//
///
/// \file
/// The intergroup exchange of Kang et al.'s Algorithm 2 (seed 000, Section
/// 4.1): each group's bytes, concatenated in rank order, are cut into as
/// many near-equal segments as the other group has members, and every piece
/// of a message that falls in a segment goes to the segment's owner, in the
/// paper's order. Used by inter-allgatherv-kang, and by inter-allgather-kang
/// to keep Theorem 1's bound when q does not divide p (docs/errata.md).
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Blocks.h"

#include "llvm/ADT/STLExtras.h"

using namespace choreo;

namespace {

/// The exchange in one direction: senders Src (message sizes SizesSrc, in
/// buffer Buf) to the owners Dst of the segments of the concatenation.
/// Appends the ops and their orders; returns each owner's segment size.
std::vector<uint64_t>
addDirection(const Group &Src, llvm::ArrayRef<uint64_t> SizesSrc,
             const Group &Dst, BufferId Buf, std::vector<OrderedOp> &Ops,
             std::vector<std::vector<size_t>> &SendOrder,
             std::vector<std::vector<size_t>> &RecvOrder, SegmentCuts Cuts) {
  std::vector<uint64_t> Off = prefixSums(SizesSrc);
  uint64_t K = Off.back(), N = Dst.Members.size();
  auto segStart = [&](uint64_t I) {
    return Cuts == SegmentCuts::Proportional ? proportionalStart(K, N, I)
                                             : partStart(K, N, I);
  };
  std::vector<uint64_t> SegSize(N);
  for (uint64_t Seg = 0; Seg < N; ++Seg)
    SegSize[Seg] = segStart(Seg + 1) - segStart(Seg);
  // Pieces per sender, in the order of their owners (= sender order).
  std::vector<std::vector<size_t>> PiecesOf(Src.Members.size());
  // Senders per owner, in rank order.
  std::vector<std::vector<size_t>> PiecesFor(N);
  uint64_t S = 0; // the segment holding byte Lo; messages are consecutive
  for (size_t I = 0; I < Src.Members.size(); ++I) {
    for (uint64_t Lo = Off[I], Hi = Off[I + 1]; Lo < Hi;) {
      while (segStart(S + 1) <= Lo)
        ++S;
      uint64_t PieceHi = std::min(Hi, segStart(S + 1));
      OrderedOp O{Src.Members[I], Dst.Members[S], {}};
      addPiece(O.Blocks, Buf, Lo, PieceHi);
      PiecesOf[I].push_back(Ops.size());
      PiecesFor[S].push_back(Ops.size());
      Ops.push_back(std::move(O));
      Lo = PieceHi;
    }
  }
  std::vector<bool> MultiTarget(Ops.size(), false);
  for (const std::vector<size_t> &Pieces : PiecesOf)
    for (size_t O : Pieces)
      MultiTarget[O] = Pieces.size() > 1;
  for (size_t I = 0; I < Src.Members.size(); ++I)
    SendOrder[Src.Members[I]] = PiecesOf[I];
  for (uint64_t Owner = 0; Owner < N; ++Owner) {
    const std::vector<size_t> &From = PiecesFor[Owner];
    std::vector<size_t> Order;
    if (From.size() <= 1) {
      Order = From;
    } else {
      size_t First = From.front(), Last = From.back();
      bool FirstMulti = MultiTarget[First], LastMulti = MultiTarget[Last];
      if (LastMulti)
        Order.push_back(Last);
      for (size_t K2 = 0; K2 < From.size(); ++K2) {
        bool IsFirst = K2 == 0, IsLast = K2 + 1 == From.size();
        if ((IsFirst && FirstMulti) || (IsLast && LastMulti))
          continue;
        Order.push_back(From[K2]);
      }
      if (FirstMulti)
        Order.push_back(First);
    }
    RecvOrder[Dst.Members[Owner]] = std::move(Order);
  }
  return SegSize;
}
} // namespace

llvm::Expected<StepList>
choreo::balancedExchange(Rank NumRanks, const Group &A,
                         llvm::ArrayRef<uint64_t> SizesA, const Group &B,
                         llvm::ArrayRef<uint64_t> SizesB,
                         std::vector<uint64_t> &SegOfA,
                         std::vector<uint64_t> &SegOfB, SegmentCuts Cuts) {
  std::vector<OrderedOp> Ops;
  std::vector<std::vector<size_t>> SendOrder(NumRanks), RecvOrder(NumRanks);
  // A's bytes (buffer 0) to B's segment owners, B's (buffer 1) to A's.
  SegOfB =
      addDirection(A, SizesA, B, /*Buf=*/0, Ops, SendOrder, RecvOrder, Cuts);
  SegOfA =
      addDirection(B, SizesB, A, /*Buf=*/1, Ops, SendOrder, RecvOrder, Cuts);
  return scheduleInOrder(Ops, SendOrder, RecvOrder);
}

namespace {

/// One direction of the exchange as flat arrays: piece x goes from sender
/// Sender[x] to owner Owner[x] with bytes [Lo[x], Hi[x]); pieces are
/// numbered as addDirection numbers its ops (senders in order, each one's
/// pieces in owner order), so an owner's pieces are consecutive.
struct Direction {
  std::vector<uint32_t> Sender, Owner;
  std::vector<uint64_t> Lo, Hi;
  std::vector<uint64_t> SegSize;
};

Direction piecesOf(llvm::ArrayRef<uint64_t> SizesSrc, uint64_t NumDst,
                   SegmentCuts Cuts) {
  Direction D;
  std::vector<uint64_t> Off = prefixSums(SizesSrc);
  uint64_t K = Off.back(), N = NumDst;
  auto SegStart = [&](uint64_t I) {
    return Cuts == SegmentCuts::Proportional ? proportionalStart(K, N, I)
                                             : partStart(K, N, I);
  };
  D.SegSize.resize(N);
  for (uint64_t Seg = 0; Seg < N; ++Seg)
    D.SegSize[Seg] = SegStart(Seg + 1) - SegStart(Seg);
  // At most one piece per sender and one more per segment boundary.
  size_t Most = SizesSrc.size() + N;
  D.Sender.reserve(Most);
  D.Owner.reserve(Most);
  D.Lo.reserve(Most);
  D.Hi.reserve(Most);
  uint64_t S = 0;
  for (size_t I = 0; I < SizesSrc.size(); ++I)
    for (uint64_t Lo = Off[I], Hi = Off[I + 1]; Lo < Hi;) {
      while (SegStart(S + 1) <= Lo)
        ++S;
      uint64_t PieceHi = std::min(Hi, SegStart(S + 1));
      D.Sender.push_back(uint32_t(I));
      D.Owner.push_back(uint32_t(S));
      D.Lo.push_back(Lo);
      D.Hi.push_back(PieceHi);
      Lo = PieceHi;
    }
  return D;
}

/// The step of every piece of D: one after the later of its predecessors
/// in its sender's order (the previous piece) and in its owner's order
/// (addDirection's: the last piece first when its sender is multi-target,
/// the first piece last when its sender is), by Kahn's algorithm over at
/// most two successors per piece.
std::vector<uint32_t> stepsOf(const Direction &D) {
  size_t N = D.Sender.size();
  constexpr uint32_t None = ~0u;
  std::vector<uint32_t> NextSend(N, None), NextRecv(N, None), Step(N, 0);
  std::vector<uint8_t> Pending(N, 0);
  auto Multi = [&](size_t X) {
    return (X > 0 && D.Sender[X - 1] == D.Sender[X]) ||
           (X + 1 < N && D.Sender[X + 1] == D.Sender[X]);
  };
  for (size_t X = 1; X < N; ++X)
    if (D.Sender[X] == D.Sender[X - 1]) {
      NextSend[X - 1] = uint32_t(X);
      ++Pending[X];
    }
  for (size_t F = 0; F < N;) {
    size_t L = F;
    while (L + 1 < N && D.Owner[L + 1] == D.Owner[F])
      ++L;
    // The owner's order over pieces F..L.
    size_t Prev = None;
    auto Link = [&](size_t X) {
      if (Prev != None) {
        NextRecv[Prev] = uint32_t(X);
        ++Pending[X];
      }
      Prev = X;
    };
    if (L > F) {
      bool FirstMulti = Multi(F), LastMulti = Multi(L);
      if (LastMulti)
        Link(L);
      for (size_t X = F; X <= L; ++X)
        if (!((X == F && FirstMulti) || (X == L && LastMulti)))
          Link(X);
      if (FirstMulti)
        Link(F);
    }
    F = L + 1;
  }
  std::vector<uint32_t> Ready;
  Ready.reserve(N);
  for (size_t X = 0; X < N; ++X)
    if (Pending[X] == 0)
      Ready.push_back(uint32_t(X));
  while (!Ready.empty()) {
    uint32_t X = Ready.back();
    Ready.pop_back();
    for (uint32_t Y : {NextSend[X], NextRecv[X]})
      if (Y != None) {
        Step[Y] = std::max(Step[Y], Step[X] + 1);
        if (--Pending[Y] == 0)
          Ready.push_back(Y);
      }
  }
  return Step;
}

} // namespace

StepList choreo::balancedExchangeRank(
    const Group &A, llvm::ArrayRef<uint64_t> SizesA, const Group &B,
    llvm::ArrayRef<uint64_t> SizesB, std::vector<uint64_t> &SegOfA,
    std::vector<uint64_t> &SegOfB, SegmentCuts Cuts, Rank Me) {
  // A's bytes (buffer 0) to B's owners, then B's (buffer 1) to A's: the
  // whole exchange numbers its ops in that order.
  struct Mine {
    uint32_t Step;
    size_t Index;
    Rank Src, Dst;
    Block Bl;
  };
  std::vector<Mine> Ops;
  uint32_t Steps = 0;
  size_t Base = 0;
  for (int Dir = 0; Dir < 2; ++Dir) {
    const Group &Src = Dir == 0 ? A : B, &Dst = Dir == 0 ? B : A;
    Direction D =
        piecesOf(Dir == 0 ? SizesA : SizesB, Dst.Members.size(), Cuts);
    std::vector<uint32_t> Step = stepsOf(D);
    for (size_t X = 0; X < Step.size(); ++X) {
      Steps = std::max(Steps, Step[X] + 1);
      Rank From = Src.Members[D.Sender[X]], To = Dst.Members[D.Owner[X]];
      if (From != Me && To != Me)
        continue;
      Block Bl;
      Bl.Buf = BufferId(Dir);
      Bl.Lo = D.Lo[X];
      Bl.Hi = D.Hi[X];
      Ops.push_back({Step[X], Base + X, From, To, Bl});
    }
    Base += Step.size();
    (Dir == 0 ? SegOfB : SegOfA) = std::move(D.SegSize);
  }
  llvm::sort(Ops, [](const Mine &X, const Mine &Y) {
    return std::pair(X.Step, X.Index) < std::pair(Y.Step, Y.Index);
  });
  StepList L;
  size_t At = 0;
  for (uint32_t S = 0; S < Steps; ++S) {
    L.newStep();
    for (; At < Ops.size() && Ops[At].Step == S; ++At)
      L.addOp(Ops[At].Src, Ops[At].Dst, Ops[At].Bl);
  }
  return L;
}

RankPart choreo::allgathersSideBySideRank(IntraAlgorithm Intra, const Group &A,
                                          llvm::ArrayRef<uint64_t> SegOfA,
                                          const Group &B,
                                          llvm::ArrayRef<uint64_t> SegOfB,
                                          Rank Me) {
  bool InA = llvm::is_contained(A.Members, Me);
  const Group &Mine = InA ? A : B;
  uint32_t Local = llvm::find(Mine.Members, Me) - Mine.Members.begin();
  RankPart Own = intraAllgathervPart(Intra, InA ? SegOfA : SegOfB, Local);
  bool AnyA = llvm::any_of(SegOfA, [](uint64_t X) { return X > 0; }),
       AnyB = llvm::any_of(SegOfB, [](uint64_t X) { return X > 0; });
  unsigned StepsA = intraAllgatherSteps(Intra, A.Members.size()),
           StepsB = intraAllgatherSteps(Intra, B.Members.size());
  RankPart Out;
  appendMapped(Out.Steps, Own.Steps, [&](Rank R) { return Mine.Members[R]; },
               {{BufferId(InA ? 1 : 0), 0}});
  for (unsigned I = 0; I < std::max(StepsA, StepsB); ++I) {
    if (I >= Out.Steps.numSteps())
      Out.Steps.newStep();
    Out.Used.push_back((AnyA && I < StepsA) || (AnyB && I < StepsB));
  }
  return Out;
}
