//===- tests/unit/ScheduleIOTest.cpp - Format v1 reading and writing ------===//

#include "TestUtil.h"

#include "ir/TopologyJson.h"

#include <set>

using namespace choreo;
using namespace choreo::test;
using json = nlohmann::ordered_json;

namespace {

/// A valid inter_allgather with p = q = 1.
json minimal() {
  return json::parse(R"({
    "format": "choreo-schedule", "version": 1,
    "collective": "inter_allgather", "algorithm": "hand",
    "ranks": 2, "groups": {"A": [0], "B": [1]},
    "sizes": {"A": [4], "B": [2]}, "root": null,
    "steps": [{"ops": [
      {"src": 0, "dst": 1, "blocks": [{"buf": "A", "lo": 0, "hi": 4}]},
      {"src": 1, "dst": 0, "blocks": [{"buf": "B", "lo": 0, "hi": 2}]}]}]
  })");
}

std::string parseError(const json &J) {
  return errorText(parseSchedule(J.dump()));
}

} // namespace

TEST(ScheduleIO, ParsesMinimalWithDefaults) {
  auto S = parseSchedule(minimal().dump());
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_EQ(S->Kind, Collective::InterAllgather);
  EXPECT_EQ(S->NumRanks, 2u);
  EXPECT_EQ(S->Topo.K, Topology::Kind::Full);
  EXPECT_EQ(S->Port.Send, 1u);
  EXPECT_TRUE(S->Port.Duplex);
  ASSERT_EQ(S->Steps.numSteps(), 1u);
  const Op &O = S->Steps.step(0)[1];
  EXPECT_EQ(O.Src, 1u);
  EXPECT_EQ(S->Steps.blocks(O)[0].Buf, *S->bufferId("B"));
  EXPECT_TRUE(checkExplicit(*S).proved());
}

TEST(ScheduleIO, JsonRoundTripIsExact) {
  Schedule S =
      gen("inter-allgather-kang", "--p 8 --q 3 --bytes-a 8 --bytes-b 5");
  std::string Text = toJsonText(S);
  auto Back = parseSchedule(Text);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(toJsonText(*Back), Text);
}

TEST(ScheduleIO, CborRoundTripMatchesJson) {
  Schedule S =
      gen("inter-allgather-root", "--p 5 --q 3 --bytes-a 8 --bytes-b 5");
  std::string Cbor = toCborBytes(S);
  EXPECT_EQ(sniffFormat(Cbor), FileFormat::Cbor);
  auto Back = parseSchedule(Cbor);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(toJsonText(*Back), toJsonText(S));
}

TEST(ScheduleIO, ReadsCborWrittenByAnotherEncoder) {
  Schedule S = gen("allgather-ring", "--p 4 --counts 3,0,2,7");
  json J = json::parse(toJsonText(S));
  std::vector<uint8_t> Bytes = json::to_cbor(J);
  auto Back = parseSchedule(llvm::StringRef(
      reinterpret_cast<const char *>(Bytes.data()), Bytes.size()));
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(toJsonText(*Back), toJsonText(S));
}

TEST(ScheduleIO, MemberOrderDoesNotMatter) {
  json J = minimal();
  json Reordered = json::object();
  Reordered["steps"] = J["steps"];
  for (auto It = J.begin(); It != J.end(); ++It)
    if (It.key() != "steps")
      Reordered[It.key()] = It.value();
  auto S = parseSchedule(Reordered.dump());
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_EQ(S->Steps.numOps(), 2u);
}

TEST(ScheduleIO, UnknownFieldsAreIgnored) {
  json J = minimal();
  J["comment"] = {{"nested", {1, 2, 3}}};
  J["steps"][0]["note"] = "x";
  J["steps"][0]["ops"][0]["weight"] = 3.5;
  J["steps"][0]["ops"][0]["blocks"][0]["tag"] = {1, 2};
  auto S = parseSchedule(J.dump());
  EXPECT_TRUE(bool(S)) << llvm::toString(S.takeError());
}

TEST(ScheduleIO, UnreadableInput) {
  EXPECT_EQ(errorText(parseSchedule("")),
            "cannot read the schedule: the input is empty");
  std::string Text = minimal().dump();
  std::string Err = errorText(parseSchedule(Text.substr(0, Text.size() / 2)));
  EXPECT_EQ(Err.rfind("cannot read the schedule: ", 0), 0u) << Err;
  std::string Cbor = toCborBytes(gen("allgather-ring", "--p 3 --bytes 4"));
  Err = errorText(parseSchedule(Cbor.substr(0, Cbor.size() - 3)));
  EXPECT_EQ(Err.rfind("cannot read the schedule: ", 0), 0u) << Err;
  EXPECT_NE(Err.find("CBOR"), std::string::npos) << Err;
  EXPECT_EQ(errorText(parseSchedule("[1, 2]")),
            "the document is an array; a schedule is a JSON object");
}

