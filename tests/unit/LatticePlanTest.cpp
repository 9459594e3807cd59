//===- tests/unit/LatticePlanTest.cpp - Lattice pieces of a rank's plan ---===//
///
/// \file
/// An alltoall's lattice blocks (alltoall-bruck --lattice on) in a rank's
/// plan (docs/executor.md, "Lattice pieces"): each message is strided
/// pieces of the send buffer, the receive buffer and scratch, not one piece
/// per block; and running every rank's plan (in one process, messages
/// copied between the ranks' memories as MPI would carry them) leaves each
/// rank's column in its receive buffer, byte for byte what the range form
/// (--lattice off) leaves.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "executor/AlltoallLayout.h"
#include "executor/RankPlan.h"
#include "executor/ScratchAlloc.h"

#include <cstring>
#include <map>

using namespace choreo;
using namespace choreo::test;

namespace {

/// One rank's memory while its plan runs.
struct RankMemory {
  std::vector<char> Send, Recv, Scratch, Sink;
  char *base(Region R) {
    switch (R) {
    case Region::Send:
      return Send.data();
    case Region::Recv:
      return Recv.data();
    case Region::Scratch:
      return Scratch.data();
    case Region::Sink:
      return Sink.data();
    case Region::Pack:
      break;
    }
    return nullptr;
  }
};

/// The byte rank I sends rank J at byte K of their block.
char blockByte(Rank I, Rank J, uint64_t K) {
  return char(I * 131 + J * 17 + K * 7 + 1);
}

void runActions(const std::vector<LocalAction> &Actions, RankMemory &M) {
  for (const LocalAction &A : Actions) {
    ASSERT_FALSE(A.Combine);
    std::memmove(M.base(A.To.R) + A.To.Offset,
                 M.base(A.From.R) + A.From.Offset, A.From.Len);
  }
}

/// Message T of rank R's memory M, as its pieces read it.
std::vector<char> readMessage(const Transfer &T, RankMemory &M) {
  std::vector<char> Msg(T.Bytes);
  if (!T.Lattice.empty()) {
    EXPECT_TRUE(T.Pieces.empty());
    for (const LatticePiece &X : T.Lattice)
      copyLatticePiece(X, M.base(X.R), Msg.data(), true);
  } else {
    uint64_t At = 0;
    for (const MemPiece &X : T.Pieces) {
      std::memcpy(Msg.data() + At, M.base(X.R) + X.Offset, X.Len);
      At += X.Len;
    }
    EXPECT_EQ(At, T.Bytes);
  }
  return Msg;
}

/// Runs the plans of every rank of S, an alltoall of Block-byte blocks, as
/// MPI would (a step's messages carry what their senders hold at its
/// start) and returns every rank's receive buffer. Overwritten counts the
/// sends whose bytes a receive of their step changed (with sends and
/// receives in place, CHOREO_LATTICE_PIECES=datatype, MPI forbids that,
/// and it may send the wrong bytes): 0 when scratch is reused only after
/// its last send's step.
std::vector<std::vector<char>> runAll(const std::vector<RankPlan> &Plans,
                                      unsigned NumSteps, uint64_t Block,
                                      unsigned *Overwritten = nullptr) {
  Rank P = Plans.size();
  std::vector<RankMemory> Mem(P);
  for (Rank R = 0; R < P; ++R) {
    Mem[R].Send.resize(P * Block);
    for (Rank J = 0; J < P; ++J)
      for (uint64_t K = 0; K < Block; ++K)
        Mem[R].Send[J * Block + K] = blockByte(R, J, K);
    Mem[R].Recv.assign(P * Block, 0);
    Mem[R].Scratch.assign(Plans[R].ScratchBytes, 0);
    Mem[R].Sink.assign(Plans[R].SinkBytes, 0);
    runActions(Plans[R].Prologue, Mem[R]);
  }
  std::vector<size_t> Next(P, 0);
  for (unsigned St = 0; St < NumSteps; ++St) {
    // (sender, receiver) -> the step's messages between them, in order.
    std::map<std::pair<Rank, Rank>, std::vector<std::vector<char>>> Wire;
    std::vector<const RankPlanStep *> Now(P, nullptr);
    for (Rank R = 0; R < P; ++R) {
      if (Next[R] < Plans[R].Steps.size() &&
          Plans[R].Steps[Next[R]].Step == St)
        Now[R] = &Plans[R].Steps[Next[R]++];
      if (!Now[R])
        continue;
      for (const Transfer &T : Now[R]->Sends)
        Wire[{R, T.Peer}].push_back(readMessage(T, Mem[R]));
    }
    auto Sent = Wire;
    for (Rank R = 0; R < P; ++R) {
      if (!Now[R])
        continue;
      for (const Transfer &T : Now[R]->Recvs) {
        auto &Queue = Wire[{T.Peer, R}];
        EXPECT_FALSE(Queue.empty()) << "step " << St << " " << T.Peer
                                    << " -> " << R;
        if (Queue.empty())
          continue;
        std::vector<char> Msg = std::move(Queue.front());
        Queue.erase(Queue.begin());
        EXPECT_EQ(Msg.size(), T.Bytes);
        if (!T.Lattice.empty()) {
          for (const LatticePiece &X : T.Lattice)
            copyLatticePiece(X, Mem[R].base(X.R), Msg.data(), false);
        } else {
          uint64_t At = 0;
          for (const MemPiece &X : T.Pieces) {
            std::memcpy(Mem[R].base(X.R) + X.Offset, Msg.data() + At, X.Len);
            At += X.Len;
          }
        }
      }
      runActions(Now[R]->After, Mem[R]);
    }
    // What each send reads now, after the step's receipts: the same bytes.
    for (Rank R = 0; R < P; ++R) {
      if (!Now[R])
        continue;
      std::map<Rank, size_t> Nth;
      for (const Transfer &T : Now[R]->Sends) {
        std::vector<char> Again = readMessage(T, Mem[R]);
        if (Again != Sent[{R, T.Peer}][Nth[T.Peer]++]) {
          if (Overwritten)
            ++*Overwritten;
          else
            ADD_FAILURE() << "step " << St << ": a receipt of rank " << R
                          << " overwrote its send to " << T.Peer;
        }
      }
    }
    for (auto &[Pair, Queue] : Wire)
      EXPECT_TRUE(Queue.empty()) << "step " << St << ": " << Pair.first
                                 << " -> " << Pair.second << " unreceived";
  }
  std::vector<std::vector<char>> Out;
  for (Rank R = 0; R < P; ++R) {
    EXPECT_EQ(Next[R], Plans[R].Steps.size());
    runActions(Plans[R].Epilogue, Mem[R]);
    Out.push_back(std::move(Mem[R].Recv));
  }
  return Out;
}

std::vector<RankPlan> plans(const Schedule &S) {
  std::vector<RankPlan> Out;
  for (Rank R = 0; R < S.NumRanks; ++R) {
    auto P = compileRankPlan(S, R);
    EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
    Out.push_back(P ? std::move(*P) : RankPlan());
  }
  return Out;
}

} // namespace

