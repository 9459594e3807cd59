//===- pmpi/Selection.h - Which algorithm serves a call ---------*- C++ -*-===//
///
/// \file
/// The library's choice for a call: CHOREO_<COLL> (CHOREO_<COLL>_INTER on
/// an intercommunicator), else the first matching rule of the selection
/// file CHOREO_SELECTION (nested conditions as in MPICH's JSON tuning files),
/// else CHOREO_DEFAULT (auto when unset). A choice is `native` (MPICH's own
/// collective), `auto` (the cheapest generator under the cost model with
/// CHOREO_ALPHA, CHOREO_BETA, CHOREO_GAMMA) or a generator id with options
/// (`inter-allgather-kang:intra=bruck`). No MPI here.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_SELECTION_H
#define CHOREO_PMPI_SELECTION_H

#include "cost/Model.h"
#include "pmpi/Shape.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace choreo {
namespace pmpi {

struct Choice {
  enum Kind { Native, Auto, Algorithm } K = Native;
  std::string Id;                 ///< Algorithm: the generator id
  std::vector<std::string> Extra; ///< "--intra", "bruck", ...
  std::string Why;                ///< "CHOREO_ALLGATHER", "rule 2 of r.json"
  /// What every rank must agree on: "allgather-ring:intra=bruck".
  std::string Text;
};

/// "native", "auto" or "ID[:NAME=VALUE]..." (an unknown id is an error).
llvm::Expected<Choice> parseChoice(llvm::StringRef Text, llvm::StringRef Why);

/// One condition of a rule: NAME OP VALUE.
struct Condition {
  std::string Name, Op, Value;
};
struct Rule {
  std::vector<Condition> Conds;
  std::string Algorithm; ///< the choice's text
  std::string Path;      ///< JSON path of the leaf, for messages
};

/// The largest selection file read, and the deepest nesting of conditions
/// in it (MPICH's tuning files nest about 5 levels): a file beyond either
/// is refused with an error naming it, never read without bound or walked
/// into a stack overflow.
inline constexpr uint64_t MaxSelectionFileBytes = 1 << 20;
inline constexpr size_t MaxSelectionDepth = 64;

/// Reads a selection file: nested objects whose keys are conditions
/// ("collective=allgather", "comm_size<=64", "avg_msg_size=any",
/// "comm_size=pow2") and whose leaves are "algorithm=CHOICE" keys; rules
/// are the leaves in file order. Errors name the JSON path.
llvm::Expected<std::vector<Rule>> parseRules(const nlohmann::ordered_json &J,
                                             llvm::StringRef File);
/// The same from the file's text (File names it in errors).
llvm::Expected<std::vector<Rule>> parseRulesText(llvm::StringRef Text,
                                                 llvm::StringRef File);
/// The same from the file Path: a regular file of at most
/// MaxSelectionFileBytes.
llvm::Expected<std::vector<Rule>> readRulesFile(llvm::StringRef Path);

/// Whether the rule's conditions hold for the call.
bool ruleMatches(const Rule &R, const BoundCall &Shape);

struct SelectionConfig {
  /// CHOREO_SELECTION's rules and its path (empty: none).
  std::vector<Rule> Rules;
  std::string RulesFile;
  /// CHOREO_DEFAULT (default "auto").
  std::string Default = "auto";
  /// The model auto prices with: CHOREO_MACHINE's machine file
  /// (cost/Machine.h) where set, CHOREO_ALPHA (seconds), CHOREO_BETA
  /// (seconds per byte), CHOREO_GAMMA (seconds per byte combined, for the
  /// reductions) over it. Its Ports stay 0: model() sets the call's.
  CostModel Model = defaultModel();
  /// CHOREO_MARGIN: auto runs choreo's best only when its model time
  /// times (1 + Margin) is below the model time of MPICH's own algorithm
  /// (the `*-mpich` generator serving the call); otherwise MPICH's
  /// collective runs, natively (handedToMpich). Negative ("off"): the
  /// model's best always runs, a `*-mpich` schedule executed by choreo
  /// included.
  double Margin = 0.1;

