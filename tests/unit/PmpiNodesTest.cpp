//===- tests/unit/PmpiNodesTest.cpp - auto's node-aware candidates --------===//
///
/// \file
/// The drop-in library's node-aware candidates (pmpi/Candidates.h) and
/// auto over whole schedules with a job's node map (chooseByModel): which
/// forms a generator gets for a layout, that a cheap intra-node link makes
/// auto pick a node-aware form whose schedule carries the nodes (and is
/// proved with its node ports), and that without a node map nothing
/// changes.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Candidates.h"
#include "pmpi/Selection.h"

#include "verifier/Verifier.h"

#include <gtest/gtest.h>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

using Words = std::vector<std::string>;

std::vector<Words> forms(const char *Id, std::vector<uint32_t> NodeOf) {
  const Generator *G = findGenerator(Id);
  EXPECT_TRUE(G) << Id;
  return G ? nodeAwareForms(*G, NodeOf) : std::vector<Words>();
}

BoundCall bcast(uint32_t P, uint64_t Bytes, uint32_t Root = 0) {
  MpiArgs A;
  A.Call = MpiCall::Bcast;
  A.Root = Root;
  A.Ranks = P;
  A.Bytes = Bytes;
  return llvm::cantFail(bindCall(A));
}

BoundCall allgatherv(std::vector<uint64_t> Sizes) {
  MpiArgs A;
  A.Call = MpiCall::Allgatherv;
  A.SizesA = std::move(Sizes);
  return llvm::cantFail(bindCall(A));
}

/// Inter-node messages 50 times dearer to start and 100 times per byte
/// than those within a node.
SelectionConfig twoLinks() {
  SelectionConfig Cfg;
  Cfg.Model.Alpha = 2.5e-5;
  Cfg.Model.Beta = 1e-8;
  Cfg.Model.Intra = LinkCost{5e-7, 1e-10};
  return Cfg;
}

} // namespace

TEST(PmpiNodes, FormsFollowTheLayout) {
  EXPECT_EQ(forms("bcast-flat", {0, 0, 1, 1}),
            std::vector<Words>({{"--nodes", "2,2", "--groups", "nodes"}}));
  EXPECT_EQ(forms("bcast-binomial", {0, 1, 1, 2, 2, 2}),
            std::vector<Words>({{"--nodes", "1,2,3", "--groups", "nodes"}}));
  EXPECT_EQ(forms("allgatherv-pipelined-ring", {0, 0, 1, 1}),
            std::vector<Words>({{"--nodes", "2,2"}}));
  // Round robin: only a generator taking --node-of has a form.
  EXPECT_EQ(forms("allgatherv-pipelined-ring", {0, 1, 0, 1}),
            std::vector<Words>({{"--node-of", "0,1,0,1"}}));
  EXPECT_TRUE(forms("bcast-flat", {0, 1, 0, 1}).empty());
  // One node, no map, or a generator without a layout: none.
  EXPECT_TRUE(forms("bcast-flat", {0, 0, 0, 0}).empty());
  EXPECT_TRUE(forms("bcast-flat", {}).empty());
  EXPECT_TRUE(forms("allgather-ring", {0, 0, 1, 1}).empty());
  Candidate C{findGenerator("bcast-flat"),
              {"--nodes", "2,2", "--groups", "nodes"}};
  EXPECT_EQ(C.text(), "bcast-flat:nodes=2,2:groups=nodes");
  auto Parsed = parseChoice(C.text(), "test");
  ASSERT_TRUE(bool(Parsed));
  EXPECT_EQ(Parsed->Extra, C.Extra);
}

TEST(PmpiNodes, AutoPicksANodeAwareBroadcastWhereTheIntraLinkPays) {
  // Root 1 on nodes {0,1} and {2,3}: the plain binomial tree crosses the
  // nodes in both its steps (1 -> 3, then 1 -> 2 and 3 -> 0); the one
  // whose groups are the nodes once (1 -> 2), then stays within them.
  SelectionConfig Cfg = twoLinks();
  std::vector<uint32_t> NodeOf = {0, 0, 1, 1};
  auto A = chooseByModel(bcast(4, 64 << 10, 1), Cfg, NodeOf);
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  EXPECT_NE(A->Text.find(":nodes=2,2:groups=nodes"), std::string::npos)
      << A->Text;
  // The schedule carries the job's nodes, and the verifier proves its
  // node ports.
  ASSERT_TRUE(A->S.hasNodes());
  EXPECT_EQ(*A->S.Nodes, (std::vector<std::vector<Rank>>{{0, 1}, {2, 3}}));
  EXPECT_TRUE(checkExplicit(A->S).proved());
  // Without the map the same model picks a plain form.
  auto Plain = chooseByModel(bcast(4, 64 << 10, 1), Cfg);
  ASSERT_TRUE(bool(Plain));
  EXPECT_TRUE(Plain->Extra.empty()) << Plain->Text;
  EXPECT_FALSE(Plain->S.hasNodes());
  EXPECT_LT(A->Time, Plain->Time);
  EXPECT_GT(A->Candidates, Plain->Candidates);
}

TEST(PmpiNodes, NodeAwareRingIsACandidateOfAllgatherv) {
  SelectionConfig Cfg = twoLinks();
  BoundCall Call = allgatherv({4096, 4096, 4096, 4096, 4096, 4096});
  auto With = chooseByModel(Call, Cfg, {0, 0, 0, 1, 1, 1});
  auto Without = chooseByModel(Call, Cfg);
  ASSERT_TRUE(bool(With) && bool(Without));
  EXPECT_EQ(With->Candidates, Without->Candidates + 1);
  EXPECT_TRUE(checkExplicit(With->S).proved()) << With->Text;
}

TEST(PmpiNodes, WithoutANodeMapNothingChanges) {
  // No map, a map of one node, or no intra pair: the same choice and the
  // same time as before nodes existed.
  SelectionConfig Cfg;
  for (uint64_t Bytes : {8u, 4096u, 1u << 20}) {
    auto Before = chooseByModel(bcast(4, Bytes), Cfg);
    ASSERT_TRUE(bool(Before));
    auto Empty = chooseByModel(bcast(4, Bytes), Cfg, {});
    ASSERT_TRUE(bool(Empty));
    EXPECT_EQ(Empty->Text, Before->Text);
    EXPECT_EQ(Empty->Time, Before->Time);
    EXPECT_EQ(Empty->Candidates, Before->Candidates);
    auto OneNode = chooseByModel(bcast(4, Bytes), Cfg, {0, 0, 0, 0});
    ASSERT_TRUE(bool(OneNode));
    EXPECT_EQ(OneNode->Text, Before->Text);
    EXPECT_EQ(OneNode->Time, Before->Time);
    EXPECT_EQ(OneNode->Candidates, Before->Candidates);
  }
}
