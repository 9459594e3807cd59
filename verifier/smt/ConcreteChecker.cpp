//===- verifier/smt/ConcreteChecker.cpp - Z3 engine for schedules ---------===//
///
/// \file
/// The SMT engine for a concrete schedule: the same properties as the
/// explicit engine, encoded as constraints and proved by refutation.
///
/// Each buffer is cut into atoms at every boundary the schedule mentions.
/// Possession is a Boolean per (rank, atom), redefined after each step in
/// which the rank receives the atom: held' = held or (the sender's held), so
/// a send delivers only what its sender holds. Reductions keep a bit-vector
/// of contributors per (rank, atom): combining ORs the sender's vector in,
/// replacing copies it. Every property instance is a named Boolean,
/// `avail_s3_o7_r5_A24` and the like, defined as its condition; the
/// assertion "some named property is false" is refuted (unsat: proved). On
/// sat, the model says which properties fail, and the failures are reported
/// in the explicit engine's words (verifier/Report.h).
///

#include "verifier/ContribReplay.h"
#include "verifier/Report.h"
#include "verifier/smt/ConcreteEncoding.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace choreo;
using namespace choreo::smt;
using llvm::formatv;

namespace {

/// At most K of E hold. A port count of at least |E| holds trivially, and
/// is not handed to Z3's pseudo-Boolean constraint, whose bound is a signed
/// int (ports.send >= 2^31 was a solver error).
z3::expr atMost(const z3::expr_vector &E, uint64_t K) {
  if (K >= E.size())
    return E.ctx().bool_val(true);
  return z3::atmost(E, unsigned(K));
}

} // namespace

void ConcreteEncoder::makeAtoms() {
  Bounds.assign(NB, {});
  for (BufferId B = 0; B < NB; ++B) {
    Bounds[B].push_back(0);
    Bounds[B].push_back(Bufs[B].Length);
  }
  Initial = S.spec().initialHoldings(S);
  for (const Holding &H : Initial) {
    Bounds[H.Buf].push_back(H.Lo);
    Bounds[H.Buf].push_back(H.Hi);
  }
  for (const Op &O : L.allOps())
    for (const Block &B : L.blocks(O)) {
      Bounds[B.Buf].push_back(B.Lo);
      Bounds[B.Buf].push_back(B.Hi);
    }
  Reqs = S.spec().requirements(S);
  for (const Holding &Q : Reqs) {
    Bounds[Q.Buf].push_back(Q.Lo);
    Bounds[Q.Buf].push_back(Q.Hi);
  }
  for (std::vector<uint64_t> &V : Bounds) {
    std::sort(V.begin(), V.end());
    V.erase(std::unique(V.begin(), V.end()), V.end());
  }
}

z3::expr ConcreteEncoder::name(const std::string &N) {
  z3::expr P = C.bool_const(N.c_str());
  Props.push_back(P);
  return P;
}

z3::expr ConcreteEncoder::contribVector(const RankSet &Set) {
  // Bit r (least significant first) set for every contributing rank r.
  std::unique_ptr<bool[]> Bits(new bool[Width]());
  for (const Interval &I : Set.intervals())
    for (uint64_t R = I.Lo; R < I.Hi && R < Width; ++R)
      Bits[R] = true;
  return C.bv_val(Width, Bits.get());
}

void ConcreteEncoder::initState() {
  NumAcc = Reduction ? accumulatorsOf(L) : 1;
  State.assign(S.NumRanks * NumAcc, std::vector<std::vector<z3::expr>>(NB));
  // Nothing held, then the collective's initial holdings: a contributor
  // vector {R} for reductions, true for bytes.
  if (Reduction)
    Width = std::max<unsigned>(1, S.NumRanks);
  z3::expr None = Reduction ? contribVector(RankSet()) : C.bool_val(false);
  for (Rank R = 0; R < S.NumRanks * NumAcc; ++R)
    for (BufferId B = 0; B < NB; ++B)
      State[R][B].assign(Bounds[B].size() - 1, None);
  for (const Holding &H : Initial) {
    z3::expr Own =
        Reduction ? contribVector(RankSet(H.R, H.R + 1)) : C.bool_val(true);
    for (size_t A = atomOf(H.Buf, H.Lo); A < atomOf(H.Buf, H.Hi); ++A)
      for (unsigned Acc = 0; Acc < NumAcc; ++Acc)
        if (Acc == 0 || S.Kind != Collective::Exscan)
          State[H.R * NumAcc + Acc][H.Buf][A] = Own;
  }
}

