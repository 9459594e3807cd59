//===- tests/unit/ReductionSweepTest.cpp - Reductions for p = 1..64 -------===//
///
/// \file
/// Every reduction generator (seed 004) for every p in 1..64, vector
/// lengths 0, one element, a length with a remainder over p' and a long
/// one, commutative and (where the algorithm keeps order) non-commutative,
/// roots 0, the middle and p - 1: each schedule proved exactly-once (and in
/// rank order) by the explicit verifier. Step counts are checked against
/// the paper's where they are exact; the generators that cannot keep rank
/// order must refuse --op noncommutative; the strided blocks of halving
/// with distance doubling are what the block budget counts.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "generators/blocks/Blocks.h"
#include "generators/blocks/Reduction.h"
#include "verifier/smt/Smt.h"

using namespace choreo;
using namespace choreo::test;

namespace {

struct Algo {
  const char *Id;
  bool KeepsOrder;
};

const Algo Reduces[] = {{"reduce-binary-tree", true},
                        {"reduce-halving-doubling", true},
                        {"reduce-binary-blocks", true},
                        {"reduce-ring", false},
                        {"reduce-mpich", true}};
const Algo Allreduces[] = {{"allreduce-binary-tree", true},
                           {"allreduce-recursive-doubling", true},
                           {"allreduce-halving-doubling", true},
                           {"allreduce-binary-blocks", true},
                           {"allreduce-ring", false},
                           {"allreduce-mpich", true}};
const Algo ReduceScatters[] = {{"reduce-scatter-halving-doubling", true},
                               {"reduce-scatter-ring", false},
                               {"reduce-scatter-mpich", true}};

/// Vector lengths for p ranks of 8-byte elements: none, one element, p'
/// + 3 elements (a remainder) and 3000 bytes past 2 KB (MPICH's long path).
std::vector<uint64_t> lengths(uint32_t P) {
  return {0, 8, 8 * (uint64_t(floorPow2(P)) + 3), 8 * 375};
}

void expectProved(const char *Id, const std::string &Args) {
  Schedule S = gen(Id, Args);
  VerifyResult R = checkExplicit(S);
  EXPECT_TRUE(R.proved()) << Id << " " << Args << ": " << firstMessage(R);
}

/// The steps of S as format v1 writes them.
std::string stepsText(const Schedule &S) {
  std::string T = toJsonText(S);
  return T.substr(T.find("\"steps\""));
}

std::string base(uint32_t P, uint64_t N) {
  return "--p " + std::to_string(P) + " --bytes " + std::to_string(N);
}

} // namespace

TEST(ReductionSweep, Reduce) {
  for (const Algo &A : Reduces)
    for (uint32_t P = 1; P <= 64; ++P)
      for (uint64_t N : lengths(P))
        for (uint32_t Root : {0u, P / 2, P - 1}) {
          std::string Args = base(P, N) + " --root " + std::to_string(Root);
          expectProved(A.Id, Args);
          if (A.KeepsOrder)
            expectProved(A.Id, Args + " --op noncommutative");
        }
}

TEST(ReductionSweep, Allreduce) {
  for (const Algo &A : Allreduces)
    for (uint32_t P = 1; P <= 64; ++P)
      for (uint64_t N : lengths(P)) {
        expectProved(A.Id, base(P, N));
        if (A.KeepsOrder)
          expectProved(A.Id, base(P, N) + " --op noncommutative");
      }
}

TEST(ReductionSweep, ReduceScatter) {
  for (const Algo &A : ReduceScatters)
    for (uint32_t P = 1; P <= 64; ++P) {
      // (arguments, whether the slices are all equal)
      std::vector<std::pair<std::string, bool>> Cases;
      for (uint64_t N : lengths(P))
        Cases.push_back({base(P, N), (N / 8) % P == 0});
      // Unequal slices, zeros among them.
      std::string Slices;
      for (uint32_t R = 0; R < P; ++R)
        Slices += (R ? "," : "") + std::to_string(8 * ((R * 7) % 5));
      Cases.push_back({"--p " + std::to_string(P) + " --slices " + Slices,
                       P == 1});
      for (const auto &[Args, Equal] : Cases) {
        expectProved(A.Id, Args);
        // MPICH's noncommutative reduce_scatter: p a power of two, equal
        // slices (else refused: see ReduceScatterMpichRefuses).
        bool Modelled = isPowerOfTwo(P) && Equal;
        if (A.KeepsOrder &&
            (std::string(A.Id) != "reduce-scatter-mpich" || Modelled))
          expectProved(A.Id, Args + " --op noncommutative");
      }
    }
}

