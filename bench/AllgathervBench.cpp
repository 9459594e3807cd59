//===- bench/AllgathervBench.cpp - Seed 003's rings over sweeps -----------===//
///
/// \file
/// `choreo-bench-allgatherv rounds`: the pipelined ring's steps against
/// Eq. 1 (r = b - min b_i, without the zero-skip) and the zero-skip formula
/// (sum ceil(m_i/B) - 1 + z') over random sizes with zeros, p <= 64, several
/// B, rank order and equidistant order, every schedule proved; a summary of
/// where the formulas are exact and by how much they miss elsewhere.
/// `choreo-bench-allgatherv nodes`: the node-aware ring on every layout of
/// up to 8 nodes with 1..8 processes each, as multisets of node sizes in
/// nondecreasing order (12,869 layouts; 1,..,8 nodes), each with random
/// sizes with zeros, proved with `nodes` and node ports {1, 1}.
///
//===----------------------------------------------------------------------===//

#include "generators/allgatherv/AllgathervRing.h"
#include "verifier/Verifier.h"

#include "llvm/ADT/StringExtras.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <random>

using namespace choreo;

namespace {

std::string joined(const std::vector<uint64_t> &V) {
  std::vector<std::string> Parts;
  for (uint64_t X : V)
    Parts.push_back(std::to_string(X));
  return llvm::join(Parts, ",");
}

Schedule generate(const std::vector<std::string> &Args) {
  auto P = parseGenArgs(Args);
  if (!P) {
    std::fprintf(stderr, "%s\n", llvm::toString(P.takeError()).c_str());
    std::exit(2);
  }
  auto S = findGenerator("allgatherv-pipelined-ring")->generate(*P);
  if (!S) {
    std::fprintf(stderr, "%s\n", llvm::toString(S.takeError()).c_str());
    std::exit(2);
  }
  return std::move(*S);
}

bool proved(const Schedule &S, const std::string &What) {
  VerifyResult R = checkExplicit(S);
  if (R.proved())
    return true;
  std::fprintf(stderr, "NOT PROVED: %s: %s\n", What.c_str(),
               R.Diags.empty() ? "?" : R.Diags.front().Message.c_str());
  return false;
}

uint64_t ceilDiv(uint64_t A, uint64_t B) { return A / B + (A % B != 0); }

int rounds() {
  std::mt19937 Rng(2026);
  struct Tally {
    unsigned Cases = 0, Exact = 0;
    int64_t Over = 0, Under = 0;
  };
  std::map<std::string, Tally> T;
  unsigned Failed = 0;
  for (unsigned P = 2; P <= 64; ++P)
    for (unsigned ZeroPct : {0u, 25u, 50u, 75u})
      for (unsigned Trial = 0; Trial < 2; ++Trial) {
        std::vector<uint64_t> Sizes(P);
        for (uint64_t &M : Sizes)
          M = Rng() % 100 < ZeroPct ? 0 : 1 + Rng() % 4096;
        if (std::all_of(Sizes.begin(), Sizes.end(),
                        [](uint64_t M) { return M == 0; }))
          Sizes[0] = 1;
        for (uint64_t B : {64, 512, 4096})
          for (const char *Rerank : {"none", "equidistant"}) {
            std::vector<std::string> Args = {
                "--p",           std::to_string(P), "--counts", joined(Sizes),
                "--block-bytes", std::to_string(B), "--rerank", Rerank};
            auto OffArgs = Args;
            OffArgs.push_back("--skip-empty");
            OffArgs.push_back("off");
            Schedule Off = generate(OffArgs), On = generate(Args);
            Failed += !proved(Off, joined(Sizes)) + !proved(On, joined(Sizes));
            uint64_t Sum = 0, Min = UINT64_MAX;
            for (uint64_t M : Sizes) {
              uint64_t Bi = std::max<uint64_t>(1, ceilDiv(M, B));
              Sum += Bi;
              Min = std::min(Min, Bi);
            }
            auto Count = [&](const std::string &Key, int64_t Got,
                             int64_t Want) {
              Tally &X = T[Key];
              ++X.Cases;
              X.Exact += Got == Want;
              X.Over = std::max(X.Over, Got - Want);
              X.Under = std::max(X.Under, Want - Got);
            };
            bool AnyZero =
                std::find(Sizes.begin(), Sizes.end(), 0) != Sizes.end();
            std::string Z = AnyZero ? "z > 0" : "z = 0";
            Count("Eq. 1, lock step, " + Z, Off.Steps.numSteps(), Sum - Min);
            if (!AnyZero)
              continue;
            const std::vector<Rank> &Order = On.Topo.Order;
            bool Cond = true;
            for (size_t K = 0; K < P; ++K) {
              uint64_t M = Sizes[Order[K]];
              uint64_t Zi = 0;
              while (M && Zi + 1 < P && Sizes[Order[(K + P - 1 - Zi) % P]] == 0)
                ++Zi;
              if (M && ceilDiv(M, B) <= Zi)
                Cond = false;
            }
            if (Cond && std::string(Rerank) == "equidistant") {
              // The paper's closed form with z' = floor(z / (p - z)).
              uint64_t Zc = 0, SumCeil = 0;
              for (uint64_t M : Sizes) {
                Zc += M == 0;
                SumCeil += M ? ceilDiv(M, B) : 0;
              }
              Count(std::string("paper: sum ceil(m_i/B) - 1 + floor(z/(p-z)), "
                                "equidistant, every b_i > z_i, ") +
                        (Zc % (P - Zc) ? "(p-z) does not divide z"
                                       : "(p-z) divides z"),
                    On.Steps.numSteps(), SumCeil - 1 + Zc / (P - Zc));
            }
            Count(std::string("zero-skip formula, ") + Rerank +
                      (Cond ? ", every b_i > z_i" : ", some b_i <= z_i"),
                  On.Steps.numSteps(), zeroSkipRounds(Sizes, Order, B));
          }
      }
  std::printf("| formula | schedules | exact | schedule longer by at most | "
              "shorter by at most |\n|---|---|---|---|---|\n");
  for (auto &[Key, X] : T)
    std::printf("| %s | %u | %u | %lld | %lld |\n", Key.c_str(), X.Cases,
                X.Exact, (long long)X.Over, (long long)X.Under);
  std::printf("\nnot proved: %u\n", Failed);
  return Failed ? 1 : 0;
}

int nodes() {
  std::mt19937 Rng(8);
  unsigned Layouts = 0, Failed = 0;
  uint64_t Ops = 0;
  auto Start = std::chrono::steady_clock::now();
  std::vector<uint64_t> PerNode;
  std::function<void(unsigned)> Rec = [&](unsigned MinSize) {
    if (!PerNode.empty()) {
      unsigned P = 0;
      for (uint64_t X : PerNode)
        P += X;
      std::vector<uint64_t> Sizes(P);
      for (uint64_t &M : Sizes)
        M = Rng() % 4 == 0 ? 0 : 1 + Rng() % 64;
      Schedule S = generate({"--p", std::to_string(P), "--nodes",
                             joined(PerNode), "--counts", joined(Sizes),
                             "--block-bytes", "16"});
      Failed += !S.hasNodes() || !proved(S, joined(PerNode));
      Ops += S.Steps.numOps();
      ++Layouts;
    }
    if (PerNode.size() == 8)
      return;
    for (unsigned X = MinSize; X <= 8; ++X) {
      PerNode.push_back(X);
      Rec(X);
      PerNode.pop_back();
    }
  };
  Rec(1);
  double Secs = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  std::printf("node-aware ring: %u layouts (1..8 nodes x 1..8 processes), "
              "%llu ops, %u not proved, %.1f s\n",
              Layouts, (unsigned long long)Ops, Failed, Secs);
  return Failed ? 1 : 0;
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Mode = Argc > 1 ? Argv[1] : "";
  if (Mode == "rounds")
    return rounds();
  if (Mode == "nodes")
    return nodes();
  std::fprintf(stderr, "usage: choreo-bench-allgatherv rounds|nodes\n");
  return 2;
}
