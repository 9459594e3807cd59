//===- template/TemplateExpand.cpp - Instantiating a template -----------===//
///
/// \file
/// Evaluation of expressions and conditions, binding of parameters and
/// lets, and the expansion of a template into a Schedule for concrete
/// parameters.
///
//===----------------------------------------------------------------------===//

#include "template/Template.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace choreo;
using llvm::formatv;

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

static int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

/// "SOURCE:LINE: MESSAGE", with what of the location is known.
static llvm::Error located(llvm::StringRef Source, unsigned Line,
                           const llvm::Twine &Msg) {
  std::string Where = Source.str();
  if (Line)
    Where += (Where.empty() ? "line " : ":") + std::to_string(Line);
  return makeDiagError("template",
                       Where.empty() ? Msg.str() : Where + ": " + Msg.str());
}

static llvm::Error overflow(const Expr &E, llvm::StringRef Source,
                            const Env &V) {
  std::string Vals;
  for (const auto &[N, X] : V)
    Vals += (Vals.empty() ? "" : ", ") + N + " = " + std::to_string(X);
  return located(Source, E.Line,
                 formatv("`{0}` overflows 64-bit integers (at {1})", E.str(),
                         Vals));
}

llvm::Expected<int64_t> choreo::evalExpr(const Expr &E, const Env &V,
                                         llvm::StringRef Source) {
  if (E.K == Expr::Kind::Num)
    return E.Value;
  if (E.K == Expr::Kind::Var) {
    auto It = V.find(E.Name);
    if (It == V.end())
      return located(Source, E.Line, "unknown name '" + E.Name + "'");
    return It->second;
  }
  auto L = evalExpr(*E.L, V, Source);
  if (!L)
    return L.takeError();
  int64_t Out;
  if (E.K == Expr::Kind::Neg) {
    if (__builtin_sub_overflow(int64_t(0), *L, &Out))
      return overflow(E, Source, V);
    return Out;
  }
  if (E.K == Expr::Kind::Pow2) {
    if (*L < 0 || *L > MaxPow2)
      return located(Source, E.Line,
                     formatv("{0}: the exponent {1} is outside [0, {2}]",
                             E.str(), *L, MaxPow2));
    return int64_t(1) << *L;
  }
  auto R = evalExpr(*E.R, V, Source);
  if (!R)
    return R.takeError();
  switch (E.K) {
  case Expr::Kind::Add:
    if (__builtin_add_overflow(*L, *R, &Out))
      return overflow(E, Source, V);
    return Out;
  case Expr::Kind::Sub:
    if (__builtin_sub_overflow(*L, *R, &Out))
      return overflow(E, Source, V);
    return Out;
  case Expr::Kind::Mul:
    if (__builtin_mul_overflow(*L, *R, &Out))
      return overflow(E, Source, V);
    return Out;
  case Expr::Kind::Div:
  case Expr::Kind::Rem:
  case Expr::Kind::Mod:
    if (*R <= 0)
      return located(Source, E.Line,
                     formatv("{0}: divisor {1} is not positive", E.str(),
                             *R));
    if (E.K == Expr::Kind::Div)
      return floorDiv(*L, *R);
    return *L - *R * floorDiv(*L, *R);
  case Expr::Kind::Min:
    return std::min(*L, *R);
  case Expr::Kind::Max:
    return std::max(*L, *R);
  default:
    break;
  }
  return makeDiagError("template", "bad expression");
}

