//===- verifier/smt/TemplateObligations.cpp - A template's obligations ----===//
///
/// \file
/// The list of a template's obligations (QueryBuilder::build, in the order
/// they are proved), and those every template has: ports (no two ops of one
/// step share a sender, or a receiver), per op line its ranks, self-sends,
/// ring links, `mod` arguments, divisors and message indices, and the
/// header (what the expander evaluates outside the op lines is defined).
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/TemplateQueries.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace choreo;
using namespace choreo::smt;
using llvm::formatv;

std::vector<z3::expr> QueryBuilder::pairDiffer(const std::vector<z3::expr> &A,
                                               const std::vector<z3::expr> &B) {
  std::vector<z3::expr> D;
  for (size_t K = 1; K < A.size(); ++K) // [0] is the shared step index
    D.push_back(A[K] != B[K]);
  return D;
}

void QueryBuilder::decodeInst(TemplateEncoder &E, z3::model &M, const Inst &In,
                              Obligation &O) {
  for (const std::string &P : E.T.Params)
    O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
  for (size_t K = 0; K < In.Vars.size(); ++K) {
    std::string Name = K == 0 ? "i" : In.G->Loops[K - 1].Var;
    O.Model[Name] = M.eval(In.Vars[K], true).get_numeral_int64();
  }
  for (size_t K = 0; K < In.BundleVars.size(); ++K)
    O.Model[In.G->Bundle[K].Var] =
        M.eval(In.BundleVars[K], true).get_numeral_int64();
  O.Step = M.eval(In.Step, true).get_numeral_int64();
  O.Rank = M.eval(In.Src, true).get_numeral_int64();
}

std::vector<Query> QueryBuilder::build() {
  std::vector<Query> Qs;
  for (unsigned K = 0; K < T.Stages.size(); ++K) {
    const Stage &St = T.Stages[K];
    for (size_t A = 0; A < St.Ops.size(); ++A) {
      const OpGen &G = St.Ops[A];
      opQueries(K, G, Qs);
      for (size_t B = A; B < St.Ops.size(); ++B)
        for (bool Send : {true, false})
          portQuery(K, G, St.Ops[B], A == B, Send, Qs);
    }
  }
  headerQuery(Qs);
  for (size_t GI = 0; GI < T.Goals.size(); ++GI)
    goalQuery(GI, Qs);
  if (T.isReduction()) {
    reductionQueries(Qs);
  } else {
    for (const MessageFamily &F : T.Messages)
      originQuery(F, Qs);
    holdsQueries(Qs);
    for (auto [Receivers, Buffer] : specGoals()) {
      coverQuery(Receivers, Buffer, Qs);
      partsQuery(Receivers, Buffer, Qs);
    }
  }
  // The quantifier-free obligations first, then availability (and a
  // reduction's frames), then completeness: the cheap ones find most
  // counterexamples.
  auto Rank = [](const Query &Q) {
    return Q.O.Kind == "completeness"
               ? 2
               : Q.O.Kind == "availability" || Q.O.Kind == "frame";
  };
  std::stable_sort(Qs.begin(), Qs.end(), [&](const Query &A, const Query &B) {
    return Rank(A) < Rank(B);
  });
  return Qs;
}

void QueryBuilder::portQuery(unsigned K, const OpGen &G1, const OpGen &G2,
                             bool Same, bool Send, std::vector<Query> &Qs) {
  Query Q;
  Q.O.Kind = Send ? "ports.send" : "ports.recv";
  Q.O.Name = formatv("{0} {1} {2}", Q.O.Kind, G1.Label, G2.Label);
  Q.O.Claim = formatv("no two ops of {0} and {1} in one step share a {2}",
                      G1.Label, G2.Label, Send ? "sender" : "receiver");
  auto Insts = std::make_shared<std::vector<Inst>>();
  Q.Build = [=, &G1, &G2](TemplateEncoder &E) {
    Insts->clear();
    Insts->push_back(E.instantiate(K, G1, "@1"));
    Insts->push_back(E.instantiate(K, G2, "@2", (*Insts)[0].Vars[0]));
    const Inst &A = (*Insts)[0], &B = (*Insts)[1];
    std::vector<z3::expr> All{A.Exists, B.Exists};
    All.insert(All.end(), A.S.Side.begin(), A.S.Side.end());
    All.insert(All.end(), B.S.Side.begin(), B.S.Side.end());
    if (Same)
      All.push_back(E.disj(pairDiffer(A.Vars, B.Vars)));
    All.push_back(Send ? A.Src == B.Src : A.Dst == B.Dst);
    return E.conj(All);
  };
  Q.Decode = [Insts](TemplateEncoder &E, z3::model &M, Obligation &O) {
    decodeInst(E, M, (*Insts)[0], O);
    // The second op's loop variables, primed.
    for (size_t I = 1; I < (*Insts)[1].Vars.size(); ++I)
      O.Model[(*Insts)[1].G->Loops[I - 1].Var + "'"] =
          M.eval((*Insts)[1].Vars[I], true).get_numeral_int64();
  };
  Qs.push_back(std::move(Q));
}

