//===- cost/Model.cpp - Lock-step and asynchronous evaluation -------------===//
///
/// \file
/// One pass over the steps per evaluation. Per step, each rank the step
/// touches starts from its ready time (asynchronous) or from the end of the
/// previous step (lock step); its channels start free at that time, and each
/// op takes the earliest-free send channel of its sender and receive channel
/// of its receiver (and, between nodes, the earliest-free off-node channels
/// of both nodes). Nothing is done per untouched rank, so a step costs
/// O(ops log ops) whatever the number of ranks.
///
//===----------------------------------------------------------------------===//

#include "cost/Model.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <tuple>

using namespace choreo;

llvm::Error CostModel::check() const {
  std::pair<const char *, double> Params[] = {
      {"--alpha", Alpha},  {"--beta", Beta},
      {"--gamma", Gamma},  {"--f-alpha", FAlpha},
      {"--f-beta", FBeta}, {"--step-startup", StepStartup},
      {"intra alpha", 0},  {"intra beta", 0}};
  if (Intra) {
    Params[6].second = Intra->Alpha;
    Params[7].second = Intra->Beta;
  }
  for (auto [Name, V] : Params)
    if (!std::isfinite(V) || V < 0) {
      char Buf[32];
      snprintf(Buf, sizeof Buf, "%g", V);
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv(std::isfinite(V)
                            ? "{0}: {1} is not a non-negative number"
                            : "{0}: {1} is not a finite number",
                        Name, llvm::StringRef(Buf)));
    }
  return llvm::Error::success();
}

nlohmann::ordered_json CostModel::toJson() const {
  nlohmann::ordered_json J = {{"alpha", Alpha},
                              {"beta", Beta},
                              {"gamma", Gamma},
                              {"f_alpha", FAlpha},
                              {"f_beta", FBeta}};
  if (StepStartup)
    J["step_startup"] = StepStartup;
  if (Ports)
    J["machine_ports"] = Ports;
  if (Intra)
    J["intra"] = {{"alpha", Intra->Alpha}, {"beta", Intra->Beta}};
  if (FlowControlBytes)
    J["flow_control_bytes"] = FlowControlBytes;
  return J;
}

std::vector<uint32_t> CostModel::linkNodes(const CallHeader &S) const {
  if (!Intra)
    return {};
  if (S.hasNodes())
    return S.nodeOfRank();
  if (NodeOf.size() == S.NumRanks)
    return NodeOf;
  return {};
}

namespace {

/// The most ops one rank sends, and receives, in one step (each at least 1).
struct OpsPerStep {
  uint32_t Send = 1, Recv = 1;
};
OpsPerStep mostOpsPerStep(const Schedule &S) {
  std::vector<uint32_t> Sends(S.NumRanks, 0), Recvs(S.NumRanks, 0);
  OpsPerStep Most;
  for (unsigned I = 0; I < S.Steps.numSteps(); ++I) {
    llvm::ArrayRef<Op> Ops = S.Steps.step(I);
    for (const Op &O : Ops) {
      Most.Send = std::max(Most.Send, ++Sends[O.Src]);
      Most.Recv = std::max(Most.Recv, ++Recvs[O.Dst]);
    }
    for (const Op &O : Ops)
      Sends[O.Src] = Recvs[O.Dst] = 0;
  }
  return Most;
}

class Simulation {
public:
  /// Most: mostOpsPerStep(S). Channels beyond the most ops a rank sends
  /// (receives) in one step, or both together for a shared pool, are never
  /// used: capped there, a header's `ports.send: 1000000000` costs nothing.
  Simulation(const Schedule &S, const CostModel &M, bool Lockstep,
             OpsPerStep Most)
      : S(S), M(M), Lockstep(Lockstep), NoPayload(S.spec().NoPayload) {
    Rank N = S.NumRanks;
    Shared = !S.Port.Duplex;
    // The machine's ports, when it has fewer than the schedule.
    uint32_t PortSend = M.Ports ? std::min(S.Port.Send, M.Ports) : S.Port.Send,
             PortRecv = M.Ports ? std::min(S.Port.Recv, M.Ports) : S.Port.Recv;
    uint32_t Send = std::clamp<uint32_t>(PortSend, 1, Most.Send),
             Recv = std::clamp<uint32_t>(PortRecv, 1, Most.Recv);
    if (Shared) {
      SendBegin = RecvBegin = 0;
      SendEnd = RecvEnd = Chans =
          std::clamp(std::max(PortSend, PortRecv), 1u, Most.Send + Most.Recv);
    } else {
      SendBegin = 0;
      SendEnd = RecvBegin = Send;
      RecvEnd = Chans = Send + Recv;
    }
    Ready.assign(N, 0);
    RecvReady.assign(N, 0);
    StepStart.assign(N, 0);
    Lead.assign(N, 0);
    PortEnd.assign(N, 0);
    StepEnd.assign(N, 0);
    Compute.assign(N, 0);
    Touched.assign(N, 0);
    SendMark.assign(N, 0);
    RecvMark.assign(N, 0);
    Chan.assign(size_t(N) * Chans, 0);
    if (!Lockstep)
      Busy.assign(N, 0);
    initNodes();
    LinkNode = M.linkNodes(S);
  }

