//===- verifier/smt/Pow2Digits.h - Powers of two, symbolically --*- C++ -*-===//
///
/// \file
/// The symbolic encoding of `pow2` (private to verifier/smt): a template
/// whose exponents are unbounded (p = 2^k, every k) is encoded with 2^y,
/// x % 2^y and x xor 2^y as applications of uninterpreted functions
/// (pow2Fn, pmodFn, pxorFn), and Pow2Digits turns such a formula into linear
/// integer arithmetic: every integer that is not an exponent is written in
/// two digits of the symbolic radix S = 2^e, x = h S + l with 0 <= l < S,
/// where e is the smallest exponent of the formula; every other exponent
/// y = e + c is 2^c S, or Z_y S with Z_y = 2^(y - e) a variable bound by
/// facts true of powers of two. Sums, differences, multiples by constants
/// and ite keep the digits apart; a comparison normalises the low digit
/// with a carry from a finite range (the low digit is a sum of a few digits
/// and constants), so no product of two variables is ever formed; x % 2^(e
/// + c) and x xor 2^(e + c) are a remainder and a bit of the high digit by
/// the constant 2^c. docs/templates.md ("Powers of two") says why a proof
/// of the digit form is a proof of the formula.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_SMT_POW2DIGITS_H
#define CHOREO_VERIFIER_SMT_POW2DIGITS_H

#include <optional>
#include <string>
#include <z3++.h>

namespace choreo::smt {

/// The uninterpreted functions the symbolic encoding writes: 2^y,
/// x mod 2^y (floor), x xor 2^y, x / 2^y (floor; not translated).
z3::func_decl pow2Fn(z3::context &C);
z3::func_decl pmodFn(z3::context &C);
z3::func_decl pxorFn(z3::context &C);
z3::func_decl pdivFn(z3::context &C);
/// x xor y of two values >= 0 (neither written as a pow2): uninterpreted,
/// with the facts of xorFacts; to the digits an atom, a magnitude of its
/// own.
z3::func_decl xorFn(z3::context &C);

/// Facts true of x xor y for x, y >= 0, for the xor applications of F that
/// no quantifier binds (one pass over F): t = x xor y is >= 0, between
/// |x - y| and x + y, 0 exactly where x = y, x exactly where y = 0, below
/// every 2^z of F (z >= 0) that x and y are below; for two applications,
/// a shared operand cancels (x xor y = x xor y' iff y = y') and an xor
/// undoes itself (x xor (x xor y) = y). Conjoined to F, they keep every
/// model of F with the true xor: a proof of F with them is a proof of F.
z3::expr xorFacts(z3::context &C, const z3::expr &F);

/// F in digits. Formula is unsatisfiable only if F is, provided Outside
/// is unsatisfiable too: Outside is F (the functions uninterpreted, an
/// over-approximation) with an exponent below the chosen base, or the base
/// negative, where the digits say nothing.
struct DigitForm {
  z3::expr Formula, Outside;
  std::string Base; ///< the radix's exponent, for messages
};

/// The digit form of F, or why there is none (Why): a product of two
/// non-constant terms, an exponent that is compared with a rank, a `%`,
/// `xor` or `/` by a power of two that is not 2^(e + c), ...
std::optional<DigitForm> pow2Digits(z3::context &C, const z3::expr &F,
                                    std::string &Why);

} // namespace choreo::smt

#endif
