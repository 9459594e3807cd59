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
#include <queue>
#include <nlohmann/json.hpp>
#include <tuple>

using namespace choreo;

llvm::Error CostModel::check() const {
  std::pair<const char *, double> Params[] = {
      {"--alpha", Alpha},  {"--beta", Beta},
      {"--gamma", Gamma},  {"--f-alpha", FAlpha},
      {"--f-beta", FBeta}, {"--step-startup", StepStartup},
      {"intra alpha", 0},  {"intra beta", 0},
      {"library step start-up", LibraryStepStartup.value_or(0)}};
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
  if (LibraryStepStartup)
    J["library_step_startup"] = *LibraryStepStartup;
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
        double W = startUpWake(StepStart[X], WakeEnds, M.StepStartup, Waited,
                               M.StartUpPerStep);
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
///
/// Its state is flat: a flow is its op's index in the schedule's op list,
/// with a few per-op arrays (its transfer, when it started and ended, its
/// connection, the next op of that connection, the next flow waiting for
/// the same receiver); each rank's ops are listed by step (its receives,
/// then its sends), so a rank's step is a range of that list; the flows
/// on the wire are one array of PODs. Per event the work is two passes
/// over the flows on the wire and, only when a flow started or ended, the
/// fair shares (rates()): one pass when every flow has one port (its
/// sender's), else a heap of the ports' fair levels, O(flows on the wire x
/// log) instead of one pass per level. The arithmetic on the times is the
/// one it replaces, in the same order, so the prices are the same doubles
/// (tests/unit/CostEagerTest.cpp checks it against that implementation on
/// random schedules).
class EagerSimulation {
public:
  EagerSimulation(const Schedule &S, const CostModel &M, OpsPerStep Most)
      : S(S), M(M), AllOps(S.Steps.allOps()) {
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
    ResVersion.assign(Cap.size(), 0);
    ResMark.assign(Cap.size(), 0);
    ResStamp.assign(Cap.size(), 0);
    PortFlows.assign(Cap.size(), 0);
    LinkNode = M.linkNodes(S);
    Ready.assign(N, 0);
    Busy.assign(N, 0);
    Pos.assign(N, 0);
    StageStart.assign(N, 0);
    Outstanding.assign(N, 0);
    Compute.assign(N, 0);
    SendEnd.assign(N, 0);
    RecvInUse.assign(N, 0);
    WaitHead.assign(N, None);
    WaitTail.assign(N, None);
    SendSeq.assign(N, 0);
    SeqAt.assign(N, -1);
    RecvChannels = uint32_t(RecvCap);
  }

  double run(CostResult &R) {
    const StepList &L = S.Steps;
    size_t NumOps = L.numOps();
    Work.resize(NumOps);
    if (M.Gamma != 0)
      Combine.resize(NumOps);
    Start.assign(NumOps, 0);
    End.assign(NumOps, -1);
    Flags.assign(NumOps, 0);
    ConnOf.resize(NumOps);
    ConnNext.assign(NumOps, None);
    WaitNext.assign(NumOps, None);
    std::vector<uint32_t> SendMark(N, 0), RecvMark(N, 0);
    for (unsigned I = 0; I < L.numSteps(); ++I) {
      llvm::ArrayRef<Op> Ops = L.step(I);
      for (const Op &O : Ops) {
        SendMark[O.Src] = I + 1;
        RecvMark[O.Dst] = I + 1;
      }
      uint32_t Id = uint32_t(Ops.data() - AllOps.data());
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
        Work[Id] = M.transfer(Bytes, Bidirectional, SameNode);
        if (!Combine.empty())
          Combine[Id] = double(Combined) * M.Gamma;
        if (Bytes <= M.EagerBytes)
          Flags[Id] = EagerFlag;
        ++Id;
      }
    }
    buildStages();
    buildConnections();
    for (Rank X = 0; X < N; ++X)
      if (numStages(X))
        Posts.push({0, X});
    double Now = 0;
    for (;;) {
      settle(Now);
      double Next = Posts.empty() ? INFINITY : Posts.top().T;
      size_t First = Active.size();
      for (size_t K = 0; K < Active.size(); ++K) {
        const ActiveFlow &F = Active[K];
        if (Now + F.Remaining / F.Rate < Next) {
          Next = Now + F.Remaining / F.Rate;
          First = K;
        }
      }
      if (Next == INFINITY)
        break;
      if (First < Active.size())
        Active[First].Remaining = 0; // it ends now, whatever rounding
      double Step = Next - Now;
      Now = Next;
      // Each flow moves on to Now; those that end now (within rounding) are
      // taken off the wire (the last one into the place of each, which
      // moves on when it is visited there), then the ranks that come to a
      // step now.
      double Eps = 1e-12 * std::max(1.0, std::fabs(Now));
      for (size_t K = 0; K < Active.size();) {
        ActiveFlow &F = Active[K];
        F.Remaining -= F.Rate * Step;
        if (F.Remaining <= Eps * F.Rate + 1e-300) {
          Ended.push_back(F.Id);
          removeActive(K);
        } else {
          ++K;
        }
      }
      for (uint32_t Id : Ended)
        endFlow(Id, Now);
      Ended.clear();
    }
    double Finish = 0;
    std::vector<std::pair<double, double>> Spans;
    for (Rank X = 0; X < N; ++X) {
      Finish = std::max(Finish, Ready[X]);
      // Busy: the union of the rank's flows' spans, plus its wake-ups and
      // combining (already in Busy).
      Spans.clear();
      for (uint32_t E = EntryBegin[X]; E < EntryBegin[X + 1]; ++E)
        if (End[Entries[E]] >= 0)
          Spans.push_back({Start[Entries[E]], End[Entries[E]]});
      std::sort(Spans.begin(), Spans.end());
      for (size_t I = 0; I < Spans.size();) {
        double Lo = Spans[I].first, Hi = Spans[I].second;
        for (++I; I < Spans.size() && Spans[I].first <= Hi; ++I)
          Hi = std::max(Hi, Spans[I].second);
        Busy[X] += Hi - Lo;
      }
    }
    return Finish;
  }

  std::vector<double> Ready, Busy;

private:
  static constexpr uint32_t None = UINT32_MAX;
  enum : uint8_t { EagerFlag = 1, SenderIn = 2, ReceiverIn = 4 };
  /// A flow on the wire: its op, what is left of its transfer, its rate,
  /// and the resources it shares (rates()).
  struct ActiveFlow {
    double Remaining = 0, Rate = 0;
    uint32_t Id = 0;
    uint32_t Res[4] = {0, 0, 0, 0};
    uint8_t NumRes = 0;
    bool Frozen = false;
  };
  struct Post {
    double T;
    Rank X;
    bool operator>(const Post &O) const {
      return std::tie(T, X) > std::tie(O.T, O.X);
    }
  };
  /// A port's fair level in rates()'s heap (stale once Version moved on).
  struct Level {
    double Ratio;
    uint32_t Res, Version;
    bool operator>(const Level &O) const { return Ratio > O.Ratio; }
  };

  /// Each rank's ops by step, its receives before its sends in each step
  /// (in the schedule's order): Entries[EntryBegin[X] ..
  /// EntryBegin[X + 1]), and its steps' ranges: stage K of rank X starts
  /// at entry StageAt[StageBegin[X] + K] and has StageRecvs[...] receives.
  void buildStages() {
    const StepList &L = S.Steps;
    std::vector<uint32_t> Count(N + 1, 0), StageCount(N + 1, 0), Mark(N, 0);
    for (unsigned I = 0; I < L.numSteps(); ++I)
      for (const Op &O : L.step(I)) {
        ++Count[O.Src];
        ++Count[O.Dst];
        for (Rank X : {O.Src, O.Dst})
          if (Mark[X] != I + 1) {
            Mark[X] = I + 1;
            ++StageCount[X];
          }
      }
    EntryBegin.assign(N + 1, 0);
    StageBegin.assign(N + 1, 0);
    for (Rank X = 0; X < N; ++X) {
      EntryBegin[X + 1] = EntryBegin[X] + Count[X];
      StageBegin[X + 1] = StageBegin[X] + StageCount[X];
    }
    Entries.resize(EntryBegin[N]);
    StageAt.resize(StageBegin[N]);
    StageRecvs.assign(StageBegin[N], 0);
    std::vector<uint32_t> Cursor(EntryBegin.begin(), EntryBegin.end() - 1),
        StageCursor(StageBegin.begin(), StageBegin.end() - 1);
    std::fill(Mark.begin(), Mark.end(), 0);
    auto Add = [&](Rank X, uint32_t Id, unsigned Step, bool Recv) {
      if (Mark[X] != Step + 1) {
        Mark[X] = Step + 1;
        StageAt[StageCursor[X]++] = Cursor[X];
      }
      if (Recv)
        ++StageRecvs[StageCursor[X] - 1];
      Entries[Cursor[X]++] = Id;
    };
    for (unsigned I = 0; I < L.numSteps(); ++I) {
      llvm::ArrayRef<Op> Ops = L.step(I);
      uint32_t First = uint32_t(Ops.data() - AllOps.data());
      for (uint32_t K = 0; K < Ops.size(); ++K)
        Add(Ops[K].Dst, First + K, I, true);
      for (uint32_t K = 0; K < Ops.size(); ++K)
        Add(Ops[K].Src, First + K, I, false);
    }
  }

  uint32_t numStages(Rank X) const {
    return StageBegin[X + 1] - StageBegin[X];
  }

  /// One connection per sender and receiver: its ops in the sender's order
  /// (ConnNext), the first not yet arrived (ConnHead), and whether that one
  /// is on the wire or waiting for the receiver's channel (ConnOnWire).
  void buildConnections() {
    std::vector<uint32_t> Stamp(N, 0), Last(N, None);
    for (Rank X = 0; X < N; ++X)
      for (uint32_t K = StageBegin[X]; K < StageBegin[X + 1]; ++K) {
        uint32_t Hi = K + 1 < StageBegin[X + 1] ? StageAt[K + 1]
                                                  : EntryBegin[X + 1];
        for (uint32_t E = StageAt[K] + StageRecvs[K]; E < Hi; ++E) {
          uint32_t Id = Entries[E];
          Rank D = AllOps[Id].Dst;
          if (Stamp[D] != X + 1) {
            Stamp[D] = X + 1;
            ConnOf[Id] = uint32_t(ConnHead.size());
            ConnHead.push_back(Id);
          } else {
            ConnNext[Last[D]] = Id;
            ConnOf[Id] = ConnOf[Last[D]];
          }
          Last[D] = Id;
        }
      }
    ConnOnWire.assign(ConnHead.size(), 0);
  }

  void removeActive(size_t K) {
    countPorts(Active[K], -1);
    Active[K] = Active.back();
    Active.pop_back();
    ActiveChanged = true;
  }

  /// The flows on each port, how many flows on the wire have more than
  /// one port, and how many ports have more than 16384 flows (rates()).
  void countPorts(const ActiveFlow &F, int Delta) {
    MultiPort += F.NumRes > 1 ? Delta : 0;
    for (unsigned K = 0; K < F.NumRes; ++K) {
      uint32_t &C = PortFlows[F.Res[K]];
      if (Delta > 0 && ++C == 16385)
        ++BigPorts;
      else if (Delta < 0 && C-- == 16385)
        --BigPorts;
    }
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
      postSends(Now);
      // Only a flow that started with no work can have none left here.
      for (size_t K = 0; NoWork && K < Active.size();) {
        if (Active[K].Remaining <= 0) {
          Ended.push_back(Active[K].Id);
          removeActive(K);
        } else {
          ++K;
        }
      }
      NoWork = false;
      if (!Ended.empty()) {
        for (uint32_t Id : Ended)
          endFlow(Id, Now);
        Ended.clear();
        Did = true;
      }
      if (!Did)
        break;
    }
    // The shares depend only on which flows are on the wire.
    if (ActiveChanged)
      rates();
    ActiveChanged = false;
  }

  void enterStage(Rank X, double Now) {
    uint32_t K = StageBegin[X] + Pos[X];
    uint32_t Lo = StageAt[K], Mid = Lo + StageRecvs[K],
             Hi = K + 1 < StageBegin[X + 1] ? StageAt[K + 1]
                                            : EntryBegin[X + 1];
    StageStart[X] = Now;
    Outstanding[X] = 0;
    Compute[X] = 0;
    SendEnd[X] = Now;
    for (uint32_t E = Lo; E < Mid; ++E) {
      uint32_t Id = Entries[E];
      Flags[Id] |= ReceiverIn;
      if (!Combine.empty())
        Compute[X] += Combine[Id];
      if (End[Id] < 0)
        ++Outstanding[X];
      if (!(Flags[Id] & EagerFlag) && (Flags[Id] & SenderIn))
        tryStart(ConnOf[Id], Now);
    }
    // The sends go out in postSends, once every rank that comes to a step
    // now has posted its own.
    if (SeqAt[X] != Now) {
      SeqAt[X] = Now;
      SendSeq[X] = 0;
    }
    for (uint32_t E = Mid; E < Hi; ++E) {
      uint32_t Id = Entries[E];
      Flags[Id] |= SenderIn;
      if (!(Flags[Id] & EagerFlag))
        ++Outstanding[X];
      Pending.push_back({SendSeq[X]++, ConnOf[Id]});
    }
    if (!Outstanding[X])
      finishStage(X);
  }

  /// Puts the sends posted at Now on the wire in the order they come: a
  /// rank posts its sends one after another, so every rank's first send
  /// that came to a step at Now comes before any rank's second (ranks in
  /// order among equals). In rank order instead, the first rank's sends
  /// would take every receiver's channel at once and share its port: the
  /// scattered alltoall at p = 4 on one port, whose every receiver then
  /// waits behind a third-speed message, priced twice its time without
  /// eager sends.
  void postSends(double Now) {
    if (Pending.empty())
      return;
    std::stable_sort(Pending.begin(), Pending.end(),
                     [](const PendingSend &A, const PendingSend &B) {
                       return A.Seq < B.Seq;
                     });
    for (const PendingSend &P : Pending)
      tryStart(P.Conn, Now);
    Pending.clear();
  }

  /// Puts the connection's next message on the wire if it may go.
  void tryStart(uint32_t C, double Now) {
    uint32_t Id = ConnHead[C];
    if (ConnOnWire[C] || Id == None || !(Flags[Id] & SenderIn))
      return;
    if (!(Flags[Id] & EagerFlag) && !(Flags[Id] & ReceiverIn))
      return;
    ConnOnWire[C] = 1;
    Rank D = AllOps[Id].Dst;
    if (RecvInUse[D] >= RecvChannels) {
      // Waits for the receiver's channel, first come first served.
      if (WaitTail[D] == None)
        WaitHead[D] = Id;
      else
        WaitNext[WaitTail[D]] = Id;
      WaitTail[D] = Id;
      return;
    }
    startFlow(Id, Now);
  }

  void startFlow(uint32_t Id, double Now) {
    const Op &O = AllOps[Id];
    ++RecvInUse[O.Dst];
    Start[Id] = Now;
    ActiveFlow F;
    F.Id = Id;
    F.Remaining = Work[Id];
    // Shared fairly: the sender's port (and a half-duplex port's
    // receiving side, the same port), the nodes' off-node sides. The
    // receiver's port takes one message per channel (tryStart).
    F.Res[F.NumRes++] = 2 * uint32_t(O.Src);
    if (Shared)
      F.Res[F.NumRes++] = 2 * uint32_t(O.Dst);
    if (!NodeOf.empty() && NodeOf[O.Src] != NodeOf[O.Dst]) {
      F.Res[F.NumRes++] = 2 * N + 2 * NodeOf[O.Src];
      F.Res[F.NumRes++] = 2 * N + 2 * NodeOf[O.Dst] + 1;
    }
    NoWork |= F.Remaining <= 0;
    countPorts(F, 1);
    Active.push_back(F);
    ActiveChanged = true;
  }

  void endFlow(uint32_t Id, double Now) {
    End[Id] = Now;
    const Op &O = AllOps[Id];
    uint32_t C = ConnOf[Id];
    ConnHead[C] = ConnNext[Id];
    ConnOnWire[C] = 0;
    Rank D = O.Dst;
    --RecvInUse[D];
    if (WaitHead[D] != None) {
      uint32_t Next = WaitHead[D];
      WaitHead[D] = WaitNext[Next];
      if (WaitHead[D] == None)
        WaitTail[D] = None;
      startFlow(Next, Now);
    }
    tryStart(C, Now);
    // The receiver, if it is in the step that takes this message.
    // (A receiver that came to the message's step is still in it: the step
    // cannot end before the message arrives.)
    if ((Flags[Id] & ReceiverIn) && !--Outstanding[D])
      finishStage(D);
    if (!(Flags[Id] & EagerFlag)) {
      Rank X = O.Src;
      SendEnd[X] = std::max(SendEnd[X], Now);
      if (!--Outstanding[X])
        finishStage(X);
    }
  }

  void finishStage(Rank X) {
    // Its receives have all arrived: their ends, in any order
    // (startUpWake sorts them).
    uint32_t K = StageBegin[X] + Pos[X];
    RecvEnds.clear();
    for (uint32_t E = StageAt[K], Mid = E + StageRecvs[K]; E < Mid; ++E)
      RecvEnds.push_back(End[Entries[E]]);
    unsigned Waited = 0;
    double W = startUpWake(StageStart[X], RecvEnds, M.StepStartup, Waited,
                           M.StartUpPerStep);
    for (double E : RecvEnds)
      W = std::max(W, E);
    W = std::max(W, SendEnd[X]);
    Busy[X] += Waited * M.StepStartup + Compute[X];
    Ready[X] = W + Compute[X];
    if (++Pos[X] < numStages(X))
      Posts.push({Ready[X], X});
  }

  /// Max-min fair rates of the flows on the wire (progressive filling):
  /// level by level, the fairest share left of the ports (at most 1), every
  /// port whose share is within 1e-9 of it saturated, the flows on those
  /// frozen at that level. The levels come from a heap of the ports'
  /// shares, and a level's frozen flows are found through their ports, so
  /// a call costs O(flows log flows), whatever the number of levels; the
  /// shares are the same doubles as level-by-level passes over every flow
  /// (a port's frozen sum adds the same levels in the same order).
  void rates() {
    if (!MultiPort && !BigPorts) {
      // Each flow on one port (its sender's): the ports do not interact,
      // and progressive filling freezes port r's flows at min(1, c_r /
      // n_r) unless another port's share is within 1e-9 of it and not
      // equal; two shares a/n < b/m (n, m flows) differ by at least
      // 1/(nm) > 3.7e-9 of theirs when n, m <= 16384, so no two are that
      // close, and each port's share is its own.
      for (ActiveFlow &F : Active)
        F.Rate = std::max(std::min(1.0, Cap[F.Res[0]] / PortFlows[F.Res[0]]),
                          1e-12);
      return;
    }
    Touched.clear();
    for (ActiveFlow &F : Active) {
      F.Frozen = false;
      for (unsigned K = 0; K < F.NumRes; ++K) {
        uint32_t Rs = F.Res[K];
        if (!Unfrozen[Rs])
          Touched.push_back(Rs);
        ++Unfrozen[Rs];
      }
    }
    // The first level: every port's channels over its flows. At least 1
    // (no port has more flows than channels): every flow moves at 1.
    double First = 1;
    for (uint32_t Rs : Touched)
      First = std::min(First, Cap[Rs] / Unfrozen[Rs]);
    if (First >= 1) {
      for (ActiveFlow &F : Active)
        F.Rate = 1;
    } else {
      fill();
    }
    for (uint32_t Rs : Touched) {
      FrozenSum[Rs] = 0;
      Unfrozen[Rs] = 0;
    }
    // A rate of 0 (never: every port has a channel) would stall.
    for (ActiveFlow &F : Active)
      F.Rate = std::max(F.Rate, 1e-12);
  }

  double share(uint32_t Rs) const {
    return (Cap[Rs] - FrozenSum[Rs]) / Unfrozen[Rs];
  }

  /// rates() when some port has more flows than channels.
  void fill() {
    // The flows on each port (indices into Active).
    ResBegin.assign(Touched.size() + 1, 0);
    for (size_t I = 0; I < Touched.size(); ++I) {
      ResBegin[I + 1] = ResBegin[I] + Unfrozen[Touched[I]];
      ResMark[Touched[I]] = uint32_t(I); // the port's index in Touched
    }
    ResFlows.resize(ResBegin.back());
    std::vector<uint32_t> &Cursor = ResCursor;
    Cursor.assign(ResBegin.begin(), ResBegin.end() - 1);
    for (size_t A = 0; A < Active.size(); ++A)
      for (unsigned K = 0; K < Active[A].NumRes; ++K)
        ResFlows[Cursor[ResMark[Active[A].Res[K]]]++] = uint32_t(A);
    Heap.clear();
    for (uint32_t Rs : Touched)
      Heap.push_back({share(Rs), Rs, ++ResVersion[Rs]});
    std::make_heap(Heap.begin(), Heap.end(), std::greater<Level>());
    auto Valid = [&](const Level &L) {
      return Unfrozen[L.Res] && L.Version == ResVersion[L.Res];
    };
    size_t Left = Active.size();
    while (Left) {
      while (!Heap.empty() && !Valid(Heap.front())) {
        std::pop_heap(Heap.begin(), Heap.end(), std::greater<Level>());
        Heap.pop_back();
      }
      double Lvl = Heap.empty() ? 1 : std::min(1.0, Heap.front().Ratio);
      Lvl = std::max(Lvl, 0.0);
      if (Lvl >= 1) {
        // Every flow left moves at 1.
        for (ActiveFlow &F : Active)
          if (!F.Frozen) {
            F.Frozen = true;
            F.Rate = Lvl;
          }
        break;
      }
      // The saturated ports, all found before any flow is frozen.
      Saturated.clear();
      double Limit = Lvl * (1 + 1e-9);
      while (!Heap.empty()) {
        const Level &Top = Heap.front();
        if (Valid(Top)) {
          if (!(Top.Ratio <= Limit))
            break;
          Saturated.push_back(Top.Res);
        }
        std::pop_heap(Heap.begin(), Heap.end(), std::greater<Level>());
        Heap.pop_back();
      }
      Changed.clear();
      ++ChangeStamp;
      for (uint32_t Rs : Saturated) {
        uint32_t I = ResMark[Rs];
        for (uint32_t P = ResBegin[I]; P < ResBegin[I + 1]; ++P) {
          ActiveFlow &F = Active[ResFlows[P]];
          if (F.Frozen)
            continue;
          F.Frozen = true;
          F.Rate = Lvl;
          --Left;
          for (unsigned K = 0; K < F.NumRes; ++K) {
            uint32_t R = F.Res[K];
            FrozenSum[R] += Lvl;
            --Unfrozen[R];
            if (ResStamp[R] != ChangeStamp) {
              ResStamp[R] = ChangeStamp;
              Changed.push_back(R);
            }
          }
        }
      }
      // The ports whose share moved: their new share.
      for (uint32_t R : Changed)
        if (Unfrozen[R]) {
          ++ResVersion[R];
          Heap.push_back({share(R), R, ResVersion[R]});
          std::push_heap(Heap.begin(), Heap.end(), std::greater<Level>());
        }
    }
  }

  const Schedule &S;
  const CostModel &M;
  llvm::ArrayRef<Op> AllOps;
  Rank N = 0;
  bool Shared = false;
  // Per resource (rates()).
  std::vector<double> Cap, FrozenSum;
  std::vector<uint32_t> Unfrozen, ResVersion, ResMark;
  std::vector<uint32_t> Touched, Saturated, Changed, ResBegin, ResFlows,
      ResCursor;
  std::vector<Level> Heap;
  std::vector<uint64_t> ResStamp;
  uint64_t ChangeStamp = 0;
  std::vector<uint32_t> NodeOf, LinkNode;
  // Per op.
  std::vector<double> Work, Combine, Start, End;
  std::vector<uint8_t> Flags;
  std::vector<uint32_t> ConnOf, ConnNext, WaitNext;
  // Per connection.
  std::vector<uint32_t> ConnHead;
  std::vector<uint8_t> ConnOnWire;
  // Per rank: its ops by step (buildStages) and where it is.
  std::vector<uint32_t> Entries, EntryBegin, StageAt, StageRecvs, StageBegin;
  std::vector<uint32_t> Pos, Outstanding, RecvInUse, WaitHead, WaitTail;
  std::vector<double> StageStart, Compute, SendEnd;
  std::vector<double> RecvEnds;
  std::priority_queue<Post, std::vector<Post>, std::greater<Post>> Posts;
  std::vector<ActiveFlow> Active;
  std::vector<uint32_t> Ended;
  bool ActiveChanged = false;
  /// A flow of no work started since settle() last looked.
  bool NoWork = false;
  /// The sends posted at one instant, not yet put on the wire (postSends):
  /// their place in their rank's posting order, their connection.
  struct PendingSend {
    uint32_t Seq, Conn;
  };
  std::vector<PendingSend> Pending;
  std::vector<uint32_t> SendSeq;
  std::vector<double> SeqAt;
  std::vector<uint32_t> PortFlows;
  int64_t MultiPort = 0, BigPorts = 0;
  uint32_t RecvChannels = 1;
};

} // namespace

double choreo::startUpWake(double Start, llvm::MutableArrayRef<double> Ends,
                           double Sigma, unsigned &Waited, bool PerStep) {
  std::sort(Ends.begin(), Ends.end());
  double W = Start;
  Waited = 0;
  if (PerStep) {
    if (!Ends.empty() && Ends.back() > Start) {
      W = Ends.back() + Sigma;
      Waited = 1;
    }
    return W;
  }
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
