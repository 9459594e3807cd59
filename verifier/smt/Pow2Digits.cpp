//===- verifier/smt/Pow2Digits.cpp - Powers of two, symbolically ----------===//
///
/// \file
/// The digit translation of Pow2Digits.h: quantifiers opened on fresh
/// constants, the integers sorted into exponents and magnitudes, the base
/// exponent chosen, then every magnitude term rewritten as a pair of
/// digits and every comparison of magnitudes as a case split on the carry
/// of its low digit.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/Pow2Digits.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <vector>

using namespace choreo;
using namespace choreo::smt;
using llvm::formatv;

z3::func_decl smt::pow2Fn(z3::context &C) {
  return C.function("pow2", C.int_sort(), C.int_sort());
}
z3::func_decl smt::pmodFn(z3::context &C) {
  return C.function("mod.pow2", C.int_sort(), C.int_sort(), C.int_sort());
}
z3::func_decl smt::pxorFn(z3::context &C) {
  return C.function("xor.pow2", C.int_sort(), C.int_sort(), C.int_sort());
}
z3::func_decl smt::pdivFn(z3::context &C) {
  return C.function("div.pow2", C.int_sort(), C.int_sort(), C.int_sort());
}

z3::func_decl smt::xorFn(z3::context &C) {
  return C.function("xor", C.int_sort(), C.int_sort(), C.int_sort());
}

namespace {

bool isFnNamed(const z3::expr &E, const char *Name) {
  return E.is_app() && E.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
         E.decl().name().str() == Name;
}

void collectApps(const z3::expr &E, std::set<unsigned> &Seen,
                 std::vector<z3::expr> &Xors, std::vector<z3::expr> &Pows) {
  if (!Seen.insert(E.id()).second || E.is_quantifier() || !E.is_app())
    return;
  if (isFnNamed(E, "xor"))
    Xors.push_back(E);
  else if (isFnNamed(E, "pow2"))
    Pows.push_back(E);
  for (unsigned K = 0; K < E.num_args(); ++K)
    collectApps(E.arg(K), Seen, Xors, Pows);
}

} // namespace

z3::expr smt::xorFacts(z3::context &C, const z3::expr &F) {
  std::set<unsigned> Seen;
  std::vector<z3::expr> Xors, Pows;
  collectApps(F, Seen, Xors, Pows);
  z3::expr_vector Out(C);
  auto Def = [](const z3::expr &T) { return T.arg(0) >= 0 && T.arg(1) >= 0; };
  for (const z3::expr &T : Xors) {
    z3::expr X = T.arg(0), Y = T.arg(1);
    Out.push_back(z3::implies(
        Def(T), T >= 0 && T <= X + Y && T >= X - Y && T >= Y - X &&
                    (T == 0) == (X == Y) && (T == X) == (Y == 0) &&
                    (T == Y) == (X == 0)));
    for (const z3::expr &P : Pows)
      Out.push_back(z3::implies(Def(T) && P.arg(0) >= 0 && X < P && Y < P,
                                T < P));
  }
  for (const z3::expr &T1 : Xors)
    for (const z3::expr &T2 : Xors) {
      if (z3::eq(T1, T2))
        continue;
      z3::expr G = Def(T1) && Def(T2);
      for (unsigned A = 0; A < 2; ++A)
        for (unsigned B = 0; B < 2; ++B) {
          z3::expr X1 = T1.arg(A), Y1 = T1.arg(1 - A);
          z3::expr X2 = T2.arg(B), Y2 = T2.arg(1 - B);
          // A shared operand cancels.
          Out.push_back(z3::implies(G && X1 == X2, (T1 == T2) == (Y1 == Y2)));
          // x xor (x xor y) = y, and (x xor y) xor y = x.
          Out.push_back(z3::implies(G && X2 == X1 && Y2 == T1, T2 == Y1));
          Out.push_back(z3::implies(G && X2 == T1 && Y2 == Y1, T2 == X1));
        }
    }
  return z3::mk_and(Out);
}