  /// Runs every step; returns the completion time.
  double run(CostResult &R) {
    const StepList &L = S.Steps;
    for (unsigned I = 0; I < L.numSteps(); ++I)
      runStep(I + 1, L.step(I), R);
    if (Lockstep)
      return Floor;
    double End = 0;
    for (double T : Ready)
      End = std::max(End, T);
    return End;
  }

  std::vector<double> Ready, Busy;

private:
  struct Interval {
    Rank R;
    double Start, End;
  };
  struct Arrival {
    Rank R;
    double End;
  };

  void runStep(uint32_t Mark, llvm::ArrayRef<Op> Ops, CostResult &R) {
    const StepList &L = S.Steps;
    for (const Op &O : Ops) {
      SendMark[O.Src] = Mark;
      RecvMark[O.Dst] = Mark;
    }
    Ranks.clear();
    Intervals.clear();
    for (const Op &O : Ops) {
      uint64_t Bytes = 0, Combined = 0;
      for (const Block &B : L.blocks(O)) {
        Bytes += L.bytes(B); // a lattice block's elements
        if (B.Reduce)
          Combined += L.bytes(B);
      }
      // A barrier's messages carry knowledge, no payload.
      if (NoPayload)
        Bytes = 0;
      bool Bidirectional = RecvMark[O.Src] == Mark || SendMark[O.Dst] == Mark;
      if (!Lockstep)
        ++(Bidirectional ? R.BidirectionalOps : R.UnidirectionalOps);
      touch(O.Src, Mark);
      touch(O.Dst, Mark);
      double &SendFree = earliest(O.Src, SendBegin, SendEnd);
      double &RecvFree = earliest(O.Dst, RecvBegin, RecvEnd);
      // An op between nodes also takes an off-node channel of each node.
      bool OffNode = !NodeOf.empty() && NodeOf[O.Src] != NodeOf[O.Dst];
      double NodeFree = 0;
      if (OffNode)
        NodeFree = std::max(nodeEarliest(NodeOf[O.Src], true, Mark),
                            nodeEarliest(NodeOf[O.Dst], false, Mark));
      bool SameNode = !LinkNode.empty() && LinkNode[O.Src] == LinkNode[O.Dst];
      // Flow control: a gated op waits for its receiver's clear-to-send,
      // and its sender is done only when the acknowledgement arrives,
      // which it waits for (CostModel::opTimes).
      CostModel::OpTimes T =
          M.opTimes(SendFree, RecvFree, StepStart[O.Dst], Bytes,
                    Bidirectional, SameNode, NodeFree);
      double Start = T.Start, End = T.Arrive, SendDone = T.SenderDone;
      SendFree = SendDone;
      RecvFree = End;
      if (!Lockstep && T.WaitedForClear)
        Busy[O.Src] += M.StepStartup;
      if (OffNode) {
        nodeTake(NodeOf[O.Src], true, End);
        nodeTake(NodeOf[O.Dst], false, End);
      }
      StepEnd[O.Src] = std::max(StepEnd[O.Src], SendDone);
      StepEnd[O.Dst] = std::max(StepEnd[O.Dst], End);
      if (M.StepStartup) {
        Arrivals.push_back({O.Dst, End});
        if (T.Gated)
          Arrivals.push_back({O.Src, SendDone});
      }
      PortEnd[O.Src] = std::max(PortEnd[O.Src], SendDone - Lead[O.Src]);
      PortEnd[O.Dst] = std::max(PortEnd[O.Dst], End);
      Compute[O.Dst] += double(Combined) * M.Gamma;
      if (!Lockstep) {
        Intervals.push_back({O.Src, Start, SendDone});
        Intervals.push_back({O.Dst, Start, End});
      }
    }
    // The start-up of every receive a rank waited for (startUpWake), then
    // the combining of what it received, once the step's messages are all
    // in.
    std::vector<double> &Wake = StepEnd;
    if (M.StepStartup) {
      std::sort(Arrivals.begin(), Arrivals.end(),
                [](const Arrival &A, const Arrival &B) {
                  return std::tie(A.R, A.End) < std::tie(B.R, B.End);
                });
      for (size_t I = 0; I < Arrivals.size();) {
        Rank X = Arrivals[I].R;
        size_t J = I;
        while (J < Arrivals.size() && Arrivals[J].R == X)
          ++J;
        WakeEnds.clear();
        for (size_t K = I; K < J; ++K)
          WakeEnds.push_back(Arrivals[K].End);
        unsigned Waited = 0;
        double W = startUpWake(StepStart[X], WakeEnds, M.StepStartup, Waited);
        if (!Lockstep)
          Busy[X] += Waited * M.StepStartup;
        Wake[X] = std::max(Wake[X], W);
        I = J;
      }
      Arrivals.clear();
    }
    double Latest = Floor;
    for (Rank X : Ranks) {
      Ready[X] = Wake[X] + Compute[X];
      RecvReady[X] = PortEnd[X] + Compute[X];
      Latest = std::max(Latest, Ready[X]);
      if (!Lockstep)
        Busy[X] += Compute[X];
    }
    if (Lockstep) {
      Floor = Latest;
      return;
    }
    // Busy time: the union of each rank's op intervals in the step.
    std::sort(Intervals.begin(), Intervals.end(),
              [](const Interval &A, const Interval &B) {
                return std::tie(A.R, A.Start) < std::tie(B.R, B.Start);
              });
    for (size_t I = 0; I < Intervals.size();) {
      Rank X = Intervals[I].R;
      double Lo = Intervals[I].Start, Hi = Intervals[I].End;
      for (++I; I < Intervals.size() && Intervals[I].R == X; ++I) {
        if (Intervals[I].Start > Hi) {
          Busy[X] += Hi - Lo;
          Lo = Intervals[I].Start;
        }
        Hi = std::max(Hi, Intervals[I].End);
      }
      Busy[X] += Hi - Lo;
    }
  }