TEST(ScheduleIO, WrongFormatOrVersion) {
  json J = minimal();
  J["version"] = 2;
  EXPECT_EQ(parseError(J),
            "/version: unsupported version 2 (this reader reads version 1)");
  J = minimal();
  J["format"] = "other";
  EXPECT_EQ(parseError(J),
            "/format: expected \"choreo-schedule\", got \"other\"");
  J = minimal();
  J.erase("format");
  EXPECT_EQ(parseError(J).rfind("/format: missing", 0), 0u);
  J = minimal();
  J["collective"] = "alltoallw";
  EXPECT_EQ(
      parseError(J).rfind("/collective: unknown collective \"alltoallw\"", 0),
      0u);
}

TEST(ScheduleIO, UnknownCollectiveListsEveryKnownOne) {
  json J = minimal();
  J["collective"] = "alltoallw";
  EXPECT_EQ(parseError(J),
            "/collective: unknown collective \"alltoallw\" (known: allgather, "
            "allgatherv, inter_allgather, inter_allgatherv, half_allgather, "
            "gather, bcast, reduce, allreduce, reduce_scatter, alltoall, "
            "alltoallv, scatter, barrier, inter_bcast, inter_reduce, "
            "inter_allreduce, scan, exscan, inter_alltoall, inter_gather, "
            "inter_scatter, inter_barrier)");
}

TEST(ScheduleIO, TopologyErrorsNameTheirPointer) {
  auto WithTopology = [](json T) {
    json J = minimal();
    J["topology"] = std::move(T);
    return parseError(J);
  };
  EXPECT_EQ(WithTopology(3), "/topology: expected an object, got 3");
  EXPECT_EQ(WithTopology(json::object()),
            "/topology/kind: missing (full, ring or graph)");
  EXPECT_EQ(WithTopology({{"kind", "star"}}),
            "/topology/kind: expected full, ring or graph, got \"star\"");
  EXPECT_EQ(WithTopology({{"kind", 7}}),
            "/topology/kind: expected full, ring or graph, got 7");
  EXPECT_EQ(WithTopology({{"kind", "ring"}, {"order", "x"}}),
            "/topology/order: expected an array, got \"x\"");
  EXPECT_EQ(WithTopology({{"kind", "ring"}, {"order", {0, -1}}}),
            "/topology/order/1: expected a non-negative integer, got -1");
  EXPECT_EQ(WithTopology({{"kind", "ring"}, {"order", {0, 1ull << 33}}}),
            "/topology/order/1: 8589934592 is too large");
  EXPECT_EQ(WithTopology({{"kind", "graph"}}),
            "/topology/edges: a graph topology needs an array of [u, v] links");
  EXPECT_EQ(WithTopology({{"kind", "graph"}, {"edges", {{0, 1}, {1}}}}),
            "/topology/edges/1: a link is a [u, v] pair");
  EXPECT_EQ(
      WithTopology(json::parse(R"({"kind": "graph", "edges": [[0, "x"]]})")),
      "/topology/edges/0/1: expected a non-negative integer, got \"x\"");
}

TEST(ScheduleIO, TopologyDecoderTakesThePointerOfItsObject) {
  auto Ring = decodeTopology(
      json::parse(R"({"kind": "ring", "order": [2, 0, 1]})"), "");
  ASSERT_TRUE(bool(Ring)) << llvm::toString(Ring.takeError());
  EXPECT_EQ(Ring->K, Topology::Kind::Ring);
  EXPECT_EQ(Ring->Order, (std::vector<Rank>{2, 0, 1}));
  auto Graph = decodeTopology(
      json::parse(R"({"kind": "graph", "edges": [[0, 1], [1, 2]]})"), "/t");
  ASSERT_TRUE(bool(Graph)) << llvm::toString(Graph.takeError());
  EXPECT_EQ(Graph->Edges, (std::vector<std::pair<Rank, Rank>>{{0, 1}, {1, 2}}));
  auto Full = decodeTopology(json::parse(R"({"kind": "full"})"), "");
  ASSERT_TRUE(bool(Full));
  EXPECT_EQ(Full->K, Topology::Kind::Full);
  EXPECT_EQ(errorText(decodeTopology(json::parse("[0]"), "")),
            ": expected an object, got [0]");
  EXPECT_EQ(errorText(decodeTopology(
                json::parse(R"({"kind": "graph", "edges": [[0, 1, 2]]})"), "")),
            "/edges/0: a link is a [u, v] pair");
  EXPECT_EQ(errorText(decodeTopology(json::parse(R"({"kind": "ring",
                "order": [0, "x"]})"),
                                     "/a~1b")),
            "/a~1b/order/1: expected a non-negative integer, got \"x\"");
}

