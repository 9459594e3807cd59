//===- tests/mpi/job_cost_test.cpp - The model's time, priced in a job ----===//
///
/// \file
/// mpiexec -n N choreo-job-cost-test: the pricing of the drop-in library's
/// `auto` (pmpi/JobCost.h) in a real job, as a differential. Every rank
/// builds the same corpus of N-rank schedules (every generator that takes
/// the sweep's arguments), under three port models each (the generator's,
/// one shared channel, two duplex channels each way), keeps only its own
/// ops (onlyRank) and prices all of them in one call. Checks:
///  1. every schedule is priced, at exactly evaluateCost's asynchronous
///     time of the whole (its steps in canonicalStepOrder), on every rank,
///     and so is every multi-port schedule on a machine of one port;
///  2. a schedule with `nodes` whose node channels could make an op wait
///     is refused as such, one whose nodes each have one off-node sender
///     and receiver (the node-aware ring) is priced at the whole's time,
///     with the intra-node pair too; a candidate a rank could not build
///     is Missing, on every rank;
///  3. a rank holding a mutated part (another message) makes every rank
///     report Disagree for that candidate, or price it alike when the
///     mutation moved no message: never a hang.
///  4. the library's choice (chooseInJob) is chooseByModel's over whole
///     schedules, with the same time, for calls of every collective the
///     library serves (sizes from 1 byte to 1 MiB, roots, an
///     intercommunicator of 3 + 2, a non-commutative operator, alltoall(v)
///     priced on the call's one port), and again on a job of two nodes
///     with a cheap intra-node pair (the node-aware candidates, text,
///     time and count alike).
/// Rank 0 prints how many schedules were priced, how many prices differ
/// from the generator's own op order, and "job_cost_test: passed".
///
//===----------------------------------------------------------------------===//

#include "cost/Model.h"
#include "ir/Digest.h"
#include "pmpi/JobCost.h"
#include "pmpi/Selection.h"
#include "support/Generate.h"
#include "support/JobChecks.h"
#include "support/Mutations.h"
#include "verifier/DistributedCheck.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <mpi.h>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

int Me = 0, N = 1;
test::JobChecks Checks("job_cost_test", 0);
unsigned &Failures = Checks.Failures;

void expect(bool Ok, const std::string &What) { Checks.expect(Ok, What); }

/// The corpus under the generator's ports, one shared channel, and two
/// duplex channels each way.
std::vector<std::pair<std::string, Schedule>> cases() {
  std::vector<std::pair<std::string, Schedule>> Out;
  for (auto &[Name, S] : test::jobCorpus(N)) {
    if (S.hasNodes())
      continue;
    Schedule Shared = S, Two = S;
    Shared.Port = Ports();
    Shared.Port.Send = Shared.Port.Recv = 1;
    Shared.Port.Duplex = false;
    Two.Port = Ports();
    Two.Port.Send = Two.Port.Recv = 2;
    Two.Port.Duplex = true;
    Out.push_back({Name + " (shared port)", std::move(Shared)});
    Out.push_back({Name + " (2+2 ports)", std::move(Two)});
    Out.push_back({Name, std::move(S)});
  }
  return Out;
}