TEST(ReductionSweep, ReduceScatterMpichRefuses) {
  const Generator *G = findGenerator("reduce-scatter-mpich");
  ASSERT_TRUE(G);
  auto P = parseGenArgs({"--p", "6", "--bytes", "48", "--op",
                         "noncommutative"});
  ASSERT_TRUE(bool(P));
  EXPECT_NE(errorText(G->generate(*P)).find("not modelled"),
            std::string::npos);
}

TEST(ReductionSweep, StepCounts) {
  for (uint32_t P = 1; P <= 64; ++P) {
    unsigned Lg = ceilLog2(P), LgF = ceilLog2(floorPow2(P));
    bool Pow = isPowerOfTwo(P);
    std::string Args = base(P, 8 * 64);
    // Sec. 3.3: ceil(lg p) steps each way.
    EXPECT_EQ(gen("reduce-binary-tree", Args).Steps.numSteps(), Lg) << P;
    EXPECT_EQ(gen("allreduce-binary-tree", Args).Steps.numSteps(), 2 * Lg)
        << P;
    // Sec. 3.4: lg p' exchanges, plus the fold and the return.
    EXPECT_EQ(gen("allreduce-recursive-doubling", Args).Steps.numSteps(),
              LgF + (Pow ? 0 : 2))
        << P;
    // Sec. 3.5: 2 lg p', plus two fold steps and the return (p = 13: 9).
    EXPECT_EQ(gen("allreduce-halving-doubling", Args).Steps.numSteps(),
              2 * LgF + (Pow ? 0 : 3))
        << P;
    EXPECT_EQ(gen("reduce-halving-doubling", Args).Steps.numSteps(),
              2 * LgF + (Pow ? 0 : 2))
        << P;
    // Sec. 3.7: 2(p - 1).
    EXPECT_EQ(gen("allreduce-ring", Args).Steps.numSteps(), 2 * (P - 1)) << P;
    EXPECT_EQ(gen("reduce-scatter-ring", Args).Steps.numSteps(), P - 1) << P;
    // Binary blocks on a power of two are halving-doubling.
    if (Pow)
      EXPECT_EQ(stepsText(gen("allreduce-binary-blocks", Args)),
                stepsText(gen("allreduce-halving-doubling", Args)))
          << P;
  }
  EXPECT_EQ(gen("allreduce-halving-doubling", base(13, 64)).Steps.numSteps(),
            9u);
}

TEST(ReductionSweep, RingsRefuseNoncommutative) {
  for (const char *Id : {"reduce-ring", "allreduce-ring", "reduce-scatter-ring"}) {
    const Generator *G = findGenerator(Id);
    ASSERT_TRUE(G);
    auto P = parseGenArgs({"--p", "5", "--bytes", "40", "--op",
                           "noncommutative"});
    ASSERT_TRUE(bool(P));
    std::string E = errorText(G->generate(*P));
    EXPECT_NE(E.find("--op: the pairwise reduce-scatter combines across the "
                     "wrap"),
              std::string::npos)
        << E;
  }
}

TEST(ReductionSweep, NoncommutativeIsWritten) {
  Schedule S = gen("allreduce-halving-doubling",
                   "--p 5 --bytes 40 --op noncommutative");
  EXPECT_FALSE(S.commutative());
  EXPECT_NE(toJsonText(S).find("\"op\": {\"commutative\": false}"),
            std::string::npos)
      << toJsonText(S).substr(0, 400);
}

TEST(ReductionSweep, SmtEngineAgrees) {
  // The Z3 engine proves a sample of the generators too (every algorithm at
  // two non-powers of two, non-commutative where admitted), and rejects
  // the ring with the operator declared non-commutative.
  for (const char *Id :
       {"reduce-binary-tree", "reduce-halving-doubling", "reduce-binary-blocks",
        "reduce-mpich", "allreduce-binary-tree", "allreduce-recursive-doubling",
        "allreduce-halving-doubling", "allreduce-binary-blocks",
        "allreduce-mpich", "reduce-scatter-halving-doubling"})
    for (uint32_t P : {5u, 7u}) {
      std::string Args = base(P, 8 * (P + 1)) + " --op noncommutative";
      if (llvm::StringRef(Id).starts_with("reduce-") &&
          !llvm::StringRef(Id).starts_with("reduce-scatter"))
        Args += " --root " + std::to_string(P - 1);
      Schedule S = gen(Id, Args);
      VerifyResult R = checkSmt(S);
      EXPECT_TRUE(R.proved()) << Id << " " << Args << ": " << firstMessage(R);
    }
  Schedule Ring = gen("allreduce-ring", base(5, 40));
  Ring.ReduceOp = ReductionOp{false};
  EXPECT_FALSE(checkSmt(Ring).proved());
  EXPECT_FALSE(checkExplicit(Ring).proved());
}

