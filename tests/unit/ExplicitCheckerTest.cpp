//===- tests/unit/ExplicitCheckerTest.cpp - One test per property ---------===//

#include "TestUtil.h"

using namespace choreo;
using namespace choreo::test;

namespace {

Block blk(uint64_t Lo, uint64_t Hi, BufferId Buf = 0) {
  Block B;
  B.Buf = Buf;
  B.Lo = Lo;
  B.Hi = Hi;
  return B;
}

/// Allgather over N ranks of 4 bytes each, no steps yet.
Schedule allgather(Rank N) {
  Schedule S;
  S.Kind = Collective::Allgather;
  setIntragroup(S, N, std::vector<uint64_t>(N, 4));
  return S;
}

/// Allreduce of 8 bytes over N ranks.
Schedule allreduce(Rank N) {
  Schedule S;
  S.Kind = Collective::Allreduce;
  setIntragroup(S, N, {8});
  return S;
}

/// L's first N steps (blocks without contributor sets).
StepList firstSteps(const StepList &L, unsigned N) {
  StepList Out;
  for (unsigned St = 0; St < N; ++St) {
    Out.newStep();
    for (const Op &O : L.step(St))
      Out.addOp(O.Src, O.Dst, L.blocks(O));
  }
  return Out;
}

Block partial(Schedule &S, uint64_t Lo, uint64_t Hi, RankSet C, bool Reduce) {
  Block B = blk(Lo, Hi);
  B.Contrib = S.Steps.addContrib(C);
  B.Reduce = Reduce;
  return B;
}

} // namespace

TEST(ExplicitChecker, RingAllgatherIsProved) {
  Schedule S = gen("allgather-ring", "--p 5 --bytes 3 --topology ring");
  VerifyResult R = checkExplicit(S);
  EXPECT_TRUE(R.proved()) << firstMessage(R);
  EXPECT_EQ(R.exitCode(), 0);
}

TEST(ExplicitChecker, AvailabilityNothingHeld) {
  Schedule S = allgather(3);
  S.Steps.addOp(0, 1, {blk(4, 8)});
  VerifyResult R = checkExplicit(S);
  ASSERT_TRUE(R.failsKind(property::Availability));
  EXPECT_EQ(R.exitCode(), 1);
  EXPECT_EQ(firstMessage(R), "step 0: rank 0 sends all[4,8) before holding it");
  EXPECT_EQ(R.Diags[0].Notes[0], "/steps/0/ops/0: 0 -> 1 all[4,8)");
}

TEST(ExplicitChecker, AvailabilityPartlyHeld) {
  Schedule S = allgather(3);
  S.Steps.addOp(0, 1, {blk(0, 8)});
  EXPECT_EQ(firstMessage(checkExplicit(S)),
            "step 0: rank 0 sends all[0,8) before holding all[4,8) of it");
}

TEST(ExplicitChecker, ReceiptIsUsableFromTheNextStepOnly) {
  Schedule S = allgather(3);
  S.Steps.addOp(0, 1, {blk(0, 4)});
  S.Steps.addOp(1, 2, {blk(0, 4)});
  EXPECT_EQ(firstMessage(checkExplicit(S)),
            "step 0: rank 1 sends all[0,4) before holding it");
  Schedule T = allgather(3);
  T.Steps.addOp(0, 1, {blk(0, 4)});
  T.Steps.newStep();
  T.Steps.addOp(1, 2, {blk(0, 4)});
  EXPECT_FALSE(checkExplicit(T).failsKind(property::Availability));
}

TEST(ExplicitChecker, SendPort) {
  Schedule S = allgather(3);
  S.Steps.addOp(0, 1, {blk(0, 4)});
  S.Steps.addOp(0, 2, {blk(0, 4)});
  VerifyResult R = checkExplicit(S);
  ASSERT_TRUE(R.failsKind(property::SendPort));
  EXPECT_EQ(firstMessage(R),
            "step 0: rank 0 sends 2 messages, but ports allow 1 per step");
  EXPECT_EQ(R.Diags[0].Notes.size(), 2u);
  EXPECT_EQ(R.Diags[0].Notes[1], "/steps/0/ops/1: 0 -> 2 all[0,4)");
  S.Port.Send = 2;
  EXPECT_FALSE(checkExplicit(S).failsKind(property::SendPort));
}

