//===- verifier/smt/ReductionObligations.cpp - Reduction obligations ------===//
///
/// \file
/// The obligations of a reduction template (docs/templates.md, "Reduction
/// templates"): its segments cut the vector, its holds are intervals of
/// contributors (or stale: no longer used, no claim) that start as {r}
/// (`initial`), change only where an op delivers (`frame`; any partial
/// may go stale) and then as the op says (`transition`: never from a
/// stale sender or into a stale combining receiver), join
/// disjoint (`exactly-once`) and, not commutative, adjacent (`order`)
/// intervals, carry over between stages (`link`), and end complete where
/// the collective wants the result (`completeness`).
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/TemplateQueries.h"

#include "llvm/Support/FormatVariadic.h"

#include <array>

using namespace choreo;
using namespace choreo::smt;
using llvm::formatv;

/// A query over free variables of its own (not an op's).
void QueryBuilder::freeQuery(
    const char *Kind, std::string Name, std::string Claim,
    std::function<z3::expr(TemplateEncoder &, Named &)> Bad,
    std::vector<Query> &Qs,
    std::function<z3::expr(TemplateEncoder &, Named &)> Witnessed) {
  Query Q;
  Q.O.Kind = Kind;
  Q.O.Name = std::move(Name);
  Q.O.Claim = std::move(Claim);
  auto Vars = std::make_shared<Named>();
  Q.Build = [=](TemplateEncoder &E) {
    Vars->clear();
    return Bad(E, *Vars);
  };
  if (Witnessed)
    Q.Witnessed = [=](TemplateEncoder &E) {
      Vars->clear();
      return Witnessed(E, *Vars);
    };
  Q.Decode = [Vars](TemplateEncoder &E, z3::model &M, Obligation &O) {
    for (const std::string &P : E.T.Params)
      O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
    for (auto &[Name, X] : *Vars) {
      int64_t V = M.eval(X, true).get_numeral_int64();
      if (Name == "step")
        O.Step = V;
      else if (Name == "rank")
        O.Rank = V;
      else
        O.Model[Name] = V;
    }
  };
  Qs.push_back(std::move(Q));
}

/// A query over one op line's instances (as opQueries'), with the
/// reduction's free contributor variable.
void QueryBuilder::opQuery(
    unsigned K, const OpGen &G, const char *Kind, std::string Claim,
    std::function<z3::expr(TemplateEncoder &, Inst &, Named &)> Bad,
    std::vector<Query> &Qs) {
  Query Q;
  Q.O.Kind = Kind;
  Q.O.Name = formatv("{0} {1}", Kind, G.Label);
  Q.O.Claim = std::move(Claim);
  auto Holder = std::make_shared<std::vector<Inst>>();
  auto Vars = std::make_shared<Named>();
  Q.Build = [=, &G](TemplateEncoder &E) {
    Holder->clear();
    Vars->clear();
    Holder->push_back(E.instantiate(K, G, "@1"));
    Inst &A = (*Holder)[0];
    z3::expr B = Bad(E, A, *Vars);
    std::vector<z3::expr> All{A.Exists, A.BundleRange, B};
    All.insert(All.end(), A.S.Side.begin(), A.S.Side.end());
    return E.conj(All);
  };
  Q.Decode = [Holder, Vars](TemplateEncoder &E, z3::model &M, Obligation &O) {
    decodeInst(E, M, (*Holder)[0], O);
    for (auto &[Name, X] : *Vars)
      O.Model[Name] = M.eval(X, true).get_numeral_int64();
  };
  Qs.push_back(std::move(Q));
}

/// Fresh (i, r, j) of stage K: i in [0, steps] (AtEnd: i = steps; with
/// Before, i < steps), r a rank, j a segment; their ranges into Conds.
struct Point {
  z3::expr I, R, J;
};
QueryBuilder::Point QueryBuilder::point(TemplateEncoder &E, unsigned K,
                                        const std::string &Tag, Named &Vars,
                                        std::vector<z3::expr> &Conds, Scope &S,
                                        bool Before) {
  const MessageFamily &F = T.Messages.front();
  Point P{E.C.int_const(("i" + Tag).c_str()),
          E.C.int_const(("rank" + Tag).c_str()),
          E.C.int_const((F.Index[0].Var + Tag).c_str())};
  Vars.push_back({"i", P.I});
  Vars.push_back({"rank", P.R});
  Vars.push_back({F.Index[0].Var, P.J});
  Conds.push_back(P.I >= 0);
  Conds.push_back(Before ? P.I < E.StageSteps[K] : P.I <= E.StageSteps[K]);
  Conds.push_back(P.R >= 0);
  Conds.push_back(P.R < E.ranks());
  Conds.push_back(E.indexInRange(F, {P.J}, S));
  return P;
}

