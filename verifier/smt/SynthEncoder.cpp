//===- verifier/smt/SynthEncoder.cpp - The incremental synthesis encoder --===//
///
/// \file
/// The encoder base of SynthEncoding.h and the encoding of the gather-type
/// collectives and bcast. Units are the one-byte pieces of the instance's
/// initial holdings; for every step t and unit u:
///
/// - `h_t_r_u`: rank r holds u after t steps (h_0 is the initial holding);
/// - `s_t_a_b_u`: rank a sends u to rank b in step t, for every link a -> b
///   of the topology; it needs h_{t-1}(a, u) (availability) and
///   not h_{t-1}(b, u) (never send a rank what it holds: dropping such an
///   op leaves a schedule of the same steps, so this loses no optimum);
/// - h_t(r, u) <-> h_{t-1}(r, u) or some s_t(a, r, u);
/// - ports: at most `send` of the s_t(a, ., .) and at most `recv` of the
///   s_t(., b, .) per rank (Z3's cardinality constraints, which its SAT
///   core handles natively); unless duplex, a rank sends or receives;
/// - node ports (instances with `nodes`): per node, at most `node_ports.send`
///   of the s_t(a, b, .) with a on the node and b off it, and at most
///   `node_ports.recv` the other way (on-node ops take no node port).
///
/// Variables that cannot be true are the constant false: h_t(r, u) when r
/// is farther than t links from u's origins, s_t(a, b, u) when a cannot hold
/// u by t - 1 or b holds it from the start. The question "T steps?" is the
/// assumption g_T, which implies every required h_T(r, u) and forbids the
/// sends to a rank b in step t from which no rank that needs u is within
/// T - t links (such a unit arrives too late to matter: the op can be
/// dropped, which frees ports and node ports only). One solver serves every
/// T: `synthesizeMin` adds a layer per step and asks under g_T, so clauses
/// learnt for T help T + 1.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/SynthEncoding.h"

#include "llvm/Support/FormatVariadic.h"

#include <chrono>

using namespace choreo;
using namespace choreo::synth;
using llvm::formatv;

Encoder::Encoder(const Schedule &H, const Instance &I, const SynthOptions &O)
    : H(H), I(I), Ses(smt::Budget{O.TimeoutMs, std::nullopt}), C(Ses.ctx()),
      Solver(Ses, "QF_FD") {}

void Encoder::extendTo(unsigned T) {
  while (Sends.size() < T)
    addLayer(Sends.size() + 1);
}

SynthQuery Encoder::ask(unsigned T) {
  SynthQuery Q;
  Q.Steps = T;
  auto T0 = std::chrono::steady_clock::now();
  auto It = Goals.find(T);
  if (It == Goals.end())
    It = Goals.emplace(T, makeGoal(T)).first;
  z3::expr_vector As(C);
  As.push_back(It->second);
  smt::Result R = Solver.check(As);
  Q.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            T0)
                  .count();
  Q.A = R.refuted()  ? SynthQuery::Answer::Sat
        : R.proved() ? SynthQuery::Answer::Unsat
                     : SynthQuery::Answer::Unknown;
  Q.Why = R.Why;
  Model = std::move(R.Model);
  return Q;
}

StepList Encoder::decode(unsigned T) {
  z3::model &M = *Model;
  StepList L;
  for (unsigned St = 1; St <= T; ++St) {
    L.newStep();
    for (const SendVar &V : Sends[St - 1])
      if (M.eval(V.E, true).is_true()) {
        Block B = blockOf(M, St, V, L);
        auto [A, D] = I.Links[V.L];
        L.addOp(A, D, {B});
      }
  }
  L.dropEmptySteps();
  return L;
}

void Encoder::add(const z3::expr &E) {
  Solver.add(E);
  ++NumCons;
}

z3::expr Encoder::fresh(const std::string &Name) {
  ++NumVars;
  return C.bool_const(Name.c_str());
}

