//===- verifier/smt/TemplateProver.cpp - Z3 proofs of templates -----------===//
///
/// \file
/// Encodes a template's obligations as Presburger formulas and refutes them
/// with Z3. Parameters and lets are integer constants constrained by the
/// domain; each op line becomes, per use, fresh copies of its step index,
/// loop variables and bundle variables. Floor division and remainder by a
/// constant introduce a quotient and a remainder; `x mod n` is a wrap
/// (x + n when x < 0, x - n when x >= n) whose argument range, -n <= x < 2n,
/// is an obligation of its own. Availability and completeness quantify
/// existentially over the ops that could deliver a message.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/Prover.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <optional>
#include <z3++.h>

using namespace choreo;
using llvm::formatv;

bool ProveReport::proved() const {
  for (const Obligation &O : Obligations)
    if (O.R != Obligation::Result::Proved &&
        O.R != Obligation::Result::ProvedBounded)
      return false;
  return true;
}

bool ProveReport::unbounded() const {
  for (const Obligation &O : Obligations)
    if (O.R != Obligation::Result::Proved)
      return false;
  return true;
}

const Obligation *ProveReport::firstCounterexample() const {
  for (const Obligation &O : Obligations)
    if (O.R == Obligation::Result::Counterexample)
      return &O;
  return nullptr;
}

namespace {

/// Where an expression is encoded: the names in scope, and the fresh
/// variables and side constraints its division and remainders introduce
/// (quantified together with the scope's own variables).
struct Scope {
  std::map<std::string, z3::expr> Vars;
  std::vector<z3::expr> Fresh;
  std::vector<z3::expr> Side;
  /// (x, n) of every `x mod n`, for the range obligation.
  std::vector<std::pair<z3::expr, z3::expr>> Mods;
  /// Every divisor that is not a positive constant, for the divisor
  /// obligations (the division's constraints hold only where it is > 0, so
  /// a zero divisor cannot make an obligation vacuous).
  std::vector<z3::expr> Divs;
  /// The argument of every non-constant `pow2`, for its range obligation
  /// (0 <= x <= MaxPow2).
  std::vector<z3::expr> Pows;
};

/// Milliseconds a query may take: the per-query timeout, cut to what is
/// left of the run's deadline (0: the deadline has passed).
unsigned queryBudgetMs(const ProveOptions &Opts) {
  if (!Opts.Deadline)
    return Opts.TimeoutMs;
  auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  *Opts.Deadline - std::chrono::steady_clock::now())
                  .count();
  return Left <= 0 ? 0 : unsigned(std::min<int64_t>(Left, Opts.TimeoutMs));
}

/// Whether E divides (`/`, `%`) by anything but a positive constant, or,
/// with Mods, takes any `x mod n`.
bool oddDivisor(const Expr *E, bool Mods = false) {
  if (!E)
    return false;
  if ((E->K == Expr::Kind::Div || E->K == Expr::Kind::Rem) &&
      !(E->R->K == Expr::Kind::Num && E->R->Value > 0))
    return true;
  if (Mods && (E->K == Expr::Kind::Mod || E->K == Expr::Kind::Pow2))
    return true;
  return oddDivisor(E->L.get(), Mods) || oddDivisor(E->R.get(), Mods);
}
bool oddDivisor(const Cond *C, bool Mods = false) {
  if (!C)
    return false;
  return oddDivisor(C->A.get(), Mods) || oddDivisor(C->B.get(), Mods) ||
         oddDivisor(C->L.get(), Mods) || oddDivisor(C->R.get(), Mods);
}
bool oddDivisor(llvm::ArrayRef<Range> Rs, bool Mods = false) {
  return llvm::any_of(Rs, [&](const Range &R) {
    return oddDivisor(R.Lo.get(), Mods) || oddDivisor(R.Hi.get(), Mods);
  });
}

/// An op line instantiated with fresh variables.
struct Inst {
  const OpGen *G;
  unsigned StageIdx;
  z3::expr Exists, Step, Src, Dst;
  std::vector<z3::expr> Msg;
  std::vector<z3::expr> Vars; ///< i and the loop variables
  std::vector<z3::expr> BundleVars;
  z3::expr BundleRange;
  Scope S;
};

class TemplateEncoder {
public:
  TemplateEncoder(z3::context &C, const Template &T) : C(C), T(T) {}

  bool Nonlinear = false;
  /// The largest exponent `pow2` is encoded for (exactly, as the chain of
  /// its values); the range obligations prove every exponent stays in
  /// [0, PowMax].
  int64_t PowMax = MaxPow2;
  /// Prefixed to the names of lets and fresh variables, so that several
  /// templates' domains can share one formula (proveDomainsCover).
  std::string Prefix;

  /// Parameters, lets, domain; stage lengths and offsets. With Fixed, the
  /// parameters and lets are numerals (bounded mode: products of a let and
  /// a loop variable become linear).
  void prepare(const Env *Fixed = nullptr) {
    Top.Vars.clear();
    for (const std::string &P : T.Params)
      Top.Vars.emplace(P, Fixed ? C.int_val(static_cast<int64_t>(Fixed->at(P)))
                                : C.int_const(P.c_str()));
    for (const auto &[Name, E] : T.Lets) {
      if (Fixed) {
        Top.Vars.emplace(Name,
                         C.int_val(static_cast<int64_t>(Fixed->at(Name))));
        continue;
      }
      z3::expr V = C.int_const((Prefix + Name).c_str());
      Top.Side.push_back(V == enc(*E, Top));
      Top.Vars.emplace(Name, V);
    }
    std::vector<z3::expr> D;
    for (const CondPtr &Cd : T.Domain)
      D.push_back(enc(*Cd, Top));
    N.emplace(enc(*T.Ranks, Top));
    z3::expr Off = C.int_val(0);
    for (const Stage &St : T.Stages) {
      StageSteps.push_back(enc(*St.Steps, Top));
      StageOffset.push_back(Off);
      Off = Off + StageSteps.back();
    }
    Domain.emplace(conj(D));
  }

  /// The domain with the lets' and top-level side constraints.
  z3::expr context() const {
    std::vector<z3::expr> All = Top.Side;
    All.push_back(*Domain);
    return conj(All);
  }

  z3::expr ranks() const { return *N; }
  z3::expr param(const std::string &P) { return Top.Vars.at(P); }
  const Env *FixedParams = nullptr;

  Inst instantiate(unsigned StageIdx, const OpGen &G, const std::string &Tag,
                   std::optional<z3::expr> SharedI = std::nullopt) {
    Scope S;
    S.Vars = Top.Vars;
    z3::expr I = SharedI ? *SharedI : C.int_const(("i" + Tag).c_str());
    S.Vars.insert_or_assign("i", I);
    std::vector<z3::expr> Vars{I}, Conds{I >= 0, I < StageSteps[StageIdx]};
    for (const Range &R : G.Loops) {
      z3::expr V = C.int_const((R.Var + Tag).c_str());
      Conds.push_back(V >= enc(*R.Lo, S));
      Conds.push_back(V < enc(*R.Hi, S));
      S.Vars.insert_or_assign(R.Var, V);
      Vars.push_back(V);
    }
    if (G.Guard)
      Conds.push_back(enc(*G.Guard, S));
    z3::expr Src = enc(*G.Src, S), Dst = enc(*G.Dst, S);
    std::vector<z3::expr> BVars, BConds;
    for (const Range &R : G.Bundle) {
      z3::expr V = C.int_const((R.Var + Tag).c_str());
      BConds.push_back(V >= enc(*R.Lo, S));
      BConds.push_back(V < enc(*R.Hi, S));
      S.Vars.insert_or_assign(R.Var, V);
      BVars.push_back(V);
    }
    std::vector<z3::expr> Msg;
    for (const ExprPtr &E : G.MsgIndex)
      Msg.push_back(enc(*E, S));
    return Inst{&G,
                StageIdx,
                conj(Conds),
                StageOffset[StageIdx] + I,
                Src,
                Dst,
                Msg,
                Vars,
                BVars,
                conj(BConds),
                std::move(S)};
  }

