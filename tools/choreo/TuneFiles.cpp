//===- tools/choreo/TuneFiles.cpp - Pricing a library's algorithms --------===//
///
/// \file
/// The pricing shared by the MPI libraries' tuning files: a library
/// algorithm's model time at one grid cell, the cheapest of a list, and the
/// runs of sizes with one choice.
///
//===----------------------------------------------------------------------===//

#include "TuneFiles.h"
#include "cost/Model.h"
#include "pmpi/Shape.h"

using namespace choreo;
using namespace choreo::tune;

namespace {

/// The arguments of an intracommunicator call of P ranks and Size bytes,
/// root 0, a commutative operator.
MpiArgs argsOf(MpiCall C, uint64_t P, uint64_t Size, uint64_t Elem) {
  MpiArgs A;
  A.Call = C;
  A.Ranks = Rank(P);
  A.Commutative = true;
  A.ElemBytes = Elem;
  switch (C) {
  case MpiCall::Bcast:
  case MpiCall::Reduce:
  case MpiCall::Allreduce:
  case MpiCall::Alltoall:
    A.Bytes = Size;
    break;
  case MpiCall::ReduceScatter:
  case MpiCall::ReduceScatterBlock:
    // Every rank's slice: whole elements, at least one.
    A.SizesA.assign(P, std::max<uint64_t>(Elem, Size / P / Elem * Elem));
    break;
  case MpiCall::Barrier:
    break;
  default:
    A.SizesA.assign(P, Size);
  }
  return A;
}

bool isPowerOfTwo(uint64_t P) { return P && !(P & (P - 1)); }

} // namespace

std::optional<double> tune::price(const Grid &G, MpiCall C,
                                  const Candidate &Cand, uint64_t P,
                                  uint64_t Size) {
  if (Cand.PowerOfTwoOnly && !isPowerOfTwo(P))
    return std::nullopt;
  auto Bound = bindCall(argsOf(C, P, Size, G.Elem));
  if (!Bound) {
    llvm::consumeError(Bound.takeError());
    return std::nullopt;
  }
  auto S = pmpi::buildFor(Cand.Generator, Cand.Extra, Bound->Header,
                          Bound->ElemBytes);
  if (!S) {
    llvm::consumeError(S.takeError());
    return std::nullopt;
  }
  // Priced with the call's ports, each step's ops in the generator's order:
  // the order the MPI library posts them (MPICH's scattered alltoall sends
  // to rank - 1, rank - 2, ...). The drop-in library's (sender, receiver)
  // order (pmpi::canonicalStepOrder), which its executor posts, would queue
  // a one-port step's receives behind each other: the scattered alltoall
  // at p = 4 priced 1.7 times its own order. With the machine's
  // `library_step_startup`, the library's busy-polling step start-up
  // (CostModel::library()), not choreo's executor's.
  return evaluateCost(*S, G.Cfg.model(Bound->Header).library()).Async;
}

std::string tune::cheapest(const Grid &G, MpiCall C,
                           const std::vector<Candidate> &Cands, uint64_t P,
                           uint64_t Size) {
  std::string Best;
  double BestTime = 0;
  for (const Candidate &Cand : Cands) {
    std::optional<double> T = price(G, C, Cand, P, Size);
    if (T && (Best.empty() || *T < BestTime)) {
      Best = Cand.Name;
      BestTime = *T;
    }
  }
  return Best;
}

std::vector<Run> tune::runsOf(const Grid &G, MpiCall C,
                              const std::vector<Candidate> &Cands, uint64_t P) {
  std::vector<Run> Runs;
  std::vector<uint64_t> Sizes = G.sizes();
  if (C == MpiCall::Barrier)
    Sizes = {0};
  for (uint64_t S : Sizes) {
    std::string Choice = cheapest(G, C, Cands, P, S);
    if (Choice.empty())
      continue;
    if (!Runs.empty() && Runs.back().Choice == Choice)
      Runs.back().Last = S;
    else
      Runs.push_back({S, Choice});
  }
  return Runs;
}