TEST(ScheduleIO, TypeErrorsNameTheirPath) {
  json J = minimal();
  J["steps"][0]["ops"][1]["blocks"][0]["lo"] = "x";
  EXPECT_EQ(parseError(J), "/steps/0/ops/1/blocks/0/lo: expected a byte offset "
                           "(a non-negative integer), got \"x\"");
  J = minimal();
  J["steps"][0]["ops"][0]["src"] = -1;
  EXPECT_EQ(parseError(J), "/steps/0/ops/0/src: expected a rank (a "
                           "non-negative integer), got -1");
  J = minimal();
  J["steps"][0]["ops"][0].erase("src");
  EXPECT_EQ(parseError(J), "/steps/0/ops/0: missing \"src\"");
  J = minimal();
  J["steps"][0]["ops"][0]["blocks"] = 3;
  EXPECT_EQ(parseError(J),
            "/steps/0/ops/0/blocks: expected an array of blocks, got 3");
  J = minimal();
  J["ranks"] = 2.5;
  EXPECT_EQ(parseError(J), "/ranks: expected a non-negative integer, got 2.5");
  J = minimal();
  J.erase("steps");
  EXPECT_EQ(parseError(J), "/steps: missing");
}

TEST(ScheduleIO, DuplicateKeysAreRejected) {
  std::string Text = minimal().dump();
  std::string Dup = Text;
  Dup.replace(Dup.find("\"src\":0"), 7, "\"src\":0,\"src\":1");
  EXPECT_EQ(errorText(parseSchedule(Dup)), "/steps/0/ops/0/src: duplicate key");
}

TEST(ScheduleIO, StructuralRulesNameTheJsonPointer) {
  json J = minimal();
  J["steps"][0]["ops"][0]["blocks"][0]["hi"] = 5;
  EXPECT_EQ(parseError(J), "/steps/0/ops/0/blocks/0/hi: 5 is past the end of "
                           "buffer A (length 4)");
  J = minimal();
  J["steps"][0]["ops"][0]["blocks"][0]["buf"] = "C";
  EXPECT_EQ(parseError(J), "/steps/0/ops/0/blocks/0/buf: unknown buffer \"C\" "
                           "(inter_allgather has: A, B)");
  J = minimal();
  J["steps"][0]["ops"][1]["dst"] = 1;
  EXPECT_EQ(parseError(J), "/steps/0/ops/1: rank 1 sends to itself");
  J = minimal();
  J["steps"][0]["ops"][1]["dst"] = 5;
  EXPECT_EQ(parseError(J),
            "/steps/0/ops/1/dst: rank 5 is out of range (ranks: 2)");
  J = minimal();
  J["steps"][0]["ops"][0]["blocks"][0]["lo"] = 4;
  EXPECT_EQ(parseError(J), "/steps/0/ops/0/blocks/0: empty block A[4,4); a "
                           "block needs lo < hi");
  J = minimal();
  J["steps"][0]["ops"][0]["blocks"] = json::array();
  EXPECT_EQ(parseError(J), "/steps/0/ops/0/blocks: the op carries no blocks; "
                           "every op carries at least one");
  J = minimal();
  J["steps"][0]["ops"][0]["blocks"][0]["contrib"] = {{0, 1}};
  EXPECT_EQ(parseError(J), "/steps/0/ops/0/blocks/0/contrib: only reduction "
                           "blocks carry contributors");
}

TEST(ScheduleIO, HeaderRules) {
  json J = minimal();
  J["sizes"]["A"] = {4, 4};
  EXPECT_EQ(parseError(J), "/sizes/A: 2 entries for the 1 members of group A");
  J = minimal();
  J["groups"] = {{"A", {0}}, {"B", {0}}};
  EXPECT_EQ(parseError(J).rfind("/groups/B/0: rank 0 is already in group A", 0),
            0u);
  J = minimal();
  J["groups"] = {{"all", {0, 1}}};
  EXPECT_EQ(parseError(J).rfind("/groups: inter_allgather needs exactly two "
                                "groups named A and B",
                                0),
            0u);
  J = minimal();
  J["root"] = 0;
  EXPECT_EQ(parseError(J),
            "/root: inter_allgather takes no root (got 0); use null");
  J = minimal();
  J["topology"] = {{"kind", "ring"}, {"order", {0, 0}}};
  EXPECT_EQ(parseError(J),
            "/topology/order/1: rank 0 appears twice in the ring");
  J = minimal();
  J["ports"] = {{"send", 0}};
  EXPECT_EQ(parseError(J), "/ports/send: must be at least 1");
}

TEST(ScheduleIO, ReductionBlocks) {
  json J = json::parse(R"({
    "format": "choreo-schedule", "version": 1, "collective": "allreduce",
    "ranks": 2, "groups": {"all": [0, 1]}, "sizes": {"all": [8]},
    "steps": [{"ops": [
      {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8,
                                        "contrib": [[0, 1]], "reduce": true}]},
      {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 8,
                                        "contrib": [[1, 2]], "reduce": true}]}]}]
  })");
  auto S = parseSchedule(J.dump());
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_TRUE(checkExplicit(*S).proved());
  EXPECT_EQ(toJsonText(*parseSchedule(toJsonText(*S))), toJsonText(*S));
  J["steps"][0]["ops"][0]["blocks"][0]["contrib"] = {{0, 2}, {1, 2}};
  EXPECT_EQ(parseError(J), "/steps/0/ops/0/blocks/0/contrib/1: ranks of [1,2) "
                           "are listed twice");
  J["steps"][0]["ops"][0]["blocks"][0].erase("contrib");
  EXPECT_EQ(parseError(J), "/steps/0/ops/0/blocks/0: a reduction block needs "
                           "\"contrib\", the ranks combined in it");
}

