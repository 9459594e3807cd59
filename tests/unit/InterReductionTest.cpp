//===- tests/unit/InterReductionTest.cpp - Intercomm bcast and reductions -===//
///
/// \file
/// inter_bcast, inter_reduce and inter_allreduce (MPI-4 6.2.2): every
/// generator for p, q in 1..16 and roots in either group, vectors of no,
/// one and many elements (and MPICH's scatter path for the broadcast),
/// commutative and not, proved by the explicit engine; the SMT engine and
/// the per-rank proof over the rank forms agree on smaller groups; and
/// mutated schedules fail naming the step, the rank and the block.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "verifier/DistributedCheck.h"
#include "verifier/smt/Smt.h"

#include "ir/ScheduleIO.h"

#include "llvm/ADT/StringExtras.h"

using namespace choreo;
using namespace choreo::test;

namespace {

std::string args(uint32_t P, uint32_t Q, uint64_t N) {
  return "--p " + std::to_string(P) + " --q " + std::to_string(Q) +
         " --bytes " + std::to_string(N);
}

/// Roots in either group: A's first and last, B's first and last.
std::vector<uint32_t> roots(uint32_t P, uint32_t Q) {
  std::vector<uint32_t> R = {0, P - 1, P, P + Q - 1};
  std::sort(R.begin(), R.end());
  R.erase(std::unique(R.begin(), R.end()), R.end());
  return R;
}

void expectProved(const char *Id, const std::string &Args, bool Smt = false) {
  Schedule S = gen(Id, Args);
  VerifyResult R = checkExplicit(S);
  EXPECT_TRUE(R.proved()) << Id << " " << Args << ": " << firstMessage(R);
  if (!Smt)
    return;
  VerifyResult Z = checkSmt(S);
  EXPECT_TRUE(Z.proved()) << Id << " " << Args << " (smt): " << firstMessage(Z);
  VerifyResult D = checkDistributed(S);
  EXPECT_TRUE(D.proved()) << Id << " " << Args
                          << " (distributed): " << firstMessage(D);
}

/// Every rank's part from the rank form, proved together, and each equal
/// to the whole's ops of that rank.
void expectPartsProved(const char *Id, const std::string &Args) {
  const Generator *G = findGenerator(Id);
  ASSERT_TRUE(G);
  llvm::SmallVector<llvm::StringRef, 16> Words;
  llvm::SplitString(Args, Words);
  std::vector<std::string> W(Words.begin(), Words.end());
  auto P = parseGenArgs(W);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto V = bindOptions(*P, G->options(), G->id());
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  Schedule Whole = gen(Id, Args);
  std::vector<Schedule> Parts;
  for (Rank R = 0; R < Whole.NumRanks; ++R) {
    auto S = G->buildRank(*V, R);
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    ASSERT_EQ(S->Steps.numSteps(), Whole.Steps.numSteps()) << Id << Args;
    Parts.push_back(std::move(*S));
  }
  VerifyResult D = checkDistributedViews(Parts);
  EXPECT_TRUE(D.proved()) << Id << " " << Args << ": " << firstMessage(D);
}

/// Rank Only's ops of a schedule (every op without Only), step by step,
/// as text.
std::string opsText(const Schedule &S, std::optional<Rank> Only) {
  std::string Out;
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St) {
    Out += "step " + std::to_string(St) + ":";
    for (const Op &O : S.Steps.step(St)) {
      if (Only && O.Src != *Only && O.Dst != *Only)
        continue;
      Out += " " + std::to_string(O.Src) + "->" + std::to_string(O.Dst);
      for (const Block &B : S.Steps.blocks(O)) {
        Out += " [" + std::to_string(B.Lo) + "," + std::to_string(B.Hi) +
               ")" + (B.Reduce ? "r" : "");
        if (B.hasContrib())
          for (const Interval &I : S.Steps.contrib(B.Contrib).intervals())
            Out += "{" + std::to_string(I.Lo) + "-" + std::to_string(I.Hi) +
                   "}";
      }
    }
    Out += "\n";
  }
  return Out;
}