namespace {

struct Unsupported {
  std::string Why;
};

/// A magnitude as two digits, H S + L, and bounds on its low digit:
/// ALo S + BLo <= L <= AHi S + BHi.
struct Digits {
  z3::expr H, L;
  int64_t ALo = 0, BLo = 0, AHi = 0, BHi = 0;
};

/// The largest carry range a comparison is split on.
constexpr int64_t MaxCarries = 64;

class Translator {
public:
  explicit Translator(z3::context &C) : C(C), S(C.int_const("pow2.S")) {}

  std::optional<DigitForm> run(const z3::expr &F0, std::string &Why) {
    z3::expr F = F0 && xorFacts(C, F0);
    try {
      open(F);
      sortAtoms(F);
      if (find(ExpKey) == find(MagKey))
        throw Unsupported{"an exponent of pow2 is compared with, or added "
                          "to, a rank-like value"};
      chooseBase();
      z3::expr Body = boolean(F);
      std::vector<z3::expr> Facts = facts();
      for (auto &[Id, D] : FreeDigits)
        Facts.push_back(D.second >= 0 && D.second < S);
      Facts.push_back(Body);
      z3::expr_vector All(C);
      for (const z3::expr &X : Facts)
        All.push_back(X);
      std::vector<z3::expr> Below{*Base < 0};
      for (const z3::expr &Y : Symbolic)
        Below.push_back(Y < *Base);
      z3::expr_vector B(C);
      for (const z3::expr &X : Below)
        B.push_back(X);
      return DigitForm{z3::mk_and(All), F && z3::mk_or(B) && monotone(),
                       Base->to_string()};
    } catch (const Unsupported &U) {
      Why = U.Why;
      return std::nullopt;
    }
  }

private:
  z3::context &C;
  z3::expr S; ///< the radix 2^e, at the low digit's level
  std::optional<z3::expr> Base;
  unsigned Fresh = 0;

  //===--- Quantifiers opened on fresh constants ------------------------===//

  struct Opened {
    bool Exists;
    std::vector<z3::expr> Vars;
    z3::expr Body;
  };
  std::map<unsigned, Opened> Open;
  std::set<unsigned> Seen, Bound;

  void open(const z3::expr &E) {
    if (!Seen.insert(E.id()).second)
      return;
    if (E.is_quantifier()) {
      unsigned N = Z3_get_quantifier_num_bound(C, E);
      std::vector<z3::expr> Vars;
      for (unsigned K = 0; K < N; ++K) {
        z3::sort Srt(C, Z3_get_quantifier_bound_sort(C, E, K));
        Vars.push_back(
            C.constant(formatv("qv!{0}", Fresh++).str().c_str(), Srt));
        Bound.insert(Vars.back().id());
      }
      z3::expr_vector Dst(C);
      for (unsigned K = 0; K < N; ++K)
        Dst.push_back(Vars[N - 1 - K]); // de Bruijn: the last bound is 0
      z3::expr Body = E.body().substitute(Dst);
      Open.emplace(E.id(), Opened{E.is_exists(), Vars, Body});
      open(Body);
      return;
    }
    if (E.is_app())
      for (unsigned K = 0; K < E.num_args(); ++K)
        open(E.arg(K));
  }

  const Opened &opened(const z3::expr &Q) { return Open.at(Q.id()); }

  //===--- Exponents and magnitudes --------------------------------------===//

  static constexpr unsigned ExpKey = ~0u, MagKey = ~0u - 1;
  std::map<unsigned, unsigned> Parent;
  std::vector<z3::expr> Exponents; ///< every exponent argument
  /// The exponents of `%` and `xor`: each must be the base plus a constant.
  std::vector<z3::expr> Digit;
  std::set<unsigned> SortSeen;

  unsigned find(unsigned X) {
    auto It = Parent.find(X);
    if (It == Parent.end() || It->second == X)
      return X;
    return Parent[X] = find(It->second);
  }
  void unite(unsigned A, unsigned B) {
    A = find(A);
    B = find(B);
    if (A != B)
      Parent[A] = B;
  }

  static bool isFn(const z3::expr &E, const char *Name) {
    return E.is_app() && E.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
           E.decl().name().str() == Name;
  }

