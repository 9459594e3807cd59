//===- verifier/ExplicitChecker.cpp - Exact replay of a schedule ----------===//
///
/// \file
/// The explicit engine: replays a schedule step by step over possession
/// state and decides every property exactly. Gather-type collectives keep an
/// IntervalSet of held bytes per (rank, buffer); reductions keep, per rank, a
/// partition of [0, n) into segments labelled with interned contributor sets.
/// All ops of a step read the state at the start of the step; what they
/// deliver becomes usable at the next step.
///
//===----------------------------------------------------------------------===//

#include "verifier/Report.h"
#include "verifier/Verifier.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <unordered_map>
#include <unordered_set>

using namespace choreo;
using llvm::formatv;

namespace {

/// Interned contributor sets with a cache of unions.
class ContribTable {
public:
  uint32_t intern(const RankSet &S) {
    std::string Key = S.str();
    auto [It, New] = Index.try_emplace(Key, Sets.size());
    if (New)
      Sets.push_back(S);
    return It->second;
  }
  const RankSet &get(uint32_t Id) const { return Sets[Id]; }
  uint32_t unite(uint32_t A, uint32_t B) {
    uint64_t Key = (uint64_t(A) << 32) | B;
    auto It = Unions.find(Key);
    if (It != Unions.end())
      return It->second;
    RankSet U = Sets[A];
    U.insert(Sets[B]);
    uint32_t Id = intern(U);
    Unions[Key] = Id;
    return Id;
  }

private:
  std::vector<RankSet> Sets;
  std::unordered_map<std::string, uint32_t> Index;
  llvm::DenseMap<uint64_t, uint32_t> Unions;
};

/// A rank's partial results: [0, n) cut into segments, each with the id of
/// the contributor set combined in it.
class PartialMap {
public:
  struct Seg {
    uint64_t Lo, Hi;
    uint32_t Set;
  };
  PartialMap() = default;
  PartialMap(uint64_t N, uint32_t Set) {
    if (N)
      Segs.push_back({0, N, Set});
  }

  /// The segments overlapping [Lo, Hi), clipped to it.
  std::vector<Seg> query(uint64_t Lo, uint64_t Hi) const {
    std::vector<Seg> Out;
    for (const Seg &S : Segs)
      if (S.Lo < Hi && Lo < S.Hi)
        Out.push_back({std::max(S.Lo, Lo), std::min(S.Hi, Hi), S.Set});
    return Out;
  }

  /// Applies F(old set) -> new set to every byte of [Lo, Hi).
  template <typename Fn> void update(uint64_t Lo, uint64_t Hi, Fn F) {
    split(Lo);
    split(Hi);
    for (Seg &S : Segs)
      if (S.Lo >= Lo && S.Hi <= Hi)
        S.Set = F(S);
    merge();
  }

  const std::vector<Seg> &segments() const { return Segs; }

private:
  std::vector<Seg> Segs;

  void split(uint64_t At) {
    for (size_t I = 0; I < Segs.size(); ++I)
      if (Segs[I].Lo < At && At < Segs[I].Hi) {
        Seg Right{At, Segs[I].Hi, Segs[I].Set};
        Segs[I].Hi = At;
        Segs.insert(Segs.begin() + I + 1, Right);
        return;
      }
  }
  void merge() {
    std::vector<Seg> Out;
    for (const Seg &S : Segs) {
      if (!Out.empty() && Out.back().Hi == S.Lo && Out.back().Set == S.Set)
        Out.back().Hi = S.Hi;
      else
        Out.push_back(S);
    }
    Segs = std::move(Out);
  }
};

class ExplicitChecker {
public:
  explicit ExplicitChecker(const Schedule &S)
      : S(S), L(S.Steps), Bufs(S.buffers()), NB(Bufs.size()),
        Reduction(S.spec().isReduction()) {}

