//===- cost/Model.h - The alpha-beta-gamma cost of a schedule ---*- C++ -*-===//
///
/// \file
/// The cost model of the seed papers: a message of n bytes costs
/// alpha + n beta (t_s + n t_w in seeds 000/001), and combining n received
/// bytes into a partial result costs n gamma (seed 004). Seed 004's factors
/// f_alpha = alpha_uni / alpha and f_beta = beta_uni / beta price a message
/// that travels one way on an otherwise quiet pair of ports: an op is
/// unidirectional when, in its step, its sender receives nothing and its
/// receiver sends nothing; otherwise (a pairwise exchange, a ring step) it is
/// bidirectional and pays alpha and beta in full.
///
/// Two evaluations of a schedule:
///  - lock step: every step starts when the slowest op of the previous one
///    has ended, so a step costs its slowest op (alpha + beta x its largest
///    message when all ops are alike), plus the combining after it;
///  - asynchronous: what the executor does (executor/Plan.cpp). Each rank
///    runs its steps in order, and an op starts once both its sender and its
///    receiver have finished their previous steps (and their local
///    combining); the data it carries was received in an earlier step, so it
///    has arrived by then. Within a step a rank uses up to `ports.send` send
///    and `ports.recv` receive channels at once (one shared pool unless
///    duplex), so an op that finds its channels taken waits for the first to
///    free. A rank's time splits into busy (communicating or combining) and
///    idle (waiting for a partner, or done before the slowest rank).
///
/// With `nodes`, an op between two nodes also takes an off-node send channel
/// of its sender's node and an off-node receive channel of its receiver's
/// node (`node_ports.send` / `node_ports.recv` of them). In lock step they
/// free up at the start of each step, like a rank's; asynchronously a node
/// channel is taken in the schedule's order and held until its op ends.
///
/// Times are in the units of alpha (beta and gamma per byte).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_COST_MODEL_H
#define CHOREO_COST_MODEL_H

#include "ir/Schedule.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace choreo {

struct CostModel {
  double Alpha = 0, Beta = 0, Gamma = 0;
  double FAlpha = 1, FBeta = 1;
  /// The machine's ports: every rank prices its ops with at most this many
  /// send and receive channels, so that a schedule written for more ports
  /// (ports.send 32: a step of 32 messages at once) queues its messages on
  /// the machine's; 0: the schedule's own ports.
  uint32_t Ports = 0;

  /// One op: its start-up and transfer, with the unidirectional factors
  /// unless Bidirectional. Combining is charged separately.
  double transfer(uint64_t Bytes, bool Bidirectional) const {
    return Bidirectional ? Alpha + double(Bytes) * Beta
                         : FAlpha * Alpha + double(Bytes) * FBeta * Beta;
  }
  /// Rejects negative or non-finite parameters, naming the option.
  llvm::Error check() const;
  nlohmann::ordered_json toJson() const;
};

struct CostResult {
  /// Completion time of the last rank, asynchronous and lock step.
  double Async = 0, Lockstep = 0;
  /// Per rank (asynchronous): when it finished its last step, and the time
  /// it spent communicating or combining. Idle = Async - Busy.
  std::vector<double> Finish, Busy;
  /// Ops priced as bidirectional and as unidirectional.
  size_t BidirectionalOps = 0, UnidirectionalOps = 0;
  /// The rank that finishes last, and the busiest rank.
  Rank LastRank = 0, BusiestRank = 0;
};

/// Evaluates S under M. S must be structurally valid (Schedule::verify());
/// it need not be proved: an over-subscribed port is priced as waiting.
CostResult evaluateCost(const Schedule &S, const CostModel &M);

/// Fails when a predicted time overflowed to infinity (alpha = 1e308 ...),
/// naming the model, so callers never print or plot an infinite time.
llvm::Error checkFinite(const CostResult &R, const CostModel &M);

} // namespace choreo

#endif