void Encoder::addPortConstraints(llvm::ArrayRef<SendVar> Ss) {
  std::vector<z3::expr_vector> SendsOf, RecvsOf, NodeOut, NodeIn;
  for (Rank R = 0; R < I.N; ++R) {
    SendsOf.emplace_back(C);
    RecvsOf.emplace_back(C);
  }
  for (uint32_t Nd = 0; Nd < I.NumNodes; ++Nd) {
    NodeOut.emplace_back(C);
    NodeIn.emplace_back(C);
  }
  for (const SendVar &V : Ss) {
    auto [A, B] = I.Links[V.L];
    SendsOf[A].push_back(V.E);
    RecvsOf[B].push_back(V.E);
    if (!I.NodeOf.empty() && I.NodeOf[A] != I.NodeOf[B]) {
      NodeOut[I.NodeOf[A]].push_back(V.E);
      NodeIn[I.NodeOf[B]].push_back(V.E);
    }
  }
  for (Rank R = 0; R < I.N; ++R) {
    if (SendsOf[R].size() > H.Port.Send)
      add(z3::atmost(SendsOf[R], H.Port.Send));
    if (RecvsOf[R].size() > H.Port.Recv)
      add(z3::atmost(RecvsOf[R], H.Port.Recv));
    if (!H.Port.Duplex && !SendsOf[R].empty() && !RecvsOf[R].empty())
      add(!(z3::mk_or(SendsOf[R]) && z3::mk_or(RecvsOf[R])));
  }
  const NodePorts NP = H.nodePorts();
  for (uint32_t Nd = 0; Nd < I.NumNodes; ++Nd) {
    if (NodeOut[Nd].size() > NP.Send)
      add(z3::atmost(NodeOut[Nd], NP.Send));
    if (NodeIn[Nd].size() > NP.Recv)
      add(z3::atmost(NodeIn[Nd], NP.Recv));
  }
}

namespace {

/// The gather-type encoding (the file comment).
class GatherEncoder : public Encoder {
public:
  GatherEncoder(const Schedule &H, const Instance &I, const SynthOptions &O)
      : Encoder(H, I, O) {
    // Layer 0: the initial holdings.
    auto &L0 = Hold.emplace_back();
    for (unsigned U = 0; U < I.Units.size(); ++U)
      for (Rank R = 0; R < I.N; ++R)
        L0.push_back(C.bool_val(I.Initially[U][R]));
  }

private:
  /// Hold[t][u * N + r].
  std::vector<std::vector<z3::expr>> Hold;

  void addLayer(unsigned T) override {
    const Rank N = I.N;
    const std::vector<z3::expr> &Prev = Hold[T - 1];
    auto &Ss = Sends.emplace_back();
    // Incoming[u * N + r]: the sends that deliver u to r in step T.
    std::vector<z3::expr_vector> Incoming;
    for (size_t K = 0; K < I.Units.size() * N; ++K)
      Incoming.emplace_back(C);
    for (unsigned U = 0; U < I.Units.size(); ++U)
      for (unsigned L = 0; L < I.Links.size(); ++L) {
        auto [A, B] = I.Links[L];
        if (I.Dist[U][A] > T - 1 || I.Initially[U][B])
          continue;
        z3::expr S = fresh(formatv("s_{0}_{1}_{2}_u{3}", T, A, B, U).str());
        add(z3::implies(S, Prev[U * N + A]));
        add(z3::implies(S, !Prev[U * N + B]));
        Ss.push_back({L, U, S});
        Incoming[U * N + B].push_back(S);
      }
    std::vector<z3::expr> Cur;
    for (unsigned U = 0; U < I.Units.size(); ++U)
      for (Rank R = 0; R < N; ++R) {
        const z3::expr &Was = Prev[U * N + R];
        z3::expr_vector &Inc = Incoming[U * N + R];
        if (Inc.empty()) {
          Cur.push_back(Was);
          continue;
        }
        z3::expr X = fresh(formatv("h_{0}_{1}_u{2}", T, R, U).str());
        Inc.push_back(Was);
        add(X == z3::mk_or(Inc));
        Cur.push_back(X);
        // Two ops delivering one unit to one rank: one is redundant.
        if (Inc.size() > 2 && H.Port.Recv > 1) {
          Inc.pop_back();
          add(z3::atmost(Inc, 1));
        }
      }
    addPortConstraints(Ss);
    Hold.push_back(std::move(Cur));
  }

  /// g_T: every requirement holds after T steps, and no op of a step t <= T
  /// delivers a unit to a rank from which no rank needing it is within
  /// T - t links.
  z3::expr makeGoal(unsigned T) override {
    const Rank N = I.N;
    z3::expr G = fresh(formatv("g_{0}", T).str());
    for (auto [R, U] : I.Required)
      add(z3::implies(G, Hold[T][U * N + R]));
    for (unsigned St = 1; St <= T; ++St)
      for (const SendVar &V : Sends[St - 1]) {
        Rank B = I.Links[V.L].second;
        bool Useful = false;
        for (Rank X = 0; X < N && !Useful; ++X)
          Useful = I.Needs[V.U][X] && I.RankDist[B][X] <= T - St;
        if (!Useful)
          add(z3::implies(G, !V.E));
      }
    return G;
  }

  Block blockOf(const z3::model &, unsigned, const SendVar &V,
                StepList &) override {
    Block B;
    B.Buf = I.Units[V.U].Buf;
    B.Lo = I.Units[V.U].Lo;
    B.Hi = B.Lo + 1;
    return B;
  }
};

} // namespace

std::unique_ptr<Encoder> synth::gatherEncoder(const Schedule &H,
                                              const Instance &I,
                                              const SynthOptions &O) {
  return std::make_unique<GatherEncoder>(H, I, O);
}