  void exponent(const z3::expr &Y) {
    Exponents.push_back(Y);
    std::vector<unsigned> Keys;
    keys(Y, Keys);
    for (unsigned K : Keys)
      unite(K, ExpKey);
  }

  /// The variables an integer term is made of (its pow2 applications as
  /// MagKey); nested conditions are sorted too.
  void keys(const z3::expr &T, std::vector<unsigned> &Out) {
    if (T.is_numeral())
      return;
    if (T.is_const()) {
      Out.push_back(T.id());
      return;
    }
    if (isFn(T, "pow2")) {
      Out.push_back(MagKey);
      exponent(T.arg(0));
      return;
    }
    if (isFn(T, "xor")) { // an atom: its operands and it are magnitudes
      keys(T.arg(0), Out);
      keys(T.arg(1), Out);
      Out.push_back(MagKey);
      return;
    }
    if (isFn(T, "mod.pow2") || isFn(T, "xor.pow2") || isFn(T, "div.pow2")) {
      keys(T.arg(0), Out);
      Out.push_back(MagKey);
      exponent(T.arg(1));
      Digit.push_back(T.arg(1));
      return;
    }
    if (!T.is_app())
      throw Unsupported{"a term that is not an application: " + T.to_string()};
    switch (T.decl().decl_kind()) {
    case Z3_OP_ADD:
    case Z3_OP_SUB:
    case Z3_OP_UMINUS:
    case Z3_OP_MUL:
      for (unsigned K = 0; K < T.num_args(); ++K)
        keys(T.arg(K), Out);
      return;
    case Z3_OP_ITE:
      sortAtoms(T.arg(0));
      keys(T.arg(1), Out);
      keys(T.arg(2), Out);
      return;
    default:
      throw Unsupported{"an operation the digits do not take: " +
                        T.decl().name().str()};
    }
  }

  void sortAtoms(const z3::expr &B) {
    if (!SortSeen.insert(B.id()).second)
      return;
    if (B.is_quantifier())
      return sortAtoms(opened(B).Body);
    if (!B.is_app())
      return;
    if (B.num_args() > 0 && B.arg(0).is_int()) {
      std::vector<unsigned> Keys;
      for (unsigned K = 0; K < B.num_args(); ++K)
        keys(B.arg(K), Keys);
      for (size_t K = 1; K < Keys.size(); ++K)
        unite(Keys[0], Keys[K]);
      return;
    }
    for (unsigned K = 0; K < B.num_args(); ++K)
      sortAtoms(B.arg(K));
  }

  /// Whether T is an exponent-sorted term (a variable of the exponents'
  /// class at its top level).
  bool isExponent(const z3::expr &T) {
    if (T.is_numeral())
      return false;
    if (T.is_const())
      return find(T.id()) == find(ExpKey);
    if (isFn(T, "pow2") || isFn(T, "mod.pow2") || isFn(T, "xor.pow2") ||
        isFn(T, "div.pow2") || isFn(T, "xor") || !T.is_app())
      return false;
    unsigned From = T.decl().decl_kind() == Z3_OP_ITE ? 1 : 0;
    for (unsigned K = From; K < T.num_args(); ++K)
      if (isExponent(T.arg(K)))
        return true;
    return false;
  }

  //===--- The base exponent and the other exponents' facts -------------===//

  /// Exponents y with y - e not a constant, and their 2^(y - e).
  std::vector<z3::expr> Symbolic, SymbolicZ;

  static bool offset(const z3::expr &Y, const z3::expr &E, int64_t &Out) {
    z3::expr D = (Y - E).simplify();
    return D.is_numeral_i64(Out);
  }

  bool mentionsBound(const z3::expr &T) {
    if (T.is_const())
      return Bound.count(T.id()) != 0;
    if (!T.is_app())
      return true;
    for (unsigned K = 0; K < T.num_args(); ++K)
      if (mentionsBound(T.arg(K)))
        return true;
    return false;
  }

