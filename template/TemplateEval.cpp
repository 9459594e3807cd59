//===- template/TemplateEval.cpp - Evaluating template expressions --------===//
///
/// \file
/// Evaluation of expressions and conditions in 64-bit integers (overflow,
/// non-positive divisors and unknown names are errors naming the line),
/// binding of parameters and lets against the domain, and the contributor
/// interval a reduction stage's `holds` gives a rank.
///
//===----------------------------------------------------------------------===//

#include "template/Template.h"
#include "template/TemplateInternal.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

static int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

llvm::Error choreo::located(llvm::StringRef Source, unsigned Line,
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
  return located(
      Source, E.Line,
      formatv("`{0}` overflows 64-bit integers (at {1})", E.str(), Vals));
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
  if (E.K == Expr::Kind::Log2) {
    if (*L < 1)
      return located(
          Source, E.Line,
          formatv("{0}: log2 of {1}, not a positive number", E.str(), *L));
    return int64_t(63 - __builtin_clzll(uint64_t(*L)));
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
                     formatv("{0}: divisor {1} is not positive", E.str(), *R));
    if (E.K == Expr::Kind::Div)
      return floorDiv(*L, *R);
    return *L - *R * floorDiv(*L, *R);
  case Expr::Kind::Xor:
    // Two values >= 0: their bitwise xor (`r xor (i + 1)`, a pairwise
    // partner). R written `pow2(y)`: flip bit y of L, as two's complement
    // does for a negative L too.
    if (E.R->K != Expr::Kind::Pow2) {
      if (*L < 0 || *R < 0)
        return located(Source, E.Line,
                       formatv("{0}: an operand of `xor` is negative ({1} "
                               "xor {2})",
                               E.str(), *L, *R));
      return *L ^ *R;
    }
    if (*R <= 0 || (*R & (*R - 1)) != 0)
      return located(Source, E.Line,
                     formatv("{0}: {1} is not a power of two", E.str(), *R));
    return (floorDiv(*L, *R) % 2 != 0) ? *L - *R : *L + *R;
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
        Vals += (Vals.empty() ? "" : ", ") + P + " = " + std::to_string(V[P]);
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
                int64_t Rank, int64_t Seg, unsigned Acc) {
  V["i"] = I;
  for (const HoldsCase &H : T.Stages[StageIdx].Holds) {
    if (H.Acc != Acc)
      continue;
    V[H.SegVar] = Seg;
    V[H.RankVar] = Rank;
    if (H.Guard) {
      auto G = evalCond(*H.Guard, V, T.Source);
      if (!G)
        return G.takeError();
      if (!*G)
        continue;
    }
    if (H.Stale)
      return makeDiagError(
          "template",
          formatv("{0}: at step {1} of stage {2} rank {3}'s partial of "
                  "segment {4} is stale (line {5}): no op may send it",
                  T.Source, I, T.Stages[StageIdx].Name, Rank, Seg, H.Line));
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
