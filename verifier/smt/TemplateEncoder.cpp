//===- verifier/smt/TemplateEncoder.cpp - Template terms for Z3 -----------===//
///
/// \file
/// The term encoder of TemplateEncoder.h: expressions and conditions, op
/// line instances, message origins and index ranges, a reduction's holds.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/TemplateEncoder.h"
#include "verifier/smt/Pow2Digits.h"

#include <array>

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using namespace choreo::smt;
using llvm::formatv;

bool smt::oddDivisor(const Expr *E, bool Mods) {
  if (!E)
    return false;
  if ((E->K == Expr::Kind::Div || E->K == Expr::Kind::Rem) &&
      !(E->R->K == Expr::Kind::Num && E->R->Value > 0))
    return true;
  if (Mods && (E->K == Expr::Kind::Mod || E->K == Expr::Kind::Pow2))
    return true;
  if (E->K == Expr::Kind::Log2) // its argument must be positive
    return true;
  if (E->K == Expr::Kind::Xor && E->R->K != Expr::Kind::Pow2)
    return true; // both operands must be >= 0
  return oddDivisor(E->L.get(), Mods) || oddDivisor(E->R.get(), Mods);
}

bool smt::oddDivisor(const Cond *C, bool Mods) {
  if (!C)
    return false;
  return oddDivisor(C->A.get(), Mods) || oddDivisor(C->B.get(), Mods) ||
         oddDivisor(C->L.get(), Mods) || oddDivisor(C->R.get(), Mods);
}

bool smt::oddDivisor(llvm::ArrayRef<Range> Rs, bool Mods) {
  return llvm::any_of(Rs, [&](const Range &R) {
    return oddDivisor(R.Lo.get(), Mods) || oddDivisor(R.Hi.get(), Mods);
  });
}

