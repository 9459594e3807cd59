//===- verifier/smt/Synth.cpp - Schedules synthesised by Z3 ---------------===//
///
/// \file
/// The synthesis encoding (Synth.h). Units are the one-byte pieces of the
/// instance's initial holdings; for every step t and unit u:
///
/// - `h_t_r_u`: rank r holds u after t steps (h_0 is the initial holding);
/// - `s_t_a_b_u`: rank a sends u to rank b in step t, for every link a -> b
///   of the topology; it needs h_{t-1}(a, u) (availability) and
///   not h_{t-1}(b, u) (never send a rank what it holds: dropping such an
///   op leaves a schedule of the same steps, so this loses no optimum);
/// - h_t(r, u) <-> h_{t-1}(r, u) or some s_t(a, r, u);
/// - ports: at most `send` of the s_t(a, ., .) and at most `recv` of the
///   s_t(., b, .) per rank (Z3's cardinality constraints, which its SAT
///   core handles natively); unless duplex, a rank sends or receives.
///
/// Variables that cannot be true are the constant false: h_t(r, u) when r
/// is farther than t links from u's origins, s_t(a, b, u) when a cannot hold
/// u by t - 1 or b holds it from the start. The question "T steps?" is the
/// assumption g_T, which implies every required h_T(r, u) and forbids the
/// sends to a rank b in step t from which no rank that needs u is within
/// T - t links (such a unit arrives too late to matter: the op can be
/// dropped). One solver serves every T: `synthesizeMin` adds a layer per
/// step and asks under g_T, so clauses learnt for T help T + 1.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/Synth.h"
#include "verifier/Verifier.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <z3++.h>

using namespace choreo;
using llvm::formatv;

