//===- executor/Plan.h - Running a schedule over MPI ------------*- C++ -*-===//
///
/// \file
/// Plan runs one rank's part of a proved schedule with MPI point-to-point:
/// per step it posts the step's receives and sends (MPI_Irecv, MPI_Isend),
/// waits for them, and does the step's local work. Steps are ordered per
/// rank only (no barrier). A run is started (step 0 posted) and progressed
/// without blocking (a step's requests tested; when they complete, its
/// local work is done and the next step posted); execute() is start plus a
/// progress loop. Every run carries a slot, its own tag space: runs of
/// different slots outstanding at once on one communicator never match
/// each other's messages (the drop-in library numbers its runs per
/// communicator in call order, pmpi/Library.cpp).
///
/// A plan is created once, collectively, for a communicator and the user's
/// buffers (like MPI's persistent collectives), and executed many times.
/// Creation checks everything that could make a run fail or hang: the
/// schedule proves (unless the caller proved it), the communicator's size or
/// groups match the schedule, every rank holds the same schedule, the
/// buffers are large enough. If any rank finds a problem, every rank's
/// create returns an error naming it, and nobody hangs.
///
/// Intercommunicators: group A is the low group (the one whose rank 0 has
/// the lower MPI_COMM_WORLD rank), B the other; the receive buffer of a
/// member of A holds B's contributions and vice versa, as MPI's
/// intercommunicator MPI_Allgather(v) lays them out.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_PLAN_H
#define CHOREO_EXECUTOR_PLAN_H

#include "executor/Agree.h"
#include "executor/RankPlan.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <mpi.h>
#include <optional>
#include <vector>

namespace choreo {

enum class WaitMode {
  /// MPI_Testall, then sched_yield() until done: MPICH's blocking waits
  /// busy-poll, which with more processes than cores slows a collective by
  /// 100-1000x.
  Yield,
  /// MPI_Waitall.
  Busy,
};

struct UserBuffers {
  /// Gather-type collectives: this rank's contribution; reductions: its
  /// vector. Unused (may be null) for bcast and for the members of B in
  /// half_allgather.
  const void *Send = nullptr;
  size_t SendBytes = 0;
  /// The result, laid out as the matching MPI call lays it out (for bcast,
  /// the one buffer of MPI_Bcast, holding the data on the root).
  void *Recv = nullptr;
  size_t RecvBytes = 0;
  /// MPI_Allgatherv-style byte displacements of the result group's members
  /// in Recv; empty: contiguous in member order. An alltoall: rdispls, the
  /// byte displacement of block (i, Me) in Recv.
  std::vector<uint64_t> RecvDispls;
  /// An alltoall: sdispls, the byte displacement of block (Me, j) in Send;
  /// empty: the row packed in rank order.
  std::vector<uint64_t> SendDispls;
  /// Reductions: element type and operation (MPI_Reduce_local). Blocks of
  /// the schedule must fall on element boundaries.
  MPI_Datatype ReduceType = MPI_DATATYPE_NULL;
  MPI_Op ReduceOp = MPI_OP_NULL;
};

struct PlanOptions {
  WaitMode Wait = WaitMode::Yield;
  /// Prove the schedule on every rank before running it. Callers that
  /// proved it already (choreo-run proves it once on rank 0) turn this off.
  bool Verify = true;
  /// Run on the intracommunicator given to create itself instead of on a
  /// duplicate: the caller keeps it private to choreo and alive as long as
  /// the plan (the drop-in library's private communicator of a group of
  /// processes, so that cached plans do not use up context ids).
  bool UseComm = false;
  /// Receiver-driven flow control (docs/executor.md, "Flow control"): a
  /// message of at least this many bytes is sent only once its receiver,
  /// having entered the step and posted the receive, sent a zero-byte
  /// clear-to-send, and its send completes only when the receiver said it
  /// arrived (a zero-byte acknowledgement). 0: off. Every rank must give
  /// the same (create checks).
  uint64_t FlowControlBytes = 0;
};

/// Why an intercommunicator cannot run S ("the intercommunicator's groups
/// have 4 (A, the low group) and 4 (B) ranks but the schedule's have 6 and
/// 2", or S is not an intergroup collective), or "" when it can; Low: this
/// process is in the low group, A. The same text on every rank.
std::string interMismatch(const Schedule &S, MPI_Comm Inter, bool Low);

class Plan {
public:
  /// Collective over Comm: every rank of Comm calls it with the same
  /// schedule. Comm is an intracommunicator of the schedule's size (rank r
  /// runs schedule rank r) or an intercommunicator (see above).
  static llvm::Expected<std::unique_ptr<Plan>>
  create(const Schedule &S, MPI_Comm Comm, const UserBuffers &Buffers,
         const PlanOptions &Opts = {});

