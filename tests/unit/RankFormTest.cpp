//===- tests/unit/RankFormTest.cpp - Rank forms are projections -----------===//
///
/// \file
/// Every generator with a rank form (Generator::hasRankForm), for every
/// collective it declares, over a sweep of call headers (p up to 33,
/// regular and irregular sizes with zeros, all zeros, every root, the
/// intergroup shapes) and each choice of each of its choice options: rank
/// Me's build is exactly rank Me's ops of the whole schedule, in the same
/// steps (compared by the schedule digest of the projections and by the
/// per-rank digests the pipeline agrees on), and the rank form fails
/// exactly when the whole build does. Found from the registry, so a rank
/// form added to a generator is covered with no change here.
///
//===----------------------------------------------------------------------===//

#include "generators/Generator.h"
#include "ir/CallBinding.h"
#include "ir/Digest.h"

#include <gtest/gtest.h>

using namespace choreo;

namespace {

std::vector<uint64_t> sizesOf(uint32_t P, int Pattern) {
  std::vector<uint64_t> S(P);
  for (uint32_t I = 0; I < P; ++I)
    S[I] = Pattern == 0 ? 16 : Pattern == 1 ? (I * 7) % 5 : 0;
  return S;
}

/// The headers a collective is tried on.
std::vector<CallHeader> headersFor(Collective Kind) {
  const CollectiveSpec &Spec = specOf(Kind);
  std::vector<CallHeader> Out;
  const uint32_t Ps[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 33};
  for (int Pattern = 0; Pattern < 3; ++Pattern) {
    if (Spec.Intergroup) {
      for (auto [P, Q] : {std::pair<uint32_t, uint32_t>{1, 1},
                          {2, 1},
                          {1, 3},
                          {4, 2},
                          {3, 5},
                          {6, 3},
                          {8, 4},
                          {7, 7},
                          {12, 5}}) {
        CallHeader H;
        H.Kind = Kind;
        std::vector<uint64_t> B = sizesOf(Q, Pattern);
        if (Spec.OnlyAContributes)
          B.assign(Q, 0);
        setIntergroup(H, sizesOf(P, Pattern), B);
        Out.push_back(H);
      }
      continue;
    }
    for (uint32_t P : Ps) {
      CallHeader H;
      H.Kind = Kind;
      if (Spec.isGatherType())
        setIntragroup(H, P, sizesOf(P, Pattern));
      else
        setIntragroup(H, P, {Pattern == 2 ? 0 : 8 * uint64_t(P + Pattern)});
      if (!Spec.Rooted) {
        Out.push_back(H);
        continue;
      }
      for (uint32_t Root = 0; Root < P; Root += (P > 8 ? 5 : 1)) {
        H.Root = Root;
        Out.push_back(H);
      }
    }
  }
  return Out;
}

/// Own options to try: none, and each admitted word of each choice option.
std::vector<OptionValues> variantsOf(const Generator &G) {
  std::vector<OptionValues> Out(1);
  for (const OptionDecl &D : G.options()) {
    if (D.Kind != OptionKind::Choice)
      continue;
    for (const std::string &W : D.Choices) {
      OptionValues V(G.options());
      V.set(D, W);
      Out.push_back(V);
    }
  }
  return Out;
}

std::string describe(const Generator &G, const CallHeader &H,
                     const OptionValues &Own) {
  std::string S =
      G.id().str() + " " + describeHeader(H) + " " + Own.toJson().dump();
  return S;
}

} // namespace

TEST(RankForm, EveryRankFormIsItsRanksOpsOfTheWhole) {
  unsigned Generators = 0, Checked = 0;
  for (const Generator *G : allGenerators()) {
    if (!G->hasRankForm())
      continue;
    ++Generators;
    for (Collective Kind : G->collectives().members())
      for (const CallHeader &H : headersFor(Kind))
        for (const OptionValues &Own : variantsOf(*G)) {
          auto Whole = G->generateFor(H, 8, Own);
          if (!Whole) {
            std::string Why = llvm::toString(Whole.takeError());
            // The rank form refuses alike.
            auto Own0 = G->generateFor(H, 8, Own, Rank(0));
            EXPECT_FALSE(bool(Own0)) << describe(*G, H, Own) << ": " << Why;
            if (!Own0)
              llvm::consumeError(Own0.takeError());
            continue;
          }
          std::vector<uint64_t> D = rankDigests(*Whole);
          for (Rank Me = 0; Me < Whole->NumRanks; ++Me) {
            auto Part = G->generateFor(H, 8, Own, Me);
            ASSERT_TRUE(bool(Part)) << describe(*G, H, Own) << " rank " << Me
                                    << ": " << llvm::toString(Part.takeError());
            EXPECT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                      scheduleDigest(onlyRank(*Whole, Me)))
                << describe(*G, H, Own) << " rank " << Me;
            std::vector<uint64_t> E = rankDigests(*Part);
            EXPECT_EQ(E[2 * Me], D[2 * Me]) << describe(*G, H, Own);
            EXPECT_EQ(E[2 * Me + 1], D[2 * Me + 1]) << describe(*G, H, Own);
            ++Checked;
          }
        }
  }
  // allgather-ring, -bruck, -recdbl, inter-allgather-kang at least.
  EXPECT_GE(Generators, 4u);
  EXPECT_GT(Checked, 1000u);
  RecordProperty("generators", Generators);
  RecordProperty("rank_builds", Checked);
}