llvm::Expected<bool> choreo::evalCond(const Cond &C, const Env &V,
                                      llvm::StringRef Source) {
  switch (C.K) {
  case Cond::Kind::True:
    return true;
  case Cond::Kind::And:
  case Cond::Kind::Or: {
    auto L = evalCond(*C.L, V, Source);
    if (!L)
      return L.takeError();
    if ((C.K == Cond::Kind::And) != *L)
      return *L;
    return evalCond(*C.R, V, Source);
  }
  case Cond::Kind::Not: {
    auto L = evalCond(*C.L, V, Source);
    if (!L)
      return L.takeError();
    return !*L;
  }
  default:
    break;
  }
  auto A = evalExpr(*C.A, V, Source);
  if (!A)
    return A.takeError();
  auto B = evalExpr(*C.B, V, Source);
  if (!B)
    return B.takeError();
  switch (C.K) {
  case Cond::Kind::Lt:
    return *A < *B;
  case Cond::Kind::Le:
    return *A <= *B;
  case Cond::Kind::Gt:
    return *A > *B;
  case Cond::Kind::Ge:
    return *A >= *B;
  case Cond::Kind::Eq:
    return *A == *B;
  case Cond::Kind::Ne:
    return *A != *B;
  default:
    break;
  }
  return makeDiagError("template", "bad condition");
}

llvm::Expected<Env> choreo::bindParams(const Template &T, const Env &Params) {
  Env V;
  for (const std::string &P : T.Params) {
    auto It = Params.find(P);
    if (It == Params.end())
      return makeDiagError("template", formatv("{0} needs --{1}", T.Name, P));
    V[P] = It->second;
  }
  for (const auto &[Name, E] : T.Lets) {
    auto X = evalExpr(*E, V, T.Source);
    if (!X)
      return X.takeError();
    V[Name] = *X;
  }
  for (const CondPtr &C : T.Domain) {
    auto Ok = evalCond(*C, V, T.Source);
    if (!Ok)
      return Ok.takeError();
    if (!*Ok) {
      std::string Vals;
      for (const std::string &P : T.Params)
        Vals += (Vals.empty() ? "" : ", ") + P + " = " +
                std::to_string(V[P]);
      return makeDiagError("template",
                           formatv("{0} is outside the domain of {1}: `{2}` "
                                   "does not hold",
                                   Vals, T.Name, C->str()));
    }
  }
  return V;
}

llvm::Expected<std::pair<int64_t, int64_t>>
choreo::holdsAt(const Template &T, unsigned StageIdx, Env V, int64_t I,
                int64_t Rank, int64_t Seg) {
  V["i"] = I;
  for (const HoldsCase &H : T.Stages[StageIdx].Holds) {
    V[H.SegVar] = Seg;
    V[H.RankVar] = Rank;
    if (H.Guard) {
      auto G = evalCond(*H.Guard, V, T.Source);
      if (!G)
        return G.takeError();
      if (!*G)
        continue;
    }
    auto Lo = evalExpr(*H.Lo, V, T.Source);
    if (!Lo)
      return Lo.takeError();
    auto Len = evalExpr(*H.Len, V, T.Source);
    if (!Len)
      return Len.takeError();
    return std::make_pair(*Lo, *Len);
  }
  return makeDiagError("template",
                       formatv("{0}: stage {1} has no 'holds' case for rank "
                               "{2}, segment {3}",
                               T.Source, T.Stages[StageIdx].Name, Rank, Seg));
}

//===----------------------------------------------------------------------===//
// The size of an expansion
//===----------------------------------------------------------------------===//

namespace {

bool mentions(const Expr &E, llvm::StringRef Name) {
  if (E.K == Expr::Kind::Var)
    return E.Name == Name;
  return (E.L && mentions(*E.L, Name)) || (E.R && mentions(*E.R, Name));
}

bool rangesMention(llvm::ArrayRef<Range> Rs, llvm::StringRef Name) {
  return llvm::any_of(Rs, [&](const Range &R) {
    return mentions(*R.Lo, Name) || mentions(*R.Hi, Name);
  });
}

uint64_t satAdd(uint64_t A, uint64_t B) {
  return A > UINT64_MAX - B ? UINT64_MAX : A + B;
}
uint64_t satMul(uint64_t A, uint64_t B) {
  uint64_t Out;
  return __builtin_mul_overflow(A, B, &Out) ? UINT64_MAX : Out;
}

/// Counts the loop iterations of an expansion (stage steps, every loop and
/// bundle iteration, group members and ranks): at least its ops and blocks,
/// and what the expander's time is proportional to. A loop whose inner
/// ranges do not mention its variable is counted by one multiplication, so
/// the count itself stays cheap; where they do, it iterates, and stops past
/// the budget.
class Estimator {
public:
  Estimator(const Template &T, Env V, uint64_t Budget)
      : T(T), V(std::move(V)), Budget(Budget) {}