TEST(ExplicitChecker, RecvPort) {
  Schedule S = allgather(3);
  S.Steps.addOp(0, 2, {blk(0, 4)});
  S.Steps.addOp(1, 2, {blk(4, 8)});
  EXPECT_EQ(firstMessage(checkExplicit(S)),
            "step 0: rank 2 receives 2 messages, but ports allow 1 per step");
}

TEST(ExplicitChecker, Duplex) {
  Schedule S = allgather(3);
  S.Port.Duplex = false;
  S.Steps.addOp(0, 1, {blk(0, 4)});
  S.Steps.addOp(1, 2, {blk(4, 8)});
  VerifyResult R = checkExplicit(S);
  ASSERT_TRUE(R.failsKind(property::Duplex));
  EXPECT_EQ(firstMessage(R), "step 0: rank 1 both sends and receives, but "
                             "ports are not duplex");
  S.Port.Duplex = true;
  EXPECT_FALSE(checkExplicit(S).failsKind(property::Duplex));
}

TEST(ExplicitChecker, TopologyRing) {
  Schedule S = allgather(4);
  S.Topo = Topology::ring();
  S.Steps.addOp(0, 2, {blk(0, 4)});
  S.Steps.addOp(3, 0, {blk(12, 16)});
  VerifyResult R = checkExplicit(S);
  ASSERT_EQ(R.Diags.size(), 2u); // topology and completeness
  EXPECT_EQ(firstMessage(R), "step 0: rank 0 sends to rank 2, which is not a "
                             "link of the ring topology");
  // A ring given by an explicit order: 0 2 1 3 makes 0-2 and 3-0 links.
  S.Topo = Topology::ring({0, 2, 1, 3});
  EXPECT_FALSE(checkExplicit(S).failsKind(property::Topology));
}

TEST(ExplicitChecker, TopologyGraph) {
  Schedule S = allgather(3);
  S.Topo.K = Topology::Kind::Graph;
  S.Topo.Edges = {{1, 0}};
  S.Steps.addOp(0, 1, {blk(0, 4)});
  S.Steps.addOp(2, 0, {blk(8, 12)});
  EXPECT_EQ(firstMessage(checkExplicit(S)), "step 0: rank 2 sends to rank 0, "
                                            "which is not a link of the graph "
                                            "topology");
}

TEST(ExplicitChecker, CompletenessNamesTheLastStep) {
  Schedule S = gen("allgather-ring", "--p 4 --bytes 4");
  ASSERT_EQ(S.Steps.numSteps(), 3u);
  S.Steps = firstSteps(S.Steps, 2);
  VerifyResult R = checkExplicit(S);
  ASSERT_EQ(R.Diags.size(), 1u);
  EXPECT_EQ(firstMessage(R),
            "after the last step (step 1): rank 0 lacks all[4,8)");
  EXPECT_EQ(R.Diags[0].Notes[0],
            "allgather: every rank must hold all of buffer all");
  EXPECT_EQ(R.Diags[0].Notes[1], "3 more ranks are incomplete");
  Schedule Empty = allgather(2);
  EXPECT_EQ(firstMessage(checkExplicit(Empty)),
            "with no steps: rank 0 lacks all[4,8)");
}

TEST(ExplicitChecker, FirstFailureOfEachKindOnly) {
  Schedule S = allgather(4);
  S.Steps.addOp(0, 1, {blk(4, 8)});
  S.Steps.addOp(2, 3, {blk(0, 4)});
  VerifyResult R = checkExplicit(S);
  size_t Avail = 0;
  for (const Diagnostic &D : R.Diags)
    Avail += D.Kind == property::Availability;
  EXPECT_EQ(Avail, 1u);
}