namespace {

constexpr unsigned MaxRanks = 64;
constexpr unsigned MaxUnits = 4096;
constexpr unsigned Unreachable = ~0u;

llvm::Error refuse(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// A one-byte piece of an initial holding.
struct Unit {
  BufferId Buf;
  uint64_t Lo;
  std::vector<Rank> Origins;
};

/// What the encoding needs of an instance, without Z3: units, directed
/// links, distances, requirements.
struct Instance {
  Rank N = 0;
  std::vector<Unit> Units;
  std::vector<std::pair<Rank, Rank>> Links;
  std::vector<std::vector<unsigned>> In, Out; // link indices per rank
  std::vector<std::vector<unsigned>> RankDist; // hops between ranks
  std::vector<std::vector<unsigned>> Dist;     // [u][r]: hops from origins
  std::vector<std::vector<bool>> Initially;    // [u][r]
  std::vector<std::vector<bool>> Needs;        // [u][r]: required, not held
  std::vector<std::pair<Rank, unsigned>> Required; // (r, u) of Needs
};

std::string unitName(const Schedule &H, const Instance &I, unsigned U) {
  const Unit &X = I.Units[U];
  return formatv("{0}[{1}]", H.spec().bufferName(X.Buf), X.Lo).str();
}

llvm::Expected<Instance> analyse(const Schedule &H) {
  Instance I;
  I.N = H.NumRanks;
  const Rank N = I.N;
  // Links.
  auto AddLink = [&](Rank A, Rank B) {
    if (A == B)
      return;
    for (auto [X, Y] : I.Links)
      if (X == A && Y == B)
        return;
    I.Links.push_back({A, B});
  };
  switch (H.Topo.K) {
  case Topology::Kind::Full:
    for (Rank A = 0; A < N; ++A)
      for (Rank B = 0; B < N; ++B)
        AddLink(A, B);
    break;
  case Topology::Kind::Ring: {
    std::vector<Rank> Order = H.Topo.Order;
    if (Order.empty())
      for (Rank R = 0; R < N; ++R)
        Order.push_back(R);
    for (size_t K = 0; K < Order.size(); ++K) {
      Rank A = Order[K], B = Order[(K + 1) % Order.size()];
      AddLink(A, B);
      AddLink(B, A);
    }
    break;
  }
  case Topology::Kind::Graph:
    for (auto [A, B] : H.Topo.Edges) {
      AddLink(A, B);
      AddLink(B, A);
    }
    break;
  }
  I.In.assign(N, {});
  I.Out.assign(N, {});
  for (unsigned L = 0; L < I.Links.size(); ++L) {
    I.Out[I.Links[L].first].push_back(L);
    I.In[I.Links[L].second].push_back(L);
  }
  // Hops between ranks (BFS from each).
  I.RankDist.assign(N, std::vector<unsigned>(N, Unreachable));
  for (Rank S = 0; S < N; ++S) {
    std::deque<Rank> Q{S};
    I.RankDist[S][S] = 0;
    while (!Q.empty()) {
      Rank A = Q.front();
      Q.pop_front();
      for (unsigned L : I.Out[A]) {
        Rank B = I.Links[L].second;
        if (I.RankDist[S][B] == Unreachable) {
          I.RankDist[S][B] = I.RankDist[S][A] + 1;
          Q.push_back(B);
        }
      }
    }
  }
  // Units: the one-byte pieces of the initial holdings.
  std::map<std::pair<BufferId, uint64_t>, unsigned> UnitOf;
  for (const Holding &Ho : H.spec().initialHoldings(H))
    for (uint64_t B = Ho.Lo; B < Ho.Hi; ++B) {
      auto [It, New] = UnitOf.insert({{Ho.Buf, B}, unsigned(I.Units.size())});
      if (New) {
        if (I.Units.size() >= MaxUnits)
          return refuse(formatv("the instance has more than {0} units "
                                "(contributions times --chunks)",
                                MaxUnits));
        I.Units.push_back({Ho.Buf, B, {}});
      }
      I.Units[It->second].Origins.push_back(Ho.R);
    }
  const unsigned U = I.Units.size();
  I.Dist.assign(U, std::vector<unsigned>(N, Unreachable));
  I.Initially.assign(U, std::vector<bool>(N, false));
  I.Needs.assign(U, std::vector<bool>(N, false));
  for (unsigned X = 0; X < U; ++X)
    for (Rank O : I.Units[X].Origins) {
      I.Initially[X][O] = true;
      for (Rank R = 0; R < N; ++R)
        I.Dist[X][R] = std::min(I.Dist[X][R], I.RankDist[O][R]);
    }
  for (const Holding &Req : H.spec().requirements(H))
    for (uint64_t B = Req.Lo; B < Req.Hi; ++B) {
      auto It = UnitOf.find({Req.Buf, B});
      if (It == UnitOf.end())
        return refuse(formatv("rank {0} must hold byte {1} of buffer {2}, "
                              "which no rank holds at the start",
                              Req.R, B, H.spec().bufferName(Req.Buf)));
      unsigned X = It->second;
      if (I.Initially[X][Req.R] || I.Needs[X][Req.R])
        continue;
      if (I.Dist[X][Req.R] == Unreachable)
        return refuse(formatv("rank {0} can never receive {1}: the topology "
                              "has no path to it from rank {2}",
                              Req.R, unitName(H, I, X),
                              I.Units[X].Origins.front()));
      I.Needs[X][Req.R] = true;
      I.Required.push_back({Req.R, X});
    }
  return I;
}

/// The lower bound of Synth.h: per rank, its missing units arrive at most
/// `recv` per step, none before its distance; per unit, its holders grow at
/// most (1 + send)-fold per step.
std::pair<unsigned, std::string> lowerBound(const Schedule &H,
                                            const Instance &I) {
  unsigned Best = 0;
  std::string Why = "nothing to move";
  const unsigned R = std::max<unsigned>(1, H.Port.Recv);
  for (Rank X = 0; X < I.N; ++X) {
    std::vector<unsigned> D;
    for (unsigned U = 0; U < I.Units.size(); ++U)
      if (I.Needs[U][X])
        D.push_back(I.Dist[U][X]);
    if (D.empty())
      continue;
    std::sort(D.begin(), D.end());
    const size_t M = D.size();
    for (size_t K = 0; K < M; ++K) {
      // Units K..M-1 arrive no earlier than D[K], at most R per step.
      unsigned B = D[K] - 1 + (M - K + R - 1) / R;
      if (B > Best) {
        Best = B;
        Why = M == 1 ? formatv("rank {0} is {1} links from {2}", X, D[K],
                               "the unit it needs")
                         .str()
                     : formatv("rank {0} receives {1} units, {2} of them "
                               "from {3} or more links away, at most {4} per "
                               "step",
                               X, M, M - K, D[K], R)
                           .str();
      }
    }
  }
  const unsigned S = std::max<unsigned>(1, H.Port.Send);
  for (unsigned U = 0; U < I.Units.size(); ++U) {
    uint64_t Holders = 0, Start = I.Units[U].Origins.size();
    for (Rank X = 0; X < I.N; ++X)
      Holders += I.Needs[U][X] || I.Initially[U][X];
    unsigned T = 0;
    for (uint64_t Can = Start; Can < Holders; Can *= (1 + S))
      ++T;
    if (T > Best) {
      Best = T;
      Why = formatv("{0} must reach {1} ranks from {2}, and its holders grow "
                    "at most {3}-fold per step",
                    unitName(H, I, U), Holders, Start, 1 + S);
    }
  }
  return {Best, Why};
}

double secondsSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
      .count();
}

class Encoder {
public:
  Encoder(const Schedule &H, const Instance &I, const SynthOptions &O)
      : H(H), I(I), Solver(C, "QF_FD") {
    z3::params Ps(C);
    if (O.TimeoutMs)
      Ps.set("timeout", O.TimeoutMs);
    Solver.set(Ps);
    // Layer 0: the initial holdings.
    auto &L0 = Hold.emplace_back();
    for (unsigned U = 0; U < I.Units.size(); ++U)
      for (Rank R = 0; R < I.N; ++R)
        L0.push_back(C.bool_val(I.Initially[U][R]));
  }

