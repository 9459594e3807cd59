//===- tests/unit/ContribReplayTest.cpp - The shared contributor replay ---===//
///
/// \file
/// verifier/ContribReplay.h on its own: step semantics, combining and
/// replacing, splitting and merging segments, the combine hook the checker
/// reports through, and annotateContributors over a StepList's own table.
///
//===----------------------------------------------------------------------===//

#include "verifier/ContribReplay.h"

#include <gtest/gtest.h>

#include <string>

using namespace choreo;

namespace {

/// Rank R's segments over [0, N) as "[lo,hi)set ..." with sets in str().
std::string held(const ContribReplay &Rp, ContribSets &Sets, Rank R,
                 uint64_t N) {
  std::string Out;
  Rp.forEachHeld(R, 0, N, [&](uint64_t Lo, uint64_t Hi, uint32_t Set) {
    Out += "[" + std::to_string(Lo) + "," + std::to_string(Hi) + ")" +
           Sets.get(Set).str() + " ";
  });
  return Out;
}

Block blk(uint64_t Lo, uint64_t Hi, uint32_t Set, bool Reduce) {
  Block B;
  B.Lo = Lo;
  B.Hi = Hi;
  B.Contrib = Set;
  B.Reduce = Reduce;
  return B;
}

} // namespace

TEST(ContribReplay, EveryRankStartsWithItself) {
  ContribTable Sets;
  ContribReplay Rp(3, Sets);
  for (Rank R = 0; R < 3; ++R)
    Rp.holdOwn(R, 8);
  EXPECT_EQ(held(Rp, Sets, 2, 8), "[0,8)" + RankSet(2, 3).str() + " ");
  // Clipped to the range asked for; nothing past the vector.
  EXPECT_EQ(held(Rp, Sets, 0, 100), "[0,8)" + RankSet(0, 1).str() + " ");
  std::string Mid;
  Rp.forEachHeld(1, 2, 5, [&](uint64_t Lo, uint64_t Hi, uint32_t) {
    Mid += std::to_string(Lo) + "-" + std::to_string(Hi);
  });
  EXPECT_EQ(Mid, "2-5");
}

TEST(ContribReplay, RankHoldingNothingYieldsNothing) {
  ContribTable Sets;
  ContribReplay Rp(2, Sets);
  Rp.holdOwn(0, 0);
  EXPECT_EQ(held(Rp, Sets, 0, 8), "");
  EXPECT_EQ(held(Rp, Sets, 1, 8), "");
  // A delivery to a rank holding nothing changes nothing.
  Rp.send(1, blk(0, 8, Sets.intern(RankSet(0, 1)), true));
  Rp.endStep();
  EXPECT_EQ(held(Rp, Sets, 1, 8), "");
}

TEST(ContribReplay, DeliveriesApplyAtTheEndOfTheStep) {
  ContribTable Sets;
  ContribReplay Rp(2, Sets);
  Rp.holdOwn(0, 8);
  Rp.holdOwn(1, 8);
  uint32_t Zero = Sets.intern(RankSet(0, 1));
  Rp.send(1, blk(0, 4, Zero, /*Reduce=*/true));
  // Not yet: rank 1 still holds {1} everywhere.
  EXPECT_EQ(held(Rp, Sets, 1, 8), "[0,8)" + RankSet(1, 2).str() + " ");
  Rp.endStep();
  EXPECT_EQ(held(Rp, Sets, 1, 8), "[0,4)" + RankSet(0, 2).str() + " [4,8)" +
                                      RankSet(1, 2).str() + " ");
}

TEST(ContribReplay, ReplacingAndMergingNeighbours) {
  ContribTable Sets;
  ContribReplay Rp(2, Sets);
  Rp.holdOwn(0, 8);
  Rp.holdOwn(1, 8);
  uint32_t Zero = Sets.intern(RankSet(0, 1));
  Rp.send(1, blk(2, 4, Zero, /*Reduce=*/false));
  Rp.endStep();
  EXPECT_EQ(held(Rp, Sets, 1, 8), "[0,2)" + RankSet(1, 2).str() + " [2,4)" +
                                      RankSet(0, 1).str() + " [4,8)" +
                                      RankSet(1, 2).str() + " ");
  // Replacing [2, 4) by {1} again leaves one segment.
  Rp.send(1, blk(2, 4, Sets.intern(RankSet(1, 2)), false));
  Rp.endStep();
  EXPECT_EQ(held(Rp, Sets, 1, 8), "[0,8)" + RankSet(1, 2).str() + " ");
}