/// node(r) = the node of rank r, for the node-port constraints.
void ConcreteEncoder::initNodes() {
  if (!S.hasNodes())
    return;
  NodeOf = S.nodeOfRank();
  NodeFn = C.function("node", C.int_sort(), C.int_sort());
  for (Rank R = 0; R < S.NumRanks; ++R)
    Defs.push_back((*NodeFn)(C.int_val(R)) == C.int_val(NodeOf[R]));
}

/// Per node of the step's ops: its off-node sends (an op whose sender is
/// on the node and whose receiver is not) and receives, at most
/// node_ports.
void ConcreteEncoder::encodeNodePorts(unsigned St, llvm::ArrayRef<Op> Ops) {
  if (NodeOf.empty())
    return;
  std::map<uint32_t, std::pair<z3::expr_vector, z3::expr_vector>> Ends;
  auto EndsOf =
      [&](uint32_t N) -> std::pair<z3::expr_vector, z3::expr_vector> & {
    auto It = Ends.find(N);
    if (It == Ends.end())
      It = Ends.emplace(N,
                        std::make_pair(z3::expr_vector(C), z3::expr_vector(C)))
               .first;
    return It->second;
  };
  for (const Op &O : Ops) {
    z3::expr From = (*NodeFn)(C.int_val(O.Src)),
             To = (*NodeFn)(C.int_val(O.Dst));
    EndsOf(NodeOf[O.Src]).first.push_back(From != To);
    EndsOf(NodeOf[O.Dst]).second.push_back(From != To);
  }
  NodePorts NP = S.nodePorts();
  for (auto &[N, E] : Ends) {
    if (E.first.size()) {
      z3::expr P = name(formatv("nsend_s{0}_n{1}", St, N));
      Defs.push_back(P == atMost(E.first, NP.Send));
      NodeSends.push_back({St, N, P});
    }
    if (E.second.size()) {
      z3::expr P = name(formatv("nrecv_s{0}_n{1}", St, N));
      Defs.push_back(P == atMost(E.second, NP.Recv));
      NodeRecvs.push_back({St, N, P});
    }
  }
}

/// X is one non-empty run of ones: adding its lowest set bit carries
/// through the run and clears it.
z3::expr ConcreteEncoder::isRun(const z3::expr &X) {
  z3::expr Zero = C.bv_val(0, Width);
  return X != Zero && ((X + (X & -X)) & X) == Zero;
}

/// A fresh constant defined as E (keeps the formulas shallow).
z3::expr ConcreteEncoder::define(const z3::expr &E, const char *Base) {
  z3::expr V =
      E.is_bool()
          ? C.bool_const(formatv("{0}!{1}", Base, Fresh++).str().c_str())
          : C.bv_const(formatv("{0}!{1}", Base, Fresh++).str().c_str(), Width);
  Defs.push_back(V == E);
  return V;
}

bool ConcreteEncoder::isLink(Rank U, Rank V) const {
  switch (S.Topo.K) {
  case Topology::Kind::Full:
    return true;
  case Topology::Kind::Ring: {
    uint64_t N = S.NumRanks;
    auto Pos = [&](Rank R) -> uint64_t {
      if (S.Topo.Order.empty())
        return R;
      return std::find(S.Topo.Order.begin(), S.Topo.Order.end(), R) -
             S.Topo.Order.begin();
    };
    uint64_t D = (Pos(U) + N - Pos(V)) % N;
    return D == 1 || D == N - 1;
  }
  case Topology::Kind::Graph:
    for (auto [A, B] : S.Topo.Edges)
      if ((A == U && B == V) || (A == V && B == U))
        return true;
    return false;
  }
  return false;
}

