//===- tests/unit/GeneratorSweepTest.cpp - Every generator, p, q <= 16 ----===//
///
/// \file
/// The property sweep: every generator for every p, q in 1..16 and sizes
/// including 0, 1 and values not divisible by p or q, each schedule proved
/// by the explicit verifier; step counts checked against the algorithms'
/// formulas where they are exact.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "generators/blocks/Blocks.h"

#include <numeric>
#include <random>

using namespace choreo;
using namespace choreo::test;

namespace {

const std::pair<uint64_t, uint64_t> SizePairs[] = {
    {0, 0},      {1, 0},     {0, 1},      {1, 1},
    {7, 5},      {1000, 13}, {40000, 3},  {3, 40000},
    // lcm(1..16): equal blocks that every group size divides.
    {720720, 720720}};

std::string args(uint32_t P, uint32_t Q, uint64_t KA, uint64_t KB) {
  return "--p " + std::to_string(P) + " --q " + std::to_string(Q) +
         " --bytes-a " + std::to_string(KA) + " --bytes-b " +
         std::to_string(KB);
}

std::string countList(std::mt19937 &Rng, uint32_t N) {
  std::string S;
  for (uint32_t I = 0; I < N; ++I) {
    uint64_t C = Rng() % 4 == 0 ? 0 : Rng() % 50;
    S += (I ? "," : "") + std::to_string(C);
  }
  return S;
}

void expectProved(llvm::StringRef Algo, const std::string &Args) {
  Schedule S = gen(Algo, Args);
  VerifyResult R = checkExplicit(S);
  EXPECT_TRUE(R.proved()) << Algo.str() << " " << Args << ": "
                          << firstMessage(R);
}

unsigned bcastSteps(uint32_t N, uint64_t Bytes) {
  if (N < 2 || Bytes == 0)
    return 0;
  return ceilLog2(N); // binomial, the only choice below 12 KB
}

} // namespace

TEST(GeneratorSweep, AllgatherRing) {
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint64_t K : {0, 1, 5, 13}) {
      std::string A = "--p " + std::to_string(P) + " --bytes " + std::to_string(K);
      expectProved("allgather-ring", A);
      expectProved("allgather-ring", A + " --topology ring");
      if (K) {
        EXPECT_EQ(gen("allgather-ring", A).Steps.numSteps(), P - 1);
      }
    }
  std::mt19937 Rng(7);
  for (uint32_t P = 1; P <= 16; ++P)
    expectProved("allgather-ring", "--p " + std::to_string(P) + " --counts " +
                                       countList(Rng, P) + " --topology ring");
}

TEST(GeneratorSweep, InterAllgatherRoot) {
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint32_t Q = 1; Q <= 16; ++Q)
      for (auto [KA, KB] : SizePairs) {
        std::string A = args(P, Q, KA, KB);
        expectProved("inter-allgather-root", A);
        if (KA && KB && P * KA < 12288 && Q * KB < 12288) {
          // Eq. (2): gathers, two root sends, binomial broadcasts in B and A.
          unsigned Want = std::max(ceilLog2(P), ceilLog2(Q)) + 2 +
                          bcastSteps(Q, P * KA) + bcastSteps(P, Q * KB);
          EXPECT_EQ(gen("inter-allgather-root", A).Steps.numSteps(), Want) << A;
        }
      }
}

TEST(GeneratorSweep, InterAllgatherKang) {
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint32_t Q = 1; Q <= 16; ++Q)
      for (auto [KA, KB] : SizePairs)
        for (const char *Intra : {"ring", "bruck"}) {
          std::string A = args(P, Q, KA, KB) + " --intra " + Intra;
          expectProved("inter-allgather-kang", A);
          uint32_t Big = std::max(P, Q), Small = std::min(P, Q);
          uint64_t KSmall = P >= Q ? KB : KA, KBig = P >= Q ? KA : KB;
          // The listing's ceil(P/Q) rounds when Q | P (subgroups); else the
          // balanced exchange's proportional segments, each overlapping at
          // most ceil((P + Q - gcd) / Q) messages of the other group.
          unsigned Rounds =
              Big % Small == 0
                  ? Big / Small
                  : (Big + Small - std::gcd(Big, Small) + Small - 1) / Small;
          unsigned Intragroup = llvm::StringRef(Intra) == "ring"
                                    ? Big - 1
                                    : ceilLog2(Big);
          unsigned Steps = gen("inter-allgather-kang", A).Steps.numSteps();
          EXPECT_LE(Steps, Rounds + Intragroup) << A;
          // Exactly those rounds plus the intragroup allgather over the
          // larger group when the worst overlap is realised: with subgroups,
          // when every segment is non-empty; with balanced segments, for
          // equal blocks whose bytes Small divides (cuts fall where the
          // real-valued ones do).
          bool Exact = Big % Small == 0
                           ? KBig && KSmall >= Rounds
                           : KA == KB && KA && KA % Small == 0;
          if (Exact) {
            EXPECT_EQ(Steps, Rounds + Intragroup) << A;
          }
        }
}

TEST(GeneratorSweep, InterAllgatherKangIrregularCounts) {
  std::mt19937 Rng(11);
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint32_t Q = 1; Q <= 16; ++Q) {
      std::string A = "--p " + std::to_string(P) + " --q " + std::to_string(Q) +
                      " --counts-a " + countList(Rng, P) + " --counts-b " +
                      countList(Rng, Q);
      expectProved("inter-allgather-kang", A);
      expectProved("inter-allgather-kang", A + " --intra bruck");
    }
}