TEST(ScheduleIO, OnlyRankKeepsThatRanksOpsAndTheStepNumbers) {
  Schedule S =
      gen("inter-allgather-kang", "--p 6 --q 2 --bytes-a 4 --bytes-b 3");
  ReadOptions Opts;
  Opts.OnlyRank = 2;
  auto Mine = parseSchedule(toJsonText(S), Opts);
  ASSERT_TRUE(bool(Mine)) << llvm::toString(Mine.takeError());
  EXPECT_EQ(Mine->Steps.numSteps(), S.Steps.numSteps());
  size_t Expected = 0;
  for (const Op &O : S.Steps.allOps())
    Expected += O.Src == 2 || O.Dst == 2;
  EXPECT_EQ(Mine->Steps.numOps(), Expected);
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St)
    for (const Op &O : Mine->Steps.step(St)) {
      EXPECT_TRUE(O.Src == 2 || O.Dst == 2);
      bool Found = false;
      for (const Op &Full : S.Steps.step(St))
        Found |= Full.Src == O.Src && Full.Dst == O.Dst;
      EXPECT_TRUE(Found) << "step " << St;
    }
}

TEST(ScheduleIO, OnlyRankReportsAnOpOfNoRankAsTheWholeReaderDoes) {
  // Ops of ranks 5 -> 6 and 4 -> 7 of 3 ranks belong to no rank's part:
  // every rank's reader names the file's first one, as the whole read does.
  json J = json::parse(R"({
    "format": "choreo-schedule", "version": 1, "collective": "allgather",
    "ranks": 3, "groups": {"all": [0, 1, 2]}, "sizes": {"all": [4, 4, 4]},
    "steps": [
      {"ops": [{"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 4}]},
               {"src": 1, "dst": 2, "blocks": [{"buf": "all", "lo": 4, "hi": 8}]},
               {"src": 2, "dst": 0, "blocks": [{"buf": "all", "lo": 8, "hi": 12}]}]},
      {"ops": [{"src": 0, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 4}]},
               {"src": 5, "dst": 6, "blocks": [{"buf": "all", "lo": 4, "hi": 8}]},
               {"src": 2, "dst": 7, "blocks": [{"buf": "all", "lo": 8, "hi": 12}]},
               {"src": 4, "dst": 1, "blocks": [{"buf": "all", "lo": 8, "hi": 12}]}]}]
  })");
  const std::string Want =
      "/steps/1/ops/1/src: rank 5 is out of range (ranks: 3)";
  EXPECT_EQ(parseError(J).substr(0, Want.size()), Want);
  for (Rank Me : {0u, 1u, 2u}) {
    ReadOptions Opts;
    Opts.OnlyRank = Me;
    auto Part = parseSchedule(J.dump(), Opts);
    ASSERT_FALSE(bool(Part)) << "rank " << Me;
    EXPECT_EQ(llvm::toString(Part.takeError()), Want) << "rank " << Me;
  }
  // Only a later op's receiver out of range: still named, by its pointer.
  J["steps"][1]["ops"].erase(1);
  for (Rank Me : {0u, 1u, 2u}) {
    ReadOptions Opts;
    Opts.OnlyRank = Me;
    auto Part = parseSchedule(J.dump(), Opts);
    ASSERT_FALSE(bool(Part));
    EXPECT_EQ(llvm::toString(Part.takeError()),
              "/steps/1/ops/1/dst: rank 7 is out of range (ranks: 3)");
  }
  // In range everywhere: every part reads.
  J["steps"][1]["ops"].erase(1);
  J["steps"][1]["ops"].erase(1);
  for (Rank Me : {0u, 1u, 2u}) {
    ReadOptions Opts;
    Opts.OnlyRank = Me;
    auto Part = parseSchedule(J.dump(), Opts);
    EXPECT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
  }
}

