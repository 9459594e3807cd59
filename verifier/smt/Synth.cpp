//===- verifier/smt/Synth.cpp - Schedules synthesised by Z3 ---------------===//
///
/// \file
/// The synthesis driver (Synth.h): the instance a request describes, its
/// analysis (units, links, distances, requirements, nodes), the counting
/// lower bounds, and the queries asked of one incremental encoder
/// (SynthEncoder.cpp for the gather-type collectives and bcast,
/// SynthReduction.cpp for the reductions). Every sat answer's schedule is
/// replayed by the explicit engine before it is handed out.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/Synth.h"
#include "verifier/Verifier.h"
#include "verifier/smt/SynthEncoding.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <new>
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::synth;
using llvm::formatv;

namespace {
constexpr unsigned MaxRanks = 64;
constexpr unsigned MaxUnits = 4096;
} // namespace

llvm::Error synth::refuse(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

std::string synth::unitName(const Schedule &H, const Instance &I,
                            unsigned U) {
  const Unit &X = I.Units[U];
  return formatv("{0}[{1}]", H.spec().bufferName(X.Buf), X.Lo).str();
}

llvm::Expected<Instance> synth::analyse(const Schedule &H) {
  Instance I;
  I.N = H.NumRanks;
  I.Reduction = H.spec().isReduction();
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
  I.NodeOf = H.nodeOfRank();
  if (H.hasNodes())
    I.NumNodes = H.Nodes->size();
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
      // A reduction's rank holds its own partial, not yet the result.
      if ((!I.Reduction && I.Initially[X][Req.R]) || I.Needs[X][Req.R])
        continue;
      // A gather-type unit must reach the rank from one of its origins, a
      // reduction's from every rank.
      for (Rank O : I.Units[X].Origins)
        if (I.RankDist[O][Req.R] == Unreachable &&
            (I.Reduction || I.Dist[X][Req.R] == Unreachable))
          return refuse(formatv("rank {0} can never receive {1}: the "
                                "topology has no path to it from rank {2}",
                                Req.R, unitName(H, I, X), O));
      I.Needs[X][Req.R] = true;
      I.Required.push_back({Req.R, X});
    }
  return I;
}

