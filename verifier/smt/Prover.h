//===- verifier/smt/Prover.h - Proofs for every parameter value -----*- C++ -*-===//
///
/// \file
/// Proves a template (template/Template.h) for every value of its
/// parameters in its domain: each obligation — ports (no two ops of one step
/// share a sender, or a receiver), topology (ranks exist, no self-send, every
/// op on a ring link), message indices in range, availability (every op's
/// sender is the message's origin or received it in an earlier step),
/// completeness (every goal rank receives every goal message) — is a
/// Presburger formula over the parameters and loop variables, refuted by Z3.
/// Z3 stays behind this interface: the caller sees proved, counterexample,
/// unknown (Z3 gave up, e.g. on a nonlinear term), timeout or bounded.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_SMT_PROVER_H
#define CHOREO_VERIFIER_SMT_PROVER_H

#include "template/Template.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace choreo {

struct Obligation {
  enum class Result {
    Proved,         ///< for every parameter value in the domain
    ProvedBounded,  ///< the unbounded query was unknown; every value up to
                    ///< the bound was proved
    Counterexample, ///< Model holds the parameters and loop variables
    Unknown,        ///< Z3 gave up (not for time) or failed, also in
                    ///< bounded mode
    Timeout,        ///< the query (or a bounded one) ran out of time, or was
                    ///< not attempted: the run's deadline had passed
  };
  std::string Name;   ///< "ports.send s3#1 s3#2", "availability s2#4", ...
  std::string Kind;   ///< ports, topology, range, message, availability, ...
  std::string Claim;  ///< what is proved, in words
  Result R = Result::Unknown;
  double Seconds = 0;
  std::string Why;    ///< the solver's reason when unknown or timed out
  std::map<std::string, int64_t> Model;
  /// Counterexamples: the step (global) and rank the failing op has.
  std::optional<int64_t> Step, Rank;
};

struct ProveOptions {
  unsigned TimeoutMs = 60000;
  /// When a query is unknown, prove it for every parameter value up to this
  /// bound instead (each parameter in [1, Bound]).
  int64_t Bound = 24;
  /// Stop at the first counterexample (the others are not attempted).
  bool StopAtFirst = false;
  /// The whole run's end (`--timeout`): no query runs past it, none starts
  /// with less than 50 ms of it left; those not attempted are timeouts.
  std::optional<std::chrono::steady_clock::time_point> Deadline;
};

struct ProveReport {
  std::string Template;
  std::vector<Obligation> Obligations;
  double Seconds = 0;

  bool proved() const; ///< every obligation proved (perhaps bounded)
  bool unbounded() const;
  const Obligation *firstCounterexample() const;
};

/// Proves every obligation of T.
llvm::Expected<ProveReport> proveTemplate(const Template &T,
                                          const ProveOptions &O = {});

/// Proves that the domains of Ts (templates of the same parameters) are
/// pairwise disjoint (obligations `disjoint T1 T2`) and that every
/// parameter value with each parameter >= 1 lies in one of them (`cover`).
/// A counterexample is the smallest such value (sum of the parameters) with
/// each parameter in [1, Bound] that the templates' own domain checks
/// (bindParams) confirm; an unknown query is decided for every value in
/// [1, Bound] and reported as bounded.
llvm::Expected<ProveReport>
proveDomainsCover(llvm::ArrayRef<const Template *> Ts,
                  const ProveOptions &O = {});

/// What the explicit engine says of a counterexample: the template
/// expanded at the counterexample's parameters and replayed. One sentence:
/// confirmed (with the engine's first failure, or the expansion's refusal),
/// not confirmed (the expanded schedule proves: the obligation is stronger
/// than the schedule needs), or not replayed (too many ranks).
std::string replayCounterexample(const Template &T, const Obligation &Ob);

/// One template's proof as `choreo prove` reports it.
struct TemplateProof {
  std::string Name;   ///< the template's name
  std::string Domain; ///< its domain as written: "p == q, p >= 2"
  ProveReport Report;
  /// Per obligation (same index): replayCounterexample for a
  /// counterexample, else empty.
  std::vector<std::string> Replays;
};

/// `choreo prove`: loads (loadTemplate) and proves each of Templates (a
/// generator's, as it declares them, or one built-in template or file) and
/// replays its counterexamples, handing each proof to OnProof as it is
/// done. A template that cannot be loaded or proved is an error (the proofs
/// before it have been handed over).
llvm::Error
proveTarget(llvm::ArrayRef<std::string> Templates, const ProveOptions &O,
            llvm::function_ref<void(const TemplateProof &)> OnProof);

/// For a generator's templates: proves that their domains are disjoint and
/// cover every parameter value (proveDomainsCover).
llvm::Expected<ProveReport>
proveTargetCover(llvm::ArrayRef<std::string> Templates, const ProveOptions &O);

} // namespace choreo

#endif