  /// Adds step layers up to T.
  void extendTo(unsigned T) {
    while (Hold.size() <= T)
      addLayer(Hold.size());
  }

  /// Is there a schedule of T steps? (Layers up to T must exist.)
  SynthQuery ask(unsigned T) {
    SynthQuery Q;
    Q.Steps = T;
    auto T0 = std::chrono::steady_clock::now();
    z3::expr G = goal(T);
    z3::expr_vector As(C);
    As.push_back(G);
    z3::check_result R = z3::unknown;
    try {
      R = Solver.check(As);
    } catch (const z3::exception &E) {
      Q.Why = E.msg();
    }
    Q.Seconds = secondsSince(T0);
    Q.A = R == z3::sat     ? SynthQuery::Answer::Sat
          : R == z3::unsat ? SynthQuery::Answer::Unsat
                           : SynthQuery::Answer::Unknown;
    if (R == z3::unknown && Q.Why.empty())
      Q.Why = Solver.reason_unknown();
    return Q;
  }

  /// The schedule of the last sat answer, T steps.
  StepList decode(unsigned T) {
    z3::model M = Solver.get_model();
    StepList L;
    for (unsigned St = 1; St <= T; ++St) {
      L.newStep();
      for (const SendVar &V : Sends[St - 1])
        if (M.eval(V.E, true).is_true()) {
          Block B;
          B.Buf = I.Units[V.U].Buf;
          B.Lo = I.Units[V.U].Lo;
          B.Hi = B.Lo + 1;
          auto [A, D] = I.Links[V.L];
          L.addOp(A, D, {B});
        }
    }
    L.dropEmptySteps();
    return L;
  }