TEST(ContribReplay, HookSeesEveryCombinedSegmentBeforeTheUnion) {
  ContribTable Sets;
  ContribReplay Rp(3, Sets);
  for (Rank R = 0; R < 3; ++R)
    Rp.holdOwn(R, 8);
  // Rank 2 holds {1} on [0, 4) and {2} on [4, 8).
  Rp.send(2, blk(0, 4, Sets.intern(RankSet(1, 2)), false));
  Rp.endStep();
  // Rank 0 combines [2, 6) in: two segments of rank 2, each seen once,
  // with the set held before the union and the op index given.
  Rp.send(2, blk(2, 6, Sets.intern(RankSet(0, 1)), true), /*Op=*/7);
  std::string Seen;
  Rp.endStep([&](const ContribReplay::Delivery &D, uint64_t Lo, uint64_t Hi,
                 uint32_t Had) {
    EXPECT_EQ(D.Dst, 2u);
    EXPECT_EQ(D.Op, 7u);
    Seen += std::to_string(Lo) + "-" + std::to_string(Hi) + Sets.get(Had).str() +
            " ";
  });
  EXPECT_EQ(Seen, "2-4" + RankSet(1, 2).str() + " 4-6" + RankSet(2, 3).str() +
                      " ");
  RankSet ZeroTwo(0, 1);
  ZeroTwo.insert(2, 3);
  EXPECT_EQ(held(Rp, Sets, 2, 8),
            "[0,2)" + RankSet(1, 2).str() + " [2,4)" + RankSet(0, 2).str() +
                " [4,6)" + ZeroTwo.str() + " [6,8)" + RankSet(2, 3).str() +
                " ");
}

TEST(ContribReplay, TableInternsAndCachesUnions) {
  ContribTable Sets;
  uint32_t A = Sets.intern(RankSet(0, 1)), B = Sets.intern(RankSet(1, 2));
  EXPECT_EQ(Sets.intern(RankSet(0, 1)), A);
  uint32_t U = Sets.unite(A, B);
  EXPECT_EQ(Sets.get(U).str(), RankSet(0, 2).str());
  EXPECT_EQ(Sets.unite(A, B), U);
  EXPECT_EQ(Sets.intern(RankSet(0, 2)), U);
}

TEST(ContribReplay, UnionsPastTheCacheAreComparedAsSets) {
  // 5000 unions, each of a new pair: past 4096 with no hit the table
  // stops interning them, so two equal unions get two ids; same() and
  // the merging of equal neighbours compare the sets.
  ContribTable Sets;
  for (Rank X = 0; X < 5000; ++X)
    Sets.unite(Sets.intern(RankSet(2 * X, 2 * X + 1)),
               Sets.intern(RankSet(2 * X + 1, 2 * X + 2)));
  uint32_t A = Sets.intern(RankSet(0, 1)), B = Sets.intern(RankSet(1, 2));
  uint32_t U1 = Sets.unite(A, B), U2 = Sets.unite(A, B);
  EXPECT_NE(U1, U2);
  EXPECT_TRUE(Sets.same(U1, U2));
  EXPECT_TRUE(Sets.same(U1, Sets.intern(RankSet(0, 2))));
  EXPECT_FALSE(Sets.same(U1, A));
  EXPECT_FALSE(Sets.same(U1, ContribReplay::None));
  // Rank 0's two halves each combine {1}: two ids, one segment.
  ContribReplay Rp(2, Sets);
  Rp.holdOwn(0, 4);
  Rp.send(0, blk(0, 2, B, /*Reduce=*/true));
  Rp.send(0, blk(2, 4, B, /*Reduce=*/true));
  Rp.endStep();
  EXPECT_EQ(held(Rp, Sets, 0, 4), "[0,4)" + RankSet(0, 2).str() + " ");
}