TEST(GeneratorSweep, RootBroadcastFollowsMpichChoice) {
  // p * k_A = 16 * 1000 >= 12 KB on a power of two: scatter + recursive
  // doubling in B (q = 16): ceil(log 16) scatter steps + log 16 exchange
  // steps instead of 4 binomial steps.
  Schedule Small = gen("inter-allgather-root", args(16, 16, 700, 1));
  Schedule Mid = gen("inter-allgather-root", args(16, 16, 1000, 1));
  Schedule Big = gen("inter-allgather-root", args(16, 16, 40000, 1));
  EXPECT_EQ(Mid.Steps.numSteps(), Small.Steps.numSteps() + 4);
  // p * k_A = 640000 >= 512 KB: scatter + ring: 4 + 15 steps.
  EXPECT_EQ(Big.Steps.numSteps(), Small.Steps.numSteps() + 4 + 15 - 4);
}

//===----------------------------------------------------------------------===//
// The intergroup family of seeds 000 (Algorithm 2) and 001 (Section III),
// their baselines and the building blocks as generators.
//===----------------------------------------------------------------------===//

namespace {
std::string countArgs(std::mt19937 &Rng, uint32_t P, uint32_t Q, bool WithB) {
  std::string A = "--p " + std::to_string(P) + " --q " + std::to_string(Q) +
                  " --counts-a " + countList(Rng, P);
  if (WithB)
    A += " --counts-b " + countList(Rng, Q);
  return A;
}
} // namespace

TEST(GeneratorSweep, InterAllgathervFamily) {
  std::mt19937 Rng(13);
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint32_t Q = 1; Q <= 16; ++Q) {
      for (int Rep = 0; Rep < 2; ++Rep) {
        std::string A = countArgs(Rng, P, Q, /*WithB=*/true);
        expectProved("inter-allgatherv-kang", A);
        expectProved("inter-allgatherv-kang", A + " --intra bruck");
        expectProved("inter-allgatherv-root", A);
      }
      for (auto [KA, KB] : SizePairs) {
        expectProved("inter-allgatherv-kang", args(P, Q, KA, KB));
        expectProved("inter-allgatherv-root", args(P, Q, KA, KB));
      }
    }
  // A group whose total is 0.
  expectProved("inter-allgatherv-kang", "--p 5 --q 3 --counts-a 0,0,0,0,0 "
                                        "--counts-b 1,2,3");
  expectProved("inter-allgatherv-root", "--p 5 --q 3 --counts-a 0,0,0,0,0 "
                                        "--counts-b 1,2,3");
}

TEST(GeneratorSweep, HalfAllgatherFamily) {
  std::mt19937 Rng(17);
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint32_t Q = 1; Q <= 16; ++Q) {
      for (uint64_t K : {0, 1, 5, 64, 1000}) {
        std::string A = "--p " + std::to_string(P) + " --q " +
                        std::to_string(Q) + " --bytes-a " + std::to_string(K);
        expectProved("half-allgather-root", A);
        expectProved("half-allgather-kang", A);
        expectProved("half-allgather-kang", A + " --intra ring");
        expectProved("half-allgather-kang", A + " --bcast binomial");
        if (K < 5)
          continue;
        // Seed 001, Section III: 1 + log p steps for p >= q;
        // log p + 2 log(q/p + 1) for p < q (the q mod p extra members spread
        // over the subgroups' allgathers).
        unsigned Steps = gen("half-allgather-kang", A).Steps.numSteps();
        if (P >= Q) {
          EXPECT_EQ(Steps, 1 + ceilLog2(P)) << A;
        } else {
          uint32_t G = Q / P;
          unsigned Want =
              2 * ceilLog2(G + 1) + ceilLog2(P + (Q % P + G - 1) / G);
          // Exact when every scatter chunk of the broadcasts is non-empty;
          // empty chunks only save steps.
          uint64_t Chunk = (K + G) / (G + 1);
          if (G * Chunk < K) {
            EXPECT_EQ(Steps, Want) << A;
          } else {
            EXPECT_LE(Steps, Want) << A;
          }
        }
      }
      expectProved("half-allgather-kang", countArgs(Rng, P, Q, false));
      expectProved("half-allgather-root", countArgs(Rng, P, Q, false));
    }
}

TEST(GeneratorSweep, BuildingBlocksAsGenerators) {
  std::mt19937 Rng(19);
  for (uint32_t P = 1; P <= 16; ++P) {
    std::string N = "--p " + std::to_string(P);
    for (const char *K : {"0", "1", "7", "100"}) {
      expectProved("allgather-bruck", N + " --bytes " + K);
      if (isPowerOfTwo(P))
        expectProved("allgather-recdbl", N + " --bytes " + K);
      for (uint32_t Root : {0u, P / 2, P - 1}) {
        std::string R = " --root " + std::to_string(Root);
        expectProved("gather-binomial", N + " --bytes " + K + R);
        expectProved("bcast-binomial", N + " --bytes " + K + R);
        expectProved("bcast-scatter-allgather", N + " --bytes " + K + R);
        expectProved("bcast-scatter-allgather",
                     N + " --bytes " + K + R + " --intra bruck");
        expectProved("bcast-scatter-allgather",
                     N + " --bytes " + K + R + " --intra ring");
      }
    }
    std::string C = " --counts " + countList(Rng, P);
    expectProved("allgather-bruck", N + C);
    expectProved("gather-binomial", N + C);
    if (isPowerOfTwo(P))
      expectProved("allgather-recdbl", N + C);
  }
}