TEST(ScheduleIO, OnlyRankNamesTheFilesOpInStructureErrors) {
  // Step 1's third op (1 -> 0) reads past its buffer: a part keeps it as
  // its first or second op of the step, and still names op 2.
  json J = json::parse(R"({
    "format": "choreo-schedule", "version": 1, "collective": "allgather",
    "ranks": 3, "groups": {"all": [0, 1, 2]}, "sizes": {"all": [4, 4, 4]},
    "steps": [
      {"ops": [{"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 4}]}]},
      {"ops": [{"src": 0, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 4}]},
               {"src": 2, "dst": 1, "blocks": [{"buf": "all", "lo": 8, "hi": 12}]},
               {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 4, "hi": 20}]}]}]
  })");
  const std::string Want = "/steps/1/ops/2/blocks/0/hi: 20 is past the end "
                           "of buffer all (length 12)";
  EXPECT_EQ(parseError(J), Want);
  for (Rank Me : {0u, 1u}) {
    ReadOptions Opts;
    Opts.OnlyRank = Me;
    EXPECT_EQ(errorText(parseSchedule(J.dump(), Opts)), Want) << "rank " << Me;
  }
  // Rank 2 does not hold the op; its part reads, and holds the file's
  // indices of its own ops.
  ReadOptions Opts;
  Opts.OnlyRank = 2;
  auto Part = parseSchedule(J.dump(), Opts);
  ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
  EXPECT_EQ(Part->fileOpIndex(1, 0), 0u);
  EXPECT_EQ(Part->fileOpIndex(1, 1), 1u);
}

TEST(ScheduleIO, OnlyRankHoldsOnlyTheContributorSetsOfItsOps) {
  // Recursive doubling at p = 16: the ops carry 30 distinct contributor
  // sets, a rank's own ops 8.
  Schedule S = gen("allreduce-recursive-doubling", "--p 16 --bytes 1K");
  std::string Text = toJsonText(S);
  for (Rank Me : {0u, 5u, 15u}) {
    ReadOptions Opts;
    Opts.OnlyRank = Me;
    auto Mine = parseSchedule(Text, Opts);
    ASSERT_TRUE(bool(Mine)) << llvm::toString(Mine.takeError());
    std::set<std::string> Used, Whole;
    for (const Op &O : Mine->Steps.allOps())
      for (const Block &B : Mine->Steps.blocks(O))
        if (B.hasContrib())
          Used.insert(rankSetString(Mine->Steps.contrib(B.Contrib)));
    for (const Op &O : S.Steps.allOps())
      if (O.Src == Me || O.Dst == Me)
        for (const Block &B : S.Steps.blocks(O))
          if (B.hasContrib())
            Whole.insert(rankSetString(S.Steps.contrib(B.Contrib)));
    EXPECT_EQ(Used, Whole) << "rank " << Me;
    EXPECT_EQ(Mine->Steps.numContribs(), Used.size()) << "rank " << Me;
    EXPECT_LT(Mine->Steps.numContribs(), S.Steps.numContribs());
    EXPECT_EQ(Mine->StepsDigest, parseSchedule(Text)->StepsDigest)
        << "rank " << Me;
  }
}

//===----------------------------------------------------------------------===//
// nodes, node_ports and op
//===----------------------------------------------------------------------===//

namespace {

/// A non-commutative allreduce over 4 ranks on 2 nodes: recursive doubling
/// (every combination joins adjacent rank intervals; step 1 crosses nodes
/// once each way per node pair of ranks, so node_ports allow 2).
json nodesAndOp() {
  return json::parse(R"({
    "format": "choreo-schedule", "version": 1, "collective": "allreduce",
    "ranks": 4, "groups": {"all": [0, 1, 2, 3]}, "sizes": {"all": [8]},
    "nodes": [[0, 1], [3, 2]], "node_ports": {"send": 2, "recv": 2},
    "op": {"commutative": false},
    "steps": [
      {"ops": [
        {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 1]], "reduce": true}]},
        {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[1, 2]], "reduce": true}]},
        {"src": 2, "dst": 3, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[2, 3]], "reduce": true}]},
        {"src": 3, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[3, 4]], "reduce": true}]}]},
      {"ops": [
        {"src": 0, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 2]], "reduce": true}]},
        {"src": 2, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[2, 4]], "reduce": true}]},
        {"src": 1, "dst": 3, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 2]], "reduce": true}]},
        {"src": 3, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[2, 4]], "reduce": true}]}]}]
  })");
}

} // namespace

TEST(ScheduleIO, NodesAndOpAreRead) {
  auto S = parseSchedule(nodesAndOp().dump());
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  ASSERT_TRUE(S->hasNodes());
  EXPECT_EQ(*S->Nodes, (std::vector<std::vector<Rank>>{{0, 1}, {3, 2}}));
  EXPECT_EQ(S->nodeOfRank(), (std::vector<uint32_t>{0, 0, 1, 1}));
  EXPECT_EQ(S->nodePorts().Send, 2u);
  EXPECT_EQ(S->nodePorts().Recv, 2u);
  EXPECT_FALSE(S->commutative());
  EXPECT_EQ(S->nodeRanksString(1), "{2-3}");
  EXPECT_TRUE(checkExplicit(*S).proved());
}

