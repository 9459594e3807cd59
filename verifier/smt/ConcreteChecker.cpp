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
//===----------------------------------------------------------------------===//

#include "verifier/Report.h"
#include "verifier/smt/Smt.h"
#include "verifier/smt/Solver.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

using namespace choreo;
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

namespace {

class ConcreteEncoder {
public:
  ConcreteEncoder(const Schedule &S, const SmtOptions &O)
      : S(S), L(S.Steps), Bufs(S.buffers()), NB(Bufs.size()),
        Reduction(S.spec().isReduction()), Ses(smt::Budget{O.TimeoutMs, std::nullopt}),
        C(Ses.ctx()), Props(C) {}

  VerifyResult run() {
    makeAtoms();
    initNodes();
    initState();
    for (unsigned St = 0; St < L.numSteps(); ++St)
      encodeStep(St);
    encodeCompleteness();
    return solve();
  }

private:
  const Schedule &S;
  const StepList &L;
  std::vector<Buffer> Bufs;
  size_t NB;
  bool Reduction;
  smt::Session Ses;
  z3::context &C;
  z3::expr_vector Props;
  std::vector<z3::expr> Defs;

  // Atom boundaries per buffer; atom k of buffer b is [Bounds[b][k],
  // Bounds[b][k+1]).
  std::vector<std::vector<uint64_t>> Bounds;
  // Current state per (rank, buffer, atom): Bool or BV.
  std::vector<std::vector<std::vector<z3::expr>>> State;
  unsigned Width = 1;
  unsigned Fresh = 0;

  // Named properties, to be decoded after a sat answer.
  struct Avail {
    unsigned St;
    size_t Op, BlockIdx;
    z3::expr Name;
    std::vector<z3::expr> SrcAtoms; // the sender's state per atom
  };
  struct Port {
    unsigned St;
    Rank R;
    z3::expr Name;
  };
  struct Link {
    unsigned St;
    size_t Op;
    z3::expr Name;
  };
  struct Once {
    unsigned St;
    size_t Op, BlockIdx, Atom;
    Rank Dst;
    BufferId Buf;
    z3::expr Name, Before, Incoming;
    /// Non-commutative reductions: the two sets are adjacent intervals.
    std::optional<z3::expr> Order;
  };
  struct Complete {
    size_t Req;
    z3::expr Name;
  };
  std::vector<Avail> Avails;
  std::vector<Port> Sends, Recvs, Duplexes;
  // Node ports: Port::R is the node. NodeOf is empty without `nodes`.
  std::vector<Port> NodeSends, NodeRecvs;
  std::vector<uint32_t> NodeOf;
  std::optional<z3::func_decl> NodeFn;
  std::vector<Link> Links;
  std::vector<Once> Onces;
  std::vector<Complete> Completes;
  std::vector<Holding> Initial, Reqs;

  size_t atomOf(BufferId B, uint64_t X) const {
    return std::lower_bound(Bounds[B].begin(), Bounds[B].end(), X) -
           Bounds[B].begin();
  }