  void chooseBase() {
    if (Exponents.empty())
      throw Unsupported{"no pow2 in the formula"};
    // The base: no exponent a constant below it, then as many `%` and
    // `xor` exponents as can be a constant above it, then as few symbolic
    // differences as can be.
    size_t Best = ~size_t(0), BestSym = 0;
    for (size_t K = 0; K < Exponents.size(); ++K) {
      size_t Sym = 0;
      bool Ok = !mentionsBound(Exponents[K]);
      for (const z3::expr &Y : Exponents) {
        int64_t D;
        if (offset(Y, Exponents[K], D))
          Ok &= D >= 0;
        else
          ++Sym;
      }
      for (const z3::expr &Y : Digit) {
        int64_t D;
        if (!offset(Y, Exponents[K], D))
          Sym += 1000;
      }
      if (Ok && (Best == ~size_t(0) || Sym < BestSym)) {
        Best = K;
        BestSym = Sym;
      }
    }
    if (Best == ~size_t(0))
      throw Unsupported{"no exponent is at most every other one"};
    Base.emplace(Exponents[Best]);
    for (const z3::expr &Y : Exponents) {
      int64_t D;
      if (offset(Y, *Base, D))
        continue;
      if (mentionsBound(Y))
        throw Unsupported{"an exponent of a quantified variable: " +
                          Y.to_string()};
      bool Known = false;
      for (const z3::expr &X : Symbolic)
        Known |= offset(Y, X, D) && D == 0;
      if (Known)
        continue;
      Symbolic.push_back(Y);
      SymbolicZ.push_back(
          C.int_const(formatv("pow2.Z{0}", Symbolic.size()).str().c_str()));
    }
  }

  /// 2^(Y - e) at the high digit's level.
  z3::expr scale(const z3::expr &Y) {
    int64_t D;
    if (offset(Y, *Base, D)) {
      if (D < 0 || D > 62)
        throw Unsupported{
            formatv("the exponent {0} is {1} from the base", Y.to_string(), D)};
      return C.int_val(int64_t(1) << D);
    }
    for (size_t K = 0; K < Symbolic.size(); ++K)
      if (offset(Y, Symbolic[K], D) && D == 0)
        return SymbolicZ[K];
    throw Unsupported{"an exponent not seen: " + Y.to_string()};
  }

  /// What is true of 2^y, uninterpreted, for the free exponents y of the
  /// formula: 2^y >= 1 where y >= 0, and 2^a < 2^b where 0 <= a < b. The
  /// query that excludes an exponent below the base needs them where an
  /// exponent is bounded through its power alone: a witness's log2(x) with
  /// 2^log2(x) <= x < 2^i is below i.
  z3::expr monotone() {
    std::vector<z3::expr> Free;
    for (const z3::expr &Y : Exponents) {
      if (mentionsBound(Y))
        continue;
      bool Known = false;
      for (const z3::expr &X : Free)
        Known |= z3::eq(X, Y);
      if (!Known)
        Free.push_back(Y);
    }
    z3::func_decl P = pow2Fn(C);
    z3::expr_vector F(C);
    for (size_t A = 0; A < Free.size(); ++A) {
      F.push_back(z3::implies(Free[A] >= 0, P(Free[A]) >= 1));
      for (size_t B = 0; B < Free.size(); ++B)
        if (A != B)
          F.push_back(z3::implies(Free[A] >= 0 && Free[A] < Free[B],
                                  P(Free[A]) < P(Free[B])));
    }
    return z3::mk_and(F);
  }