/// A contributor rank, free, in [0, ranks).
z3::expr QueryBuilder::contributor(TemplateEncoder &E, Named &Vars,
                                   std::vector<z3::expr> &Conds) {
  z3::expr X = E.C.int_const("contributor");
  Vars.push_back({"contributor", X});
  Conds.push_back(X >= 0);
  Conds.push_back(X < E.ranks());
  return X;
}

/// The obligations of a reduction template (docs/templates.md,
/// "Reduction templates"): its segments are the vector's, its holds are
/// intervals of ranks that start as {r}, change only where an op delivers
/// and then as the op says, are joined from disjoint (and, not
/// commutative, adjacent) intervals, and end with every rank where the
/// collective wants the result.
void QueryBuilder::reductionQueries(std::vector<Query> &Qs) {
  const MessageFamily &F = T.Messages.front();
  const CollectiveSpec *SpecP = &specOf(T.Kind);
  const CollectiveSpec &Spec = *SpecP;
  unsigned Last = T.Stages.size() - 1;
  auto Stay = [](Scope &S, std::vector<z3::expr> &All) {
    All.insert(All.end(), S.Side.begin(), S.Side.end());
  };

  freeQuery(
      "segments", "segments",
      formatv("{0}[j] for j in [0, K), K >= 1, cut the vector{1}; "
              "group all is [0, ranks){2}",
              F.Name,
              Spec.Result == ResultRule::OwnSlice
                  ? ", one slice per rank (K = ranks)"
                  : "",
              T.Root ? "; the root is a rank" : ""),
      [=, this, &F](TemplateEncoder &E, Named &) {
        const CollectiveSpec &Spec = *SpecP;
        Scope S;
        S.Vars = E.Top.Vars;
        z3::expr K = E.enc(*F.Parts, S), N = E.ranks();
        const GroupDecl &G = T.Groups.front();
        std::vector<z3::expr> Bad{E.enc(*F.Index[0].Lo, S) != 0, K < 1,
                                  E.enc(*G.Lo, S) != 0, E.enc(*G.Hi, S) != N};
        if (Spec.Result == ResultRule::OwnSlice)
          Bad.push_back(K != N);
        if (T.Root) {
          z3::expr Root = E.enc(*T.Root, S);
          Bad.push_back(Root < 0 || Root >= N);
        }
        std::vector<z3::expr> All{E.disj(Bad)};
        Stay(S, All);
        return E.conj(All);
      },
      Qs);

  // An exscan's accumulators but the first start empty (len 0); every
  // other partial combines at least one contribution.
  bool Exscan = T.Kind == Collective::Exscan;
  unsigned NAcc = T.Accumulators;
  // "NAME" for accumulator 0 of a template with one, "NAME acc A" else.
  auto AccName = [NAcc](std::string Name, unsigned A) {
    return NAcc > 1 ? Name + " acc " + std::to_string(A) : Name;
  };
  for (unsigned K = 0; K < T.Stages.size(); ++K) {
    const Stage &St = T.Stages[K];
    for (unsigned A = 0; A < NAcc; ++A) {
      int MinLen = Exscan && A > 0 ? 0 : 1;
      freeQuery(
          "partial", AccName("partial " + St.Name, A),
          formatv("at every step of {0} every rank's partial of every "
                  "{1}[j] is a {2}interval of {3} to ranks contributors",
                  St.Name, F.Name,
                  T.Commutative ? "cyclic " : "non-wrapping ", MinLen),
          [=, this](TemplateEncoder &E, Named &Vars) {
            Scope S;
            S.Vars = E.Top.Vars;
            std::vector<z3::expr> All;
            Point P = point(E, K, "", Vars, All, S);
            auto H = E.holds(K, P.I, P.R, P.J, S, A);
            z3::expr N = E.ranks();
            z3::expr Iv =
                H.Lo < 0 || H.Lo >= N || H.Len < MinLen || H.Len > N;
            // Not commutative: no wrap (all ranks: any lo).
            if (!T.Commutative)
              Iv = Iv || (H.Lo + H.Len > N && H.Len != N);
            // A stale partial claims no interval.
            All.push_back(H.Bad || (!H.Stale && Iv));
            Stay(S, All);
            return E.conj(All);
          },
          Qs);
      freeQuery(
          "frame", AccName("frame " + St.Name, A),
          formatv("in {0} a partial changes only where an op delivers "
                  "that segment to that rank",
                  St.Name),
          [=, this, &St](TemplateEncoder &E, Named &Vars) {
            Scope S;
            S.Vars = E.Top.Vars;
            std::vector<z3::expr> All;
            Point P = point(E, K, "", Vars, All, S, /*Before=*/true);
            z3::expr X = contributor(E, Vars, All);
            auto Now = E.holds(K, P.I, P.R, P.J, S, A);
            auto Next = E.holds(K, P.I + 1, P.R, P.J, S, A);
            // Unchanged, or stale from now on: no claim to prove.
            All.push_back(!Next.Stale &&
                          (Now.Stale ||
                           E.contains(Now, X) != E.contains(Next, X)));
            std::vector<z3::expr> Deliver;
            unsigned Tag = 1;
            for (const OpGen &G2 : St.Ops) {
              if (!(G2.IntoMask >> A & 1))
                continue;
              // The point's step, not a variable of the existential: an
              // exponent pow2(i) stays free (Pow2Digits.h).
              Inst B =
                  E.instantiate(K, G2, formatv("@d{0}", Tag++).str(), P.I);
              Deliver.push_back(E.exists(B, B.Dst == P.R && B.Msg[0] == P.J));
            }
            All.push_back(!E.disj(Deliver));
            Stay(S, All);
            return E.conj(All);
          },
          Qs);
    }
    for (const OpGen &G : St.Ops)
      reductionOpQueries(K, G, Qs);
    if (K == Last)
      continue;
    for (unsigned A = 0; A < NAcc; ++A)
      freeQuery(
          "link",
          AccName(formatv("link {0} {1}", St.Name, T.Stages[K + 1].Name), A),
          formatv("what {0} ends with, {1} starts with", St.Name,
                  T.Stages[K + 1].Name),
          [=, this](TemplateEncoder &E, Named &Vars) {
            Scope S;
            S.Vars = E.Top.Vars;
            std::vector<z3::expr> All;
            Point P = point(E, K, "", Vars, All, S);
            All.push_back(P.I == E.StageSteps[K]);
            z3::expr X = contributor(E, Vars, All);
            // The stage's end itself, not a variable equal to it: an
            // exponent pow2(i) at i = k is then 2^k, in the digits of the
            // next stage's exponents.
            auto End = E.holds(K, E.StageSteps[K], P.R, P.J, S, A);
            auto Start = E.holds(K + 1, E.C.int_val(0), P.R, P.J, S, A);
            All.push_back(!Start.Stale &&
                          (End.Stale ||
                           E.contains(End, X) != E.contains(Start, X)));
            Stay(S, All);
            return E.conj(All);
          },
          Qs);
  }

  for (unsigned A = 0; A < NAcc; ++A)
    freeQuery(
        "initial", AccName("initial", A),
        Exscan && A > 0
            ? formatv("at the start every rank's accumulator {0} of every "
                      "{1}[j] is empty",
                      A, F.Name)
                  .str()
            : formatv("at the start every rank holds its own contribution "
                      "to every {0}[j]",
                      F.Name)
                  .str(),
        [=, this](TemplateEncoder &E, Named &Vars) {
          Scope S;
          S.Vars = E.Top.Vars;
          std::vector<z3::expr> All;
          Point P = point(E, 0, "", Vars, All, S);
          All.push_back(P.I == 0);
          z3::expr X = contributor(E, Vars, All);
          auto H = E.holds(0, P.I, P.R, P.J, S, A);
          if (Exscan && A > 0)
            All.push_back(H.Stale || H.Len != 0);
          else
            All.push_back(H.Stale || E.contains(H, X) != (X == P.R));
          Stay(S, All);
          return E.conj(All);
        },
        Qs);

  std::string Who =
      Spec.Result == ResultRule::OwnSlice
          ? formatv("rank j ends with {0}[j]", F.Name).str()
      : T.Root ? formatv("the root ends with every {0}[j]", F.Name).str()
      : Spec.Result == ResultRule::Prefix
          ? formatv("rank r ends with every {0}[j]", F.Name).str()
          : formatv("every rank ends with every {0}[j]", F.Name).str();
  unsigned NAccs = T.Accumulators;
  freeQuery(
      "completeness", "completeness",
      Who + (Spec.Result == ResultRule::Prefix
                 ? (T.Kind == Collective::Exscan
                        ? " combining exactly the contributions of ranks "
                          "0..r-1 (rank 0: any)"
                        : " combining exactly the contributions of ranks "
                          "0..r") +
                       std::string(NAccs > 1 ? ", in some accumulator" : "")
                 : " combining every rank's contribution"),
      [=, this](TemplateEncoder &E, Named &Vars) {
        const CollectiveSpec &Spec = *SpecP;
        Scope S;
        S.Vars = E.Top.Vars;
        std::vector<z3::expr> All;
        Point P = point(E, Last, "", Vars, All, S);
        All.push_back(P.I == E.StageSteps[Last]);
        if (Spec.Result == ResultRule::OwnSlice)
          All.push_back(P.R == P.J);
        else if (T.Root)
          All.push_back(P.R == E.enc(*T.Root, S));
        if (Spec.Result != ResultRule::Prefix) {
          z3::expr X = contributor(E, Vars, All);
          auto H = E.holds(Last, P.I, P.R, P.J, S);
          All.push_back(H.Stale || !E.contains(H, X));
          Stay(S, All);
          return E.conj(All);
        }
        // Scan: rank r's result is ranks 0..r (exscan: 0..r-1), no more
        // and no fewer, in some accumulator: refuted where every
        // accumulator has a contributor of its own that is wrong.
        bool Ex = T.Kind == Collective::Exscan;
        // An exscan's result at rank 0 is undefined (MPI_Exscan).
        if (Ex)
          All.push_back(P.R >= 1);
        for (unsigned A = 0; A < NAccs; ++A) {
          z3::expr X = E.C.int_const(("contributor" + std::to_string(A)).c_str());
          Vars.push_back({A ? "contributor" + std::to_string(A)
                            : std::string("contributor"),
                          X});
          All.push_back(X >= 0);
          All.push_back(X < E.ranks());
          auto H = E.holds(Last, P.I, P.R, P.J, S, A);
          All.push_back(H.Stale ||
                        E.contains(H, X) != (Ex ? X < P.R : X <= P.R));
        }
        Stay(S, All);
        return E.conj(All);
      },
      Qs);
}