TEST(ScheduleIO, NodesAndOpRoundTripInJsonAndCbor) {
  auto S = parseSchedule(nodesAndOp().dump());
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  std::string Text = toJsonText(*S);
  EXPECT_NE(Text.find("\"nodes\": [[0, 1], [3, 2]]"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("\"node_ports\": {\"send\": 2, \"recv\": 2}"),
            std::string::npos);
  EXPECT_NE(Text.find("\"op\": {\"commutative\": false}"), std::string::npos);
  auto Back = parseSchedule(Text);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(toJsonText(*Back), Text);
  auto FromCbor = parseSchedule(toCborBytes(*S));
  ASSERT_TRUE(bool(FromCbor)) << llvm::toString(FromCbor.takeError());
  EXPECT_EQ(toJsonText(*FromCbor), Text);
  EXPECT_EQ(FromCbor->Nodes, S->Nodes);
  EXPECT_FALSE(FromCbor->commutative());
  // CBOR from another encoder reads the same.
  std::vector<uint8_t> Bytes = json::to_cbor(nodesAndOp());
  auto Other = parseSchedule(llvm::StringRef(
      reinterpret_cast<const char *>(Bytes.data()), Bytes.size()));
  ASSERT_TRUE(bool(Other)) << llvm::toString(Other.takeError());
  EXPECT_EQ(toJsonText(*Other), Text);
}

TEST(ScheduleIO, NodePortsAndOpDefaults) {
  json J = nodesAndOp();
  J.erase("node_ports");
  J.erase("op");
  auto S = parseSchedule(J.dump());
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_FALSE(S->NodePort.has_value());
  EXPECT_EQ(S->nodePorts().Send, 1u);
  EXPECT_EQ(S->nodePorts().Recv, 1u);
  EXPECT_TRUE(S->commutative());
  // Written back as given: no node_ports or op member appears.
  std::string Text = toJsonText(*S);
  EXPECT_EQ(Text.find("node_ports"), std::string::npos);
  EXPECT_EQ(Text.find("\"op\""), std::string::npos);
  // Default node ports: step 1 sends two ops out of each node.
  VerifyResult R = checkExplicit(*S);
  EXPECT_TRUE(R.failsKind(property::NodeSendPort));
  EXPECT_TRUE(R.failsKind(property::NodeRecvPort));
  // Without nodes a schedule has none, and no node line is written.
  Schedule G = gen("allgather-ring", "--p 3 --bytes 2");
  EXPECT_FALSE(G.hasNodes());
  EXPECT_TRUE(G.nodeOfRank().empty());
  EXPECT_EQ(toJsonText(G).find("nodes"), std::string::npos);
  // "op": {} is commutative.
  J["op"] = json::object();
  auto E = parseSchedule(J.dump());
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_TRUE(E->commutative());
}

TEST(ScheduleIO, NodeAndOpRulesNameTheJsonPointer) {
  auto Err = [](auto Edit) {
    json J = nodesAndOp();
    Edit(J);
    return parseError(J);
  };
  EXPECT_EQ(Err([](json &J) {
              J["nodes"] = {{0, 1}, {2, 7}};
            }),
            "/nodes/1/1: rank 7 is out of range (ranks: 4)");
  EXPECT_EQ(Err([](json &J) {
              J["nodes"] = {{0, 1, 2}, {3, 2}};
            }),
            "/nodes/1/1: rank 2 is already in node 0; every rank is in "
            "exactly one node");
  // The first repetition in document order, not in rank order.
  EXPECT_EQ(Err([](json &J) {
              J["nodes"] = {{3, 1, 0}, {2, 1, 3}};
            }),
            "/nodes/1/1: rank 1 is already in node 0; every rank is in "
            "exactly one node");
  EXPECT_EQ(Err([](json &J) {
              J["nodes"] = {{0, 1}, {3}};
            }),
            "/nodes: rank 2 is in no node; every rank is in exactly one node");
  EXPECT_EQ(Err([](json &J) {
              J["nodes"] = {{0, 1, 2, 3}, json::array()};
            }),
            "/nodes/1: node 1 is empty; a node holds at least one rank");
  EXPECT_EQ(Err([](json &J) { J["nodes"] = json::array(); }),
            "/nodes: rank 0 is in no node; every rank is in exactly one node");
  EXPECT_EQ(Err([](json &J) { J["node_ports"]["send"] = 0; }),
            "/node_ports/send: must be at least 1");
  EXPECT_EQ(Err([](json &J) { J.erase("nodes"); }),
            "/node_ports: node ports need \"nodes\", the partition of the "
            "ranks into compute nodes");
  EXPECT_EQ(Err([](json &J) { J["nodes"][0][0] = 1.5; }),
            "/nodes/0/0: expected a non-negative integer, got 1.5");
  EXPECT_EQ(Err([](json &J) { J["op"]["commutative"] = 0; }),
            "/op/commutative: expected true or false, got 0");
  // op only on reductions.
  json G = minimal();
  G["op"] = {{"commutative", true}};
  EXPECT_EQ(parseError(G), "/op: only reductions (reduce, allreduce, "
                           "reduce_scatter, inter_reduce, inter_allreduce, "
                           "scan, exscan) take an operator; inter_allgather "
                           "has none");
}

TEST(ScheduleIO, NodesOfAHugeRankCountAllocateNothingPerRank) {
  // 4e9 ranks claimed, one listed: both the groups and the nodes rule
  // answer from the listed members.
  std::string Huge = R"({"format": "choreo-schedule", "version": 1,
    "collective": "allgather", "ranks": 4000000000,
    "groups": {"all": [0]}, "sizes": {"all": [1]}, "nodes": [[0]],
    "steps": []})";
  std::string Err = errorText(parseSchedule(Huge));
  EXPECT_NE(Err.find("/nodes: rank 1 is in no node"), std::string::npos) << Err;
}