TEST(ExplicitChecker, BcastStartsAtTheRootOnly) {
  Schedule S;
  S.Kind = Collective::Bcast;
  setIntragroup(S, 3, {10});
  S.Root = 2;
  S.Steps.addOp(2, 0, {blk(0, 10)});
  S.Steps.newStep();
  S.Steps.addOp(0, 1, {blk(0, 10)});
  EXPECT_TRUE(checkExplicit(S).proved());
  S.Root = 1;
  EXPECT_EQ(firstMessage(checkExplicit(S)),
            "step 0: rank 2 sends all[0,10) before holding it");
}

TEST(ExplicitChecker, AllreduceByExchange) {
  Schedule S = allreduce(2);
  S.Steps.addOp(0, 1, {partial(S, 0, 8, RankSet(0, 1), true)});
  S.Steps.addOp(1, 0, {partial(S, 0, 8, RankSet(1, 2), true)});
  EXPECT_TRUE(checkExplicit(S).proved());
}

TEST(ExplicitChecker, ExactlyOnce) {
  Schedule S = allreduce(2);
  S.Steps.addOp(0, 1, {partial(S, 0, 8, RankSet(0, 1), true)});
  S.Steps.addOp(1, 0, {partial(S, 0, 8, RankSet(1, 2), true)});
  S.Steps.newStep();
  S.Steps.addOp(0, 1, {partial(S, 0, 4, RankSet(0, 2), true)});
  VerifyResult R = checkExplicit(S);
  ASSERT_TRUE(R.failsKind(property::ExactlyOnce));
  EXPECT_EQ(firstMessage(R), "step 1: rank 1 combines the contributions of "
                             "ranks {0-1} into all[0,4) a second time");
}

TEST(ExplicitChecker, ReductionAvailabilityNeedsTheExactContributors) {
  Schedule S = allreduce(3);
  S.Steps.addOp(0, 1, {partial(S, 0, 8, RankSet(0, 2), true)});
  VerifyResult R = checkExplicit(S);
  EXPECT_EQ(firstMessage(R), "step 0: rank 0 sends all[0,8) with contributors "
                             "{0-1}, but holds it with contributors {0}");
}

TEST(ExplicitChecker, ReductionCompleteness) {
  Schedule S = allreduce(3);
  S.Steps.addOp(0, 1, {partial(S, 0, 8, RankSet(0, 1), true)});
  VerifyResult R = checkExplicit(S);
  EXPECT_EQ(firstMessage(R), "after the last step (step 0): rank 0 all[0,8) "
                             "combines only {0} (missing {1-2})");
}

TEST(ExplicitChecker, ReplaceWithoutReduce) {
  // Reduce-scatter then allgather of the reduced halves (replace).
  Schedule S = allreduce(2);
  S.Steps.addOp(0, 1, {partial(S, 4, 8, RankSet(0, 1), true)});
  S.Steps.addOp(1, 0, {partial(S, 0, 4, RankSet(1, 2), true)});
  S.Steps.newStep();
  S.Steps.addOp(0, 1, {partial(S, 0, 4, RankSet(0, 2), false)});
  S.Steps.addOp(1, 0, {partial(S, 4, 8, RankSet(0, 2), false)});
  VerifyResult R = checkExplicit(S);
  EXPECT_TRUE(R.proved()) << firstMessage(R);
}

TEST(ExplicitChecker, StructuralErrorsAreInvalidNotFailed) {
  Schedule S = allgather(3);
  S.Steps.addOp(1, 1, {blk(4, 8)});
  VerifyResult R = checkExplicit(S);
  EXPECT_EQ(R.St, VerifyResult::Status::Invalid);
  EXPECT_EQ(R.exitCode(), 2);
  EXPECT_EQ(firstMessage(R), "/steps/0/ops/0: rank 1 sends to itself");
}
