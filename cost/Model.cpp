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
#include <deque>
#include <queue>
#include <unordered_map>
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
  if (EagerBytes)
    J["eager_bytes"] = EagerBytes;
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

/// The asynchronous time with eager sends (CostModel's EagerBytes): an
/// event-driven fluid simulation. A message is a flow of transfer()
/// port-seconds. A receiver takes one message per receive channel at a
/// time, in the order they come (a message that finds them taken waits);
/// the messages on the wire from one sender share its port, between events
/// at max-min fair rates (a port of c channels moves c, a message at most
/// 1; nodes' off-node sides likewise), found by progressive filling.
/// Events are a rank coming to its next step (it posts its sends: an eager
/// one is ready at once, a rendezvous one when its receiver has come to
/// the step too; one connection's messages go in order) and a flow ending
/// (its message arrives). A rank's step ends when its receives have
/// arrived and its rendezvous sends have; it then wakes (startUpWake) and
/// combines, as in Simulation.
class EagerSimulation {
public:
  EagerSimulation(const Schedule &S, const CostModel &M, OpsPerStep Most)
      : S(S), M(M) {
    N = S.NumRanks;
    bool Shared = !S.Port.Duplex;
    uint32_t PortSend = M.Ports ? std::min(S.Port.Send, M.Ports) : S.Port.Send,
             PortRecv = M.Ports ? std::min(S.Port.Recv, M.Ports) : S.Port.Recv;
    double SendCap = std::clamp<uint32_t>(PortSend, 1, Most.Send),
           RecvCap = std::clamp<uint32_t>(PortRecv, 1, Most.Recv);
    if (Shared)
      SendCap = RecvCap = std::clamp(std::max(PortSend, PortRecv), 1u,
                                     Most.Send + Most.Recv);
    // Resources: rank X's send side 2X, receive side 2X + 1 (one port for
    // both when not duplex), node n's off-node sides 2N + 2n (+ 1).
    Cap.assign(2 * size_t(N), 0);
    for (Rank X = 0; X < N; ++X) {
      Cap[2 * size_t(X)] = SendCap;
      Cap[2 * size_t(X) + 1] = RecvCap;
    }
    this->Shared = Shared;
    if (S.hasNodes()) {
      NodeOf = S.nodeOfRank();
      NodePorts NP = S.nodePorts();
      for (const std::vector<Rank> &Node : *S.Nodes) {
        uint64_t Ranks = std::max<uint64_t>(Node.size(), 1);
        Cap.push_back(double(std::clamp<uint64_t>(
            NP.Send, 1, Ranks * uint64_t(SendCap))));
        Cap.push_back(double(std::clamp<uint64_t>(
            NP.Recv, 1, Ranks * uint64_t(RecvCap))));
      }
    }
    FrozenSum.assign(Cap.size(), 0);
    Unfrozen.assign(Cap.size(), 0);
    Saturated.assign(Cap.size(), 0);
    LinkNode = M.linkNodes(S);
    Ready.assign(N, 0);
    Busy.assign(N, 0);
    Stages.resize(N);
    Pos.assign(N, 0);
    StageStart.assign(N, 0);
    Outstanding.assign(N, 0);
    Compute.assign(N, 0);
    RecvEnds.resize(N);
    SendEnd.assign(N, 0);
    Spans.resize(N);
    RecvInUse.assign(N, 0);
    RecvWaiting.resize(N);
    RecvChannels = uint32_t(RecvCap);
  }