  size_t variables() const { return NumVars; }
  size_t constraints() const { return NumCons; }

private:
  struct SendVar {
    unsigned L, U;
    z3::expr E;
  };
  const Schedule &H;
  const Instance &I;
  z3::context C;
  z3::solver Solver;
  /// Hold[t][u * N + r].
  std::vector<std::vector<z3::expr>> Hold;
  /// Sends[t - 1]: the send variables of step t that are not constant false.
  std::vector<std::vector<SendVar>> Sends;
  std::map<unsigned, z3::expr> Goals;
  size_t NumVars = 0, NumCons = 0;

  void add(const z3::expr &E) {
    Solver.add(E);
    ++NumCons;
  }
  z3::expr fresh(const std::string &Name) {
    ++NumVars;
    return C.bool_const(Name.c_str());
  }

  void addLayer(unsigned T) {
    const Rank N = I.N;
    const std::vector<z3::expr> &Prev = Hold[T - 1];
    auto &Ss = Sends.emplace_back();
    std::vector<z3::expr_vector> SendsOf, RecvsOf;
    for (Rank R = 0; R < N; ++R) {
      SendsOf.emplace_back(C);
      RecvsOf.emplace_back(C);
    }
    // incoming[u * N + r]: the sends that deliver u to r in step T.
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
        SendsOf[A].push_back(S);
        RecvsOf[B].push_back(S);
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
    for (Rank R = 0; R < N; ++R) {
      if (SendsOf[R].size() > H.Port.Send)
        add(z3::atmost(SendsOf[R], H.Port.Send));
      if (RecvsOf[R].size() > H.Port.Recv)
        add(z3::atmost(RecvsOf[R], H.Port.Recv));
      if (!H.Port.Duplex && !SendsOf[R].empty() && !RecvsOf[R].empty())
        add(!(z3::mk_or(SendsOf[R]) && z3::mk_or(RecvsOf[R])));
    }
    Hold.push_back(std::move(Cur));
  }

  /// g_T: every requirement holds after T steps, and no op of a step t <= T
  /// delivers a unit to a rank from which no rank needing it is within
  /// T - t links.
  z3::expr goal(unsigned T) {
    auto It = Goals.find(T);
    if (It != Goals.end())
      return It->second;
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
    Goals.emplace(T, G);
    return G;
  }
};

/// Runs the queries of Ts (ascending) on one encoder; stops at the first
/// sat or unknown answer.
llvm::Expected<SynthResult>
run(const Schedule &H, std::vector<unsigned> Ts, bool StopAtSat,
    const SynthOptions &O,
    llvm::function_ref<void(const SynthQuery &)> OnQuery) {
  auto I = analyse(H);
  if (!I)
    return I.takeError();
  SynthResult Res;
  std::tie(Res.LowerBound, Res.LowerBoundWhy) = lowerBound(H, *I);
  Encoder E(H, *I, O);
  for (unsigned T : Ts) {
    E.extendTo(T);
    SynthQuery Q = E.ask(T);
    Res.Queries.push_back(Q);
    if (OnQuery)
      OnQuery(Q);
    if (Q.A == SynthQuery::Answer::Sat) {
      Schedule S = H;
      S.Steps = E.decode(T);
      VerifyResult V = checkExplicit(S);
      if (!V.proved()) {
        std::string Msg = "internal error: the synthesised schedule fails "
                          "the explicit engine";
        for (const Diagnostic &D : V.Diags)
          Msg += "; " + D.Message;
        return refuse(Msg);
      }
      Res.Found = std::move(S);
    }
    if (Q.A == SynthQuery::Answer::Unknown ||
        (StopAtSat && Q.A == SynthQuery::Answer::Sat))
      break;
  }
  Res.Variables = E.variables();
  Res.Constraints = E.constraints();
  return Res;
}

} // namespace

