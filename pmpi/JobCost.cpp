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
#include "pmpi/Shape.h"
#include "verifier/DistributedCheck.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <sched.h>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// The first tag of the replay's messages (candidate i's is ReplayTag + i)
/// on the library's private communicator (no plan runs on it while a
/// first call builds).
constexpr int ReplayTag = 0x6a00;

/// What one end of an op tells the other.
struct EndInfo {
  double ChannelFree = 0;
  /// The sender: it also receives in the step; the receiver: it also
  /// sends in the step (either makes the op bidirectional).
  uint64_t AlsoOther = 0;
  /// The sender: the op's bytes (the receiver's are ignored).
  uint64_t Bytes = 0;
};

/// Rank Me's replay of Part, resumable: advance() does what it can
/// without waiting, so that one rank replays every candidate at once (each
/// on its own tag) and a job waits for the longest candidate's steps, not
/// for the sum of all candidates' steps.
class Replay {
public:
  Replay(MPI_Comm Comm, int Tag, const Schedule &Part, Rank Me,
         const CostModel &M)
      : Comm(Comm), Tag(Tag), Part(Part), Me(Me), M(M) {
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
      Bytes += B.size();
      if (B.Reduce)
        Combined += B.size();
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
      std::fill(Chan.begin(), Chan.end(), Ready);
      StepEnd = Ready;
      Compute = 0;
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
      double Free = Fresh   ? Ready
                    : IsSrc ? earliest(SendBegin, SendEnd)
                            : earliest(RecvBegin, RecvEnd);
      Outs[I] = EndInfo{Free, IsSrc ? Recvs : Sends, bytesOf(O, Combined)};
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
      double &Mine = Fresh   ? Ready
                     : IsSrc ? earliest(SendBegin, SendEnd)
                             : earliest(RecvBegin, RecvEnd);
      double Start = std::max(Mine, Ins[I].ChannelFree);
      bool Bidirectional = Outs[I].AlsoOther || Ins[I].AlsoOther;
      double End =
          Start + M.transfer(IsSrc ? Bytes : Ins[I].Bytes, Bidirectional);
      if (!Fresh)
        Mine = End;
      StepEnd = std::max(StepEnd, End);
      if (!IsSrc)
        Compute += double(Combined) * M.Gamma;
    }
    Next = Fresh ? S.size() : Next + 1;
    if (Next == S.size()) {
      Ready = StepEnd + Compute;
      Next = 0;
      ++StepAt;
    }
  }

  MPI_Comm Comm;
  int Tag;
  const Schedule &Part;
  Rank Me;
  const CostModel &M;
  /// Me's ops, step by step (StepBegin[k] is step k's first).
  std::vector<const Op *> Ops;
  std::vector<uint32_t> StepBegin;
  size_t StepAt = 0, Next = 0;
  bool Pending = false, Fresh = false, Sends = false, Recvs = false;
  double Ready = 0, StepEnd = 0, Compute = 0;
  uint32_t SendBegin = 0, SendEnd = 1, RecvBegin = 1, RecvEnd = 2;
  std::vector<double> Chan;
  std::vector<EndInfo> Outs, Ins;
  std::vector<MPI_Request> Reqs;
};

} // namespace

std::vector<JobPrice>
pmpi::priceInJob(MPI_Comm Comm,
                 llvm::ArrayRef<const std::optional<Schedule> *> Parts, Rank Me,
                 const CostModel &M) {
  size_t K = Parts.size();
  // Per candidate: missing here, nodes, the agreement term (sums to zero
  // iff both ends of every message see it alike).
  std::vector<uint64_t> Sums(4 * K, 0);
  for (size_t I = 0; I < K; ++I) {
    const std::optional<Schedule> &P = *Parts[I];
    if (!P) {
      Sums[4 * I] = 1;
      continue;
    }
    Sums[4 * I + 1] = P->hasNodes();
    try {
      Digest128 A = agreementTerm(messageDigests(*P, Me, opsOf(*P, Me)));
      Sums[4 * I + 2] = A.H1;
      Sums[4 * I + 3] = A.H2;
    } catch (const std::bad_alloc &) {
      Sums[4 * I] = 1;
    }
  }
  yielding::allreduce(MPI_IN_PLACE, Sums.data(), int(Sums.size()), MPI_UINT64_T,
                      MPI_SUM, Comm);
  std::vector<JobPrice> Out(K);
  std::vector<double> Finish(K, 0);
  std::vector<std::unique_ptr<Replay>> Replays(K);
  for (size_t I = 0; I < K; ++I) {
    JobPrice &J = Out[I];
    if (Sums[4 * I])
      J.St = JobPrice::Status::Missing;
    else if (Sums[4 * I + 1])
      J.St = JobPrice::Status::HasNodes;
    else if (Sums[4 * I + 2] || Sums[4 * I + 3])
      J.St = JobPrice::Status::Disagree;
    else
      J.St = JobPrice::Status::Priced;
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
                                           const SelectionConfig &Sel) {
  std::vector<const Generator *> Gens;
  for (const Generator *G : allGenerators())
    if (G->mayServe(Call.Header))
      Gens.push_back(G);
  std::vector<std::optional<Schedule>> Parts(Gens.size());
  for (size_t I = 0; I < Gens.size(); ++I) {
    try {
      // A candidate whose part is the whole would cost every rank the
      // whole build: not priced (a fixed choice of it still runs).
      auto V = callOptions(*Gens[I], Call.Header, Call.ElemBytes, {});
      if (!V || Gens[I]->partIsWhole(*V)) {
        if (!V)
          llvm::consumeError(V.takeError());
        continue;
      }
      auto S = buildFor(Gens[I]->id(), {}, Call.Header, Call.ElemBytes, Me);
      if (S)
        Parts[I] = std::move(*S);
      else
        llvm::consumeError(S.takeError());
    } catch (const std::bad_alloc &) {
      Parts[I].reset();
    }
  }
  std::vector<const std::optional<Schedule> *> Ptrs;
  for (const std::optional<Schedule> &P : Parts)
    Ptrs.push_back(&P);
  // The call's machine, as chooseByModel.
  CostModel M = Sel.model(Call.Header);
  std::vector<JobPrice> Prices = priceInJob(Comm, Ptrs, Me, M);
  std::optional<JobChoice> Best;
  unsigned N = 0;
  size_t At = 0;
  for (size_t I = 0; I < Prices.size(); ++I) {
    if (Prices[I].St != JobPrice::Status::Priced)
      continue;
    ++N;
    if (!Best || Prices[I].Time < Best->Time) {
      Best = JobChoice{
          Gens[I]->id().str(), std::nullopt, Prices[I].Time, 0, {}, {}};
      At = I;
    }
  }
  if (!Best)
    return std::nullopt;
  for (size_t I = 0; I < Prices.size(); ++I)
    if (Prices[I].St == JobPrice::Status::Priced &&
        Gens[I]->id().ends_with("-mpich") &&
        (!Best->MpichTime || Prices[I].Time < *Best->MpichTime)) {
      Best->MpichId = Gens[I]->id().str();
      Best->MpichTime = Prices[I].Time;
    }
  Best->Part = std::move(Parts[At]);
  Best->Candidates = N;
  return Best;
}
