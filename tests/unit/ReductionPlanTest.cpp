//===- tests/unit/ReductionPlanTest.cpp - Operand order in rank plans -----===//
///
/// \file
/// The executor's order-keeping combines, without MPI: a rank that receives
/// the partial of higher ranks combines it as the right operand, of lower
/// ranks as the left; a schedule that combines across the wrap records the
/// first such combination (which refuses a non-commutative MPI_Op).
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "executor/RankPlan.h"

using namespace choreo;
using namespace choreo::test;

namespace {

RankPlan plan(const Schedule &S, Rank Me) {
  auto P = compileRankPlan(S, Me);
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  return P ? std::move(*P) : RankPlan();
}

/// The combines of the plan's step St (a schedule step), in order.
std::vector<LocalAction> combinesAt(const RankPlan &P, uint32_t St) {
  std::vector<LocalAction> Out;
  for (const RankPlanStep &S : P.Steps)
    if (S.Step == St)
      for (const LocalAction &A : S.After)
        if (A.Combine)
          Out.push_back(A);
  return Out;
}

} // namespace

TEST(ReductionPlan, LowerIntervalIsTheLeftOperand) {
  // Fig. 2's fold at p = 5 (r = 1): rank 0 gets all[0,16) of {1} (upper),
  // rank 1 gets all[16,40) of {0} (lower).
  Schedule S = gen("allreduce-halving-doubling",
                   "--p 5 --bytes 40 --op noncommutative");
  RankPlan P0 = plan(S, 0), P1 = plan(S, 1);
  auto C0 = combinesAt(P0, 0), C1 = combinesAt(P1, 0);
  ASSERT_EQ(C0.size(), 1u);
  ASSERT_EQ(C1.size(), 1u);
  EXPECT_TRUE(C0[0].FromIsRight);
  EXPECT_FALSE(C1[0].FromIsRight);
  for (Rank R = 0; R < 5; ++R)
    EXPECT_EQ(plan(S, R).UnorderedCombine, "") << R;
}

TEST(ReductionPlan, EveryOrderKeepingGeneratorHasOrderedCombines) {
  for (const char *Id :
       {"reduce-binary-tree", "reduce-halving-doubling", "reduce-binary-blocks",
        "allreduce-binary-tree", "allreduce-recursive-doubling",
        "allreduce-halving-doubling", "allreduce-binary-blocks",
        "reduce-scatter-halving-doubling"})
    for (uint32_t P : {3u, 7u, 13u}) {
      std::string Args = "--p " + std::to_string(P) + " --bytes " +
                         std::to_string(8 * 3 * P) + " --op noncommutative";
      if (llvm::StringRef(Id).starts_with("reduce-") &&
          !llvm::StringRef(Id).starts_with("reduce-scatter"))
        Args += " --root " + std::to_string(P - 2);
      Schedule S = gen(Id, Args);
      for (Rank R = 0; R < P; ++R)
        EXPECT_EQ(plan(S, R).UnorderedCombine, "") << Id << " " << Args;
    }
}

TEST(ReductionPlan, TheRingCombinesAcrossTheWrap) {
  Schedule S = gen("allreduce-ring", "--p 5 --bytes 40");
  EXPECT_EQ(plan(S, 0).UnorderedCombine,
            "step 0: rank 0 combines all[0,8) with contributors {4} into its "
            "partial of {0}, which are not adjacent rank intervals");
  // At step i rank r combines the partial of rank r - i into its chunk:
  // rank 3 gets {2}, {1}, {0}, then {4} into {0-3}, each adjacent; only the
  // ranks that wrap below 0 before the end break order.
  EXPECT_EQ(plan(S, 3).UnorderedCombine, "");
}
