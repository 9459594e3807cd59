//===- tests/unit/StepListTest.cpp - Composition of step lists ------------===//

#include "ir/StepList.h"

#include <gtest/gtest.h>

using namespace choreo;

namespace {
Block blk(BufferId Buf, uint64_t Lo, uint64_t Hi) {
  Block B;
  B.Buf = Buf;
  B.Lo = Lo;
  B.Hi = Hi;
  return B;
}
} // namespace

TEST(StepList, BuildAndRead) {
  StepList L;
  L.newStep();
  L.addOp(0, 1, {blk(0, 0, 4)});
  L.addOp(1, 0, {blk(0, 4, 8), blk(0, 12, 16)});
  L.newStep();
  L.newStep();
  L.addOp(2, 3, {blk(0, 0, 1)});
  ASSERT_EQ(L.numSteps(), 3u);
  EXPECT_EQ(L.step(0).size(), 2u);
  EXPECT_EQ(L.step(1).size(), 0u);
  EXPECT_EQ(L.blocks(L.step(0)[1]).size(), 2u);
  EXPECT_EQ(L.blocks(L.step(0)[1])[1].Lo, 12u);
  L.dropEmptySteps();
  ASSERT_EQ(L.numSteps(), 2u);
  EXPECT_EQ(L.step(1)[0].Src, 2u);
}

TEST(StepList, AppendIsThen) {
  StepList A, B;
  A.addOp(0, 1, {blk(0, 0, 4)});
  B.addOp(1, 2, {blk(0, 0, 4)});
  B.newStep();
  B.addOp(2, 0, {blk(0, 0, 4)});
  A.append(B);
  ASSERT_EQ(A.numSteps(), 3u);
  EXPECT_EQ(A.step(1)[0].Src, 1u);
  EXPECT_EQ(A.step(2)[0].Src, 2u);
  EXPECT_EQ(A.blocks(A.step(2)[0])[0].Hi, 4u);
}

TEST(StepList, AlongsideMergesStepByStep) {
  StepList A, B;
  A.addOp(0, 1, {blk(0, 0, 4)});
  B.addOp(2, 3, {blk(1, 0, 4)});
  B.newStep();
  B.addOp(3, 2, {blk(1, 4, 8)});
  StepList M = alongside(A, B);
  ASSERT_EQ(M.numSteps(), 2u);
  ASSERT_EQ(M.step(0).size(), 2u);
  EXPECT_EQ(M.step(0)[0].Src, 0u);
  EXPECT_EQ(M.step(0)[1].Src, 2u);
  EXPECT_EQ(M.blocks(M.step(0)[1])[0].Buf, 1u);
  ASSERT_EQ(M.step(1).size(), 1u);
  EXPECT_EQ(M.step(1)[0].Src, 3u);
}

TEST(StepList, RelabelMapsRanksBuffersAndContributors) {
  StepList L;
  Block B = blk(0, 0, 4);
  RankSet C;
  C.insert(0, 2);
  B.Contrib = L.addContrib(C);
  L.addOp(0, 1, {B});
  // Local ranks 0, 1 are real ranks 7 and 3; local buffer 0 is buffer 1 at
  // offset 100.
  StepList R = L.relabeled({7, 3}, {{1, 100}});
  const Op &O = R.step(0)[0];
  EXPECT_EQ(O.Src, 7u);
  EXPECT_EQ(O.Dst, 3u);
  const Block &RB = R.blocks(O)[0];
  EXPECT_EQ(RB.Buf, 1u);
  EXPECT_EQ(RB.Lo, 100u);
  EXPECT_EQ(RB.Hi, 104u);
  EXPECT_EQ(rankSetString(R.contrib(RB.Contrib)), "{3,7}");
}

TEST(StepList, ContributorSetsAreInterned) {
  StepList L;
  EXPECT_EQ(L.addContrib(RankSet(0, 4)), L.addContrib(RankSet(0, 4)));
  EXPECT_NE(L.addContrib(RankSet(0, 4)), L.addContrib(RankSet(0, 3)));
}