  /// The same from a schedule file, read and proved once by the pipeline
  /// (readProvedSchedule, executor/Pipeline.h). Opts.Verify is ignored: the
  /// schedule is always proved, once.
  static llvm::Expected<std::unique_ptr<Plan>>
  createFromFile(llvm::StringRef Path, MPI_Comm Comm,
                 const UserBuffers &Buffers, const PlanOptions &Opts = {});

  /// Local (no communication): a plan of S on the intracommunicator Comm
  /// itself (PlanOptions::UseComm; rank r runs schedule rank r), bound to
  /// Buffers, S not proved here. For a caller whose ranks each made the
  /// same proved schedule without a message (the drop-in library's started
  /// v forms, once their counts arrived): create's agreement would be a
  /// collective. An error is this rank's alone.
  static llvm::Expected<std::unique_ptr<Plan>>
  createLocal(const Schedule &S, MPI_Comm Comm, const UserBuffers &Buffers,
              uint64_t FlowControlBytes = 0);

  /// Runs the schedule once on the bound buffers: start(Slot), then
  /// progress() until the run completes (WaitMode::Yield: sched_yield()
  /// between tests; Busy: MPI_Waitall on each step). A rank that cannot go
  /// on (a combination fails, or a message that should carry data arrives
  /// empty) still completes its steps' messages, sending them empty, and
  /// returns the first problem: so a peer waiting for it is never left
  /// waiting, and every rank whose result depends on it fails too.
  llvm::Error execute(uint32_t Slot = 0);

  /// Starts a run in tag space Slot (the same on every rank for one call;
  /// only its low bits count, see tagBase): the prologue, then step 0's
  /// receives and sends posted. Errors: a failing MPI call, or a run
  /// already in progress.
  llvm::Error start(uint32_t Slot = 0);
  /// Non-blocking: tests the current step's requests; when they completed,
  /// does its local work and posts the next step, and so on while steps
  /// complete. True when the run is complete (and then on every later
  /// call), false while messages are in flight; an error when it completed
  /// with a problem (as execute() reports it, every message still sent) or
  /// an MPI call failed.
  llvm::Expected<bool> progress();
  /// Whether a run was started and has not completed.
  bool running() const { return Running; }

  /// Runs this rank's messages once, every send empty and every receive
  /// discarded, without touching any buffer: what a rank does for a call
  /// its peers run when it cannot run it itself (its rebind failed), so
  /// that they end with an error instead of waiting for ever. Uses the
  /// message pattern of the plan's first binding (a rebind does not change
  /// it) and the peers' Slot. Returns an error only for a failing MPI call.
  llvm::Error abandon(uint32_t Slot = 0);

  /// Local: a second plan of the same schedule on the same communicator,
  /// not bound to buffers (rebind it before running), so that two runs of
  /// one cached call can be outstanding at once. The communicator stays
  /// this plan's (the sibling never frees it); this plan must outlive it
  /// unless the communicator is the caller's (PlanOptions::UseComm).
  std::unique_ptr<Plan> sibling() const;

  /// The first tag of slot Slot's messages on a communicator whose
  /// MPI_TAG_UB is TagUb: the top bit of the tag range set, then the slot's
  /// low bits, then a bit for the clear-to-send messages of flow control
  /// (CtsTag), then 7 bits of step number. Tags below the top bit stay
  /// free for the runtime's own messages.
  static int tagBase(uint32_t Slot, int TagUb);
  /// The bits of slot tagBase keeps (Slot's higher bits are dropped): the
  /// tag range's bits less 9; 6 at MPI's least bound, 32767.
  static unsigned slotBits(int TagUb);
  /// The bound the plans use on a communicator whose MPI_TAG_UB is
  /// AttrUb: it, or CHOREO_TAG_UB when that is set and lower (a test and
  /// debug knob: a small bound on an MPI with a large one, docs/pmpi.md).
  /// Every rank must use the same (create checks).
  static int usableTagUb(int AttrUb);
  /// CHOREO_TAG_UB as set: 0 when unset, -1 when not a number from 32767
  /// to 2^31 - 1 (a clear error for the caller to give).
  static int tagUbKnob();
  /// The bit of a clear-to-send's tag (a data message's is clear).
  static constexpr int CtsTag = 1 << 7;

  /// Local (no communication): binds the plan to other buffers and receive
  /// displacements, recompiling this rank's part of S, the schedule the
  /// plan was created with (or a copy holding at least this rank's ops).
  /// The checks are create's; S is not proved again. What the drop-in
  /// library (pmpi/) does when a cached plan is called with new buffers.
  llvm::Error rebind(const Schedule &S, const UserBuffers &Buffers);