/// Range, self-send, ring link, mod argument, message index, availability.
void QueryBuilder::opQueries(unsigned K, const OpGen &G,
                             std::vector<Query> &Qs) {
  auto Single = [&](const char *Kind, std::string Claim,
                    std::function<z3::expr(TemplateEncoder &, Inst &)> Bad) {
    Query Q;
    Q.O.Kind = Kind;
    Q.O.Name = formatv("{0} {1}", Kind, G.Label);
    Q.O.Claim = std::move(Claim);
    auto Holder = std::make_shared<std::vector<Inst>>();
    Q.Build = [=, &G](TemplateEncoder &E) {
      Holder->clear();
      Holder->push_back(E.instantiate(K, G, "@1"));
      Inst &A = (*Holder)[0];
      z3::expr B = Bad(E, A);
      std::vector<z3::expr> All{A.Exists, A.BundleRange, B};
      All.insert(All.end(), A.S.Side.begin(), A.S.Side.end());
      return E.conj(All);
    };
    Q.Decode = [Holder](TemplateEncoder &E, z3::model &M, Obligation &O) {
      decodeInst(E, M, (*Holder)[0], O);
    };
    Qs.push_back(std::move(Q));
  };
  Single("range", formatv("{0} sends from and to ranks of the ring", G.Label),
         [](TemplateEncoder &E, Inst &A) {
           z3::expr N = E.ranks();
           return !(A.Src >= 0 && A.Src < N && A.Dst >= 0 && A.Dst < N);
         });
  Single("self-send", formatv("{0} never sends to its own sender", G.Label),
         [](TemplateEncoder &, Inst &A) { return A.Src == A.Dst; });
  if (T.Ring)
    Single("topology", formatv("{0} sends between ring neighbours", G.Label),
           [](TemplateEncoder &E, Inst &A) {
             z3::expr N = E.ranks();
             return !(A.Dst == A.Src + 1 || A.Dst == A.Src - 1 ||
                      (A.Src == N - 1 && A.Dst == 0) ||
                      (A.Src == 0 && A.Dst == N - 1));
           });
  Single("mod",
         formatv("the `mod` arguments of {0} lie in [-n, 2n) (and "
                 "its pow2 exponents {1})",
                 G.Label,
                 PowMax < 0 ? std::string(">= 0")
                            : formatv("in [0, {0}]", PowMax).str()),
         [](TemplateEncoder &E, Inst &A) {
           std::vector<z3::expr> Out;
           for (auto &[X, N] : A.S.Mods)
             Out.push_back(X < -N || X >= 2 * N);
           for (const z3::expr &X : A.S.Pows)
             Out.push_back(E.powOutOfRange(X));
           return E.disj(Out);
         });
  bool OpDivides = oddDivisor(G.Loops) || oddDivisor(G.Guard.get()) ||
                   oddDivisor(G.Src.get()) || oddDivisor(G.Dst.get()) ||
                   oddDivisor(G.Bundle) ||
                   oddDivisor(G.BundleGuard.get()) ||
                   llvm::any_of(G.MsgIndex, [](const ExprPtr &X) {
                     return oddDivisor(X.get());
                   });
  if (OpDivides)
    Single("divisor",
           formatv("every divisor (and `log2` argument) of {0} is positive",
                   G.Label),
           [](TemplateEncoder &E, Inst &A) {
             std::vector<z3::expr> Out;
             for (const z3::expr &D : A.S.Divs)
               Out.push_back(D <= 0);
             return E.disj(Out);
           });
  const MessageFamily &F = *T.family(G.Family);
  Single("message",
         formatv("{0} sends existing messages of {1}", G.Label, F.Name),
         [&F](TemplateEncoder &E, Inst &A) {
           return !E.indexInRange(F, A.Msg, A.S);
         });
  // A reduction's availability is its holds (every rank holds a partial
  // of every segment): reductionQueries.
  if (!T.isReduction())
    availabilityQuery(K, G, Qs);
}