  VerifyResult run() {
    initTopology();
    initNodes();
    initState();
    for (unsigned St = 0; St < L.numSteps(); ++St)
      runStep(St);
    checkCompleteness();
    VerifyResult R;
    R.Diags = Diags.take();
    R.St = R.Diags.empty() ? VerifyResult::Status::Proved
                           : VerifyResult::Status::Failed;
    return R;
  }

private:
  const Schedule &S;
  const StepList &L;
  std::vector<Buffer> Bufs;
  size_t NB;
  bool Reduction;
  DiagnosticList Diags;

  // Gather-type state: Held[rank * NB + buf].
  std::vector<IntervalSet> Held;
  // Reduction state.
  ContribTable Sets;
  std::vector<PartialMap> Partial;
  uint32_t EveryRank = 0;

  // Topology.
  std::vector<uint32_t> RingPos;
  std::unordered_set<uint64_t> Edges;

  // Per-step port bookkeeping.
  std::vector<uint32_t> SendCount, RecvCount;
  std::vector<int64_t> FirstSend, FirstRecv;
  std::vector<Rank> Touched;

  // Per-step node-port bookkeeping (schedules with `nodes`).
  std::vector<uint32_t> NodeOf;
  std::vector<uint32_t> NodeSendCount, NodeRecvCount;
  std::vector<int64_t> FirstNodeSend, FirstNodeRecv;
  std::vector<uint32_t> TouchedNodes;

  struct Delivery {
    Rank Dst;
    Block B;
    size_t Op; // index in the step
  };
  std::vector<Delivery> Pending;

  void initNodes() {
    if (!S.hasNodes())
      return;
    NodeOf = S.nodeOfRank();
    size_t N = S.Nodes->size();
    NodeSendCount.assign(N, 0);
    NodeRecvCount.assign(N, 0);
    FirstNodeSend.assign(N, -1);
    FirstNodeRecv.assign(N, -1);
  }

  void initTopology() {
    if (S.Topo.K == Topology::Kind::Ring) {
      RingPos.assign(S.NumRanks, 0);
      for (Rank I = 0; I < S.NumRanks; ++I)
        RingPos[S.Topo.Order.empty() ? I : S.Topo.Order[I]] = I;
    } else if (S.Topo.K == Topology::Kind::Graph) {
      for (auto [U, V] : S.Topo.Edges) {
        Edges.insert(edgeKey(U, V));
      }
    }
  }
  static uint64_t edgeKey(Rank U, Rank V) {
    if (U > V)
      std::swap(U, V);
    return (uint64_t(U) << 32) | V;
  }
  bool isLink(Rank U, Rank V) const {
    switch (S.Topo.K) {
    case Topology::Kind::Full:
      return true;
    case Topology::Kind::Ring: {
      uint64_t N = S.NumRanks;
      uint64_t D = (RingPos[U] + N - RingPos[V]) % N;
      return D == 1 || D == N - 1;
    }
    case Topology::Kind::Graph:
      return Edges.count(edgeKey(U, V));
    }
    return false;
  }

  void initState() {
    SendCount.assign(S.NumRanks, 0);
    RecvCount.assign(S.NumRanks, 0);
    FirstSend.assign(S.NumRanks, -1);
    FirstRecv.assign(S.NumRanks, -1);
    std::vector<Holding> Initial = S.spec().initialHoldings(S);
    if (Reduction) {
      // Every rank holds its whole vector with contributors {itself}.
      Partial.resize(S.NumRanks);
      for (const Holding &H : Initial)
        Partial[H.R] = PartialMap(H.Hi, Sets.intern(RankSet(H.R, H.R + 1)));
      EveryRank = Sets.intern(RankSet(0, S.NumRanks));
      return;
    }
    Held.assign(size_t(S.NumRanks) * NB, IntervalSet());
    for (const Holding &H : Initial)
      Held[size_t(H.R) * NB + H.Buf].insert(H.Lo, H.Hi);
  }

