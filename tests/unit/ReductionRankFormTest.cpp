//===- tests/unit/ReductionRankFormTest.cpp - Closed forms = the replay ---===//
///
/// \file
/// The reduction generators write each block's contributor set in closed
/// form (generators/blocks/Reduction.h) and build a rank's part alone.
/// Over a sweep wider than RankFormTest's (p = 1..33 and 64, vectors of
/// fewer elements than p, zero, a remainder, past MPICH's size thresholds,
/// element sizes 1, 3 and 8, every root up to p = 17, commutative and
/// non-commutative operators, reduce_scatter slices regular, irregular and
/// with zeros), for every reduction generator:
///  - the whole schedule equals the one whose sets the replay of the raw
///    ops writes (annotateContributors), block for block (digest with the
///    sets, step and op counts);
///  - every rank's part equals that rank's ops of the whole (onlyRank), in
///    the same steps, and the two agree on the rank's message digests.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"
#include "ir/Digest.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

using namespace choreo;

namespace {

std::vector<const ReductionGenerator *> reductions() {
  std::vector<const ReductionGenerator *> Out;
  for (const Generator *G : allGenerators())
    if (auto *R = dynamic_cast<const ReductionGenerator *>(G))
      Out.push_back(R);
  return Out;
}

/// One call: Args as `choreo gen` reads them.
struct Case {
  std::string Args;
  uint32_t P;
};

std::string sliceList(uint32_t P, uint64_t Elem, int Pattern) {
  std::vector<std::string> S;
  for (uint32_t I = 0; I < P; ++I) {
    uint64_t Elems = Pattern == 0 ? (I * 7) % 5 : (I % 3 == 1 ? 2 : 0);
    S.push_back(std::to_string(Elems * Elem));
  }
  return llvm::join(S, ",");
}

std::vector<Case> casesFor(const ReductionGenerator &G) {
  const CollectiveSpec &Spec = specOf(G.collectives().members().front());
  bool Slices = Spec.Result == ResultRule::OwnSlice;
  std::vector<Case> Out;
  const uint32_t Ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 33, 64};
  for (uint32_t P : Ps)
    for (uint64_t Elem : {1u, 3u, 8u}) {
      uint32_t Pof2 = floorPow2(P);
      std::vector<uint64_t> Elems = {0,    1,         P > 2 ? P - 2u : 1u,
                                     Pof2, Pof2 + 3u, 2u * P + 1};
      if (Elem == 8)
        Elems.push_back(300); // 2400 bytes: past reduce-mpich's 2 KB
      if (Elem == 8 && Slices && P <= 8)
        Elems.push_back(65536 + 3 * P); // past reduce-scatter-mpich's 512 KB
      std::vector<std::string> Sizes;
      for (uint64_t E : Elems)
        Sizes.push_back("--bytes " + std::to_string(E * Elem));
      if (Slices)
        for (int Pattern : {0, 1})
          Sizes.push_back("--slices " + sliceList(P, Elem, Pattern));
      for (const std::string &Size : Sizes)
        for (bool Comm : {true, false}) {
          if (!Comm && !G.keepsRankOrder())
            continue;
          std::string Args = "--p " + std::to_string(P) + " " + Size +
                             " --element-bytes " + std::to_string(Elem) +
                             (Comm ? "" : " --op noncommutative");
          if (!Spec.Rooted) {
            Out.push_back({Args, P});
            continue;
          }
          // Every root up to 17 ranks; beyond, the fold's pair (0, 1), a
          // root past it, the middle and the last ranks (past the
          // largest binary block when p is not a power of two).
          std::vector<uint32_t> Roots;
          for (uint32_t Root = 0; Root < P; ++Root)
            if (P <= 17 || Root < 4 || Root == P / 2 || Root + 2 >= P)
              Roots.push_back(Root);
          for (uint32_t Root : Roots)
            Out.push_back({Args + " --root " + std::to_string(Root), P});
        }
    }
  return Out;
}

