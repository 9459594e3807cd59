//===- tests/unit/CirculantTest.cpp - The circulant-graph broadcast -------===//
///
/// \file
/// Träff's circulant-graph broadcast (generators/bcast/Circulant.h): the
/// schedules' correctness conditions for every rank of p = 2..1100 and a
/// few large p (a receive schedule for every rank; in q rounds a rank gets
/// its baseblock and q - 1 distinct blocks of the previous phase; what a
/// rank's O(log p) send schedule names is its receiver's receive schedule,
/// with few look-ups); the rank form against the projection of the whole
/// schedule (p up to 64, several n, every root up to 16 ranks); the
/// generator proved by the explicit engine with n - 1 + ceil(log2 p) steps,
/// and its reversal as a reduce (reduce-circulant) likewise.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "generators/bcast/Circulant.h"

#include <set>

using namespace choreo;
using namespace choreo::test;

namespace {

unsigned ceilLog2Of(uint64_t P) {
  unsigned Q = 0;
  while ((uint64_t(1) << Q) < P)
    ++Q;
  return Q;
}

/// Checks every schedule condition of relative rank R; the number of
/// send-schedule look-ups, or ~0u after a failure.
unsigned checkRank(const CirculantGraph &G, uint64_t R) {
  CirculantSchedule S;
  bool Ok = circulantScheduleOf(G, R, S);
  EXPECT_TRUE(Ok) << "p " << G.P << " r " << R;
  if (!Ok)
    return ~0u;
  const int32_t Q = int32_t(G.Q);
  if (R == 0) {
    for (int32_t K = 0; K < Q; ++K)
      EXPECT_EQ(S.Send[K], K) << "p " << G.P;
    return 0;
  }
  // In q rounds: the baseblock and {e - q : e != b}, each once.
  int32_t B = int32_t(circulantBaseblock(G, R));
  std::set<int32_t> Want, Got(S.Recv.begin(), S.Recv.end());
  Want.insert(B);
  for (int32_t E = 0; E < Q; ++E)
    if (E != B)
      Want.insert(E - Q);
  EXPECT_EQ(Got, Want) << "p " << G.P << " r " << R;
  // What R sends in round k is what R + Skip[k] receives.
  for (uint32_t K = 0; K < G.Q; ++K) {
    uint64_t T = (R + G.Skip[K]) % G.P;
    llvm::SmallVector<int32_t, 32> Recv;
    EXPECT_TRUE(circulantRecvSchedule(G, T, Recv));
    int32_t Want = T == 0 ? NoBlock : Recv[K];
    EXPECT_EQ(S.Send[K], Want) << "p " << G.P << " r " << R << " k " << K;
  }
  return circulantSendLookups(G, R);
}

} // namespace

TEST(Circulant, SkipsAndBaseblocks) {
  CirculantGraph G(17);
  EXPECT_EQ(G.Q, 5u);
  EXPECT_EQ(std::vector<uint64_t>(G.Skip.begin(), G.Skip.end()),
            (std::vector<uint64_t>{1, 2, 3, 5, 9, 17}));
  // 7 = 5 + 2: baseblock 1; 13 = 9 + 3 + 1: baseblock 0.
  EXPECT_EQ(circulantBaseblock(G, 7), 1u);
  EXPECT_EQ(circulantBaseblock(G, 13), 0u);
  EXPECT_EQ(circulantBaseblock(G, 0), 5u);
  for (uint32_t P : {2u, 3u, 64u, 65u, 1000u})
    EXPECT_EQ(CirculantGraph(P).Q, ceilLog2Of(P));
}

TEST(Circulant, SchedulesEveryRank) {
  unsigned MaxLookups = 0;
  for (uint32_t P = 2; P <= 1100; ++P) {
    CirculantGraph G(P);
    for (uint64_t R = 0; R < P; ++R)
      MaxLookups = std::max(MaxLookups, checkRank(G, R));
  }
  // The paper's bound: a constant number of rounds look up the receiver.
  EXPECT_LE(MaxLookups, 4u);
}

TEST(Circulant, SchedulesLargeP) {
  for (uint32_t P : {65535u, 65536u, 65537u, 1000003u, 4294967295u}) {
    CirculantGraph G(P);
    for (uint64_t R :
         {uint64_t(1), uint64_t(2), uint64_t(P / 3), uint64_t(P / 2),
          uint64_t(P / 2 + 1), uint64_t(P - 2), uint64_t(P - 1)})
      EXPECT_LE(checkRank(G, R), 4u) << "p " << P << " r " << R;
  }
}

