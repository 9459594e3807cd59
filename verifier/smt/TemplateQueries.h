//===- verifier/smt/TemplateQueries.h - Obligations as queries --*- C++ -*-===//
///
/// \file
/// A template's obligations as queries (private to verifier/smt): each
/// builds, on a TemplateEncoder, a formula whose models are its
/// counterexamples, and reads such a model back into the obligation.
/// QueryBuilder lists them; its members are defined by concept:
/// TemplateObligations.cpp (the list, ports, per op line ranks, self-sends,
/// links, `mod`s, divisors and messages, the header), GatherObligations.cpp
/// (availability, goals, origins, the collective's completeness rule),
/// ReductionObligations.cpp (the induction over a reduction's holds).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_SMT_TEMPLATEQUERIES_H
#define CHOREO_VERIFIER_SMT_TEMPLATEQUERIES_H

#include "verifier/smt/Prover.h"
#include "verifier/smt/TemplateEncoder.h"

#include <functional>

namespace choreo::smt {

/// An obligation's query: satisfiable means a counterexample.
struct Query {
  Obligation O;
  std::function<z3::expr(TemplateEncoder &)> Build;
  /// Where the template gives witnesses (`by`): the same obligation
  /// without the quantifier, weaker than Build (unsatisfiable only if
  /// Build is); tried first, and a model of it proves nothing.
  std::function<z3::expr(TemplateEncoder &)> Witnessed;
  /// What Witnessed takes: "the template's witnesses", "the stage's
  /// holds", or both.
  std::string WitnessedBy = "the template's witnesses";
  /// What to read off a model: (name, expr) pairs, and the step and rank.
  std::function<void(TemplateEncoder &, z3::model &, Obligation &)> Decode;
};

/// The queries of template T. They call back into the builder, which must
/// outlive them.
class QueryBuilder {
public:
  /// PowMax: the largest exponent pow2 is encoded for (named in the claims).
  QueryBuilder(const Template &T, int64_t PowMax) : T(T), PowMax(PowMax) {}
  QueryBuilder(const QueryBuilder &) = delete;
  QueryBuilder &operator=(const QueryBuilder &) = delete;

  /// Every obligation of T: the quantifier-free ones first, then
  /// availability (and a reduction's frames), then completeness.
  std::vector<Query> build();

private:
  const Template &T;
  int64_t PowMax;

  //===--- TemplateObligations.cpp --------------------------------------===//

  /// A[k] != B[k] for every k but 0 (the shared step index).
  static std::vector<z3::expr> pairDiffer(const std::vector<z3::expr> &A,
                                          const std::vector<z3::expr> &B);
  /// The parameters, In's variables, step and sender from M.
  static void decodeInst(TemplateEncoder &E, z3::model &M, const Inst &In,
                         Obligation &O);
  void portQuery(unsigned K, const OpGen &G1, const OpGen &G2, bool Same,
                 bool Send, std::vector<Query> &Qs);
  void opQueries(unsigned K, const OpGen &G, std::vector<Query> &Qs);
  void headerQuery(std::vector<Query> &Qs);

  //===--- GatherObligations.cpp ----------------------------------------===//

  void availabilityQuery(unsigned K, const OpGen &G, std::vector<Query> &Qs);
  void goalQuery(size_t GI, std::vector<Query> &Qs);
  z3::expr witnessed(TemplateEncoder &E, const Witness &W, Scope &At,
                     const z3::expr &Dst, const std::vector<z3::expr> &Msg,
                     std::optional<z3::expr> Before, unsigned Tag);
  /// Gather-type holds: whether stage K has lines of family F; the last
  /// stage that has (-1: none); their obligations.
  bool hasHolds(unsigned K, const std::string &F) const;
  int lastHoldsStage(const std::string &F) const;
  void holdsQueries(std::vector<Query> &Qs);
  bool isBcast() const;
  bool isScatter() const;
  /// A rooted gather-type collective (gather): only the root must end with
  /// the buffer.
  bool rootReceives() const;
  const MessageFamily *partedFamily(llvm::StringRef Buf) const;
  const GroupDecl *groupDecl(llvm::StringRef G) const;
  std::vector<std::pair<std::string, std::string>> specGoals() const;
  void originQuery(const MessageFamily &F, std::vector<Query> &Qs);
  void coverQuery(const std::string &Receivers, const std::string &Buffer,
                  std::vector<Query> &Qs);
  void partsQuery(const std::string &Receivers, const std::string &Buffer,
                  std::vector<Query> &Qs);

  //===--- ReductionObligations.cpp -------------------------------------===//

  /// Named free variables of a query, read back from a model ("step" and
  /// "rank" also into the obligation's step and rank).
  using Named = std::vector<std::pair<std::string, z3::expr>>;
  void freeQuery(
      const char *Kind, std::string Name, std::string Claim,
      std::function<z3::expr(TemplateEncoder &, Named &)> Bad,
      std::vector<Query> &Qs,
      std::function<z3::expr(TemplateEncoder &, Named &)> Witnessed = nullptr);
  void opQuery(unsigned K, const OpGen &G, const char *Kind, std::string Claim,
               std::function<z3::expr(TemplateEncoder &, Inst &, Named &)> Bad,
               std::vector<Query> &Qs);
  struct Point {
    z3::expr I, R, J;
  };
  Point point(TemplateEncoder &E, unsigned K, const std::string &Tag,
              Named &Vars, std::vector<z3::expr> &Conds, Scope &S,
              bool Before = false);
  z3::expr contributor(TemplateEncoder &E, Named &Vars,
                       std::vector<z3::expr> &Conds);
  void reductionQueries(std::vector<Query> &Qs);
  void reductionOpQueries(unsigned K, const OpGen &G, std::vector<Query> &Qs);
};

} // namespace choreo::smt

#endif