llvm::Expected<OptionValues> bound(const Generator &G, const std::string &A) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::SplitString(A, Parts);
  std::vector<std::string> V(Parts.begin(), Parts.end());
  auto P = parseGenArgs(V);
  if (!P)
    return P.takeError();
  return bindOptions(*P, G.options(), G.id());
}

} // namespace

TEST(ReductionRankForm, ClosedFormsAreTheReplaysAndPartsAreProjections) {
  unsigned Wholes = 0, Parts = 0;
  for (const ReductionGenerator *G : reductions()) {
    for (const Case &C : casesFor(*G)) {
      std::string What = G->id().str() + " " + C.Args;
      auto V = bound(*G, C.Args);
      ASSERT_TRUE(bool(V)) << What << ": " << llvm::toString(V.takeError());
      auto Whole = G->build(*V);
      if (!Whole) {
        // Refused (reduce-scatter-mpich's unmodelled case): alike for
        // every rank.
        llvm::consumeError(Whole.takeError());
        auto Part = G->buildRank(*V, 0);
        EXPECT_FALSE(bool(Part)) << What;
        if (!Part)
          llvm::consumeError(Part.takeError());
        continue;
      }
      auto Replayed = G->buildReplayed(*V);
      ASSERT_TRUE(bool(Replayed)) << What;
      EXPECT_EQ(Whole->Steps.numSteps(), Replayed->Steps.numSteps()) << What;
      EXPECT_EQ(Whole->Steps.numOps(), Replayed->Steps.numOps()) << What;
      EXPECT_EQ(Whole->Steps.numBlocks(), Replayed->Steps.numBlocks()) << What;
      ASSERT_EQ(scheduleDigest(*Whole), scheduleDigest(*Replayed)) << What;
      ++Wholes;
      std::vector<uint64_t> D = rankDigests(*Whole);
      for (Rank Me = 0; Me < C.P; ++Me) {
        auto Part = G->buildRank(*V, Me);
        ASSERT_TRUE(bool(Part)) << What << " rank " << Me << ": "
                                << llvm::toString(Part.takeError());
        ASSERT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                  scheduleDigest(onlyRank(*Whole, Me)))
            << What << " rank " << Me;
        std::vector<uint64_t> E = rankDigests(*Part);
        EXPECT_EQ(E[2 * Me], D[2 * Me]) << What << " rank " << Me;
        EXPECT_EQ(E[2 * Me + 1], D[2 * Me + 1]) << What << " rank " << Me;
        ++Parts;
      }
    }
  }
  EXPECT_GT(Wholes, 5000u);
  RecordProperty("wholes", Wholes);
  RecordProperty("rank_builds", Parts);
}

// A rank's part holds its own ops only, and a rank outside the job is an
// error naming it.
TEST(ReductionRankForm, PartsHoldTheirRanksOpsOnly) {
  for (const ReductionGenerator *G : reductions()) {
    auto V = bound(*G, "--p 13 --bytes 1040");
    ASSERT_TRUE(bool(V)) << G->id().str();
    for (Rank Me : {0u, 5u, 12u}) {
      auto Part = G->buildRank(*V, Me);
      ASSERT_TRUE(bool(Part)) << G->id().str();
      for (const Op &O : Part->Steps.allOps())
        EXPECT_TRUE(O.Src == Me || O.Dst == Me) << G->id().str();
    }
    auto Out = G->buildRank(*V, 13);
    ASSERT_FALSE(bool(Out)) << G->id().str();
    EXPECT_NE(llvm::toString(Out.takeError())
                  .find("rank 13 is not one of the 13 ranks"),
              std::string::npos)
        << G->id().str();
  }
}