  /// The rank message F[Idx] originates at, and the constraints of its
  /// index ranges.
  z3::expr origin(const MessageFamily &F, const std::vector<z3::expr> &Idx,
                  Scope &S) {
    Scope Local = S;
    for (size_t K = 0; K < F.Index.size(); ++K)
      Local.Vars.insert_or_assign(F.Index[K].Var, Idx[K]);
    z3::expr O = enc(*F.Origin, Local);
    S.Fresh = Local.Fresh;
    S.Side = Local.Side;
    S.Mods = Local.Mods;
    S.Divs = Local.Divs;
    S.Pows = Local.Pows;
    return O;
  }
  /// The member whose contribution F[Idx] is.
  z3::expr member(const MessageFamily &F, const std::vector<z3::expr> &Idx,
                  Scope &S) {
    Scope Local = S;
    for (size_t K = 0; K < F.Index.size(); ++K)
      Local.Vars.insert_or_assign(F.Index[K].Var, Idx[K]);
    z3::expr M = enc(*F.Member, Local);
    S.Fresh = Local.Fresh;
    S.Side = Local.Side;
    S.Mods = Local.Mods;
    S.Divs = Local.Divs;
    S.Pows = Local.Pows;
    return M;
  }
  /// Goal Gl's index ranges, then its family F's, for the indices Idx.
  std::vector<z3::expr> goalIndexInRange(const Goal &Gl,
                                         const MessageFamily &F,
                                         const std::vector<z3::expr> &Idx,
                                         Scope &S) {
    std::vector<z3::expr> Conds;
    Scope IS = S;
    for (size_t K = 0; K < Gl.Index.size(); ++K) {
      Conds.push_back(Idx[K] >= enc(*Gl.Index[K].Lo, IS));
      Conds.push_back(Idx[K] < enc(*Gl.Index[K].Hi, IS));
      IS.Vars.insert_or_assign(Gl.Index[K].Var, Idx[K]);
    }
    S.Fresh = IS.Fresh;
    S.Side = IS.Side;
    S.Mods = IS.Mods;
    S.Divs = IS.Divs;
    S.Pows = IS.Pows;
    Conds.push_back(indexInRange(F, Idx, S));
    return Conds;
  }
  z3::expr indexInRange(const MessageFamily &F,
                        const std::vector<z3::expr> &Idx, Scope &S) {
    Scope Local = S;
    std::vector<z3::expr> Conds;
    for (size_t K = 0; K < F.Index.size(); ++K) {
      Conds.push_back(Idx[K] >= enc(*F.Index[K].Lo, Local));
      Conds.push_back(Idx[K] < enc(*F.Index[K].Hi, Local));
      Local.Vars.insert_or_assign(F.Index[K].Var, Idx[K]);
    }
    S.Fresh = Local.Fresh;
    S.Side = Local.Side;
    S.Mods = Local.Mods;
    S.Divs = Local.Divs;
    S.Pows = Local.Pows;
    return conj(Conds);
  }

  /// ∃ vars of In: In's existence, bundle and side constraints, and Body.
  z3::expr exists(const Inst &In, const z3::expr &Body) {
    z3::expr_vector Bound(C);
    for (const z3::expr &V : In.Vars)
      Bound.push_back(V);
    for (const z3::expr &V : In.BundleVars)
      Bound.push_back(V);
    for (const z3::expr &V : In.S.Fresh)
      Bound.push_back(V);
    std::vector<z3::expr> All{In.Exists, In.BundleRange};
    All.insert(All.end(), In.S.Side.begin(), In.S.Side.end());
    All.push_back(Body);
    return z3::exists(Bound, conj(All));
  }

  z3::expr conj(const std::vector<z3::expr> &V) const {
    z3::expr_vector E(C);
    for (const z3::expr &X : V)
      E.push_back(X);
    return z3::mk_and(E);
  }
  z3::expr disj(const std::vector<z3::expr> &V) const {
    z3::expr_vector E(C);
    for (const z3::expr &X : V)
      E.push_back(X);
    return z3::mk_or(E);
  }

  z3::context &C;
  const Template &T;
  Scope Top;
  std::optional<z3::expr> N, Domain;
  std::vector<z3::expr> StageSteps, StageOffset;
  unsigned FreshCount = 0;

  z3::expr fresh(const char *Base, Scope &S) {
    z3::expr V = C.int_const(
        formatv("{0}{1}!{2}", Prefix, Base, FreshCount++).str().c_str());
    S.Fresh.push_back(V);
    return V;
  }

  z3::expr enc(const Expr &E, Scope &S) {
    switch (E.K) {
    case Expr::Kind::Num:
      return C.int_val(static_cast<int64_t>(E.Value));
    case Expr::Kind::Var: {
      auto It = S.Vars.find(E.Name);
      if (It == S.Vars.end())
        throw std::runtime_error("unknown name '" + E.Name + "'");
      return It->second;
    }
    case Expr::Kind::Neg:
      return -enc(*E.L, S);
    case Expr::Kind::Pow2: {
      // 2^x as the chain of its 63 values: exact (and linear) wherever the
      // range obligation 0 <= x <= MaxPow2 holds.
      z3::expr X = enc(*E.L, S);
      int64_t V;
      if (X.is_numeral_i64(V) && V >= 0 && V <= PowMax)
        return C.int_val(int64_t(1) << V);
      S.Pows.push_back(X);
      z3::expr Out = C.int_val(int64_t(1) << PowMax);
      for (int64_t K = PowMax - 1; K >= 0; --K)
        Out = z3::ite(X == C.int_val(K), C.int_val(int64_t(1) << K), Out);
      return Out;
    }
    default:
      break;
    }
    z3::expr L = enc(*E.L, S), R = enc(*E.R, S);
    switch (E.K) {
    case Expr::Kind::Add:
      return L + R;
    case Expr::Kind::Sub:
      return L - R;
    case Expr::Kind::Mul:
      // A chain of constants (pow2) times a term: the chain of products.
      if (!L.is_numeral() && constChain(L))
        return mapChain(L, [&](const z3::expr &K) { return K * R; });
      if (!R.is_numeral() && constChain(R))
        return mapChain(R, [&](const z3::expr &K) { return L * K; });
      if (!L.is_numeral() && !R.is_numeral())
        Nonlinear = true;
      return L * R;
    case Expr::Kind::Div:
    case Expr::Kind::Rem:
      if (!R.is_numeral() && constChain(R) && positiveChain(R))
        return mapChain(R, [&](const z3::expr &K) {
          // One quotient and remainder per value of the divisor.
          z3::expr Q = fresh("quot", S), Rm = fresh("rem", S);
          S.Side.push_back(L == K * Q + Rm && Rm >= 0 && Rm < K);
          return E.K == Expr::Kind::Div ? Q : Rm;
        });
    {
      // L = R * Q + Rm, 0 <= Rm < R (floor division, R > 0).
      if (!R.is_numeral())
        Nonlinear = true;
      z3::expr Q = fresh("quot", S), Rm = fresh("rem", S);
      z3::expr Def = L == R * Q + Rm && Rm >= 0 && Rm < R;
      int64_t Const = 0;
      if (R.is_numeral_i64(Const) && Const > 0) {
        S.Side.push_back(Def);
      } else {
        // Only where the divisor is positive: a divisor that can be 0 makes
        // the divisor obligation fail instead of every other one vacuous.
        S.Side.push_back(z3::implies(R > 0, Def));
        S.Divs.push_back(R);
      }
      return E.K == Expr::Kind::Div ? Q : Rm;
    }
    case Expr::Kind::Mod:
      S.Mods.push_back({L, R});
      return z3::ite(L < 0, L + R, z3::ite(L >= R, L - R, L));
    case Expr::Kind::Min:
      return z3::ite(L < R, L, R);
    case Expr::Kind::Max:
      return z3::ite(L > R, L, R);
    default:
      break;
    }
    throw std::runtime_error("bad expression");
  }