  /// What is true of S = 2^e and Z_y = 2^(y - e) where e >= 0 and y >= e.
  std::vector<z3::expr> facts() {
    const z3::expr &E = *Base;
    std::vector<z3::expr> F{E >= 0, S >= 1, S >= E + 1,
                            z3::implies(E == 0, S == 1),
                            z3::implies(E >= 1, S >= 2 && z3::mod(S, 2) == 0)};
    for (size_t K = 0; K < Symbolic.size(); ++K) {
      z3::expr D = Symbolic[K] - E, Z = SymbolicZ[K];
      F.push_back(D >= 0);
      F.push_back(Z >= 1 && Z >= D + 1);
      F.push_back(z3::implies(D == 0, Z == 1));
      F.push_back(z3::implies(D >= 1, Z >= 2 && z3::mod(Z, 2) == 0));
      F.push_back(z3::implies(D >= 2, z3::mod(Z, 4) == 0));
      for (size_t J = 0; J < K; ++J) {
        z3::expr D2 = Symbolic[J] - Symbolic[K], Z2 = SymbolicZ[J];
        F.push_back(z3::implies(D2 == 0, Z2 == Z));
        F.push_back(z3::implies(D2 == 1, Z2 == 2 * Z));
        F.push_back(z3::implies(D2 == -1, Z == 2 * Z2));
        F.push_back(z3::implies(D2 >= 1, Z2 >= 2 * Z));
        F.push_back(z3::implies(D2 <= -1, Z >= 2 * Z2));
      }
    }
    return F;
  }

  //===--- Digits ---------------------------------------------------------===//

  std::map<unsigned, std::pair<z3::expr, z3::expr>> FreeDigits, BoundDigits;
  std::map<unsigned, Digits> IntMemo;
  std::map<unsigned, z3::expr> BoolMemo;

  std::pair<z3::expr, z3::expr> split(const z3::expr &V) {
    auto &Map = Bound.count(V.id()) ? BoundDigits : FreeDigits;
    auto It = Map.find(V.id());
    if (It != Map.end())
      return It->second;
    std::string N = V.decl().name().str();
    z3::expr H = C.int_const(formatv("{0}.h!{1}", N, Fresh).str().c_str());
    z3::expr L = C.int_const(formatv("{0}.l!{1}", N, Fresh++).str().c_str());
    return Map.emplace(V.id(), std::make_pair(H, L)).first->second;
  }

  Digits num(int64_t V) {
    return Digits{C.int_val(0), C.int_val(V), 0, V, 0, V};
  }

  static Digits add(const Digits &A, const Digits &B) {
    return Digits{A.H + B.H,     A.L + B.L,     A.ALo + B.ALo,
                  A.BLo + B.BLo, A.AHi + B.AHi, A.BHi + B.BHi};
  }
  static Digits scaled(const Digits &A, int64_t K) {
    z3::context &Ctx = A.H.ctx();
    Digits D{A.H * Ctx.int_val(K), A.L * Ctx.int_val(K)};
    if (K >= 0) {
      D.ALo = A.ALo * K, D.BLo = A.BLo * K, D.AHi = A.AHi * K,
      D.BHi = A.BHi * K;
    } else {
      D.ALo = A.AHi * K, D.BLo = A.BHi * K, D.AHi = A.ALo * K,
      D.BHi = A.BLo * K;
    }
    return D;
  }

  /// The carries floor(L / S) can take.
  std::pair<int64_t, int64_t> carries(const Digits &D) {
    int64_t Lo = D.ALo + std::min<int64_t>(D.BLo, 0);
    int64_t Hi = D.AHi + std::max<int64_t>(D.BHi, 0);
    if (Hi - Lo > MaxCarries)
      throw Unsupported{"a low digit with more than 64 carries"};
    return {Lo, Hi};
  }

  /// ite over the carries: for each carry K with K S <= L < (K + 1) S,
  /// Pick(K); the last one taken otherwise (never, by the bounds).
  z3::expr byCarry(const Digits &D,
                   const std::function<z3::expr(int64_t)> &Pick) {
    auto [Lo, Hi] = carries(D);
    z3::expr Out = Pick(Hi);
    for (int64_t K = Hi - 1; K >= Lo; --K)
      Out = z3::ite(D.L < C.int_val(K + 1) * S, Pick(K), Out);
    return Out;
  }

  /// The digits with 0 <= L < S.
  Digits normal(const Digits &D) {
    z3::expr H = byCarry(D, [&](int64_t K) { return D.H + C.int_val(K); });
    z3::expr L = byCarry(D, [&](int64_t K) { return D.L - C.int_val(K) * S; });
    return Digits{H, L, 0, 0, 1, -1};
  }

