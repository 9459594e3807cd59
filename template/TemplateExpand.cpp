//===- template/TemplateExpand.cpp - Instantiating a template -----------===//
///
/// \file
/// The expansion of a template into a Schedule for concrete parameters:
/// groups and sizes from the header lines, then every stage's steps, ops
/// from the loop nests and guards, blocks from the message families (a
/// member's contribution, or a part of it) or, for reductions, from the
/// segments with the contributor set the sender `holds`.
///
//===----------------------------------------------------------------------===//

#include "template/Template.h"
#include "template/TemplateInternal.h"

#include "ir/PairMatrix.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using llvm::formatv;

//===----------------------------------------------------------------------===//
// Expansion
//===----------------------------------------------------------------------===//

namespace {

class Expander {
public:
  Expander(const Template &T, Env V) : T(T), V(std::move(V)) {}

  llvm::Expected<Schedule> run(const std::vector<uint64_t> &SizesA,
                               const std::vector<uint64_t> &SizesB) {
    auto N = evalExpr(*T.Ranks, V, T.Source);
    if (!N)
      return N.takeError();
    if (*N <= 0 || *N > INT32_MAX)
      return located(T.Source, T.Ranks->Line,
                     formatv("the template has {0} ranks (`{1}`); expected 1 "
                             "to {2}",
                             *N, T.Ranks->str(), INT32_MAX));
    S.Kind = T.Kind;
    S.NumRanks = *N;
    S.Topo = T.Ring ? Topology::ring() : Topology::full();
    for (const GroupDecl &G : T.Groups) {
      auto Lo = evalExpr(*G.Lo, V, T.Source);
      if (!Lo)
        return Lo.takeError();
      auto Hi = evalExpr(*G.Hi, V, T.Source);
      if (!Hi)
        return Hi.takeError();
      if (*Lo < 0 || *Hi < *Lo || *Hi > *N)
        return located(T.Source, G.Line,
                       formatv("group {0} is [{1}, {2}), not a range of the "
                               "{3} ranks",
                               G.Name, *Lo, *Hi, *N));
      Group Gr{G.Name, {}};
      for (int64_t R = *Lo; R < *Hi; ++R)
        Gr.Members.push_back(R);
      S.Groups.push_back(Gr);
    }
    bool Bcast = specOf(T.Kind).Data == DataKind::Broadcast;
    if (T.isReduction())
      return reduction(SizesA);
    if (T.Root) { // a broadcast's or a gather's
      auto Root = evalExpr(*T.Root, V, T.Source);
      if (!Root)
        return Root.takeError();
      if (*Root < 0 || *Root >= *N)
        return makeDiagError("template", formatv("root {0} is not a rank of "
                                                 "the {1}",
                                                 *Root, *N));
      S.Root = Rank(*Root);
    }
    // An alltoall of equal blocks: SizesA is the block's bytes.
    if (T.Kind == Collective::Alltoall) {
      if (SizesA.size() != 1)
        return makeDiagError("template",
                             formatv("an alltoall takes one size (the bytes "
                                     "of every block), {0} were given",
                                     SizesA.size()));
      setUniformBlock(S, SizesA[0]);
      if (auto E = stages())
        return std::move(E);
      return std::move(S);
    }
    for (const Group &G : S.Groups) {
      const std::vector<uint64_t> &Sz = G.Name == "A"   ? SizesA
                                        : G.Name == "B" ? SizesB
                                                        : SizesA;
      // A broadcast's sizes are the vector's length alone.
      if (Bcast) {
        if (Sz.size() != 1)
          return makeDiagError("template",
                               formatv("a bcast takes one size (the vector "
                                       "length), {0} were given",
                                       Sz.size()));
        S.Sizes.push_back({G.Name, Sz});
        continue;
      }
      if (Sz.size() != G.Members.size())
        return makeDiagError("template",
                             formatv("group {0} has {1} members but {2} sizes "
                                     "were given",
                                     G.Name, G.Members.size(), Sz.size()));
      S.Sizes.push_back({G.Name, Sz});
    }
    if (auto E = stages())
      return std::move(E);
    return std::move(S);
  }

  uint64_t ElementBytes = 1;

private:
  const Template &T;
  Env V;
  Schedule S;
  /// Reductions: the segments' cut points, the stage being expanded and
  /// the contributor sets interned so far, by (lo, len).
  std::vector<uint64_t> Cuts;
  /// A bit-reversed segment family's bits (K = 2^SegBits parts).
  unsigned SegBits = 0;
  unsigned CurStage = 0;
  std::map<std::pair<int64_t, int64_t>, uint32_t> ContribOf;