// reduce-scatter-mpich below MPICH's 512 KB threshold runs recursive
// halving (lg p steps): its op budget counts lg p steps per rank, not the
// pairwise exchange's p (16,384 ranks were refused as 805M ops).
TEST(ReductionRankForm, RecursiveHalvingIsBudgetedByItsSteps) {
  const Generator *G = findGenerator("reduce-scatter-mpich");
  ASSERT_TRUE(G);
  auto V = bound(*G, "--p 16384 --bytes 128K");
  ASSERT_TRUE(bool(V));
  auto S = G->build(*V);
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_EQ(S->Steps.numSteps(), 14u);
  EXPECT_EQ(S->Steps.numOps(), 16384u * 14);
  // The pairwise exchange at that p is still refused by its op count.
  auto Big = bound(*G, "--p 16384 --bytes 16M");
  ASSERT_TRUE(bool(Big));
  auto Refused = G->build(*Big);
  ASSERT_FALSE(bool(Refused));
  EXPECT_NE(llvm::toString(Refused.takeError()).find("more than choreo builds"),
            std::string::npos);
}

// A rank's raw ops in step order go straight into the list; one placed
// for an earlier step moves those placed so far into the raw lists. Both
// give the rank's ops by step (in the order placed within a step), the
// steps the whole keeps, contiguous pieces merged, and with a base every
// rank and set shifted.
TEST(ReductionRankForm, RawStepsOfARankInAndOutOfStepOrder) {
  for (bool Late : {false, true}) {
    RawSteps R(4, Rank(1), /*Base=*/10);
    for (unsigned St : {0u, 1u, 2u, 4u})
      R.keep(St); // step 3: nobody's op
    uint32_t Own = R.ranks(1, 2);
    R.add(0, 1, 2, 0, 8, /*Reduce=*/true, Own);
    R.add(2, 0, 1, 8, 16, /*Reduce=*/false, R.everyone());
    R.add(2, 2, 3, 0, 8, /*Reduce=*/true, R.ranks(2, 3)); // not rank 1's
    R.begin(2, 1, 3, /*Reduce=*/false, R.everyone());
    R.piece(0, 4);
    R.piece(4, 8); // merged with [0, 4)
    R.piece(12, 16);
    R.end();
    R.begin(2, 1, 0, /*Reduce=*/true, Own); // no pieces: no op
    R.end();
    EXPECT_TRUE(R.direct());
    if (Late) // step 1, after step 2's ops
      R.add(1, 0, 1, 16, 24, /*Reduce=*/true, R.contrib(RankSet(0, 1)));
    EXPECT_EQ(R.direct(), !Late);
    R.add(4, 3, 1, 24, 32, /*Reduce=*/true, R.ranks(3, 4));
    StepList L = R.take();
    ASSERT_EQ(L.numSteps(), 4u) << Late; // 0, 1, 2 and 4
    ASSERT_EQ(L.step(0).size(), 1u);
    EXPECT_EQ(L.step(0)[0].Src, 11u);
    EXPECT_EQ(L.step(0)[0].Dst, 12u);
    EXPECT_EQ(L.contrib(L.blocks(L.step(0)[0])[0].Contrib), RankSet(11, 12));
    ASSERT_EQ(L.step(1).size(), Late ? 1u : 0u);
    if (Late) {
      EXPECT_EQ(L.step(1)[0].Src, 10u);
      EXPECT_EQ(L.contrib(L.blocks(L.step(1)[0])[0].Contrib),
                RankSet(10, 11));
    }
    ASSERT_EQ(L.step(2).size(), 2u);
    EXPECT_EQ(L.step(2)[0].Src, 10u);
    EXPECT_EQ(L.contrib(L.blocks(L.step(2)[0])[0].Contrib), RankSet(10, 14));
    llvm::ArrayRef<Block> Bs = L.blocks(L.step(2)[1]);
    EXPECT_EQ(L.step(2)[1].Dst, 13u);
    ASSERT_EQ(Bs.size(), 2u);
    EXPECT_EQ(Bs[0].Lo, 0u);
    EXPECT_EQ(Bs[0].Hi, 8u);
    EXPECT_EQ(Bs[1].Lo, 12u);
    EXPECT_FALSE(Bs[1].Reduce);
    ASSERT_EQ(L.step(3).size(), 1u);
    EXPECT_EQ(L.step(3)[0].Src, 13u);
    EXPECT_TRUE(L.blocks(L.step(3)[0])[0].Reduce);
  }
}
