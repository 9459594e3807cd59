//===- verifier/ExplicitChecker.cpp - Exact replay of a schedule ----------===//
///
/// \file
/// The explicit engine: replays a schedule step by step over possession
/// state and decides every property exactly. Gather-type collectives keep an
/// IntervalSet of held bytes per (rank, buffer); reductions keep, per rank, a
/// partition of [0, n) into segments labelled with interned contributor sets
/// (ContribReplay, the replay the reduction generators annotate with).
/// All ops of a step read the state at the start of the step; what they
/// deliver becomes usable at the next step.
///
//===----------------------------------------------------------------------===//

#include "verifier/ContribReplay.h"
#include "verifier/Report.h"
#include "verifier/Verifier.h"

#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <unordered_set>

using namespace choreo;
using llvm::formatv;

namespace {

class ExplicitChecker {
public:
  explicit ExplicitChecker(const Schedule &S)
      : S(S), L(S.Steps), Bufs(S.buffers()), NB(Bufs.size()),
        Reduction(S.spec().isReduction()), Sets(S.Steps) {}

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
  // Reduction state (verifier/ContribReplay.h); the list's sets keep
  // their ids, the unions come after them.
  ContribTable Sets;
  std::optional<ContribReplay> Partial;
  uint32_t EveryRank = 0;
  /// Accumulators per rank (scan, exscan): the replay's index of rank r's
  /// accumulator a is r * NumAcc + a.
  unsigned NumAcc = 1;

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

  // Gather-type deliveries of the step (reductions queue theirs in Partial).
  struct Delivery {
    Rank Dst;
    Block B;
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
      // Every rank holds its whole vector with contributors {itself} in
      // every accumulator (exscan: in accumulator 0, the others empty). A
      // rank with no vector (an intergroup reduce's root group) holds
      // [0, n) combining nobody, so that it can receive.
      NumAcc = accumulatorsOf(L);
      Partial.emplace(S.NumRanks * NumAcc, Sets);
      uint64_t N = S.spec().vectorLength(S);
      std::vector<bool> Own(S.NumRanks);
      for (const Holding &H : Initial) {
        Own[H.R] = true;
        for (unsigned A = 0; A < NumAcc; ++A)
          Partial->hold(H.R * NumAcc + A, H.Hi,
                        A && S.Kind == Collective::Exscan
                            ? ContribReplay::None
                            : Sets.intern(RankSet(H.R, H.R + 1)));
      }
      for (Rank R = 0; R < S.NumRanks; ++R)
        if (!Own[R] && N)
          for (unsigned A = 0; A < NumAcc; ++A)
            Partial->hold(R * NumAcc + A, N, Sets.intern(RankSet()));
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
    if (Reduction)
      Partial->endStep([&](const ContribReplay::Delivery &D, uint64_t Lo,
                           uint64_t Hi,
                           uint32_t Had) { checkCombine(St, D, Lo, Hi, Had); });
    for (const Delivery &D : Pending)
      deliver(D);
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
    if (L.validLattice(B)) {
      // A lattice block, element by element (docs/format.md, "Lattice
      // blocks"); a failed send delivers the held elements' bytes.
      IntervalSet Missing, HeldPart;
      L.forEachRange(B, [&](uint64_t Lo, uint64_t Hi) {
        for (const Interval &X : H.missingFrom(Lo, Hi).intervals())
          Missing.insert(X.Lo, X.Hi);
        for (const Interval &X : H.clippedTo(Lo, Hi).intervals())
          HeldPart.insert(X.Lo, X.Hi);
      });
      if (Missing.empty()) {
        Pending.push_back({O.Dst, B});
        return;
      }
      Diags.add(report::availability(S, St, I, B, Missing));
      for (const Interval &R : HeldPart.intervals()) {
        Block Part;
        Part.Buf = B.Buf;
        Part.Lo = R.Lo;
        Part.Hi = R.Hi;
        Pending.push_back({O.Dst, Part});
      }
      return;
    }
    if (H.contains(B.Lo, B.Hi)) {
      Pending.push_back({O.Dst, B});
      return;
    }
    Diags.add(report::availability(S, St, I, B, H.missingFrom(B.Lo, B.Hi)));
    // Deliver only what the sender really held.
    IntervalSet HeldPart = H.clippedTo(B.Lo, B.Hi);
    for (const Interval &R : HeldPart.intervals()) {
      Block Part = B;
      Part.Lo = R.Lo;
      Part.Hi = R.Hi;
      Pending.push_back({O.Dst, Part});
    }
  }

  void checkPartialAvailable(unsigned St, size_t I, const Op &O,
                             const Block &B) {
    uint32_t Want = B.Contrib;
    struct Seg {
      uint64_t Lo, Hi;
      uint32_t Set;
    };
    llvm::SmallVector<Seg, 4> Segs;
    uint64_t At = B.Lo;
    bool Exact = true;
    auto Fail = [&](uint64_t Lo, uint64_t Hi, const RankSet &Had) {
      if (Exact)
        Diags.add(report::partialAvailability(S, St, I, O.Src, B.Buf, Lo, Hi,
                                              Sets.get(Want), Had));
      Exact = false;
    };
    Partial->forEachHeld(O.Src * NumAcc + B.fromAcc(), B.Lo, B.Hi,
                         [&](uint64_t Lo, uint64_t Hi, uint32_t Set) {
                           if (At < Lo) // an accumulator not written there
                             Fail(At, Lo, RankSet());
                           At = Hi;
                           Segs.push_back({Lo, Hi, Set});
                           if (!Sets.same(Set, Want))
                             Fail(Lo, Hi, Sets.get(Set));
                         });
    if (At < B.Hi)
      Fail(At, B.Hi, RankSet());
    // Contrib is an id of Sets (the list's own ids are kept). A failed send
    // delivers what the sender really held.
    Block Copy = B;
    for (unsigned A = 0; A < NumAcc; ++A) {
      if (!(B.intoMask() >> A & 1))
        continue;
      Rank To = O.Dst * NumAcc + A;
      if (Exact) {
        Copy.Contrib = Want;
        Partial->send(To, Copy, I);
        continue;
      }
      for (const Seg &Sg : Segs) {
        Copy.Lo = Sg.Lo;
        Copy.Hi = Sg.Hi;
        Copy.Contrib = Sg.Set;
        Partial->send(To, Copy, I);
      }
    }
  }

