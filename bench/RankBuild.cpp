//===- bench/RankBuild.cpp - Whole and per-rank builds of every generator -===//
///
/// \file
/// For every registered generator (its first declared collective; members
/// of 1 KiB, a 1 MiB vector or message, alltoall blocks of 1 KiB (an
/// alltoall's header sizes.block, an alltoallv's its matrix, whose rank
/// builds from its row and column), root 0): the
/// largest p (a power of
/// two, at most 65,536) whose whole schedule has at most 2M ops, with that
/// build's op count, time and peak resident memory; and, for a
/// generator with a rank form, the worst of ranks 0, 1, p/2 and p - 1
/// building only their own ops at p = 65,536 (what a rank of a job does on
/// a call's first use; each rank's time the least of three runs, its
/// memory the most), then checking them as a job's rank does (the
/// distributed proof, docs/distributed-proof.md: the header's rules, its
/// tables, the local check; the memory column is the peak of build and
/// proof together). Each build runs in a child process so that its peak
/// memory is its own (the child's peak less an empty child's). A generator
/// may come with its own options in one argument ("bcast-binomial --groups
/// 256").
/// Usage (`choreo-bench-rank-build --help` prints it):
///   choreo-bench-rank-build [--cpu] [--rank-only] [--phases] [--plan]
///                           [--plan-ranges] [--rank-p N]
///                           [--ranks-per-node K] [--inter-parts]
///                           [--alltoallv-parts] [GENERATOR...]
/// (default: every generator; --rank-p: the rank forms at N ranks rather
/// than 65,536, e.g. `choreo-bench-rank-build --rank-p 16384
/// alltoall-bruck`; --cpu: times in thread CPU time, not wall time;
/// --ranks-per-node: every header and build on nodes of K consecutive
/// ranks, e.g. `choreo-bench-rank-build --ranks-per-node 64 "bcast-binomial
/// --groups nodes"`; --inter-parts: an intergroup alltoall's rank builds
/// from its row and column, as an intercommunicator MPI_Alltoallv's does,
/// e.g. `choreo-bench-rank-build --rank-only --rank-p 32768 --inter-parts
/// inter-alltoall-pairwise`: p = q = 32,768; --alltoallv-parts: an
/// alltoall generator that serves alltoallv too builds its rank form as an
/// MPI_Alltoallv's rank does, from its row and column and, for
/// alltoall-bruck, the blocks it relays of its --radix (sizes.relay,
/// computed here in closed form as a job's Bruck round of the sizes learns
/// them), e.g. `choreo-bench-rank-build --rank-only --alltoallv-parts
/// "alltoall-bruck --radix 2"`).
///
//===----------------------------------------------------------------------===//

#include "executor/RankPlan.h"
#include "generators/Generator.h"
#include "generators/allgatherv/Distributions.h"
#include "generators/alltoall/AlltoallOptions.h"
#include "ir/PairMatrix.h"
#include "options/Parse.h"
#include "verifier/DistributedCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <optional>

using namespace choreo;

