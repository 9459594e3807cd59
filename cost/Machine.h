//===- cost/Machine.h - A machine file: the calibrated model ----*- C++ -*-===//
///
/// \file
/// A machine file (docs/machine.md) holds the cost model's parameters as
/// `choreo-calibrate` measured them on the user's machine: what `choreo
/// cost`, `compare`, `select` (`--machine FILE`, or the variable
/// CHOREO_MACHINE) and the drop-in library (CHOREO_MACHINE) price with
/// instead of typed-in guesses. Its top-level alpha and beta are the ones
/// the model uses (between nodes when the calibrating job spanned nodes),
/// `intra` the pair it uses within a node; `intra` and `inter` keep both
/// pairs, `gamma_by_op` each built-in
/// operator's combining time, `measured` how and where it was measured.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_COST_MACHINE_H
#define CHOREO_COST_MACHINE_H

#include "cost/Model.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

namespace choreo {

struct MachineFile {
  /// alpha, beta, gamma, f_alpha, f_beta, machine_ports,
  /// flow_control_bytes (the executor's receiver-driven flow control for
  /// messages of at least that many bytes, docs/executor.md, which the
  /// model prices: CostModel::opTimes; 0: off), and `intra` as the model's
  /// Intra (an op within a node pays it).
  CostModel Model;
  /// Start-up and per-byte time of a message within a node and between
  /// nodes, where measured.
  using Link = LinkCost;
  std::optional<Link> Intra, Inter;
  /// Seconds per byte combined, per built-in operator ("sum-int", ...).
  std::map<std::string, double> GammaByOp;
  /// Free-form facts about the measurement (ranks, nodes, host, date, fit).
  nlohmann::ordered_json Measured = nlohmann::ordered_json::object();

  nlohmann::ordered_json toJson() const;
};

/// Decodes a machine file's JSON; errors name the JSON pointer and the
/// file: "m.json: /beta: -1 is not a non-negative finite number".
llvm::Expected<MachineFile> parseMachine(const nlohmann::ordered_json &J,
                                         llvm::StringRef Name);
/// Reads and decodes the file Path (a regular file of at most 1 MiB).
llvm::Expected<MachineFile> readMachineFile(llvm::StringRef Path);

} // namespace choreo

#endif