  Digits magnitude(const z3::expr &T) {
    auto It = IntMemo.find(T.id());
    if (It != IntMemo.end())
      return It->second;
    Digits D = magnitudeOf(T);
    IntMemo.emplace(T.id(), D);
    return D;
  }

  Digits magnitudeOf(const z3::expr &T) {
    int64_t V;
    if (T.is_numeral_i64(V))
      return num(V);
    if (T.is_const()) {
      auto [H, L] = split(T);
      return Digits{H, L, 0, 0, 1, -1};
    }
    if (isFn(T, "pow2"))
      return Digits{scale(T.arg(0)), C.int_val(0), 0, 0, 0, 0};
    if (isFn(T, "xor")) {
      // An atom with digits of its own (its facts are in the formula).
      if (mentionsBound(T)) {
        // Of quantified variables: the digits of x xor y as functions of
        // x's and y's normal digits (uninterpreted: a function of the
        // values, which the normal digits determine), no facts.
        Digits X = normal(magnitude(T.arg(0))),
               Y = normal(magnitude(T.arg(1)));
        z3::sort I = C.int_sort();
        z3::sort Args[] = {I, I, I, I};
        z3::func_decl FH = C.function("xor.h", 4, Args, I),
                      FL = C.function("xor.l", 4, Args, I);
        return Digits{FH(X.H, X.L, Y.H, Y.L), FL(X.H, X.L, Y.H, Y.L), 0, 0,
                      1, -1};
      }
      auto [H, L] = split(T);
      return Digits{H, L, 0, 0, 1, -1};
    }
    if (isFn(T, "mod.pow2") || isFn(T, "xor.pow2")) {
      int64_t D;
      if (!offset(T.arg(1), *Base, D) || D < 0 || D > 30)
        throw Unsupported{"`%` or `xor` by 2^y with y not the base plus a "
                          "constant: " +
                          T.to_string()};
      Digits X = normal(magnitude(T.arg(0)));
      z3::expr K = C.int_val(int64_t(1) << D);
      if (isFn(T, "mod.pow2"))
        return Digits{z3::mod(X.H, K), X.L, 0, 0, 1, -1};
      z3::expr Bit = z3::mod(X.H / K, 2);
      Digits Raw = magnitude(T.arg(0));
      Raw.H = Raw.H + z3::ite(Bit == 0, K, -K);
      return Raw;
    }
    if (isFn(T, "div.pow2"))
      throw Unsupported{"`/` by a symbolic power of two"};
    switch (T.decl().decl_kind()) {
    case Z3_OP_ADD: {
      Digits D = magnitude(T.arg(0));
      for (unsigned K = 1; K < T.num_args(); ++K)
        D = add(D, magnitude(T.arg(K)));
      return D;
    }
    case Z3_OP_SUB: {
      Digits D = magnitude(T.arg(0));
      for (unsigned K = 1; K < T.num_args(); ++K)
        D = add(D, scaled(magnitude(T.arg(K)), -1));
      return D;
    }
    case Z3_OP_UMINUS:
      return scaled(magnitude(T.arg(0)), -1);
    case Z3_OP_MUL: {
      if (T.num_args() != 2)
        break;
      int64_t K;
      if (T.arg(0).is_numeral_i64(K))
        return scaled(magnitude(T.arg(1)), K);
      if (T.arg(1).is_numeral_i64(K))
        return scaled(magnitude(T.arg(0)), K);
      throw Unsupported{"a product of two variables: " + T.to_string()};
    }
    case Z3_OP_ITE: {
      z3::expr B = boolean(T.arg(0));
      Digits A = magnitude(T.arg(1)), E = magnitude(T.arg(2));
      return Digits{z3::ite(B, A.H, E.H),   z3::ite(B, A.L, E.L),
                    std::min(A.ALo, E.ALo), std::min(A.BLo, E.BLo),
                    std::max(A.AHi, E.AHi), std::max(A.BHi, E.BHi)};
    }
    default:
      break;
    }
    throw Unsupported{"a term the digits do not take: " + T.to_string()};
  }