/// Every rank's part of Id is exactly its ops of the whole.
void expectPartsAreTheWholes(const char *Id, const std::string &Args) {
  const Generator *G = findGenerator(Id);
  ASSERT_TRUE(G);
  llvm::SmallVector<llvm::StringRef, 16> Words;
  llvm::SplitString(Args, Words);
  std::vector<std::string> W(Words.begin(), Words.end());
  auto P = parseGenArgs(W);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto V = bindOptions(*P, G->options(), G->id());
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  Schedule Whole = gen(Id, Args);
  for (Rank R = 0; R < Whole.NumRanks; ++R) {
    auto S = G->buildRank(*V, R);
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    EXPECT_EQ(opsText(*S, std::nullopt), opsText(Whole, R))
        << Id << " " << Args << " rank " << R;
  }
}

} // namespace

TEST(InterReduction, BcastSweep) {
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint32_t Q = 1; Q <= 16; ++Q)
      for (uint64_t N : {0, 1, 1000, 40000})
        for (uint32_t Root : roots(P, Q))
          expectProved("inter-bcast-root",
                       args(P, Q, N) + " --root " + std::to_string(Root),
                       P + Q <= 8 && N <= 1000);
}

TEST(InterReduction, ReduceSweep) {
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint32_t Q = 1; Q <= 16; ++Q)
      for (uint64_t N : {0, 8, 8 * 37})
        for (uint32_t Root : roots(P, Q))
          for (const char *Op : {"commutative", "noncommutative"})
            expectProved("inter-reduce-root",
                         args(P, Q, N) + " --root " + std::to_string(Root) +
                             " --op " + Op,
                         P + Q <= 8);
}

TEST(InterReduction, AllreduceSweep) {
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint32_t Q = 1; Q <= 16; ++Q)
      for (uint64_t N : {0, 8, 8 * 37, 8 * 5000})
        for (const char *Op : {"commutative", "noncommutative"})
          expectProved("inter-allreduce-exchange",
                       args(P, Q, N) + " --op " + Op, P + Q <= 8 && N < 1000);
}

TEST(InterReduction, RankFormsProveTogether) {
  for (auto [P, Q] : {std::pair{3u, 2u}, {2u, 4u}, {5u, 7u}, {1u, 1u}}) {
    expectPartsProved("inter-bcast-root", args(P, Q, 20000) + " --root " +
                                              std::to_string(P + Q - 1));
    expectPartsProved("inter-reduce-root",
                      args(P, Q, 64) + " --root 1 --op noncommutative");
    expectPartsProved("inter-allreduce-exchange",
                      args(P, Q, 64) + " --op noncommutative");
  }
}

/// The Kang-style allreduce (reduce-scatter in each group, swap of the
/// pieces, allgather in each group): every p, q up to 16, vectors of no,
/// one and many elements, pieces of unequal and zero length (n below p),
/// both reduce-scatters and both allgathers, commutative and not.
TEST(InterReduction, AllreduceKangSweep) {
  for (uint32_t P = 1; P <= 16; ++P)
    for (uint32_t Q = 1; Q <= 16; ++Q)
      for (uint64_t N : {0, 8, 8 * 37, 8 * 5000}) {
        bool Small = P + Q <= 8 && N < 1000;
        expectProved("inter-allreduce-kang", args(P, Q, N), Small);
        expectProved("inter-allreduce-kang",
                     args(P, Q, N) + " --op noncommutative --intra bruck",
                     Small);
        expectProved("inter-allreduce-kang",
                     args(P, Q, N) + " --reduce-scatter halving");
      }
  // Elements of 16 bytes that no group size divides.
  for (auto [P, Q] : {std::pair{3u, 2u}, {2u, 4u}, {7u, 5u}, {1u, 9u}})
    for (const char *Op : {"commutative", "noncommutative"})
      expectProved("inter-allreduce-kang",
                   args(P, Q, 16 * 11) + " --element-bytes 16 --op " + Op,
                   true);
}

