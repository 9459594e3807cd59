//===- tests/unit/AlltoallTest.cpp - Alltoall(v): spec, binding, plan -----===//
///
/// \file
/// What an alltoall means (schedule-format.md: block (i, j) of buffer `all`
/// is sizes.pairs[i * p + j] bytes, row-major; rank i holds row i, rank j
/// must end with column j), its MPI binding, and where a rank's plan finds
/// each block in the user's buffers (MPI_Alltoallv's displacements).
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "executor/RankPlan.h"
#include "ir/CallBinding.h"
#include "ir/PairMatrix.h"

using namespace choreo;
using namespace choreo::test;

namespace {

/// 3 ranks: row 0 = 1,2,3; row 1 = 4,0,6; row 2 = 7,8,0 (31 bytes).
const std::vector<uint64_t> Pairs3 = {1, 2, 3, 4, 0, 6, 7, 8, 0};

Schedule alltoall(Collective K, Rank P, std::vector<uint64_t> Pairs) {
  Schedule S;
  S.Kind = K;
  setIntragroup(S, P, {});
  S.Sizes = {{"pairs", std::move(Pairs)}};
  return S;
}

/// Every block (i, j), i != j, sent straight from i to j, one shift per
/// step.
Schedule direct(Collective K, Rank P, std::vector<uint64_t> Pairs) {
  Schedule S = alltoall(K, P, std::move(Pairs));
  PairMatrix M(S);
  for (Rank D = 1; D < P; ++D) {
    S.Steps.newStep();
    for (Rank I = 0; I < P; ++I) {
      Rank J = (I + D) % P;
      Interval B = M.block(I, J);
      if (B.size())
        S.Steps.addOp(I, J, {Block{B.Lo, B.Hi, 0}});
    }
  }
  return S;
}

RankPlan plan(const Schedule &S, Rank Me, RecvLayout Layout = {}) {
  auto P = compileRankPlan(S, Me, Layout);
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  return P ? std::move(*P) : RankPlan();
}

} // namespace

TEST(Alltoall, PairMatrixBlocks) {
  Schedule S = alltoall(Collective::Alltoallv, 3, Pairs3);
  PairMatrix M(S);
  ASSERT_EQ(M.ranks(), 3u);
  EXPECT_EQ(M.total(), 31u);
  EXPECT_EQ(M.block(1, 2).Lo, 10u);
  EXPECT_EQ(M.block(1, 2).Hi, 16u);
  EXPECT_EQ(M.row(2).Lo, 16u);
  EXPECT_EQ(M.row(2).Hi, 31u);
  EXPECT_EQ(M.columnBytes(0), 12u);
  // Byte 10 is block (1, 2): the empty block (1, 1) holds none.
  EXPECT_EQ(M.blockAt(10), (std::pair<Rank, Rank>{1, 2}));
  EXPECT_EQ(M.blockAt(0), (std::pair<Rank, Rank>{0, 0}));
  EXPECT_EQ(M.blockAt(30), (std::pair<Rank, Rank>{2, 1}));
  EXPECT_FALSE(M.offDiagonalEqual());
  EXPECT_TRUE(PairMatrix(2, {9, 4, 4, 1}).offDiagonalEqual());
  EXPECT_FALSE(PairMatrix(2, {9, 4, 4, 1}).allEqual());
  // Not ranks^2 entries: no matrix.
  EXPECT_EQ(PairMatrix(3, {1, 2}).ranks(), 0u);
}