  /// Reductions: rank R's partial of segment J at the start of step I of
  /// stage K, the contributor interval (lo, len), as the ite chain of the
  /// stage's holds cases; Bad is where a case is evaluated outside its
  /// definition (a `mod` argument outside [-n, 2n), a divisor <= 0).
  struct Held {
    z3::expr Lo, Len, Bad;
  };
  Held holds(unsigned K, const z3::expr &I, const z3::expr &R,
             const z3::expr &J, Scope &S) {
    const std::vector<HoldsCase> &Hs = T.Stages[K].Holds;
    Scope L = S;
    L.Vars.insert_or_assign("i", I);
    // Whether a part's mods and divisors are defined, from the entries it
    // added.
    auto Defined = [&](size_t Mods, size_t Divs, size_t Pows) {
      std::vector<z3::expr> Bad;
      for (size_t X = Pows; X < L.Pows.size(); ++X)
        Bad.push_back(L.Pows[X] < 0 || L.Pows[X] > PowMax);
      for (size_t X = Mods; X < L.Mods.size(); ++X)
        Bad.push_back(L.Mods[X].first < -L.Mods[X].second ||
                      L.Mods[X].first >= 2 * L.Mods[X].second);
      for (size_t X = Divs; X < L.Divs.size(); ++X)
        Bad.push_back(L.Divs[X] <= 0);
      return disj(Bad);
    };
    std::vector<z3::expr> Guards, Los, Lens, Bad;
    z3::expr Reached = C.bool_val(true);
    for (const HoldsCase &H : Hs) {
      L.Vars.insert_or_assign(H.SegVar, J);
      L.Vars.insert_or_assign(H.RankVar, R);
      size_t M0 = L.Mods.size(), D0 = L.Divs.size(), P0 = L.Pows.size();
      z3::expr G = H.Guard ? enc(*H.Guard, L) : C.bool_val(true);
      Bad.push_back(Reached && Defined(M0, D0, P0));
      size_t M1 = L.Mods.size(), D1 = L.Divs.size(), P1 = L.Pows.size();
      Los.push_back(enc(*H.Lo, L));
      Lens.push_back(enc(*H.Len, L));
      Bad.push_back(Reached && G && Defined(M1, D1, P1));
      Guards.push_back(G);
      Reached = Reached && !G;
    }
    z3::expr Lo = Los.back(), Len = Lens.back();
    for (size_t X = Hs.size() - 1; X-- > 0;) {
      Lo = z3::ite(Guards[X], Los[X], Lo);
      Len = z3::ite(Guards[X], Lens[X], Len);
    }
    S.Fresh = L.Fresh;
    S.Side = L.Side;
    S.Mods = L.Mods;
    S.Divs = L.Divs;
    S.Pows = L.Pows;
    return Held{Lo, Len, disj(Bad)};
  }
  /// Rank X is a contributor of the cyclic interval of H (0 <= X < ranks).
  z3::expr contains(const Held &H, const z3::expr &X) const {
    z3::expr D = X - H.Lo;
    return z3::ite(D < 0, D + *N, D) < H.Len;
  }

  /// A numeral, or ite(c, numeral, chain): what pow2 encodes to.
  static bool constChain(const z3::expr &X) {
    if (X.is_numeral())
      return true;
    return X.is_app() && X.decl().decl_kind() == Z3_OP_ITE &&
           X.arg(1).is_numeral() && constChain(X.arg(2));
  }
  static bool positiveChain(const z3::expr &X) {
    int64_t V = 0;
    if (X.is_numeral())
      return X.is_numeral_i64(V) && V > 0;
    return positiveChain(X.arg(1)) && positiveChain(X.arg(2));
  }
  /// The chain with F applied to every numeral.
  static z3::expr mapChain(const z3::expr &X,
                           const std::function<z3::expr(const z3::expr &)> &F) {
    if (X.is_numeral())
      return F(X);
    return z3::ite(X.arg(0), F(X.arg(1)), mapChain(X.arg(2), F));
  }

  z3::expr enc(const Cond &Cd, Scope &S) {
    switch (Cd.K) {
    case Cond::Kind::True:
      return C.bool_val(true);
    case Cond::Kind::And:
      return enc(*Cd.L, S) && enc(*Cd.R, S);
    case Cond::Kind::Or:
      return enc(*Cd.L, S) || enc(*Cd.R, S);
    case Cond::Kind::Not:
      return !enc(*Cd.L, S);
    default:
      break;
    }
    z3::expr A = enc(*Cd.A, S), B = enc(*Cd.B, S);
    switch (Cd.K) {
    case Cond::Kind::Lt:
      return A < B;
    case Cond::Kind::Le:
      return A <= B;
    case Cond::Kind::Gt:
      return A > B;
    case Cond::Kind::Ge:
      return A >= B;
    case Cond::Kind::Eq:
      return A == B;
    case Cond::Kind::Ne:
      return A != B;
    default:
      break;
    }
    throw std::runtime_error("bad condition");
  }
};

/// An obligation's query: satisfiable means a counterexample.
struct Query {
  Obligation O;
  std::function<z3::expr(TemplateEncoder &)> Build;
  /// What to read off a model: (name, expr) pairs, and the step and rank.
  std::function<void(TemplateEncoder &, z3::model &, Obligation &)> Decode;
};

class Prover {
public:
  Prover(const Template &T, const ProveOptions &O) : T(T), Opts(O) {}

  llvm::Expected<ProveReport> run() {
    auto Start = std::chrono::steady_clock::now();
    ProveReport Rep;
    Rep.Template = T.Name;
    if (auto E = checkDomain())
      return std::move(E);
    PowMax = powBound();
    {
      std::vector<Query> Qs = queries();
      for (Query &Q : Qs) {
        Rep.Obligations.push_back(solve(Q));
        if (Opts.StopAtFirst &&
            Rep.Obligations.back().R == Obligation::Result::Counterexample)
          break;
      }
    } // the queries' expressions go before the context

    Rep.Seconds = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - Start)
                      .count();
    return Rep;
  }

