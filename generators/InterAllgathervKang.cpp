//===- generators/InterAllgathervKang.cpp - Kang et al., Algorithm 2 ------===//
///
/// \file
/// `inter-allgatherv-kang`: Algorithm 2 of seed 000 (intergroup Allgatherv
/// by global byte index), for any counts, zeros included, and any p, q.
///
/// Group A's K_A bytes are cut into q consecutive near-equal segments
/// s_{A,k} (the first K_A mod q one byte longer), segment k owned by b_k;
/// B's K_B bytes into p segments owned by a_k. Every sender sends each piece
/// of its message that falls in a segment to that segment's owner. Order
/// (Section 4.1): a multi-target sender (one with pieces for several
/// receivers) sends in its receivers' rank order; a receiver takes its
/// higher-ranked multi-target sender first, then its exclusive senders in
/// rank order, then its lower-ranked multi-target sender. Steps follow from
/// these orders as early as they allow (scheduleInOrder). Then A allgathers
/// B's segments and B allgathers A's, concurrently (--intra ring | bruck).
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

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
                                   std::vector<std::vector<size_t>> &RecvOrder) {
  std::vector<uint64_t> Off = prefixSums(SizesSrc);
  uint64_t K = Off.back(), N = Dst.Members.size();
  std::vector<uint64_t> SegSize(N);
  for (uint64_t Seg = 0; Seg < N; ++Seg)
    SegSize[Seg] = partStart(K, N, Seg + 1) - partStart(K, N, Seg);
  // Pieces per sender, in the order of their owners (= sender order).
  std::vector<std::vector<size_t>> PiecesOf(Src.Members.size());
  // Senders per owner, in rank order.
  std::vector<std::vector<size_t>> PiecesFor(N);
  uint64_t S = 0; // the segment holding byte Lo; messages are consecutive
  for (size_t I = 0; I < Src.Members.size(); ++I) {
    for (uint64_t Lo = Off[I], Hi = Off[I + 1]; Lo < Hi;) {
      while (partStart(K, N, S + 1) <= Lo)
        ++S;
      uint64_t PieceHi = std::min(Hi, partStart(K, N, S + 1));
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

class InterAllgathervKang final : public Generator {
public:
  llvm::StringRef id() const override { return "inter-allgatherv-kang"; }
  llvm::StringRef summary() const override {
    return "Kang et al. Algorithm 2: exchange by global byte index in "
           "near-equal segments, ordered sends, then concurrent intragroup "
           "allgathers";
  }
  llvm::ArrayRef<const char *> options() const override {
    static const char *Opts[] = {"p",        "q",        "bytes-a", "bytes-b",
                                 "counts-a", "counts-b", "intra"};
    return Opts;
  }

  llvm::Expected<Schedule> build(const GenParams &Prm) const override {
    auto Sizes = intergroupSizes(Prm);
    if (!Sizes)
      return Sizes.takeError();
    auto Intra = intraOption(Prm, IntraAlgorithm::Ring);
    if (!Intra)
      return Intra.takeError();
    uint64_t P = Sizes->A.size(), Q = Sizes->B.size();
    uint64_t Est = 2 * (P + Q) + (*Intra == IntraAlgorithm::Ring
                                      ? P * (P - 1) + Q * (Q - 1)
                                      : (P + Q) * (1 + ceilLog2(P + Q)));
    if (auto E = checkOpBudget(id(), Est))
      return E;

    Schedule S;
    S.Kind = Sizes->Irregular ? Collective::InterAllgatherv
                              : Collective::InterAllgather;
    setIntergroup(S, Sizes->A, Sizes->B);
    const Group &A = S.Groups[0], &B = S.Groups[1];
    std::vector<OrderedOp> Ops;
    std::vector<std::vector<size_t>> SendOrder(S.NumRanks),
        RecvOrder(S.NumRanks);
    // A's bytes to B's segment owners, B's bytes to A's.
    std::vector<uint64_t> SegOfB =
        addDirection(A, Sizes->A, B, /*Buf=*/0, Ops, SendOrder, RecvOrder);
    std::vector<uint64_t> SegOfA =
        addDirection(B, Sizes->B, A, /*Buf=*/1, Ops, SendOrder, RecvOrder);
    auto Exchange = scheduleInOrder(Ops, SendOrder, RecvOrder);
    if (!Exchange)
      return Exchange.takeError();
    // Member k of A holds segment k of buffer B; member k of B segment k of
    // buffer A, in rank order: the allgathers need no reordering.
    StepList Final =
        intraAllgatherv(*Intra, SegOfA).relabeled(A.Members, {{1, 0}});
    Final.mergeAlongside(
        intraAllgatherv(*Intra, SegOfB).relabeled(B.Members, {{0, 0}}));
    StepList L = std::move(*Exchange);
    L.append(std::move(Final));
    L.dropEmptySteps();
    S.Steps = std::move(L);
    return S;
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterAllgathervKang() {
  return std::make_unique<InterAllgathervKang>();
}
