//===- views/ProveTable.h - choreo prove --all's table ----------*- C++ -*-===//
///
/// \file
/// The table of `choreo prove --all`: one row per template (the family that
/// declares it, its obligations, how many are proved for every parameter
/// value, the bounded ones by name with their bound, the ones not proved,
/// the time), one row per family's domain proof, and a total; as text or
/// as Markdown (the table of docs/templates.md). The policy of the run's
/// exit code is here too: every obligation proved for every value, apart
/// from bounded ones the caller allows by name.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VIEWS_PROVETABLE_H
#define CHOREO_VIEWS_PROVETABLE_H

#include "verifier/smt/Prover.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace choreo {

/// One row: a template's proof, or a family's domain proof (Domains: the
/// disjointness and cover obligations of proveTargetCover).
struct ProveRow {
  std::string Family;   ///< the generator that declares it, or ""
  std::string Template; ///< the template's name, or "(domains)"
  ProveReport Report;
  std::string Domain; ///< the template's domain as written
  bool Domains = false;
  size_t DomainTemplates = 0; ///< a domain row: how many templates
  bool Skipped = false;       ///< not proved (`--skip`)
};

struct ProveTableOptions {
  bool Markdown = false;
  /// The bound of bounded proofs (`--bound`).
  int64_t Bound = 24;
  /// Bounded obligations that do not fail the run: "TEMPLATE" (all of its
  /// bounded ones) or "TEMPLATE:OBLIGATION".
  std::vector<std::string> AllowBounded;
};

/// What the rows add up to.
struct ProveTally {
  size_t Templates = 0, Obligations = 0, Unbounded = 0, Bounded = 0,
         Allowed = 0, NotProved = 0, Skipped = 0;
  double Seconds = 0;
  /// AllowBounded entries that matched no bounded obligation.
  std::vector<std::string> Stale;
  /// Every obligation proved for every value, or bounded and allowed.
  bool passed() const { return NotProved == 0 && Bounded == Allowed; }
};

/// Whether an obligation's result fails the run: bounded ones unless
/// allowed; for a domain row, a cover counterexample only states the
/// domains' limit (the value outside them is listed) and does not.
bool obligationFails(const ProveRow &Row, const Obligation &Ob,
                     const ProveTableOptions &O);

ProveTally tallyRows(const std::vector<ProveRow> &Rows,
                     const ProveTableOptions &O);

/// The table, then the bounded and not proved obligations by name, what
/// each family's domains cover, and the total line.
void printProveTable(const std::vector<ProveRow> &Rows,
                     const ProveTableOptions &O, llvm::raw_ostream &Out);

} // namespace choreo

#endif
