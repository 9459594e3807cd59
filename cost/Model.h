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
/// Within a node the machine may be faster: with Intra (the machine file's
/// `intra` pair), an op between two ranks of one node pays Intra's alpha and
/// beta, every other op Alpha and Beta. The nodes are the schedule's
/// `nodes`, else the model's NodeOf (the job's, as the drop-in library
/// learns them); without Intra, or without either, every op pays Alpha and
/// Beta, as before.
///
/// StepStartup (sigma) is the start-up of a receive a rank waits for: the
/// executor's testing and yielding and, with more ranks than cores, waiting
/// for a core, between a message's arrival and the rank acting on it
/// (docs/machine.md, "Per-step start-up"). A receive is waited for when it
/// ends after the start of the rank's step (its data was not there
/// when the rank came to it); the rank then wakes sigma after it, one
/// receive after another (startUpWake), and its step ends no earlier. Its
/// next step's sends wait for the wake-up; its receive channels do not (a
/// sender's message can arrive meanwhile). A step in which a rank only
/// sends, or only receives messages that were already there, costs it no
/// start-up. 0 (the default) prices steps as before.
///
/// FlowControlBytes prices the executor's flow control (docs/executor.md,
/// "Flow control"; `choreo-run --flow-control`, the machine file's
/// `flow_control_bytes`): a message of at least that many bytes is gated.
/// Its receiver sends a clear-to-send when it comes to the step, the
/// sender posts the data once that arrived and it woke up to it, and the
/// receiver acknowledges the data once it woke up to it; the sender's op
/// ends when the acknowledgement arrives, which the sender waits for like
/// a receive (CostModel::opTimes, one definition for the simulation and the
/// drop-in library's in-job pricing). 0 (the default): nothing is gated.
///
/// EagerBytes prices eager sends (docs/machine.md, "Eager sends"): a
/// transport that sends a message before its receive is posted (UCX below
/// its rendezvous threshold, into TCP's socket buffer) lets a sender run
/// ahead. Asynchronously, with EagerBytes set and no flow control, a
/// message of at most EagerBytes is ready when its sender comes to its
/// step, and its sender's step does not wait for it; a sender's messages
/// on the wire at once share its port (max-min fair shares; a node's
/// off-node sides likewise), and a receiver takes one message per receive
/// channel at a time, in the order they come, so that a message sent
/// ahead can take the port before the one the receiver waits for.
/// Messages from one sender to one receiver keep their order. A message
/// alone on its ports takes transfer(), so a schedule whose messages never
/// meet prices as before; one whose sender runs ahead (a tree's root
/// sending to its children in consecutive steps, a circulant round sent to
/// a receiver that still waits for the previous round's segment) pays for
/// it. A larger message leaves when both ends have come to the step
/// (rendezvous), and its sender's step waits for it. The lock-step time
/// is unchanged.
///
/// Times are in the units of alpha (beta and gamma per byte).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_COST_MODEL_H
#define CHOREO_COST_MODEL_H

#include "ir/Schedule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

namespace choreo {

/// A message's start-up (alpha) and time per byte (beta) on one kind of
/// link.
struct LinkCost {
  double Alpha = 0, Beta = 0;
};

struct CostModel {
  double Alpha = 0, Beta = 0, Gamma = 0;
  double FAlpha = 1, FBeta = 1;
  /// A rank's start-up per receive it waits for (the machine file's
  /// `step_startup`, `--step-startup`; startUpWake).
  double StepStartup = 0;
  /// Charge StepStartup once per step the rank waits in (after the last
  /// receive it waited for) instead of once per waited receive: an MPI
  /// library's own collective waits for a step's requests in one
  /// busy-polling MPI_Waitall (library()).
  bool StartUpPerStep = false;
  /// The start-up of the MPI library's own collectives' steps (the machine
  /// file's `library_step_startup`, which choreo-calibrate measures with
  /// the library's blocking, busy-polling waits); unset: StepStartup.
  std::optional<double> LibraryStepStartup;
  /// The model that prices the MPI library's own algorithms (choreo tune
  /// --mpich/--ompi, the margin's `*-mpich` price): with
  /// LibraryStepStartup, that start-up once per waited step
  /// (StartUpPerStep); without it, this model unchanged.
  CostModel library() const {
    CostModel M = *this;
    if (LibraryStepStartup) {
      M.StepStartup = *LibraryStepStartup;
      M.StartUpPerStep = true;
    }
    return M;
  }
  /// The machine's ports: every rank prices its ops with at most this many
  /// send and receive channels, so that a schedule written for more ports
  /// (ports.send 32: a step of 32 messages at once) queues its messages on
  /// the machine's; 0: the schedule's own ports.
  uint32_t Ports = 0;
  /// Alpha and beta between two ranks of one node (the machine file's
  /// `intra`); unset: those of every op.
  std::optional<LinkCost> Intra;
  /// The node of every rank for a schedule without `nodes` (the drop-in
  /// library's job, pmpi/Nodes.h); used only with one entry per rank.
  std::vector<uint32_t> NodeOf;
  /// Messages of at least this many bytes are gated by the executor's flow
  /// control (opTimes); 0: off.
  uint64_t FlowControlBytes = 0;
  /// Messages of at most this many bytes are sent eagerly (the machine
  /// file's `eager_bytes`, which choreo-calibrate measures): the sender's
  /// step does not wait for them to arrive, and they meet on the ports
  /// (evaluateCost's asynchronous time, EagerBytes above). 0 (the default): every message holds its
  /// sender's and receiver's channels until it has arrived, as before.
  /// Not applied with FlowControlBytes (the handshakes serialise).
  uint64_t EagerBytes = 0;
  /// Whether the asynchronous time prices eager sends sharing the ports.
  bool eagerSharing() const { return EagerBytes && !FlowControlBytes; }

