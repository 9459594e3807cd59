//===- bench/DistributedBench.cpp - One rank's share of the proof ---------===//
///
/// \file
/// What the distributed proof (docs/distributed-proof.md) costs the worst
/// rank of a large job: the rank's part (its rank form when the generator
/// has one, else the whole schedule generated once and projected on the
/// rank with the most ops), then the header's rules, the rank's header facts
/// (HeaderFacts) and the local check, each timed (best of five) and with
/// the heap it takes at its peak (counted by this program's operator new).
/// For a whole schedule the explicit checker's time on it is printed
/// beside. Usage:
///   choreo-bench-distributed [ALGO "ARGS"]...
/// (without arguments, the cases of the note in docs/distributed-proof.md).
///
//===----------------------------------------------------------------------===//

#include "generators/Generator.h"
#include "generators/blocks/Blocks.h"
#include "verifier/DistributedCheck.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <malloc.h>
#include <new>

using namespace choreo;

//===----------------------------------------------------------------------===//
// The heap, counted
//===----------------------------------------------------------------------===//

namespace {
size_t Live = 0, Peak = 0;

void *counted(size_t N) {
  void *P = std::malloc(N ? N : 1);
  if (!P)
    throw std::bad_alloc();
  Live += malloc_usable_size(P);
  Peak = std::max(Peak, Live);
  return P;
}

void uncounted(void *P) {
  if (!P)
    return;
  Live -= malloc_usable_size(P);
  std::free(P);
}
} // namespace

void *operator new(size_t N) { return counted(N); }
void *operator new[](size_t N) { return counted(N); }
void *operator new(size_t N, const std::nothrow_t &) noexcept {
  void *P = std::malloc(N ? N : 1);
  if (P) {
    Live += malloc_usable_size(P);
    Peak = std::max(Peak, Live);
  }
  return P;
}
void operator delete(void *P) noexcept { uncounted(P); }
void operator delete[](void *P) noexcept { uncounted(P); }
void operator delete(void *P, size_t) noexcept { uncounted(P); }
void operator delete[](void *P, size_t) noexcept { uncounted(P); }

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

/// Seconds of the best of Runs calls of F, and the most heap one call
/// takes beyond what was live before it.
template <typename F> std::pair<double, size_t> measure(F Fn, int Runs = 5) {
  double Best = 1e30;
  size_t Heap = 0;
  for (int I = 0; I < Runs; ++I) {
    size_t Before = Live;
    Peak = Live;
    auto T = Clock::now();
    Fn();
    Best = std::min(Best, since(T));
    Heap = std::max(Heap, Peak - Before);
  }
  return {Best, Heap};
}

/// Rank Me's part of S: the header and Me's ops, contributor sets interned
/// in the part's own table (what a rank of a job holds).
Schedule ownPart(const Schedule &S, Rank Me) {
  Schedule Out;
  Out.header() = S.header();
  Out.Algorithm = S.Algorithm;
  llvm::DenseMap<uint32_t, uint32_t> Ids;
  std::vector<Block> Bs;
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St) {
    Out.Steps.newStep();
    for (const Op &O : S.Steps.step(St)) {
      if (O.Src != Me && O.Dst != Me)
        continue;
      Bs.assign(S.Steps.blocks(O).begin(), S.Steps.blocks(O).end());
      for (Block &B : Bs)
        if (B.hasContrib()) {
          auto [It, New] = Ids.try_emplace(B.Contrib, 0);
          if (New)
            It->second = Out.Steps.addContrib(S.Steps.contrib(B.Contrib));
          B.Contrib = It->second;
        }
      Out.Steps.addOp(O.Src, O.Dst, Bs);
    }
  }
  return Out;
}

double mib(size_t Bytes) { return Bytes / 1048576.0; }