  double run(CostResult &R) {
    const StepList &L = S.Steps;
    std::vector<uint32_t> SendMark(N, 0), RecvMark(N, 0);
    for (unsigned I = 0; I < L.numSteps(); ++I) {
      llvm::ArrayRef<Op> Ops = L.step(I);
      for (const Op &O : Ops) {
        SendMark[O.Src] = I + 1;
        RecvMark[O.Dst] = I + 1;
      }
      for (const Op &O : Ops) {
        uint64_t Bytes = 0, Combined = 0;
        for (const Block &B : L.blocks(O)) {
          Bytes += L.bytes(B);
          if (B.Reduce)
            Combined += L.bytes(B);
        }
        if (S.spec().NoPayload)
          Bytes = 0;
        bool Bidirectional =
            RecvMark[O.Src] == I + 1 || SendMark[O.Dst] == I + 1;
        ++(Bidirectional ? R.BidirectionalOps : R.UnidirectionalOps);
        bool SameNode =
            !LinkNode.empty() && LinkNode[O.Src] == LinkNode[O.Dst];
        Flow F;
        F.Src = O.Src;
        F.Dst = O.Dst;
        F.Work = F.Remaining = M.transfer(Bytes, Bidirectional, SameNode);
        F.Combine = double(Combined) * M.Gamma;
        F.Eager = Bytes <= M.EagerBytes;
        // Shared fairly: the sender's port (and a half-duplex port's
        // receiving side, the same port), the nodes' off-node sides. The
        // receiver's port takes one message per channel (tryStart).
        F.NumRes = 0;
        F.Res[F.NumRes++] = 2 * uint32_t(O.Src);
        if (Shared)
          F.Res[F.NumRes++] = 2 * uint32_t(O.Dst);
        if (!NodeOf.empty() && NodeOf[O.Src] != NodeOf[O.Dst]) {
          F.Res[F.NumRes++] = 2 * N + 2 * NodeOf[O.Src];
          F.Res[F.NumRes++] = 2 * N + 2 * NodeOf[O.Dst] + 1;
        }
        uint32_t Id = uint32_t(Flows.size());
        Flows.push_back(F);
        stageOf(O.Src, I).Sends.push_back(Id);
        stageOf(O.Dst, I).Recvs.push_back(Id);
      }
    }
    for (Rank X = 0; X < N; ++X)
      if (!Stages[X].empty())
        Posts.push({0, X});
    double Now = 0;
    for (;;) {
      settle(Now);
      double Next = Posts.empty() ? INFINITY : Posts.top().T;
      size_t First = Active.size();
      for (size_t K = 0; K < Active.size(); ++K) {
        const Flow &F = Flows[Active[K]];
        if (Now + F.Remaining / F.Rate < Next) {
          Next = Now + F.Remaining / F.Rate;
          First = K;
        }
      }
      if (Next == INFINITY)
        break;
      if (First < Active.size())
        Flows[Active[First]].Remaining = 0; // it ends now, whatever rounding
      for (uint32_t F : Active)
        Flows[F].Remaining -= Flows[F].Rate * (Next - Now);
      Now = Next;
      // The flows that end now (within rounding), then the ranks that come
      // to a step now.
      double Eps = 1e-12 * std::max(1.0, std::fabs(Now));
      for (size_t K = 0; K < Active.size();) {
        Flow &F = Flows[Active[K]];
        if (F.Remaining <= Eps * F.Rate + 1e-300) {
          uint32_t Id = Active[K];
          Active[K] = Active.back();
          Active.pop_back();
          Ended.push_back(Id);
        } else {
          ++K;
        }
      }
      for (uint32_t Id : Ended)
        endFlow(Id, Now);
      Ended.clear();
      RatesStale = true;
    }
    double End = 0;
    for (Rank X = 0; X < N; ++X) {
      End = std::max(End, Ready[X]);
      // Busy: the union of the rank's flows' spans, plus its wake-ups and
      // combining (already in Busy).
      std::vector<std::pair<double, double>> &V = Spans[X];
      std::sort(V.begin(), V.end());
      for (size_t I = 0; I < V.size();) {
        double Lo = V[I].first, Hi = V[I].second;
        for (++I; I < V.size() && V[I].first <= Hi; ++I)
          Hi = std::max(Hi, V[I].second);
        Busy[X] += Hi - Lo;
      }
    }
    return End;
  }

  std::vector<double> Ready, Busy;

private:
  struct Flow {
    Rank Src = 0, Dst = 0;
    double Work = 0, Remaining = 0, Rate = 0, Combine = 0;
    double Start = 0, End = -1;
    uint32_t Res[4] = {0, 0, 0, 0};
    uint8_t NumRes = 2;
    bool Eager = true, SenderIn = false, ReceiverIn = false,
         Frozen = false;
  };
  struct Stage {
    uint32_t Step = 0;
    std::vector<uint32_t> Sends, Recvs;
  };
  struct Connection {
    std::vector<uint32_t> Queue;
    size_t Head = 0;
    bool OnWire = false;
  };
  struct Post {
    double T;
    Rank X;
    bool operator>(const Post &O) const {
      return std::tie(T, X) > std::tie(O.T, O.X);
    }
  };

