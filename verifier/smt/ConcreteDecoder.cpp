//===- verifier/smt/ConcreteDecoder.cpp - Failing models, in words --------===//
///
/// \file
/// The SMT engine's failing model decoded into the explicit engine's
/// diagnostics (verifier/Report.h): the named properties the model makes
/// false, in the order and with the first-failure-per-kind rule of
/// checkExplicit, each with the step, rank and bytes the explicit engine
/// would name.
///
//===----------------------------------------------------------------------===//

#include "verifier/Report.h"
#include "verifier/smt/ConcreteEncoding.h"

#include <map>

using namespace choreo;
using namespace choreo::smt;

RankSet ConcreteEncoder::setOf(z3::model &M, const z3::expr &V) const {
  z3::expr Val = M.eval(V, true);
  RankSet Out;
  for (unsigned R = 0; R < Width; ++R) {
    z3::expr Bit = Val.extract(R, R);
    if (M.eval(Bit, true).get_numeral_uint() == 1)
      Out.insert(R, R + 1);
  }
  return Out;
}

/// Maximal runs of atoms [First, End) with equal contributor sets.
std::vector<std::tuple<uint64_t, uint64_t, RankSet>>
ConcreteEncoder::runs(z3::model &M, BufferId B, size_t First,
                      const std::vector<z3::expr> &Values) const {
  std::vector<std::tuple<uint64_t, uint64_t, RankSet>> Out;
  for (size_t K = 0; K < Values.size(); ++K) {
    RankSet Set = setOf(M, Values[K]);
    uint64_t Lo = Bounds[B][First + K], Hi = Bounds[B][First + K + 1];
    if (!Out.empty() && std::get<1>(Out.back()) == Lo &&
        std::get<2>(Out.back()) == Set)
      std::get<1>(Out.back()) = Hi;
    else
      Out.push_back({Lo, Hi, Set});
  }
  return Out;
}

void ConcreteEncoder::decode(z3::model &M, DiagnosticList &Diags) {
  // Ports, duplex, topology and availability interleave in op order in
  // the explicit engine; the first failure of each kind is the earliest.
  for (unsigned St = 0; St < L.numSteps(); ++St)
    decodeStep(M, St, Diags);
  decodeCompleteness(M, Diags);
}

