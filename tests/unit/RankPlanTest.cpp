//===- tests/unit/RankPlanTest.cpp - One rank's part of a schedule --------===//
///
/// \file
/// Where each logical buffer lives on a rank, and what a rank's plan holds,
/// without MPI (the MPI side runs in tests/mpi).
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "executor/RankPlan.h"

using namespace choreo;
using namespace choreo::test;

namespace {

RankPlan plan(const Schedule &S, Rank Me, RecvLayout Layout = {}) {
  auto P = compileRankPlan(S, Me, Layout);
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  return P ? std::move(*P) : RankPlan();
}

size_t opsOf(const Schedule &S, Rank Me) {
  size_t N = 0;
  for (const Op &O : S.Steps.allOps())
    N += (O.Src == Me) + (O.Dst == Me);
  return N;
}

bool usesRegion(const RankPlan &P, Region R) {
  for (const RankPlanStep &St : P.Steps)
    for (const auto *List : {&St.Recvs, &St.Sends})
      for (const Transfer &T : *List)
        for (const MemPiece &M : T.Pieces)
          if (M.R == R)
            return true;
  return false;
}

} // namespace

TEST(RankPlan, KeepsOnlyThisRanksOpsAndSteps) {
  Schedule S = gen("inter-allgather-kang", "--p 6 --q 2 --bytes-a 8 --bytes-b 6");
  for (Rank R = 0; R < S.NumRanks; ++R) {
    RankPlan P = plan(S, R);
    EXPECT_EQ(P.numTransfers(), opsOf(S, R)) << "rank " << R;
    for (const RankPlanStep &St : P.Steps)
      EXPECT_FALSE(St.Recvs.empty() && St.Sends.empty());
  }
}

TEST(RankPlan, KangMembersOfASendFromTheirSendBuffer) {
  Schedule S = gen("inter-allgather-kang", "--p 6 --q 2 --bytes-a 8 --bytes-b 6");
  RankPlan A2 = plan(S, 2);
  EXPECT_EQ(A2.ResultBuffer, "B");
  EXPECT_EQ(A2.SendBytes, 8u);
  EXPECT_EQ(A2.RecvBytes, 12u); // q k_B
  EXPECT_EQ(A2.ScratchBytes, 0u);
  EXPECT_TRUE(A2.Prologue.empty()); // its own data is not in its result
  EXPECT_TRUE(usesRegion(A2, Region::Send));
  EXPECT_FALSE(usesRegion(A2, Region::Sink));
  RankPlan B1 = plan(S, 7);
  EXPECT_EQ(B1.ResultBuffer, "A");
  EXPECT_EQ(B1.RecvBytes, 48u);
}

TEST(RankPlan, TheRootOfAGatherRelaysThroughScratch) {
  Schedule S = gen("inter-allgather-root", "--p 5 --q 3 --bytes-a 4 --bytes-b 2");
  RankPlan A0 = plan(S, 0);
  // a0 gathers all of A (which it does not keep: its result is B).
  EXPECT_EQ(A0.ScratchBytes, 20u);
  ASSERT_EQ(A0.Prologue.size(), 1u);
  EXPECT_EQ(A0.Prologue[0].From.R, Region::Send);
  EXPECT_EQ(A0.Prologue[0].To.R, Region::Scratch);
  // a4 only sends its own message.
  RankPlan A4 = plan(S, 4);
  EXPECT_EQ(A4.ScratchBytes, 0u);
}

TEST(RankPlan, AllgatherCopiesTheOwnBlockIntoTheResult) {
  Schedule S = gen("allgather-ring", "--p 4 --bytes 10");
  RankPlan P = plan(S, 2);
  ASSERT_EQ(P.Prologue.size(), 1u);
  EXPECT_EQ(P.Prologue[0].To.R, Region::Recv);
  EXPECT_EQ(P.Prologue[0].To.Offset, 20u);
  EXPECT_EQ(P.Prologue[0].To.Len, 10u);
  EXPECT_EQ(P.Steps.size(), 3u);
  EXPECT_FALSE(usesRegion(P, Region::Send));
}

TEST(RankPlan, ReceiptOfHeldBytesGoesToTheSink) {
  // The scatter + Bruck broadcast sends the root bytes it already holds.
  Schedule S = gen("bcast-scatter-allgather", "--p 5 --bytes 50 --intra bruck");
  RankPlan Root = plan(S, 0);
  EXPECT_TRUE(usesRegion(Root, Region::Sink));
  EXPECT_GT(Root.SinkBytes, 0u);
  for (const RankPlanStep &St : Root.Steps)
    EXPECT_TRUE(St.After.empty()); // nothing of it is new
  RankPlan Other = plan(S, 3);
  EXPECT_EQ(Other.SendBytes, 0u);
  EXPECT_EQ(Other.RecvBytes, 50u);
}

TEST(RankPlan, DisplacementsSplitTransfers) {
  Schedule S = gen("allgather-bruck", "--p 4 --bytes 10");
  // Members stored in reverse order in the receive buffer.
  RecvLayout L;
  L.Displs = {30, 20, 10, 0};
  RankPlan P = plan(S, 0, L);
  EXPECT_EQ(P.RecvBytes, 40u);
  ASSERT_EQ(P.Prologue.size(), 1u);
  EXPECT_EQ(P.Prologue[0].To.Offset, 30u);
  // Step 1 sends the own and next member's blocks: two pieces once
  // reversed, one piece when contiguous.
  ASSERT_GE(P.Steps.size(), 2u);
  EXPECT_EQ(P.Steps[1].Sends[0].Pieces.size(), 2u);
  EXPECT_EQ(plan(S, 0).Steps[1].Sends[0].Pieces.size(), 1u);
  L.Displs = {0, 10};
  EXPECT_EQ(errorText(compileRankPlan(S, 0, L)),
            "2 receive displacements for the 4 members of group all");
}