  /// One op: its start-up and transfer, with the unidirectional factors
  /// unless Bidirectional, on the intra-node link when SameNode and the
  /// model has one. Combining is charged separately.
  double transfer(uint64_t Bytes, bool Bidirectional,
                  bool SameNode = false) const {
    double A = Alpha, B = Beta;
    if (SameNode && Intra) {
      A = Intra->Alpha;
      B = Intra->Beta;
    }
    return Bidirectional ? A + double(Bytes) * B
                         : FAlpha * A + double(Bytes) * FBeta * B;
  }
  /// When an op starts and when it ends at each end.
  struct OpTimes {
    /// Its data starts.
    double Start = 0;
    /// The data has arrived: the receiver's end (a receive it may wait
    /// for, startUpWake).
    double Arrive = 0;
    /// The sender is done with it: Arrive without flow control; gated, the
    /// arrival of the acknowledgement, which the sender waits for like a
    /// receive.
    double SenderDone = 0;
    bool Gated = false;
    /// Gated: the sender waited for the clear-to-send (and woke sigma
    /// after it).
    bool WaitedForClear = false;
  };
  /// The op's times, its sender's channel free at SendFree, its
  /// receiver's at RecvFree, the receiver awake (its step started, its
  /// wake-up included) at RecvAwake, and nothing else before NotBefore (a
  /// node's channel). Ungated: it starts when both channels are free and
  /// both ends are done at Start + transfer. Gated (Bytes at least
  /// FlowControlBytes), with h = transfer(0) (a zero-byte message's
  /// start-up) and sigma = StepStartup: the receiver sends the
  /// clear-to-send once awake and its channel free, so it arrives at
  /// C = max(RecvFree, RecvAwake) + h; the data starts at the sender's
  /// SendFree when C is there by then, else sigma after C (the sender
  /// waited for it); the receiver wakes to the data sigma after it arrived
  /// and acknowledges, so SenderDone = Arrive + sigma + h, and the sender
  /// wakes to that sigma later (startUpWake).
  OpTimes opTimes(double SendFree, double RecvFree, double RecvAwake,
                  uint64_t Bytes, bool Bidirectional, bool SameNode = false,
                  double NotBefore = 0) const {
    OpTimes T;
    T.Gated = FlowControlBytes && Bytes >= FlowControlBytes;
    if (!T.Gated) {
      T.Start = std::max({SendFree, RecvFree, NotBefore});
      T.Arrive = T.SenderDone =
          T.Start + transfer(Bytes, Bidirectional, SameNode);
      return T;
    }
    double H = transfer(0, /*Bidirectional=*/true, SameNode);
    double Clear = std::max(RecvFree, RecvAwake) + H;
    T.WaitedForClear = Clear > SendFree;
    T.Start = std::max(NotBefore,
                       T.WaitedForClear ? Clear + StepStartup : SendFree);
    T.Arrive = T.Start + transfer(Bytes, Bidirectional, SameNode);
    T.SenderDone = T.Arrive + StepStartup + H;
    return T;
  }
  /// The node of every rank that S's ops are priced by (transfer's
  /// SameNode): S's `nodes`, else NodeOf when it has S's ranks; empty
  /// without Intra (nothing to tell apart) or without either.
  std::vector<uint32_t> linkNodes(const CallHeader &S) const;
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

/// When a rank that started its step at Start wakes up after the step's
/// receives, which end at Ends (sorted here): each receive ending after
/// Start was waited for, and the rank wakes Sigma after it, or after
/// its previous wake-up if later. Returns Start when none was waited for;
/// Waited is how many were. The one definition of the start-up that
/// evaluateCost, the drop-in library's in-job pricing (pmpi/JobCost.cpp) and
/// choreo-calibrate share.
/// PerStep (CostModel::StartUpPerStep): the rank wakes Sigma after the
/// last receive it waited for, once per step (Waited is 0 or 1).
double startUpWake(double Start, llvm::MutableArrayRef<double> Ends,
                   double Sigma, unsigned &Waited, bool PerStep = false);

/// Evaluates S under M. S must be structurally valid (Schedule::verify());
/// it need not be proved: an over-subscribed port is priced as waiting.
CostResult evaluateCost(const Schedule &S, const CostModel &M);

/// Fails when a predicted time overflowed to infinity (alpha = 1e308 ...),
/// naming the model, so callers never print or plot an infinite time.
llvm::Error checkFinite(const CostResult &R, const CostModel &M);

} // namespace choreo

#endif
