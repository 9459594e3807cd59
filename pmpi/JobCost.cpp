//===- pmpi/JobCost.cpp - The cost model's time, priced in a job ----------===//
///
/// \file
/// The agreement allreduce, the timestamp replay of each candidate's ops
/// between their two ends, and the maximum of the ranks' finishing times.
/// The replay repeats cost/Model.cpp's asynchronous simulation step for
/// step, each rank for its own ops: the same channels, the same start and
/// end of every op, the same combining after the step.
///
//===----------------------------------------------------------------------===//

#include "pmpi/JobCost.h"

#include "executor/Yielding.h"
#include "generators/CallOptions.h"
#include "generators/Generator.h"
#include "pmpi/Candidates.h"
#include "pmpi/Shape.h"
#include "verifier/DistributedCheck.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <sched.h>
#include <utility>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// The first tag of the replay's messages (candidate i's is ReplayTag + i)
/// on the library's private communicator: below 2^13, where neither a
/// plan's tags (Plan::tagBase: the top bit of the tag range) nor a started
/// call's rounds (the next bit) are at any legal MPI_TAG_UB, since started
/// runs may be outstanding while a first call builds.
constexpr int ReplayTag = 0x0a00;

/// What one end of an op tells the other.
struct EndInfo {
  double ChannelFree = 0;
  /// The sender: it also receives in the step; the receiver: it also
  /// sends in the step (either makes the op bidirectional).
  uint64_t AlsoOther = 0;
  /// The sender: the op's bytes (the receiver's are ignored).
  uint64_t Bytes = 0;
  /// When the end's step started, its wake-up included: the receiver
  /// sends a gated op's clear-to-send no earlier (CostModel::opTimes).
  double Awake = 0;
};

/// Rank Me's replay of Part, resumable: advance() does what it can
/// without waiting, so that one rank replays every candidate at once (each
/// on its own tag) and a job waits for the longest candidate's steps, not
/// for the sum of all candidates' steps.
class Replay {
public:
  Replay(MPI_Comm Comm, int Tag, const Schedule &Part, Rank Me,
         const CostModel &M)
      : Comm(Comm), Tag(Tag), Part(Part), Me(Me), M(M),
        LinkNode(M.linkNodes(Part)) {
    const StepList &L = Part.Steps;
    std::vector<OpAt> Mine = opsOf(Part, Me);
    setChannels(Mine);
    for (size_t I = 0; I < Mine.size();) {
      uint32_t S = Mine[I].Step;
      StepBegin.push_back(uint32_t(Ops.size()));
      for (; I < Mine.size() && Mine[I].Step == S; ++I)
        Ops.push_back(&L.step(S)[Mine[I].Index]);
    }
    StepBegin.push_back(uint32_t(Ops.size()));
    // Each step in the projection of its global (sender, receiver) order.
    for (size_t K = 0; K + 1 < StepBegin.size(); ++K)
      std::stable_sort(
          Ops.begin() + StepBegin[K], Ops.begin() + StepBegin[K + 1],
          [](const Op *A, const Op *B) {
            return std::tie(A->Src, A->Dst) < std::tie(B->Src, B->Dst);
          });
  }

  /// Progresses without waiting; true once Me's last step is replayed.
  bool advance() {
    for (;;) {
      if (Pending) {
        int Done = 0;
        PMPI_Testall(int(Reqs.size()), Reqs.data(), &Done, MPI_STATUSES_IGNORE);
        if (!Done)
          return false;
        Pending = false;
        finishPosted();
        continue;
      }
      if (StepAt + 1 >= StepBegin.size())
        return true;
      startPosting();
    }
  }

  /// When Me finished its last step (advance() returned true).
  double ready() const { return Ready; }

private:
  llvm::ArrayRef<const Op *> step() const {
    return llvm::ArrayRef<const Op *>(Ops).slice(
        StepBegin[StepAt], StepBegin[StepAt + 1] - StepBegin[StepAt]);
  }