void TemplateEncoder::prepare(const Env *Fixed) {
  Top.Vars.clear();
  for (const std::string &P : T.Params)
    Top.Vars.emplace(P, Fixed ? C.int_val(static_cast<int64_t>(Fixed->at(P)))
                              : C.int_const(P.c_str()));
  for (const auto &[Name, E] : T.Lets) {
    if (Fixed) {
      Top.Vars.emplace(Name, C.int_val(static_cast<int64_t>(Fixed->at(Name))));
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

z3::expr TemplateEncoder::context() const {
  std::vector<z3::expr> All = Top.Side;
  All.push_back(*Domain);
  return conj(All);
}

Inst TemplateEncoder::instantiate(unsigned StageIdx, const OpGen &G,
                                  const std::string &Tag,
                                  std::optional<z3::expr> SharedI) {
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
  if (G.BundleGuard)
    BConds.push_back(enc(*G.BundleGuard, S));
  std::vector<z3::expr> Msg;
  for (const ExprPtr &E : G.MsgIndex)
    Msg.push_back(enc(*E, S));
  return Inst{&G,    StageIdx,     conj(Conds),  StageOffset[StageIdx] + I,
              Src,   Dst,          Msg,          Vars,
              BVars, conj(BConds), std::move(S), SharedI.has_value()};
}

z3::expr TemplateEncoder::origin(const MessageFamily &F,
                                 const std::vector<z3::expr> &Idx, Scope &S) {
  Scope Local = S;
  for (size_t K = 0; K < F.Index.size(); ++K)
    Local.Vars.insert_or_assign(F.Index[K].Var, Idx[K]);
  z3::expr O = enc(*F.Origin, Local);
  S.keepSide(Local);
  return O;
}

z3::expr TemplateEncoder::member(const MessageFamily &F,
                                 const std::vector<z3::expr> &Idx, Scope &S) {
  Scope Local = S;
  for (size_t K = 0; K < F.Index.size(); ++K)
    Local.Vars.insert_or_assign(F.Index[K].Var, Idx[K]);
  z3::expr M = enc(*F.Member, Local);
  S.keepSide(Local);
  return M;
}

std::vector<z3::expr>
TemplateEncoder::goalIndexInRange(const Goal &Gl, const MessageFamily &F,
                                  const std::vector<z3::expr> &Idx, Scope &S) {
  std::vector<z3::expr> Conds;
  Scope IS = S;
  for (size_t K = 0; K < Gl.Index.size(); ++K) {
    Conds.push_back(Idx[K] >= enc(*Gl.Index[K].Lo, IS));
    Conds.push_back(Idx[K] < enc(*Gl.Index[K].Hi, IS));
    IS.Vars.insert_or_assign(Gl.Index[K].Var, Idx[K]);
  }
  S.keepSide(IS);
  Conds.push_back(indexInRange(F, Idx, S));
  return Conds;
}

z3::expr TemplateEncoder::indexInRange(const MessageFamily &F,
                                       const std::vector<z3::expr> &Idx,
                                       Scope &S) {
  Scope Local = S;
  std::vector<z3::expr> Conds;
  for (size_t K = 0; K < F.Index.size(); ++K) {
    Conds.push_back(Idx[K] >= enc(*F.Index[K].Lo, Local));
    Conds.push_back(Idx[K] < enc(*F.Index[K].Hi, Local));
    Local.Vars.insert_or_assign(F.Index[K].Var, Idx[K]);
  }
  S.keepSide(Local);
  return conj(Conds);
}

z3::expr TemplateEncoder::exists(const Inst &In, const z3::expr &Body) {
  z3::expr_vector Bound(C);
  for (size_t K = In.SharedStep ? 1 : 0; K < In.Vars.size(); ++K)
    Bound.push_back(In.Vars[K]);
  for (const z3::expr &V : In.BundleVars)
    Bound.push_back(V);
  for (const z3::expr &V : In.S.Fresh)
    Bound.push_back(V);
  std::vector<z3::expr> All{In.Exists, In.BundleRange};
  All.insert(All.end(), In.S.Side.begin(), In.S.Side.end());
  All.push_back(Body);
  if (Bound.empty()) // every variable shared (an op without loops)
    return conj(All);
  return z3::exists(Bound, conj(All));
}

z3::expr TemplateEncoder::conj(const std::vector<z3::expr> &V) const {
  z3::expr_vector E(C);
  for (const z3::expr &X : V)
    E.push_back(X);
  return z3::mk_and(E);
}

z3::expr TemplateEncoder::disj(const std::vector<z3::expr> &V) const {
  z3::expr_vector E(C);
  for (const z3::expr &X : V)
    E.push_back(X);
  return z3::mk_or(E);
}

z3::expr TemplateEncoder::fresh(const char *Base, Scope &S) {
  z3::expr V = C.int_const(
      formatv("{0}{1}!{2}", Prefix, Base, FreshCount++).str().c_str());
  S.Fresh.push_back(V);
  return V;
}

z3::expr TemplateEncoder::enc(const Expr &E, Scope &S) {
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
    if (SymbolicPow)
      return pow2Fn(C)(X);
    z3::expr Out = C.int_val(int64_t(1) << PowMax);
    for (int64_t K = PowMax - 1; K >= 0; --K)
      Out = z3::ite(X == C.int_val(K), C.int_val(int64_t(1) << K), Out);
    return Out;
  }
  case Expr::Kind::Log2: {
    // floor(log2 x), defined where x >= 1 (x is checked as a divisor is:
    // a log2 of 0 fails the divisor obligation instead of being 0).
    z3::expr X = enc(*E.L, S);
    int64_t V;
    if (X.is_numeral_i64(V) && V >= 1)
      return C.int_val(int64_t(63 - __builtin_clzll(uint64_t(V))));
    S.Divs.push_back(X);
    if (SymbolicPow) {
      // A fresh exponent y with 2^y <= x < 2^(y + 1): the digits take it
      // as any other exponent (Pow2Digits.h).
      for (const auto &[X2, Y2] : S.Logs)
        if (z3::eq(X2, X))
          return Y2;
      z3::expr Y = fresh("log2", S);
      S.Logs.push_back({X, Y});
      S.Side.push_back(z3::implies(X >= 1, Y >= 0 && Y <= MaxPow2 &&
                                               pow2Fn(C)(Y) <= X &&
                                               X < pow2Fn(C)(Y + 1)));
      return Y;
    }
    z3::expr Out = C.int_val(MaxPow2);
    for (int64_t K = MaxPow2 - 1; K >= 0; --K)
      Out = z3::ite(X < C.int_val(int64_t(1) << (K + 1)), C.int_val(K), Out);
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
  case Expr::Kind::Xor: {
    if (E.R->K != Expr::Kind::Pow2)
      return xorOf(L, R, S);
    // R = 2^y: L with bit y flipped, by L's quotient and its parity.
    if (isPow2App(R))
      return pxorFn(C)(L, R.arg(0));
    auto Flip = [&](const z3::expr &K) {
      z3::expr Q = fresh("quot", S), Rm = fresh("rem", S),
               Half = fresh("half", S), Bit = fresh("bit", S);
      S.Side.push_back(L == K * Q + Rm && Rm >= 0 && Rm < K &&
                       Q == 2 * Half + Bit && Bit >= 0 && Bit <= 1);
      return z3::ite(Bit == 0, L + K, L - K);
    };
    if (constChain(R) && positiveChain(R))
      return mapChain(R, Flip);
    throw std::runtime_error("`xor` by something not a power of two");
  }
  case Expr::Kind::Div:
  case Expr::Kind::Rem:
    if (isPow2App(R))
      return (E.K == Expr::Kind::Div ? pdivFn(C) : pmodFn(C))(L, R.arg(0));
    if (!R.is_numeral() && constChain(R) && positiveChain(R))
      return mapChain(R, [&](const z3::expr &K) {
        // One quotient and remainder per value of the divisor.
        z3::expr Q = fresh("quot", S), Rm = fresh("rem", S);
        S.Side.push_back(L == K * Q + Rm && Rm >= 0 && Rm < K);
        return E.K == Expr::Kind::Div ? Q : Rm;
      });
    {
      // L = R * Q + Rm, 0 <= Rm < R (floor division, R > 0). `x / n` and
      // `x % n` in one scope share Q and Rm: one division, so that the
      // solver need not prove two quotients equal (nonlinear with n).
      if (!R.is_numeral())
        Nonlinear = true;
      for (const std::array<z3::expr, 4> &D : S.Quots)
        if (z3::eq(D[0], L) && z3::eq(D[1], R))
          return E.K == Expr::Kind::Div ? D[2] : D[3];
      z3::expr Q = fresh("quot", S), Rm = fresh("rem", S);
      S.Quots.push_back({L, R, Q, Rm});
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

z3::expr TemplateEncoder::xorOf(const z3::expr &L, const z3::expr &R,
                                Scope &S) {
  // Both operands >= 0: checked as divisors are (L + 1 > 0), so that a
  // negative one fails the divisor obligation.
  S.Divs.push_back(L + 1);
  S.Divs.push_back(R + 1);
  int64_t A, B;
  if (L.is_numeral_i64(A) && R.is_numeral_i64(B) && A >= 0 && B >= 0)
    return C.int_val(A ^ B);
  if (SymbolicPow)
    return xorFn(C)(L, R); // with the facts of xorFacts (Pow2Digits.h)
  // Exactly, bit by bit, for operands below 2^W (W = PowMax + 1: the
  // ranks of a template whose parameters are at most PowMax - 2); any
  // value above (never a counterexample the prover keeps: the explicit
  // engine replays it).
  int64_t W = std::min<int64_t>(std::max<int64_t>(PowMax, 0) + 1, 62);
  z3::expr SumL = C.int_val(0), SumR = C.int_val(0), Out = C.int_val(0);
  std::vector<z3::expr> Bits;
  for (int64_t J = 0; J < W; ++J) {
    z3::expr A1 = fresh("xa", S), B1 = fresh("xb", S);
    z3::expr P = C.int_val(int64_t(1) << J);
    Bits.push_back(A1 >= 0 && A1 <= 1 && B1 >= 0 && B1 <= 1);
    SumL = SumL + P * A1;
    SumR = SumR + P * B1;
    Out = Out + z3::ite(A1 == B1, C.int_val(0), P);
  }
  z3::expr Top = C.int_val(int64_t(1) << W);
  z3::expr In = L >= 0 && L < Top && R >= 0 && R < Top;
  Bits.push_back(z3::implies(In, L == SumL && R == SumR));
  S.Side.push_back(conj(Bits));
  return z3::ite(In, Out, fresh("xor", S));
}

TemplateEncoder::Held TemplateEncoder::holds(unsigned K, const z3::expr &I,
                                             const z3::expr &R,
                                             const z3::expr &J, Scope &S,
                                             unsigned Acc) {
  std::vector<HoldsCase> Hs;
  for (const HoldsCase &H : T.Stages[K].Holds)
    if (H.Acc == Acc)
      Hs.push_back(H);
  Scope L = S;
  L.Vars.insert_or_assign("i", I);
  // Whether a part's mods and divisors are defined, from the entries it
  // added.
  auto Defined = [&](size_t Mods, size_t Divs, size_t Pows) {
    std::vector<z3::expr> Bad;
    for (size_t X = Pows; X < L.Pows.size(); ++X)
      Bad.push_back(powOutOfRange(L.Pows[X]));
    for (size_t X = Mods; X < L.Mods.size(); ++X)
      Bad.push_back(L.Mods[X].first < -L.Mods[X].second ||
                    L.Mods[X].first >= 2 * L.Mods[X].second);
    for (size_t X = Divs; X < L.Divs.size(); ++X)
      Bad.push_back(L.Divs[X] <= 0);
    return disj(Bad);
  };
  std::vector<z3::expr> Guards, Los, Lens, Stales, Bad;
  z3::expr Reached = C.bool_val(true);
  for (const HoldsCase &H : Hs) {
    L.Vars.insert_or_assign(H.SegVar, J);
    L.Vars.insert_or_assign(H.RankVar, R);
    size_t M0 = L.Mods.size(), D0 = L.Divs.size(), P0 = L.Pows.size();
    z3::expr G = H.Guard ? enc(*H.Guard, L) : C.bool_val(true);
    Bad.push_back(Reached && Defined(M0, D0, P0));
    size_t M1 = L.Mods.size(), D1 = L.Divs.size(), P1 = L.Pows.size();
    // A stale partial: no interval (an empty one, for the ite).
    Los.push_back(H.Stale ? C.int_val(0) : enc(*H.Lo, L));
    Lens.push_back(H.Stale ? C.int_val(0) : enc(*H.Len, L));
    Stales.push_back(C.bool_val(H.Stale));
    Bad.push_back(Reached && G && Defined(M1, D1, P1));
    Guards.push_back(G);
    Reached = Reached && !G;
  }
  z3::expr Lo = Los.back(), Len = Lens.back(), Stale = Stales.back();
  for (size_t X = Hs.size() - 1; X-- > 0;) {
    Lo = z3::ite(Guards[X], Los[X], Lo);
    Len = z3::ite(Guards[X], Lens[X], Len);
    Stale = z3::ite(Guards[X], Stales[X], Stale);
  }
  S.keepSide(L);
  return Held{Lo, Len, disj(Bad), Stale.simplify()};
}

bool TemplateEncoder::hasHoldsSet(unsigned K, const std::string &F) const {
  for (const HoldsCase &H : T.Stages[K].Holds)
    if (H.isSet() && H.Family == F)
      return true;
  return false;
}

TemplateEncoder::HeldSet
TemplateEncoder::holdsSet(unsigned K, const std::string &F, const z3::expr &I,
                          const z3::expr &R, const std::vector<z3::expr> &Idx,
                          Scope &S) {
  Scope L = S;
  L.Vars.insert_or_assign("i", I);
  std::vector<z3::expr> Has, Bad;
  size_t M0 = L.Mods.size(), D0 = L.Divs.size(), P0 = L.Pows.size();
  for (const HoldsCase &H : T.Stages[K].Holds) {
    if (!H.isSet() || H.Family != F)
      continue;
    for (size_t X = 0; X < H.IndexVars.size(); ++X)
      L.Vars.insert_or_assign(H.IndexVars[X], Idx[X]);
    L.Vars.insert_or_assign(H.RankVar, R);
    Has.push_back(enc(*H.Guard, L));
  }
  for (size_t X = P0; X < L.Pows.size(); ++X)
    Bad.push_back(powOutOfRange(L.Pows[X]));
  for (size_t X = M0; X < L.Mods.size(); ++X)
    Bad.push_back(L.Mods[X].first < -L.Mods[X].second ||
                  L.Mods[X].first >= 2 * L.Mods[X].second);
  for (size_t X = D0; X < L.Divs.size(); ++X)
    Bad.push_back(L.Divs[X] <= 0);
  S.keepSide(L);
  return HeldSet{disj(Has), disj(Bad)};
}

z3::expr TemplateEncoder::contains(const Held &H, const z3::expr &X) const {
  z3::expr D = X - H.Lo;
  return z3::ite(D < 0, D + *N, D) < H.Len;
}

bool TemplateEncoder::isPow2App(const z3::expr &X) {
  return X.is_app() && X.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
         X.decl().name().str() == "pow2";
}

bool TemplateEncoder::constChain(const z3::expr &X) {
  if (X.is_numeral())
    return true;
  return X.is_app() && X.decl().decl_kind() == Z3_OP_ITE &&
         X.arg(1).is_numeral() && constChain(X.arg(2));
}

bool TemplateEncoder::positiveChain(const z3::expr &X) {
  int64_t V = 0;
  if (X.is_numeral())
    return X.is_numeral_i64(V) && V > 0;
  return positiveChain(X.arg(1)) && positiveChain(X.arg(2));
}

z3::expr
TemplateEncoder::mapChain(const z3::expr &X,
                          const std::function<z3::expr(const z3::expr &)> &F) {
  if (X.is_numeral())
    return F(X);
  return z3::ite(X.arg(0), F(X.arg(1)), mapChain(X.arg(2), F));
}

z3::expr TemplateEncoder::enc(const Cond &Cd, Scope &S) {
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
