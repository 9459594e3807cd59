//===- verifier/smt/TemplateEncoder.h - Template terms for Z3 ---*- C++ -*-===//
///
/// \file
/// The term encoder of the template prover (private to verifier/smt): a
/// template's parameters, lets, domain and stages as Z3 terms, its
/// expressions and conditions, op lines instantiated with fresh variables,
/// and a reduction's holds. Parameters and lets are integer constants
/// constrained by the domain; each op line becomes, per use, fresh copies
/// of its step index, loop variables and bundle variables. Floor division
/// and remainder by a constant introduce a quotient and a remainder; `x mod
/// n` is a wrap (x + n when x < 0, x - n when x >= n) whose argument range,
/// -n <= x < 2n, is an obligation of its own.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_SMT_TEMPLATEENCODER_H
#define CHOREO_VERIFIER_SMT_TEMPLATEENCODER_H

#include "template/Template.h"

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include <z3++.h>

namespace choreo::smt {

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

  /// (x, n, quotient, remainder) of every division by a non-constant n
  /// encoded here: a second `x / n` or `x % n` reuses them.
  std::vector<std::array<z3::expr, 4>> Quots;
  /// (x, y) of every symbolic `log2(x)` encoded here, y its fresh
  /// exponent: a second log2(x) reuses y (the digits take one base).
  std::vector<std::pair<z3::expr, z3::expr>> Logs;

  /// Takes what Local, a copy of this scope with more names, has added:
  /// its fresh variables, side constraints, mods, divisors, pow2s and
  /// divisions.
  void keepSide(const Scope &Local) {
    Fresh = Local.Fresh;
    Side = Local.Side;
    Mods = Local.Mods;
    Divs = Local.Divs;
    Pows = Local.Pows;
    Quots = Local.Quots;
    Logs = Local.Logs;
  }
};

/// Whether E divides (`/`, `%`) by anything but a positive constant, or,
/// with Mods, takes any `x mod n` or `pow2`.
bool oddDivisor(const Expr *E, bool Mods = false);
bool oddDivisor(const Cond *C, bool Mods = false);
bool oddDivisor(llvm::ArrayRef<Range> Rs, bool Mods = false);

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
  /// Vars[0] is a step index given to instantiate (not the op's own): the
  /// existential does not bind it.
  bool SharedStep = false;
};

class TemplateEncoder {
public:
  TemplateEncoder(z3::context &C, const Template &T) : C(C), T(T) {}

  bool Nonlinear = false;
  /// The largest exponent `pow2` is encoded for (exactly, as the chain of
  /// its values); the range obligations prove every exponent stays in
  /// [0, PowMax].
  int64_t PowMax = MaxPow2;
  /// Powers of two with a symbolic exponent as the uninterpreted
  /// applications of Pow2Digits.h (2^y, x % 2^y, x / 2^y, x xor 2^y) instead
  /// of the chain: exponents unbounded, only y >= 0 required.
  bool SymbolicPow = false;
  /// X is outside pow2's exponents: X < 0 (or, for the chain, X > PowMax).
  z3::expr powOutOfRange(const z3::expr &X) const {
    return SymbolicPow ? X < 0 : X < 0 || X > PowMax;
  }
  /// Prefixed to the names of lets and fresh variables, so that several
  /// templates' domains can share one formula (proveDomainsCover).
  std::string Prefix;

  /// Parameters, lets, domain; stage lengths and offsets. With Fixed, the
  /// parameters and lets are numerals (bounded mode: products of a let and
  /// a loop variable become linear).
  void prepare(const Env *Fixed = nullptr);

  /// The domain with the lets' and top-level side constraints.
  z3::expr context() const;

  z3::expr ranks() const { return *N; }
  z3::expr param(const std::string &P) { return Top.Vars.at(P); }

  /// Op line G of stage StageIdx with fresh variables named with Tag (the
  /// step index SharedI, if given).
  Inst instantiate(unsigned StageIdx, const OpGen &G, const std::string &Tag,
                   std::optional<z3::expr> SharedI = std::nullopt);