  /// The channels Me uses: the schedule's ports, capped at the most ops it
  /// has in one step (more would never be taken), as evaluateCost caps at
  /// the most any rank has.
  void setChannels(llvm::ArrayRef<OpAt> Mine) {
    uint32_t MostSend = 0, MostRecv = 0, MostBoth = 0;
    const StepList &L = Part.Steps;
    for (size_t I = 0; I < Mine.size();) {
      uint32_t S = Mine[I].Step, Sends = 0, Recvs = 0;
      for (; I < Mine.size() && Mine[I].Step == S; ++I)
        ++(L.step(S)[Mine[I].Index].Src == Me ? Sends : Recvs);
      MostSend = std::max(MostSend, Sends);
      MostRecv = std::max(MostRecv, Recvs);
      MostBoth = std::max(MostBoth, Sends + Recvs);
    }
    // The machine's ports, when it has fewer than the schedule (as
    // evaluateCost: CostModel::Ports).
    uint32_t PortSend =
                 M.Ports ? std::min(Part.Port.Send, M.Ports) : Part.Port.Send,
             PortRecv =
                 M.Ports ? std::min(Part.Port.Recv, M.Ports) : Part.Port.Recv;
    if (!Part.Port.Duplex) {
      SendBegin = RecvBegin = 0;
      SendEnd = RecvEnd =
          std::clamp(std::max(PortSend, PortRecv), 1u, std::max(1u, MostBoth));
    } else {
      SendBegin = 0;
      SendEnd = RecvBegin = std::clamp(PortSend, 1u, std::max(1u, MostSend));
      RecvEnd = RecvBegin + std::clamp(PortRecv, 1u, std::max(1u, MostRecv));
    }
    Chan.assign(std::max(SendEnd, RecvEnd), 0);
  }

  double &earliest(uint32_t Begin, uint32_t End) {
    return *std::min_element(Chan.begin() + Begin, Chan.begin() + End);
  }

  uint64_t bytesOf(const Op *O, uint64_t &Combined) const {
    uint64_t Bytes = 0;
    Combined = 0;
    for (const Block &B : Part.Steps.blocks(*O)) {
      Bytes += Part.Steps.bytes(B); // a lattice block's elements
      if (B.Reduce)
        Combined += Part.Steps.bytes(B);
    }
    return Bytes;
  }

  /// Whether each of Me's ops in the step finds a channel nobody used in
  /// it (free since Me's previous step): then no op waits for another of
  /// Me's, and Me tells every peer at once (one round per step instead of
  /// one per op: a ring step is not a chain around the ring).
  bool fresh() const {
    uint32_t Sends = 0, Recvs = 0;
    for (const Op *O : step())
      ++(O->Src == Me ? Sends : Recvs);
    if (!Part.Port.Duplex)
      return Sends + Recvs <= SendEnd - SendBegin;
    return Sends <= SendEnd - SendBegin && Recvs <= RecvEnd - RecvBegin;
  }

  /// Posts the exchanges of the next op (or, fresh, of the whole step).
  void startPosting() {
    llvm::ArrayRef<const Op *> S = step();
    if (Next == 0) {
      Sends = Recvs = false;
      for (const Op *O : S)
        (O->Src == Me ? Sends : Recvs) = true;
      // Sends wait for the previous step's wake-up, receives only for its
      // ops and combining (CostModel::StepStartup, as the simulation).
      if (!Part.Port.Duplex) {
        std::fill(Chan.begin(), Chan.end(), Ready);
      } else {
        std::fill(Chan.begin() + SendBegin, Chan.begin() + SendEnd, Ready);
        std::fill(Chan.begin() + RecvBegin, Chan.begin() + RecvEnd, RecvFree);
      }
      StepEnd = Ready;
      Lead = Part.Port.Duplex ? Ready - RecvFree : 0;
      PortEnd = Part.Port.Duplex ? RecvFree : Ready;
      Compute = 0;
      Arrivals.clear();
      Fresh = fresh();
    }
    size_t First = Fresh ? 0 : Next, Last = Fresh ? S.size() : Next + 1;
    size_t K = Last - First;
    Outs.resize(K);
    Ins.resize(K);
    Reqs.resize(2 * K);
    for (size_t I = 0; I < K; ++I) {
      const Op *O = S[First + I];
      bool IsSrc = O->Src == Me;
      uint64_t Combined;
      double Free = Fresh   ? freshFree(IsSrc)
                    : IsSrc ? earliest(SendBegin, SendEnd)
                            : earliest(RecvBegin, RecvEnd);
      Outs[I] =
          EndInfo{Free, IsSrc ? Recvs : Sends, bytesOf(O, Combined), Ready};
      PMPI_Irecv(&Ins[I], sizeof(EndInfo), MPI_BYTE,
                 int(IsSrc ? O->Dst : O->Src), Tag, Comm, &Reqs[I]);
    }
    for (size_t I = 0; I < K; ++I) {
      const Op *O = S[First + I];
      PMPI_Isend(&Outs[I], sizeof(EndInfo), MPI_BYTE,
                 int(O->Src == Me ? O->Dst : O->Src), Tag, Comm, &Reqs[K + I]);
    }
    Pending = true;
  }