namespace {

struct Measure {
  bool Ok = false;
  uint64_t Ops = 0;
  double Cpu = 0;
  /// A rank's part: its local proof's time, and whether it was clean.
  double Proof = 0;
  /// The proof's phases (--phases): header rules, header tables, opsOf,
  /// the local check.
  double Rules = 0, Tables = 0, OpsOf = 0, Check = 0;
  bool Clean = true;
  /// With --plan: compiling the rank's plan (executor/RankPlan.h) after
  /// the proof, its time, pieces and bytes.
  double Plan = 0;
  uint64_t PlanPieces = 0, PlanBytes = 0, PlanScratch = 0, PlanAreas = 0;
  double PeakMiB = 0;
  std::string Error;
};

/// With --cpu: the thread's CPU time (the build is single-threaded; this
/// clock has sub-microsecond steps here, where the process CPU clock ticks
/// in 10 ms), which a loaded machine inflates much less than wall time.
bool UseCpuClock = false;

/// With --rank-only: no whole builds, only the rank forms' columns.
bool RankOnly = false;

/// With --inter-parts: an intergroup alltoall's rank form from its row
/// and column (interAlltoallvRankHeader), not sizes.block.
bool InterParts = false;

/// With --alltoallv-parts: an alltoall generator's rank form from an
/// alltoallv rank's row and column (and the blocks it relays).
bool AlltoallvParts = false;

/// With --phases: the worst rank's proof split into its phases.
bool Phases = false;

/// With --plan: each rank part's plan compiled after its proof (1); with
/// --plan-ranges the same of its lattice blocks expanded into ranges (2,
/// what the executor did before it ran lattices as pieces).
int PlanMode = 0;

/// With --distribution NAME: a collective sized per member (allgatherv,
/// gatherv, ...) takes seed 003's distribution NAME of 1 MiB
/// (distributionSizes) instead of 1 KiB from every member.
std::optional<Distribution> MemberDistribution;

/// Wall time, or the thread's CPU time with --cpu. Run on a quiet machine.
double nowSeconds() {
  timespec T;
  clock_gettime(UseCpuClock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

/// Rank Me's part of headerFor's alltoallv matrix (1 KiB blocks, block
/// (0, 1) one byte short), its row and column in closed form, O(p): what a
/// rank of a job holds (docs/alltoall.md).
CallHeader alltoallvRankHeader(uint32_t P, Rank Me) {
  auto Size = [](uint64_t I, uint64_t J) -> uint64_t {
    return I == 0 && J == 1 ? 1023 : 1024;
  };
  // Row i starts after i rows of p KiB, less the short block's byte.
  auto RowAt = [&](uint64_t I) { return I * P * 1024 - (I > 0 ? 1 : 0); };
  RankSizes Rs;
  Rs.Me = Me;
  Rs.RowAt = RowAt(Me);
  Rs.Total = uint64_t(P) * P * 1024 - (P > 1 ? 1 : 0);
  Rs.Row.resize(P);
  Rs.Column.resize(P);
  Rs.ColumnAt.resize(P);
  bool Pow2 = !(P & (P - 1));
  Rs.Used.assign(P, Pow2 ? 3 : 1); // every block has bytes
  for (uint64_t K = 0; K < P; ++K) {
    Rs.Row[K] = Size(Me, K);
    Rs.Column[K] = Size(K, Me);
    Rs.ColumnAt[K] = RowAt(K) + uint64_t(Me) * 1024 - (K == 0 && Me > 1);
  }
  CallHeader H;
  H.Kind = Collective::Alltoallv;
  setIntragroup(H, P, {});
  setRankSizes(H, std::move(Rs));
  return H;
}

/// alltoallvRankHeader's with the blocks Bruck with radix K relays through
/// rank Me (sizes.relay), from the same closed form.
CallHeader alltoallvBruckRankHeader(uint32_t P, Rank Me, uint64_t K) {
  CallHeader H = alltoallvRankHeader(P, Me);
  std::vector<uint64_t> Relay = bruckRelayList(
      P, K, Me, [&](Rank I, Rank J) -> Interval {
        uint64_t At = uint64_t(I) * P * 1024 - (I > 0 ? 1 : 0) +
                      uint64_t(J) * 1024 - (I == 0 && J > 1 ? 1 : 0);
        return {At, At + (I == 0 && J == 1 ? 1023 : 1024)};
      });
  H.Sizes.push_back({"relay", std::move(Relay)});
  return H;
}

/// Rank Me's part of an intergroup alltoallv over groups of P ranks each
/// (A = 0..P-1, B = P..2P-1): every block between the groups 1 KiB but
/// block (0, P), one byte short; its row, column, column_at and the used
/// steps (every one of the P) in closed form, O(P): what a rank of an
/// intercommunicator's MPI_Alltoallv holds (docs/alltoall.md).
CallHeader interAlltoallvRankHeader(uint32_t P, Rank Me) {
  uint64_t N = 2 * uint64_t(P);
  auto Size = [&](uint64_t I, uint64_t J) -> uint64_t {
    if ((I < P) == (J < P))
      return 0;
    return I == 0 && J == P ? 1023 : 1024;
  };
  // Every row holds P blocks of 1 KiB (row 0 one byte short).
  auto RowAt = [&](uint64_t I) { return I * P * 1024 - (I > 0 ? 1 : 0); };
  auto BlockAt = [&](uint64_t I, uint64_t J) {
    uint64_t In = I < P ? (J < P ? 0 : (J - P) * 1024 - (I == 0 && J > P))
                        : (J < P ? J * 1024 : uint64_t(P) * 1024);
    return RowAt(I) + In;
  };
  RankSizes Rs;
  Rs.Me = Me;
  Rs.RowAt = RowAt(Me);
  Rs.Total = N * P * 1024 - 1;
  Rs.Row.resize(N);
  Rs.Column.resize(N);
  Rs.ColumnAt.resize(N);
  Rs.Used.assign(N, 0);
  for (uint64_t K = 0; K < P; ++K)
    Rs.Used[K] = 1; // every step carries bytes
  for (uint64_t K = 0; K < N; ++K) {
    Rs.Row[K] = Size(Me, K);
    Rs.Column[K] = Size(K, Me);
    Rs.ColumnAt[K] = BlockAt(K, Me);
  }
  CallHeader H;
  H.Kind = Collective::InterAlltoall;
  setIntergroup(H, std::vector<uint64_t>(P, 0), std::vector<uint64_t>(P, 0));
  setRankSizes(H, std::move(Rs));
  return H;
}

CallHeader headerFor(Collective Kind, uint32_t P) {
  const CollectiveSpec &Spec = specOf(Kind);
  CallHeader H;
  H.Kind = Kind;
  if (Spec.Intergroup) {
    std::vector<uint64_t> Zeros(P, 0), Kib(P, 1024);
    if (Spec.NoPayload) { // a barrier: one byte per rank
      setIntergroup(H, std::vector<uint64_t>(P, 1),
                    std::vector<uint64_t>(P, 1));
    } else if (Spec.Data == DataKind::Broadcast || Spec.isReduction()) {
      // One vector of 1 MiB.
      setIntergroup(H, Zeros, Zeros);
      H.Sizes = {{"all", {uint64_t(1) << 20}}};
    } else if (Spec.Data == DataKind::Alltoall) {
      // Blocks of 1 KiB between the groups: the uniform sizes.block
      // [1024, 1024].
      setIntergroup(H, Zeros, Zeros);
      setInterUniformBlock(H, 1024, 1024);
    } else if (Spec.Rooted) {
      // A gather or scatter rooted at rank 0 of A: B's members 1 KiB each.
      setIntergroup(H, Zeros, Kib);
    } else {
      setIntergroup(H, Kib, Spec.OnlyAContributes ? Zeros : Kib);
    }
  } else if (Spec.Data == DataKind::Alltoall) {
    // MPI_Alltoall's header is one block size (sizes.block); an
    // MPI_Alltoallv's is its p x p matrix (sizes.pairs), here of 1 KiB
    // blocks but block (0, 1), one byte shorter (a matrix alike would be
    // built as sizes.block).
    setIntragroup(H, P, {});
    if (Kind == Collective::Alltoall) {
      setUniformBlock(H, 1024);
    } else {
      H.Sizes = {{"pairs", std::vector<uint64_t>(size_t(P) * P, 1024)}};
      H.Sizes[0].Values[1] = 1023;
    }
  } else if (Spec.NoPayload) {
    setIntragroup(H, P, std::vector<uint64_t>(P, 1));
  } else if (Spec.sizedPerMember()) {
    std::vector<uint64_t> Sizes(P, 1024);
    if (MemberDistribution) {
      auto D = distributionSizes(*MemberDistribution, P, uint64_t(1) << 20);
      if (D)
        Sizes = std::move(*D);
      else
        llvm::consumeError(D.takeError()); // 1 MiB never overflows
    }
    setIntragroup(H, P, std::move(Sizes));
  } else {
    setIntragroup(H, P, {uint64_t(1) << 20});
  }
  if (Spec.Rooted)
    H.Root = 0;
  return H;
}

/// Builds in a child process: the whole schedule, or rank Only's part.
Measure measure(const Generator &G, const CallHeader &H,
                const OptionValues &Own, std::optional<Rank> Only) {
  int Fd[2];
  if (pipe(Fd) != 0)
    return {};
  pid_t Pid = fork();
  if (Pid == 0) {
    close(Fd[0]);
    double T0 = nowSeconds();
    Measure M;
    if (H.NumRanks) {
      auto S = G.generateFor(H, 8, Own, Only);
      M.Cpu = nowSeconds() - T0;
      if (S) {
        M.Ok = true;
        M.Ops = S->Steps.numOps();
        if (Only) {
          double T1 = nowSeconds();
          M.Clean = S->verifyHeader().empty();
          double T2 = nowSeconds();
          M.Rules = T2 - T1;
          if (M.Clean) {
            HeaderFacts Facts(*S);
            double T3 = nowSeconds();
            std::vector<OpAt> Mine = opsOf(*S, *Only);
            double T4 = nowSeconds();
            LocalResult L = checkLocal(*S, *Only, Mine, Facts,
                                       /*GlobalIndex=*/false);
            M.Clean = L.Structure.empty() && L.Findings.empty() && !L.Lack;
            double T5 = nowSeconds();
            M.Tables = T3 - T2;
            M.OpsOf = T4 - T3;
            M.Check = T5 - T4;
          }
          M.Proof = nowSeconds() - T1;
          if (PlanMode && M.Clean) {
            if (PlanMode == 2)
              S->Steps.expandLattices();
            double T6 = nowSeconds();
            auto RP = compileRankPlan(*S, *Only);
            M.Plan = nowSeconds() - T6;
            if (RP) {
              M.PlanPieces = RP->numPieces();
              M.PlanBytes = RP->memoryBytes();
              M.PlanScratch = RP->ScratchBytes;
              for (const ScratchArea &A : RP->ScratchAreas)
                M.PlanAreas += A.Bytes;
            } else {
              M.Clean = false;
              llvm::consumeError(RP.takeError());
            }
          }
        }
      } else {
        M.Error = llvm::toString(S.takeError());
      }
    }
    std::string Line =
        llvm::formatv("{0} {1} {2:F9} {3:F9} {4:F9} {5:F9} {6:F9} {7:F9} "
                      "{8:F9} {9} {10} {11} {12} {13} {14}\n",
                      M.Ok ? 1 : 0, M.Ops, M.Cpu, M.Proof, M.Rules, M.Tables,
                      M.OpsOf, M.Check, M.Plan, M.PlanPieces, M.PlanBytes,
                      M.PlanScratch, M.PlanAreas, M.Clean ? 1 : 0, M.Error);
    (void)!write(Fd[1], Line.data(), Line.size());
    _exit(0);
  }
  close(Fd[1]);
  std::string Text;
  char Buf[4096];
  ssize_t N;
  while ((N = read(Fd[0], Buf, sizeof Buf)) > 0)
    Text.append(Buf, N);
  close(Fd[0]);
  int Status = 0;
  rusage U{};
  wait4(Pid, &Status, 0, &U);
  Measure M;
  llvm::StringRef Rest(Text);
  auto [OkText, R1] = Rest.split(' ');
  auto [OpsText, R2] = R1.split(' ');
  auto [CpuText, R3] = R2.split(' ');
  auto [ProofText, R4] = R3.split(' ');
  double *Phase[] = {&M.Rules, &M.Tables, &M.OpsOf, &M.Check, &M.Plan};
  for (double *X : Phase) {
    auto [PhaseText, More] = R4.split(' ');
    *X = std::strtod(PhaseText.str().c_str(), nullptr);
    R4 = More;
  }
  auto [PiecesText, R5] = R4.split(' ');
  auto [BytesText, R6] = R5.split(' ');
  auto [ScratchText, R6b] = R6.split(' ');
  auto [AreasText, R7] = R6b.split(' ');
  PiecesText.getAsInteger(10, M.PlanPieces);
  BytesText.getAsInteger(10, M.PlanBytes);
  ScratchText.getAsInteger(10, M.PlanScratch);
  AreasText.getAsInteger(10, M.PlanAreas);
  auto [CleanText, Err] = R7.split(' ');
  M.Ok = OkText == "1";
  OpsText.getAsInteger(10, M.Ops);
  M.Cpu = std::strtod(CpuText.str().c_str(), nullptr);
  M.Proof = std::strtod(ProofText.str().c_str(), nullptr);
  M.Clean = CleanText == "1";
  M.Error = Err.trim().str();
  M.PeakMiB = U.ru_maxrss / 1024.0;
  if (!WIFEXITED(Status)) {
    M.Ok = false;
    M.Error = "the build crashed";
  }
  return M;
}

const char *Usage =
    "usage: choreo-bench-rank-build [--cpu] [--rank-only] [--phases] [--plan]\n"
    "                               [--plan-ranges] [--rank-p N]\n"
    "                               [--ranks-per-node K] [--distribution NAME]\n"
    "                               [--inter-parts] [--alltoallv-parts]\n"
    "                               [GENERATOR...]\n"
    "\n"
    "For each GENERATOR (default: every registered one), the whole build at\n"
    "the largest power-of-two p whose schedule has at most 2M ops (ops, "
    "seconds,\n"
    "peak MiB), and with a rank form the worst of ranks 0, 1, p/2 and p - 1\n"
    "building their own ops at p = 65,536 and checking them as a job's rank\n"
    "does (ops, build ms, local proof ms, peak MiB; each the least of three\n"
    "runs). A generator may come with its own options in one argument:\n"
    "  choreo-bench-rank-build \"bcast-binomial --groups 256\" "
    "allgather-ring\n"
    "\n"
    "options:\n"
    "  --cpu                 times in thread CPU time, not wall time\n"
    "  --rank-only           only the rank forms (no whole builds)\n"
    "  --phases              the worst rank's proof by phase: header rules,\n"
    "                        header tables, opsOf, the local check\n"
    "  --plan                each rank part's plan compiled after its proof:\n"
    "                        its time, pieces, bytes and scratch bytes (the\n"
    "                        worst rank's), and its scratch areas' sum (what\n"
    "                        scratch would be if no two areas shared bytes)\n"
    "  --plan-ranges         the same with lattice blocks expanded into\n"
    "                        ranges first (the plan before lattice pieces)\n"
    "  --rank-p N            the rank forms at N ranks (at least 2), not "
    "65,536\n"
    "  --ranks-per-node K    nodes of K consecutive ranks in every header "
    "and build\n"
    "                        (--nodes K,K,...; a generator must take "
    "--nodes)\n"
    "  --distribution NAME   collectives sized per member take seed 003's\n"
    "                        distribution NAME of 1 MiB (regular, broadcast,\n"
    "                        spike, half-full, decreasing, geometric), not\n"
    "                        1 KiB from every member; e.g.\n"
    "                        --distribution broadcast allgatherv-mpich-ring\n"
    "  --inter-parts         an intergroup alltoall's rank form from its row\n"
    "                        and column (an intercommunicator MPI_Alltoallv's\n"
    "                        part), not sizes.block; groups of N ranks each\n"
    "                        (--rank-p N)\n"
    "  --alltoallv-parts     an alltoall generator that serves alltoallv\n"
    "                        too builds its rank form from an alltoallv\n"
    "                        rank's row and column (and alltoall-bruck the\n"
    "                        blocks it relays, sizes.relay of its --radix)\n"
    "  --help                print this and exit\n";

/// The nodes of K consecutive ranks out of P (the last may hold fewer).
std::vector<std::vector<Rank>> nodesOf(uint32_t P, uint32_t K) {
  std::vector<std::vector<Rank>> Out;
  for (uint32_t R = 0; R < P; ++R) {
    if (R % K == 0)
      Out.emplace_back();
    Out.back().push_back(R);
  }
  return Out;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<const Generator *> Gens;
  std::vector<OptionValues> Owns;
  std::vector<std::vector<std::string>> ArgsOf;
  std::vector<std::string> Names;
  uint32_t RankRanks = 65536, PerNode = 0;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg(Argv[I]);
    if (Arg == "--help" || Arg == "-h") {
      llvm::outs() << Usage;
      return 0;
    }
    if (Arg == "--cpu") {
      UseCpuClock = true;
      continue;
    }
    if (Arg == "--phases") {
      Phases = true;
      continue;
    }
    if (Arg == "--plan" || Arg == "--plan-ranges") {
      PlanMode = Arg == "--plan" ? 1 : 2;
      continue;
    }
    if (Arg == "--distribution") {
      if (I + 1 >= Argc ||
          !(MemberDistribution = distributionByName(Argv[I + 1]))) {
        llvm::errs() << "error: --distribution: expected one of "
                     << llvm::join(distributionNames(), ", ")
                     << (I + 1 < Argc ? std::string(", got ") + Argv[I + 1]
                                      : "")
                     << "\n";
        return 2;
      }
      ++I;
      continue;
    }
    if (Arg == "--inter-parts") {
      InterParts = true;
      continue;
    }
    if (Arg == "--alltoallv-parts") {
      AlltoallvParts = true;
      continue;
    }
    if (Arg == "--rank-only") {
      RankOnly = true;
      continue;
    }
    if (Arg == "--ranks-per-node") {
      if (I + 1 >= Argc ||
          llvm::StringRef(Argv[++I]).getAsInteger(10, PerNode) || PerNode < 1) {
        llvm::errs() << "error: --ranks-per-node: expected a number of ranks "
                        "of at least 1"
                     << (I < Argc ? std::string(", got ") + Argv[I] : "")
                     << "\n";
        return 2;
      }
      continue;
    }
    if (Arg == "--rank-p") {
      if (I + 1 >= Argc ||
          llvm::StringRef(Argv[++I]).getAsInteger(10, RankRanks) ||
          RankRanks < 2) {
        llvm::errs() << "error: --rank-p: expected a number of ranks of at "
                        "least 2"
                     << (I < Argc ? std::string(", got ") + Argv[I] : "")
                     << "\n";
        return 2;
      }
      continue;
    }
    if (Arg.starts_with("-")) {
      llvm::errs() << "error: unknown option " << Arg
                   << " (see choreo-bench-rank-build --help)\n";
      return 2;
    }
    llvm::SmallVector<llvm::StringRef, 8> Words;
    llvm::StringRef(Argv[I]).split(Words, ' ', -1, false);
    const Generator *G = Words.empty() ? nullptr : findGenerator(Words[0]);
    if (!G) {
      llvm::errs() << "error: no generator " << Argv[I]
                   << " (see choreo help gen for the generators, "
                      "choreo-bench-rank-build --help for the options)\n";
      return 2;
    }
    std::vector<std::string> Args(Words.begin() + 1, Words.end());
    auto Own = parseOptions(Args, G->options());
    if (!Own) {
      llvm::errs() << "error: " << Argv[I] << ": "
                   << llvm::toString(Own.takeError()) << "\n";
      return 2;
    }
    Gens.push_back(G);
    Owns.push_back(*Own);
    ArgsOf.push_back(Args);
    Names.push_back(Argv[I]);
  }
  if (Gens.empty())
    for (const Generator *G : allGenerators()) {
      Gens.push_back(G);
      Owns.emplace_back();
      ArgsOf.emplace_back();
      Names.push_back(G->id().str());
    }
  // With --ranks-per-node: a generator's own options and the header at P
  // ranks with the nodes (std::nullopt: the generator refuses --nodes).
  auto OwnAt = [&](size_t GI, uint32_t P) -> std::optional<OptionValues> {
    if (!PerNode)
      return Owns[GI];
    std::vector<std::string> Args = ArgsOf[GI];
    std::string List;
    for (const auto &N : nodesOf(P, PerNode))
      List += (List.empty() ? "" : ",") + std::to_string(N.size());
    Args.push_back("--nodes");
    Args.push_back(List);
    auto Own = parseOptions(Args, Gens[GI]->options());
    if (!Own) {
      llvm::consumeError(Own.takeError());
      return std::nullopt;
    }
    return *Own;
  };
  auto HeaderAt = [&](Collective Kind, uint32_t P) {
    CallHeader H = headerFor(Kind, P);
    if (PerNode)
      H.Nodes = nodesOf(P, PerNode);
    return H;
  };
  // An empty child's peak: what every measured peak includes.
  CallHeader Empty;
  double Base = measure(*Gens.front(), Empty, {}, std::nullopt).PeakMiB;
  llvm::outs() << llvm::formatv(
      "{0,-32} {1,-22} {2,6} {3,9} {4,8} {5,8}   {6}\n", "generator",
      "collective", "p", "ops", "s", "MiB",
      llvm::formatv("rank form at p = {0} ", RankRanks).str() +
          "(worst of 4 ranks): ops, build, local proof, peak");
  for (size_t GI = 0; GI < Gens.size(); ++GI) {
    const Generator *G = Gens[GI];
    Collective Kind = G->collectives().members().front();
    std::optional<uint32_t> BestP;
    Measure Best;
    if (PerNode && !OwnAt(GI, PerNode)) {
      llvm::outs() << llvm::formatv("{0,-32} takes no --nodes\n", Names[GI]);
      continue;
    }
    for (uint32_t P = 2; P <= 65536 && !RankOnly; P *= 2) {
      Measure M = measure(*G, HeaderAt(Kind, P), *OwnAt(GI, P), std::nullopt);
      if (!M.Ok || M.Ops > 2'000'000)
        break;
      BestP = P;
      Best = M;
    }
    std::string Whole =
        BestP ? std::string(llvm::formatv("{0,6} {1,9} {2,8:F3} {3,8:F1}",
                                          *BestP, Best.Ops, Best.Cpu,
                                          Best.PeakMiB - Base))
              : std::string(llvm::formatv("{0,6} {1,9} {2,8} {3,8}", "-", "-",
                                          "-", "-"));
    std::string RankCol = "no rank form";
    if (G->hasRankForm()) {
      // An alltoallv's rank holds its row and column (alltoallvRankHeader).
      uint32_t RankP = RankRanks;
      bool InterPart = InterParts && Kind == Collective::InterAlltoall;
      // An alltoall's rank form as an alltoallv rank's (--alltoallv-parts):
      // Bruck's with its relayed blocks.
      uint64_t Relay = 0;
      if (AlltoallvParts && Kind == Collective::Alltoall &&
          G->collectives().contains(Collective::Alltoallv)) {
        Kind = Collective::Alltoallv;
        if (declares(G->options(), opt::relayed()))
          Relay = OwnAt(GI, RankRanks)->get(opt::radix());
      }
      CallHeader H = Kind == Collective::Alltoallv
                         ? alltoallvRankHeader(RankP, 0)
                     : InterPart ? interAlltoallvRankHeader(RankP, 0)
                                 : HeaderAt(Kind, RankP);
      const OptionValues Own = *OwnAt(GI, RankP);
      Measure Worst;
      bool Ok = true;
      for (uint32_t Me : {0u, 1u, H.NumRanks / 2, uint32_t(H.NumRanks - 1)}) {
        if (InterPart)
          H = interAlltoallvRankHeader(RankP, Me);
        if (Kind == Collective::Alltoallv) {
          H = Relay ? alltoallvBruckRankHeader(RankP, Me, Relay)
                    : alltoallvRankHeader(RankP, Me);
          if (PerNode)
            H.Nodes = nodesOf(RankP, PerNode);
        }
        Measure M = measure(*G, H, Own, Rank(Me));
        if (!M.Ok) {
          Ok = false;
          // A refusal's time too (what a rank pays to learn it).
          RankCol = llvm::formatv("failed in {0:F3} ms, {1:F1} MiB: ",
                                  M.Cpu * 1e3, M.PeakMiB - Base)
                        .str() +
                    M.Error;
          break;
        }
        // Wall times on a shared machine: the least of three runs.
        for (int Again = 0; Again < 2; ++Again) {
          Measure N = measure(*G, H, Own, Rank(Me));
          M.Cpu = std::min(M.Cpu, N.Cpu);
          if (N.Proof < M.Proof) {
            M.Proof = N.Proof;
            M.Rules = N.Rules;
            M.Tables = N.Tables;
            M.OpsOf = N.OpsOf;
            M.Check = N.Check;
          }
          M.PeakMiB = std::max(M.PeakMiB, N.PeakMiB);
          M.Plan = std::min(M.Plan, N.Plan);
        }
        if (!M.Clean) {
          Ok = false;
          RankCol = llvm::formatv("rank {0}'s local proof FAILS", Me);
          break;
        }
        Worst.Cpu = std::max(Worst.Cpu, M.Cpu);
        if (M.Proof >= Worst.Proof) {
          Worst.Proof = M.Proof;
          Worst.Rules = M.Rules;
          Worst.Tables = M.Tables;
          Worst.OpsOf = M.OpsOf;
          Worst.Check = M.Check;
        }
        if (M.PeakMiB > Worst.PeakMiB)
          Worst.PeakMiB = M.PeakMiB;
        Worst.Plan = std::max(Worst.Plan, M.Plan);
        Worst.PlanPieces = std::max(Worst.PlanPieces, M.PlanPieces);
        Worst.PlanBytes = std::max(Worst.PlanBytes, M.PlanBytes);
        Worst.PlanScratch = std::max(Worst.PlanScratch, M.PlanScratch);
        Worst.PlanAreas = std::max(Worst.PlanAreas, M.PlanAreas);
        Worst.Ops = std::max(Worst.Ops, M.Ops);
      }
      if (Ok)
        RankCol = llvm::formatv(
            "{0} ops, {1:F3} ms, {2:F3} ms, {3:F1} MiB{4}", Worst.Ops,
            Worst.Cpu * 1e3, Worst.Proof * 1e3, Worst.PeakMiB - Base,
            RankP == RankRanks ? std::string()
                               : llvm::formatv(" (p = {0})", RankP).str());
      if (Ok && PlanMode)
        RankCol += llvm::formatv(
            "; plan{0} {1:F3} ms, {2} pieces, {3:F1} KiB, scratch {4} B "
            "({5} B in areas)",
            PlanMode == 2 ? " (ranges)" : "", Worst.Plan * 1e3,
            Worst.PlanPieces, Worst.PlanBytes / 1024.0, Worst.PlanScratch,
            Worst.PlanAreas);
      if (Ok && Phases)
        RankCol += llvm::formatv(" [proof: rules {0:F3}, tables {1:F3}, "
                                 "opsOf {2:F3}, check {3:F3} ms]",
                                 Worst.Rules * 1e3, Worst.Tables * 1e3,
                                 Worst.OpsOf * 1e3, Worst.Check * 1e3);
    }
    llvm::outs() << llvm::formatv("{0,-32} {1,-22} {2}   {3}\n", Names[GI],
                                  collectiveName(Kind), Whole, RankCol);
    llvm::outs().flush();
  }
  return 0;
}