TEST(Alltoall, SpecBuffersHoldingsResults) {
  Schedule S = alltoall(Collective::Alltoallv, 3, Pairs3);
  const CollectiveSpec &Sp = S.spec();
  EXPECT_EQ(Sp.Data, DataKind::Alltoall);
  EXPECT_TRUE(Sp.knowsSizes("pairs"));
  EXPECT_FALSE(specOf(Collective::Allgather).knowsSizes("pairs"));
  std::vector<Buffer> Bufs = S.buffers();
  ASSERT_EQ(Bufs.size(), 1u);
  EXPECT_EQ(Bufs[0].Name, "all");
  EXPECT_EQ(Bufs[0].Length, 31u);
  EXPECT_EQ(S.vectorLength(), 0u);
  // Rank i holds its row.
  std::vector<Holding> Init = Sp.initialHoldings(S);
  ASSERT_EQ(Init.size(), 3u);
  EXPECT_EQ(Init[1].R, 1u);
  EXPECT_EQ(Init[1].Lo, 6u);
  EXPECT_EQ(Init[1].Hi, 16u);
  // Rank 1 ends with its column's non-empty blocks (0, 1) and (2, 1), in
  // the receive buffer's order; not one range.
  EXPECT_FALSE(Sp.result(S, 1).has_value());
  std::vector<Holding> R1 = Sp.results(S, 1);
  ASSERT_EQ(R1.size(), 2u);
  EXPECT_EQ(R1[0].Lo, 1u);
  EXPECT_EQ(R1[0].Hi, 3u);
  EXPECT_EQ(R1[1].Lo, 23u);
  EXPECT_EQ(R1[1].Hi, 31u);
  // Requirements: rank by rank, each rank's consecutive.
  std::vector<Holding> Reqs = Sp.requirements(S);
  ASSERT_EQ(Reqs.size(), 7u); // 9 blocks, 2 empty
  std::vector<Rank> Who;
  for (const Holding &H : Reqs)
    Who.push_back(H.R);
  EXPECT_EQ(Who, (std::vector<Rank>{0, 0, 0, 1, 1, 2, 2}));
  // Other collectives' results() are their result().
  Schedule G;
  G.Kind = Collective::Allgather;
  setIntragroup(G, 2, {3, 4});
  ASSERT_EQ(G.spec().results(G, 1).size(), 1u);
  EXPECT_EQ(G.spec().results(G, 1)[0].Hi, 7u);
  // alltoall and alltoallv serve the same calls.
  EXPECT_TRUE(servesSameCalls(Collective::Alltoall, Collective::Alltoallv));
  EXPECT_FALSE(servesSameCalls(Collective::Alltoall, Collective::Allgather));
}

TEST(Alltoall, EnginesProveAndRefute) {
  Schedule S = direct(Collective::Alltoallv, 3, Pairs3);
  EXPECT_TRUE(S.verify().empty());
  EXPECT_TRUE(checkExplicit(S).proved()) << firstMessage(checkExplicit(S));
  // Rank 1 keeps block (1, 2) to itself: rank 2 lacks it.
  Schedule Bad = alltoall(Collective::Alltoallv, 3, Pairs3);
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St) {
    Bad.Steps.newStep();
    for (const Op &O : S.Steps.step(St))
      if (!(O.Src == 1 && O.Dst == 2))
        Bad.Steps.addOp(O.Src, O.Dst, S.Steps.blocks(O));
  }
  VerifyResult R = checkExplicit(Bad);
  EXPECT_FALSE(R.proved());
  EXPECT_EQ(firstMessage(R),
            "after the last step (step 1): rank 2 lacks all[10,16)");
}