  /// Every posted exchange has completed: the ops' start and end, as the
  /// whole schedule's simulation computes them.
  void finishPosted() {
    llvm::ArrayRef<const Op *> S = step();
    size_t First = Fresh ? 0 : Next;
    for (size_t I = 0; I < Outs.size(); ++I) {
      const Op *O = S[First + I];
      bool IsSrc = O->Src == Me;
      uint64_t Combined;
      uint64_t Bytes = bytesOf(O, Combined);
      double Fixed = Fresh ? freshFree(IsSrc) : 0;
      double &Mine = Fresh   ? Fixed
                     : IsSrc ? earliest(SendBegin, SendEnd)
                             : earliest(RecvBegin, RecvEnd);
      bool Bidirectional = Outs[I].AlsoOther || Ins[I].AlsoOther;
      bool SameNode = !LinkNode.empty() && LinkNode[O->Src] == LinkNode[O->Dst];
      // A gated op waits for the receiver's clear-to-send, and its sender
      // is done when the acknowledgement arrives, a receive it waits for
      // (CostModel::opTimes, as the simulation).
      CostModel::OpTimes T =
          IsSrc ? M.opTimes(Mine, Ins[I].ChannelFree, Ins[I].Awake, Bytes,
                            Bidirectional, SameNode)
                : M.opTimes(Ins[I].ChannelFree, Mine, Ready, Ins[I].Bytes,
                            Bidirectional, SameNode);
      double End = IsSrc ? T.SenderDone : T.Arrive;
      if (!Fresh)
        Mine = End;
      StepEnd = std::max(StepEnd, End);
      PortEnd = std::max(PortEnd, IsSrc ? End - Lead : End);
      if (!IsSrc) {
        Compute += double(Combined) * M.Gamma;
        Arrivals.push_back(End);
      } else if (T.Gated) {
        Arrivals.push_back(End);
      }
    }
    Next = Fresh ? S.size() : Next + 1;
    if (Next == S.size()) {
      // The wake-up after the receives Me waited for (startUpWake).
      double Wake = StepEnd;
      if (M.StepStartup && !Arrivals.empty()) {
        unsigned Waited = 0;
        Wake = std::max(
            Wake, startUpWake(Ready, Arrivals, M.StepStartup, Waited));
      }
      RecvFree = PortEnd + Compute;
      Ready = Wake + Compute;
      Next = 0;
      ++StepAt;
    }
  }

  /// A fresh step's channel: a send's waits for the previous step's
  /// wake-up, a receive's only for its ops (one shared pool: both wait).
  double freshFree(bool IsSrc) const {
    return IsSrc || !Part.Port.Duplex ? Ready : RecvFree;
  }

  MPI_Comm Comm;
  int Tag;
  const Schedule &Part;
  Rank Me;
  const CostModel &M;
  /// The node of every rank the ops are priced by (CostModel::linkNodes).
  std::vector<uint32_t> LinkNode;
  /// Me's ops, step by step (StepBegin[k] is step k's first).
  std::vector<const Op *> Ops;
  std::vector<uint32_t> StepBegin;
  size_t StepAt = 0, Next = 0;
  bool Pending = false, Fresh = false, Sends = false, Recvs = false;
  double Ready = 0, StepEnd = 0, Compute = 0;
  /// When Me's receive channels free up for its next step: its previous
  /// step's ops and combining, without the wake-up.
  double RecvFree = 0;
  /// The step's: how much later than its receives Me's sends could start
  /// (the wake-up), and its ops' ends with its sends' taken back by it
  /// (the next RecvFree, as the simulation's PortEnd).
  double Lead = 0, PortEnd = 0;
  std::vector<double> Arrivals;
  uint32_t SendBegin = 0, SendEnd = 1, RecvBegin = 1, RecvEnd = 2;
  std::vector<double> Chan;
  std::vector<EndInfo> Outs, Ins;
  std::vector<MPI_Request> Reqs;
};