  Stage &stageOf(Rank X, uint32_t Step) {
    std::vector<Stage> &V = Stages[X];
    if (V.empty() || V.back().Step != Step)
      V.push_back({Step, {}, {}});
    return V.back();
  }

  /// Does what happens at Now without time passing: the ranks that come to
  /// a step now post it; flows of no work end at once; then the rates.
  void settle(double Now) {
    for (;;) {
      bool Did = false;
      while (!Posts.empty() && Posts.top().T <= Now) {
        Rank X = Posts.top().X;
        Posts.pop();
        enterStage(X, Now);
        Did = true;
      }
      for (size_t K = 0; K < Active.size();) {
        if (Flows[Active[K]].Remaining <= 0) {
          Ended.push_back(Active[K]);
          Active[K] = Active.back();
          Active.pop_back();
        } else {
          ++K;
        }
      }
      if (!Ended.empty()) {
        std::vector<uint32_t> E;
        E.swap(Ended);
        for (uint32_t Id : E)
          endFlow(Id, Now);
        Did = true;
        RatesStale = true;
      }
      if (!Did)
        break;
    }
    if (RatesStale)
      rates();
    RatesStale = false;
  }

  void enterStage(Rank X, double Now) {
    Stage &St = Stages[X][Pos[X]];
    StageStart[X] = Now;
    Outstanding[X] = 0;
    Compute[X] = 0;
    RecvEnds[X].clear();
    SendEnd[X] = Now;
    for (uint32_t Id : St.Recvs) {
      Flow &F = Flows[Id];
      F.ReceiverIn = true;
      Compute[X] += F.Combine;
      if (F.End >= 0)
        RecvEnds[X].push_back(F.End);
      else
        ++Outstanding[X];
      if (!F.Eager && F.SenderIn)
        tryStart(connection(F.Src, F.Dst), Now);
    }
    for (uint32_t Id : St.Sends) {
      Flow &F = Flows[Id];
      F.SenderIn = true;
      if (!F.Eager)
        ++Outstanding[X];
      Connection &C = connection(F.Src, F.Dst);
      C.Queue.push_back(Id);
      tryStart(C, Now);
    }
    if (!Outstanding[X])
      finishStage(X);
  }

  Connection &connection(Rank A, Rank B) {
    return Conns[(uint64_t(A) << 32) | B];
  }

  /// Puts the connection's next message on the wire if it may go.
  void tryStart(Connection &C, double Now) {
    if (C.OnWire || C.Head == C.Queue.size())
      return;
    uint32_t Id = C.Queue[C.Head];
    Flow &F = Flows[Id];
    if (!F.Eager && !F.ReceiverIn)
      return;
    C.OnWire = true;
    if (RecvInUse[F.Dst] >= RecvChannels) {
      RecvWaiting[F.Dst].push_back(Id);
      return;
    }
    startFlow(Id, Now);
  }

  void startFlow(uint32_t Id, double Now) {
    Flow &F = Flows[Id];
    ++RecvInUse[F.Dst];
    F.Start = Now;
    Active.push_back(Id);
    RatesStale = true;
  }

  void endFlow(uint32_t Id, double Now) {
    Flow &F = Flows[Id];
    F.End = Now;
    Spans[F.Src].push_back({F.Start, Now});
    Spans[F.Dst].push_back({F.Start, Now});
    Connection &C = connection(F.Src, F.Dst);
    ++C.Head;
    C.OnWire = false;
    --RecvInUse[F.Dst];
    if (!RecvWaiting[F.Dst].empty()) {
      uint32_t Next = RecvWaiting[F.Dst].front();
      RecvWaiting[F.Dst].pop_front();
      startFlow(Next, Now);
    }
    tryStart(C, Now);
    // The receiver, if it is in the step that takes this message.
    // (A receiver that came to the message's step is still in it: the step
    // cannot end before the message arrives.)
    Rank D = F.Dst;
    if (F.ReceiverIn) {
      RecvEnds[D].push_back(Now);
      if (!--Outstanding[D])
        finishStage(D);
    }
    if (!F.Eager) {
      Rank X = F.Src;
      SendEnd[X] = std::max(SendEnd[X], Now);
      if (!--Outstanding[X])
        finishStage(X);
    }
  }