TEST(Alltoall, Binding) {
  MpiArgs A;
  A.Call = MpiCall::Alltoallv;
  A.Ranks = 3;
  A.SizesA = Pairs3;
  auto C = bindCall(A);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->Header.Kind, Collective::Alltoallv);
  Schedule H;
  H.header() = C->Header;
  EXPECT_TRUE(H.verifyHeader().empty());
  EXPECT_EQ(*C->Header.sizes("pairs"), Pairs3);
  EXPECT_EQ(C->Header.sizes("all"), nullptr);
  EXPECT_EQ(C->totalBytes(), 31u);
  // MPICH's avg_msg_size: bytes per destination.
  EXPECT_EQ(C->averageBytes(), 3u);
  EXPECT_EQ(C->memberBytes(), (std::vector<uint64_t>{6, 10, 15}));
  EXPECT_EQ(C->describe(),
            "MPI_Alltoallv (communicator of 3, 31 bytes in all)");
  EXPECT_EQ(nativeCall(C->Header), MpiCall::Alltoallv);
  // Every block alike: MPI_Alltoall; a diagonal that differs: Alltoallv.
  A.Call = MpiCall::Alltoall;
  A.SizesA = std::vector<uint64_t>(9, 4);
  auto Same = bindCall(A);
  ASSERT_TRUE(bool(Same));
  EXPECT_EQ(Same->Header.Kind, Collective::Alltoall);
  EXPECT_EQ(nativeCall(Same->Header), MpiCall::Alltoall);
  EXPECT_EQ(Same->averageBytes(), 4u);
  Same->Header.Sizes[0].Values[4] = 2;
  EXPECT_EQ(nativeCall(Same->Header), MpiCall::Alltoallv);
  // Alltoall on an intercommunicator: inter_alltoall over the p + q ranks,
  // the matrix in SizesA, B's size from SizesB; each side's blocks alike
  // take MPI_Alltoall, else MPI_Alltoallv.
  A.Inter = true;
  A.Ranks = 3;
  A.SizesA = {0, 0, 4, 0, 0, 4, 6, 6, 0};
  A.SizesB = {0};
  auto Inter = bindCall(A);
  ASSERT_TRUE(bool(Inter)) << llvm::toString(Inter.takeError());
  EXPECT_EQ(Inter->Header.Kind, Collective::InterAlltoall);
  EXPECT_EQ(Inter->Header.group("A")->Members, (std::vector<Rank>{0, 1}));
  EXPECT_EQ(Inter->Header.group("B")->Members, (std::vector<Rank>{2}));
  EXPECT_EQ(nativeCall(Inter->Header), MpiCall::Alltoall);
  Inter->Header.Sizes[0].Values[2] = 5;
  EXPECT_EQ(nativeCall(Inter->Header), MpiCall::Alltoallv);
  EXPECT_EQ(Inter->describe(),
            "MPI_Alltoall (intercommunicator 2 + 1, 21 bytes in all)");
  // MPI_Reduce_scatter on an intercommunicator: not (yet) choreo's.
  MpiArgs R;
  R.Call = MpiCall::ReduceScatter;
  R.Inter = true;
  EXPECT_EQ(errorText(bindCall(R)),
            "MPI_Reduce_scatter on an intercommunicator: choreo has no such "
            "collective");
}

TEST(Alltoall, PlanRowFromSendColumnIntoRecv) {
  Schedule S = direct(Collective::Alltoallv, 3, Pairs3);
  // Rank 1 sends row 1 = blocks (1, 0) of 4 and (1, 2) of 6 bytes, and
  // receives (0, 1) of 2 and (2, 1) of 8; its diagonal block is empty.
  RankPlan P = plan(S, 1);
  EXPECT_EQ(P.SendBytes, 10u);
  EXPECT_EQ(P.RecvBytes, 10u);
  EXPECT_EQ(P.ScratchBytes, 0u);
  EXPECT_TRUE(P.Prologue.empty());
  ASSERT_EQ(P.Steps.size(), 2u);
  // Step 0: 1 -> 2 sends block (1, 2) from send offset 4; receives (0, 1)
  // into receive offset 0.
  ASSERT_EQ(P.Steps[0].Sends.size(), 1u);
  EXPECT_EQ(P.Steps[0].Sends[0].Pieces[0].R, Region::Send);
  EXPECT_EQ(P.Steps[0].Sends[0].Pieces[0].Offset, 4u);
  ASSERT_EQ(P.Steps[0].Recvs.size(), 1u);
  EXPECT_EQ(P.Steps[0].Recvs[0].Pieces[0].R, Region::Recv);
  EXPECT_EQ(P.Steps[0].Recvs[0].Pieces[0].Offset, 0u);
  // Rank 0's diagonal block (1 byte) is copied from its send buffer into
  // its receive buffer before the first step.
  RankPlan P0 = plan(S, 0);
  ASSERT_EQ(P0.Prologue.size(), 1u);
  EXPECT_EQ(P0.Prologue[0].From.R, Region::Send);
  EXPECT_EQ(P0.Prologue[0].From.Offset, 0u);
  EXPECT_EQ(P0.Prologue[0].To.R, Region::Recv);
  EXPECT_EQ(P0.Prologue[0].To.Offset, 0u);
  EXPECT_EQ(P0.Prologue[0].To.Len, 1u);
}

