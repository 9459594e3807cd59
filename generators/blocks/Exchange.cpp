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

using namespace choreo;

namespace {

/// The exchange in one direction: senders Src (message sizes SizesSrc, in
/// buffer Buf) to the owners Dst of the segments of the concatenation.
/// Appends the ops and their orders; returns each owner's segment size.
std::vector<uint64_t> addDirection(const Group &Src,
                                   llvm::ArrayRef<uint64_t> SizesSrc,
                                   const Group &Dst, BufferId Buf,
                                   std::vector<OrderedOp> &Ops,
                                   std::vector<std::vector<size_t>> &SendOrder,
                                   std::vector<std::vector<size_t>> &RecvOrder,
                                   SegmentCuts Cuts) {
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
  SegOfB = addDirection(A, SizesA, B, /*Buf=*/0, Ops, SendOrder, RecvOrder,
                        Cuts);
  SegOfA = addDirection(B, SizesB, A, /*Buf=*/1, Ops, SendOrder, RecvOrder,
                        Cuts);
  return scheduleInOrder(Ops, SendOrder, RecvOrder);
}