  /// The sign of D's value compared with 0 (Op: <, <=, =, >=, >).
  z3::expr compare(const Digits &D, Z3_decl_kind Op) {
    return byCarry(D, [&](int64_t K) {
      z3::expr H = D.H + C.int_val(K), L = D.L - C.int_val(K) * S;
      switch (Op) {
      case Z3_OP_LT:
        return H < 0;
      case Z3_OP_LE:
        return H < 0 || (H == 0 && L == 0);
      case Z3_OP_GE:
        return H >= 0;
      case Z3_OP_GT:
        return H > 0 || (H == 0 && L > 0);
      default:
        return H == 0 && L == 0;
      }
    });
  }

  z3::expr boolean(const z3::expr &B) {
    auto It = BoolMemo.find(B.id());
    if (It != BoolMemo.end())
      return It->second;
    z3::expr R = booleanOf(B);
    BoolMemo.emplace(B.id(), R);
    return R;
  }

  z3::expr quantifier(const z3::expr &Q) {
    const Opened &O = opened(Q);
    z3::expr_vector Vars(C);
    std::vector<z3::expr> Ranges;
    z3::expr Body = boolean(O.Body);
    for (const z3::expr &V : O.Vars) {
      auto It = BoundDigits.find(V.id());
      if (It == BoundDigits.end()) {
        Vars.push_back(V);
        continue;
      }
      Vars.push_back(It->second.first);
      Vars.push_back(It->second.second);
      Ranges.push_back(It->second.second >= 0 && It->second.second < S);
    }
    z3::expr_vector R(C);
    for (const z3::expr &X : Ranges)
      R.push_back(X);
    if (O.Exists)
      return z3::exists(Vars, z3::mk_and(R) && Body);
    return z3::forall(Vars, z3::implies(z3::mk_and(R), Body));
  }

  z3::expr booleanOf(const z3::expr &B) {
    if (B.is_quantifier())
      return quantifier(B);
    if (B.is_const())
      return B;
    if (B.num_args() > 0 && B.arg(0).is_int()) {
      if (isExponent(B.arg(0)) || isExponent(B.arg(1)))
        return B; // exponents stay integers
      Z3_decl_kind K = B.decl().decl_kind();
      if (K == Z3_OP_DISTINCT && B.num_args() == 2)
        return !compare(
            add(magnitude(B.arg(0)), scaled(magnitude(B.arg(1)), -1)),
            Z3_OP_EQ);
      if (B.num_args() != 2 ||
          (K != Z3_OP_EQ && K != Z3_OP_LT && K != Z3_OP_LE && K != Z3_OP_GT &&
           K != Z3_OP_GE))
        throw Unsupported{"a comparison the digits do not take: " +
                          B.to_string()};
      return compare(add(magnitude(B.arg(0)), scaled(magnitude(B.arg(1)), -1)),
                     K);
    }
    z3::expr_vector Args(C);
    for (unsigned K = 0; K < B.num_args(); ++K)
      Args.push_back(boolean(B.arg(K)));
    switch (B.decl().decl_kind()) {
    case Z3_OP_TRUE:
    case Z3_OP_FALSE:
      return B;
    case Z3_OP_AND:
      return z3::mk_and(Args);
    case Z3_OP_OR:
      return z3::mk_or(Args);
    case Z3_OP_NOT:
      return !Args[0];
    case Z3_OP_IMPLIES:
      return z3::implies(Args[0], Args[1]);
    case Z3_OP_EQ:
    case Z3_OP_IFF:
      return Args[0] == Args[1];
    case Z3_OP_XOR:
      return Args[0] != Args[1];
    case Z3_OP_DISTINCT:
      if (Args.size() == 2)
        return Args[0] != Args[1];
      break;
    case Z3_OP_ITE:
      return z3::ite(Args[0], Args[1], Args[2]);
    default:
      break;
    }
    throw Unsupported{"a condition the digits do not take: " + B.to_string()};
  }
};

} // namespace

std::optional<DigitForm> smt::pow2Digits(z3::context &C, const z3::expr &F,
                                         std::string &Why) {
  return Translator(C).run(F, Why);
}