TEST(ContribReplay, UnionsHeldOnceChangeInPlace) {
  // Past the cache (5000 new unions), a replay that reuses unions (one
  // rank's check) unites a loose union its one segment holds in place:
  // one id, the table does not grow. A loose union two segments hold (a
  // delivery split it) or a set of the table's index is never changed.
  ContribTable Sets;
  for (Rank X = 0; X < 5000; ++X)
    Sets.unite(Sets.intern(RankSet(2 * X, 2 * X + 1)),
               Sets.intern(RankSet(2 * X + 1, 2 * X + 2)));
  uint32_t A = Sets.intern(RankSet(0, 1)), B = Sets.intern(RankSet(1, 2)),
           C = Sets.intern(RankSet(2, 3)), D = Sets.intern(RankSet(3, 4));
  uint32_t Loose = Sets.unite(A, B);
  EXPECT_EQ(Sets.uniteOwned(Loose, C), Loose);
  EXPECT_EQ(Sets.get(Loose).str(), RankSet(0, 3).str());
  uint32_t U = Sets.uniteOwned(A, D); // an interned set: a new one
  EXPECT_NE(U, A);
  EXPECT_EQ(Sets.get(A).str(), RankSet(0, 1).str());

  ContribReplay Rp(1, Sets);
  Rp.reuseUnions(true);
  Rp.holdOwn(0, 8);
  Rp.send(0, blk(0, 8, B, /*Reduce=*/true));
  Rp.endStep(); // [0,8) {0,1}: a loose union
  uint32_t Held = ContribReplay::None;
  Rp.forEachHeld(0, 0, 8, [&](uint64_t, uint64_t, uint32_t S) { Held = S; });
  Rp.send(0, blk(0, 8, C, /*Reduce=*/true));
  Rp.endStep(); // held once: in place
  Rp.forEachHeld(0, 0, 8, [&](uint64_t, uint64_t, uint32_t S) {
    EXPECT_EQ(S, Held);
  });
  EXPECT_EQ(held(Rp, Sets, 0, 8), "[0,8)" + RankSet(0, 3).str() + " ");
  // Half of it combines {3}: the other half keeps {0,1,2}.
  Rp.send(0, blk(0, 4, D, /*Reduce=*/true));
  Rp.endStep();
  EXPECT_EQ(held(Rp, Sets, 0, 8), "[0,4)" + RankSet(0, 4).str() + " [4,8)" +
                                      RankSet(0, 3).str() + " ");
}

TEST(ContribReplay, AnnotateWritesTheSendersSetsIntoTheListsTable) {
  // Three ranks, 6 bytes: 0 -> 1 combines [0, 6); 1 -> 2 then sends [0, 6)
  // replacing, while 2 -> 1 combines [3, 6) in the same step (read at the
  // start of the step: {2}).
  StepList Raw;
  Raw.newStep();
  Raw.addOp(0, 1, {blk(0, 6, Block::NoContrib, true)});
  Raw.newStep();
  Raw.addOp(1, 2, {blk(0, 6, Block::NoContrib, false)});
  Raw.addOp(2, 1, {blk(3, 6, Block::NoContrib, true)});
  Raw.newStep();
  Raw.addOp(1, 0, {blk(0, 6, Block::NoContrib, false)});
  StepList L = annotateContributors(Raw, 3, 6);
  ASSERT_EQ(L.numSteps(), 3u);
  auto Sets = [&](unsigned St, size_t I) {
    std::string Out;
    for (const Block &B : L.blocks(L.step(St)[I]))
      Out += "[" + std::to_string(B.Lo) + "," + std::to_string(B.Hi) + ")" +
             L.contrib(B.Contrib).str() + (B.Reduce ? "r " : " ");
    return Out;
  };
  EXPECT_EQ(Sets(0, 0), "[0,6)" + RankSet(0, 1).str() + "r ");
  EXPECT_EQ(Sets(1, 0), "[0,6)" + RankSet(0, 2).str() + " ");
  EXPECT_EQ(Sets(1, 1), "[3,6)" + RankSet(2, 3).str() + "r ");
  // Rank 1 now holds {0,1} on [0, 3) and {0,1,2} on [3, 6): split there.
  EXPECT_EQ(Sets(2, 0), "[0,3)" + RankSet(0, 2).str() + " [3,6)" +
                            RankSet(0, 3).str() + " ");
  // Zero bytes: nothing to replay.
  EXPECT_EQ(annotateContributors(Raw, 3, 0).numSteps(), 0u);
}
