//===- views/ProveReport.h - choreo prove's report --------------*- C++ -*-===//
///
/// \file
/// Renders a template's proof (verifier/smt/Prover.h): a summary line per
/// template, optionally a line per obligation, errors for counterexamples,
/// unknown and timed-out obligations, with the explicit engine's replay as
/// a note;
/// or a JSON object per template.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VIEWS_PROVEREPORT_H
#define CHOREO_VIEWS_PROVEREPORT_H

#include "verifier/smt/Prover.h"

#include "ir/Schedule.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json_fwd.hpp>

namespace choreo {

struct ProveReportOptions {
  /// A line per obligation (text only).
  bool Verbose = false;
  /// Errors and notes only on Err; the proof goes to proofJson.
  bool Json = false;
  /// The bound of bounded proofs, for the summary.
  int64_t Bound = 24;
};

/// Text: per obligation (Verbose) its verdict on Out; each counterexample,
/// unknown and timed-out obligation as `error:` (and a counterexample's
/// replay as `note:`) on Err;
/// then the summary line on Out. With O.Json only the errors and notes.
void printProof(const TemplateProof &P, const ProveReportOptions &O,
                llvm::raw_ostream &Out, llvm::raw_ostream &Err);

/// {"template", "domain", "seconds", "obligations": [{"obligation",
/// "result", "seconds"}]}.
nlohmann::ordered_json proofJson(const TemplateProof &P);

/// The cover proof of a generator's templates (proveTargetCover): errors for
/// overlapping domains on Err, and (text only) one line on Out saying what
/// the domains cover. Returns whether the domains are disjoint.
/// What the domains of a generator's NumTemplates templates cover, and
/// whether they are disjoint, in words: "every p >= 1, q >= 1 lies in one
/// of the domains above (proved); the domains are disjoint (proved)".
std::string coverText(const ProveReport &Cover, size_t NumTemplates,
                      int64_t Bound);

bool printCover(llvm::StringRef Target, const ProveReport &Cover,
                size_t NumTemplates, const ProveReportOptions &O,
                llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace choreo

#endif
