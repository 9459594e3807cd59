//===- tests/unit/CostEagerTest.cpp - Eager pricing against its reference -===//
///
/// \file
/// The eager-send simulation (cost/Model.cpp, CostModel::EagerBytes) was
/// rewritten for speed on flat per-op arrays with a heap for the fair
/// shares; its prices must stay the same doubles. This keeps the first
/// implementation (per-message objects, a map of connections, level-by-
/// level progressive filling over every flow), unchanged but for its name,
/// as the reference, and compares the two bit for bit (asynchronous time,
/// every rank's finish and busy time, the op counts) on random small
/// schedules: ranks sending to several peers at once and running ahead,
/// rendezvous and eager messages mixed, full-duplex and shared ports,
/// machine ports, nodes with their off-node channels, start-ups and
/// combining. Integral parameters make many messages end at the same
/// moment (the ties the simulation breaks in one order); fractional ones
/// exercise the rounding.
///
//===----------------------------------------------------------------------===//

#include "cost/Model.h"
#include "generators/CommonOptions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <queue>
#include <random>
#include <tuple>
#include <unordered_map>

using namespace choreo;

namespace {
namespace eagerref {

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
class ReferenceEagerSimulation {
public:
  ReferenceEagerSimulation(const Schedule &S, const CostModel &M, OpsPerStep Most)
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
    SendSeq.assign(N, 0);
    SeqAt.assign(N, -1);
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
      // The sends posted now, every rank's first before any rank's second.
      std::stable_sort(Pending.begin(), Pending.end(),
                       [](const auto &A, const auto &B) {
                         return A.first < B.first;
                       });
      for (auto [Seq, Key] : Pending)
        tryStart(Conns[Key], Now);
      Pending.clear();
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
    if (SeqAt[X] != Now) {
      SeqAt[X] = Now;
      SendSeq[X] = 0;
    }
    for (uint32_t Id : St.Sends) {
      Flow &F = Flows[Id];
      F.SenderIn = true;
      if (!F.Eager)
        ++Outstanding[X];
      Connection &C = connection(F.Src, F.Dst);
      C.Queue.push_back(Id);
      Pending.push_back({SendSeq[X]++, (uint64_t(F.Src) << 32) | F.Dst});
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
  std::vector<std::pair<uint32_t, uint64_t>> Pending;
  std::vector<uint32_t> SendSeq;
  std::vector<double> SeqAt;
};


/// evaluateCost's asynchronous part with eager sharing, by the reference.
CostResult evaluate(const Schedule &S, const CostModel &M) {
  CostResult R;
  ReferenceEagerSimulation Sim(S, M, mostOpsPerStep(S));
  R.Async = Sim.run(R);
  R.Finish = std::move(Sim.Ready);
  R.Busy = std::move(Sim.Busy);
  return R;
}

/// Bit for bit (a NaN equals itself; +0 and -0 differ).
bool same(double A, double B) { return std::memcmp(&A, &B, sizeof A) == 0; }

Block block(uint64_t Lo, uint64_t Hi, bool Reduce) {
  Block B;
  B.Lo = Lo;
  B.Hi = Hi;
  B.Reduce = Reduce;
  return B;
}

/// A random schedule of N ranks and a random model with eager sends on.
std::pair<Schedule, CostModel> randomCase(std::mt19937_64 &G) {
  auto Pick = [&](uint64_t Lo, uint64_t Hi) {
    return std::uniform_int_distribution<uint64_t>(Lo, Hi)(G);
  };
  auto Real = [&](double Lo, double Hi) {
    return std::uniform_real_distribution<double>(Lo, Hi)(G);
  };
  bool Integral = Pick(0, 1);
  Rank N = Rank(Pick(2, 9));
  uint64_t Unit = Integral ? 100 : Pick(1, 1000);
  Schedule S;
  // An allreduce's vector of N x Unit bytes: blocks may combine.
  S.Kind = Collective::Allreduce;
  setIntragroup(S, N, {N * Unit});
  S.Port.Duplex = Pick(0, 3) != 0;
  S.Port.Send = uint32_t(Pick(1, 3));
  S.Port.Recv = uint32_t(Pick(1, 3));
  if (Pick(0, 2) == 0) {
    // Two or three nodes of consecutive ranks.
    uint32_t Nodes = uint32_t(std::min<uint64_t>(N, Pick(2, 3)));
    std::vector<std::vector<Rank>> V(Nodes);
    for (Rank X = 0; X < N; ++X)
      V[X * Nodes / N].push_back(X);
    S.Nodes = V;
    if (Pick(0, 1))
      S.NodePort = NodePorts{uint32_t(Pick(1, 3)), uint32_t(Pick(1, 3))};
  }
  unsigned Steps = unsigned(Pick(1, 10));
  // Some ranks send to many peers (a root), most to one or two.
  for (unsigned I = 0; I < Steps; ++I) {
    if (I)
      S.Steps.newStep();
    unsigned Ops = unsigned(Pick(0, 2 * N));
    for (unsigned K = 0; K < Ops; ++K) {
      Rank Src = Pick(0, 2) == 0 ? 0 : Rank(Pick(0, N - 1));
      Rank Dst = Rank(Pick(0, N - 2));
      if (Dst >= Src)
        ++Dst;
      uint64_t Units = Integral ? Pick(1, 4) : Pick(1, 3 * Unit);
      uint64_t Lo = Integral ? Pick(0, N - 1) * Unit : Pick(0, N * Unit - 1);
      uint64_t Len = std::min(Integral ? Units * Unit : Units, N * Unit - Lo);
      Block B = block(Lo, Lo + Len, Pick(0, 3) == 0);
      B.Contrib = S.Steps.addContrib(RankSet(Src, Src + 1));
      S.Steps.addOp(Src, Dst, {B});
    }
  }
  CostModel M;
  M.Alpha = Integral ? double(Pick(0, 2)) : Real(0, 50);
  // Now and then no time per byte: messages of alpha, or of nothing.
  M.Beta = Pick(0, 9) == 0 ? 0
           : Integral      ? double(Pick(1, 2)) / 2
                           : Real(0.01, 2);
  M.Gamma = Pick(0, 2) == 0 ? (Integral ? 1 : Real(0, 0.5)) : 0;
  if (Pick(0, 2) == 0) {
    M.FAlpha = Integral ? 0.5 : Real(0.3, 1);
    M.FBeta = Integral ? 0.5 : Real(0.3, 1);
  }
  if (Pick(0, 1))
    M.StepStartup = Integral ? double(Pick(1, 3)) : Real(0, 30);
  M.Ports = uint32_t(Pick(0, 3));
  if (S.hasNodes() && Pick(0, 1))
    M.Intra = LinkCost{M.Alpha / 2, M.Beta / 4};
  // Every message eager, or a threshold that makes some rendezvous.
  M.EagerBytes = Pick(0, 1) ? UINT64_MAX : Pick(1, 2 * Unit);
  return {std::move(S), M};
}

} // namespace eagerref
} // namespace

// The eager simulation prices random schedules exactly as the reference.
TEST(CostEager, SameDoublesAsTheReference) {
  std::mt19937_64 G(20261127);
  unsigned Compared = 0, Shared = 0;
  for (unsigned Case = 0; Case < 3000; ++Case) {
    auto [S, M] = eagerref::randomCase(G);
    std::vector<Diagnostic> D = S.verify();
    ASSERT_TRUE(D.empty()) << "case " << Case << ": " << D[0].Kind << ": "
                           << D[0].Message;
    ASSERT_TRUE(M.eagerSharing());
    CostResult Want = eagerref::evaluate(S, M);
    CostResult Got = evaluateCost(S, M);
    std::string Label = "case " + std::to_string(Case);
    ASSERT_TRUE(eagerref::same(Got.Async, Want.Async))
        << Label << ": " << Got.Async << " vs " << Want.Async;
    ASSERT_EQ(Got.Finish.size(), Want.Finish.size()) << Label;
    for (size_t X = 0; X < Want.Finish.size(); ++X) {
      ASSERT_TRUE(eagerref::same(Got.Finish[X], Want.Finish[X]))
          << Label << ", rank " << X << ": finish " << Got.Finish[X]
          << " vs " << Want.Finish[X];
      ASSERT_TRUE(eagerref::same(Got.Busy[X], Want.Busy[X]))
          << Label << ", rank " << X << ": busy " << Got.Busy[X] << " vs "
          << Want.Busy[X];
    }
    ASSERT_EQ(Got.BidirectionalOps, Want.BidirectionalOps) << Label;
    ASSERT_EQ(Got.UnidirectionalOps, Want.UnidirectionalOps) << Label;
    ++Compared;
    // How many priced differently with eager sends off (so the cases do
    // exercise the sharing, not only what the plain simulation does).
    CostModel Off = M;
    Off.EagerBytes = 0;
    if (!eagerref::same(evaluateCost(S, Off).Async, Got.Async))
      ++Shared;
  }
  EXPECT_EQ(Compared, 3000u);
  EXPECT_GT(Shared, 1000u);
}