/// Per candidate with `nodes` on every rank (Sums[4i + 1], summed): whether
/// its node channels never make an op wait beyond its ranks' own, so that
/// the replay, which does not take them, prices it as the whole's
/// simulation does. So it is when every rank prices one send and one
/// receive channel and, per node, at most one rank sends off the node and
/// at most one receives from another: a node's channels then carry one
/// rank's ops, which its own channel already orders (the node-aware
/// candidates: hierarchical broadcasts whose groups are the nodes, the
/// node-aware ring). One allreduce of per-node counts, when any candidate
/// has nodes; the same answer on every rank.
std::vector<bool>
nodeChannelsIdle(MPI_Comm Comm,
                 llvm::ArrayRef<const std::optional<Schedule> *> Parts, Rank Me,
                 const CostModel &M, llvm::ArrayRef<uint64_t> Sums) {
  size_t K = Parts.size();
  std::vector<bool> Out(K, false);
  std::vector<size_t> Which;
  for (size_t I = 0; I < K; ++I)
    if (!Sums[4 * I] && Sums[4 * I + 1])
      Which.push_back(I);
  if (Which.empty())
    return Out;
  int P = 0;
  PMPI_Comm_size(Comm, &P);
  // Per such candidate: two counts per node (nodes number below p), then
  // one count of parts that cannot be priced so.
  size_t Len = 2 * size_t(P) + 1;
  std::vector<uint64_t> Counts(Which.size() * Len, 0);
  for (size_t W = 0; W < Which.size(); ++W) {
    const Schedule &S = **Parts[Which[W]];
    uint64_t *C = Counts.data() + W * Len;
    auto Cap = [&](uint32_t X) { return M.Ports ? std::min(X, M.Ports) : X; };
    std::vector<uint32_t> NodeOf;
    if (S.NumRanks == Rank(P) && S.Nodes)
      NodeOf = S.nodeOfRank();
    if (NodeOf.size() != size_t(P) || Cap(S.Port.Send) > 1 ||
        Cap(S.Port.Recv) > 1 || NodeOf[Me] >= uint32_t(P)) {
      C[Len - 1] = 1;
      continue;
    }
    bool Off[2] = {false, false};
    for (OpAt A : opsOf(S, Me)) {
      const Op &O = S.Steps.step(A.Step)[A.Index];
      if (O.Src >= Rank(P) || O.Dst >= Rank(P) ||
          NodeOf[O.Src] == NodeOf[O.Dst])
        continue;
      Off[O.Src == Me ? 0 : 1] = true;
    }
    C[2 * NodeOf[Me]] = Off[0];
    C[2 * NodeOf[Me] + 1] = Off[1];
  }
  yielding::allreduce(MPI_IN_PLACE, Counts.data(), int(Counts.size()),
                      MPI_UINT64_T, MPI_SUM, Comm);
  for (size_t W = 0; W < Which.size(); ++W) {
    const uint64_t *C = Counts.data() + W * Len;
    Out[Which[W]] =
        std::all_of(C, C + Len, [](uint64_t X) { return X <= 1; }) &&
        C[Len - 1] == 0;
  }
  return Out;
}

/// A candidate's words of the first allreduce (sum): missing here, nodes,
/// the agreement term (sums to zero iff both ends of every message see it
/// alike).
void sumWordsOf(const std::optional<Schedule> &P, Rank Me, uint64_t *W) {
  W[0] = W[1] = W[2] = W[3] = 0;
  if (!P) {
    W[0] = 1;
    return;
  }
  W[1] = P->hasNodes();
  try {
    Digest128 A = agreementTerm(messageDigests(*P, Me, opsOf(*P, Me)));
    W[2] = A.H1;
    W[3] = A.H2;
  } catch (const std::bad_alloc &) {
    W[0] = 1;
  }
}

/// A candidate's status from its summed words.
JobPrice::Status statusOf(const uint64_t *Sums, bool NodesPriced) {
  if (Sums[0])
    return JobPrice::Status::Missing;
  if (Sums[1] && !NodesPriced)
    return JobPrice::Status::HasNodes;
  if (Sums[2] || Sums[3])
    return JobPrice::Status::Disagree;
  return JobPrice::Status::Priced;
}