llvm::Expected<Schedule> choreo::synthInstance(const SynthRequest &R) {
  const CollectiveSpec &Spec = specOf(R.Kind);
  if (Spec.isReduction())
    return refuse(formatv("--collective {0}: synthesis covers the "
                          "gather-type collectives and bcast, not reductions",
                          Spec.Name));
  if (R.P == 0)
    return refuse("--p: expected a positive count");
  if (Spec.Intergroup && R.Q == 0)
    return refuse(formatv("--q: {0} needs a positive count of group B",
                          Spec.Name));
  if (!Spec.Intergroup && R.Q != 0)
    return refuse(formatv("--q: {0} has one group (--p ranks); --q is for "
                          "intergroup collectives",
                          Spec.Name));
  const unsigned N = R.P + R.Q;
  if (N > MaxRanks)
    return refuse(formatv("--p/--q: {0} ranks; synthesis takes at most {1}",
                          N, MaxRanks));
  if (R.Chunks == 0 || R.Chunks > 64)
    return refuse("--chunks: expected a count in [1, 64]");
  if (R.Port.Send == 0 || R.Port.Recv == 0)
    return refuse("--ports: a rank needs at least one send and one receive "
                  "port");
  Schedule S;
  S.Kind = R.Kind;
  S.Algorithm = "synth";
  if (Spec.Intergroup) {
    std::vector<uint64_t> A(R.P, R.Chunks),
        B(R.Q, Spec.contributes("B") ? R.Chunks : 0);
    setIntergroup(S, A, B);
  } else if (Spec.Data == DataKind::Broadcast) {
    setIntragroup(S, N, {R.Chunks});
  } else {
    setIntragroup(S, N, std::vector<uint64_t>(N, R.Chunks));
  }
  if (Spec.Rooted) {
    if (R.Root >= N)
      return refuse(formatv("--root: rank {0} is out of range (ranks 0..{1})",
                            R.Root, N - 1));
    S.Root = R.Root;
  } else if (R.Root != 0) {
    return refuse(formatv("--root: {0} has no root", Spec.Name));
  }
  S.Params = {{"collective", Spec.Name}, {"p", R.P}};
  if (Spec.Intergroup)
    S.Params["q"] = R.Q;
  if (Spec.Rooted)
    S.Params["root"] = R.Root;
  S.Params["chunks"] = R.Chunks;
  S.Topo = R.Topo;
  S.Port = R.Port;
  std::vector<Diagnostic> Ds = S.verify();
  if (!Ds.empty())
    return llvm::make_error<DiagnosticError>(std::move(Ds));
  return S;
}

llvm::Expected<std::pair<unsigned, std::string>>
choreo::synthLowerBound(const Schedule &H) {
  auto I = analyse(H);
  if (!I)
    return I.takeError();
  return lowerBound(H, *I);
}

llvm::Expected<SynthResult> choreo::synthesize(const Schedule &H,
                                               unsigned Steps,
                                               const SynthOptions &O) {
  return run(H, {Steps}, true, O, nullptr);
}

llvm::Expected<SynthResult>
choreo::synthesizeMin(const Schedule &H, unsigned From, unsigned MaxSteps,
                      const SynthOptions &O,
                      llvm::function_ref<void(const SynthQuery &)> OnQuery) {
  auto I = analyse(H);
  if (!I)
    return I.takeError();
  // One step below the counting bound, so that Z3 proves the optimum's
  // T - 1 impossible too.
  unsigned LB = lowerBound(H, *I).first;
  unsigned Start = std::max(From, LB > 0 ? LB - 1 : 0);
  if (Start > MaxSteps)
    return refuse(formatv("--max-steps {0} is below the lower bound {1}",
                          MaxSteps, Start));
  std::vector<unsigned> Ts;
  for (unsigned T = Start; T <= MaxSteps; ++T)
    Ts.push_back(T);
  return run(H, Ts, true, O, OnQuery);
}