int runCase(const std::string &Algo, const std::string &Args) {
  const Generator *G = findGenerator(Algo);
  if (!G) {
    llvm::errs() << "error: unknown algorithm " << Algo << "\n";
    return 2;
  }
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::SplitString(Args, Parts);
  auto P = parseGenArgs(std::vector<std::string>(Parts.begin(), Parts.end()));
  if (!P) {
    llvm::errs() << "error: " << llvm::toString(P.takeError()) << "\n";
    return 2;
  }
  llvm::outs() << Algo << " " << Args << "\n";
  Schedule Part;
  Rank Me = 0;
  if (G->hasRankForm()) {
    // Every rank of these holds alike many ops: rank 0, and its build.
    std::string Error;
    auto [TBuild, HBuild] = measure(
        [&] {
          auto S = G->generateRank(*P, Me);
          if (S)
            Part = std::move(*S);
          else
            Error = llvm::toString(S.takeError());
        },
        3);
    if (!Error.empty() && Algo == "allgather-ring") {
      // Past the whole schedule's op budget, the generator refuses even its
      // rank form: build the rank form from its building block directly.
      uint64_t N = 0, Bytes = 0;
      for (size_t I = 0; I + 1 < Parts.size(); ++I) {
        if (Parts[I] == "--p")
          Parts[I + 1].getAsInteger(10, N);
        if (Parts[I] == "--bytes")
          Parts[I + 1].getAsInteger(10, Bytes);
      }
      std::vector<uint64_t> Sizes(N, Bytes);
      auto [TRing, HRing] = measure(
          [&] {
            Part = Schedule();
            Part.Kind = Collective::Allgather;
            setIntragroup(Part, N, Sizes);
            Part.Steps = intraAllgathervRank(IntraAlgorithm::Ring, Sizes, Me);
          },
          3);
      TBuild = TRing;
      HBuild = HRing;
      Error.clear();
      llvm::outs() << "  (the generator refuses p this large as a whole; "
                      "rank form from intraAllgathervRank)\n";
    }
    if (!Error.empty()) {
      llvm::errs() << "error: " << Error << "\n";
      return 2;
    }
    llvm::outs() << llvm::formatv(
        "  rank form of rank {0}: {1} ops, built in {2:f2} ms, {3:f2} MiB\n",
        Me, opsOf(Part, Me).size(), TBuild * 1e3, mib(HBuild));
  } else {
    auto T = Clock::now();
    auto W = G->generate(*P);
    if (!W) {
      llvm::errs() << "error: " << llvm::toString(W.takeError()) << "\n";
      return 2;
    }
    double TGen = since(T);
    std::vector<size_t> Count(W->NumRanks, 0);
    for (const Op &O : W->Steps.allOps()) {
      ++Count[O.Src];
      ++Count[O.Dst];
    }
    Me = std::max_element(Count.begin(), Count.end()) - Count.begin();
    T = Clock::now();
    VerifyResult E = checkExplicit(*W);
    double TExplicit = since(T);
    llvm::outs() << llvm::formatv(
        "  whole: {0} ops, {1} steps, generated in {2:f2} s, explicit "
        "checker {3:f2} s ({4})\n",
        W->Steps.numOps(), W->Steps.numSteps(), TGen, TExplicit,
        E.proved() ? "proved" : "NOT PROVED");
    Part = ownPart(*W, Me);
  }
  std::vector<Diagnostic> Bad = Part.verifyHeader();
  if (!Bad.empty()) {
    llvm::errs() << "error: " << Bad[0].Message << "\n";
    return 2;
  }
  std::vector<OpAt> Mine = opsOf(Part, Me);
  size_t PartBytes = Part.Steps.numOps() * sizeof(Op) +
                     Part.Steps.numBlocks() * sizeof(Block) +
                     (Part.Steps.numSteps() + 1) * 4;
  auto [THead, HHead] = measure([&] { (void)Part.verifyHeader(); });
  std::optional<HeaderFacts> Facts;
  // The rank's own facts (HeaderFacts answers its first rank from the
  // header, on demand): derived here, so that the check is timed alone.
  auto [TFacts, HFacts] = measure([&] {
    Facts.emplace(Part);
    (void)Facts->initialOf(Me);
  });
  LocalResult L;
  auto [TCheck, HCheck] = measure(
      [&] { L = checkLocal(Part, Me, Mine, *Facts, /*GlobalIndex=*/false); });
  bool Clean = L.Structure.empty() && L.Findings.empty() && !L.Lack;
  llvm::outs() << llvm::formatv(
      "  worst rank {0}: {1} ops ({2:f2} MiB), {3} peers; header rules "
      "{4:f2} ms ({5:f2} MiB), header facts {6:f2} ms ({7:f2} MiB), local "
      "check {8:f3} ms ({9:f1} KiB): {10}\n",
      Me, Mine.size(), mib(PartBytes), L.Sends.size() + L.Expects.size(),
      THead * 1e3, mib(HHead), TFacts * 1e3, mib(HFacts), TCheck * 1e3,
      HCheck / 1024.0, Clean ? "clean" : "FAILS");
  llvm::outs() << llvm::formatv(
      "  per rank in all (rules + facts + check): {0:f2} ms, {1:f2} MiB "
      "beyond its part\n",
      (THead + TFacts + TCheck) * 1e3, mib(std::max({HHead, HCheck}) + HFacts));
  return Clean ? 0 : 1;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::pair<std::string, std::string>> Cases;
  for (int I = 1; I + 1 < Argc; I += 2)
    Cases.push_back({Argv[I], Argv[I + 1]});
  if (Cases.empty())
    Cases = {
        {"allgather-ring", "--p 65536 --bytes 64"},
        {"inter-allgather-kang", "--p 8192 --q 8192 --bytes-a 64 --bytes-b 64"},
        {"allgather-bruck", "--p 65536 --bytes 64"},
        {"bcast-binomial", "--p 65536 --bytes 1M --root 5"},
        {"allreduce-recursive-doubling", "--p 65536 --bytes 1M"},
        {"allreduce-halving-doubling", "--p 8192 --bytes 1M"},
        {"allreduce-ring", "--p 1024 --bytes 1M"},
        {"reduce-scatter-ring", "--p 1024 --bytes 1M"},
        {"bcast-scatter-ring", "--p 2048 --bytes 1M"},
    };
  int Exit = 0;
  for (const auto &[Algo, Args] : Cases)
    Exit = std::max(Exit, runCase(Algo, Args));
  return Exit;
}
