//===- tests/unit/RobustnessTest.cpp - Any input: an answer, never a crash ===//
///
/// \file
/// Random byte-level mutations of valid JSON and CBOR schedules (flips,
/// insertions, deletions, truncations) and hostile documents (deep nesting,
/// huge counts): every one is read and, when it reads, verified, and yields
/// either a schedule or a diagnostic (docs/testing.md). Memory errors that
/// do not crash show only under a sanitizer (-fsanitize=address).
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <random>

using namespace choreo;
using namespace choreo::test;

namespace {

/// Reads and verifies; returns true when something was proved, and checks
/// that every failure has a message.
void readAndVerify(llvm::StringRef Data) {
  auto S = parseSchedule(Data);
  if (!S) {
    std::string Msg = llvm::toString(S.takeError());
    EXPECT_FALSE(Msg.empty());
    return;
  }
  VerifyResult R = checkExplicit(*S);
  if (!R.proved()) {
    ASSERT_FALSE(R.Diags.empty());
    EXPECT_FALSE(R.Diags[0].Message.empty());
  }
}

std::string mutate(std::string Doc, std::mt19937 &Rng, bool Text) {
  const char Tokens[] = "{}[],:\"0123456789-.eE tfn\\";
  unsigned Edits = 1 + Rng() % 4;
  for (unsigned E = 0; E < Edits && !Doc.empty(); ++E) {
    size_t At = Rng() % Doc.size();
    switch (Rng() % 4) {
    case 0: // replace
      Doc[At] = Text ? Tokens[Rng() % (sizeof(Tokens) - 1)] : char(Rng());
      break;
    case 1: // insert
      Doc.insert(At, 1, Text ? Tokens[Rng() % (sizeof(Tokens) - 1)] : char(Rng()));
      break;
    case 2: // delete a run
      Doc.erase(At, 1 + Rng() % 8);
      break;
    case 3: // truncate
      Doc.resize(At);
      break;
    }
  }
  return Doc;
}

} // namespace

TEST(Robustness, MutatedJson) {
  std::string Doc = toJsonText(gen("inter-allgather-kang",
                                   "--p 4 --q 3 --bytes-a 5 --bytes-b 3"));
  std::mt19937 Rng(1);
  for (int I = 0; I < 3000; ++I)
    readAndVerify(mutate(Doc, Rng, /*Text=*/true));
}

TEST(Robustness, MutatedCbor) {
  std::string Doc = toCborBytes(gen("inter-allgather-root",
                                    "--p 4 --q 3 --bytes-a 5 --bytes-b 3"));
  std::mt19937 Rng(2);
  for (int I = 0; I < 3000; ++I)
    readAndVerify(mutate(Doc, Rng, /*Text=*/false));
}

TEST(Robustness, HostileDocuments) {
  // Deep nesting, in JSON and CBOR (nlohmann's CBOR reader recurses).
  std::string Deep = "{\"params\": " + std::string(100000, '[') + "}";
  EXPECT_NE(errorText(parseSchedule(Deep)).find("nested deeper than 64"),
            std::string::npos);
  std::string DeepCbor = "\xa1\x66params" + std::string(100000, '\x81');
  EXPECT_NE(errorText(parseSchedule(DeepCbor)).find("nested deeper than 64"),
            std::string::npos);
  // A huge rank count is refused before anything is allocated for it.
  std::string Huge = R"({"format": "choreo-schedule", "version": 1,
    "collective": "allgather", "ranks": 4000000000,
    "groups": {"all": [0]}, "sizes": {"all": [1]}, "steps": []})";
  EXPECT_EQ(errorText(parseSchedule(Huge)),
            "/ranks: 4000000000 ranks, but the groups hold only 1 members; every "
            "rank is in exactly one group");
  // A CBOR text string claiming 2^60 bytes.
  std::string Long = "\xa1\x7b\x10\x00\x00\x00\x00\x00\x00\x00"
                     "abc";
  EXPECT_FALSE(errorText(parseSchedule(Long)).empty());
  // Slices that overflow when summed.
  std::string Slices = R"({"format": "choreo-schedule", "version": 1,
    "collective": "reduce_scatter", "ranks": 2, "groups": {"all": [0, 1]},
    "sizes": {"all": [1], "slices": [18446744073709551615, 2]}, "steps": []})";
  EXPECT_EQ(errorText(parseSchedule(Slices)).rfind("/sizes/slices: slices sum", 0),
            0u);
}

TEST(Robustness, MutatedNodesAndOperator) {
  // A non-commutative allreduce on two nodes: the mutations reach the
  // nodes, node_ports and op members and the node and order properties.
  auto S = parseSchedule(R"({
    "format": "choreo-schedule", "version": 1, "collective": "allreduce",
    "ranks": 4, "groups": {"all": [0, 1, 2, 3]}, "sizes": {"all": [8]},
    "nodes": [[0, 1], [2, 3]], "node_ports": {"send": 2, "recv": 2},
    "op": {"commutative": false},
    "steps": [
      {"ops": [
        {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 1]], "reduce": true}]},
        {"src": 3, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[3, 4]], "reduce": true}]}]},
      {"ops": [
        {"src": 1, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 2]], "reduce": true}]}]},
      {"ops": [
        {"src": 2, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 4]]}]}]},
      {"ops": [
        {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 4]]}]},
        {"src": 2, "dst": 3, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 4]]}]}]}]})");
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_TRUE(checkExplicit(*S).proved());
  std::string Json = toJsonText(*S), Cbor = toCborBytes(*S);
  std::mt19937 Rng(3);
  for (int I = 0; I < 2000; ++I) {
    readAndVerify(mutate(Json, Rng, /*Text=*/true));
    readAndVerify(mutate(Cbor, Rng, /*Text=*/false));
  }
}