void ConcreteEncoder::decodeStep(z3::model &M, unsigned St,
                                 DiagnosticList &Diags) {
  llvm::ArrayRef<Op> Ops = L.step(St);
  auto Fails = [&](const std::vector<Port> &V, Rank R) {
    for (const Port &P : V)
      if (P.St == St && P.R == R)
        return !isTrue(M, P.Name);
    return false;
  };
  std::map<Rank, unsigned> SendCount, RecvCount;
  std::map<Rank, int64_t> FirstSend, FirstRecv;
  std::map<uint32_t, unsigned> NodeSendCount, NodeRecvCount;
  std::map<uint32_t, int64_t> FirstNodeSend, FirstNodeRecv;
  NodePorts NP = S.nodePorts();
  for (size_t I = 0; I < Ops.size(); ++I) {
    const Op &O = Ops[I];
    if (++SendCount[O.Src] > S.Port.Send && Fails(Sends, O.Src))
      Diags.add(report::sendPort(S, St, O.Src, SendCount[O.Src],
                                 FirstSend[O.Src], I));
    if (!FirstSend.count(O.Src))
      FirstSend[O.Src] = I;
    if (++RecvCount[O.Dst] > S.Port.Recv && Fails(Recvs, O.Dst))
      Diags.add(report::recvPort(S, St, O.Dst, RecvCount[O.Dst],
                                 FirstRecv[O.Dst], I));
    if (!FirstRecv.count(O.Dst))
      FirstRecv[O.Dst] = I;
    if (!S.Port.Duplex)
      for (Rank R : {O.Src, O.Dst})
        if (FirstSend.count(R) && FirstRecv.count(R) && Fails(Duplexes, R))
          Diags.add(report::duplex(S, St, R, FirstSend[R], FirstRecv[R]));
    if (!NodeOf.empty() && NodeOf[O.Src] != NodeOf[O.Dst]) {
      uint32_t From = NodeOf[O.Src], To = NodeOf[O.Dst];
      if (++NodeSendCount[From] > NP.Send && Fails(NodeSends, From))
        Diags.add(report::nodeSendPort(S, St, From, NodeSendCount[From],
                                       FirstNodeSend[From], I));
      if (!FirstNodeSend.count(From))
        FirstNodeSend[From] = I;
      if (++NodeRecvCount[To] > NP.Recv && Fails(NodeRecvs, To))
        Diags.add(report::nodeRecvPort(S, St, To, NodeRecvCount[To],
                                       FirstNodeRecv[To], I));
      if (!FirstNodeRecv.count(To))
        FirstNodeRecv[To] = I;
    }
    for (const Link &Lk : Links)
      if (Lk.St == St && Lk.Op == I && !isTrue(M, Lk.Name))
        Diags.add(report::topology(S, St, I));
    for (const Avail &A : Avails) {
      if (A.St != St || A.Op != I || isTrue(M, A.Name))
        continue;
      const Block &B = L.blocks(O)[A.BlockIdx];
      size_t First = atomOf(B.Buf, B.Lo);
      if (Reduction) {
        RankSet Want = L.contrib(B.Contrib);
        for (auto &[Lo, Hi, Set] : runs(M, B.Buf, First, A.SrcAtoms))
          if (!(Set == Want)) {
            Diags.add(report::partialAvailability(S, St, I, O.Src, B.Buf, Lo,
                                                  Hi, Want, Set));
            break;
          }
        continue;
      }
      IntervalSet Missing;
      for (size_t K = 0; K < A.SrcAtoms.size(); ++K)
        if (!isTrue(M, A.SrcAtoms[K]))
          Missing.insert(Bounds[B.Buf][First + K],
                         Bounds[B.Buf][First + K + 1]);
      Diags.add(report::availability(S, St, I, B, Missing));
    }
  }
  // Exactly once and operand order: in delivery order, the first failing
  // run of atoms of each.
  for (const Once &On : Onces) {
    if (On.St != St)
      continue;
    if (!Diags.hasKind(property::ExactlyOnce) && !isTrue(M, On.Name))
      decodeOnce(M, On, Diags);
    if (On.Order && !Diags.hasKind(property::OperandOrder) &&
        !isTrue(M, *On.Order))
      decodeOrder(M, On, Diags);
  }
}

/// The explicit engine combines segment by segment: a segment is a run of
/// atoms of one delivered block over which both the receiver's set and the
/// incoming set stay the same. The run around On's atom: its bytes, the
/// receiver's set and the incoming set.
std::tuple<uint64_t, uint64_t, RankSet, RankSet>
ConcreteEncoder::segmentOf(z3::model &M, const Once &On) {
  RankSet Held = setOf(M, On.Before), In = setOf(M, On.Incoming);
  auto Same = [&](const Once &X) {
    return X.St == On.St && X.Op == On.Op && X.BlockIdx == On.BlockIdx &&
           setOf(M, X.Before) == Held && setOf(M, X.Incoming) == In;
  };
  // The Onces of one delivered block are consecutive, one per atom.
  size_t Lo = On.Atom, Hi = On.Atom + 1;
  for (const Once *X = &On;
       X != Onces.data() && (X - 1)->Atom + 1 == Lo && Same(*(X - 1)); --X)
    --Lo;
  for (const Once *X = &On + 1;
       X != Onces.data() + Onces.size() && X->Atom == Hi && Same(*X); ++X)
    ++Hi;
  return {Bounds[On.Buf][Lo], Bounds[On.Buf][Hi], Held, In};
}

