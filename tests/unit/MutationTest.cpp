//===- tests/unit/MutationTest.cpp - Broken schedules are rejected --------===//
///
/// \file
/// The mutations of a correct schedule that the foundation issue lists, each
/// applied to the serialized form of inter-allgather-kang (p = 8, q = 3, the
/// paper's listing: --exchange subgroups) and
/// rejected by reading or verifying, with the step named.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::test;
using json = nlohmann::ordered_json;

namespace {

json kang() {
  return json::parse(toJsonText(
      gen("inter-allgather-kang",
          "--p 8 --q 3 --bytes-a 8 --bytes-b 8 --exchange subgroups")));
}

/// Reads and verifies a document; returns the exit code and the first
/// diagnostic.
std::pair<int, std::string> check(const json &J) {
  auto S = parseSchedule(J.dump());
  if (!S)
    return {2, llvm::toString(S.takeError())};
  VerifyResult R = checkExplicit(*S);
  return {R.exitCode(), firstMessage(R)};
}

} // namespace

TEST(Mutation, OriginalIsProved) {
  EXPECT_EQ(check(kang()), std::make_pair(0, std::string()));
}

TEST(Mutation, DroppingTheLastStep) {
  json J = kang();
  size_t Steps = J["steps"].size();
  J["steps"].erase(Steps - 1);
  auto [Code, Msg] = check(J);
  EXPECT_EQ(Code, 1);
  EXPECT_EQ(Msg.rfind("after the last step (step " + std::to_string(Steps - 2) +
                          "): rank ",
                      0),
            0u)
      << Msg;
}

TEST(Mutation, SecondSendByOneRankInOneStep) {
  json J = kang();
  json Op = J["steps"][0]["ops"][0];
  Op["dst"] = 9;
  J["steps"][0]["ops"].push_back(Op);
  auto [Code, Msg] = check(J);
  EXPECT_EQ(Code, 1);
  EXPECT_EQ(Msg, "step 0: rank 0 sends 2 messages, but ports allow 1 per step");
}

TEST(Mutation, SendBeforeReceipt) {
  json J = kang();
  // Step 3 is the first intragroup step: a1 forwards the segment of m_B0
  // it received in step 1. Moved to step 0 (where a1 and a2 are idle), it
  // is sent before it is held.
  json Op = J["steps"][3]["ops"][1];
  J["steps"][3]["ops"].erase(1);
  J["steps"][0]["ops"].push_back(Op);
  EXPECT_EQ(check(J), std::make_pair(1, std::string("step 0: rank 1 sends "
                                                    "B[3,6) before holding "
                                                    "it")));
}

TEST(Mutation, BlockPastTheEndOfItsBuffer) {
  json J = kang();
  J["steps"][2]["ops"][0]["blocks"][0]["hi"] = 72;
  auto [Code, Msg] = check(J);
  EXPECT_EQ(Code, 2);
  EXPECT_EQ(Msg, "/steps/2/ops/0/blocks/0/hi: 72 is past the end of buffer A "
                 "(length 64)");
}

TEST(Mutation, SelfSend) {
  json J = kang();
  J["steps"][4]["ops"][1]["dst"] = J["steps"][4]["ops"][1]["src"];
  auto [Code, Msg] = check(J);
  EXPECT_EQ(Code, 2);
  EXPECT_EQ(Msg.rfind("/steps/4/ops/1: rank ", 0), 0u) << Msg;
  EXPECT_NE(Msg.find("sends to itself"), std::string::npos);
}

TEST(Mutation, UnknownRank) {
  json J = kang();
  J["steps"][5]["ops"][2]["src"] = 11;
  auto [Code, Msg] = check(J);
  EXPECT_EQ(Code, 2);
  EXPECT_EQ(Msg, "/steps/5/ops/2/src: rank 11 is out of range (ranks: 11)");
}

TEST(Mutation, EmptyBlock) {
  json J = kang();
  json &B = J["steps"][1]["ops"][0]["blocks"][0];
  B["hi"] = B["lo"];
  auto [Code, Msg] = check(J);
  EXPECT_EQ(Code, 2);
  EXPECT_EQ(Msg.rfind("/steps/1/ops/0/blocks/0: empty block", 0), 0u) << Msg;
}

TEST(Mutation, WrongVersionAndTruncatedFile) {
  json J = kang();
  J["version"] = 7;
  EXPECT_EQ(check(J), std::make_pair(2, std::string("/version: unsupported "
                                                    "version 7 (this reader "
                                                    "reads version 1)")));
  std::string Text = kang().dump();
  auto S = parseSchedule(Text.substr(0, Text.size() - 10));
  EXPECT_EQ(errorText(std::move(S)).rfind("cannot read the schedule: ", 0), 0u);
}