  llvm::Expected<uint64_t> run() {
    auto N = evalExpr(*T.Ranks, V, T.Source);
    if (!N)
      return N.takeError();
    uint64_t Total = std::max<int64_t>(0, *N);
    for (const GroupDecl &G : T.Groups) {
      auto Lo = evalExpr(*G.Lo, V, T.Source);
      if (!Lo)
        return Lo.takeError();
      auto Hi = evalExpr(*G.Hi, V, T.Source);
      if (!Hi)
        return Hi.takeError();
      if (*Hi > *Lo)
        Total = satAdd(Total, uint64_t(*Hi) - uint64_t(*Lo));
    }
    for (const Stage &St : T.Stages) {
      auto Steps = evalExpr(*St.Steps, V, T.Source);
      if (!Steps)
        return Steps.takeError();
      if (*Steps <= 0)
        continue;
      bool DependsOnStep = llvm::any_of(St.Ops, [](const OpGen &O) {
        return rangesMention(O.Loops, "i") || rangesMention(O.Bundle, "i");
      });
      if (!DependsOnStep) {
        V["i"] = 0;
        auto C = stage(St);
        if (!C)
          return C.takeError();
        Total = satAdd(Total, satMul(uint64_t(*Steps), satAdd(*C, 1)));
      } else {
        for (int64_t I = 0; I < *Steps && Total <= Budget; ++I) {
          V["i"] = I;
          auto C = stage(St);
          if (!C)
            return C.takeError();
          Total = satAdd(Total, satAdd(*C, 1));
        }
      }
      if (Total > Budget)
        break;
    }
    return Total;
  }

private:
  const Template &T;
  Env V;
  uint64_t Budget;

  llvm::Expected<uint64_t> stage(const Stage &St) {
    uint64_t Sum = 0;
    for (const OpGen &O : St.Ops) {
      auto C = loops(O.Loops, O.Bundle);
      if (!C)
        return C.takeError();
      Sum = satAdd(Sum, *C);
    }
    return Sum;
  }

  /// Iterations of the nest Rs (then the bundle ranges Rest).
  llvm::Expected<uint64_t> loops(llvm::ArrayRef<Range> Rs,
                                 llvm::ArrayRef<Range> Rest) {
    if (Rs.empty())
      return Rest.empty() ? uint64_t(1) : loops(Rest, {});
    const Range &R = Rs.front();
    auto Lo = evalExpr(*R.Lo, V, T.Source);
    if (!Lo)
      return Lo.takeError();
    auto Hi = evalExpr(*R.Hi, V, T.Source);
    if (!Hi)
      return Hi.takeError();
    if (*Hi <= *Lo)
      return uint64_t(0);
    uint64_t N = uint64_t(*Hi) - uint64_t(*Lo);
    llvm::ArrayRef<Range> Inner = Rs.drop_front();
    if (!rangesMention(Inner, R.Var) && !rangesMention(Rest, R.Var)) {
      V[R.Var] = *Lo;
      auto C = loops(Inner, Rest);
      V.erase(R.Var);
      if (!C)
        return C.takeError();
      return satMul(N, satAdd(*C, 1));
    }
    uint64_t Sum = 0;
    for (int64_t X = *Lo; X < *Hi && Sum <= Budget; ++X) {
      V[R.Var] = X;
      auto C = loops(Inner, Rest);
      if (!C)
        return C.takeError();
      Sum = satAdd(Sum, satAdd(*C, 1));
    }
    V.erase(R.Var);
    return Sum;
  }
};

} // namespace

llvm::Expected<uint64_t> choreo::estimateTemplateOps(const Template &T,
                                                     const Env &Params,
                                                     uint64_t Budget) {
  auto V = bindParams(T, Params);
  if (!V)
    return V.takeError();
  return Estimator(T, *V, Budget).run();
}