/// Bitwise equality of two doubles on every rank: rank 0's value.
bool sameEverywhere(double X) {
  double Lo = X, Hi = X;
  MPI_Allreduce(MPI_IN_PLACE, &Lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &Hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return std::memcmp(&Lo, &Hi, sizeof Lo) == 0;
}

/// Calls of every collective the library serves on N ranks (and an
/// intercommunicator of the groups N - N / 3 and N / 3).
std::vector<MpiArgs> calls() {
  std::vector<MpiArgs> Out;
  for (uint64_t Bytes : {1ull, 96ull, 65536ull, 1ull << 20}) {
    for (MpiCall C : {MpiCall::Allgather, MpiCall::Allgatherv}) {
      MpiArgs A;
      A.Call = C;
      for (int R = 0; R < N; ++R)
        A.SizesA.push_back(C == MpiCall::Allgather ? Bytes : Bytes * (R % 3));
      Out.push_back(A);
      A.Inter = true;
      A.SizesA.resize(N - N / 3);
      A.SizesB.assign(N / 3, Bytes);
      Out.push_back(A);
    }
    for (MpiCall C : {MpiCall::Bcast, MpiCall::Reduce, MpiCall::Allreduce}) {
      MpiArgs A;
      A.Call = C;
      A.Ranks = Rank(N);
      A.Bytes = Bytes * 8;
      A.ElemBytes = 8;
      A.Root = Rank(N - 1);
      Out.push_back(A);
      if (C != MpiCall::Bcast) {
        A.Commutative = false;
        Out.push_back(A);
      }
    }
    for (MpiCall C : {MpiCall::ReduceScatter, MpiCall::ReduceScatterBlock}) {
      MpiArgs A;
      A.Call = C;
      A.ElemBytes = 8;
      for (int R = 0; R < N; ++R)
        A.SizesA.push_back(C == MpiCall::ReduceScatterBlock ? Bytes * 8
                                                            : 8 * (R % 4));
      Out.push_back(A);
    }
    // Alltoall (every block alike) and alltoallv (a skewed matrix with
    // zeros): the scattered batch queues on the call's one port.
    for (MpiCall C : {MpiCall::Alltoall, MpiCall::Alltoallv}) {
      MpiArgs A;
      A.Call = C;
      A.Ranks = Rank(N);
      for (int I = 0; I < N; ++I)
        for (int J = 0; J < N; ++J)
          A.SizesA.push_back(
              C == MpiCall::Alltoall ? Bytes : Bytes * ((I + 2 * J) % 3));
      Out.push_back(A);
    }
  }
  return Out;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  Checks = test::JobChecks("job_cost_test", Me);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  CostModel M;
  M.Alpha = 2e-6;
  M.Beta = 1e-9;
  M.Gamma = 2.5e-10;

  // 1. Every corpus schedule, priced at the whole's time.
  auto C = cases();
  std::vector<std::optional<Schedule>> Parts;
  for (auto &[Name, S] : C)
    Parts.push_back(onlyRank(S, Rank(Me)));
  std::vector<const std::optional<Schedule> *> Ptrs;
  for (const auto &P : Parts)
    Ptrs.push_back(&P);
  std::vector<JobPrice> Prices = priceInJob(MPI_COMM_WORLD, Ptrs, Rank(Me), M);
  expect(Prices.size() == C.size(), "one price per candidate");
  unsigned Reordered = 0;
  for (size_t I = 0; I < C.size() && I < Prices.size(); ++I) {
    const auto &[Name, S] = C[I];
    double Whole = evaluateCost(canonicalStepOrder(S), M).Async;
    expect(Prices[I].St == JobPrice::Status::Priced, Name + ": not priced");
    expect(Prices[I].Time == Whole,
           Name + ": priced " + std::to_string(Prices[I].Time) +
               ", the whole's time is " + std::to_string(Whole));
    expect(sameEverywhere(Prices[I].Time), Name + ": ranks differ");
    Reordered += evaluateCost(S, M).Async != Whole;
  }

  // 1b. The schedules written for more than one port, on a machine with
  // one (CostModel::Ports): the replay queues their messages alike.
  {
    CostModel M1 = M;
    M1.Ports = 1;
    std::vector<const std::optional<Schedule> *> Multi;
    std::vector<size_t> At;
    for (size_t I = 0; I < C.size(); ++I)
      if (C[I].second.Port.Send > 1 || C[I].second.Port.Recv > 1) {
        Multi.push_back(&Parts[I]);
        At.push_back(I);
      }
    std::vector<JobPrice> P1 = priceInJob(MPI_COMM_WORLD, Multi, Rank(Me), M1);
    expect(P1.size() == At.size(), "one price per multi-port candidate");
    for (size_t K = 0; K < At.size() && K < P1.size(); ++K) {
      const auto &[Name, S] = C[At[K]];
      double Whole = evaluateCost(canonicalStepOrder(S), M1).Async;
      expect(P1[K].St == JobPrice::Status::Priced && P1[K].Time == Whole,
             Name + " on one port: priced " + std::to_string(P1[K].Time) +
                 ", the whole's time is " + std::to_string(Whole));
    }
  }

  // 1c. With a start-up (CostModel::StepStartup): each rank pays it per
  // receive it waits for and its sends wait for the wake-up (startUpWake),
  // in the replay as in the whole.
  {
    CostModel MS = M;
    MS.StepStartup = 3e-6;
    std::vector<JobPrice> PS = priceInJob(MPI_COMM_WORLD, Ptrs, Rank(Me), MS);
    expect(PS.size() == C.size(), "one price per candidate (step start-up)");
    for (size_t I = 0; I < C.size() && I < PS.size(); ++I) {
      const auto &[Name, S] = C[I];
      double Whole = evaluateCost(canonicalStepOrder(S), MS).Async;
      expect(PS[I].St == JobPrice::Status::Priced && PS[I].Time == Whole &&
                 Whole > evaluateCost(canonicalStepOrder(S), M).Async,
             Name + " with a step start-up: priced " +
                 std::to_string(PS[I].Time) + ", the whole's time is " +
                 std::to_string(Whole));
    }
  }

  // 1d. With flow control (CostModel::FlowControlBytes, opTimes): a gated
  // op waits for its receiver's clear-to-send and its sender for the
  // acknowledgement, in the replay as in the whole; messages of 8 bytes
  // and more are gated, so most candidates cost more.
  {
    CostModel MF = M;
    MF.StepStartup = 3e-6;
    MF.FlowControlBytes = 8;
    CostModel MS = M;
    MS.StepStartup = 3e-6;
    std::vector<JobPrice> PF = priceInJob(MPI_COMM_WORLD, Ptrs, Rank(Me), MF);
    expect(PF.size() == C.size(), "one price per candidate (flow control)");
    size_t Dearer = 0;
    for (size_t I = 0; I < C.size() && I < PF.size(); ++I) {
      const auto &[Name, S] = C[I];
      double Whole = evaluateCost(canonicalStepOrder(S), MF).Async;
      double Ungated = evaluateCost(canonicalStepOrder(S), MS).Async;
      Dearer += Whole > Ungated;
      expect(PF[I].St == JobPrice::Status::Priced && PF[I].Time == Whole &&
                 Whole >= Ungated,
             Name + " with flow control: priced " +
                 std::to_string(PF[I].Time) + ", the whole's time is " +
                 std::to_string(Whole));
    }
    expect(Dearer * 2 > C.size(),
           "flow control makes most candidates dearer: " +
               std::to_string(Dearer) + " of " + std::to_string(C.size()));
  }

  // 2. Nodes, and a candidate rank N-1 could not build.
  {
    auto G = findGenerator("allgatherv-pipelined-ring");
    std::string Nodes = "--p " + std::to_string(N) + " --bytes 64 --nodes " +
                        std::to_string(N - N / 2) + "," + std::to_string(N / 2);
    auto S = test::generateFromArgs(*G, Nodes);
    expect(bool(S), "allgatherv-pipelined-ring " + Nodes + " builds");
    std::optional<Schedule> Ring, Built, Crossing;
    if (S) {
      Ring = onlyRank(*S, Rank(Me));
      if (Me != N - 1)
        Built = onlyRank(*S, Rank(Me));
      // The plain ring on nodes of alternate ranks: every rank sends off
      // its node, so a node's channel would serve two ranks.
      auto R =
          test::generateFromArgs(*findGenerator("allgather-ring"),
                                 "--p " + std::to_string(N) + " --bytes 64");
      if (R) {
        R->Nodes.emplace(2);
        for (Rank X = 0; X < Rank(N); ++X)
          (*R->Nodes)[X % 2].push_back(X);
        Crossing = onlyRank(*R, Rank(Me));
      } else {
        llvm::consumeError(R.takeError());
      }
    } else {
      llvm::consumeError(S.takeError());
    }
    std::vector<const std::optional<Schedule> *> Three = {&Ring, &Built,
                                                          &Crossing};
    CostModel MI = M;
    MI.Intra = LinkCost{M.Alpha / 10, M.Beta / 10};
    for (const CostModel *X : {&M, &MI}) {
      auto P = priceInJob(MPI_COMM_WORLD, Three, Rank(Me), *X);
      double Whole = S ? evaluateCost(canonicalStepOrder(*S), *X).Async : -1.0;
      expect(P.size() == 3 && P[0].St == JobPrice::Status::Priced &&
                 P[0].Time == Whole,
             "the node-aware ring is priced at the whole's time " +
                 std::to_string(Whole) + (X == &MI ? " (intra pair)" : ""));
      expect(P.size() == 3 && P[1].St == JobPrice::Status::Missing,
             "a part some rank lacks is Missing");
      expect(P.size() == 3 && P[2].St == JobPrice::Status::HasNodes,
             "a part whose node channels serve two ranks is refused");
    }
  }

  // 3. Rank 1 holds a mutated part of each of a few schedules.
  unsigned Disagreed = 0, Mutated = 0;
  {
    std::mt19937 Rng(7);
    std::vector<std::optional<Schedule>> MParts;
    std::vector<std::string> Hows;
    for (size_t I = 0; I < C.size() && MParts.size() < 40; I += 3) {
      Schedule X;
      std::string How;
      if (!test::mutate(C[I].second, X, How, Rng))
        continue;
      if (!(headerDigest(X.header()) == headerDigest(C[I].second.header())))
        continue; // another header is the proof's to refuse
      MParts.push_back(onlyRank(Me == 1 ? X : C[I].second, Rank(Me)));
      Hows.push_back(C[I].first + ", " + How);
    }
    std::vector<const std::optional<Schedule> *> MPtrs;
    for (const auto &P : MParts)
      MPtrs.push_back(&P);
    auto P = priceInJob(MPI_COMM_WORLD, MPtrs, Rank(Me), M);
    Mutated = unsigned(P.size());
    for (size_t I = 0; I < P.size(); ++I) {
      double St = double(P[I].St);
      expect(sameEverywhere(St) && sameEverywhere(P[I].Time),
             Hows[I] + ": ranks price a mutated part differently");
      Disagreed += P[I].St == JobPrice::Status::Disagree;
    }
  }

  // 4. The library's choice is the whole schedules' choice.
  unsigned Calls = 0, NodeAware = 0;
  SelectionConfig Sel;
  for (const MpiArgs &A : calls()) {
    auto Call = bindCall(A);
    expect(bool(Call), "a corpus call binds");
    if (!Call) {
      llvm::consumeError(Call.takeError());
      continue;
    }
    ++Calls;
    std::string What = Call->describe();
    auto Whole = chooseByModel(*Call, Sel);
    auto Job = chooseInJob(MPI_COMM_WORLD, Rank(Me), *Call, Sel);
    expect(bool(Whole) == bool(Job), What + ": chosen in one way only");
    if (Whole && Job) {
      expect(Whole->Id == Job->Id,
             What + ": the job chose " + Job->Id + ", the whole " + Whole->Id);
      expect(Whole->Time == Job->Time, What + ": another time");
      expect(Whole->Candidates == Job->Candidates,
             What + ": another number of candidates");
      expect(Job->Part && opsOf(*Job->Part, Rank(Me)).size() ==
                              opsOf(Whole->S, Rank(Me)).size(),
             What + ": the winner's part holds this rank's ops");
    }
    if (!Whole)
      llvm::consumeError(Whole.takeError());
    // Two nodes, the second of N / 2 ranks, and a cheap intra-node pair:
    // the node-aware candidates are priced in the job as over the whole.
    if (Call->inter())
      continue;
    SelectionConfig SelN;
    SelN.Model.Intra = LinkCost{SelN.Model.Alpha / 20, SelN.Model.Beta / 50};
    std::vector<uint32_t> NodeOf(N, 0);
    for (int X = N - N / 2; X < N; ++X)
      NodeOf[X] = 1;
    auto WholeN = chooseByModel(*Call, SelN, NodeOf);
    auto JobN = chooseInJob(MPI_COMM_WORLD, Rank(Me), *Call, SelN, NodeOf);
    expect(bool(WholeN) == bool(JobN), What + " on nodes: chosen in one way");
    if (WholeN && JobN) {
      expect(WholeN->Text == JobN->Text, What + " on nodes: the job chose " +
                                             JobN->Text + ", the whole " +
                                             WholeN->Text);
      expect(WholeN->Time == JobN->Time, What + " on nodes: another time");
      expect(WholeN->Candidates == JobN->Candidates,
             What + " on nodes: another number of candidates");
      NodeAware += WholeN->Text.find(":nodes=") != std::string::npos;
    }
    if (!WholeN)
      llvm::consumeError(WholeN.takeError());
  }

  MPI_Allreduce(MPI_IN_PLACE, &Failures, 1, MPI_UNSIGNED, MPI_SUM,
                MPI_COMM_WORLD);
  if (Me == 0) {
    std::printf("job_cost_test: %zu schedules priced (%u differ in the "
                "generator's op order); %u of %u mutated parts disagree; "
                "%u calls chosen as over whole schedules (on two nodes "
                "too, %u of them node-aware)\n",
                C.size(), Reordered, Disagreed, Mutated, Calls, NodeAware);
    if (!Failures)
      std::printf("job_cost_test: passed\n");
  }
  MPI_Finalize();
  return Failures ? 1 : 0;
}
