//===- verifier/smt/Synth.h - Schedules synthesised by Z3 -------*- C++ -*-===//
///
/// \file
/// Synthesis: the fastest schedule of a small instance, or a proof that none
/// of T steps exists. An instance is a schedule header (collective, groups,
/// sizes, root, topology, ports; no steps) in which every contribution is
/// cut into units of one byte (`--chunks K`: K units per contribution); a
/// schedule moves whole units, one unit per op. With `nodes`, the off-node
/// ops of a step are bounded per node as well (seed 003's clustered
/// single-port model, schedule-format.md). Z3 decides whether a
/// schedule of T steps exists (sat: the schedule; unsat: a machine-checked
/// lower bound T + 1); `synthesizeMin` searches T upward from a lower bound
/// computed from distances and receive ports. From an upper bound on (a
/// schedule of one op per step, built without Z3) that schedule answers,
/// and an encoding past MaxSynthVariables is refused. Z3 stays behind this
/// interface, like the prover's (Prover.h).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_SMT_SYNTH_H
#define CHOREO_VERIFIER_SMT_SYNTH_H

#include "ir/Schedule.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace choreo {

/// What to synthesise, as `choreo synth` takes it.
struct SynthRequest {
  Collective Kind = Collective::HalfAllgather;
  /// Ranks of an intragroup collective, or the size of group A.
  unsigned P = 0;
  /// The size of group B (intergroup collectives only).
  unsigned Q = 0;
  /// Rooted collectives (bcast, gather).
  Rank Root = 0;
  Topology Topo;
  Ports Port;
  /// Units per contribution (each one byte).
  unsigned Chunks = 1;
  /// Compute nodes (the schedule's `nodes`; absent: none) and their
  /// off-node ports: per step at most NodePort.Send ops leave a node and at
  /// most NodePort.Recv enter it.
  std::optional<std::vector<std::vector<Rank>>> Nodes;
  NodePorts NodePort;
};

/// The schedule header of R: groups A = 0..p-1, B = p..p+q-1 (or `all`),
/// Chunks bytes per contributing member (a bcast vector of Chunks bytes),
/// the topology, ports and nodes; no steps. Refuses what synthesis cannot do
/// (reductions, a rank count out of [1, 64], a root out of range, a graph
/// or ring that is not over the ranks), naming the option.
llvm::Expected<Schedule> synthInstance(const SynthRequest &R);

/// The most Boolean variables an encoding may have (at the steps asked):
/// Z3 takes about 6 KB per variable with its constraints (measured: 437 MB
/// at 73,441 variables), so about 6 GB.
inline constexpr uint64_t MaxSynthVariables = 1'000'000;

struct SynthOptions {
  /// Per query (0: no limit).
  unsigned TimeoutMs = 0;
  /// The encoding's limit (tests lower it).
  uint64_t MaxVariables = MaxSynthVariables;
};

/// One question to Z3: is there a schedule of Steps steps?
struct SynthQuery {
  enum class Answer { Sat, Unsat, Unknown };
  unsigned Steps = 0;
  Answer A = Answer::Unknown;
  double Seconds = 0;
  std::string Why; ///< the solver's reason when unknown
};

struct SynthResult {
  /// A lower bound on the steps, from distances, receive ports, doubling
  /// and node ports.
  unsigned LowerBound = 0;
  /// The rank and the reason the bound holds, in words.
  std::string LowerBoundWhy;
  /// An upper bound on the optimum: the steps of a schedule of one op per
  /// step that always exists (built without Z3), and how it is built.
  unsigned UpperBound = 0;
  std::string UpperBoundWhy;
  /// The queries in the order they were asked.
  std::vector<SynthQuery> Queries;
  /// The schedule of the last sat query (checked by the explicit engine).
  std::optional<Schedule> Found;
  /// The encoding's size: Boolean variables and constraints at the largest
  /// T asked.
  size_t Variables = 0, Constraints = 0;
};

/// The lower bound SynthResult reports, without asking Z3: the bound and
/// why it holds.
llvm::Expected<std::pair<unsigned, std::string>>
synthLowerBound(const Schedule &H);

/// Asks for a schedule of at most Steps steps for the instance H
/// (synthInstance). From the upper bound on, the answer is sat without Z3:
/// the upper bound's schedule (one op per step). Refuses, before anything
/// is encoded, an encoding of more than O.MaxVariables variables; running
/// out of memory is an error that says so.
llvm::Expected<SynthResult> synthesize(const Schedule &H, unsigned Steps,
                                       const SynthOptions &O = {});

/// Asks T = max(From, lower bound - 1), T + 1, ... up to MaxSteps (or the
/// upper bound, where a query is sat), incrementally (one solver, one layer
/// of variables per step), until a query is sat, one is unknown, or
/// MaxSteps is unsat; hands each query to OnQuery as it is answered. A T
/// whose encoding would pass O.MaxVariables is not asked: refused if it
/// is the first, else an unknown answer that ends the search.
llvm::Expected<SynthResult>
synthesizeMin(const Schedule &H, unsigned From, unsigned MaxSteps,
              const SynthOptions &O = {},
              llvm::function_ref<void(const SynthQuery &)> OnQuery = nullptr);

} // namespace choreo

#endif
