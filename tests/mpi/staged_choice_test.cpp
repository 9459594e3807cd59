//===- tests/mpi/staged_choice_test.cpp - auto for a started alltoallv ----===//
///
/// \file
/// mpiexec -n 5 choreo-staged-choice-test: the pricing a started
/// MPI_Ialltoallv's run makes under `auto` (pmpi/JobCost.h, StagedChoice:
/// every rank holds only its part of each candidate, built from its row
/// and column; the reductions carried by the caller, the replay advanced
/// without blocking) against the exact model of the whole schedules, on
/// random matrices (zeros, empty rows and columns, blocks from 1 byte to
/// 256 KiB, skewed ones) over all 5 ranks and over the first 4 (the XOR
/// partners of pairwise). For each matrix, every rank checks:
///  1. the pick is the model's pick from the whole schedules: each
///     candidate that builds from a row and column, built whole from the
///     whole matrix, priced at evaluateCost(...).Async of its steps in
///     canonicalStepOrder, the first of the least; the same time exactly,
///     the same number of candidates, the same cheapest MPICH model (so
///     the margin decides alike);
///  2. it is chooseInJob's (the blocking call's pricing) on the same
///     parts, and the same on every rank;
///  3. the winner's part holds this rank's ops of the whole winner.
/// Rank 0 prints how many matrices were priced and which algorithms won,
/// then "staged_choice_test: passed".
///
//===----------------------------------------------------------------------===//

#include "cost/Model.h"
#include "ir/CallBinding.h"
#include "ir/PairMatrix.h"
#include "pmpi/Candidates.h"
#include "pmpi/JobCost.h"
#include "pmpi/Selection.h"
#include "pmpi/Shape.h"
#include "support/JobChecks.h"
#include "verifier/DistributedCheck.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <mpi.h>
#include <random>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

int Me = 0, N = 1;
test::JobChecks Checks("staged_choice_test", 0);

void expect(bool Ok, const std::string &What) { Checks.expect(Ok, What); }

/// Matrix T of P ranks (alike on every rank: seeded by T).
std::vector<uint64_t> matrixOf(unsigned T, int P) {
  std::mt19937_64 G(0x5eed0000 + T);
  static const uint64_t Scale[] = {1, 8, 100, 1024, 9000, 65536, 262144};
  uint64_t S = Scale[T % 7];
  std::vector<uint64_t> M(size_t(P) * P);
  int EmptyRow = T % 5 == 1 ? int(G() % P) : -1;
  int EmptyCol = T % 5 == 2 ? int(G() % P) : -1;
  for (int I = 0; I < P; ++I)
    for (int J = 0; J < P; ++J) {
      uint64_t X = G() % 10 < 3 ? 0 : 1 + G() % S;
      if (T % 4 == 3 && I == 0)
        X *= 16; // one heavy row
      if (I == EmptyRow || J == EmptyCol)
        X = 0;
      M[size_t(I) * P + J] = X;
    }
  return M;
}

/// The whole schedules' pick among the candidates that build from a
/// part, as chooseByModel prices each one.
struct WholePick {
  std::string Text, MpichText;
  double Time = 0;
  std::optional<double> MpichTime;
  unsigned Candidates = 0;
  std::optional<Schedule> S;
};

WholePick wholePick(const BoundCall &Part, const BoundCall &Whole,
                    const SelectionConfig &Sel) {
  WholePick Out;
  CostModel M = Sel.model(Whole.Header);
  for (const Candidate &C : candidatesFor(Part.Header, {})) {
    if (!candidateOptions(C, Part.Header, Part.ElemBytes))
      continue;
    auto Mine = buildFor(C.G->id(), C.Extra, Part.Header, Part.ElemBytes,
                         Rank(Me));
    if (!Mine) {
      llvm::consumeError(Mine.takeError());
      continue;
    }
    auto S = buildFor(C.G->id(), C.Extra, Whole.Header, Whole.ElemBytes);
    expect(bool(S), C.text() + ": its whole schedule does not build");
    if (!S) {
      llvm::consumeError(S.takeError());
      continue;
    }
    double T = evaluateCost(canonicalStepOrder(*S), M).Async;
    ++Out.Candidates;
    if (Out.Candidates == 1 || T < Out.Time) {
      Out.Text = C.text();
      Out.Time = T;
      Out.S = std::move(*S);
    }
    if (C.G->id().ends_with("-mpich") && (!Out.MpichTime || T < *Out.MpichTime)) {
      Out.MpichText = C.text();
      Out.MpichTime = T;
    }
  }
  return Out;
}