  /// The cost model of these parameters, with the call's ports (at least
  /// 1) as the machine's: a schedule written for more (the scattered
  /// alltoall's batch) queues its messages on the call's; and NodeOf, the
  /// job's nodes (CostModel::NodeOf).
  CostModel model(const CallHeader &Call,
                  llvm::ArrayRef<uint32_t> NodeOf = {}) const;

  /// The library's defaults: alpha 2 us, beta 1 ns per byte, gamma
  /// 0.25 ns per byte.
  static CostModel defaultModel() {
    CostModel M;
    M.Alpha = 2e-6;
    M.Beta = 1e-9;
    M.Gamma = 2.5e-10;
    return M;
  }
};

/// The environment variable naming the choice for Shape's call:
/// CHOREO_ALLGATHER, CHOREO_ALLGATHERV_INTER, ...
std::string envName(const BoundCall &Shape);

/// The choice for Shape: the environment (read with getenv), the rules,
/// the default.
llvm::Expected<Choice> select(const BoundCall &Shape,
                              const SelectionConfig &Cfg);

/// select() for a call whose sizes this rank does not know alone (an
/// MPI_Alltoallv's matrix, an intercommunicator MPI_Allgatherv's own group,
/// an MPI_Gatherv's counts): Shape has the call's groups, root and operator
/// but not its sizes. The choice when the environment, the first rule that
/// may match, or the default decides it without the sizes; nullopt when that
/// rule reads avg_msg_size or total_msg_size (or in_place, which only some
/// ranks may know), or the choice does not parse (select, on the full path,
/// then says why).
std::optional<Choice> selectWithoutSizes(const BoundCall &Shape,
                                         const SelectionConfig &Cfg);

/// Auto over whole schedules: the candidate (pmpi/Candidates.h) whose
/// schedule for Shape has the least asynchronous time under the cost model;
/// its schedule, id, options and predicted time (each step's ops in
/// canonicalStepOrder, as the job prices them). NodeOf: the node of every
/// rank of the job (pmpi/Nodes.h; empty: one node or unknown), which adds
/// the node-aware candidates and prices an op within a node with the
/// model's intra-node pair. Fails when no generator serves the call. The
/// library does not build whole schedules: it prices in the job
/// (chooseInJob, pmpi/JobCost.h), whose choice and time are this one's
/// (tests/mpi/job_cost_test.cpp).
struct AutoResult {
  Schedule S;
  std::string Id;
  double Time = 0;
  unsigned Candidates = 0;
  /// The cheapest model of MPICH's own algorithm (a `*-mpich` generator)
  /// and its time, when one serves the call (JobChoice's, pmpi/JobCost.h).
  std::string MpichId;
  std::optional<double> MpichTime;
  /// The winner's own options (a node-aware form's "--nodes", "2,2", ...)
  /// and the choice's text ("bcast-flat:nodes=2,2:groups=nodes").
  std::vector<std::string> Extra;
  std::string Text;
};

/// The margin's rule (SelectionConfig::Margin): a call goes to MPICH's own
/// collective when a model of MPICH's algorithm serves it (MpichTime) and
/// choreo's best, Time, is not predicted faster by Margin (negative: never).
inline bool handedToMpich(double Time, std::optional<double> MpichTime,
                          double Margin) {
  return MpichTime && Margin >= 0 && Time * (1 + Margin) >= *MpichTime;
}
llvm::Expected<AutoResult> chooseByModel(const BoundCall &Shape,
                                         const SelectionConfig &Cfg,
                                         llvm::ArrayRef<uint32_t> NodeOf = {});

/// S with each step's ops stably sorted by (sender, receiver): the whole
/// schedule whose evaluateCost(...).Async priceInJob (pmpi/JobCost.h)
/// computes, and chooseByModel prices.
Schedule canonicalStepOrder(const Schedule &S);

} // namespace pmpi
} // namespace choreo

#endif