  /// First op of rank X in this step: its send channels free up when its
  /// previous step is over (its last wake-up included), its receive
  /// channels when its previous step's ops have ended and it has combined
  /// (a message may arrive while the rank still wakes up: startUpWake).
  void touch(Rank X, uint32_t Mark) {
    if (Touched[X] == Mark)
      return;
    Touched[X] = Mark;
    Ranks.push_back(X);
    double Start = Lockstep ? Floor : Ready[X];
    double RecvFrom = Lockstep || Shared ? Start : RecvReady[X];
    StepStart[X] = StepEnd[X] = Start;
    Lead[X] = Start - RecvFrom;
    PortEnd[X] = RecvFrom;
    Compute[X] = 0;
    double *Base = Chan.data() + size_t(X) * Chans;
    if (Shared) {
      std::fill_n(Base, Chans, Start);
    } else {
      std::fill(Base + SendBegin, Base + SendEnd, Start);
      std::fill(Base + RecvBegin, Base + RecvEnd, RecvFrom);
    }
  }

  double &earliest(Rank X, uint32_t Begin, uint32_t End) {
    double *Base = Chan.data() + size_t(X) * Chans;
    return *std::min_element(Base + Begin, Base + End);
  }

  /// Node channels: node n has Pools[2n] off-node send channels and
  /// Pools[2n + 1] receive channels, at most node_ports and at most what its
  /// ranks' own channels could use at once. A pool keeps the busy-until
  /// times of its channels in use as a min-heap (channels never used are
  /// free), so finding and taking the earliest channel costs O(log
  /// channels), whatever node_ports is.
  struct ChannelPool {
    std::vector<double> Heap; ///< std::greater heap: front is the earliest
    uint64_t Count = 1;
    uint32_t Mark = 0;
  };

  void initNodes() {
    if (!S.hasNodes())
      return;
    NodeOf = S.nodeOfRank();
    NodePorts NP = S.nodePorts();
    for (const std::vector<Rank> &Node : *S.Nodes) {
      uint64_t Ranks = std::max<uint64_t>(Node.size(), 1);
      Pools.push_back(
          {{},
           std::clamp<uint64_t>(NP.Send, 1, Ranks * (SendEnd - SendBegin)),
           0});
      Pools.push_back(
          {{},
           std::clamp<uint64_t>(NP.Recv, 1, Ranks * (RecvEnd - RecvBegin)),
           0});
    }
  }