bool sameEverywhere(double X, MPI_Comm Comm) {
  double Lo = X, Hi = X;
  MPI_Allreduce(MPI_IN_PLACE, &Lo, 1, MPI_DOUBLE, MPI_MIN, Comm);
  MPI_Allreduce(MPI_IN_PLACE, &Hi, 1, MPI_DOUBLE, MPI_MAX, Comm);
  return std::memcmp(&Lo, &Hi, sizeof Lo) == 0;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  Checks = test::JobChecks("staged_choice_test", Me);
  unsigned Priced = 0;
  std::map<std::string, unsigned> Won;
  SelectionConfig Sel;
  for (int P : {N, N - 1}) {
    MPI_Comm Comm;
    MPI_Comm_split(MPI_COMM_WORLD, Me < P ? 0 : MPI_UNDEFINED, Me, &Comm);
    if (Comm == MPI_COMM_NULL)
      continue;
    for (unsigned T = 0; T < 28; ++T) {
      std::vector<uint64_t> M = matrixOf(T, P);
      std::string What = "p = " + std::to_string(P) + ", matrix " +
                         std::to_string(T);
      MpiArgs WA;
      WA.Call = MpiCall::Alltoallv;
      WA.Ranks = Rank(P);
      WA.SizesA = M;
      auto Whole = bindCall(WA);
      MpiArgs PA;
      PA.Call = MpiCall::Alltoallv;
      PA.Ranks = Rank(P);
      PA.Part = std::make_shared<RankSizes>(
          rankSizesOf(PairMatrix(Rank(P), M), Rank(Me)));
      PA.MatrixKey = {0x1234 + T, 0x5678 + uint64_t(P)};
      auto Part = bindCall(PA);
      expect(Whole && Part, What + ": the call does not bind");
      if (!Whole || !Part) {
        if (!Whole)
          llvm::consumeError(Whole.takeError());
        if (!Part)
          llvm::consumeError(Part.takeError());
        continue;
      }
      // The staged pricing, its reductions here by MPI_Allreduce.
      StagedChoice SC(*Part, Sel, Rank(Me));
      std::vector<uint64_t> Sums = SC.sumWords();
      MPI_Allreduce(MPI_IN_PLACE, Sums.data(), int(Sums.size()), MPI_UINT64_T,
                    MPI_SUM, Comm);
      SC.startReplays(Comm, Sums, 0x6c00);
      while (!SC.advance()) {
      }
      std::vector<uint64_t> Max = SC.maxWords();
      MPI_Allreduce(MPI_IN_PLACE, Max.data(), int(Max.size()), MPI_UINT64_T,
                    MPI_MAX, Comm);
      size_t At = 0;
      std::optional<JobChoice> Staged = SC.choose(Max, &At);
      // 1. The whole schedules' pick.
      WholePick W = wholePick(*Part, *Whole, Sel);
      expect(bool(Staged) == (W.Candidates > 0), What + ": priced one way");
      if (!Staged)
        continue;
      ++Priced;
      ++Won[Staged->Text];
      expect(Staged->Text == W.Text,
             What + ": staged chose " + Staged->Text + ", the whole " + W.Text);
      expect(Staged->Time == W.Time, What + ": staged time differs");
      expect(Staged->Candidates == W.Candidates,
             What + ": another number of candidates");
      expect(Staged->MpichId == W.MpichText &&
                 Staged->MpichTime == W.MpichTime,
             What + ": another MPICH model");
      for (double Margin : {0.0, 0.1, 0.5})
        expect(handedToMpich(Staged->Time, Staged->MpichTime, Margin) ==
                   handedToMpich(W.Time, W.MpichTime, Margin),
               What + ": the margin decides otherwise");
      // 2. chooseInJob's, alike on every rank.
      auto Job = chooseInJob(Comm, Rank(Me), *Part, Sel);
      expect(Job && Job->Text == Staged->Text && Job->Time == Staged->Time &&
                 Job->MpichTime == Staged->MpichTime,
             What + ": chooseInJob chose otherwise");
      expect(sameEverywhere(Staged->Time, Comm) &&
                 sameEverywhere(double(At), Comm),
             What + ": the ranks chose differently");
      // 3. The winner's part.
      expect(Staged->Part && W.S &&
                 opsOf(*Staged->Part, Rank(Me)).size() ==
                     opsOf(*W.S, Rank(Me)).size(),
             What + ": the winner's part is not this rank's ops");
    }
    MPI_Comm_free(&Comm);
  }
  unsigned Failures = Checks.Failures;
  MPI_Allreduce(MPI_IN_PLACE, &Failures, 1, MPI_UNSIGNED, MPI_SUM,
                MPI_COMM_WORLD);
  if (Me == 0) {
    std::string Wins;
    for (auto &[Name, K] : Won)
      Wins += (Wins.empty() ? "" : ", ") + Name + " " + std::to_string(K);
    std::printf("staged_choice_test: %u matrices priced from rows and "
                "columns as over the whole schedules (won: %s)\n",
                Priced, Wins.c_str());
    if (!Failures)
      std::printf("staged_choice_test: passed\n");
  }
  MPI_Finalize();
  return Failures ? 1 : 0;
}