  /// The steps of every stage, from the op lines.
  llvm::Error stages() {
    for (unsigned K = 0; K < T.Stages.size(); ++K) {
      const Stage &St = T.Stages[K];
      CurStage = K;
      auto Steps = evalExpr(*St.Steps, V, T.Source);
      if (!Steps)
        return Steps.takeError();
      if (*Steps < 0)
        return located(T.Source, St.Line,
                       formatv("stage {0} has {1} steps (`{2}`)", St.Name,
                               *Steps, St.Steps->str()));
      for (int64_t I = 0; I < *Steps; ++I) {
        S.Steps.newStep();
        V["i"] = I;
        for (const OpGen &O : St.Ops)
          if (auto E = loops(O, 0))
            return E;
      }
    }
    V.erase("i");
    S.Steps.dropEmptySteps();
    return llvm::Error::success();
  }

  /// A reduction: the vector of n = SizesA[0] bytes in K segments of whole
  /// elements, every block with the sender's contributor set.
  llvm::Expected<Schedule> reduction(const std::vector<uint64_t> &SizesA) {
    const CollectiveSpec &Spec = specOf(T.Kind);
    if (SizesA.size() != 1)
      return makeDiagError("template",
                           formatv("a {0} takes one size (the vector length), "
                                   "{1} were given",
                                   Spec.Name, SizesA.size()));
    uint64_t N = SizesA[0];
    if (ElementBytes == 0 || N % ElementBytes != 0)
      return makeDiagError("template",
                           formatv("--element-bytes {0} does not divide the "
                                   "vector's {1} bytes",
                                   ElementBytes, N));
    const MessageFamily &F = T.Messages.front();
    auto Lo = evalExpr(*F.Index[0].Lo, V, T.Source);
    if (!Lo)
      return Lo.takeError();
    auto K = evalExpr(*F.Parts, V, T.Source);
    if (!K)
      return K.takeError();
    if (*Lo != 0 || *K < 1 ||
        (Spec.Result == ResultRule::OwnSlice && *K != int64_t(S.NumRanks)))
      return located(T.Source, F.Line,
                     formatv("segment {0} is [{1}, {2}); expected [0, K) with "
                             "K >= 1{3}",
                             F.Name, *Lo, *K,
                             Spec.Result == ResultRule::OwnSlice
                                 ? " and K = ranks (one slice per rank)"
                                 : ""));
    if (F.BitReversed) {
      if (*K & (*K - 1))
        return located(T.Source, F.Line,
                       formatv("segment {0} is bitreversed but has {1} "
                               "parts, not a power of two",
                               F.Name, *K));
      SegBits = llvm::countr_zero(uint64_t(*K));
    }
    uint64_t Elems = N / ElementBytes;
    for (int64_t J = 0; J <= *K; ++J)
      Cuts.push_back(partStart(Elems, *K, J) * ElementBytes);
    S.Sizes.push_back({"all", {N}});
    if (Spec.Result == ResultRule::OwnSlice) {
      std::vector<uint64_t> Slices;
      for (int64_t J = 0; J < *K; ++J)
        Slices.push_back(Cuts[J + 1] - Cuts[J]);
      S.Sizes.push_back({"slices", Slices});
    }
    if (T.Root) {
      auto Root = evalExpr(*T.Root, V, T.Source);
      if (!Root)
        return Root.takeError();
      if (*Root < 0 || *Root >= int64_t(S.NumRanks))
        return makeDiagError("template", formatv("root {0} is not a rank of "
                                                 "the {1}",
                                                 *Root, S.NumRanks));
      S.Root = Rank(*Root);
    }
    if (!T.Commutative)
      S.ReduceOp = ReductionOp{false};
    if (auto E = stages())
      return std::move(E);
    return std::move(S);
  }

