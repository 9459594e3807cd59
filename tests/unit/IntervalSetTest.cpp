//===- tests/unit/IntervalSetTest.cpp -------------------------------------===//

#include "ir/IntervalSet.h"

#include <gtest/gtest.h>

using namespace choreo;

TEST(IntervalSet, InsertMergesOverlappingAndAdjacentRuns) {
  IntervalSet S;
  S.insert(10, 20);
  S.insert(30, 40);
  EXPECT_EQ(S.numIntervals(), 2u);
  S.insert(20, 30); // adjacent on both sides: one run
  EXPECT_EQ(S.str(), "[10,40)");
  S.insert(0, 5);
  S.insert(3, 12);
  EXPECT_EQ(S.str(), "[0,40)");
  S.insert(50, 50); // empty: ignored
  EXPECT_EQ(S.numIntervals(), 1u);
}

TEST(IntervalSet, ContainsNeedsEveryElement) {
  IntervalSet S;
  S.insert(0, 8);
  S.insert(16, 24);
  EXPECT_TRUE(S.contains(0, 8));
  EXPECT_TRUE(S.contains(17, 24));
  EXPECT_FALSE(S.contains(4, 20));
  EXPECT_FALSE(S.contains(8, 9));
  EXPECT_FALSE(S.contains(23, 25));
  EXPECT_TRUE(S.contains(5, 5)); // vacuous
  EXPECT_TRUE(S.contains(7));
  EXPECT_FALSE(S.contains(8));
}

TEST(IntervalSet, MissingAndClipped) {
  IntervalSet S;
  S.insert(4, 8);
  S.insert(12, 16);
  EXPECT_EQ(S.missingFrom(0, 20).str(), "[0,4) [8,12) [16,20)");
  EXPECT_EQ(S.missingFrom(4, 8).str(), "");
  EXPECT_EQ(S.clippedTo(6, 14).str(), "[6,8) [12,14)");
  EXPECT_EQ(S.cardinality(), 8u);
}

TEST(IntervalSet, EraseSplitsRuns) {
  IntervalSet S(0, 10);
  S.erase(3, 5);
  EXPECT_EQ(S.str(), "[0,3) [5,10)");
  S.erase(0, 100);
  EXPECT_TRUE(S.empty());
}

TEST(IntervalSet, Intersects) {
  IntervalSet S;
  S.insert(4, 8);
  EXPECT_TRUE(S.intersects(7, 9));
  EXPECT_FALSE(S.intersects(8, 9)); // touching is not overlapping
  EXPECT_FALSE(S.intersects(0, 4));
  IntervalSet T(8, 12);
  EXPECT_FALSE(S.intersects(T));
  T.insert(2, 5);
  EXPECT_TRUE(S.intersects(T));
}

TEST(IntervalSet, RankSetString) {
  IntervalSet S;
  S.insert(0, 4);
  S.insert(5, 6);
  EXPECT_EQ(rankSetString(S), "{0-3,5}");
}

// Uniting a set with many runs interleaved with ours (one linear merge)
// gives the runs one at a time would: touching runs joined, overlaps
// merged, in every mix of sizes and offsets.
TEST(IntervalSet, UnionOfInterleavedSetsIsRunByRun) {
  for (uint64_t Seed = 1; Seed < 200; ++Seed) {
    IntervalSet A, B, Slow;
    uint64_t X = Seed * 2654435761u;
    auto Next = [&] { return (X = X * 6364136223846793005u + 1) >> 33; };
    for (int I = 0; I < 40; ++I) {
      uint64_t Lo = Next() % 500, Len = 1 + Next() % 9;
      (I % 2 ? A : B).insert(Lo, Lo + Len);
    }
    Slow = A;
    for (const Interval &R : B.intervals())
      Slow.insert(R.Lo, R.Hi);
    IntervalSet Fast = A;
    Fast.insert(B);
    EXPECT_EQ(Fast, Slow) << Seed;
    for (size_t I = 1; I < Fast.intervals().size(); ++I)
      EXPECT_LT(Fast.intervals()[I - 1].Hi, Fast.intervals()[I].Lo);
  }
}