  void makeAtoms() {
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

  z3::expr name(const std::string &N) {
    z3::expr P = C.bool_const(N.c_str());
    Props.push_back(P);
    return P;
  }

  z3::expr contribVector(const RankSet &Set) {
    // Bit r (least significant first) set for every contributing rank r.
    std::unique_ptr<bool[]> Bits(new bool[Width]());
    for (const Interval &I : Set.intervals())
      for (uint64_t R = I.Lo; R < I.Hi && R < Width; ++R)
        Bits[R] = true;
    return C.bv_val(Width, Bits.get());
  }

  void initState() {
    State.assign(S.NumRanks, std::vector<std::vector<z3::expr>>(NB));
    // Nothing held, then the collective's initial holdings: a contributor
    // vector {R} for reductions, true for bytes.
    if (Reduction)
      Width = std::max<unsigned>(1, S.NumRanks);
    z3::expr None = Reduction ? contribVector(RankSet()) : C.bool_val(false);
    for (Rank R = 0; R < S.NumRanks; ++R)
      for (BufferId B = 0; B < NB; ++B)
        State[R][B].assign(Bounds[B].size() - 1, None);
    for (const Holding &H : Initial) {
      z3::expr Own =
          Reduction ? contribVector(RankSet(H.R, H.R + 1)) : C.bool_val(true);
      for (size_t A = atomOf(H.Buf, H.Lo); A < atomOf(H.Buf, H.Hi); ++A)
        State[H.R][H.Buf][A] = Own;
    }
  }

  /// node(r) = the node of rank r, for the node-port constraints.
  void initNodes() {
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
  void encodeNodePorts(unsigned St, llvm::ArrayRef<Op> Ops) {
    if (NodeOf.empty())
      return;
    std::map<uint32_t, std::pair<z3::expr_vector, z3::expr_vector>> Ends;
    auto EndsOf =
        [&](uint32_t N) -> std::pair<z3::expr_vector, z3::expr_vector> & {
      auto It = Ends.find(N);
      if (It == Ends.end())
        It = Ends.emplace(
                     N, std::make_pair(z3::expr_vector(C), z3::expr_vector(C)))
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
  z3::expr isRun(const z3::expr &X) {
    z3::expr Zero = C.bv_val(0, Width);
    return X != Zero && ((X + (X & -X)) & X) == Zero;
  }

  /// A fresh constant defined as E (keeps the formulas shallow).
  z3::expr define(const z3::expr &E, const char *Base) {
    z3::expr V = E.is_bool()
                     ? C.bool_const(formatv("{0}!{1}", Base, Fresh++).str().c_str())
                     : C.bv_const(formatv("{0}!{1}", Base, Fresh++).str().c_str(),
                                  Width);
    Defs.push_back(V == E);
    return V;
  }

  bool isLink(Rank U, Rank V) const {
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

  void encodeStep(unsigned St) {
    llvm::ArrayRef<Op> Ops = L.step(St);
    // Ports: per rank, its sends and receives of the step as integer
    // equalities over the ops' endpoints.
    std::map<Rank, std::pair<z3::expr_vector, z3::expr_vector>> Ends;
    auto EndsOf = [&](Rank R) -> std::pair<z3::expr_vector, z3::expr_vector> & {
      auto It = Ends.find(R);
      if (It == Ends.end())
        It = Ends.emplace(R, std::make_pair(z3::expr_vector(C),
                                            z3::expr_vector(C)))
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
        for (size_t A = atomOf(B.Buf, B.Lo); A < atomOf(B.Buf, B.Hi); ++A) {
          SrcAtoms.push_back(State[O.Src][B.Buf][A]);
          Conds.push_back(Reduction ? State[O.Src][B.Buf][A] ==
                                          contribVector(L.contrib(B.Contrib))
                                    : State[O.Src][B.Buf][A]);
        }
        z3::expr_vector CV(C);
        for (const z3::expr &X : Conds)
          CV.push_back(X);
        z3::expr N = name(formatv("avail_s{0}_o{1}_r{2}_{3}{4}", St, I, O.Src,
                                  Bufs[B.Buf].Name, B.Lo));
        Defs.push_back(N == z3::mk_and(CV));
        Avails.push_back({St, I, K, N, SrcAtoms});
        Deliveries.push_back({I, K, O.Dst, &B, SrcAtoms});
      }
    }
    // Deliveries, in op order, after the step.
    for (const Delivery &D : Deliveries) {
      const Block &B = *D.B;
      size_t First = atomOf(B.Buf, B.Lo);
      for (size_t K = 0; K < D.Values.size(); ++K) {
        z3::expr &Cur = State[D.Dst][B.Buf][First + K];
        if (!Reduction) {
          Cur = define(Cur || D.Values[K], "held");
          continue;
        }
        if (!B.Reduce) {
          Cur = define(D.Values[K], "part");
          continue;
        }
        z3::expr N = name(formatv("once_s{0}_o{1}_r{2}_{3}{4}", St, D.Op,
                                  D.Dst, Bufs[B.Buf].Name,
                                  Bounds[B.Buf][First + K]));
        Defs.push_back(N == ((Cur & D.Values[K]) == C.bv_val(0, Width)));
        Onces.push_back({St, D.Op, D.BlockIdx, First + K, D.Dst, B.Buf, N, Cur,
                         D.Values[K], std::nullopt});
        if (!S.commutative()) {
          // Adjacent intervals: each is one run, and so is their disjoint
          // union.
          z3::expr P =
              name(formatv("order_s{0}_o{1}_r{2}_{3}{4}", St, D.Op, D.Dst,
                           Bufs[B.Buf].Name, Bounds[B.Buf][First + K]));
          Defs.push_back(P == (isRun(Cur) && isRun(D.Values[K]) &&
                               (Cur & D.Values[K]) == C.bv_val(0, Width) &&
                               isRun(Cur | D.Values[K])));
          Onces.back().Order = P;
        }
        Cur = define(Cur | D.Values[K], "part");
      }
    }
  }

  void encodeCompleteness() {
    z3::expr All = Reduction ? contribVector(RankSet(0, S.NumRanks))
                             : C.bool_val(true);
    for (size_t Q = 0; Q < Reqs.size(); ++Q) {
      const Holding &Rq = Reqs[Q];
      if (Rq.Lo >= Rq.Hi)
        continue;
      z3::expr_vector CV(C);
      for (size_t A = atomOf(Rq.Buf, Rq.Lo); A < atomOf(Rq.Buf, Rq.Hi); ++A)
        CV.push_back(Reduction ? State[Rq.R][Rq.Buf][A] == All
                               : State[Rq.R][Rq.Buf][A]);
      z3::expr N = name(formatv("complete_r{0}_{1}{2}", Rq.R,
                                Bufs[Rq.Buf].Name, Rq.Lo));
      Defs.push_back(N == z3::mk_and(CV));
      Completes.push_back({Q, N});
    }
  }

  // -- Decoding a model into the explicit engine's diagnostics --------------

  RankSet setOf(z3::model &M, const z3::expr &V) const {
    z3::expr Val = M.eval(V, true);
    RankSet Out;
    for (unsigned R = 0; R < Width; ++R) {
      z3::expr Bit = Val.extract(R, R);
      if (M.eval(Bit, true).get_numeral_uint() == 1)
        Out.insert(R, R + 1);
    }
    return Out;
  }

  static bool isTrue(z3::model &M, const z3::expr &E) {
    return M.eval(E, true).is_true();
  }

  /// Maximal runs of atoms [First, End) with equal contributor sets.
  std::vector<std::tuple<uint64_t, uint64_t, RankSet>>
  runs(z3::model &M, BufferId B, size_t First,
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

  void decode(z3::model &M, DiagnosticList &Diags) {
    // Ports, duplex, topology and availability interleave in op order in
    // the explicit engine; the first failure of each kind is the earliest.
    for (unsigned St = 0; St < L.numSteps(); ++St)
      decodeStep(M, St, Diags);
    decodeCompleteness(M, Diags);
  }

  void decodeStep(z3::model &M, unsigned St, DiagnosticList &Diags) {
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
              Diags.add(report::partialAvailability(S, St, I, O.Src, B.Buf,
                                                    Lo, Hi, Want, Set));
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
  std::tuple<uint64_t, uint64_t, RankSet, RankSet> segmentOf(z3::model &M,
                                                             const Once &On) {
    RankSet Held = setOf(M, On.Before), In = setOf(M, On.Incoming);
    auto Same = [&](const Once &X) {
      return X.St == On.St && X.Op == On.Op && X.BlockIdx == On.BlockIdx &&
             setOf(M, X.Before) == Held && setOf(M, X.Incoming) == In;
    };
    // The Onces of one delivered block are consecutive, one per atom.
    size_t Lo = On.Atom, Hi = On.Atom + 1;
    for (const Once *X = &On; X != Onces.data() && (X - 1)->Atom + 1 == Lo &&
                              Same(*(X - 1));
         --X)
      --Lo;
    for (const Once *X = &On + 1;
         X != Onces.data() + Onces.size() && X->Atom == Hi && Same(*X); ++X)
      ++Hi;
    return {Bounds[On.Buf][Lo], Bounds[On.Buf][Hi], Held, In};
  }

  void decodeOnce(z3::model &M, const Once &On, DiagnosticList &Diags) {
    auto [Lo, Hi, Held, In] = segmentOf(M, On);
    RankSet Twice;
    for (const Interval &I : In.intervals())
      Twice.insert(Held.clippedTo(I.Lo, I.Hi));
    Diags.add(
        report::exactlyOnce(S, On.St, On.Dst, On.Buf, Lo, Hi, Twice, Held));
  }

  void decodeOrder(z3::model &M, const Once &On, DiagnosticList &Diags) {
    auto [Lo, Hi, Held, In] = segmentOf(M, On);
    Diags.add(
        report::operandOrder(S, On.St, On.Op, On.Dst, On.Buf, Lo, Hi, In, Held));
  }

  void decodeCompleteness(z3::model &M, DiagnosticList &Diags) {
    size_t Incomplete = 0;
    std::optional<std::pair<Rank, std::string>> First;
    for (const Complete &Cp : Completes) {
      if (isTrue(M, Cp.Name))
        continue;
      ++Incomplete;
      if (First)
        continue;
      const Holding &Q = Reqs[Cp.Req];
      size_t A0 = atomOf(Q.Buf, Q.Lo), A1 = atomOf(Q.Buf, Q.Hi);
      std::vector<z3::expr> Final(State[Q.R][Q.Buf].begin() + A0,
                                  State[Q.R][Q.Buf].begin() + A1);
      std::string Lack;
      if (Reduction) {
        RankSet All(0, S.NumRanks);
        for (auto &[Lo, Hi, Set] : runs(M, Q.Buf, A0, Final))
          if (!(Set == All)) {
            Lack = report::lackOfContributors(S, Q.Buf, Lo, Hi, Set);
            break;
          }
      } else {
        IntervalSet Missing;
        for (size_t K = 0; K < Final.size(); ++K)
          if (!isTrue(M, Final[K]))
            Missing.insert(Bounds[Q.Buf][A0 + K], Bounds[Q.Buf][A0 + K + 1]);
        Lack = report::lackOfBytes(S, Q.Buf, Missing);
      }
      First = {Q.R, Lack};
    }
    if (First)
      Diags.add(report::completeness(S, First->first, First->second,
                                     Incomplete));
  }

  VerifyResult solve() {
    VerifyResult R;
    smt::Solver Sv(Ses);
    for (const z3::expr &D : Defs)
      Sv.add(D);
    // Refutation: some named property fails.
    z3::expr_vector Neg(C);
    for (unsigned I = 0; I < Props.size(); ++I)
      Neg.push_back(!Props[I]);
    Sv.add(z3::mk_or(Neg));
    smt::Result Res = Sv.check();
    switch (Res.K) {
    case smt::Result::Kind::Proved:
      R.St = VerifyResult::Status::Proved;
      return R;
    case smt::Result::Kind::Unknown:
    case smt::Result::Kind::Timeout:
      R.St = VerifyResult::Status::Unknown;
      R.Diags.push_back(
          {"solver", "the SMT engine could not decide: " + Res.Why});
      return R;
    case smt::Result::Kind::Error:
      R.St = VerifyResult::Status::Unknown;
      R.Diags.push_back({"solver", "solver error: " + Res.Why});
      return R;
    case smt::Result::Kind::Refuted:
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
};

} // namespace

VerifyResult choreo::checkSmt(const Schedule &S, const SmtOptions &O) {
  VerifyResult R;
  R.Diags = S.verify();
  if (!R.Diags.empty()) {
    R.St = VerifyResult::Status::Invalid;
    return R;
  }
  try {
    return ConcreteEncoder(S, O).run();
  } catch (const z3::exception &E) {
    R.St = VerifyResult::Status::Unknown;
    R.Diags = {{"solver", std::string("solver error: ") + E.msg()}};
    return R;
  }
}