TEST(Circulant, RankFormIsTheProjection) {
  for (uint32_t P = 2; P <= 64; ++P) {
    unsigned Q = ceilLog2Of(P);
    for (uint64_t Blocks :
         {uint64_t(1), uint64_t(2), uint64_t(Q + 1), uint64_t(13)}) {
      // Blocks of 3 bytes, the last of 2.
      std::vector<uint64_t> Cuts{0};
      for (uint64_t I = 1; I <= Blocks; ++I)
        Cuts.push_back(3 * I - (I == Blocks));
      for (uint32_t Root = 0; Root < P; ++Root) {
        if (P > 16 && Root != 0 && Root != P / 2 && Root != P - 1)
          continue;
        Schedule Whole;
        Whole.Kind = Collective::Bcast;
        setIntragroup(Whole, P, {Cuts.back()});
        Whole.Root = Root;
        Whole.Steps = circulantBcast(P, Cuts, Root);
        ASSERT_EQ(Whole.Steps.numSteps(), Blocks - 1 + Q);
        for (uint32_t Me = 0; Me < P; ++Me) {
          Schedule Mine = onlyRank(Whole, Me);
          RankPart Part = circulantBcastRank(P, Cuts, Root, Me);
          StepList Kept = std::move(Part).kept();
          ASSERT_EQ(Kept.numSteps(), Mine.Steps.numSteps());
          for (unsigned S = 0; S < Kept.numSteps(); ++S) {
            auto A = Kept.step(S), B = Mine.Steps.step(S);
            ASSERT_EQ(A.size(), B.size())
                << "p " << P << " n " << Blocks << " root " << Root << " rank "
                << Me << " step " << S;
            for (size_t I = 0; I < A.size(); ++I) {
              EXPECT_EQ(A[I].Src, B[I].Src);
              EXPECT_EQ(A[I].Dst, B[I].Dst);
              EXPECT_EQ(Kept.blocks(A[I]).front().Lo,
                        Mine.Steps.blocks(B[I]).front().Lo);
              EXPECT_EQ(Kept.blocks(A[I]).front().Hi,
                        Mine.Steps.blocks(B[I]).front().Hi);
            }
          }
        }
      }
    }
  }
}

TEST(Circulant, ProvedInRoundOptimalSteps) {
  for (uint32_t P = 1; P <= 64; ++P) {
    unsigned Q = ceilLog2Of(P);
    for (uint64_t Blocks :
         {uint64_t(1), uint64_t(2), uint64_t(5), uint64_t(40)})
      for (uint32_t Root : {0u, P / 2, P - 1}) {
        std::string A = "--p " + std::to_string(P) + " --bytes " +
                        std::to_string(7 * Blocks) + " --segments " +
                        std::to_string(Blocks) + " --root " +
                        std::to_string(Root);
        Schedule S = gen("bcast-circulant", A);
        VerifyResult R = checkExplicit(S);
        EXPECT_TRUE(R.proved()) << A << ": " << firstMessage(R);
        EXPECT_EQ(S.Steps.numSteps(), P == 1 ? 0 : Blocks - 1 + Q) << A;
        EXPECT_EQ(circulantRounds(P, Blocks), P == 1 ? 0 : Blocks - 1 + Q);
        // Each non-root rank receives each block once: n (p - 1) ops.
        EXPECT_EQ(S.Steps.numOps(), Blocks * (P - 1)) << A;
      }
  }
}

TEST(Circulant, ReduceProvedInRoundOptimalSteps) {
  for (uint32_t P = 1; P <= 40; ++P) {
    unsigned Q = ceilLog2Of(P);
    for (uint64_t Blocks : {uint64_t(1), uint64_t(3), uint64_t(11)})
      for (uint32_t Root : {0u, P / 2, P - 1}) {
        std::string A = "--p " + std::to_string(P) + " --bytes " +
                        std::to_string(8 * Blocks) + " --segments " +
                        std::to_string(Blocks) + " --root " +
                        std::to_string(Root);
        Schedule S = gen("reduce-circulant", A);
        VerifyResult R = checkExplicit(S);
        EXPECT_TRUE(R.proved()) << A << ": " << firstMessage(R);
        EXPECT_EQ(S.Steps.numSteps(), P == 1 ? 0 : Blocks - 1 + Q) << A;
        EXPECT_EQ(S.Steps.numOps(), Blocks * (P - 1)) << A;
      }
  }
}