/// An op's transition, and for `combine` exactly-once and (not
/// commutative) rank order.
void QueryBuilder::reductionOpQueries(unsigned K, const OpGen &G,
                                      std::vector<Query> &Qs) {
  const MessageFamily &F = T.Messages.front();
  // The sender's (its accumulator G.FromAcc), the receiver's and the
  // receiver's next partial (accumulator A).
  auto States = [=, this, &G](TemplateEncoder &E, Inst &I, unsigned A) {
    return std::array<TemplateEncoder::Held, 3>{
        E.holds(K, I.Vars[0], I.Src, I.Msg[0], I.S, G.FromAcc),
        E.holds(K, I.Vars[0], I.Dst, I.Msg[0], I.S, A),
        E.holds(K, I.Vars[0] + 1, I.Dst, I.Msg[0], I.S, A)};
  };
  unsigned NAcc = T.Accumulators;
  auto SuffixAcc = [&](unsigned A) {
    if (NAcc > 1)
      Qs.back().O.Name += " acc " + std::to_string(A);
  };
  for (unsigned A = 0; A < NAcc; ++A) {
    if (!(G.IntoMask >> A & 1))
      continue;
    opQuery(
        K, G, "transition",
        formatv("after {0} the receiver holds {1}", G.Label,
                G.Combine ? "its partial combined with the sender's"
                          : "the sender's partial"),
        [=, this](TemplateEncoder &E, Inst &I, Named &Vars) {
          std::vector<z3::expr> All;
          z3::expr X = contributor(E, Vars, All);
          auto [Snd, Rcv, Next] = States(E, I, A);
          z3::expr Want = E.contains(Snd, X);
          if (G.Combine)
            Want = Want || E.contains(Rcv, X);
          // The sender's partial (and a combining receiver's) is in use,
          // and the sender's combines someone (an exscan's accumulator may
          // be empty); a receiver's stale from the next step on claims
          // nothing.
          z3::expr Used = Snd.Stale || Snd.Len < 1;
          if (G.Combine)
            Used = Used || Rcv.Stale;
          All.push_back(Used || (!Next.Stale && E.contains(Next, X) != Want));
          return E.conj(All);
        },
        Qs);
    SuffixAcc(A);
    if (!G.Combine)
      continue;
    opQuery(
        K, G, "exactly-once",
        formatv("{0} combines partials of disjoint contributor sets "
                "(every contribution counted once)",
                G.Label),
        [=, this](TemplateEncoder &E, Inst &I, Named &Vars) {
          std::vector<z3::expr> All;
          z3::expr X = contributor(E, Vars, All);
          auto [Snd, Rcv, Next] = States(E, I, A);
          // (Stale partials fail the transition.)
          All.push_back(!Snd.Stale && !Rcv.Stale && E.contains(Snd, X) &&
                        E.contains(Rcv, X));
          return E.conj(All);
        },
        Qs);
    SuffixAcc(A);
    if (T.Commutative)
      continue;
    opQuery(
        K, G, "order",
        formatv("{0} joins adjacent rank intervals of {1}[j] (the lower "
                "one the left operand)",
                G.Label, F.Name),
        [=, this](TemplateEncoder &E, Inst &I, Named &) {
          auto [Snd, Rcv, Next] = States(E, I, A);
          // Into an empty accumulator (an exscan's): a write.
          return !Snd.Stale && !Rcv.Stale && Rcv.Len >= 1 &&
                 !(Snd.Lo + Snd.Len == Rcv.Lo || Rcv.Lo + Rcv.Len == Snd.Lo);
        },
        Qs);
    SuffixAcc(A);
  }
}