void ConcreteEncoder::decodeOnce(z3::model &M, const Once &On,
                                 DiagnosticList &Diags) {
  auto [Lo, Hi, Held, In] = segmentOf(M, On);
  RankSet Twice;
  for (const Interval &I : In.intervals())
    Twice.insert(Held.clippedTo(I.Lo, I.Hi));
  Diags.add(report::exactlyOnce(S, On.St, On.Dst, On.Buf, Lo, Hi, Twice, Held));
}

void ConcreteEncoder::decodeOrder(z3::model &M, const Once &On,
                                  DiagnosticList &Diags) {
  auto [Lo, Hi, Held, In] = segmentOf(M, On);
  Diags.add(
      report::operandOrder(S, On.St, On.Op, On.Dst, On.Buf, Lo, Hi, In, Held));
}

/// Scan, exscan: what accumulator 0 of Q.R lacks (no accumulator holds
/// the prefix), in the explicit engine's words.
std::string ConcreteEncoder::lackOfPrefix(z3::model &M, const Holding &Q) {
  RankSet Want = S.spec().contributorsOf(S, Q.R);
  size_t A0 = atomOf(Q.Buf, Q.Lo), A1 = atomOf(Q.Buf, Q.Hi);
  std::vector<z3::expr> Final(State[Q.R * NumAcc][Q.Buf].begin() + A0,
                              State[Q.R * NumAcc][Q.Buf].begin() + A1);
  for (auto &[Lo, Hi, Set] : runs(M, Q.Buf, A0, Final))
    if (!(Set == Want))
      return report::lackOfContributors(S, Q.R, Q.Buf, Lo, Hi, Set);
  return "";
}

/// Per rank (its requirements are consecutive: an alltoall's column is
/// several), in the explicit engine's words: the first contributor set
/// short of everyone, or the bytes of the first buffer it misses.
void ConcreteEncoder::decodeCompleteness(z3::model &M, DiagnosticList &Diags) {
  size_t Incomplete = 0;
  std::optional<std::pair<Rank, std::string>> First;
  for (size_t I = 0, E = 0; I < Completes.size(); I = E) {
    Rank R = Reqs[Completes[I].Req].R;
    for (E = I + 1; E < Completes.size() && Reqs[Completes[E].Req].R == R; ++E)
      ;
    std::string Lack;
    std::optional<BufferId> MissingIn;
    IntervalSet Missing;
    bool Failed = false;
    for (size_t K = I; K < E; ++K) {
      if (isTrue(M, Completes[K].Name))
        continue;
      Failed = true;
      const Holding &Q = Reqs[Completes[K].Req];
      if (S.spec().usesAccumulators()) {
        if (Lack.empty())
          Lack = lackOfPrefix(M, Q);
        continue;
      }
      size_t A0 = atomOf(Q.Buf, Q.Lo), A1 = atomOf(Q.Buf, Q.Hi);
      std::vector<z3::expr> Final(State[Q.R][Q.Buf].begin() + A0,
                                  State[Q.R][Q.Buf].begin() + A1);
      if (Reduction) {
        RankSet All = S.spec().contributorsOf(S, Q.R);
        for (auto &[Lo, Hi, Set] : runs(M, Q.Buf, A0, Final))
          if (!(Set == All) && Lack.empty())
            Lack = report::lackOfContributors(S, Q.R, Q.Buf, Lo, Hi, Set);
        continue;
      }
      if (MissingIn && *MissingIn != Q.Buf)
        continue;
      MissingIn = Q.Buf;
      for (size_t X = 0; X < Final.size(); ++X)
        if (!isTrue(M, Final[X]))
          Missing.insert(Bounds[Q.Buf][A0 + X], Bounds[Q.Buf][A0 + X + 1]);
    }
    if (MissingIn)
      Lack = report::lackOfBytes(S, *MissingIn, Missing);
    if (!Failed)
      continue;
    ++Incomplete;
    if (!First)
      First = {R, Lack};
  }
  if (First)
    Diags.add(report::completeness(S, First->first, First->second, Incomplete));
}