  /// The block of segment Seg sent by Src (with Src's contributor set).
  llvm::Error segmentBlock(const OpGen &O, int64_t Seg, int64_t Src,
                           llvm::SmallVectorImpl<choreo::Block> &Pieces) {
    if (Seg < 0 || Seg + 1 >= int64_t(Cuts.size()))
      return makeDiagError("template",
                           formatv("{0}: segment {1}[{2}] does not exist",
                                   O.Label, O.Family, Seg));
    auto H = holdsAt(T, CurStage, V, V.at("i"), Src, Seg, O.FromAcc);
    if (!H)
      return H.takeError();
    auto [Lo, Len] = *H;
    int64_t N = S.NumRanks;
    if (Lo < 0 || Lo >= N || Len < 1 || Len > N)
      return makeDiagError("template",
                           formatv("{0}: at step {1} of stage {2} rank {3} "
                                   "holds {4}[{5}] from {6} len {7}, not an "
                                   "interval of the {8} ranks",
                                   O.Label, V.at("i"), T.Stages[CurStage].Name,
                                   Src, O.Family, Seg, Lo, Len, N));
    auto [It, New] = ContribOf.try_emplace({Lo, Len}, 0);
    if (New) {
      RankSet Set(Lo, std::min(Lo + Len, N));
      if (Lo + Len > N)
        Set.insert(0, Lo + Len - N);
      It->second = S.Steps.addContrib(Set);
    }
    // Bit-reversed: segment Seg is part rev(Seg) of the vector.
    int64_t Part = Seg;
    if (T.Messages.front().BitReversed)
      Part = SegBits ? int64_t(llvm::reverseBits(uint64_t(Seg)) >>
                               (64 - SegBits))
                     : 0;
    uint64_t BLo = Cuts[Part], BHi = Cuts[Part + 1];
    if (BHi <= BLo)
      return llvm::Error::success();
    // Contiguous bytes of one set, both combined or both not, are one block.
    if (!Pieces.empty() && Pieces.back().Hi == BLo &&
        Pieces.back().Contrib == It->second &&
        Pieces.back().Reduce == O.Combine) {
      Pieces.back().Hi = BHi;
      return llvm::Error::success();
    }
    choreo::Block B;
    B.Buf = 0;
    B.Lo = BLo;
    B.Hi = BHi;
    B.Reduce = O.Combine;
    B.Contrib = It->second;
    B.setAcc(O.FromAcc, O.IntoMask);
    Pieces.push_back(B);
    return llvm::Error::success();
  }

  /// A bundle of bit-reversed segments comes out of byte order: in byte
  /// order, contiguous bytes of one set (both combined or both not) one
  /// block, as for segments in order.
  static void
  sortBitReversedPieces(llvm::SmallVectorImpl<choreo::Block> &Pieces) {
    llvm::sort(Pieces, [](const choreo::Block &A, const choreo::Block &B) {
      return A.Lo < B.Lo;
    });
    llvm::SmallVector<choreo::Block, 2> Out;
    for (const choreo::Block &B : Pieces) {
      if (!Out.empty() && Out.back().Hi == B.Lo &&
          Out.back().Contrib == B.Contrib && Out.back().Reduce == B.Reduce) {
        Out.back().Hi = B.Hi;
        continue;
      }
      Out.push_back(B);
    }
    Pieces.assign(Out.begin(), Out.end());
  }

  llvm::Error loops(const OpGen &O, size_t Depth) {
    if (Depth == O.Loops.size())
      return emit(O);
    const Range &R = O.Loops[Depth];
    auto Lo = evalExpr(*R.Lo, V, T.Source);
    if (!Lo)
      return Lo.takeError();
    auto Hi = evalExpr(*R.Hi, V, T.Source);
    if (!Hi)
      return Hi.takeError();
    for (int64_t X = *Lo; X < *Hi; ++X) {
      V[R.Var] = X;
      if (auto E = loops(O, Depth + 1))
        return E;
    }
    V.erase(R.Var);
    return llvm::Error::success();
  }

  llvm::Error emit(const OpGen &O) {
    if (O.Guard) {
      auto G = evalCond(*O.Guard, V, T.Source);
      if (!G)
        return G.takeError();
      if (!*G)
        return llvm::Error::success();
    }
    auto Src = evalExpr(*O.Src, V, T.Source);
    if (!Src)
      return Src.takeError();
    auto Dst = evalExpr(*O.Dst, V, T.Source);
    if (!Dst)
      return Dst.takeError();
    llvm::SmallVector<choreo::Block, 2> Pieces;
    if (auto E = bundle(O, 0, Pieces, *Src))
      return E;
    if (T.family(O.Family)->BitReversed)
      sortBitReversedPieces(Pieces);
    // Ranks outside the ring are kept (as huge numbers they fail the
    // structural rank check with the op's JSON pointer).
    auto AsRank = [](int64_t R) {
      return R < 0 || R > INT32_MAX ? UINT32_MAX : static_cast<Rank>(R);
    };
    addOpIfAny(S.Steps, AsRank(*Src), AsRank(*Dst), Pieces);
    return llvm::Error::success();
  }