TEST(InterReduction, AllreduceKangRankForms) {
  for (auto [P, Q] :
       {std::pair{3u, 2u}, {2u, 4u}, {5u, 7u}, {1u, 1u}, {1u, 6u}, {8u, 3u}})
    for (uint64_t N : {0, 8, 8 * 3, 8 * 37})
      for (const char *More :
           {"", " --op noncommutative", " --intra bruck",
            " --reduce-scatter halving --element-bytes 4"}) {
        expectPartsAreTheWholes("inter-allreduce-kang", args(P, Q, N) + More);
        expectPartsProved("inter-allreduce-kang", args(P, Q, N) + More);
      }
}

/// 2 + 3 ranks, 6 one-byte elements: A's pieces [0,3) [3,6), B's [0,2)
/// [2,4) [4,6); the atoms [0,2) [2,3) [3,4) [4,6) are swapped in two steps
/// (rank 0 has two atoms), each atom's two ops in one step.
TEST(InterReduction, AllreduceKangExchange) {
  Schedule S =
      gen("inter-allreduce-kang", "--p 2 --q 3 --bytes 6 --element-bytes 1");
  VerifyResult R = checkExplicit(S);
  ASSERT_TRUE(R.proved()) << firstMessage(R);
  // Steps 0-1: the ring reduce-scatters; 2-3: the swaps (rank 0's atoms
  // [0,2) with rank 2 and [2,3) with rank 3); 4-5: the ring allgathers.
  EXPECT_EQ(opsText(S, std::nullopt),
            "step 0: 0->1 [3,6)r{0-1} 1->0 [0,3)r{1-2} 2->3 [2,4)r{2-3} "
            "3->4 [4,6)r{3-4} 4->2 [0,2)r{4-5}\n"
            "step 1: 2->4 [4,6)r{2-3} 3->2 [0,2)r{3-4} 4->3 [2,4)r{4-5}\n"
            "step 2: 0->2 [0,2){0-2} 2->0 [0,2){2-5} 1->3 [3,4){0-2} "
            "3->1 [3,4){2-5}\n"
            "step 3: 0->3 [2,3){0-2} 3->0 [2,3){2-5} 1->4 [4,6){0-2} "
            "4->1 [4,6){2-5}\n"
            "step 4: 0->1 [0,3){2-5} 1->0 [3,6){2-5} 2->3 [0,2){0-2} "
            "3->4 [2,4){0-2} 4->2 [4,6){0-2}\n"
            "step 5: 2->3 [4,6){0-2} 3->4 [0,2){0-2} 4->2 [2,4){0-2}\n");
}

/// The hazard the swap avoids: a rank has one buffer, so when it sends its
/// group's result on an atom a step after it received the other group's
/// result there, it sends the wrong data, and the verifier says so.
TEST(InterReduction, AllreduceKangLateSendFails) {
  Schedule G =
      gen("inter-allreduce-kang", "--p 2 --q 3 --bytes 6 --element-bytes 1");
  ASSERT_TRUE(checkExplicit(G).proved());
  // Rank 0's first exchange send (to B) moved to a step of its own right
  // after its step, in which rank 0 received B's result on that atom.
  StepList L;
  bool Moved = false;
  for (unsigned St = 0; St < G.Steps.numSteps(); ++St) {
    L.newStep();
    std::optional<std::pair<Op, llvm::SmallVector<Block, 2>>> Late;
    for (const Op &O : G.Steps.step(St)) {
      llvm::SmallVector<Block, 2> Bs(G.Steps.blocks(O).begin(),
                                     G.Steps.blocks(O).end());
      for (Block &B : Bs)
        if (B.hasContrib())
          B.Contrib = L.addContrib(G.Steps.contrib(B.Contrib));
      if (!Moved && O.Src == 0 && O.Dst >= 2 && !Bs.front().Reduce) {
        Late.emplace(O, Bs);
        Moved = true;
        continue;
      }
      L.addOp(O.Src, O.Dst, Bs);
    }
    if (Late) {
      L.newStep();
      L.addOp(Late->first.Src, Late->first.Dst, Late->second);
    }
  }
  ASSERT_TRUE(Moved);
  G.Steps = std::move(L);
  VerifyResult R = checkExplicit(G);
  ASSERT_FALSE(R.proved());
  EXPECT_EQ(firstMessage(R), "step 3: rank 0 sends all[0,2) with contributors "
                             "{0-1}, but holds it with contributors {2-4}");
  EXPECT_FALSE(checkSmt(G).proved());
}