// An alltoall's uniform header (sizes.block, docs/format.md): written and
// read back exactly in JSON and CBOR, read keeping one rank's ops, and its
// rules' errors name their JSON path.
TEST(ScheduleIO, AlltoallBlockHeader) {
  Schedule S = gen("alltoall-bruck", "--p 70 --bytes 5");
  ASSERT_NE(S.sizes("block"), nullptr);
  EXPECT_EQ(*S.sizes("block"), std::vector<uint64_t>{5});
  EXPECT_EQ(S.sizes("pairs"), nullptr);
  EXPECT_EQ(S.buffers()[0].Length, 70u * 70u * 5u);
  auto Back = parseSchedule(toJsonText(S));
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(toJsonText(*Back), toJsonText(S));
  auto FromCbor = parseSchedule(toCborBytes(S));
  ASSERT_TRUE(bool(FromCbor)) << llvm::toString(FromCbor.takeError());
  EXPECT_EQ(toJsonText(*FromCbor), toJsonText(S));
  EXPECT_TRUE(checkExplicit(*Back).proved());
  ReadOptions Opts;
  Opts.OnlyRank = 3;
  auto Mine = parseSchedule(toCborBytes(S), Opts);
  ASSERT_TRUE(bool(Mine)) << llvm::toString(Mine.takeError());
  EXPECT_EQ(*Mine->sizes("block"), std::vector<uint64_t>{5});
  size_t Expected = 0;
  for (const Op &O : S.Steps.allOps())
    Expected += O.Src == 3 || O.Dst == 3;
  EXPECT_EQ(Mine->Steps.numOps(), Expected);

  json J = json::parse(toJsonText(gen("alltoall-pairwise", "--p 2 --bytes 3")));
  J["sizes"]["block"] = {3, 3};
  EXPECT_EQ(parseError(J), "/sizes/block: 2 entries; alltoall needs one, the "
                           "bytes every rank sends every rank (itself too)");
  J["sizes"]["block"] = {-3};
  EXPECT_EQ(parseError(J),
            "/sizes/block/0: expected a non-negative integer, got -3");
  J["sizes"]["block"] = {uint64_t(1) << 63};
  EXPECT_EQ(parseError(J), "/sizes/block/0: buffer all (2 x 2 blocks of "
                           "9223372036854775808 bytes) is longer than 2^64 "
                           "bytes");
  J["sizes"]["block"] = {3};
  J["sizes"]["pairs"] = {3, 3, 3, 3};
  EXPECT_EQ(parseError(J), "/sizes/block: alltoall takes sizes.block (every "
                           "block alike) or sizes.pairs (the matrix), not "
                           "both");
  J["sizes"].erase("block");
  EXPECT_TRUE(bool(parseSchedule(J.dump())));
  J["sizes"].erase("pairs");
  EXPECT_EQ(parseError(J),
            "/sizes/pairs: missing; alltoall needs the 2 x 2 matrix, "
            "row-major, of the bytes rank i sends rank j (or sizes.block, one "
            "size for every block)");
  json G = json::parse(toJsonText(gen("allgather-ring", "--p 2 --bytes 3")));
  G["sizes"]["block"] = {3};
  EXPECT_EQ(parseError(G), "/sizes/block: allgather has no group named block "
                           "and takes no sizes of that name (its groups: all)");
}