namespace {

/// Raises Best (and Why) by the node ports: every unit a node lacks enters
/// it by an off-node op, at most `recv` per step; a unit that first enters
/// in the last step must enter at every rank of the node that needs it (no
/// time is left to pass it on inside the node), so it takes one entry per
/// such rank of that step's `recv`. Every unit only a node holds and another
/// needs leaves it by an off-node op, at most `send` per step.
void nodeLowerBound(const Schedule &H, const Instance &I, unsigned &Best,
                    std::string &Why) {
  if (I.NodeOf.empty())
    return;
  const NodePorts NP = H.nodePorts();
  const uint64_t R = std::max<uint32_t>(1, NP.Recv),
                 S = std::max<uint32_t>(1, NP.Send);
  for (uint32_t Nd = 0; Nd < I.NumNodes; ++Nd) {
    uint64_t Single = 0, Shared = 0, Leaving = 0;
    for (unsigned U = 0; U < I.Units.size(); ++U) {
      unsigned Needing = 0;
      bool HeldHere = false, HeldOnlyHere = true, NeededElsewhere = false;
      for (Rank X = 0; X < I.N; ++X) {
        bool Here = I.NodeOf[X] == Nd;
        if (I.Initially[U][X]) {
          HeldHere |= Here;
          HeldOnlyHere &= Here;
        }
        if (I.Needs[U][X]) {
          Needing += Here;
          NeededElsewhere |= !Here;
        }
      }
      if (!HeldHere && Needing > 0)
        (Needing == 1 ? Single : Shared) += 1;
      if (HeldHere && HeldOnlyHere && NeededElsewhere)
        ++Leaving;
    }
    if (Single + Shared > 0) {
      // At most Last units can first enter in the last step.
      uint64_t One = std::min(Single, R);
      uint64_t Last = One + std::min(Shared, (R - One) / 2);
      uint64_t Rest = Single + Shared - Last;
      unsigned B = unsigned(1 + (Rest + R - 1) / R);
      if (B > Best) {
        Best = B;
        Why = formatv("node {0} (ranks {1}) takes in {2} units from other "
                      "nodes, at most {3} per step, {4} of them needed by "
                      "two or more of its ranks",
                      Nd, H.nodeRanksString(Nd), Single + Shared, R, Shared);
      }
    }
    if (Leaving > 0) {
      unsigned B = unsigned((Leaving + S - 1) / S);
      if (B > Best) {
        Best = B;
        Why = formatv("node {0} (ranks {1}) sends out {2} units only it "
                      "holds, at most {3} per step",
                      Nd, H.nodeRanksString(Nd), Leaving, S);
      }
    }
  }
}

/// The lower bound of Synth.h: per rank, its missing units arrive at most
/// `recv` per step, none before its distance; per unit, its holders grow at
/// most (1 + send)-fold per step.
std::pair<unsigned, std::string> lowerBound(const Schedule &H,
                                            const Instance &I) {
  if (I.Reduction)
    return reductionLowerBound(H, I);
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
  nodeLowerBound(H, I, Best, Why);
  return {Best, Why};
}

/// Every schedule handed out is replayed by the explicit engine first.
llvm::Error checkFound(const Schedule &S) {
  VerifyResult V = checkExplicit(S);
  if (V.proved())
    return llvm::Error::success();
  std::string Msg = "internal error: the synthesised schedule fails the "
                    "explicit engine";
  for (const Diagnostic &D : V.Diags)
    Msg += "; " + D.Message;
  return refuse(Msg);
}

/// Asks the queries of Ts (ascending) of one encoder; stops at the first
/// sat or unknown answer. A query whose encoding would pass
/// O.MaxVariables is refused before anything is encoded (What names the
/// option) when it is the first, else it ends the search as unknown.
llvm::Error ask(const Schedule &H, const Instance &I,
                const std::vector<unsigned> &Ts, const SynthOptions &O,
                llvm::function_ref<void(const SynthQuery &)> OnQuery,
                llvm::StringRef What, SynthResult &Res) {
  const uint64_t PerStep = variablesPerStep(I);
  std::unique_ptr<Encoder> EP;
  for (unsigned T : Ts) {
    uint64_t Vars = uint64_t(T) * PerStep;
    if (Vars > O.MaxVariables) {
      std::string Why = formatv(
          "the encoding of {0} steps has up to {1} Boolean variables ({2} "
          "per step), more than synthesis takes ({3}); this instance needs "
          "between {4} and {5} steps",
          T, Vars, PerStep, O.MaxVariables, Res.LowerBound, Res.UpperBound);
      if (Res.Queries.empty())
        return refuse(What + ": " + Why);
      SynthQuery Q;
      Q.Steps = T;
      Q.Why = "not asked: " + Why;
      Res.Queries.push_back(Q);
      if (OnQuery)
        OnQuery(Q);
      break;
    }
    if (!EP)
      EP = I.Reduction ? reductionEncoder(H, I, O) : gatherEncoder(H, I, O);
    EP->extendTo(T);
    SynthQuery Q = EP->ask(T);
    Res.Queries.push_back(Q);
    if (OnQuery)
      OnQuery(Q);
    if (Q.A == SynthQuery::Answer::Sat) {
      Schedule S = H;
      S.Steps = EP->decode(T);
      if (auto E = checkFound(S))
        return E;
      Res.Found = std::move(S);
    }
    if (Q.A != SynthQuery::Answer::Unsat)
      break;
  }
  if (EP) {
    Res.Variables = EP->variables();
    Res.Constraints = EP->constraints();
  }
  return llvm::Error::success();
}

/// The queries of Ts on the instance H, with its bounds; running out of
/// memory (Z3's or ours) is an error that says so.
llvm::Expected<SynthResult>
run(const Schedule &H, std::vector<unsigned> Ts, const SynthOptions &O,
    llvm::function_ref<void(const SynthQuery &)> OnQuery,
    llvm::StringRef What) {
  auto I = analyse(H);
  if (!I)
    return I.takeError();
  SynthResult Res;
  std::tie(Res.LowerBound, Res.LowerBoundWhy) = lowerBound(H, *I);
  std::tie(Res.UpperBound, Res.UpperBoundWhy) = upperBound(*I);
  auto OutOfMemory = [&] {
    return refuse(formatv("out of memory encoding {0} steps ({1} Boolean "
                          "variables per step); try fewer steps, ranks or "
                          "--chunks",
                          Ts.empty() ? 0 : Ts.back(), variablesPerStep(*I)));
  };
  try {
    if (auto E = ask(H, *I, Ts, O, OnQuery, What, Res))
      return E;
  } catch (const std::bad_alloc &) {
    return OutOfMemory();
  } catch (const z3::exception &E) {
    // Z3 reports its allocation failures as an exception with this text.
    if (llvm::StringRef(E.msg()).contains("out of memory"))
      return OutOfMemory();
    return refuse(formatv("Z3: {0}", E.msg()));
  }
  return Res;
}

} // namespace