  ChannelPool &pool(uint32_t N, bool Send, uint32_t Mark) {
    ChannelPool &P = Pools[2 * size_t(N) + (Send ? 0 : 1)];
    // Lock step: every channel frees up at the start of each step.
    if (Lockstep && P.Mark != Mark) {
      P.Mark = Mark;
      P.Heap.clear();
    }
    return P;
  }

  /// When node N's earliest off-node channel (send or receive) is free.
  /// Asynchronous: a channel is taken in the schedule's order and stays
  /// taken until its op ends.
  double nodeEarliest(uint32_t N, bool Send, uint32_t Mark) {
    ChannelPool &P = pool(N, Send, Mark);
    if (P.Heap.size() < P.Count)
      return Lockstep ? Floor : 0;
    return P.Heap.front();
  }

  /// Takes node N's earliest channel until End.
  void nodeTake(uint32_t N, bool Send, double End) {
    ChannelPool &P = Pools[2 * size_t(N) + (Send ? 0 : 1)];
    if (P.Heap.size() == P.Count) {
      std::pop_heap(P.Heap.begin(), P.Heap.end(), std::greater<double>());
      P.Heap.pop_back();
    }
    P.Heap.push_back(End);
    std::push_heap(P.Heap.begin(), P.Heap.end(), std::greater<double>());
  }

  const Schedule &S;
  const CostModel &M;
  bool Lockstep;
  bool NoPayload;
  bool Shared = false;
  uint32_t SendBegin = 0, SendEnd = 1, RecvBegin = 1, RecvEnd = 2, Chans = 2;
  double Floor = 0;
  std::vector<double> StepEnd, Compute, Chan;
  /// Per rank: when its receive channels free up for its next step (its
  /// ops' ends, its sends' taken back by Lead: as if its sends had not
  /// waited for its wake-up), when its current step started, by how much
  /// its sends start later than its receives could (the wake-up), and the
  /// step's ops' ends so counted.
  std::vector<double> RecvReady, StepStart, Lead, PortEnd;
  std::vector<Arrival> Arrivals;
  std::vector<double> WakeEnds;
  std::vector<uint32_t> Touched, SendMark, RecvMark;
  std::vector<Rank> Ranks;
  std::vector<Interval> Intervals;
  // Nodes (empty without `nodes`).
  std::vector<uint32_t> NodeOf;
  std::vector<ChannelPool> Pools;
  // The nodes ops are priced by (CostModel::linkNodes; empty: one link).
  std::vector<uint32_t> LinkNode;
};

} // namespace

double choreo::startUpWake(double Start, llvm::MutableArrayRef<double> Ends,
                           double Sigma, unsigned &Waited) {
  std::sort(Ends.begin(), Ends.end());
  double W = Start;
  Waited = 0;
  for (double E : Ends)
    if (E > Start) {
      W = std::max(W, E) + Sigma;
      ++Waited;
    }
  return W;
}

CostResult choreo::evaluateCost(const Schedule &S, const CostModel &M) {
  CostResult R;
  OpsPerStep Most = mostOpsPerStep(S);
  {
    Simulation Sim(S, M, /*Lockstep=*/true, Most);
    R.Lockstep = Sim.run(R);
  }
  Simulation Sim(S, M, /*Lockstep=*/false, Most);
  R.Async = Sim.run(R);
  R.Finish = std::move(Sim.Ready);
  R.Busy = std::move(Sim.Busy);
  for (Rank X = 0; X < S.NumRanks; ++X) {
    if (R.Finish[X] > R.Finish[R.LastRank])
      R.LastRank = X;
    if (R.Busy[X] > R.Busy[R.BusiestRank])
      R.BusiestRank = X;
  }
  return R;
}

llvm::Error choreo::checkFinite(const CostResult &R, const CostModel &M) {
  if (std::isfinite(R.Async) && std::isfinite(R.Lockstep))
    return llvm::Error::success();
  char Buf[96];
  snprintf(Buf, sizeof Buf, "alpha %g, beta %g, gamma %g", M.Alpha, M.Beta,
           M.Gamma);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::Twine("the predicted time overflows a double (") + Buf +
          "); give alpha, beta and gamma in a larger time unit");
}
