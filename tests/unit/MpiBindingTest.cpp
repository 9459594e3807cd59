//===- tests/unit/MpiBindingTest.cpp - The MPI binding, both ways ---------===//
///
/// \file
/// Without MPI running: the binding table, an MPI call's header (the very
/// header the generators build for it), what is and is not in the cache
/// key, the comparison of a built header with the call's naming the first
/// field that differs, and which MPI call runs a header natively.
///
//===----------------------------------------------------------------------===//

#include "executor/MpiBinding.h"
#include "pmpi/Shape.h"

#include <gtest/gtest.h>

using namespace choreo;

namespace {

BoundCall bound(MpiArgs A) { return llvm::cantFail(bindCall(std::move(A))); }

MpiArgs gatherArgs(MpiCall C, std::vector<uint64_t> A,
                   std::vector<uint64_t> B = {}, bool Inter = false) {
  MpiArgs X;
  X.Call = C;
  X.Inter = Inter;
  X.SizesA = std::move(A);
  X.SizesB = std::move(B);
  return X;
}

MpiArgs vectorArgs(MpiCall C, Rank N, uint64_t Bytes, Rank Root = 0,
                   bool Commutative = true, uint64_t Elem = 4) {
  MpiArgs X;
  X.Call = C;
  X.Ranks = N;
  X.Bytes = Bytes;
  X.Root = Root;
  X.Commutative = Commutative;
  X.ElemBytes = Elem;
  return X;
}

} // namespace

TEST(MpiBinding, OneRowPerCall) {
  ASSERT_EQ(allBindings().size(), size_t(MpiCall::Exscan) + 1);
  for (const MpiBinding &B : allBindings()) {
    EXPECT_EQ(&bindingOf(B.Call), &B);
    EXPECT_TRUE(llvm::StringRef(B.MpiName).starts_with("MPI_")) << B.Name;
    // The collective a call asks for implements it (MPI_Reduce_scatter_block
    // is a reduce_scatter of equal slices, MPI_Gather and MPI_Scatter a
    // gather and a scatter of equal members).
    if (B.Call != MpiCall::ReduceScatterBlock && B.Call != MpiCall::Gather &&
        B.Call != MpiCall::Scatter)
      EXPECT_EQ(specOf(B.Intra).Call, B.Call) << B.Name;
    if (B.Inter)
      EXPECT_TRUE(specOf(*B.Inter).Intergroup) << B.Name;
  }
  EXPECT_EQ(llvm::StringRef(bindingOf(MpiCall::ReduceScatterBlock).Name),
            "reduce_scatter_block");
}

TEST(MpiBinding, CallHeaderIsTheGeneratorsHeader) {
  struct Case {
    MpiArgs Args;
    const char *Id;
  };
  MpiArgs Slices = gatherArgs(MpiCall::ReduceScatter, {8, 0, 16});
  Slices.ElemBytes = 4;
  const Case Cases[] = {
      {gatherArgs(MpiCall::Allgather, {8, 8, 8}), "allgather-ring"},
      {gatherArgs(MpiCall::Allgatherv, {1, 0, 5}), "allgather-bruck"},
      {gatherArgs(MpiCall::Allgather, {4, 4}, {2, 2, 2}, true),
       "inter-allgather-kang"},
      {vectorArgs(MpiCall::Bcast, 4, 100, 2), "bcast-binomial"},
      {vectorArgs(MpiCall::Reduce, 4, 96, 3, false, 16), "reduce-binary-tree"},
      {vectorArgs(MpiCall::Allreduce, 3, 24), "allreduce-ring"},
      {Slices, "reduce-scatter-ring"},
  };
  for (const Case &C : Cases) {
    BoundCall Call = bound(C.Args);
    auto S = pmpi::buildFor(C.Id, {}, Call.Header, Call.ElemBytes);
    ASSERT_TRUE(bool(S)) << C.Id << ": " << llvm::toString(S.takeError());
    EXPECT_EQ(headerMismatch(Call.Header, *S), "") << C.Id;
    // Every field alike, the machine model the defaults of both.
    EXPECT_EQ(headerDigest(Call.Header), headerDigest(*S)) << C.Id;
  }
}