llvm::Expected<Schedule> choreo::synthInstance(const SynthRequest &R) {
  const CollectiveSpec &Spec = specOf(R.Kind);
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
  if (Spec.NoPayload && R.Chunks != 1)
    return refuse(formatv("--chunks: {0} is one unit of \"has arrived\" "
                          "per rank",
                          Spec.Name));
  if (R.Port.Send == 0 || R.Port.Recv == 0)
    return refuse("--ports: a rank needs at least one send and one receive "
                  "port");
  if (Spec.isReduction() && R.Port.Recv != 1)
    return refuse(formatv("--ports: {0} is synthesised with one receive port "
                          "per rank (--ports S,1), where a step combines at "
                          "most one partial into each rank",
                          Spec.Name));
  Schedule S;
  S.Kind = R.Kind;
  S.Algorithm = "synth";
  if (Spec.Intergroup) {
    std::vector<uint64_t> A(R.P, R.Chunks),
        B(R.Q, Spec.contributes("B") ? R.Chunks : 0);
    setIntergroup(S, A, B);
  } else if (Spec.Data == DataKind::Broadcast) {
    setIntragroup(S, N, {R.Chunks});
  } else if (Spec.isReduction()) {
    // A vector of Chunks units; reduce_scatter: Chunks units per slice.
    bool Slices = Spec.Result == ResultRule::OwnSlice;
    setIntragroup(S, N, {uint64_t(R.Chunks) * (Slices ? N : 1)});
    if (Slices)
      S.Sizes.push_back({"slices", std::vector<uint64_t>(N, R.Chunks)});
  } else if (Spec.Data == DataKind::Alltoall) {
    // Chunks units per pair of ranks.
    setIntragroup(S, N, {});
    S.Sizes = {{"pairs", std::vector<uint64_t>(size_t(N) * N, R.Chunks)}};
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
  S.Params.json() = {{"collective", Spec.Name}, {"p", R.P}};
  if (Spec.Intergroup)
    S.Params.json()["q"] = R.Q;
  if (Spec.Rooted)
    S.Params.json()["root"] = R.Root;
  S.Params.json()["chunks"] = R.Chunks;
  S.Topo = R.Topo;
  S.Port = R.Port;
  if (R.Nodes) {
    if (R.NodePort.Send == 0 || R.NodePort.Recv == 0)
      return refuse("--node-ports: a node needs at least one send and one "
                    "receive port");
    S.Nodes = R.Nodes;
    S.NodePort = R.NodePort;
  }
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
  auto I = analyse(H);
  if (!I)
    return I.takeError();
  unsigned UB = upperBound(*I).first;
  if (Steps < UB)
    return run(H, {Steps}, O, nullptr, formatv("--steps {0}", Steps).str());
  // As many steps as the upper bound or more: its schedule answers.
  auto T0 = std::chrono::steady_clock::now();
  SynthResult Res;
  std::tie(Res.LowerBound, Res.LowerBoundWhy) = lowerBound(H, *I);
  std::tie(Res.UpperBound, Res.UpperBoundWhy) = upperBound(*I);
  Schedule S = H;
  S.Steps = upperBoundSchedule(*I);
  if (auto E = checkFound(S))
    return E;
  SynthQuery Q;
  Q.Steps = UB;
  Q.A = SynthQuery::Answer::Sat;
  Q.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  Res.Queries.push_back(Q);
  Res.Found = std::move(S);
  return Res;
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
  // The search ends at the upper bound at the latest (a schedule of that
  // many steps exists).
  unsigned Last = std::min(MaxSteps, std::max(Start, upperBound(*I).first));
  std::vector<unsigned> Ts;
  for (unsigned T = Start; T <= Last; ++T)
    Ts.push_back(T);
  return run(H, Ts, O, OnQuery, "--minimize");
}
