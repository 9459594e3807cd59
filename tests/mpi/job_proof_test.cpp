//===- tests/mpi/job_proof_test.cpp - The distributed proof in a job ------===//
///
/// \file
/// mpiexec -n N choreo-job-proof-test [MUTATIONS]: the distributed proof
/// (executor/JobProof.h) in a real job, as a differential. Every rank
/// builds the same corpus of N-rank schedules (every generator that takes
/// the sweep's arguments) and the same seeded mutations of them, keeps only
/// its own ops (onlyRank) and proves the parts with the job's ranks. Checks:
///  1. every rank ends with the same verdict text (no rank hangs or
///     differs);
///  2. the verdict is the in-process simulation's over the same parts
///     (checkDistributedViews): proved, or the same diagnostics, word for
///     word; and its status is the explicit checker's on the whole;
///  3. a rank holding another part than the others (a different mutation,
///     or another header) makes every rank refuse with the simulation's
///     message-agreement diagnostic (or the header's disagreement);
///  4. a verdict cache: proved once, known in the job after, and read from
///     the cache directory by a new cache;
///  5. alltoallv parts that hold their own rank's row and column (headers
///     that differ from rank to rank): proved as the simulation proves
///     them, and a part that only its own rank can find wrong (its own
///     header's rules, another rank's row and column, a row not where the
///     rows before it end) makes every rank refuse with the simulation's
///     words, naming that rank, instead of leaving the others waiting.
/// Rank 0 prints "job_proof_test: passed" when every check held.
///
//===----------------------------------------------------------------------===//

#include "executor/JobProof.h"
#include "generators/Generator.h"
#include "support/Generate.h"
#include "support/JobChecks.h"
#include "support/Mutations.h"
#include "verifier/DistributedCheck.h"

#include "ir/Digest.h"
#include "ir/PairMatrix.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mpi.h>

using namespace choreo;