// Intersections of rectangles: rows, and destinations in two arithmetic
// runs (the common ones every lcm of the two steps).
TEST(LatticePlan, RectanglesIntersect) {
  auto Rect = [](uint64_t I0, uint32_t Rows, uint64_t J0, uint32_t Cols,
                 uint64_t Q) {
    BlockRect X;
    X.I0 = I0, X.Rows = Rows, X.J0 = J0, X.Cols = Cols,
    X.Q = Cols > 1 ? Q : 0;
    return X;
  };
  // J in {1, 5, 9, 13, 17} and {3, 9, 15, 21}: 9 alone.
  EXPECT_EQ(intersectRects(Rect(0, 4, 1, 5, 4), Rect(2, 5, 3, 4, 6)),
            Rect(2, 2, 9, 1, 0));
  // {0, 2, ..., 18} and {0, 3, ..., 18}: every sixth.
  EXPECT_EQ(intersectRects(Rect(0, 1, 0, 10, 2), Rect(0, 1, 0, 7, 3)),
            Rect(0, 1, 0, 4, 6));
  // Another residue class, other rows, a single column in or out.
  EXPECT_EQ(intersectRects(Rect(0, 3, 1, 5, 4), Rect(0, 3, 2, 5, 4)).Rows, 0u);
  EXPECT_EQ(intersectRects(Rect(0, 3, 1, 5, 4), Rect(3, 3, 1, 5, 4)).Rows, 0u);
  EXPECT_EQ(intersectRects(Rect(0, 9, 13, 1, 0), Rect(4, 2, 1, 5, 4)),
            Rect(4, 2, 13, 1, 0));
  EXPECT_EQ(intersectRects(Rect(0, 9, 14, 1, 0), Rect(4, 2, 1, 5, 4)).Rows,
            0u);
  // A lattice of whole blocks of a 13-rank matrix of 4-byte blocks.
  Lattice L;
  L.Start = 4, L.Elem = 4, L.RowStride = 52, L.Rows = 1, L.ColStride = 12,
  L.Cols = 4;
  EXPECT_EQ(blockRect(L, 4, 13), Rect(0, 1, 1, 4, 3));
  L.Elem = 2; // not whole blocks
  EXPECT_FALSE(blockRect(L, 4, 13));
  L.Elem = 4, L.Cols = 5; // past the row's end (column 13)
  EXPECT_FALSE(blockRect(L, 4, 13));
}

