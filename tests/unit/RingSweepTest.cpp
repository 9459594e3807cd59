//===- tests/unit/RingSweepTest.cpp - The ring algorithms, p, q <= 40 -----===//
///
/// \file
/// half-allgather-ring for every p, q in 1..40: proved by the explicit
/// verifier on a ring topology (so every op is a ring link and every rank
/// sends and receives at most one message per step), with p + q/2 steps for
/// even q, p + (q + 1)/2 for odd q > 1 and p for q = 1; and its baseline,
/// the intragroup ring allgather, with p + q - 1.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

using namespace choreo;
using namespace choreo::test;

namespace {
unsigned expectedSteps(unsigned P, unsigned Q) {
  if (Q == 1)
    return P;
  return P + (Q + 1) / 2;
}
} // namespace

TEST(RingSweep, HalfAllgatherRingEveryPQUpTo40) {
  unsigned Excess = 0;
  for (unsigned P = 1; P <= 40; ++P)
    for (unsigned Q = 1; Q <= 40; ++Q) {
      std::string A = "--p " + std::to_string(P) + " --q " +
                      std::to_string(Q) + " --bytes-a 3";
      Schedule S = gen("half-allgather-ring", A);
      ASSERT_EQ(S.Topo.K, Topology::Kind::Ring);
      ASSERT_EQ(S.Port.Send, 1u);
      ASSERT_EQ(S.Port.Recv, 1u);
      VerifyResult R = checkExplicit(S);
      ASSERT_TRUE(R.proved()) << A << ": " << firstMessage(R);
      EXPECT_EQ(S.Steps.numSteps(), expectedSteps(P, Q)) << A;
      if (Q % 2 == 0) {
        EXPECT_EQ(S.Steps.numSteps(), P + Q / 2) << A;
      }
      Excess += S.Steps.numSteps() > P + Q / 2;
    }
  // Only odd q pays half a step (rounded up), never more.
  EXPECT_EQ(Excess, 40u * 20u - 40u); // odd q > 1, every p
}

TEST(RingSweep, FiguresTwoAndThree) {
  EXPECT_EQ(gen("half-allgather-ring", "--p 4 --q 6 --bytes-a 1")
                .Steps.numSteps(),
            7u);
  EXPECT_EQ(gen("half-allgather-ring", "--p 6 --q 4 --bytes-a 1")
                .Steps.numSteps(),
            8u);
}

TEST(RingSweep, IrregularAndEmptyContributions) {
  Schedule S = gen("half-allgather-ring",
                   "--p 6 --q 10 --counts-a 5,0,3,9,0,1");
  VerifyResult R = checkExplicit(S);
  EXPECT_TRUE(R.proved()) << firstMessage(R);
}

TEST(RingSweep, IntraRingBaseline) {
  for (unsigned P = 1; P <= 20; ++P)
    for (unsigned Q = 1; Q <= 20; Q += 3) {
      std::string A = "--p " + std::to_string(P) + " --q " +
                      std::to_string(Q) + " --bytes-a 2";
      Schedule S = gen("half-allgather-intraring", A);
      VerifyResult R = checkExplicit(S);
      ASSERT_TRUE(R.proved()) << A << ": " << firstMessage(R);
      EXPECT_EQ(S.Steps.numSteps(), P + Q - 1) << A;
    }
}

TEST(RingSweep, RefusesOtherTopologies) {
  std::vector<std::string> Args = {"--p", "2", "--q", "2", "--bytes-a", "1",
                                   "--topology", "full"};
  auto P = parseGenArgs(Args);
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(errorText(findGenerator("half-allgather-ring")->generate(*P)),
            "--topology: half-allgather-ring runs on the ring only "
            "(--topology ring)");
}