// Lattice blocks (docs/format.md, "Lattice blocks"): written and read in
// JSON and CBOR alike, the digest of what is read the digest of what was
// built, a reader keeping one rank's ops keeps exactly its lattices; each
// rule names its JSON pointer.
TEST(ScheduleIO, LatticeBlocks) {
  Schedule S = gen("alltoall-bruck", "--p 13 --bytes 4 --radix 3 --lattice on");
  ASSERT_GT(S.Steps.numLattices(), 0u);
  std::string Text = toJsonText(S);
  EXPECT_NE(Text.find(R"({"buf": "all", "lo": 4, "lattice": {"elem": 4, )"
                      R"("rows": 1, "row_stride": 52, "cols": 4, )"
                      R"("col_stride": 12}})"),
            std::string::npos)
      << Text.substr(0, 1200);
  auto Back = parseSchedule(Text);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(toJsonText(*Back), Text);
  EXPECT_EQ(Back->StepsDigest, stepsDigest(S, S.Steps));
  EXPECT_EQ(scheduleDigest(*Back), scheduleDigest(S));
  auto FromCbor = parseSchedule(toCborBytes(S));
  ASSERT_TRUE(bool(FromCbor)) << llvm::toString(FromCbor.takeError());
  EXPECT_EQ(toJsonText(*FromCbor), Text);
  EXPECT_TRUE(checkExplicit(*Back).proved());
  for (Rank Me : {0u, 6u, 12u}) {
    ReadOptions Opts;
    Opts.OnlyRank = Me;
    auto Mine = parseSchedule(Text, Opts);
    ASSERT_TRUE(bool(Mine)) << llvm::toString(Mine.takeError());
    Schedule Want = onlyRank(S, Me);
    EXPECT_EQ(toJsonText(*Mine), toJsonText(Want)) << "rank " << Me;
    EXPECT_EQ(Mine->Steps.numLattices(), Want.Steps.numLattices());
    EXPECT_LT(Mine->Steps.numLattices(), S.Steps.numLattices());
    EXPECT_EQ(Mine->StepsDigest, Back->StepsDigest);
  }

  // A minimal alltoall: rank 1 sends rank 2 blocks (0, 1) and (0, 3) of 4
  // (2 bytes each), a lattice of one row and two columns, before holding
  // them.
  json J = json::parse(R"({
    "format": "choreo-schedule", "version": 1,
    "collective": "alltoall", "ranks": 4, "groups": {"all": [0, 1, 2, 3]},
    "sizes": {"block": [2]},
    "steps": [{"ops": [{"src": 1, "dst": 2, "blocks": [{"buf": "all",
      "lo": 2, "lattice": {"elem": 2, "rows": 1, "row_stride": 8,
      "cols": 2, "col_stride": 4}}]}]}]
  })");
  auto Small = parseSchedule(J.dump());
  ASSERT_TRUE(bool(Small)) << llvm::toString(Small.takeError());
  const Block &B = Small->Steps.blocks(Small->Steps.step(0)[0])[0];
  ASSERT_TRUE(Small->Steps.validLattice(B));
  EXPECT_EQ(B.Lo, 2u);
  EXPECT_EQ(B.Hi, 8u);
  EXPECT_EQ(Small->Steps.bytes(B), 4u);
  EXPECT_EQ(Small->blockString(B), "all[2,4) rows 1 +8 cols 2 +4");
  VerifyResult R = checkExplicit(*Small);
  ASSERT_FALSE(R.Diags.empty());
  EXPECT_EQ(R.Diags[0].Message, "step 0: rank 1 sends all[2,4) rows 1 +8 "
                                "cols 2 +4 before holding it")
      << R.Diags[0].Message;
  auto Lat = [](json &X) -> json & {
    return X["steps"][0]["ops"][0]["blocks"][0];
  };
  json K = J;
  Lat(K)["hi"] = 8;
  EXPECT_EQ(parseError(K), "/steps/0/ops/0/blocks/0: a lattice block has no "
                           "\"hi\" (its bytes follow from \"lattice\")");
  K = J;
  Lat(K)["lattice"].erase("cols");
  EXPECT_EQ(parseError(K), "/steps/0/ops/0/blocks/0/lattice: missing \"cols\"");
  K = J;
  Lat(K)["lattice"]["rows"] = -1;
  EXPECT_EQ(parseError(K), "/steps/0/ops/0/blocks/0/lattice/rows: expected a "
                           "count (a non-negative integer), got -1");
  K = J;
  Lat(K)["lattice"] = 3;
  EXPECT_EQ(parseError(K), "/steps/0/ops/0/blocks/0/lattice: expected a "
                           "lattice object (elem, rows, row_stride, cols, "
                           "col_stride), got 3");
  K = J;
  Lat(K)["lattice"]["col_stride"] = 1;
  EXPECT_EQ(parseError(K), "/steps/0/ops/0/blocks/0/lattice: columns overlap: "
                           "the column stride 1 is below the element's 2 "
                           "bytes");
  K = J;
  Lat(K)["lattice"]["rows"] = 2;
  Lat(K)["lattice"]["row_stride"] = 4;
  EXPECT_EQ(parseError(K), "/steps/0/ops/0/blocks/0/lattice: rows overlap: "
                           "the row stride 4 is below a row's span of 6 bytes");
  K = J;
  Lat(K)["lattice"]["rows"] = 5;
  EXPECT_EQ(parseError(K), "/steps/0/ops/0/blocks/0/lattice: its last byte, "
                           "39, is past the end of buffer all (length 32)");
  K = J;
  Lat(K)["lattice"]["elem"] = 0;
  EXPECT_EQ(parseError(K), "/steps/0/ops/0/blocks/0/lattice: a lattice needs "
                           "elements of at least one byte, rows and columns "
                           "(elem 0, rows 1, cols 2)");
}