  void runStep(unsigned St) {
    llvm::ArrayRef<Op> Ops = L.step(St);
    Pending.clear();
    for (size_t I = 0; I < Ops.size(); ++I) {
      const Op &O = Ops[I];
      countPorts(St, I, O);
      countNodePorts(St, I, O);
      if (!isLink(O.Src, O.Dst))
        Diags.add(report::topology(S, St, I));
      for (const Block &B : L.blocks(O))
        checkAvailable(St, I, O, B);
    }
    for (Rank R : Touched) {
      SendCount[R] = RecvCount[R] = 0;
      FirstSend[R] = FirstRecv[R] = -1;
    }
    Touched.clear();
    for (uint32_t N : TouchedNodes) {
      NodeSendCount[N] = NodeRecvCount[N] = 0;
      FirstNodeSend[N] = FirstNodeRecv[N] = -1;
    }
    TouchedNodes.clear();
    for (const Delivery &D : Pending)
      deliver(St, D);
  }

  void countPorts(unsigned St, size_t I, const Op &O) {
    auto Touch = [&](Rank R) {
      if (SendCount[R] == 0 && RecvCount[R] == 0)
        Touched.push_back(R);
    };
    Touch(O.Src);
    Touch(O.Dst);
    if (++SendCount[O.Src] > S.Port.Send)
      Diags.add(report::sendPort(S, St, O.Src, SendCount[O.Src],
                                 FirstSend[O.Src], I));
    if (FirstSend[O.Src] < 0)
      FirstSend[O.Src] = I;
    if (++RecvCount[O.Dst] > S.Port.Recv)
      Diags.add(report::recvPort(S, St, O.Dst, RecvCount[O.Dst],
                                 FirstRecv[O.Dst], I));
    if (FirstRecv[O.Dst] < 0)
      FirstRecv[O.Dst] = I;
    if (!S.Port.Duplex) {
      for (Rank R : {O.Src, O.Dst})
        if (FirstSend[R] >= 0 && FirstRecv[R] >= 0)
          Diags.add(report::duplex(S, St, R, FirstSend[R], FirstRecv[R]));
    }
  }

  /// An op between two nodes takes one off-node send of the sender's node
  /// and one off-node receive of the receiver's node.
  void countNodePorts(unsigned St, size_t I, const Op &O) {
    if (NodeOf.empty() || NodeOf[O.Src] == NodeOf[O.Dst])
      return;
    uint32_t From = NodeOf[O.Src], To = NodeOf[O.Dst];
    for (uint32_t N : {From, To})
      if (NodeSendCount[N] == 0 && NodeRecvCount[N] == 0)
        TouchedNodes.push_back(N);
    NodePorts NP = S.nodePorts();
    if (++NodeSendCount[From] > NP.Send)
      Diags.add(report::nodeSendPort(S, St, From, NodeSendCount[From],
                                     FirstNodeSend[From], I));
    if (FirstNodeSend[From] < 0)
      FirstNodeSend[From] = I;
    if (++NodeRecvCount[To] > NP.Recv)
      Diags.add(report::nodeRecvPort(S, St, To, NodeRecvCount[To],
                                     FirstNodeRecv[To], I));
    if (FirstNodeRecv[To] < 0)
      FirstNodeRecv[To] = I;
  }

  void checkAvailable(unsigned St, size_t I, const Op &O, const Block &B) {
    if (Reduction)
      return checkPartialAvailable(St, I, O, B);
    const IntervalSet &H = Held[size_t(O.Src) * NB + B.Buf];
    if (H.contains(B.Lo, B.Hi)) {
      Pending.push_back({O.Dst, B, I});
      return;
    }
    Diags.add(report::availability(S, St, I, B, H.missingFrom(B.Lo, B.Hi)));
    // Deliver only what the sender really held.
    IntervalSet HeldPart = H.clippedTo(B.Lo, B.Hi);
    for (const Interval &R : HeldPart.intervals()) {
      Block Part = B;
      Part.Lo = R.Lo;
      Part.Hi = R.Hi;
      Pending.push_back({O.Dst, Part, I});
    }
  }

