//===- views/CompareText.h - The comparison study as text -------*- C++ -*-===//
///
/// \file
/// Renders a CompareTable (studies/Compare.h) as `choreo compare` prints
/// it: an aligned table of predicted times and speed-ups, or one JSON
/// object. Also the number and model formats the cost commands share.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VIEWS_COMPARETEXT_H
#define CHOREO_VIEWS_COMPARETEXT_H

#include "studies/Compare.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace choreo {

/// A time or model parameter as the cost commands print it (%.6g).
std::string costNumber(double V);

/// "alpha 1e-06, beta 1e-10, gamma 0, f_alpha 1, f_beta 1".
std::string modelText(const CostModel &M);

/// Short column names: the algorithms without their common prefix up to a
/// dash ("inter-allgather-root", "inter-allgather-kang" -> "root", "kang").
std::vector<std::string> shortNames(const std::vector<std::string> &Names);

/// A title line (evaluation, model, generator parameters), then per size a
/// row: the size, each algorithm's time (asynchronous, or lock step), and
/// the first algorithm's time over each other's.
void printCompareTable(const CompareTable &T, const CompareSpec &Spec,
                       bool Lockstep, llvm::raw_ostream &OS);

/// {"algorithms", "params", "model", "evaluation", "rows": [{"size",
/// "time", "time_lockstep", "steps", "speedup"}]}.
nlohmann::ordered_json compareJson(const CompareTable &T,
                                   const CompareSpec &Spec, bool Lockstep);

} // namespace choreo

#endif