  void deliver(const Delivery &D) {
    const Block &B = D.B;
    IntervalSet &H = Held[size_t(D.Dst) * NB + B.Buf];
    L.forEachRange(B, [&](uint64_t Lo, uint64_t Hi) { H.insert(Lo, Hi); });
  }

  /// A combining delivery meets a segment holding Had: every contribution
  /// once, and with a non-commutative operator in rank order.
  void checkCombine(unsigned St, const ContribReplay::Delivery &D, uint64_t Lo,
                    uint64_t Hi, uint32_t Had) {
    const RankSet &In = Sets.get(D.B.Contrib), &Old = Sets.get(Had);
    Rank Dst = D.Dst / NumAcc;
    if (Old.intersects(In)) {
      RankSet Twice;
      for (const Interval &R : In.intervals())
        Twice.insert(Old.clippedTo(R.Lo, R.Hi));
      Diags.add(report::exactlyOnce(S, St, Dst, D.B.Buf, Lo, Hi, Twice, Old));
    }
    if (!S.commutative() && !report::keepsRankOrder(In, Old))
      Diags.add(
          report::operandOrder(S, St, D.Op, Dst, D.B.Buf, Lo, Hi, In, Old));
  }

  /// Scan, exscan: some accumulator of Q.R holds all of Q's bytes combined
  /// over exactly the wanted prefix; else what accumulator 0 lacks.
  std::string lackOfPrefix(const Holding &Q) {
    uint32_t Want = Sets.intern(S.spec().contributorsOf(S, Q.R));
    std::string Lack;
    for (unsigned A = NumAcc; A-- > 0;) {
      uint64_t At = Q.Lo;
      Lack.clear();
      Partial->forEachHeld(Q.R * NumAcc + A, Q.Lo, Q.Hi,
                           [&](uint64_t Lo, uint64_t Hi, uint32_t Set) {
                             if (Lack.empty() && At < Lo)
                               Lack = report::lackOfContributors(
                                   S, Q.R, Q.Buf, At, Lo, RankSet());
                             if (Lack.empty() && !Sets.same(Set, Want))
                               Lack = report::lackOfContributors(
                                   S, Q.R, Q.Buf, Lo, Hi, Sets.get(Set));
                             At = Hi;
                           });
      if (Lack.empty() && At < Q.Hi)
        Lack = report::lackOfContributors(S, Q.R, Q.Buf, At, Q.Hi, RankSet());
      if (Lack.empty())
        return Lack;
    }
    return Lack;
  }

  /// Per rank (its requirements are consecutive: an alltoall's column is
  /// several), what it lacks: the first contributor set short of everyone,
  /// or the bytes of the first buffer it misses.
  void checkCompleteness() {
    size_t Incomplete = 0;
    std::optional<std::pair<Rank, std::string>> First;
    std::vector<Holding> Reqs = S.spec().requirements(S);
    for (size_t I = 0, E = 0; I < Reqs.size(); I = E) {
      for (E = I + 1; E < Reqs.size() && Reqs[E].R == Reqs[I].R; ++E)
        ;
      std::string Lack;
      std::optional<BufferId> MissingIn;
      IntervalSet Missing;
      for (const Holding &Q : llvm::ArrayRef(Reqs).slice(I, E - I)) {
        if (Q.Lo >= Q.Hi)
          continue;
        if (Reduction) {
          if (NumAcc > 1 || S.spec().usesAccumulators()) {
            Lack = lackOfPrefix(Q);
            continue;
          }
          if (S.spec().Intergroup) // the other group's
            EveryRank = Sets.intern(S.spec().contributorsOf(S, Q.R));
          Partial->forEachHeld(Q.R, Q.Lo, Q.Hi,
                               [&](uint64_t Lo, uint64_t Hi, uint32_t Set) {
                                 if (!Sets.same(Set, EveryRank) && Lack.empty())
                                   Lack = report::lackOfContributors(
                                       S, Q.R, Q.Buf, Lo, Hi, Sets.get(Set));
                               });
          continue;
        }
        if (MissingIn && *MissingIn != Q.Buf)
          continue;
        IntervalSet M = Held[size_t(Q.R) * NB + Q.Buf].missingFrom(Q.Lo, Q.Hi);
        if (M.empty())
          continue;
        MissingIn = Q.Buf;
        Missing.insert(M);
      }
      if (MissingIn)
        Lack = report::lackOfBytes(S, *MissingIn, Missing);
      if (Lack.empty())
        continue;
      ++Incomplete;
      if (!First)
        First = {Reqs[I].R, Lack};
    }
    if (First)
      Diags.add(
          report::completeness(S, First->first, First->second, Incomplete));
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