TEST(InterReduction, BadOptionsNameTheOption) {
  const Generator *G = findGenerator("inter-reduce-root");
  ASSERT_TRUE(G);
  std::string E =
      errorText(generateFromArgs(*G, "--p 3 --q 2 --bytes 16 --root 5"));
  EXPECT_NE(E.find("--root"), std::string::npos) << E;
  EXPECT_NE(E.find("rank 5 is not below --p + --q = 5"), std::string::npos)
      << E;
  E = errorText(generateFromArgs(*G, "--p 3 --q 2 --bytes 12 --root 0"));
  EXPECT_NE(E.find("--element-bytes"), std::string::npos) << E;
}

/// A schedule from format v1 text (a test's own mutation).
static Schedule parse(llvm::StringRef Text) {
  auto S = parseSchedule(Text);
  if (!S) {
    ADD_FAILURE() << llvm::toString(S.takeError());
    return Schedule();
  }
  return std::move(*S);
}

TEST(InterReduction, MutationsFailNamingStepRankBlock) {
  // inter_reduce, root 0 in A, B = {1, 2, 3}: rank 1 combines rank 3's
  // vector first, across rank 2 (out of rank order), then sends to 0.
  Schedule S = parse(R"({"format": "choreo-schedule", "version": 1,
    "collective": "inter_reduce", "ranks": 4, "root": 0,
    "groups": {"A": [0], "B": [1, 2, 3]}, "sizes": {"all": [8]},
    "op": {"commutative": false},
    "steps": [
     {"ops": [{"src": 3, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[3, 4]], "reduce": true}]}]},
     {"ops": [{"src": 2, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[2, 3]], "reduce": true}]}]},
     {"ops": [{"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[1, 4]]}]}]}]})");
  VerifyResult R = checkExplicit(S);
  ASSERT_FALSE(R.proved());
  std::string M = firstMessage(R);
  EXPECT_EQ(M, "step 0: rank 1 combines all[0,8) with contributors {3} into "
               "its partial of {1}, but the operator is not commutative and "
               "ranks {2} lie between them");
  EXPECT_FALSE(checkSmt(S).proved());

  // The generator's inter_allreduce with the exchange step's op from B's
  // first rank dropped: A's ranks end with their own group's vectors.
  Schedule G = gen("inter-allreduce-exchange", "--p 3 --q 2 --bytes 16");
  ASSERT_TRUE(checkExplicit(G).proved());
  StepList L;
  for (unsigned St = 0; St < G.Steps.numSteps(); ++St) {
    L.newStep();
    for (const Op &O : G.Steps.step(St)) {
      if (O.Src == 3 && O.Dst == 0)
        continue;
      llvm::SmallVector<Block, 2> Bs(G.Steps.blocks(O).begin(),
                                     G.Steps.blocks(O).end());
      for (Block &B : Bs)
        if (B.hasContrib())
          B.Contrib = L.addContrib(G.Steps.contrib(B.Contrib));
      L.addOp(O.Src, O.Dst, Bs);
    }
  }
  G.Steps = std::move(L);
  R = checkExplicit(G);
  ASSERT_FALSE(R.proved());
  M.clear();
  for (const Diagnostic &D : R.Diags)
    M += D.Message + "\n";
  EXPECT_NE(M.find("rank 0"), std::string::npos) << M;
  EXPECT_NE(M.find("all[0,16)"), std::string::npos) << M;
  EXPECT_FALSE(checkSmt(G).proved());
  EXPECT_FALSE(checkDistributed(G).proved());

  // inter_bcast from root 4 (in B) with the op to A's first rank dropped.
  Schedule B = gen("inter-bcast-root", "--p 3 --q 2 --bytes 16 --root 4");
  ASSERT_TRUE(checkExplicit(B).proved());
  B.Steps = StepList();
  R = checkExplicit(B);
  ASSERT_FALSE(R.proved());
  M = firstMessage(R);
  EXPECT_NE(M.find("rank 0"), std::string::npos) << M;
  EXPECT_NE(M.find("all[0,16)"), std::string::npos) << M;
}

/// The reduce by reduce-scatter and gather (inter-reduce-kang): every p, q
/// up to 12, roots at either end of either group, vectors of no, one and
/// many elements (pieces of none when n has fewer elements than the group
/// ranks), both reduce-scatters, commutative and not; the SMT engine and
/// the per-rank proof on the smaller shapes; 16-byte elements no group
/// size divides.
TEST(InterReduction, ReduceKangSweep) {
  for (uint32_t P = 1; P <= 12; ++P)
    for (uint32_t Q = 1; Q <= 12; ++Q)
      for (uint64_t N : {0, 8, 8 * 37, 8 * 5000})
        for (uint32_t Root : roots(P, Q)) {
          bool Small = P + Q <= 6 && N == 8 * 37;
          std::string A = args(P, Q, N) + " --root " + std::to_string(Root);
          expectProved("inter-reduce-kang", A, Small);
          expectProved("inter-reduce-kang", A + " --op noncommutative",
                       Small);
          if (N < 1000)
            expectProved("inter-reduce-kang", A + " --reduce-scatter halving");
        }
  for (auto [P, Q] : {std::pair{3u, 2u}, {2u, 4u}, {7u, 5u}, {1u, 9u}})
    for (const char *Op : {"commutative", "noncommutative"}) {
      std::string A = args(P, Q, 16 * 11) + " --element-bytes 16 --op " + Op;
      expectProved("inter-reduce-kang", A + " --root 0", true);
      expectProved("inter-reduce-kang", A + " --root " + std::to_string(P),
                   true);
      expectPartsProved("inter-reduce-kang", A + " --root 0");
    }
}

/// Where it wins: the root receives n bytes in g pieces instead of the
/// first rank's n bytes after lg g reduce rounds of n bytes, so the model
/// prices it below inter-reduce-root for long vectors on groups of more
/// than 2 ranks; for one element the halving form is the root's schedule
/// (one piece, sent once).
TEST(InterReduction, ReduceKangShape) {
  Schedule K = gen("inter-reduce-kang", "--p 2 --q 8 --bytes 64K --root 0");
  // The ring: 7 steps, then 8 sends of 8 KiB to the root.
  EXPECT_EQ(K.Steps.numSteps(), 7u + 8u);
  unsigned ToRoot = 0;
  for (const Op &O : K.Steps.allOps())
    if (O.Dst == 0) {
      ++ToRoot;
      uint64_t Bytes = 0;
      for (const Block &B : K.Steps.blocks(O))
        Bytes += B.size();
      EXPECT_EQ(Bytes, 8192u);
    }
  EXPECT_EQ(ToRoot, 8u);
  // Halving on 6 ranks: 4 pieces (2 ranks folded out), 4 sends.
  Schedule H = gen("inter-reduce-kang",
                   "--p 6 --q 1 --bytes 64K --root 6 --reduce-scatter halving");
  unsigned Sends = 0;
  for (const Op &O : H.Steps.allOps())
    Sends += O.Dst == 6;
  EXPECT_EQ(Sends, 4u);
  Schedule One = gen("inter-reduce-kang",
                     "--p 6 --q 1 --bytes 8 --root 6 --reduce-scatter halving");
  Sends = 0;
  for (const Op &O : One.Steps.allOps())
    Sends += O.Dst == 6;
  EXPECT_EQ(Sends, 1u);
}