llvm::Error choreo::checkTemplateBudget(const Template &T, const Env &Params,
                                        uint64_t Budget) {
  auto V = bindParams(T, Params);
  if (!V)
    return V.takeError();
  auto Size = Estimator(T, *V, Budget).run();
  if (!Size)
    return Size.takeError();
  if (*Size <= Budget)
    return llvm::Error::success();
  std::string Vals;
  for (const std::string &P : T.Params)
    Vals += (Vals.empty() ? "" : ", ") + P + " = " +
            std::to_string(Params.at(P));
  return makeDiagError("template",
                       formatv("{0}: expanding {1} at {2} takes more than {3} "
                               "ranks, ops and loop iterations (counted "
                               "without guards): the generators' op budget",
                               T.Source, T.Name, Vals, Budget));
}

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
    if (Bcast && T.Root) {
      auto Root = evalExpr(*T.Root, V);
      if (!Root)
        return Root.takeError();
      S.Root = Rank(*Root);
    }
    for (const Group &G : S.Groups) {
      const std::vector<uint64_t> &Sz =
          G.Name == "A" ? SizesA : G.Name == "B" ? SizesB : SizesA;
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
    auto H = holdsAt(T, CurStage, V, V.at("i"), Src, Seg);
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
    uint64_t BLo = Cuts[Seg], BHi = Cuts[Seg + 1];
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
    Pieces.push_back(B);
    return llvm::Error::success();
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
      return makeDiagError("template",
                           formatv("message {0}: no buffer for group {1}",
                                   F.Name, F.Group));
    if (*Member < 0 || *Member >= int64_t(G->Members.size()))
      return makeDiagError("template",
                           formatv("message {0}: member {1} is not in group "
                                   "{2}",
                                   F.Name, *Member, F.Group));
    std::vector<uint64_t> Off = prefixSums(*S.sizes(F.Group));
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

llvm::Expected<Schedule> choreo::expandTemplate(
    const Template &T, const Env &Params, const std::vector<uint64_t> &SizesA,
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
    S->Params[P] = Params.at(P);
  return S;
}

std::pair<std::vector<uint64_t>, std::vector<uint64_t>>
choreo::unitSizes(const Template &T, const Env &Params) {
  std::pair<std::vector<uint64_t>, std::vector<uint64_t>> Out;
  auto V = bindParams(T, Params);
  if (!V) {
    llvm::consumeError(V.takeError());
    return Out;
  }
  if (T.isReduction()) {
    // One byte per segment (with one-byte elements).
    auto K = evalExpr(*T.Messages.front().Parts, *V, T.Source);
    if (!K) {
      llvm::consumeError(K.takeError());
      return Out;
    }
    Out.first = {uint64_t(std::max<int64_t>(1, *K))};
    return Out;
  }
  for (const GroupDecl &G : T.Groups) {
    auto Lo = evalExpr(*G.Lo, *V, T.Source), Hi = evalExpr(*G.Hi, *V, T.Source);
    if (!Lo || !Hi) {
      llvm::consumeError(Lo.takeError());
      llvm::consumeError(Hi.takeError());
      continue;
    }
    uint64_t Bytes = 1;
    for (const MessageFamily &F : T.Messages)
      if (F.Group == G.Name && F.Parts) {
        auto N = evalExpr(*F.Parts, *V, T.Source);
        if (N && *N > 0)
          Bytes = std::max<uint64_t>(Bytes, *N);
        else
          llvm::consumeError(N.takeError());
      }
    bool Bcast = specOf(T.Kind).Data == DataKind::Broadcast;
    bool Silent = !specOf(T.Kind).contributes(G.Name) && !Bcast;
    std::vector<uint64_t> Sizes(Bcast ? 1 : std::max<int64_t>(0, *Hi - *Lo),
                                Silent ? 0 : Bytes);
    (G.Name == "B" ? Out.second : Out.first) = std::move(Sizes);
  }
  return Out;
}