TEST(Alltoall, PlanDisplacements) {
  Schedule S = direct(Collective::Alltoallv, 3, Pairs3);
  // Rank 0: row blocks (1, 2, 3 bytes) stored in reverse at sdispls 10, 5,
  // 0; column blocks (1, 4, 7 bytes) at rdispls 100, 50, 0.
  RecvLayout L;
  L.SendDispls = {10, 5, 0};
  L.Displs = {100, 50, 0};
  RankPlan P = plan(S, 0, L);
  EXPECT_EQ(P.SendBytes, 11u);
  EXPECT_EQ(P.RecvBytes, 101u);
  ASSERT_EQ(P.Prologue.size(), 1u);
  EXPECT_EQ(P.Prologue[0].From.Offset, 10u);
  EXPECT_EQ(P.Prologue[0].To.Offset, 100u);
  // Step 0: 0 -> 1 block (0, 1) from send offset 5; 2 -> 0 block (2, 0)
  // into receive offset 0.
  EXPECT_EQ(P.Steps[0].Sends[0].Pieces[0].Offset, 5u);
  EXPECT_EQ(P.Steps[0].Recvs[0].Pieces[0].Offset, 0u);
  EXPECT_EQ(P.Steps[1].Recvs[0].Pieces[0].Offset, 50u);
  L.SendDispls = {0, 1};
  EXPECT_EQ(errorText(compileRankPlan(S, 0, L)),
            "2 send displacements for the 3 ranks of the alltoall");
}

TEST(Alltoall, PlanRelaysThroughScratch) {
  // Rank 1 relays block (0, 2) from 0 to 2: it lives in scratch there.
  Schedule S = alltoall(Collective::Alltoallv, 3, Pairs3);
  PairMatrix M(S);
  S.Steps.newStep();
  S.Steps.addOp(0, 1, {Block{M.block(0, 1).Lo, M.block(0, 2).Hi, 0}});
  S.Steps.newStep();
  S.Steps.addOp(1, 2, {Block{M.block(0, 2).Lo, M.block(0, 2).Hi, 0}});
  RankPlan P = plan(S, 1);
  EXPECT_EQ(P.ScratchBytes, 3u);
  // One message, two regions: (0, 1) into the receive buffer, (0, 2) into
  // scratch.
  ASSERT_EQ(P.Steps[0].Recvs[0].Pieces.size(), 2u);
  EXPECT_EQ(P.Steps[0].Recvs[0].Pieces[0].R, Region::Recv);
  EXPECT_EQ(P.Steps[0].Recvs[0].Pieces[1].R, Region::Scratch);
  EXPECT_EQ(P.Steps[1].Sends[0].Pieces[0].R, Region::Scratch);
}