namespace {

int Me = 0, N = 1;
test::JobChecks Checks("job_proof_test", 0);
unsigned &Failures = Checks.Failures;

void expect(bool Ok, const std::string &What) { Checks.expect(Ok, What); }

/// The pipeline's text of a failed verdict (executor/JobProof.cpp).
std::string textOf(const VerifyResult &R) {
  std::string Diags;
  llvm::raw_string_ostream OS(Diags);
  printDiagnostics(OS, R.Diags);
  return "the schedule does not verify; it is not run:\n" +
         llvm::StringRef(Diags).rtrim().str();
}

/// Whether every rank holds the same Text.
bool sameEverywhere(const std::string &Text) {
  Hasher X;
  X.mix(Text);
  uint64_t H = X.digest().H1;
  uint64_t V[2] = {H, ~H};
  MPI_Allreduce(MPI_IN_PLACE, V, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  return V[0] == ~V[1];
}

/// Proves Views[Me] in the job; checks the verdict against the simulation
/// of the same views. Returns whether the job proved it.
bool proveAndCompare(const std::vector<Schedule> &Views,
                     const std::string &What, const Schedule *Whole) {
  auto How = proveInJob(MPI_COMM_WORLD, Views[Me], Rank(Me), {}, nullptr);
  std::string Got = How ? "proved" : llvm::toString(How.takeError());
  expect(sameEverywhere(Got), What + ": the ranks' verdicts differ: " + Got);
  if (Me != 0)
    return Got == "proved";
  VerifyResult Sim = checkDistributedViews(Views);
  std::string Want = Sim.proved() ? "proved" : textOf(Sim);
  // A header the ranks disagree on is refused before the simulation's
  // merge; the job says which rank differs.
  bool HeaderDiffers = false;
  for (const Schedule &V : Views)
    HeaderDiffers |= !(partHeaderDigest(V) == partHeaderDigest(Views[0]));
  if (HeaderDiffers)
    expect(Got.find("another call header or step count") != std::string::npos,
           What + ": expected a header disagreement, got: " + Got);
  else
    expect(Got == Want, What + ":\n job: " + Got + "\n simulation: " + Want);
  if (Whole && !HeaderDiffers) {
    VerifyResult E = checkExplicit(*Whole);
    expect(E.proved() == (Got == "proved"),
           What + ": the explicit checker says " +
               (E.proved() ? "proved" : textOf(E)) + "; the job: " + Got);
  }
  return Got == "proved";
}

std::vector<Schedule> partsOf(const Schedule &S) {
  std::vector<Schedule> V;
  for (Rank R = 0; R < Rank(N); ++R)
    V.push_back(onlyRank(S, R));
  return V;
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  Checks = test::JobChecks("job_proof_test", Me);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  unsigned Mutations = Argc > 1 ? unsigned(std::atoi(Argv[1])) : 200;
  auto C = test::jobCorpus(N);
  expect(C.size() > 20,
         "the corpus has " + std::to_string(C.size()) + " schedules");
  // 1, 2: the corpus proves; its mutations agree with the simulation.
  unsigned Proved = 0, Refused = 0, Done = 0;
  for (const auto &[What, S] : C)
    if (S.verify().empty())
      Proved += proveAndCompare(partsOf(S), What, &S);
  std::mt19937 Rng(4242);
  while (Done < Mutations) {
    const auto &[What, Base] = C[Rng() % C.size()];
    Schedule S;
    std::string How;
    if (!test::mutate(Base, S, How, Rng))
      continue;
    ++Done;
    Refused += !proveAndCompare(partsOf(S), What + ", " + How,
                                S.verify().empty() ? &S : nullptr);
  }
  // 3: one rank holds another part.
  unsigned Disagree = 0;
  for (unsigned K = 0; K < 40;) {
    const auto &[What, Base] = C[Rng() % C.size()];
    Schedule S;
    std::string How;
    if (!test::mutate(Base, S, How, Rng))
      continue;
    ++K;
    std::vector<Schedule> V = partsOf(Base);
    Rank Odd = Rng() % N;
    V[Odd] = onlyRank(S, Odd);
    Disagree += !proveAndCompare(
        V, What + ", rank " + std::to_string(Odd) + " holds: " + How, nullptr);
  }
  // 4: the verdict cache.
  {
    std::string Dir = "job-proof-cache";
    if (Me == 0) {
      llvm::sys::fs::remove_directories(Dir);
      llvm::sys::fs::create_directories(Dir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const Schedule &S = C.front().second;
    Schedule Part = onlyRank(S, Rank(Me));
    VerdictCache Cache;
    Cache.Dir = Dir;
    std::string Hows[3];
    for (int I = 0; I < 3; ++I) {
      VerdictCache Fresh;
      Fresh.Dir = Dir;
      auto How = proveInJob(MPI_COMM_WORLD, Part, Rank(Me), {},
                            I < 2 ? &Cache : &Fresh);
      Hows[I] = How ? *How : llvm::toString(How.takeError());
    }
    expect(llvm::StringRef(Hows[0]).starts_with("proved by " +
                                                std::to_string(N) + " ranks"),
           "first proof: " + Hows[0]);
    expect(Hows[1] == "proof known in this job", "second proof: " + Hows[1]);
    expect(Hows[2] == "proof cached in CHOREO_CACHE_DIR",
           "third proof: " + Hows[2]);
  }
  // 5: alltoallv parts with their own rows and columns.
  {
    const Generator *G = findGenerator("alltoallv-mpich");
    expect(G != nullptr, "alltoallv-mpich is registered");
    Rank P = Rank(N);
    std::vector<uint64_t> Pairs(size_t(P) * P);
    for (Rank I = 0; I < P; ++I)
      for (Rank J = 0; J < P; ++J)
        Pairs[size_t(I) * P + J] = (I * 3 + J * 5) % 4 * 8;
    CallHeader H;
    H.Kind = Collective::Alltoallv;
    setIntragroup(H, P, {});
    H.Sizes = {{"pairs", Pairs}};
    auto Whole = G->generateFor(H, 8, OptionValues(G->options()));
    expect(bool(Whole), "the whole alltoallv builds");
    auto Parts = [&](const std::function<void(RankSizes &)> &Edit) {
      std::vector<Schedule> V;
      for (Rank R = 0; R < P; ++R) {
        RankSizes Rs = rankSizesOf(PairMatrix(H), R);
        CallHeader Own = H;
        setRankSizes(Own, Rs);
        auto S = G->generateFor(Own, 8, OptionValues(G->options()), R);
        expect(bool(S), "rank " + std::to_string(R) + "'s part builds");
        if (!S)
          std::exit(1);
        // The header edited after the build (a generator refuses a bad one).
        Edit(Rs);
        setRankSizes(*S, Rs);
        V.push_back(std::move(*S));
      }
      return V;
    };
    expect(proveAndCompare(Parts([](RankSizes &) {}),
                           "alltoallv rows and columns", Whole ? &*Whole : nullptr),
           "alltoallv rows and columns: not proved");
    Rank Odd = P - 2;
    struct Bad {
      std::string What, Want;
      std::function<void(RankSizes &)> Edit;
    };
    std::vector<Bad> Cases = {
        {"rank's own header fails its rules", "/sizes/column_at/",
         [&](RankSizes &Rs) {
           if (Rs.Me == Odd)
             Rs.ColumnAt[Odd] += 1;
         }},
        {"rank holds another rank's row and column",
         "holds the row and column of rank",
         [&](RankSizes &Rs) {
           if (Rs.Me == Odd)
             Rs = rankSizesOf(PairMatrix(H), Odd + 1);
         }},
        {"rank's row starts after the rows before it end",
         "'s row starts at byte", [&](RankSizes &Rs) {
           if (Rs.Me == Odd) {
             Rs.RowAt += 8;
             Rs.ColumnAt[Odd] += 8;
           }
         }}};
    for (const Bad &B : Cases) {
      std::string What = "alltoallv rank " + std::to_string(Odd) + ": " + B.What;
      std::vector<Schedule> V = Parts(B.Edit);
      expect(!proveAndCompare(V, What, nullptr), What + ": proved");
      auto How = proveInJob(MPI_COMM_WORLD, V[Me], Rank(Me), {}, nullptr);
      std::string Got = How ? "proved" : llvm::toString(How.takeError());
      expect(Got.find(B.Want) != std::string::npos &&
                 Got.find("rank " + std::to_string(Odd)) != std::string::npos,
             What + ": expected '" + B.Want + "' naming rank " +
                 std::to_string(Odd) + ", got: " + Got);
    }
  }
  if (Me == 0)
    std::printf("job_proof_test: %zu schedules (%u proved), %u mutations "
                "(%u refused), %u disagreeing parts (%u refused)\n",
                C.size(), Proved, Done, Refused, 40u, Disagree);
  unsigned All = Failures;
  MPI_Allreduce(MPI_IN_PLACE, &All, 1, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD);
  if (Me == 0 && All == 0)
    std::printf("job_proof_test: passed\n");
  MPI_Finalize();
  return All == 0 ? 0 : 1;
}