  void finishStage(Rank X) {
    unsigned Waited = 0;
    double W = startUpWake(StageStart[X], RecvEnds[X], M.StepStartup, Waited);
    for (double E : RecvEnds[X])
      W = std::max(W, E);
    W = std::max(W, SendEnd[X]);
    Busy[X] += Waited * M.StepStartup + Compute[X];
    Ready[X] = W + Compute[X];
    if (++Pos[X] < Stages[X].size())
      Posts.push({Ready[X], X});
  }

  /// Max-min fair rates of the flows on the wire (progressive filling).
  void rates() {
    Touched.clear();
    for (uint32_t Id : Active) {
      Flow &F = Flows[Id];
      F.Frozen = false;
      for (unsigned K = 0; K < F.NumRes; ++K) {
        uint32_t Rs = F.Res[K];
        if (!Unfrozen[Rs] && FrozenSum[Rs] == 0)
          Touched.push_back(Rs);
        ++Unfrozen[Rs];
      }
    }
    size_t Left = Active.size();
    while (Left) {
      double Level = 1;
      for (uint32_t Rs : Touched)
        if (Unfrozen[Rs])
          Level = std::min(Level, (Cap[Rs] - FrozenSum[Rs]) / Unfrozen[Rs]);
      Level = std::max(Level, 0.0);
      for (uint32_t Rs : Touched)
        Saturated[Rs] =
            Unfrozen[Rs] &&
            (Cap[Rs] - FrozenSum[Rs]) / Unfrozen[Rs] <= Level * (1 + 1e-9);
      bool All = Level >= 1;
      for (uint32_t Id : Active) {
        Flow &F = Flows[Id];
        if (F.Frozen)
          continue;
        bool Hit = All;
        for (unsigned K = 0; K < F.NumRes && !Hit; ++K)
          Hit = Saturated[F.Res[K]];
        if (!Hit)
          continue;
        F.Frozen = true;
        F.Rate = Level;
        --Left;
        for (unsigned K = 0; K < F.NumRes; ++K) {
          FrozenSum[F.Res[K]] += Level;
          --Unfrozen[F.Res[K]];
        }
      }
    }
    for (uint32_t Rs : Touched) {
      FrozenSum[Rs] = 0;
      Unfrozen[Rs] = 0;
      Saturated[Rs] = 0;
    }
    // A rate of 0 (never: every port has a channel) would stall.
    for (uint32_t Id : Active)
      Flows[Id].Rate = std::max(Flows[Id].Rate, 1e-12);
  }

  const Schedule &S;
  const CostModel &M;
  Rank N = 0;
  bool Shared = false;
  std::vector<double> Cap, FrozenSum;
  std::vector<uint32_t> Unfrozen;
  std::vector<uint8_t> Saturated;
  std::vector<uint32_t> Touched;
  std::vector<uint32_t> NodeOf, LinkNode;
  std::vector<Flow> Flows;
  std::vector<std::vector<Stage>> Stages;
  std::vector<size_t> Pos;
  std::vector<double> StageStart, Compute, SendEnd;
  std::vector<uint32_t> Outstanding;
  std::vector<std::vector<double>> RecvEnds;
  std::vector<std::vector<std::pair<double, double>>> Spans;
  std::unordered_map<uint64_t, Connection> Conns;
  std::priority_queue<Post, std::vector<Post>, std::greater<Post>> Posts;
  std::vector<uint32_t> Active, Ended;
  bool RatesStale = false;
  std::vector<uint32_t> RecvInUse;
  std::vector<std::deque<uint32_t>> RecvWaiting;
  uint32_t RecvChannels = 1;
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
  if (M.eagerSharing()) {
    EagerSimulation Sim(S, M, Most);
    R.Async = Sim.run(R);
    R.Finish = std::move(Sim.Ready);
    R.Busy = std::move(Sim.Busy);
  } else {
    Simulation Sim(S, M, /*Lockstep=*/false, Most);
    R.Async = Sim.run(R);
    R.Finish = std::move(Sim.Ready);
    R.Busy = std::move(Sim.Busy);
  }
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