// Issue 30, item 7: halving with distance doubling sends, from each of the
// p' ranks, the strided segments of the owners on the other side, so its
// messages carry about p'^2 blocks in all; the block budget counts them by
// halvingReduceScatterBlocks: exactly, when every segment is non-empty (no
// two of a message are adjacent), and as an upper bound otherwise. And the
// generators built on it end as many blocks as the count allows for.
TEST(ReductionSweep, StridedBlocksAreCounted) {
  for (uint32_t Pof2 : {2u, 4u, 16u, 64u, 256u})
    for (bool SomeEmpty : {false, true}) {
      // Segments of 8 bytes owned in byte order; every third one empty.
      std::vector<uint64_t> Cuts{0};
      for (uint32_t X = 0; X < Pof2; ++X)
        Cuts.push_back(Cuts.back() + (SomeEmpty && X % 3 == 0 ? 0 : 8));
      SegmentLayout Lay = SegmentLayout::inOrder(Cuts);
      RawSteps R(Pof2);
      halvingReduceScatter(R, 0, NewRanks::block(0, Pof2), Lay,
                           bitOrder(Pof2, true));
      uint64_t Built = R.take().numBlocks();
      uint64_t Count = halvingReduceScatterBlocks(Lay);
      if (SomeEmpty)
        EXPECT_LE(Built, Count) << Pof2;
      else
        EXPECT_EQ(Built, uint64_t(Pof2) * (Pof2 - 1)) << Pof2;
      EXPECT_EQ(Count,
                uint64_t(Pof2 - 1) * (SomeEmpty ? Pof2 - (Pof2 + 2) / 3 : Pof2))
          << Pof2;
    }
  // MPICH's noncommutative reduce_scatter, 64 ranks, 64-byte slices: 64 *
  // 63 blocks in 64 * 6 messages.
  Schedule S =
      gen("reduce-scatter-mpich", "--p 64 --bytes 4096 --op noncommutative");
  EXPECT_EQ(S.Steps.numOps(), 64u * 6);
  EXPECT_EQ(S.Steps.numBlocks(), 64u * 63);
  EXPECT_TRUE(checkExplicit(S).proved());
}

TEST(ReductionSweep, HalvingDoublingReduceScatterSendsOneRangePerMessage) {
  // Contiguous halves, then one step swapping every segment to its owner
  // (new rank x and bitrev(x), when they differ): every message one range,
  // lg p' + 1 steps (+3 when p is not a power of two: fold and return).
  for (uint32_t P = 1; P <= 64; ++P) {
    uint32_t Pof2 = floorPow2(P);
    unsigned LgF = ceilLog2(Pof2);
    for (const char *Op : {"", " --op noncommutative"}) {
      Schedule S = gen("reduce-scatter-halving-doubling", base(P, 8 * 64) + Op);
      EXPECT_EQ(S.Steps.numBlocks(), S.Steps.numOps()) << P << Op;
      EXPECT_EQ(S.Steps.numSteps(),
                LgF + (Pof2 >= 4 ? 1 : 0) + (isPowerOfTwo(P) ? 0 : 3))
          << P << Op;
      EXPECT_TRUE(checkExplicit(S).proved()) << P << Op;
    }
  }
  // p = 64, 64-byte slices: 64 * 6 halving messages, 56 swaps (8 of the
  // 64 six-bit numbers are their own reversal).
  Schedule S = gen("reduce-scatter-halving-doubling", "--p 64 --bytes 4096");
  EXPECT_EQ(S.Steps.numOps(), 64u * 6 + 56);
  EXPECT_EQ(S.Steps.numBlocks(), 64u * 6 + 56);
  // Linear in ops: p = 4096 has 4096 * 13 blocks, not 4096^2.
  Schedule Big =
      gen("reduce-scatter-halving-doubling", "--p 4096 --bytes 4194304");
  EXPECT_EQ(Big.Steps.numBlocks(), Big.Steps.numOps());
  EXPECT_LE(Big.Steps.numOps(), 4096u * 13);
}