TEST(MpiBinding, KeyAndDescription) {
  BoundCall A = bound(vectorArgs(MpiCall::Allreduce, 6, 96));
  EXPECT_EQ(A.describe(), "MPI_Allreduce (communicator of 6, 96 bytes)");
  EXPECT_EQ(A.memberBytes(), (std::vector<uint64_t>{96, 0, 0, 0, 0, 0}));
  EXPECT_EQ(A.averageBytes(), 16u);
  // The element size is no part of the header, but of the key.
  BoundCall B = bound(vectorArgs(MpiCall::Allreduce, 6, 96, 0, true, 8));
  EXPECT_EQ(headerDigest(A.Header), headerDigest(B.Header));
  EXPECT_NE(A.key(), B.key());
  // MPI_IN_PLACE is no part of either.
  MpiArgs P = vectorArgs(MpiCall::Allreduce, 6, 96);
  P.InPlace = true;
  EXPECT_EQ(bound(P).key(), A.key());
  // Reduce_scatter and reduce_scatter_block share a header, not a key.
  BoundCall RS = bound(gatherArgs(MpiCall::ReduceScatter, {8, 8}));
  BoundCall RB = bound(gatherArgs(MpiCall::ReduceScatterBlock, {8, 8}));
  EXPECT_EQ(headerDigest(RS.Header), headerDigest(RB.Header));
  EXPECT_NE(RS.key(), RB.key());
  EXPECT_EQ(RB.describe(),
            "MPI_Reduce_scatter_block (communicator of 2, 16 bytes)");
  BoundCall R = bound(vectorArgs(MpiCall::Reduce, 6, 16, 5, false, 16));
  EXPECT_EQ(R.describe(), "MPI_Reduce (communicator of 6, 16 bytes, root 5, "
                          "an operator that does not commute)");
  BoundCall I = bound(gatherArgs(MpiCall::Allgatherv, {1, 2, 3}, {4}, true));
  EXPECT_EQ(I.describe(),
            "MPI_Allgatherv (intercommunicator 3 + 1, 10 bytes in all)");
  EXPECT_EQ(I.commSize(), 3u);
  EXPECT_EQ(I.remoteSize(), 1u);
  EXPECT_EQ(I.name(), "allgatherv");
}

TEST(MpiBinding, MismatchNamesTheFirstField) {
  CallHeader Call =
      bound(vectorArgs(MpiCall::Reduce, 4, 64, 1, /*Commutative=*/false))
          .Header;
  CallHeader H = Call;
  EXPECT_EQ(headerMismatch(Call, H), "");
  // Not fixed by the call: the machine model.
  H.Topo = Topology::ring();
  H.Port.Send = 2;
  EXPECT_EQ(headerMismatch(Call, H), "");
  H.Kind = Collective::Allreduce;
  H.Root.reset();
  EXPECT_EQ(headerMismatch(Call, H), "its collective is allreduce "
                                     "(MPI_Allreduce), not the call's reduce "
                                     "(MPI_Reduce)");
  H = Call;
  H.Sizes[0].Values = {48};
  EXPECT_EQ(headerMismatch(Call, H), "its sizes.all are [48], the call's [64]");
  H = Call;
  H.Root = 2;
  EXPECT_EQ(headerMismatch(Call, H), "its root is 2, the call's 1");
  H = Call;
  H.ReduceOp.reset();
  EXPECT_EQ(headerMismatch(Call, H),
            "it is proved for a commutative operator only, and the call's "
            "operator does not commute");
  // A non-commutative schedule serves a commutative call.
  CallHeader Commuting = Call;
  Commuting.ReduceOp.reset();
  EXPECT_EQ(headerMismatch(Commuting, Call), "");
  // Allgather and allgatherv serve each other; the groups are the call's.
  CallHeader G = bound(gatherArgs(MpiCall::Allgather, {4, 4, 4})).Header;
  CallHeader V = G;
  V.Kind = Collective::Allgatherv;
  EXPECT_EQ(headerMismatch(G, V), "");
  V.Groups[0].Members = {0, 2, 1};
  EXPECT_EQ(headerMismatch(G, V), "its group all is [0,2,1], the call's "
                                  "[0,1,2]");
  V.NumRanks = 4;
  EXPECT_EQ(headerMismatch(G, V), "it has 4 ranks, the call 3");
  // half_allgather is an MPI_Allgatherv, but not the intercommunicator's.
  CallHeader Inter =
      bound(gatherArgs(MpiCall::Allgather, {4, 4}, {0, 0}, true)).Header;
  CallHeader Half = Inter;
  Half.Kind = Collective::HalfAllgather;
  EXPECT_NE(headerMismatch(Inter, Half)
                .find("its collective is "
                      "half_allgather"),
            std::string::npos);
}

TEST(MpiBinding, NativeCall) {
  EXPECT_EQ(nativeCall(bound(gatherArgs(MpiCall::Allgather, {4, 4})).Header),
            MpiCall::Allgather);
  // MPI_Allgather needs one count per group.
  CallHeader Irregular = bound(gatherArgs(MpiCall::Allgather, {4, 5})).Header;
  EXPECT_EQ(nativeCall(Irregular), MpiCall::Allgatherv);
  CallHeader Inter =
      bound(gatherArgs(MpiCall::Allgather, {4, 4}, {2}, true)).Header;
  EXPECT_EQ(nativeCall(Inter), MpiCall::Allgather);
  EXPECT_EQ(
      nativeCall(bound(gatherArgs(MpiCall::ReduceScatterBlock, {8, 8})).Header),
      MpiCall::ReduceScatter);
  EXPECT_EQ(nativeCall(bound(vectorArgs(MpiCall::Bcast, 3, 10)).Header),
            MpiCall::Bcast);
  // Only collectives choreo has on an intercommunicator bind there.
  MpiArgs B = vectorArgs(MpiCall::ReduceScatterBlock, 3, 12);
  B.Inter = true;
  auto E = bindCall(B);
  ASSERT_FALSE(bool(E));
  EXPECT_EQ(llvm::toString(E.takeError()),
            "MPI_Reduce_scatter_block on an intercommunicator: choreo has no "
            "such collective");
  // An intercommunicator MPI_Allreduce: groups of 2 and 3, one vector.
  MpiArgs IA = vectorArgs(MpiCall::Allreduce, 5, 16);
  IA.Inter = true;
  IA.SizesA.assign(2, 0);
  IA.SizesB.assign(3, 0);
  auto IB = bindCall(IA);
  ASSERT_TRUE(bool(IB)) << llvm::toString(IB.takeError());
  EXPECT_EQ(IB->Header.Kind, Collective::InterAllreduce);
  EXPECT_EQ(specOf(IB->Header.Kind).vectorLength(IB->Header), 16u);
  EXPECT_EQ(IB->Header.NumRanks, 5u);
}

