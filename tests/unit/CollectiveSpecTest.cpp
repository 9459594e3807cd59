//===- tests/unit/CollectiveSpecTest.cpp - The meaning of each collective -===//
///
/// \file
/// Every entry of the spec table: names round-trip, buffers and their
/// lengths, initial holdings, results and the MPI call, on small schedules
/// whose groups are not in rank order (so group order, not rank order, is
/// what the spec follows).
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

using namespace choreo;

namespace {

Schedule intergroup(Collective K, std::vector<uint64_t> A,
                    std::vector<uint64_t> B) {
  Schedule S;
  S.Kind = K;
  setIntergroup(S, A, B);
  return S;
}

Schedule intragroup(Collective K, Rank N, std::vector<uint64_t> Sizes) {
  Schedule S;
  S.Kind = K;
  setIntragroup(S, N, Sizes);
  return S;
}

TEST(CollectiveSpec, TableIsCompleteAndNamesRoundTrip) {
  size_t N = 0;
  for (const CollectiveSpec &Sp : allCollectiveSpecs()) {
    EXPECT_EQ(&specOf(Sp.Kind), &Sp);
    std::optional<Collective> K = parseCollective(Sp.Name);
    ASSERT_TRUE(K.has_value()) << Sp.Name;
    EXPECT_EQ(*K, Sp.Kind);
    EXPECT_EQ(collectiveName(Sp.Kind), llvm::StringRef(Sp.Name));
    EXPECT_TRUE(llvm::StringRef(Sp.MpiName).starts_with("MPI_"));
    EXPECT_TRUE(llvm::StringRef(Sp.Rule).starts_with(Sp.Name)) << Sp.Rule;
    ++N;
  }
  EXPECT_EQ(N, 23u);
  EXPECT_FALSE(parseCollective("alltoallw").has_value());
  EXPECT_FALSE(parseCollective("neighbor_allgather").has_value());
}

TEST(CollectiveSpec, InterAllgatherBuffersHoldingsResults) {
  Schedule S = intergroup(Collective::InterAllgatherv, {3, 0, 5}, {2, 4});
  const CollectiveSpec &Sp = S.spec();
  std::vector<Buffer> Bufs = S.buffers();
  ASSERT_EQ(Bufs.size(), 2u);
  EXPECT_EQ(Bufs[0].Name, "A");
  EXPECT_EQ(Bufs[0].Length, 8u);
  EXPECT_EQ(Bufs[1].Name, "B");
  EXPECT_EQ(Bufs[1].Length, 6u);
  std::vector<Holding> Init = Sp.initialHoldings(S);
  ASSERT_EQ(Init.size(), 5u);
  EXPECT_EQ(Init[2].R, 2u); // a2: A[3,8)
  EXPECT_EQ(Init[2].Lo, 3u);
  EXPECT_EQ(Init[2].Hi, 8u);
  EXPECT_EQ(Init[4].R, 4u); // b1: B[2,6)
  EXPECT_EQ(Init[4].Buf, 1u);
  std::optional<Holding> R0 = Sp.result(S, 0), R4 = Sp.result(S, 4);
  ASSERT_TRUE(R0 && R4);
  EXPECT_EQ(R0->Buf, 1u); // A needs B
  EXPECT_EQ(R4->Buf, 0u); // B needs A
  EXPECT_EQ(Sp.requirements(S).size(), 5u);
  EXPECT_EQ(Sp.Call, MpiCall::Allgatherv);
}

TEST(CollectiveSpec, HalfAllgatherOnlyAContributes) {
  Schedule S = intergroup(Collective::HalfAllgather, {4, 4}, {0, 0, 0});
  const CollectiveSpec &Sp = S.spec();
  EXPECT_TRUE(Sp.contributes("A"));
  EXPECT_FALSE(Sp.contributes("B"));
  ASSERT_EQ(S.buffers().size(), 1u);
  EXPECT_FALSE(Sp.result(S, 1).has_value()); // a1 receives nothing
  ASSERT_TRUE(Sp.result(S, 2).has_value());
  EXPECT_EQ(Sp.result(S, 2)->Hi, 8u);
  EXPECT_EQ(Sp.requirements(S).size(), 3u);
  // A schedule-level rule follows: B's sizes must be zero.
  S.Sizes[1].Values = {0, 1, 0};
  std::vector<Diagnostic> D = S.verify();
  ASSERT_FALSE(D.empty());
  EXPECT_EQ(D[0].Message,
            "/sizes/B/1: in half_allgather group B contributes nothing, got 1");
}

TEST(CollectiveSpec, RequirementsFollowGroupOrder) {
  Schedule S = intragroup(Collective::Allgather, 3, {1, 1, 1});
  S.Groups[0].Members = {2, 0, 1};
  std::vector<Holding> Req = S.spec().requirements(S);
  ASSERT_EQ(Req.size(), 3u);
  EXPECT_EQ(Req[0].R, 2u);
  // Member 0 of `all` is rank 2: it contributes all[0,1).
  std::vector<Holding> Init = S.spec().initialHoldings(S);
  EXPECT_EQ(Init[0].R, 2u);
  EXPECT_EQ(Init[0].Lo, 0u);
}

TEST(CollectiveSpec, BroadcastAndRootedResults) {
  Schedule B = intragroup(Collective::Bcast, 4, {100});
  B.Root = 2;
  std::vector<Holding> Init = B.spec().initialHoldings(B);
  ASSERT_EQ(Init.size(), 1u);
  EXPECT_EQ(Init[0].R, 2u);
  EXPECT_EQ(Init[0].Hi, 100u);
  EXPECT_TRUE(B.spec().initialInRecv());
  EXPECT_EQ(B.spec().requirements(B).size(), 4u);

  Schedule G = intragroup(Collective::Gather, 3, {1, 2, 3});
  G.Root = 1;
  EXPECT_FALSE(G.spec().result(G, 0).has_value());
  ASSERT_TRUE(G.spec().result(G, 1).has_value());
  EXPECT_EQ(G.spec().result(G, 1)->Hi, 6u);
  EXPECT_FALSE(G.spec().initialInRecv());
}

TEST(CollectiveSpec, ReductionsAndSlices) {
  Schedule S = intragroup(Collective::ReduceScatter, 3, {24});
  S.Sizes.push_back({"slices", {8, 0, 16}});
  const CollectiveSpec &Sp = S.spec();
  EXPECT_TRUE(Sp.isReduction());
  EXPECT_TRUE(Sp.knowsSizes("slices"));
  EXPECT_EQ(S.vectorLength(), 24u);
  EXPECT_EQ(Sp.initialHoldings(S).size(), 3u);
  EXPECT_EQ(Sp.slice(S, 2).Lo, 8u);
  EXPECT_EQ(Sp.slice(S, 2).Hi, 24u);
  std::vector<Holding> Req = Sp.requirements(S);
  ASSERT_EQ(Req.size(), 3u);
  EXPECT_EQ(Req[1].Lo, 8u);
  EXPECT_EQ(Req[1].Hi, 8u); // an empty slice is an empty requirement
  EXPECT_TRUE(S.verify().empty());

  Schedule A = intragroup(Collective::Allreduce, 2, {16});
  EXPECT_FALSE(A.spec().knowsSizes("slices"));
  EXPECT_EQ(A.spec().result(A, 1)->Hi, 16u);
  A.Sizes.push_back({"slices", {8, 8}});
  ASSERT_FALSE(A.verify().empty());
  EXPECT_EQ(A.verify()[0].Message,
            "/sizes/slices: allreduce has no group named slices and takes no "
            "sizes of that name (its groups: all)");
}

TEST(CollectiveSpec, ScatterRootHoldsAllMembersTheirSlices) {
  Schedule S = intragroup(Collective::Scatter, 4, {3, 0, 5, 2});
  S.Groups[0].Members = {2, 0, 1, 3};
  S.Root = 1;
  const CollectiveSpec &Sp = S.spec();
  EXPECT_TRUE(Sp.sizedPerMember());
  EXPECT_FALSE(Sp.isGatherType());
  ASSERT_EQ(S.buffers().size(), 1u);
  EXPECT_EQ(S.buffers()[0].Length, 10u);
  EXPECT_EQ(S.vectorLength(), 0u);
  std::vector<Holding> Init = Sp.initialHoldings(S);
  ASSERT_EQ(Init.size(), 1u); // the root, all of it
  EXPECT_EQ(Init[0].R, 1u);
  EXPECT_EQ(Init[0].Hi, 10u);
  // Member 2 of `all` is rank 1: its slice is all[3,8).
  ASSERT_TRUE(Sp.result(S, 1).has_value());
  EXPECT_EQ(Sp.result(S, 1)->Lo, 3u);
  EXPECT_EQ(Sp.result(S, 1)->Hi, 8u);
  EXPECT_EQ(Sp.result(S, 0)->Lo, Sp.result(S, 0)->Hi); // an empty slice
  std::vector<Holding> Req = Sp.requirements(S);
  ASSERT_EQ(Req.size(), 4u);
  EXPECT_EQ(Req[0].R, 2u);
  EXPECT_EQ(Req[0].Hi, 3u);
  EXPECT_EQ(Sp.Call, MpiCall::Scatterv);
  EXPECT_TRUE(S.verify().empty());
  S.Sizes[0].Values = {10};
  ASSERT_FALSE(S.verify().empty());
  EXPECT_EQ(S.verify()[0].Message,
            "/sizes/all: 1 entries for the 4 members of group all");
}

TEST(CollectiveSpec, BarrierIsAnAllgatherOfOneByteWithNoPayload) {
  Schedule S = intragroup(Collective::Barrier, 3, {1, 1, 1});
  const CollectiveSpec &Sp = S.spec();
  EXPECT_TRUE(Sp.NoPayload);
  EXPECT_TRUE(Sp.isGatherType());
  EXPECT_EQ(Sp.requirements(S).size(), 3u);
  EXPECT_EQ(Sp.result(S, 2)->Hi, 3u);
  EXPECT_EQ(Sp.Call, MpiCall::Barrier);
  // Its layout is fixed; an allgather's generators do not serve it.
  EXPECT_FALSE(servesSameCalls(Collective::Allgather, Collective::Barrier));
  EXPECT_TRUE(S.verify().empty());
  S.Sizes[0].Values = {1, 4, 1};
  ASSERT_FALSE(S.verify().empty());
  EXPECT_EQ(S.verify()[0].Message,
            "/sizes/all/1: barrier is laid out as one byte per rank (has "
            "arrived), got 4");
}

} // namespace