// Bruck's rectangles at every p up to 30 (cut where the sources wrap below
// 0, where the destinations wrap past p - 1, and at the short last
// column), radices 2, 3 and 5, one message a step or a round's at once,
// blocks of 1 and 4 bytes: every message of every rank's plan is lattice
// pieces (a handful, not one per block), and running the plans gives every
// rank its column, the bytes the range form's plans give.
TEST(LatticePlan, BruckPiecesRunAsTheRangeForm) {
  unsigned Runs = 0, MostRects = 0;
  for (uint32_t P = 2; P <= 30; ++P)
    for (const char *K : {"2", "3", "5"})
      for (const char *Conc : {"off", "on"})
        for (uint64_t B : {1, 4}) {
          std::string A = "--p " + std::to_string(P) + " --bytes " +
                           std::to_string(B) + " --radix " + K +
                           " --concurrent " + Conc;
          Schedule Lat = gen("alltoall-bruck", A + " --lattice on");
          Schedule Ran = gen("alltoall-bruck", A + " --lattice off");
          ASSERT_GT(Lat.Steps.numLattices(), 0u) << A;
          ASSERT_EQ(Ran.Steps.numLattices(), 0u) << A;
          std::vector<RankPlan> X = plans(Lat), Y = plans(Ran);
          ASSERT_EQ(X.size(), P);
          for (Rank R = 0; R < P; ++R) {
            size_t Pieces = 0, Messages = 0, Blocks = 0;
            for (const RankPlanStep &St : X[R].Steps)
              for (const auto *List : {&St.Recvs, &St.Sends})
                for (const Transfer &T : *List) {
                  EXPECT_TRUE(T.Pieces.empty()) << A << " rank " << R;
                  EXPECT_FALSE(T.Lattice.empty()) << A << " rank " << R;
                  Pieces += T.Lattice.size();
                  Blocks += T.Bytes / B;
                  ++Messages;
                }
            // At most eight rectangles a message, each in a few pieces
            // (its rows from a band of earlier receipts each).
            EXPECT_LE(Pieces, Messages * 8 * 8) << A << " rank " << R;
            if (P >= 16)
              EXPECT_LT(Pieces, Blocks) << A << " rank " << R;
          }
          for (unsigned St = 0; St < Lat.Steps.numSteps(); ++St)
            for (const Op &O : Lat.Steps.step(St))
              MostRects = std::max(MostRects, O.NumBlocks);
          for (Rank R = 0; R < P; ++R)
            for (const RankPlan *Q : {&X[R], &Y[R]}) {
              EXPECT_EQ(checkScratchAreas(Q->ScratchAreas), "")
                  << A << " rank " << R;
              uint64_t Top = 0;
              for (const ScratchArea &Ar : Q->ScratchAreas)
                Top = std::max(Top, Ar.Offset + Ar.Bytes);
              EXPECT_EQ(Top, Q->ScratchBytes) << A << " rank " << R;
            }
          std::vector<std::vector<char>> Got =
              runAll(X, Lat.Steps.numSteps(), B);
          std::vector<std::vector<char>> Want =
              runAll(Y, Ran.Steps.numSteps(), B);
          for (Rank J = 0; J < P; ++J) {
            std::vector<char> Column(P * B);
            for (Rank I = 0; I < P; ++I)
              for (uint64_t Byte = 0; Byte < B; ++Byte)
                Column[I * B + Byte] = blockByte(I, J, Byte);
            ASSERT_EQ(Want[J], Column) << A << " rank " << J << " (ranges)";
            ASSERT_EQ(Got[J], Column) << A << " rank " << J;
          }
          ++Runs;
        }
  EXPECT_EQ(Runs, 29u * 3 * 2 * 2);
  // Messages cut into several rectangles were among them.
  EXPECT_EQ(MostRects, 4u);
}