  /// The blocks of the messages the op carries, over its bundle ranges.
  llvm::Error bundle(const OpGen &O, size_t Depth,
                     llvm::SmallVectorImpl<choreo::Block> &Pieces,
                     int64_t Src) {
    if (Depth == O.Bundle.size() && O.BundleGuard) {
      auto G = evalCond(*O.BundleGuard, V, T.Source);
      if (!G)
        return G.takeError();
      if (!*G)
        return llvm::Error::success();
    }
    if (Depth < O.Bundle.size()) {
      const Range &R = O.Bundle[Depth];
      auto Lo = evalExpr(*R.Lo, V, T.Source);
      if (!Lo)
        return Lo.takeError();
      auto Hi = evalExpr(*R.Hi, V, T.Source);
      if (!Hi)
        return Hi.takeError();
      for (int64_t X = *Lo; X < *Hi; ++X) {
        V[R.Var] = X;
        if (auto E = bundle(O, Depth + 1, Pieces, Src))
          return E;
      }
      V.erase(R.Var);
      return llvm::Error::success();
    }
    const MessageFamily &F = *T.family(O.Family);
    if (F.Segment) {
      auto Seg = evalExpr(*O.MsgIndex[0], V, T.Source);
      if (!Seg)
        return Seg.takeError();
      return segmentBlock(O, *Seg, Src, Pieces);
    }
    Env MV = V;
    for (size_t K = 0; K < F.Index.size(); ++K) {
      auto X = evalExpr(*O.MsgIndex[K], V, T.Source);
      if (!X)
        return X.takeError();
      MV[F.Index[K].Var] = *X;
    }
    auto Block = messageBlock(F, MV);
    if (!Block)
      return Block.takeError();
    addPiece(Pieces, Block->Buf, Block->Lo, Block->Hi);
    return llvm::Error::success();
  }

  /// The bytes message F[index] stands for.
  llvm::Expected<choreo::Block> messageBlock(const MessageFamily &F,
                                             const Env &MV) {
    auto Member = evalExpr(*F.Member, MV, T.Source);
    if (!Member)
      return Member.takeError();
    std::optional<BufferId> Buf = S.bufferId(F.Group);
    const Group *G = S.group(F.Group);
    if (!Buf || !G)
      return makeDiagError(
          "template",
          formatv("message {0}: no buffer for group {1}", F.Name, F.Group));
    if (*Member < 0 || *Member >= int64_t(G->Members.size()))
      return makeDiagError("template",
                           formatv("message {0}: member {1} is not in group "
                                   "{2}",
                                   F.Name, *Member, F.Group));
    // An alltoall's "member" is a row: p blocks of the uniform size.
    std::vector<uint64_t> Off =
        T.Kind == Collective::Alltoall
            ? prefixSums(std::vector<uint64_t>(S.NumRanks,
                                               *uniformBlockOf(S) * S.NumRanks))
            : prefixSums(*S.sizes(F.Group));
    choreo::Block B;
    B.Buf = *Buf;
    B.Lo = Off[*Member];
    B.Hi = Off[*Member + 1];
    if (F.Part) {
      auto Part = evalExpr(*F.Part, MV, T.Source);
      if (!Part)
        return Part.takeError();
      auto Parts = evalExpr(*F.Parts, MV, T.Source);
      if (!Parts)
        return Parts.takeError();
      if (*Parts <= 0 || *Part < 0 || *Part >= *Parts)
        return makeDiagError("template", formatv("message {0}: part {1} of "
                                                 "{2}",
                                                 F.Name, *Part, *Parts));
      uint64_t K = B.Hi - B.Lo;
      uint64_t Lo = B.Lo;
      B.Lo = Lo + partStart(K, *Parts, *Part);
      B.Hi = Lo + partStart(K, *Parts, *Part + 1);
    }
    return B;
  }
};

} // namespace

llvm::Expected<Schedule>
choreo::expandTemplate(const Template &T, const Env &Params,
                       const std::vector<uint64_t> &SizesA,
                       const std::vector<uint64_t> &SizesB, uint64_t Budget,
                       uint64_t ElementBytes) {
  auto V = bindParams(T, Params);
  if (!V)
    return V.takeError();
  if (auto E = checkTemplateBudget(T, Params, Budget))
    return std::move(E);
  Expander X(T, *V);
  X.ElementBytes = ElementBytes;
  auto S = X.run(SizesA, SizesB);
  if (!S)
    return S.takeError();
  S->Algorithm = "template:" + T.Name;
  for (const std::string &P : T.Params)
    S->Params.json()[P] = Params.at(P);
  return S;
}
