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
#include "generators/Generator.h"
#include "pmpi/Shape.h"
#include "verifier/DistributedCheck.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// The tag of the replay's messages on the library's private
/// communicator (no plan runs on it while a first call builds).
constexpr int ReplayTag = 0x6a6f;

/// What one end of an op tells the other.
struct EndInfo {
  double ChannelFree = 0;
  /// The sender: it also receives in the step; the receiver: it also
  /// sends in the step (either makes the op bidirectional).
  uint64_t AlsoOther = 0;
  /// The sender: the op's bytes (the receiver's are ignored).
  uint64_t Bytes = 0;
};

/// Rank Me's replay of Part: when it finishes its last step.
class Replay {
public:
  Replay(MPI_Comm Comm, const Schedule &Part, Rank Me, const CostModel &M)
      : Comm(Comm), Part(Part), Me(Me), M(M) {}

  double run() {
    const StepList &L = Part.Steps;
    std::vector<OpAt> Mine = opsOf(Part, Me);
    setChannels(Mine);
    std::vector<const Op *> Step;
    for (size_t I = 0; I < Mine.size();) {
      uint32_t S = Mine[I].Step;
      Step.clear();
      for (; I < Mine.size() && Mine[I].Step == S; ++I)
        Step.push_back(&L.step(S)[Mine[I].Index]);
      runStep(Step);
    }
    return Ready;
  }

private:
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
    if (!Part.Port.Duplex) {
      SendBegin = RecvBegin = 0;
      SendEnd = RecvEnd = std::clamp(std::max(Part.Port.Send, Part.Port.Recv),
                                     1u, std::max(1u, MostBoth));
    } else {
      SendBegin = 0;
      SendEnd = RecvBegin =
          std::clamp(Part.Port.Send, 1u, std::max(1u, MostSend));
      RecvEnd =
          RecvBegin + std::clamp(Part.Port.Recv, 1u, std::max(1u, MostRecv));
    }
    Chan.assign(std::max(SendEnd, RecvEnd), 0);
  }

  double &earliest(uint32_t Begin, uint32_t End) {
    return *std::min_element(Chan.begin() + Begin, Chan.begin() + End);
  }

  void runStep(std::vector<const Op *> &Ops) {
    const StepList &L = Part.Steps;
    // The projection of the step's global (sender, receiver) order.
    std::stable_sort(Ops.begin(), Ops.end(), [](const Op *A, const Op *B) {
      return std::tie(A->Src, A->Dst) < std::tie(B->Src, B->Dst);
    });
    bool Sends = false, Recvs = false;
    for (const Op *O : Ops)
      (O->Src == Me ? Sends : Recvs) = true;
    std::fill(Chan.begin(), Chan.end(), Ready);
    double StepEnd = Ready, Compute = 0;
    for (const Op *O : Ops) {
      bool IsSrc = O->Src == Me;
      uint64_t Bytes = 0, Combined = 0;
      for (const Block &B : L.blocks(*O)) {
        Bytes += B.size();
        if (B.Reduce)
          Combined += B.size();
      }
      double &Mine =
          IsSrc ? earliest(SendBegin, SendEnd) : earliest(RecvBegin, RecvEnd);
      EndInfo Out{Mine, IsSrc ? Recvs : Sends, Bytes}, In;
      exchange(IsSrc ? O->Dst : O->Src, Out, In);
      double Start = std::max(Mine, In.ChannelFree);
      bool Bidirectional = Out.AlsoOther || In.AlsoOther;
      uint64_t Sent = IsSrc ? Bytes : In.Bytes;
      double End = Start + M.transfer(Sent, Bidirectional);
      Mine = End;
      StepEnd = std::max(StepEnd, End);
      if (!IsSrc)
        Compute += double(Combined) * M.Gamma;
    }
    Ready = StepEnd + Compute;
  }

  void exchange(Rank Peer, const EndInfo &Out, EndInfo &In) {
    MPI_Request R[2];
    PMPI_Irecv(&In, sizeof In, MPI_BYTE, int(Peer), ReplayTag, Comm, &R[0]);
    PMPI_Isend(&Out, sizeof Out, MPI_BYTE, int(Peer), ReplayTag, Comm, &R[1]);
    yielding::wait(R[0]);
    yielding::wait(R[1]);
  }

  MPI_Comm Comm;
  const Schedule &Part;
  Rank Me;
  const CostModel &M;
  double Ready = 0;
  uint32_t SendBegin = 0, SendEnd = 1, RecvBegin = 1, RecvEnd = 2;
  std::vector<double> Chan;
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
      Finish[I] = Replay(Comm, **Parts[I], Me, M).run();
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
  CostModel M;
  M.Alpha = Sel.Alpha;
  M.Beta = Sel.Beta;
  M.Gamma = Sel.Gamma;
  std::vector<JobPrice> Prices = priceInJob(Comm, Ptrs, Me, M);
  std::optional<JobChoice> Best;
  unsigned N = 0;
  size_t At = 0;
  for (size_t I = 0; I < Prices.size(); ++I) {
    if (Prices[I].St != JobPrice::Status::Priced)
      continue;
    ++N;
    if (!Best || Prices[I].Time < Best->Time) {
      Best = JobChoice{Gens[I]->id().str(), std::nullopt, Prices[I].Time, 0};
      At = I;
    }
  }
  if (!Best)
    return std::nullopt;
  Best->Part = std::move(Parts[At]);
  Best->Candidates = N;
  return Best;
}

Schedule pmpi::canonicalStepOrder(const Schedule &S) {
  Schedule Out;
  Out.header() = S.header();
  Out.Algorithm = S.Algorithm;
  Out.Params = S.Params;
  const StepList &L = S.Steps;
  for (size_t C = 0; C < L.numContribs(); ++C)
    Out.Steps.addContrib(L.contrib(uint32_t(C)));
  std::vector<const Op *> Ops;
  for (unsigned I = 0; I < L.numSteps(); ++I) {
    Out.Steps.newStep();
    Ops.clear();
    for (const Op &O : L.step(I))
      Ops.push_back(&O);
    std::stable_sort(Ops.begin(), Ops.end(), [](const Op *A, const Op *B) {
      return std::tie(A->Src, A->Dst) < std::tie(B->Src, B->Dst);
    });
    for (const Op *O : Ops)
      Out.Steps.addOp(O->Src, O->Dst, L.blocks(*O));
  }
  return Out;
}