  void checkPartialAvailable(unsigned St, size_t I, const Op &O,
                             const Block &B) {
    uint32_t Want = Sets.intern(L.contrib(B.Contrib));
    std::vector<PartialMap::Seg> Held = Partial[O.Src].query(B.Lo, B.Hi);
    bool Exact = true;
    for (const PartialMap::Seg &Sg : Held) {
      if (Sg.Set == Want)
        continue;
      Exact = false;
      Diags.add(report::partialAvailability(S, St, I, O.Src, B.Buf, Sg.Lo,
                                            Sg.Hi, Sets.get(Want),
                                            Sets.get(Sg.Set)));
      break;
    }
    // Contrib now holds an id of Sets, not of the StepList. A failed send
    // delivers what the sender really held.
    Block Copy = B;
    if (Exact) {
      Copy.Contrib = Want;
      Pending.push_back({O.Dst, Copy, I});
      return;
    }
    for (const PartialMap::Seg &Sg : Held) {
      Copy.Lo = Sg.Lo;
      Copy.Hi = Sg.Hi;
      Copy.Contrib = Sg.Set;
      Pending.push_back({O.Dst, Copy, I});
    }
  }

  void deliver(unsigned St, const Delivery &D) {
    const Block &B = D.B;
    if (!Reduction) {
      Held[size_t(D.Dst) * NB + B.Buf].insert(B.Lo, B.Hi);
      return;
    }
    uint32_t C = B.Contrib;
    if (!B.Reduce) {
      Partial[D.Dst].update(B.Lo, B.Hi,
                            [&](const PartialMap::Seg &) { return C; });
      return;
    }
    Partial[D.Dst].update(B.Lo, B.Hi, [&](const PartialMap::Seg &Sg) {
      if (Sets.get(Sg.Set).intersects(Sets.get(C))) {
        RankSet Twice;
        for (const Interval &R : Sets.get(C).intervals())
          Twice.insert(Sets.get(Sg.Set).clippedTo(R.Lo, R.Hi));
        Diags.add(report::exactlyOnce(S, St, D.Dst, B.Buf, Sg.Lo, Sg.Hi,
                                      Twice, Sets.get(Sg.Set)));
      }
      if (!S.commutative() &&
          !report::keepsRankOrder(Sets.get(C), Sets.get(Sg.Set)))
        Diags.add(report::operandOrder(S, St, D.Op, D.Dst, B.Buf, Sg.Lo, Sg.Hi,
                                       Sets.get(C), Sets.get(Sg.Set)));
      return Sets.unite(Sg.Set, C);
    });
  }

  void checkCompleteness() {
    size_t Incomplete = 0;
    std::optional<std::pair<Rank, std::string>> First;
    for (const Holding &Q : S.spec().requirements(S)) {
      if (Q.Lo >= Q.Hi)
        continue;
      std::string Lack;
      if (Reduction) {
        for (const PartialMap::Seg &Sg : Partial[Q.R].query(Q.Lo, Q.Hi))
          if (Sg.Set != EveryRank) {
            Lack = report::lackOfContributors(S, Q.Buf, Sg.Lo, Sg.Hi,
                                              Sets.get(Sg.Set));
            break;
          }
      } else {
        IntervalSet Missing =
            Held[size_t(Q.R) * NB + Q.Buf].missingFrom(Q.Lo, Q.Hi);
        if (!Missing.empty())
          Lack = report::lackOfBytes(S, Q.Buf, Missing);
      }
      if (Lack.empty())
        continue;
      ++Incomplete;
      if (!First)
        First = {Q.R, Lack};
    }
    if (First)
      Diags.add(report::completeness(S, First->first, First->second,
                                     Incomplete));
  }
};

} // namespace

VerifyResult choreo::checkExplicit(const Schedule &S) {
  VerifyResult R;
  R.Diags = S.verify();
  if (!R.Diags.empty()) {
    R.St = VerifyResult::Status::Invalid;
    return R;
  }
  return ExplicitChecker(S).run();
}