/// Every candidate's part at Me (none where its build failed, or where its
/// part would be its whole schedule: every rank would build the whole to
/// price it; a fixed choice of it still runs).
std::vector<std::optional<Schedule>>
candidateParts(llvm::ArrayRef<Candidate> Cands, const BoundCall &Call,
               Rank Me) {
  std::vector<std::optional<Schedule>> Parts(Cands.size());
  for (size_t I = 0; I < Cands.size(); ++I) {
    try {
      if (!candidateOptions(Cands[I], Call.Header, Call.ElemBytes))
        continue;
      auto S = buildFor(Cands[I].G->id(), Cands[I].Extra, Call.Header,
                        Call.ElemBytes, Me);
      if (S)
        Parts[I] = std::move(*S);
      else
        llvm::consumeError(S.takeError());
    } catch (const std::bad_alloc &) {
      Parts[I].reset();
    }
  }
  return Parts;
}

/// Auto's rule over the prices: the first of the least, and the cheapest
/// priced model of MPICH's own beside it (as chooseByModel); the winner's
/// part moved out of Parts, its index in At.
std::optional<JobChoice> pickPriced(llvm::ArrayRef<Candidate> Cands,
                                    llvm::ArrayRef<JobPrice> Prices,
                                    std::vector<std::optional<Schedule>> &Parts,
                                    size_t *AtOut) {
  std::optional<JobChoice> Best;
  unsigned N = 0;
  size_t At = 0;
  for (size_t I = 0; I < Prices.size(); ++I) {
    if (Prices[I].St != JobPrice::Status::Priced)
      continue;
    ++N;
    if (!Best || Prices[I].Time < Best->Time) {
      Best = JobChoice{
          Cands[I].G->id().str(), std::nullopt,   Prices[I].Time, 0, {}, {},
          Cands[I].Extra,         Cands[I].text()};
      At = I;
    }
  }
  if (!Best)
    return std::nullopt;
  // MPICH's own, flat or node-aware (as chooseByModel).
  for (size_t I = 0; I < Prices.size(); ++I)
    if (Prices[I].St == JobPrice::Status::Priced &&
        Cands[I].G->id().ends_with("-mpich") &&
        (!Best->MpichTime || Prices[I].Time < *Best->MpichTime)) {
      Best->MpichId = Cands[I].text();
      Best->MpichTime = Prices[I].Time;
    }
  Best->Part = std::move(Parts[At]);
  Best->Candidates = N;
  if (AtOut)
    *AtOut = At;
  return Best;
}

} // namespace

std::vector<JobPrice>
pmpi::priceInJob(MPI_Comm Comm,
                 llvm::ArrayRef<const std::optional<Schedule> *> Parts, Rank Me,
                 const CostModel &M) {
  size_t K = Parts.size();
  // Per candidate: missing here, nodes, the agreement term (sums to zero
  // iff both ends of every message see it alike).
  std::vector<uint64_t> Sums(4 * K, 0);
  for (size_t I = 0; I < K; ++I)
    sumWordsOf(*Parts[I], Me, &Sums[4 * I]);
  yielding::allreduce(MPI_IN_PLACE, Sums.data(), int(Sums.size()), MPI_UINT64_T,
                      MPI_SUM, Comm);
  std::vector<bool> NodesPriced = nodeChannelsIdle(Comm, Parts, Me, M, Sums);
  std::vector<JobPrice> Out(K);
  std::vector<double> Finish(K, 0);
  std::vector<std::unique_ptr<Replay>> Replays(K);
  for (size_t I = 0; I < K; ++I) {
    JobPrice &J = Out[I];
    J.St = statusOf(&Sums[4 * I], NodesPriced[I]);
    // Every rank takes the same branch: the replay's messages pair up.
    if (J.St == JobPrice::Status::Priced)
      Replays[I] =
          std::make_unique<Replay>(Comm, ReplayTag + int(I), **Parts[I], Me, M);
  }
  // Every candidate at once; yield when none could go on.
  for (size_t Left = K;;) {
    Left = 0;
    for (size_t I = 0; I < K; ++I) {
      if (!Replays[I])
        continue;
      if (Replays[I]->advance()) {
        Finish[I] = Replays[I]->ready();
        Replays[I].reset();
      } else {
        ++Left;
      }
    }
    if (!Left)
      break;
    sched_yield();
  }
  if (K)
    yielding::allreduce(MPI_IN_PLACE, Finish.data(), int(K), MPI_DOUBLE,
                        MPI_MAX, Comm);
  for (size_t I = 0; I < K; ++I)
    if (Out[I].St == JobPrice::Status::Priced)
      Out[I].Time = Finish[I];
  return Out;
}