// A lattice schedule the pieces cannot run (a block received twice: two
// areas for one block) is run as ranges, as before.
TEST(LatticePlan, OverlapRunsAsRanges) {
  Schedule S = gen("alltoall-bruck", "--p 5 --bytes 4 --lattice on");
  // Rank 0 sends rank 2 block (0, 2) again in a step of its own.
  Lattice Y;
  Y.Start = 2 * 4, Y.Elem = 4, Y.RowStride = 20, Y.Rows = 1,
  Y.ColStride = 4, Y.Cols = 1;
  S.Steps.newStep();
  S.Steps.addOp(0, 2, {S.Steps.latticeBlock(0, Y)});
  auto P = compileRankPlan(S, 2);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  for (const RankPlanStep &St : P->Steps)
    for (const Transfer &T : St.Recvs) {
      EXPECT_TRUE(T.Lattice.empty());
      EXPECT_FALSE(T.Pieces.empty());
    }
  // Rank 3 is untouched by it: lattice pieces.
  auto Q = compileRankPlan(S, 3);
  ASSERT_TRUE(bool(Q));
  EXPECT_FALSE(Q->Steps.front().Sends.front().Lattice.empty());
}

// Strided copies: elements of 1 and 4 bytes, a column stride past the
// element, a negative row stride, both directions.
TEST(LatticePlan, StridedCopy) {
  for (uint64_t E : {1, 4}) {
    std::vector<char> Mem(200), Msg(6 * E, 0);
    for (size_t I = 0; I < Mem.size(); ++I)
      Mem[I] = char(I);
    LatticePiece X{Region::Scratch, 100, -40, int64_t(3 * E),
                   0, 3 * E, E, 2, 3, E};
    copyLatticePiece(X, Mem.data(), Msg.data(), true);
    for (uint32_t R = 0; R < 2; ++R)
      for (uint32_t C = 0; C < 3; ++C)
        for (uint64_t K = 0; K < E; ++K)
          EXPECT_EQ(Msg[(R * 3 + C) * E + K],
                    char(100 - 40 * R + 3 * E * C + K))
              << E << " " << R << " " << C;
    std::vector<char> Back(200, 0);
    copyLatticePiece(X, Back.data(), Msg.data(), false);
    for (uint32_t R = 0; R < 2; ++R)
      for (uint32_t C = 0; C < 3; ++C)
        EXPECT_EQ(Back[100 - 40 * R + 3 * E * C], Mem[100 - 40 * R + 3 * E * C]);
  }
}

namespace {

/// The most scratch bytes of any of the ranks' plans.
uint64_t mostScratch(const std::vector<RankPlan> &Plans) {
  uint64_t Most = 0;
  for (const RankPlan &Q : Plans)
    Most = std::max(Most, Q.ScratchBytes);
  return Most;
}

} // namespace