private:
  const Template &T;
  ProveOptions Opts;
  /// One context for every query: the queries' decoders keep expressions
  /// of it until the report is built.
  z3::context C;

  /// Milliseconds a query may take: the per-query timeout, cut to what is
  /// left of the run's deadline (0: the deadline has passed).
  unsigned budgetMs() const { return queryBudgetMs(Opts); }

  /// The largest exponent pow2 is encoded for: the largest value a
  /// parameter takes in the domain, plus 2 (the exponents of the templates
  /// are a parameter, a step index below it, or one more), at most
  /// MaxPow2. A shorter chain is a smaller formula; the range obligations
  /// prove every exponent stays within it, so the bound is never assumed.
  int64_t PowMax = MaxPow2;
  int64_t powBound() {
    try {
      TemplateEncoder E(C, T);
      E.prepare();
      z3::optimize O(C);
      z3::params P(C);
      P.set("timeout", std::max(1u, std::min(budgetMs(), 5000u)));
      O.set(P);
      O.add(E.context());
      int64_t H = 0;
      for (const std::string &Name : T.Params) {
        O.push();
        z3::optimize::handle Hd = O.maximize(E.param(Name));
        int64_t X = 0;
        bool Ok = O.check() == z3::sat && O.upper(Hd).is_numeral_i64(X);
        O.pop();
        if (!Ok)
          return MaxPow2;
        H = std::max(H, X);
      }
      return std::min<int64_t>(MaxPow2, H + 2);
    } catch (const z3::exception &) {
      return MaxPow2;
    }
  }

  /// An empty domain would make every obligation hold: refused.
  llvm::Error checkDomain() {
    try {
      TemplateEncoder E(C, T);
      E.prepare();
      z3::solver S(C);
      z3::params P(C);
      P.set("timeout", std::max(1u, budgetMs()));
      S.set(P);
      S.add(E.context());
      if (S.check() != z3::unsat)
        return llvm::Error::success();
    } catch (const z3::exception &Ex) {
      return makeDiagError("template", formatv("{0}: solver error on the "
                                               "domain: {1}",
                                               T.Source, Ex.msg()));
    }
    std::string Dom;
    for (const CondPtr &Cd : T.Domain)
      Dom += (Dom.empty() ? "" : ", ") + Cd->str();
    return makeDiagError("template",
                         formatv("{0}: the domain of {1} is empty: no value "
                                 "of {2} satisfies `{3}`, so there is nothing "
                                 "to prove",
                                 T.Source, T.Name, llvm::join(T.Params, ", "),
                                 Dom));
  }

  static std::vector<z3::expr> pairDiffer(const std::vector<z3::expr> &A,
                                          const std::vector<z3::expr> &B) {
    std::vector<z3::expr> D;
    for (size_t K = 1; K < A.size(); ++K) // [0] is the shared step index
      D.push_back(A[K] != B[K]);
    return D;
  }

  static void decodeInst(TemplateEncoder &E, z3::model &M, const Inst &In,
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

  std::vector<Query> queries() {
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
      for (auto [Receivers, Buffer] : specGoals())
        coverQuery(Receivers, Buffer, Qs);
    }
    // The quantifier-free obligations first, then availability (and a
    // reduction's frames), then completeness: the cheap ones find most
    // counterexamples.
    auto Rank = [](const Query &Q) {
      return Q.O.Kind == "completeness"
                 ? 2
                 : Q.O.Kind == "availability" || Q.O.Kind == "frame";
    };
    std::stable_sort(Qs.begin(), Qs.end(),
                     [&](const Query &A, const Query &B) {
                       return Rank(A) < Rank(B);
                     });
    return Qs;
  }

  void portQuery(unsigned K, const OpGen &G1, const OpGen &G2, bool Same,
                 bool Send, std::vector<Query> &Qs) {
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
  void opQueries(unsigned K, const OpGen &G, std::vector<Query> &Qs) {
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
    Single("mod", formatv("the `mod` arguments of {0} lie in [-n, 2n) (and "
                          "its pow2 exponents in [0, {1}])",
                          G.Label, PowMax),
           [](TemplateEncoder &E, Inst &A) {
             std::vector<z3::expr> Out;
             for (auto &[X, N] : A.S.Mods)
               Out.push_back(X < -N || X >= 2 * N);
             for (const z3::expr &X : A.S.Pows)
               Out.push_back(X < 0 || X > E.PowMax);
             return E.disj(Out);
           });
    bool OpDivides = oddDivisor(G.Loops) || oddDivisor(G.Guard.get()) ||
                     oddDivisor(G.Src.get()) || oddDivisor(G.Dst.get()) ||
                     oddDivisor(G.Bundle) ||
                     llvm::any_of(G.MsgIndex, [](const ExprPtr &X) {
                       return oddDivisor(X.get());
                     });
    if (OpDivides)
      Single("divisor", formatv("every divisor of {0} is positive", G.Label),
             [](TemplateEncoder &E, Inst &A) {
               std::vector<z3::expr> Out;
               for (const z3::expr &D : A.S.Divs)
                 Out.push_back(D <= 0);
               return E.disj(Out);
             });
    const MessageFamily &F = *T.family(G.Family);
    Single("message", formatv("{0} sends existing messages of {1}", G.Label,
                              F.Name),
           [&F](TemplateEncoder &E, Inst &A) {
             return !E.indexInRange(F, A.Msg, A.S);
           });
    // A reduction's availability is its holds (every rank holds a partial
    // of every segment): reductionQueries.
    if (T.isReduction())
      return;
    // Availability: the sender is the origin or received the message in an
    // earlier step, from any op line of the same family.
    Query Q;
    Q.O.Kind = "availability";
    Q.O.Name = formatv("availability {0}", G.Label);
    Q.O.Claim = formatv("the sender of every op of {0} holds its message",
                        G.Label);
    auto Holder = std::make_shared<std::vector<Inst>>();
    Q.Build = [=, this, &G, &F](TemplateEncoder &E) {
      Holder->clear();
      Holder->push_back(E.instantiate(K, G, "@1"));
      Inst &A = (*Holder)[0];
      std::vector<z3::expr> Earlier;
      unsigned Tag = 2;
      for (unsigned K2 = 0; K2 < T.Stages.size(); ++K2)
        for (const OpGen &G2 : T.Stages[K2].Ops) {
          if (G2.Family != G.Family)
            continue;
          Inst B = E.instantiate(K2, G2, formatv("@{0}", Tag++).str());
          std::vector<z3::expr> Same{B.Step < A.Step, B.Dst == A.Src};
          for (size_t X = 0; X < A.Msg.size(); ++X)
            Same.push_back(B.Msg[X] == A.Msg[X]);
          Earlier.push_back(E.exists(B, E.conj(Same)));
        }
      z3::expr Origin = E.origin(F, A.Msg, A.S);
      std::vector<z3::expr> All{A.Exists, A.BundleRange, A.Src != Origin,
                                !E.disj(Earlier)};
      All.insert(All.end(), A.S.Side.begin(), A.S.Side.end());
      return E.conj(All);
    };
    Q.Decode = [Holder](TemplateEncoder &E, z3::model &M, Obligation &O) {
      decodeInst(E, M, (*Holder)[0], O);
    };
    Qs.push_back(std::move(Q));
  }

  /// What the expander evaluates outside the op lines — lets, domain,
  /// ranks, groups, stage lengths, message families and goals — is defined
  /// for every parameter value in the domain: divisors positive, `mod`
  /// arguments in [-n, 2n) (the wrap the encoding uses), stages of at least
  /// 0 steps. Only when the template has something to check.
  void headerQuery(std::vector<Query> &Qs) {
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
             oddDivisor(F.Member.get(), true) ||
             oddDivisor(F.Part.get(), true) || oddDivisor(F.Parts.get(), true);
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
          z3::expr V = E.C.int_const(
              formatv("{0}@header{1}", R.Var, Tag).str().c_str());
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
        E.enc(*G.Lo, S);
        E.enc(*G.Hi, S);
        Scope In = S;
        std::vector<z3::expr> Conds;
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
        Bad.push_back(X < 0 || X > E.PowMax);
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

  void goalQuery(size_t GI, std::vector<Query> &Qs) {
    const Goal &Gl = T.Goals[GI];
    const MessageFamily &F = *T.family(Gl.Family);
    Query Q;
    Q.O.Kind = "completeness";
    Q.O.Name = formatv("completeness goal {0}", GI + 1);
    Q.O.Claim = formatv("every rank of [{0}, {1}) receives every {2}",
                        Gl.Lo->str(), Gl.Hi->str(), F.Name);
    auto Vars = std::make_shared<std::vector<z3::expr>>();
    Q.Build = [=, this, &Gl, &F](TemplateEncoder &E) {
      Scope S;
      S.Vars = E.Top.Vars;
      Vars->clear();
      z3::expr R = E.C.int_const("rank@goal");
      Vars->push_back(R);
      std::vector<z3::expr> Idx;
      for (const Range &Rg : Gl.Index.empty() ? F.Index : Gl.Index) {
        z3::expr V = E.C.int_const((Rg.Var + "@goal").c_str());
        Idx.push_back(V);
        Vars->push_back(V);
      }
      std::vector<z3::expr> All{R >= E.enc(*Gl.Lo, S), R < E.enc(*Gl.Hi, S)};
      for (const z3::expr &X : E.goalIndexInRange(Gl, F, Idx, S))
        All.push_back(X);
      All.push_back(R != E.origin(F, Idx, S));
      std::vector<z3::expr> Deliver;
      unsigned Tag = 1;
      for (unsigned K2 = 0; K2 < T.Stages.size(); ++K2)
        for (const OpGen &G2 : T.Stages[K2].Ops) {
          if (G2.Family != Gl.Family)
            continue;
          Inst B = E.instantiate(K2, G2, formatv("@d{0}", Tag++).str());
          std::vector<z3::expr> Same{B.Dst == R};
          for (size_t X = 0; X < Idx.size(); ++X)
            Same.push_back(B.Msg[X] == Idx[X]);
          Deliver.push_back(E.exists(B, E.conj(Same)));
        }
      All.push_back(!E.disj(Deliver));
      All.insert(All.end(), S.Side.begin(), S.Side.end());
      return E.conj(All);
    };
    Q.Decode = [Vars, &Gl, &F](TemplateEncoder &E, z3::model &M,
                               Obligation &O) {
      for (const std::string &P : E.T.Params)
        O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
      O.Rank = M.eval((*Vars)[0], true).get_numeral_int64();
      const std::vector<Range> &Rs = Gl.Index.empty() ? F.Index : Gl.Index;
      for (size_t K = 0; K < Rs.size(); ++K)
        O.Model[Rs[K].Var] = M.eval((*Vars)[K + 1], true).get_numeral_int64();
    };
    Qs.push_back(std::move(Q));
  }

  //===--- Reductions ------------------------------------------------===//

  /// Named free variables of a query, read back from a model ("step" and
  /// "rank" also into the obligation's step and rank).
  using Named = std::vector<std::pair<std::string, z3::expr>>;

  /// A query over free variables of its own (not an op's).
  void freeQuery(const char *Kind, std::string Name, std::string Claim,
                 std::function<z3::expr(TemplateEncoder &, Named &)> Bad,
                 std::vector<Query> &Qs) {
    Query Q;
    Q.O.Kind = Kind;
    Q.O.Name = std::move(Name);
    Q.O.Claim = std::move(Claim);
    auto Vars = std::make_shared<Named>();
    Q.Build = [=](TemplateEncoder &E) {
      Vars->clear();
      return Bad(E, *Vars);
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
  void opQuery(unsigned K, const OpGen &G, const char *Kind, std::string Claim,
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
    Q.Decode = [Holder, Vars](TemplateEncoder &E, z3::model &M,
                              Obligation &O) {
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
  Point point(TemplateEncoder &E, unsigned K, const std::string &Tag,
              Named &Vars, std::vector<z3::expr> &Conds, Scope &S,
              bool Before = false) {
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
  z3::expr contributor(TemplateEncoder &E, Named &Vars,
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
  void reductionQueries(std::vector<Query> &Qs) {
    const MessageFamily &F = T.Messages.front();
    const CollectiveSpec *SpecP = &specOf(T.Kind);
    const CollectiveSpec &Spec = *SpecP;
    unsigned Last = T.Stages.size() - 1;
    auto Stay = [](Scope &S, std::vector<z3::expr> &All) {
      All.insert(All.end(), S.Side.begin(), S.Side.end());
    };

    freeQuery("segments", "segments",
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
                std::vector<z3::expr> Bad{E.enc(*F.Index[0].Lo, S) != 0,
                                          K < 1, E.enc(*G.Lo, S) != 0,
                                          E.enc(*G.Hi, S) != N};
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

    for (unsigned K = 0; K < T.Stages.size(); ++K) {
      const Stage &St = T.Stages[K];
      freeQuery("partial", "partial " + St.Name,
                formatv("at every step of {0} every rank's partial of every "
                        "{1}[j] is a {2}interval of 1 to ranks contributors",
                        St.Name, F.Name,
                        T.Commutative ? "cyclic " : "non-wrapping "),
                [=, this](TemplateEncoder &E, Named &Vars) {
                  Scope S;
                  S.Vars = E.Top.Vars;
                  std::vector<z3::expr> All;
                  Point P = point(E, K, "", Vars, All, S);
                  auto H = E.holds(K, P.I, P.R, P.J, S);
                  z3::expr N = E.ranks();
                  z3::expr Bad = H.Bad || H.Lo < 0 || H.Lo >= N ||
                                 H.Len < 1 || H.Len > N;
                  // Not commutative: no wrap (all ranks: any lo).
                  if (!T.Commutative)
                    Bad = Bad || (H.Lo + H.Len > N && H.Len != N);
                  All.push_back(Bad);
                  Stay(S, All);
                  return E.conj(All);
                },
                Qs);
      freeQuery("frame", "frame " + St.Name,
                formatv("in {0} a partial changes only where an op delivers "
                        "that segment to that rank",
                        St.Name),
                [=, this, &St](TemplateEncoder &E, Named &Vars) {
                  Scope S;
                  S.Vars = E.Top.Vars;
                  std::vector<z3::expr> All;
                  Point P = point(E, K, "", Vars, All, S, /*Before=*/true);
                  z3::expr X = contributor(E, Vars, All);
                  auto Now = E.holds(K, P.I, P.R, P.J, S);
                  auto Next = E.holds(K, P.I + 1, P.R, P.J, S);
                  All.push_back(E.contains(Now, X) != E.contains(Next, X));
                  std::vector<z3::expr> Deliver;
                  unsigned Tag = 1;
                  for (const OpGen &G2 : St.Ops) {
                    Inst B = E.instantiate(K, G2, formatv("@d{0}", Tag++).str());
                    Deliver.push_back(E.exists(
                        B, B.Vars[0] == P.I && B.Dst == P.R &&
                               B.Msg[0] == P.J));
                  }
                  All.push_back(!E.disj(Deliver));
                  Stay(S, All);
                  return E.conj(All);
                },
                Qs);
      for (const OpGen &G : St.Ops)
        reductionOpQueries(K, G, Qs);
      if (K == Last)
        continue;
      freeQuery("link", formatv("link {0} {1}", St.Name,
                                T.Stages[K + 1].Name),
                formatv("what {0} ends with, {1} starts with", St.Name,
                        T.Stages[K + 1].Name),
                [=, this](TemplateEncoder &E, Named &Vars) {
                  Scope S;
                  S.Vars = E.Top.Vars;
                  std::vector<z3::expr> All;
                  Point P = point(E, K, "", Vars, All, S);
                  All.push_back(P.I == E.StageSteps[K]);
                  z3::expr X = contributor(E, Vars, All);
                  auto End = E.holds(K, P.I, P.R, P.J, S);
                  auto Start = E.holds(K + 1, E.C.int_val(0), P.R, P.J, S);
                  All.push_back(E.contains(End, X) != E.contains(Start, X));
                  Stay(S, All);
                  return E.conj(All);
                },
                Qs);
    }

    freeQuery("initial", "initial",
              formatv("at the start every rank holds its own contribution "
                      "to every {0}[j]",
                      F.Name),
              [=, this](TemplateEncoder &E, Named &Vars) {
                Scope S;
                S.Vars = E.Top.Vars;
                std::vector<z3::expr> All;
                Point P = point(E, 0, "", Vars, All, S);
                All.push_back(P.I == 0);
                z3::expr X = contributor(E, Vars, All);
                auto H = E.holds(0, P.I, P.R, P.J, S);
                All.push_back(E.contains(H, X) != (X == P.R));
                Stay(S, All);
                return E.conj(All);
              },
              Qs);

    std::string Who = Spec.Result == ResultRule::OwnSlice
                          ? formatv("rank j ends with {0}[j]", F.Name).str()
                      : T.Root ? formatv("the root ends with every {0}[j]",
                                         F.Name)
                                     .str()
                               : formatv("every rank ends with every {0}[j]",
                                         F.Name)
                                     .str();
    freeQuery("completeness", "completeness",
              Who + " combining every rank's contribution",
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
                z3::expr X = contributor(E, Vars, All);
                auto H = E.holds(Last, P.I, P.R, P.J, S);
                All.push_back(!E.contains(H, X));
                Stay(S, All);
                return E.conj(All);
              },
              Qs);
  }

  /// An op's transition, and for `combine` exactly-once and (not
  /// commutative) rank order.
  void reductionOpQueries(unsigned K, const OpGen &G, std::vector<Query> &Qs) {
    const MessageFamily &F = T.Messages.front();
    // The sender's, the receiver's and the receiver's next partial.
    auto States = [=, this](TemplateEncoder &E, Inst &A) {
      return std::array<TemplateEncoder::Held, 3>{
          E.holds(K, A.Vars[0], A.Src, A.Msg[0], A.S),
          E.holds(K, A.Vars[0], A.Dst, A.Msg[0], A.S),
          E.holds(K, A.Vars[0] + 1, A.Dst, A.Msg[0], A.S)};
    };
    opQuery(K, G, "transition",
            formatv("after {0} the receiver holds {1}", G.Label,
                    G.Combine ? "its partial combined with the sender's"
                              : "the sender's partial"),
            [=, this](TemplateEncoder &E, Inst &A, Named &Vars) {
              std::vector<z3::expr> All;
              z3::expr X = contributor(E, Vars, All);
              auto [Snd, Rcv, Next] = States(E, A);
              z3::expr Want = E.contains(Snd, X);
              if (G.Combine)
                Want = Want || E.contains(Rcv, X);
              All.push_back(E.contains(Next, X) != Want);
              return E.conj(All);
            },
            Qs);
    if (!G.Combine)
      return;
    opQuery(K, G, "exactly-once",
            formatv("{0} combines partials of disjoint contributor sets "
                    "(every contribution counted once)",
                    G.Label),
            [=, this](TemplateEncoder &E, Inst &A, Named &Vars) {
              std::vector<z3::expr> All;
              z3::expr X = contributor(E, Vars, All);
              auto [Snd, Rcv, Next] = States(E, A);
              All.push_back(E.contains(Snd, X) && E.contains(Rcv, X));
              return E.conj(All);
            },
            Qs);
    if (T.Commutative)
      return;
    opQuery(K, G, "order",
            formatv("{0} joins adjacent rank intervals of {1}[j] (the lower "
                    "one the left operand)",
                    G.Label, F.Name),
            [=, this](TemplateEncoder &E, Inst &A, Named &) {
              auto [Snd, Rcv, Next] = States(E, A);
              return !(Snd.Lo + Snd.Len == Rcv.Lo ||
                       Rcv.Lo + Rcv.Len == Snd.Lo);
            },
            Qs);
  }

  bool isBcast() const {
    return specOf(T.Kind).Data == DataKind::Broadcast;
  }

  /// The first message family of buffer Buf cut into parts, or null.
  const MessageFamily *partedFamily(llvm::StringRef Buf) const {
    for (const MessageFamily &F : T.Messages)
      if (F.Group == Buf && F.Part)
        return &F;
    return nullptr;
  }

  /// The declared range [Lo, Hi) of group G.
  const GroupDecl *groupDecl(llvm::StringRef G) const {
    for (const GroupDecl &D : T.Groups)
      if (D.Name == G)
        return &D;
    return nullptr;
  }

  /// (receiving group, buffer) pairs the collective's completeness rule
  /// requires (checkAgainstSpec admits gather-type rules only).
  std::vector<std::pair<std::string, std::string>> specGoals() const {
    return completenessGoals(T.Kind);
  }

  /// Message F[idx] is member(idx)'s own contribution, so it originates at
  /// that member's rank: the collective's initial holdings, not the
  /// template's say-so.
  void originQuery(const MessageFamily &F, std::vector<Query> &Qs) {
    // parseTemplate's checkAgainstSpec declares every group a family names.
    if (!groupDecl(F.Group))
      return;
    Query Q;
    Q.O.Kind = "origin";
    Q.O.Name = formatv("origin {0}", F.Name);
    Q.O.Claim = isBcast()
                    ? formatv("every {0}[...] starts at the root, {1}, a "
                              "rank of group {2}",
                              F.Name, T.Root->str(), F.Group)
                          .str()
                    : formatv("every {0}[...] starts at the rank of member "
                              "{1} of group {2}",
                              F.Name, F.Member->str(), F.Group)
                          .str();
    auto Vars = std::make_shared<std::vector<z3::expr>>();
    Q.Build = [=, this, &F](TemplateEncoder &E) {
      Scope S;
      S.Vars = E.Top.Vars;
      Vars->clear();
      std::vector<z3::expr> Idx;
      for (const Range &Rg : F.Index) {
        z3::expr V = E.C.int_const((Rg.Var + "@origin").c_str());
        Idx.push_back(V);
        Vars->push_back(V);
      }
      std::vector<z3::expr> All{E.indexInRange(F, Idx, S)};
      z3::expr Origin = E.origin(F, Idx, S);
      z3::expr Member = E.member(F, Idx, S);
      const GroupDecl *G = groupDecl(F.Group);
      z3::expr Lo = E.enc(*G->Lo, S), Hi = E.enc(*G->Hi, S);
      if (isBcast()) {
        // The vector is the root's (checkAgainstSpec: member 0).
        z3::expr Root = E.enc(*T.Root, S);
        All.push_back(Root < Lo || Root >= Hi || Origin != Root);
      } else {
        All.push_back(Member < 0 || Lo + Member >= Hi ||
                      Origin != Lo + Member);
      }
      All.insert(All.end(), S.Side.begin(), S.Side.end());
      return E.conj(All);
    };
    Q.Decode = [Vars, &F](TemplateEncoder &E, z3::model &M, Obligation &O) {
      for (const std::string &P : E.T.Params)
        O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
      for (size_t K = 0; K < F.Index.size(); ++K)
        O.Model[F.Index[K].Var] =
            M.eval((*Vars)[K], true).get_numeral_int64();
    };
    Qs.push_back(std::move(Q));
  }

  /// The collective's completeness rule against the goals: every rank of
  /// group Receivers is the goal rank of some goal delivering member m of
  /// buffer Buffer, for every member m it does not contribute itself. (With
  /// `part s of N` families, one part per member is what this checks; the
  /// goal obligations then deliver the parts the goals name.)
  void coverQuery(const std::string &Receivers, const std::string &Buffer,
                  std::vector<Query> &Qs) {
    if (!groupDecl(Receivers) || !groupDecl(Buffer))
      return;
    Query Q;
    Q.O.Kind = "completeness";
    Q.O.Name = formatv("completeness {0} gets {1}", Receivers, Buffer);
    Q.O.Claim = formatv("the goals give every rank of group {0} every "
                        "member's message of buffer {1} ({2})",
                        Receivers, Buffer, specOf(T.Kind).Rule);
    auto Vars = std::make_shared<std::vector<z3::expr>>();
    Q.Build = [=, this](TemplateEncoder &E) {
      Scope S;
      S.Vars = E.Top.Vars;
      Vars->clear();
      z3::expr R = E.C.int_const("rank@cover");
      z3::expr M = E.C.int_const("member@cover");
      Vars->push_back(R);
      Vars->push_back(M);
      const GroupDecl *GR = groupDecl(Receivers), *GB = groupDecl(Buffer);
      z3::expr RLo = E.enc(*GR->Lo, S), RHi = E.enc(*GR->Hi, S);
      z3::expr BLo = E.enc(*GB->Lo, S), BHi = E.enc(*GB->Hi, S);
      // A broadcast: every rank but the root gets member 0 (the root's
      // vector), every part of it where the messages are parts.
      std::vector<z3::expr> All{R >= RLo, R < RHi, M >= 0};
      std::optional<z3::expr> Part;
      if (isBcast()) {
        All.push_back(M == 0);
        All.push_back(R != E.enc(*T.Root, S));
        if (const MessageFamily *PF = partedFamily(Buffer)) {
          Part = E.C.int_const("part@cover");
          Vars->push_back(*Part);
          All.push_back(*Part >= 0);
          All.push_back(*Part < E.enc(*PF->Parts, S));
        }
      } else {
        All.push_back(BLo + M < BHi);
        All.push_back(R != BLo + M);
      }
      std::vector<z3::expr> Covered;
      unsigned Tag = 1;
      for (const Goal &Gl : T.Goals) {
        const MessageFamily &F = *T.family(Gl.Family);
        if (F.Group != Buffer)
          continue;
        Scope GS = S;
        GS.Fresh.clear();
        GS.Side.clear();
        std::string Suffix = formatv("@cover{0}", Tag++).str();
        std::vector<z3::expr> Idx, Conds{R >= E.enc(*Gl.Lo, GS),
                                         R < E.enc(*Gl.Hi, GS)};
        for (const Range &Rg : Gl.Index.empty() ? F.Index : Gl.Index)
          Idx.push_back(E.C.int_const((Rg.Var + Suffix).c_str()));
        for (const z3::expr &X : E.goalIndexInRange(Gl, F, Idx, GS))
          Conds.push_back(X);
        Conds.push_back(E.member(F, Idx, GS) == M);
        if (Part && F.Part) {
          Scope PS = GS;
          for (size_t K = 0; K < F.Index.size(); ++K)
            PS.Vars.insert_or_assign(F.Index[K].Var, Idx[K]);
          Conds.push_back(E.enc(*F.Part, PS) == *Part);
          Conds.push_back(E.enc(*F.Parts, PS) ==
                          E.enc(*partedFamily(Buffer)->Parts, PS));
          GS.Fresh = PS.Fresh;
          GS.Side = PS.Side;
          GS.Mods = PS.Mods;
        }
        Conds.insert(Conds.end(), GS.Side.begin(), GS.Side.end());
        z3::expr_vector Bound(E.C);
        for (const z3::expr &V : Idx)
          Bound.push_back(V);
        for (const z3::expr &V : GS.Fresh)
          Bound.push_back(V);
        Covered.push_back(Bound.empty() ? E.conj(Conds)
                                        : z3::exists(Bound, E.conj(Conds)));
      }
      All.push_back(!E.disj(Covered));
      All.insert(All.end(), S.Side.begin(), S.Side.end());
      return E.conj(All);
    };
    Q.Decode = [Vars](TemplateEncoder &E, z3::model &M, Obligation &O) {
      for (const std::string &P : E.T.Params)
        O.Model[P] = M.eval(E.param(P), true).get_numeral_int64();
      O.Rank = M.eval((*Vars)[0], true).get_numeral_int64();
      O.Model["member"] = M.eval((*Vars)[1], true).get_numeral_int64();
      if (Vars->size() > 2)
        O.Model["part"] = M.eval((*Vars)[2], true).get_numeral_int64();
    };
    Qs.push_back(std::move(Q));
  }

  /// Solves Q for every parameter value (and, if that is unknown, for each
  /// value up to the bound).
  Obligation solve(Query &Q) {
    Obligation O = Q.O;
    auto Start = std::chrono::steady_clock::now();
    if (budgetMs() == 0) {
      O.R = Obligation::Result::Unknown;
      O.Why = "not attempted: the run's --timeout has passed";
      return O;
    }
    try {
      TemplateEncoder E(C, T);
      E.PowMax = PowMax;
      E.prepare();
      z3::expr F = Q.Build(E);
      z3::solver S(C);
      z3::params P(C);
      P.set("timeout", budgetMs());
      S.set(P);
      S.add(E.context());
      S.add(F);
      z3::check_result R = S.check();
      if (R == z3::unsat) {
        O.R = Obligation::Result::Proved;
      } else if (R == z3::sat) {
        O.R = Obligation::Result::Counterexample;
        z3::model M = smallest(E, S);
        Q.Decode(E, M, O);
      } else {
        O.Why = S.reason_unknown();
        if (E.Nonlinear)
          O.Why += " (the obligation has a nonlinear term)";
        bounded(Q, O);
      }
    } catch (const z3::exception &Ex) {
      O.R = Obligation::Result::Unknown;
      O.Why = std::string("solver error: ") + Ex.msg();
    } catch (const std::exception &Ex) {
      O.R = Obligation::Result::Unknown;
      O.Why = Ex.what();
    }
    O.Seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
    return O;
  }

  /// A model of S with small parameters: the sum of the parameters is bound
  /// by 2, 4, 8, ... until the query is satisfiable (it is, at the latest,
  /// by the sum of the first model's). Small counterexamples are the ones a
  /// reader, and the explicit engine, can replay.
  z3::model smallest(TemplateEncoder &E, z3::solver &S) {
    z3::model First = S.get_model();
    z3::expr Sum = C.int_val(0);
    for (const std::string &P : T.Params)
      Sum = Sum + E.param(P);
    int64_t Found = First.eval(Sum, true).get_numeral_int64();
    // Each try gets a short budget: a hard query keeps its first model.
    z3::params Short(C);
    for (int64_t K = 2; K < Found && budgetMs() > 0; K *= 2) {
      Short.set("timeout", std::min(budgetMs(), 3000u));
      S.set(Short);
      S.push();
      S.add(Sum <= C.int_val(K));
      if (S.check() == z3::sat) {
        z3::model M = S.get_model();
        S.pop();
        return M;
      }
      S.pop();
    }
    return First;
  }

  /// Every parameter value in [1, Bound] that lies in the domain, one query
  /// each with the parameters fixed (no longer nonlinear).
  void bounded(Query &Q, Obligation &O) {
    std::vector<Env> Points; // parameters with their lets, in the domain
    Env Cur;
    std::function<void(size_t)> Enumerate = [&](size_t K) {
      if (K == T.Params.size()) {
        auto V = bindParams(T, Cur);
        if (V)
          Points.push_back(*V);
        else
          llvm::consumeError(V.takeError());
        return;
      }
      for (int64_t X = 1; X <= Opts.Bound; ++X) {
        Cur[T.Params[K]] = X;
        Enumerate(K + 1);
      }
    };
    Enumerate(0);
    if (Points.empty()) {
      // "Proved for each of 0 values" would be vacuous.
      O.R = Obligation::Result::Unknown;
      O.Why += formatv("; no parameter value with every parameter in [1, {0}] "
                       "lies in the domain, so the bounded proof proves "
                       "nothing",
                       Opts.Bound)
                   .str();
      return;
    }
    for (const Env &Pt : Points) {
      if (budgetMs() == 0) {
        O.R = Obligation::Result::Unknown;
        O.Why += "; the run's --timeout passed during the bounded proof";
        return;
      }
      TemplateEncoder E(C, T);
      int64_t Largest = 0;
      for (const std::string &Name : T.Params)
        Largest = std::max(Largest, Pt.at(Name));
      E.PowMax = std::min<int64_t>(PowMax, Largest + 2);
      E.prepare(&Pt);
      z3::expr F = Q.Build(E);
      z3::solver S(C);
      z3::params P(C);
      P.set("timeout", budgetMs());
      S.set(P);
      S.add(E.context());
      S.add(F);
      z3::check_result R = S.check();
      if (R == z3::sat) {
        O.R = Obligation::Result::Counterexample;
        z3::model M = S.get_model();
        Q.Decode(E, M, O);
        return;
      }
      if (R == z3::unknown) {
        std::string At;
        for (const std::string &Name : T.Params)
          At += (At.empty() ? "" : ", ") + Name + " = " +
                std::to_string(Pt.at(Name));
        O.R = Obligation::Result::Unknown;
        O.Why += "; unknown for " + At + " too (" + S.reason_unknown() + ")";
        return;
      }
    }
    O.R = Obligation::Result::ProvedBounded;
    O.Why += formatv("; proved for each of the {0} parameter values with "
                     "every parameter in [1, {1}]",
                     Points.size(), Opts.Bound)
                 .str();
  }
};

} // namespace

llvm::Expected<ProveReport> choreo::proveTemplate(const Template &T,
                                                  const ProveOptions &O) {
  // Parsed templates passed this already; one built in code must too.
  if (auto E = checkAgainstSpec(T))
    return std::move(E);
  return Prover(T, O).run();
}

namespace {

/// The parameter values with each parameter in [1, Bound], smallest sum
/// first.
std::vector<Env> smallParams(const std::vector<std::string> &Params,
                             int64_t Bound) {
  std::vector<Env> Out{Env()};
  for (const std::string &P : Params) {
    std::vector<Env> Next;
    for (const Env &E : Out)
      for (int64_t X = 1; X <= Bound; ++X) {
        Next.push_back(E);
        Next.back()[P] = X;
      }
    Out = std::move(Next);
  }
  auto Sum = [](const Env &E) {
    int64_t S = 0;
    for (const auto &[N, V] : E)
      S += V;
    return S;
  };
  std::stable_sort(Out.begin(), Out.end(),
                   [&](const Env &A, const Env &B) { return Sum(A) < Sum(B); });
  return Out;
}

bool inDomain(const Template &T, const Env &Params) {
  auto V = bindParams(T, Params);
  if (V)
    return true;
  llvm::consumeError(V.takeError());
  return false;
}

/// proveDomainsCover: every template's domain in one context, its lets
/// (and the quotients and remainders they introduce) bound existentially,
/// so that a domain holds exactly where bindParams accepts the parameters.
class DomainCover {
public:
  DomainCover(llvm::ArrayRef<const Template *> Ts, const ProveOptions &O)
      : Ts(Ts), Opts(O), Params(Ts.front()->Params) {}

  ProveReport run() {
    ProveReport Rep;
    Rep.Template = "domains";
    std::string Region, Names;
    for (const std::string &P : Params) {
      Region += (Region.empty() ? "" : ", ") + P + " >= 1";
      InRegion.push_back(C.int_const(P.c_str()) >= 1);
    }
    for (const Template *T : Ts) {
      Names += (Names.empty() ? "" : ", ") + T->Name;
      Dom.push_back(domain(*T, "t" + std::to_string(Dom.size()) + "."));
    }
    for (size_t A = 0; A < Ts.size(); ++A)
      for (size_t B = A + 1; B < Ts.size(); ++B) {
        Obligation O;
        O.Kind = "disjoint";
        O.Name = formatv("disjoint {0} {1}", Ts[A]->Name, Ts[B]->Name);
        O.Claim = formatv("no parameter value with {0} lies in the domains "
                          "of both {1} and {2}",
                          Region, Ts[A]->Name, Ts[B]->Name);
        Rep.Obligations.push_back(
            solve(O, {Dom[A], Dom[B]}, [&](const Env &Pt) {
              return inDomain(*Ts[A], Pt) && inDomain(*Ts[B], Pt);
            }));
      }
    Obligation O;
    O.Kind = O.Name = "cover";
    O.Claim = formatv("every parameter value with {0} lies in the domain of "
                      "one of {1}",
                      Region, Names);
    std::vector<z3::expr> None;
    for (const z3::expr &D : Dom)
      None.push_back(!D);
    Rep.Obligations.push_back(solve(O, None, [&](const Env &Pt) {
      return llvm::none_of(Ts,
                           [&](const Template *T) { return inDomain(*T, Pt); });
    }));
    for (const Obligation &Ob : Rep.Obligations)
      Rep.Seconds += Ob.Seconds;
    return Rep;
  }

private:
  llvm::ArrayRef<const Template *> Ts;
  ProveOptions Opts;
  const std::vector<std::string> &Params;
  z3::context C;
  std::vector<z3::expr> InRegion, Dom;
  bool Nonlinear = false;

  z3::expr domain(const Template &T, const std::string &Prefix) {
    TemplateEncoder E(C, T);
    E.Prefix = Prefix;
    E.prepare();
    Nonlinear |= E.Nonlinear;
    z3::expr_vector Bound(C);
    for (const auto &[Name, Ex] : T.Lets)
      Bound.push_back(E.Top.Vars.at(Name));
    for (const z3::expr &V : E.Top.Fresh)
      Bound.push_back(V);
    return Bound.empty() ? E.context() : z3::exists(Bound, E.context());
  }

  /// Refutes F (with the parameters >= 1): satisfiable means a parameter
  /// value Fails confirms, reported as the smallest one in [1, Bound] if
  /// there is one. An unknown query is decided by Fails up to the bound.
  Obligation solve(Obligation O, const std::vector<z3::expr> &F,
                   const std::function<bool(const Env &)> &Fails) {
    auto Start = std::chrono::steady_clock::now();
    O.R = Obligation::Result::Unknown;
    try {
      z3::solver S(C);
      z3::params P(C);
      if (queryBudgetMs(Opts) == 0)
        throw z3::exception("not attempted: the run's --timeout has passed");
      P.set("timeout", queryBudgetMs(Opts));
      S.set(P);
      for (const z3::expr &X : InRegion)
        S.add(X);
      for (const z3::expr &X : F)
        S.add(X);
      z3::check_result R = S.check();
      if (R == z3::unsat) {
        O.R = Obligation::Result::Proved;
      } else if (R == z3::sat) {
        O.R = Obligation::Result::Counterexample;
        z3::model M = S.get_model();
        for (const std::string &Pm : Params)
          O.Model[Pm] =
              M.eval(C.int_const(Pm.c_str()), true).get_numeral_int64();
      } else {
        O.Why = S.reason_unknown();
        if (Nonlinear)
          O.Why += " (a domain has a nonlinear term)";
      }
    } catch (const z3::exception &Ex) {
      O.Why = std::string("solver error: ") + Ex.msg();
    }
    if (O.R != Obligation::Result::Proved) {
      for (const Env &Pt : smallParams(Params, Opts.Bound))
        if (Fails(Pt)) {
          O.R = Obligation::Result::Counterexample;
          O.Model = std::map<std::string, int64_t>(Pt.begin(), Pt.end());
          break;
        }
      if (O.R == Obligation::Result::Unknown) {
        O.R = Obligation::Result::ProvedBounded;
        O.Why += formatv("; holds for every parameter in [1, {0}]", Opts.Bound)
                     .str();
      }
    }
    O.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    return O;
  }
};

} // namespace

llvm::Expected<ProveReport>
choreo::proveDomainsCover(llvm::ArrayRef<const Template *> Ts,
                          const ProveOptions &O) {
  if (Ts.empty())
    return ProveReport{"domains", {}, 0};
  for (const Template *T : Ts)
    if (T->Params != Ts.front()->Params)
      return makeDiagError("template",
                           formatv("{0} takes {1} but {2} takes {3}",
                                   Ts.front()->Name,
                                   llvm::join(Ts.front()->Params, ", "),
                                   T->Name, llvm::join(T->Params, ", ")));
  return DomainCover(Ts, O).run();
}