std::optional<JobChoice> pmpi::chooseInJob(MPI_Comm Comm, Rank Me,
                                           const BoundCall &Call,
                                           const SelectionConfig &Sel,
                                           llvm::ArrayRef<uint32_t> NodeOf) {
  std::vector<Candidate> Cands = candidatesFor(Call.Header, NodeOf);
  std::vector<std::optional<Schedule>> Parts =
      candidateParts(Cands, Call, Me);
  std::vector<const std::optional<Schedule> *> Ptrs;
  for (const std::optional<Schedule> &P : Parts)
    Ptrs.push_back(&P);
  // The call's machine, as chooseByModel.
  CostModel M = Sel.model(Call.Header, NodeOf);
  std::vector<JobPrice> Prices = priceInJob(Comm, Ptrs, Me, M);
  return pickPriced(Cands, Prices, Parts, nullptr);
}

//===----------------------------------------------------------------------===//
// StagedChoice
//===----------------------------------------------------------------------===//

struct StagedChoice::State {
  std::vector<Candidate> Cands;
  std::vector<std::optional<Schedule>> Parts;
  CostModel M;
  Rank Me = 0;
  std::vector<JobPrice> Prices;
  std::vector<std::unique_ptr<Replay>> Replays;
  std::vector<double> Finish;
};

StagedChoice::StagedChoice(const BoundCall &Call, const SelectionConfig &Sel,
                           Rank Me, llvm::ArrayRef<uint32_t> NodeOf)
    : S(std::make_unique<State>()) {
  S->Cands = candidatesFor(Call.Header, NodeOf);
  S->Parts = candidateParts(S->Cands, Call, Me);
  S->M = Sel.model(Call.Header, NodeOf);
  S->Me = Me;
  S->Prices.resize(S->Cands.size());
  S->Replays.resize(S->Cands.size());
  S->Finish.assign(S->Cands.size(), 0);
}

StagedChoice::~StagedChoice() = default;

size_t StagedChoice::size() const { return S->Cands.size(); }

std::vector<uint64_t> StagedChoice::sumWords() const {
  std::vector<uint64_t> W(4 * size(), 0);
  for (size_t I = 0; I < size(); ++I)
    sumWordsOf(S->Parts[I], S->Me, &W[4 * I]);
  return W;
}

void StagedChoice::startReplays(MPI_Comm Comm, llvm::ArrayRef<uint64_t> Sums,
                                int Tag0) {
  for (size_t I = 0; I < size(); ++I) {
    // (Nodes: not priced here, as if their channels could make an op
    // wait.)
    S->Prices[I].St = statusOf(&Sums[4 * I], false);
    // Every rank takes the same branch: the replay's messages pair up.
    if (S->Prices[I].St == JobPrice::Status::Priced)
      S->Replays[I] = std::make_unique<Replay>(Comm, Tag0 + int(I),
                                               *S->Parts[I], S->Me, S->M);
  }
}

bool StagedChoice::advance() {
  bool All = true;
  for (size_t I = 0; I < size(); ++I) {
    if (!S->Replays[I])
      continue;
    if (S->Replays[I]->advance()) {
      S->Finish[I] = S->Replays[I]->ready();
      S->Replays[I].reset();
    } else {
      All = false;
    }
  }
  return All;
}

std::vector<uint64_t> StagedChoice::maxWords() const {
  std::vector<uint64_t> W(size(), 0);
  for (size_t I = 0; I < size(); ++I) {
    static_assert(sizeof(double) == sizeof(uint64_t));
    double T = std::max(S->Finish[I], 0.0);
    std::memcpy(&W[I], &T, sizeof T);
  }
  return W;
}

std::optional<JobChoice> StagedChoice::choose(llvm::ArrayRef<uint64_t> Max,
                                              size_t *At) {
  for (size_t I = 0; I < size(); ++I)
    if (S->Prices[I].St == JobPrice::Status::Priced)
      std::memcpy(&S->Prices[I].Time, &Max[I], sizeof(double));
  return pickPriced(S->Cands, S->Prices, S->Parts, At);
}

std::optional<Schedule> StagedChoice::takePart(llvm::StringRef Text) {
  for (size_t I = 0; I < size(); ++I)
    if (S->Parts[I] && S->Cands[I].text() == Text)
      return std::exchange(S->Parts[I], std::nullopt);
  return std::nullopt;
}