void ConcreteEncoder::encodeStep(unsigned St) {
  llvm::ArrayRef<Op> Ops = L.step(St);
  // Ports: per rank, its sends and receives of the step as integer
  // equalities over the ops' endpoints.
  std::map<Rank, std::pair<z3::expr_vector, z3::expr_vector>> Ends;
  auto EndsOf = [&](Rank R) -> std::pair<z3::expr_vector, z3::expr_vector> & {
    auto It = Ends.find(R);
    if (It == Ends.end())
      It = Ends.emplace(R,
                        std::make_pair(z3::expr_vector(C), z3::expr_vector(C)))
               .first;
    return It->second;
  };
  for (const Op &O : Ops) {
    z3::expr Src = C.int_val(O.Src), Dst = C.int_val(O.Dst);
    EndsOf(O.Src).first.push_back(Src == C.int_val(O.Src));
    EndsOf(O.Dst).second.push_back(Dst == C.int_val(O.Dst));
  }
  for (auto &[R, E] : Ends) {
    if (E.first.size()) {
      z3::expr N = name(formatv("send_s{0}_r{1}", St, R));
      Defs.push_back(N == atMost(E.first, S.Port.Send));
      Sends.push_back({St, R, N});
    }
    if (E.second.size()) {
      z3::expr N = name(formatv("recv_s{0}_r{1}", St, R));
      Defs.push_back(N == atMost(E.second, S.Port.Recv));
      Recvs.push_back({St, R, N});
    }
    if (!S.Port.Duplex && E.first.size() && E.second.size()) {
      z3::expr N = name(formatv("duplex_s{0}_r{1}", St, R));
      Defs.push_back(N == !(z3::mk_or(E.first) && z3::mk_or(E.second)));
      Duplexes.push_back({St, R, N});
    }
  }
  encodeNodePorts(St, Ops);
  // Links and availability read the state at the start of the step.
  struct Delivery {
    size_t Op, BlockIdx;
    Rank Dst;
    const Block *B;
    std::vector<z3::expr> Values; // per atom of the block
    unsigned Acc;                 // the receiver's accumulator
  };
  std::vector<Delivery> Deliveries;
  for (size_t I = 0; I < Ops.size(); ++I) {
    const Op &O = Ops[I];
    z3::expr LN = name(formatv("link_s{0}_o{1}", St, I));
    Defs.push_back(LN == C.bool_val(isLink(O.Src, O.Dst)));
    Links.push_back({St, I, LN});
    llvm::ArrayRef<Block> Bs = L.blocks(O);
    for (size_t K = 0; K < Bs.size(); ++K) {
      const Block &B = Bs[K];
      std::vector<z3::expr> SrcAtoms, Conds;
      const auto &From = State[O.Src * NumAcc + B.fromAcc()][B.Buf];
      for (size_t A = atomOf(B.Buf, B.Lo); A < atomOf(B.Buf, B.Hi); ++A) {
        SrcAtoms.push_back(From[A]);
        Conds.push_back(Reduction
                            ? From[A] == contribVector(L.contrib(B.Contrib))
                            : From[A]);
      }
      z3::expr_vector CV(C);
      for (const z3::expr &X : Conds)
        CV.push_back(X);
      z3::expr N = name(formatv("avail_s{0}_o{1}_r{2}_{3}{4}", St, I, O.Src,
                                Bufs[B.Buf].Name, B.Lo));
      Defs.push_back(N == z3::mk_and(CV));
      Avails.push_back({St, I, K, N, SrcAtoms});
      for (unsigned Acc = 0; Acc < NumAcc; ++Acc)
        if (B.intoMask() >> Acc & 1)
          Deliveries.push_back({I, K, O.Dst, &B, SrcAtoms, Acc});
    }
  }
  // Deliveries, in op order, after the step.
  for (const Delivery &D : Deliveries) {
    const Block &B = *D.B;
    size_t First = atomOf(B.Buf, B.Lo);
    for (size_t K = 0; K < D.Values.size(); ++K) {
      z3::expr &Cur = State[D.Dst * NumAcc + D.Acc][B.Buf][First + K];
      std::string AccTag = NumAcc > 1 ? formatv("_a{0}", D.Acc).str() : "";
      if (!Reduction) {
        Cur = define(Cur || D.Values[K], "held");
        continue;
      }
      if (!B.Reduce) {
        Cur = define(D.Values[K], "part");
        continue;
      }
      z3::expr N =
          name(formatv("once_s{0}_o{1}_r{2}_{3}{4}{5}", St, D.Op, D.Dst,
                       Bufs[B.Buf].Name, Bounds[B.Buf][First + K], AccTag));
      Defs.push_back(N == ((Cur & D.Values[K]) == C.bv_val(0, Width)));
      Onces.push_back({St, D.Op, D.BlockIdx, First + K, D.Dst, B.Buf, N, Cur,
                       D.Values[K], std::nullopt});
      if (!S.commutative()) {
        // Adjacent intervals: each is one run, and so is their disjoint
        // union (an accumulator not yet written combines nothing).
        z3::expr P =
            name(formatv("order_s{0}_o{1}_r{2}_{3}{4}{5}", St, D.Op, D.Dst,
                         Bufs[B.Buf].Name, Bounds[B.Buf][First + K], AccTag));
        z3::expr Zero = C.bv_val(0, Width);
        Defs.push_back(P == (Cur == Zero || (isRun(Cur) && isRun(D.Values[K]) &&
                                             (Cur & D.Values[K]) == Zero &&
                                             isRun(Cur | D.Values[K]))));
        Onces.back().Order = P;
      }
      Cur = define(Cur | D.Values[K], "part");
    }
  }
}