// Scratch reused by liveness (executor/ScratchAlloc.h): a relayed block's
// bytes are free once it is sent for the last time, in the steps after.
// Bruck then needs O(p) blocks of scratch a rank (at most 2p here, for
// radices 2, 3 and 5, lattice pieces and ranges), not O(p log p); no two
// areas live in one step share a byte; and freeing each area one step
// early (the allocator's test hook) is caught by both the check and a run
// (a receipt overwrites a send of its step).
TEST(LatticePlan, BruckScratchReusedByLiveness) {
  for (uint32_t P : {8u, 27u, 30u, 1024u})
    for (const char *K : {"2", "3", "5"})
      for (const char *Lattice : {"on", "off"}) {
        std::string A = "--p " + std::to_string(P) + " --bytes 4 --radix " +
                         K + " --lattice " + Lattice;
        Schedule S = gen("alltoall-bruck", A);
        std::vector<RankPlan> X;
        for (Rank R : {Rank(0), Rank(P / 2), Rank(P - 1)}) {
          auto Q = compileRankPlan(S, R);
          ASSERT_TRUE(bool(Q)) << llvm::toString(Q.takeError());
          EXPECT_EQ(checkScratchAreas(Q->ScratchAreas), "") << A;
          EXPECT_FALSE(Q->ScratchAreas.empty()) << A;
          X.push_back(std::move(*Q));
        }
        EXPECT_LE(mostScratch(X), 2 * P * 4) << A;
      }
  // Freed a step early: some area shares bytes with one live beside it.
  Schedule S = gen("alltoall-bruck", "--p 16 --bytes 4 --lattice on");
  Schedule Ranges = gen("alltoall-bruck", "--p 16 --bytes 4 --lattice off");
  setScratchEarlyFreeForTesting(1);
  std::vector<RankPlan> Early = plans(S), EarlyRanges = plans(Ranges);
  setScratchEarlyFreeForTesting(0);
  for (const std::vector<RankPlan> *Ps : {&Early, &EarlyRanges}) {
    unsigned Caught = 0;
    for (const RankPlan &Q : *Ps)
      Caught += !checkScratchAreas(Q.ScratchAreas).empty();
    EXPECT_GT(Caught, 0u);
    unsigned Overwritten = 0;
    runAll(*Ps, S.Steps.numSteps(), 4, &Overwritten);
    EXPECT_GT(Overwritten, 0u);
  }
  // The check itself: areas of steps 0-2 and 2-3 may not share a byte,
  // of steps 0-1 and 2-3 may.
  std::vector<ScratchArea> Two = {{8, 0, 2, 0}, {8, 2, 3, 4}};
  EXPECT_NE(checkScratchAreas(Two), "");
  Two[0].Last = 1;
  EXPECT_EQ(checkScratchAreas(Two), "");
  Two[1].Offset = 8;
  Two[0].Last = 3;
  EXPECT_EQ(checkScratchAreas(Two), "");
}

// The allocator: areas of disjoint steps share bytes, the largest first,
// best fit, freed runs coalesced.
TEST(LatticePlan, ScratchAllocation) {
  std::vector<ScratchArea> A = {{100, 0, 1}, {50, 0, 3}, {60, 2, 2},
                                {40, 2, 4},  {100, 4, 4}};
  uint64_t Top = allocateScratch(A);
  EXPECT_EQ(checkScratchAreas(A), "");
  // Step 0: [0, 100) and [100, 150); step 2: 60 and 40 in the freed
  // [0, 100); step 4: [0, 60) and [100, 150) are free, neither holds 100,
  // so the run at the top grows: [100, 200).
  EXPECT_EQ(A[0].Offset, 0u);
  EXPECT_EQ(A[1].Offset, 100u);
  EXPECT_EQ(A[2].Offset, 0u);
  EXPECT_EQ(A[3].Offset, 60u);
  EXPECT_EQ(A[4].Offset, 100u);
  EXPECT_EQ(Top, 200u);
  // Without reuse it would be the sum, 350.
}