  const RankPlan &rankPlan() const { return RP; }
  /// The intracommunicator the plan runs on: schedule rank r is rank r.
  MPI_Comm comm() const { return Comm; }

  ~Plan();
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;

private:
  Plan() = default;

  struct BoundTransfer {
    void *Ptr;
    int Count;
    MPI_Datatype Type;
    bool OwnsType;
    int Peer;
    /// The step's tag within the run's tag space (added to tagBase).
    int Tag;
    /// The message's bytes: a receipt of 0 bytes where this is not 0 is a
    /// peer's empty message (execute).
    uint64_t Bytes;
    /// Flow control: a receive sends a clear-to-send when posted and an
    /// acknowledgement when complete; a send waits for the clear-to-send
    /// before it is posted and for the acknowledgement after.
    bool Gated;
  };
  /// A message's peer and tag, per step: what abandon() posts.
  struct Message {
    int Peer, Tag;
    bool Gated;
  };
  struct MessageStep {
    std::vector<Message> Recvs, Sends;
  };
  struct BoundAction {
    const char *From;
    char *To;
    uint64_t Len;
    bool Combine;
    bool FromIsRight;
  };
  /// A lattice piece of a packed message: between its region's memory
  /// (Mem, the region's base) and the message (Msg, its first byte).
  struct BoundCopy {
    const LatticePiece *X;
    char *Mem;
    char *Msg;
  };
  struct BoundStep {
    std::vector<BoundTransfer> Recvs, Sends;
    std::vector<BoundAction> After;
    /// Lattice messages sent packed: their pieces copied into the pack
    /// buffer before the step's messages are posted; received packed:
    /// copied out of it when they arrived (before After).
    std::vector<BoundCopy> Pack, Unpack;
    /// Flow control: the gated receives (each sends a clear-to-send and
    /// an acknowledgement) and the indices in Sends of the gated sends
    /// (each waits for both).
    int CtsSends = 0;
    std::vector<int> GatedSends;
  };

  RankPlan RP;
  MPI_Comm Comm = MPI_COMM_NULL;
  bool OwnsComm = true;
  UserBuffers Buffers;
  PlanOptions Opts;
  std::vector<char> Scratch, Sink;
  /// Lattice messages packed (docs/executor.md, "Lattice pieces"): the
  /// most one step's take.
  std::vector<char> PackBuf;
  std::vector<BoundAction> Prologue, Epilogue;
  std::vector<BoundStep> Steps;
  /// A step's requests: its receives, its sends (a gated send's slot null
  /// until posted), its clear-to-sends, the receives of its gated sends'
  /// acknowledgements; CtsRequests: the receives of the clear-to-sends its
  /// gated sends wait for, Gated of them still to come. A step with gated
  /// messages completes request by request (MPI_Testsome into Indices and
  /// SomeStatuses), Remaining of them still to complete.
  std::vector<MPI_Request> Requests, CtsRequests;
  std::vector<MPI_Status> Statuses, SomeStatuses;
  std::vector<int> CtsIndices, Indices;
  int Remaining = 0;
  int Gated = 0;
  /// The run in progress: its first tag, the step in flight (Steps.size()
  /// when all are done) and whether its messages are posted, and this
  /// rank's first problem (from then on its sends go empty).
  bool Running = false, Posted = false;
  int TagBase = 0, TagUb = 32767;
  size_t Cur = 0;
  std::string Failed;
  /// The message pattern of the first binding (abandon).
  std::vector<MessageStep> Pattern;
  int ReduceTypeSize = 0;
  /// This rank's schedule rank and every schedule rank's communicator rank.
  Rank Me = 0;
  std::vector<int> CommRankOf;

  /// Frees the datatypes bind() made and forgets the bound state.
  void unbind();
  /// The local checks, compilation and binding; returns the problem found.
  std::string prepare(const Schedule &S, Rank Me,
                      llvm::ArrayRef<int> CommRankOf);
  llvm::Error bind();
  char *base(Region R);
  llvm::Error runActions(const std::vector<BoundAction> &Actions);
  /// Posts step St's messages (a gated send once its clear-to-send came).
  llvm::Error post(const BoundStep &St);
  /// Posts St's gated sends whose clear-to-send arrived, tests its
  /// requests and acknowledges its gated receives that completed; true
  /// when the step is complete.
  llvm::Expected<bool> pollGated(const BoundStep &St);
  /// Posts the send T into R (empty when this rank failed).
  int postSend(const BoundTransfer &T, MPI_Request &R);
  /// Progresses the run; Block: waits for each step (MPI_Waitall).
  llvm::Expected<bool> advance(bool Block);
};

} // namespace choreo

#endif