// MPI_Alltoall's uniform header (sizes.block): the same blocks, holdings,
// results and plans as the matrix of its entries alike, from O(1) sizes;
// the library's MPI_Alltoall (one count, no matrix) binds to it.
TEST(Alltoall, UniformBlockIsTheMatrixAlike) {
  for (Rank P : {1u, 2u, 3u, 5u})
    for (uint64_t N : {0u, 1u, 6u}) {
      Schedule U;
      U.Kind = Collective::Alltoall;
      setIntragroup(U, P, {});
      setUniformBlock(U, N);
      Schedule M = alltoall(Collective::Alltoall, P,
                            std::vector<uint64_t>(size_t(P) * P, N));
      EXPECT_TRUE(U.verifyHeader().empty());
      PairMatrix A(U), B(M);
      ASSERT_EQ(A.ranks(), P);
      EXPECT_TRUE(A.isUniform());
      EXPECT_FALSE(B.isUniform());
      EXPECT_EQ(A.total(), B.total());
      EXPECT_TRUE(A.allEqual());
      for (Rank I = 0; I < P; ++I) {
        EXPECT_EQ(A.row(I), B.row(I));
        EXPECT_EQ(A.columnBytes(I), B.columnBytes(I));
        for (Rank J = 0; J < P; ++J) {
          EXPECT_EQ(A.block(I, J), B.block(I, J));
          if (N)
            EXPECT_EQ(A.blockAt(A.block(I, J).Lo), std::pair(I, J));
        }
      }
      const CollectiveSpec &Sp = U.spec();
      EXPECT_EQ(U.buffers()[0].Length, M.buffers()[0].Length);
      auto Same = [](const std::vector<Holding> &X,
                     const std::vector<Holding> &Y) {
        if (X.size() != Y.size())
          return false;
        for (size_t K = 0; K < X.size(); ++K)
          if (X[K].R != Y[K].R || X[K].Lo != Y[K].Lo || X[K].Hi != Y[K].Hi)
            return false;
        return true;
      };
      EXPECT_TRUE(Same(Sp.initialHoldings(U), Sp.initialHoldings(M)));
      EXPECT_TRUE(Same(Sp.requirements(U), Sp.requirements(M)));
      for (Rank R = 0; R < P; ++R)
        EXPECT_TRUE(Same(Sp.results(U, R), Sp.results(M, R)));
    }
  // A plan of the uniform form is the matrix form's, piece for piece.
  Schedule D = direct(Collective::Alltoall, 4, std::vector<uint64_t>(16, 5));
  Schedule DU = D;
  setUniformBlock(DU, 5);
  for (Rank Me = 0; Me < 4; ++Me) {
    RankPlan X = plan(D, Me), Y = plan(DU, Me);
    EXPECT_EQ(X.SendBytes, Y.SendBytes);
    EXPECT_EQ(X.RecvBytes, Y.RecvBytes);
    ASSERT_EQ(X.Steps.size(), Y.Steps.size());
    for (size_t St = 0; St < X.Steps.size(); ++St) {
      ASSERT_EQ(X.Steps[St].Recvs.size(), Y.Steps[St].Recvs.size());
      for (size_t K = 0; K < X.Steps[St].Recvs.size(); ++K)
        EXPECT_EQ(X.Steps[St].Recvs[K].Pieces[0].Offset,
                  Y.Steps[St].Recvs[K].Pieces[0].Offset);
    }
  }
  // The library's MPI_Alltoall: one count, no matrix.
  MpiArgs A;
  A.Call = MpiCall::Alltoall;
  A.Ranks = 65536;
  A.Bytes = 8;
  auto C = bindCall(A);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->Header.sizes("pairs"), nullptr);
  ASSERT_NE(C->Header.sizes("block"), nullptr);
  EXPECT_EQ(*C->Header.sizes("block"), std::vector<uint64_t>{8});
  EXPECT_EQ(C->totalBytes(), uint64_t(65536) * 65536 * 8);
  EXPECT_EQ(C->averageBytes(), 8u);
  EXPECT_EQ(nativeCall(C->Header), MpiCall::Alltoall);
  // A build of the same blocks as a matrix serves the call; other sizes
  // do not.
  C->Header.NumRanks = 2;
  setIntragroup(C->Header, 2, {});
  setUniformBlock(C->Header, 8);
  CallHeader Built = C->Header;
  Built.Sizes = {{"pairs", {8, 8, 8, 8}}};
  EXPECT_EQ(headerMismatch(C->Header, Built), "");
  Built.Sizes = {{"pairs", {8, 8, 8, 7}}};
  EXPECT_EQ(headerMismatch(C->Header, Built),
            "its block sizes (sizes.pairs [8,8,8,7]) are not the call's "
            "(sizes.block [8])");
}