TEST(MpiBinding, GatherScatterAndBarrier) {
  // MPI_Gather and MPI_Gatherv ask for one collective; MPICH runs other
  // algorithms for the v forms, so members alike call the regular one.
  CallHeader G = bound(gatherArgs(MpiCall::Gather, {4, 4, 4})).Header;
  EXPECT_EQ(G.Kind, Collective::Gather);
  EXPECT_EQ(nativeCall(G), MpiCall::Gather);
  EXPECT_EQ(nativeCall(bound(gatherArgs(MpiCall::Gatherv, {4, 0, 4})).Header),
            MpiCall::Gatherv);
  MpiArgs S = gatherArgs(MpiCall::Scatterv, {3, 0, 5});
  S.Root = 2;
  BoundCall Sc = bound(S);
  EXPECT_EQ(Sc.Header.Kind, Collective::Scatter);
  ASSERT_NE(Sc.Header.sizes("all"), nullptr);
  EXPECT_EQ(*Sc.Header.sizes("all"), (std::vector<uint64_t>{3, 0, 5}));
  EXPECT_EQ(Sc.Header.Root, Rank(2));
  EXPECT_EQ(nativeCall(Sc.Header), MpiCall::Scatterv);
  EXPECT_EQ(Sc.describe(), "MPI_Scatterv (communicator of 3, 8 bytes, root 2)");
  EXPECT_EQ(nativeCall(bound(gatherArgs(MpiCall::Scatter, {2, 2})).Header),
            MpiCall::Scatter);
  // A barrier: one byte of "has arrived" per rank, described without bytes.
  BoundCall B = bound(gatherArgs(MpiCall::Barrier, {1, 1, 1, 1}));
  EXPECT_EQ(B.Header.Kind, Collective::Barrier);
  EXPECT_EQ(nativeCall(B.Header), MpiCall::Barrier);
  EXPECT_EQ(B.describe(), "MPI_Barrier (communicator of 4)");
  // An allgather's schedule does not serve it, nor a scatter's a gather.
  CallHeader AG = bound(gatherArgs(MpiCall::Allgather, {1, 1, 1, 1})).Header;
  EXPECT_EQ(headerMismatch(B.Header, AG),
            "its collective is allgather (MPI_Allgather), not the call's "
            "barrier (MPI_Barrier)");
  MpiArgs Gv = gatherArgs(MpiCall::Gatherv, {3, 0, 5});
  Gv.Root = 2;
  EXPECT_EQ(headerMismatch(bound(Gv).Header, Sc.Header),
            "its collective is scatter (MPI_Scatterv), not the call's gather "
            "(MPI_Gatherv)");
  // Their intercommunicator forms: inter_barrier (one byte per rank of
  // each group), inter_gather and inter_scatter (the root's group's sizes
  // zero; only the other group's decide MPI_Gather or MPI_Gatherv).
  BoundCall I = bound(gatherArgs(MpiCall::Barrier, {1, 1}, {1}, true));
  EXPECT_EQ(I.Header.Kind, Collective::InterBarrier);
  EXPECT_EQ(nativeCall(I.Header), MpiCall::Barrier);
  EXPECT_EQ(I.describe(), "MPI_Barrier (intercommunicator 2 + 1)");
  MpiArgs IG = gatherArgs(MpiCall::Gatherv, {0, 0}, {5, 5, 5}, true);
  IG.Root = 1;
  BoundCall G2 = bound(IG);
  EXPECT_EQ(G2.Header.Kind, Collective::InterGather);
  EXPECT_EQ(nativeCall(G2.Header), MpiCall::Gather);
  EXPECT_EQ(G2.describe(),
            "MPI_Gatherv (intercommunicator 2 + 3, 15 bytes, root 1)");
  MpiArgs IS = gatherArgs(MpiCall::Scatter, {3, 0}, {0, 0, 0}, true);
  IS.Root = 4;
  BoundCall S2 = bound(IS);
  EXPECT_EQ(S2.Header.Kind, Collective::InterScatter);
  EXPECT_EQ(nativeCall(S2.Header), MpiCall::Scatterv);
  EXPECT_EQ(headerMismatch(G2.Header, S2.Header),
            "its collective is inter_scatter (MPI_Scatterv), not the call's "
            "inter_gather (MPI_Gatherv)");
}