/// What the expander evaluates outside the op lines — lets, domain,
/// ranks, groups, stage lengths, message families and goals — is defined
/// for every parameter value in the domain: divisors positive, `mod`
/// arguments in [-n, 2n) (the wrap the encoding uses), stages of at least
/// 0 steps. Only when the template has something to check.
void QueryBuilder::headerQuery(std::vector<Query> &Qs) {
  bool Any = false;
  for (const auto &[Name, E] : T.Lets)
    Any |= oddDivisor(E.get(), true);
  for (const CondPtr &C : T.Domain)
    Any |= oddDivisor(C.get(), true);
  Any |= oddDivisor(T.Ranks.get(), true);
  for (const GroupDecl &G : T.Groups)
    Any |= oddDivisor(G.Lo.get(), true) || oddDivisor(G.Hi.get(), true);
  for (const Stage &St : T.Stages)
    Any |= St.Steps->K != Expr::Kind::Num;
  for (const MessageFamily &F : T.Messages)
    Any |= oddDivisor(F.Index, true) || oddDivisor(F.Origin.get(), true) ||
           oddDivisor(F.Member.get(), true) || oddDivisor(F.Part.get(), true) ||
           oddDivisor(F.Parts.get(), true);
  for (const Goal &G : T.Goals)
    Any |= oddDivisor(G.Index, true) || oddDivisor(G.Lo.get(), true) ||
           oddDivisor(G.Hi.get(), true);
  if (!Any)
    return;
  Query Q;
  Q.O.Kind = "header";
  Q.O.Name = "header";
  Q.O.Claim = "outside the op lines every divisor is positive, every `mod` "
              "argument lies in [-n, 2n) and every stage has at least 0 "
              "steps";
  auto Vars = std::make_shared<std::vector<std::pair<std::string, z3::expr>>>();
  Q.Build = [=, this](TemplateEncoder &E) {
    Vars->clear();
    Scope S;
    S.Vars = E.Top.Vars;
    S.Divs = E.Top.Divs;
    S.Mods = E.Top.Mods;
    S.Pows = E.Top.Pows;
    std::vector<z3::expr> Bad;
    for (const z3::expr &Steps : E.StageSteps)
      Bad.push_back(Steps < 0);
    for (const GroupDecl &G : T.Groups) {
      E.enc(*G.Lo, S);
      E.enc(*G.Hi, S);
    }
    // A divisor that is not positive, or a mod argument outside [-n, 2n),
    // among those In encoded beyond Outer's (where an index exists).
    auto AddedViolations = [](const Scope &Outer, const Scope &In) {
      std::vector<z3::expr> Local;
      for (size_t K = Outer.Divs.size(); K < In.Divs.size(); ++K)
        Local.push_back(In.Divs[K] <= 0);
      for (size_t K = Outer.Mods.size(); K < In.Mods.size(); ++K)
        Local.push_back(In.Mods[K].first < -In.Mods[K].second ||
                        In.Mods[K].first >= 2 * In.Mods[K].second);
      return Local;
    };
    // Each family and goal at one index in its ranges (fresh per line).
    unsigned Tag = 0;
    auto Bind = [&](const std::vector<Range> &Rs, Scope &In,
                    std::vector<z3::expr> &Conds) {
      for (const Range &R : Rs) {
        z3::expr V =
            E.C.int_const(formatv("{0}@header{1}", R.Var, Tag).str().c_str());
        Conds.push_back(V >= E.enc(*R.Lo, In));
        Conds.push_back(V < E.enc(*R.Hi, In));
        In.Vars.insert_or_assign(R.Var, V);
        Vars->push_back({R.Var, V});
      }
      ++Tag;
    };
    std::vector<z3::expr> Where;
    for (const MessageFamily &F : T.Messages) {
      Scope In = S;
      std::vector<z3::expr> Conds;
      Bind(F.Index, In, Conds);
      for (const ExprPtr &X : {F.Origin, F.Member, F.Part, F.Parts})
        if (X)
          E.enc(*X, In);
      S.Fresh = In.Fresh;
      S.Side = In.Side;
      // A divisor or mod inside the family counts where its index exists.
      Bad.push_back(E.conj(Conds) && E.disj(AddedViolations(S, In)));
    }
    for (const Goal &G : T.Goals) {
      z3::expr GLo = E.enc(*G.Lo, S), GHi = E.enc(*G.Hi, S);
      Scope In = S;
      // The goal's rank, which its index ranges may name.
      z3::expr R =
          E.C.int_const(formatv("rank@header{0}", Tag++).str().c_str());
      In.Vars.insert_or_assign("rank", R);
      Vars->push_back({"rank", R});
      std::vector<z3::expr> Conds{R >= GLo, R < GHi};
      Bind(G.Index, In, Conds);
      S.Fresh = In.Fresh;
      S.Side = In.Side;
      Bad.push_back(E.conj(Conds) && E.disj(AddedViolations(S, In)));
    }
    for (const z3::expr &D : S.Divs)
      Bad.push_back(D <= 0);
    for (auto &[X, N] : S.Mods)
      Bad.push_back(X < -N || X >= 2 * N);
    for (const z3::expr &X : S.Pows)
      Bad.push_back(E.powOutOfRange(X));
    std::vector<z3::expr> All{E.disj(Bad)};
    All.insert(All.end(), S.Side.begin(), S.Side.end());
    return E.conj(All);
  };
  Q.Decode = [Vars](TemplateEncoder &E, z3::model &M, Obligation &O) {
    for (const std::string &P : E.T.Params)
      O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
  };
  Qs.push_back(std::move(Q));
}