TEST(StepList, ManySetsAreInternedOnceEach) {
  // Past 256 sets, one-interval sets are chained by their Lo (eight a Lo,
  // the others hashed, as every set of several intervals is): each of
  // 1,200 sets gets one id, found again, and absent sets are not found.
  StepList L;
  std::vector<RankSet> Sets;
  for (uint64_t Lo = 0; Lo < 40; ++Lo)
    for (uint64_t Hi = Lo + 1; Hi <= Lo + 20; ++Hi)
      Sets.push_back(RankSet(Lo, Hi));
  for (uint64_t Lo = 0; Lo < 400; ++Lo) {
    RankSet Two(Lo, Lo + 1);
    Two.insert(Lo + 5, Lo + 6);
    Sets.push_back(Two);
  }
  for (size_t I = 0; I < Sets.size(); ++I)
    EXPECT_EQ(L.addContrib(Sets[I]), I);
  for (size_t I = Sets.size(); I-- > 0;) {
    EXPECT_EQ(L.addContrib(Sets[I]), I);
    EXPECT_EQ(L.findContrib(Sets[I]), std::optional<uint32_t>(I));
  }
  EXPECT_EQ(L.numContribs(), Sets.size());
  EXPECT_FALSE(L.findContrib(RankSet(3, 30)));
  EXPECT_FALSE(L.findContrib(RankSet(5000, 5001)));
  EXPECT_FALSE(L.findContrib(RankSet()));
  // A merge keeps the list's ids and maps the other's sets once each.
  StepList A = L, B;
  Block X = blk(0, 0, 4);
  X.Contrib = A.addContrib(RankSet(7, 9));
  A.addOp(0, 1, {X});
  X.Contrib = B.addContrib(RankSet(7, 9));
  B.addOp(1, 0, {X});
  B.addOp(2, 0, {X});
  A.mergeAlongside(B);
  ASSERT_EQ(A.step(0).size(), 3u);
  for (const Op &O : A.step(0))
    EXPECT_EQ(A.blocks(O)[0].Contrib, L.findContrib(RankSet(7, 9)));
  EXPECT_EQ(A.numContribs(), Sets.size());
}

// A rank's part keeps the steps where the whole has an op though it has
// none of its own: dropEmptySteps(Keep) drops the other empty steps only.
TEST(StepList, DropEmptyStepsSparesTheKeptOnes) {
  StepList L;
  L.newStep(); // 0: empty, not kept
  L.newStep(); // 1: an op
  L.addOp(0, 1, {blk(0, 0, 4)});
  L.newStep(); // 2: empty, kept
  L.newStep(); // 3: an op
  L.addOp(1, 0, {blk(0, 4, 8)});
  L.newStep(); // 4: empty, past Keep's end
  L.dropEmptySteps({false, false, true});
  ASSERT_EQ(L.numSteps(), 3u);
  EXPECT_EQ(L.step(0)[0].Src, 0u);
  EXPECT_TRUE(L.step(1).empty());
  EXPECT_EQ(L.step(2)[0].Src, 1u);
}

// clearOps empties the steps and keeps the sets with their ids.
TEST(StepList, ClearOpsKeepsTheSets) {
  StepList L;
  uint32_t A = L.addContrib(RankSet(2, 5));
  Block B = blk(0, 0, 4);
  B.Contrib = A;
  L.addOp(0, 1, {B});
  L.clearOps();
  EXPECT_EQ(L.numSteps(), 0u);
  EXPECT_EQ(L.numOps(), 0u);
  EXPECT_EQ(L.numBlocks(), 0u);
  ASSERT_EQ(L.numContribs(), 1u);
  EXPECT_EQ(L.addContrib(RankSet(2, 5)), A);
  L.addOp(3, 4, {B});
  ASSERT_EQ(L.numSteps(), 1u);
  EXPECT_EQ(L.step(0)[0].Src, 3u);
}