void ConcreteEncoder::encodeCompleteness() {
  z3::expr All =
      Reduction ? contribVector(RankSet(0, S.NumRanks)) : C.bool_val(true);
  for (size_t Q = 0; Q < Reqs.size(); ++Q) {
    const Holding &Rq = Reqs[Q];
    if (Rq.Lo >= Rq.Hi)
      continue;
    if (Reduction && S.spec().Intergroup) // the other group's vectors
      All = contribVector(S.spec().contributorsOf(S, Rq.R));
    z3::expr_vector CV(C);
    if (S.spec().usesAccumulators()) {
      // Some accumulator holds every byte combined over the wanted prefix.
      z3::expr Want = contribVector(S.spec().contributorsOf(S, Rq.R));
      for (unsigned Acc = 0; Acc < NumAcc; ++Acc) {
        z3::expr_vector AV(C);
        for (size_t A = atomOf(Rq.Buf, Rq.Lo); A < atomOf(Rq.Buf, Rq.Hi); ++A)
          AV.push_back(State[Rq.R * NumAcc + Acc][Rq.Buf][A] == Want);
        CV.push_back(z3::mk_and(AV));
      }
    } else {
      for (size_t A = atomOf(Rq.Buf, Rq.Lo); A < atomOf(Rq.Buf, Rq.Hi); ++A)
        CV.push_back(Reduction ? State[Rq.R * NumAcc][Rq.Buf][A] == All
                               : State[Rq.R * NumAcc][Rq.Buf][A]);
    }
    z3::expr N =
        name(formatv("complete_r{0}_{1}{2}", Rq.R, Bufs[Rq.Buf].Name, Rq.Lo));
    Defs.push_back(
        N == (S.spec().usesAccumulators() ? z3::mk_or(CV) : z3::mk_and(CV)));
    Completes.push_back({Q, N});
  }
}

VerifyResult ConcreteEncoder::solve() {
  VerifyResult R;
  Solver Sv(Ses);
  for (const z3::expr &D : Defs)
    Sv.add(D);
  // Refutation: some named property fails.
  z3::expr_vector Neg(C);
  for (unsigned I = 0; I < Props.size(); ++I)
    Neg.push_back(!Props[I]);
  Sv.add(z3::mk_or(Neg));
  Result Res = Sv.check();
  switch (Res.K) {
  case Result::Kind::Proved:
    R.St = VerifyResult::Status::Proved;
    return R;
  case Result::Kind::Unknown:
  case Result::Kind::Timeout:
    R.St = VerifyResult::Status::Unknown;
    R.Diags.push_back(
        {"solver", "the SMT engine could not decide: " + Res.Why});
    return R;
  case Result::Kind::Error:
    R.St = VerifyResult::Status::Unknown;
    R.Diags.push_back({"solver", "solver error: " + Res.Why});
    return R;
  case Result::Kind::Refuted:
    break;
  }
  DiagnosticList Diags;
  decode(*Res.Model, Diags);
  R.Diags = Diags.take();
  R.St = R.Diags.empty() ? VerifyResult::Status::Unknown
                         : VerifyResult::Status::Failed;
  if (R.Diags.empty())
    R.Diags.push_back({"solver", "the SMT engine found a failing property "
                                 "it cannot name"});
  return R;
}

VerifyResult choreo::checkSmt(const Schedule &S, const SmtOptions &O) {
  VerifyResult R;
  R.Diags = S.verify();
  if (!R.Diags.empty()) {
    R.St = VerifyResult::Status::Invalid;
    return R;
  }
  if (S.Steps.numLattices()) {
    // Lattice blocks (docs/format.md): the engine reads byte ranges, so it
    // proves their expansion (its diagnostics name the expanded blocks).
    Schedule E = S;
    E.Steps.expandLattices();
    return checkSmt(E, O);
  }
  try {
    return ConcreteEncoder(S, O).run();
  } catch (const z3::exception &E) {
    R.St = VerifyResult::Status::Unknown;
    R.Diags = {{"solver", std::string("solver error: ") + E.msg()}};
    return R;
  }
}