TEST(RankPlan, ReductionsCombineAfterTheStep) {
  auto S = parseSchedule(R"({"format": "choreo-schedule", "version": 1,
    "collective": "allreduce", "ranks": 2, "groups": {"all": [0, 1]},
    "sizes": {"all": [16]}, "steps": [{"ops": [
      {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 16,
        "contrib": [[0, 1]], "reduce": true}]},
      {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 16,
        "contrib": [[1, 2]], "reduce": true}]}]}]})");
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  RankPlan P = plan(*S, 1);
  EXPECT_EQ(P.SendBytes, 16u);
  EXPECT_EQ(P.RecvBytes, 16u);
  ASSERT_EQ(P.Steps.size(), 1u);
  EXPECT_EQ(P.Steps[0].Recvs[0].Pieces[0].R, Region::Sink);
  ASSERT_EQ(P.Steps[0].After.size(), 1u);
  EXPECT_TRUE(P.Steps[0].After[0].Combine);
  EXPECT_EQ(P.Steps[0].After[0].To.R, Region::Recv);
}

TEST(RankPlan, UnknownRank) {
  Schedule S = gen("allgather-ring", "--p 3 --bytes 1");
  EXPECT_EQ(errorText(compileRankPlan(S, 3)),
            "rank 3 is not a rank of the schedule (3 ranks)");
}

TEST(RankPlan, AScatterKeepsItsSliceInRecvAndRelaysTheRest) {
  // Binomial from root 3 of 5 (relative ranks 0..4 are 3, 4, 0, 1, 2):
  // 3 -> 1 all[0,3) then ... relative 2 (rank 0) relays relative 3 (rank 1).
  Schedule S = gen("scatter-binomial", "--p 5 --counts 3,0,5,1,2 --root 3");
  // The root reads buffer all from its send buffer and copies its own
  // slice all[8,9) into the receive buffer first.
  RankPlan Root = plan(S, 3);
  EXPECT_EQ(Root.SendBytes, 11u);
  EXPECT_EQ(Root.RecvBytes, 1u);
  ASSERT_EQ(Root.Prologue.size(), 1u);
  EXPECT_EQ(Root.Prologue[0].From.R, Region::Send);
  EXPECT_EQ(Root.Prologue[0].From.Offset, 8u);
  EXPECT_EQ(Root.Prologue[0].To.R, Region::Recv);
  EXPECT_EQ(Root.Prologue[0].To.Offset, 0u);
  EXPECT_FALSE(usesRegion(Root, Region::Recv));
  // Rank 0 receives all[0,3) (its own slice, straight into its receive
  // buffer) and all[3,3) of rank 1: nothing to relay here.
  RankPlan R0 = plan(S, 0);
  EXPECT_EQ(R0.SendBytes, 0u);
  EXPECT_EQ(R0.RecvBytes, 3u);
  EXPECT_TRUE(R0.Prologue.empty());
  EXPECT_FALSE(usesRegion(R0, Region::Sink));
  // Rank 4 (relative 1) is a leaf; rank 2 (relative 4) too. A relay with
  // data for others: p = 8, root 0, rank 4 gets all[4,8) and keeps all[4,5).
  Schedule T = gen("scatter-binomial", "--p 8 --bytes 1 --root 0");
  RankPlan R4 = plan(T, 4);
  EXPECT_EQ(R4.RecvBytes, 1u);
  EXPECT_EQ(R4.ScratchBytes, 3u); // all[5,8), not its own byte
  ASSERT_FALSE(R4.Steps.empty());
  const Transfer &In = R4.Steps.front().Recvs.at(0);
  ASSERT_EQ(In.Pieces.size(), 2u);
  EXPECT_EQ(In.Pieces[0].R, Region::Recv);
  EXPECT_EQ(In.Pieces[0].Len, 1u);
  EXPECT_EQ(In.Pieces[1].R, Region::Scratch);
  EXPECT_EQ(In.Pieces[1].Len, 3u);
}

TEST(RankPlan, ABarrierHasMessagesWithNoPayloadAndNoBuffers) {
  Schedule S = gen("barrier-recursive-doubling", "--p 6");
  for (Rank R = 0; R < S.NumRanks; ++R) {
    RankPlan P = plan(S, R);
    EXPECT_EQ(P.numTransfers(), opsOf(S, R)) << "rank " << R;
    EXPECT_EQ(P.SendBytes, 0u);
    EXPECT_EQ(P.RecvBytes, 0u);
    EXPECT_EQ(P.ScratchBytes + P.SinkBytes, 0u);
    EXPECT_TRUE(P.Prologue.empty());
    for (const RankPlanStep &St : P.Steps)
      for (const auto *List : {&St.Recvs, &St.Sends})
        for (const Transfer &T : *List) {
          EXPECT_TRUE(T.Pieces.empty());
          EXPECT_EQ(T.Bytes, 0u);
        }
  }
}
