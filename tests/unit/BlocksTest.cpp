//===- tests/unit/BlocksTest.cpp - Building blocks, proved on their own ---===//

#include "TestUtil.h"

#include "generators/blocks/Blocks.h"

using namespace choreo;
using namespace choreo::test;

namespace {

Schedule wrapGather(Collective K, llvm::ArrayRef<uint64_t> Counts,
                    StepList L, std::optional<Rank> Root = std::nullopt) {
  Schedule S;
  S.Kind = K;
  setIntragroup(S, Counts.size(), Counts);
  S.Root = Root;
  S.Steps = std::move(L);
  return S;
}

Schedule wrapBcast(uint32_t N, uint64_t Bytes, Rank Root, StepList L) {
  Schedule S;
  S.Kind = Collective::Bcast;
  setIntragroup(S, N, {Bytes});
  S.Root = Root;
  S.Steps = std::move(L);
  return S;
}

std::vector<uint64_t> someCounts(uint32_t N, unsigned Seed) {
  std::vector<uint64_t> C(N);
  for (uint32_t I = 0; I < N; ++I)
    C[I] = (I * 7 + Seed * 3) % 5; // includes zeros
  return C;
}

void expectProved(const Schedule &S, const std::string &What) {
  VerifyResult R = checkExplicit(S);
  EXPECT_TRUE(R.proved()) << What << ": " << firstMessage(R);
}

} // namespace

TEST(Blocks, AllgathersForEveryN) {
  for (uint32_t N = 1; N <= 20; ++N) {
    std::vector<uint64_t> C = someCounts(N, N);
    std::vector<uint64_t> Ones(N, 1);
    expectProved(wrapGather(Collective::Allgatherv, C, ringAllgatherv(C)),
                 "ring n=" + std::to_string(N));
    expectProved(wrapGather(Collective::Allgatherv, C, bruckAllgatherv(C)),
                 "bruck n=" + std::to_string(N));
    EXPECT_EQ(ringAllgatherv(Ones).numSteps(), N - 1);
    EXPECT_EQ(bruckAllgatherv(Ones).numSteps(), ceilLog2(N));
    if (isPowerOfTwo(N)) {
      expectProved(
          wrapGather(Collective::Allgatherv, C, recursiveDoublingAllgatherv(C)),
          "recdbl n=" + std::to_string(N));
      EXPECT_EQ(recursiveDoublingAllgatherv(Ones).numSteps(), ceilLog2(N));
    }
  }
}

TEST(Blocks, BinomialGatherToEveryRoot) {
  for (uint32_t N = 1; N <= 13; ++N)
    for (uint32_t Root = 0; Root < N; ++Root) {
      std::vector<uint64_t> C = someCounts(N, Root);
      expectProved(wrapGather(Collective::Gather, C, binomialGather(C, Root), Root),
                   "gather n=" + std::to_string(N) + " root=" +
                       std::to_string(Root));
      EXPECT_EQ(binomialGather(std::vector<uint64_t>(N, 1), Root).numSteps(),
                ceilLog2(N));
    }
}

TEST(Blocks, BroadcastsFromEveryRoot) {
  for (uint32_t N = 1; N <= 17; ++N)
    for (uint32_t Root = 0; Root < N; Root += 3)
      for (uint64_t Bytes : {0ull, 1ull, 5ull, 64ull, 1001ull}) {
        std::string W = "n=" + std::to_string(N) + " root=" +
                        std::to_string(Root) + " bytes=" + std::to_string(Bytes);
        expectProved(wrapBcast(N, Bytes, Root, binomialBcast(N, Bytes, Root)),
                     "binomial " + W);
        expectProved(wrapBcast(N, Bytes, Root,
                               scatterAllgatherBcast(N, Bytes, Root,
                                                     IntraAlgorithm::Ring)),
                     "scatter-ring " + W);
        expectProved(wrapBcast(N, Bytes, Root,
                               scatterAllgatherBcast(N, Bytes, Root,
                                                     IntraAlgorithm::Bruck)),
                     "scatter-bruck " + W);
        if (isPowerOfTwo(N))
          expectProved(wrapBcast(N, Bytes, Root,
                                 scatterAllgatherBcast(
                                     N, Bytes, Root,
                                     IntraAlgorithm::RecursiveDoubling)),
                       "scatter-rd " + W);
      }
  EXPECT_EQ(binomialBcast(6, 8, 0).numSteps(), 3u);
  // Scatter (ceil log n) then ring (n - 1) or recursive doubling (log n).
  EXPECT_EQ(scatterAllgatherBcast(6, 600, 0, IntraAlgorithm::Ring).numSteps(),
            3u + 5u);
  EXPECT_EQ(scatterAllgatherBcast(8, 800, 0, IntraAlgorithm::RecursiveDoubling)
                .numSteps(),
            3u + 3u);
  EXPECT_EQ(scatterAllgatherBcast(6, 600, 0, IntraAlgorithm::Bruck).numSteps(),
            3u + 3u);
}

TEST(Blocks, BinomialBcastSendsToTheFarthestChildFirst) {
  // MPICH: the root's first message goes to relative rank 4 of 6.
  StepList L = binomialBcast(6, 8, 1);
  ASSERT_EQ(L.step(0).size(), 1u);
  EXPECT_EQ(L.step(0)[0].Src, 1u);
  EXPECT_EQ(L.step(0)[0].Dst, 5u);
}

// MPICH 4.0.2's bounds are inclusive (its own MPI_Bcast under choreo trace,
// docs/trace.md).
TEST(Blocks, MpichBcastChoice) {
  EXPECT_EQ(mpichBcastChoice(16, 12288), MpichBcast::Binomial);
  EXPECT_EQ(mpichBcastChoice(13, 12288), MpichBcast::Binomial);
  EXPECT_EQ(mpichBcastChoice(7, 1 << 20), MpichBcast::Binomial);
  EXPECT_EQ(mpichBcastChoice(16, 12289), MpichBcast::ScatterRecursiveDoubling);
  EXPECT_EQ(mpichBcastChoice(16, 524288), MpichBcast::ScatterRecursiveDoubling);
  EXPECT_EQ(mpichBcastChoice(16, 524289), MpichBcast::ScatterRing);
  EXPECT_EQ(mpichBcastChoice(12, 100000), MpichBcast::ScatterRing);
}

// Issue 18, item 6: the op budgets of the root-gathering baselines come from
// the blocks' own arithmetic; they bound what the blocks build, exactly for
// the binomial and scatter + ring broadcasts (n^2 ops, not n log n).
TEST(Blocks, OpCountsBoundWhatTheBlocksBuild) {
  for (uint32_t N = 1; N <= 40; ++N) {
    EXPECT_EQ(binomialGatherOps(N),
              binomialGather(std::vector<uint64_t>(N, 3), 0).numOps())
        << "n = " << N;
    for (uint64_t Bytes : {0ull, 1ull, 7ull, 100ull, 12288ull * 4, 600000ull}) {
      uint64_t Built = mpichBcast(N, Bytes, 0).numOps();
      uint64_t Counted = mpichBcastOps(N, Bytes);
      EXPECT_GE(Counted, Built) << "n = " << N << ", bytes = " << Bytes;
      if (mpichBcastChoice(N, Bytes) != MpichBcast::ScatterRecursiveDoubling)
        EXPECT_EQ(Counted, Built) << "n = " << N << ", bytes = " << Bytes;
    }
  }
}
