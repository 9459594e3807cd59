//===- tests/unit/TraceDecodeTest.cpp - Decoding traced messages ----------===//
///
/// \file
/// trace/Decode.h's stream runs on messages packed from blocks that are not
/// adjacent in buffer `all` (MPICH's Bruck alltoall packs every block whose
/// offset has a bit set), and trace/Knowledge.h's barrier knowledge on a
/// hand-made dissemination barrier.
///
//===----------------------------------------------------------------------===//

#include "trace/Decode.h"
#include "trace/Encoding.h"
#include "trace/Knowledge.h"

#include <gtest/gtest.h>

#include <string>

using namespace choreo::trace;

namespace {

std::string stream(unsigned U, uint64_t Lo, uint64_t Hi) {
  std::string S(Hi - Lo, '\0');
  fillStream(U, Lo, Hi - Lo, S.data());
  return S;
}

std::string runs(const std::vector<Run> &Rs) {
  std::string Out;
  for (const Run &R : Rs)
    Out += "[" + std::to_string(R.Lo) + "," + std::to_string(R.Hi) + ")";
  return Out;
}

TEST(TraceDecode, PackedBlocksEndOnTheirWordBoundary) {
  // Block [768, 1024) then [3072, 3328): word 384's first byte (0x80) is
  // also word 128's, the byte that would follow 1023 in the stream; the
  // first run must still end at 1024 (p = 13, 256 bytes a pair, Bruck).
  std::string M = stream(8, 768, 1024) + stream(8, 3072, 3328);
  auto R = decodeStream(M, 8, 13 * 13 * 256);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(runs(*R), "[768,1024)[3072,3328)");
}

TEST(TraceDecode, BroadcastChunksStillCutAnywhere) {
  // A broadcast's chunk ends inside a word at the end of the message.
  std::string M = stream(8, 13, 1003);
  auto R = decodeStream(M, 8, 4096);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(runs(*R), "[13,1003)");
}

/// Dissemination at p = 3: round 0 i -> i+1, round 1 i -> i+2. Each rank
/// posts its round's receive, sends, and waits; rank 0's round-0 message
/// from rank 2 was waiting, so it completed before rank 0 sent to 1.
std::vector<Message> dissemination3() {
  std::vector<Message> M;
  auto Add = [&](uint32_t S, uint32_t D, uint64_t Send, uint64_t Post,
                 uint64_t Complete) {
    Message X;
    X.Src = S;
    X.Dst = D;
    X.SendSeq = Send;
    X.PostSeq = Post;
    X.CompleteSeq = Complete;
    M.push_back(X);
  };
  // Events per rank: post r0, send r0, complete r0, post r1, send r1, ...
  Add(0, 1, 3, 1, 4); // rank 0 sends at 3 (after completing 2->0 at 2)
  Add(1, 2, 2, 1, 3);
  Add(2, 0, 2, 1, 2); // completes at rank 0 at event 2, before its send
  Add(0, 2, 6, 5, 8);
  Add(1, 0, 6, 5, 7);
  Add(2, 1, 6, 5, 7);
  return M;
}

TEST(TraceKnowledge, LiteralAndByStep) {
  std::vector<Message> M = dissemination3();
  // Literally, rank 0's round-0 message carries rank 2's arrival too.
  auto L = barrierKnowledge(M, 3);
  EXPECT_EQ(runs(L[0]), "[0,1)[2,3)");
  // By steps (round j = step j), it carries what rank 0 held at step 0.
  auto S = barrierKnowledgeByStep(M, 3, {0, 0, 0, 1, 1, 1});
  EXPECT_EQ(runs(S[0]), "[0,1)");
  // Round 1: rank 0 tells rank 2 of {0, 2}; rank 2 held {1, 2} (it heard
  // from rank 1 at step 0), so it learns {0}; rank 1 tells rank 0 {1}.
  EXPECT_EQ(runs(S[3]), "[0,1)");
  EXPECT_EQ(runs(S[4]), "[1,2)");
}

} // namespace