  /// The rank message F[Idx] originates at; its scope's additions go to S.
  z3::expr origin(const MessageFamily &F, const std::vector<z3::expr> &Idx,
                  Scope &S);
  /// The member whose contribution F[Idx] is.
  z3::expr member(const MessageFamily &F, const std::vector<z3::expr> &Idx,
                  Scope &S);
  /// Goal Gl's index ranges, then its family F's, for the indices Idx.
  std::vector<z3::expr> goalIndexInRange(const Goal &Gl, const MessageFamily &F,
                                         const std::vector<z3::expr> &Idx,
                                         Scope &S);
  /// Idx lies in F's index ranges.
  z3::expr indexInRange(const MessageFamily &F,
                        const std::vector<z3::expr> &Idx, Scope &S);

  /// ∃ vars of In: In's existence, bundle and side constraints, and Body.
  z3::expr exists(const Inst &In, const z3::expr &Body);

  z3::expr conj(const std::vector<z3::expr> &V) const;
  z3::expr disj(const std::vector<z3::expr> &V) const;

  /// A fresh integer, bound with S's variables.
  z3::expr fresh(const char *Base, Scope &S);

  z3::expr enc(const Expr &E, Scope &S);
  z3::expr enc(const Cond &Cd, Scope &S);

  /// Reductions: rank R's partial of segment J (in accumulator Acc) at the
  /// start of step I of stage K, the contributor interval (lo, len; len 0
  /// an exscan's empty accumulator), as the ite chain of the
  /// stage's holds cases; Bad is where a case is evaluated outside its
  /// definition (a `mod` argument outside [-n, 2n), a divisor <= 0); Stale
  /// where the case that applies is `: stale`.
  struct Held {
    z3::expr Lo, Len, Bad;
    /// The case that applies is `: stale` (no interval claimed).
    z3::expr Stale;
  };
  Held holds(unsigned K, const z3::expr &I, const z3::expr &R,
             const z3::expr &J, Scope &S, unsigned Acc = 0);
  /// Gather-type: whether stage K has `holds` lines of family F.
  bool hasHoldsSet(unsigned K, const std::string &F) const;
  /// Gather-type: rank R holds message F[Idx] at the start of step I of
  /// stage K by the stage's `holds` lines of F (their disjunction); Bad is
  /// where a line is evaluated outside its definition (a `mod` argument
  /// outside [-n, 2n), a divisor or log2 argument <= 0, a pow2 exponent
  /// out of range).
  struct HeldSet {
    z3::expr Has, Bad;
  };
  HeldSet holdsSet(unsigned K, const std::string &F, const z3::expr &I,
                   const z3::expr &R, const std::vector<z3::expr> &Idx,
                   Scope &S);
  /// Rank X is a contributor of the cyclic interval of H (0 <= X < ranks).
  z3::expr contains(const Held &H, const z3::expr &X) const;

  z3::context &C;
  const Template &T;
  Scope Top;
  std::optional<z3::expr> N, Domain;
  std::vector<z3::expr> StageSteps, StageOffset;

private:
  unsigned FreshCount = 0;

  /// `L xor R` of two values >= 0 (R not a pow2): an uninterpreted
  /// function where SymbolicPow, else bit by bit.
  z3::expr xorOf(const z3::expr &L, const z3::expr &R, Scope &S);
  /// A symbolic 2^y (SymbolicPow).
  static bool isPow2App(const z3::expr &X);
  /// A numeral, or ite(c, numeral, chain): what pow2 encodes to.
  static bool constChain(const z3::expr &X);
  static bool positiveChain(const z3::expr &X);
  /// The chain with F applied to every numeral.
  static z3::expr mapChain(const z3::expr &X,
                           const std::function<z3::expr(const z3::expr &)> &F);
};

} // namespace choreo::smt

#endif
