//===- tests/unit/RankFormTest.cpp - Rank forms are projections -----------===//
///
/// \file
/// Every generator with a rank form (Generator::hasRankForm), for every
/// collective it declares, over a sweep of call headers (p up to 64 and a
/// spot check at 100, regular and irregular sizes with zeros, one member
/// with bytes, all zeros, broadcasts of fewer bytes than ranks, every root
/// up to 16 ranks and a sample of roots above (rootsOf), the intergroup
/// shapes; every rank, or a sample of ranks (sampled)) and each choice of
/// each of its choice options and the options variantsOf adds: rank
/// Me's build is exactly rank Me's ops of the whole schedule, in the same
/// steps (compared by the schedule digest of the projections and by the
/// per-rank digests the pipeline agrees on), and the rank form fails
/// exactly when the whole build does. Found from the registry, so a rank
/// form added to a generator is covered with no change here.
///
//===----------------------------------------------------------------------===//

#include "generators/Generator.h"
#include "generators/bcast/BcastFamily.h"
#include "ir/CallBinding.h"
#include "ir/Digest.h"
#include "ir/PairMatrix.h"
#include "options/Parse.h"
#include "support/Generate.h"
#include "verifier/DistributedCheck.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace choreo;

namespace {

std::vector<uint64_t> sizesOf(uint32_t P, int Pattern) {
  std::vector<uint64_t> S(P);
  for (uint32_t I = 0; I < P; ++I)
    S[I] = Pattern == 0   ? 16
           : Pattern == 1 ? (I * 7) % 5
           : Pattern == 3 ? (I == P / 2 ? 5 : 0)
                          : 0;
  return S;
}

/// The roots tried at P ranks: every one up to 16 ranks; above, the first
/// two, the middle ones, the last two and every seventh (so a root's
/// relative ranks wrap at every place a tree or chunk can break); three at
/// the spot check past 64 ranks.
std::vector<uint32_t> rootsOf(uint32_t P) {
  std::vector<uint32_t> Out;
  if (P > 64) // one spot check past the sweep: three roots
    return {0, P / 3, P - 1};
  for (uint32_t R = 0; R < P; ++R)
    if (P <= 16 || R < 2 || R + 2 >= P || R == P / 2 || R + 1 == P / 2 ||
        R % 7 == 3)
      Out.push_back(R);
  return Out;
}

/// The ranks whose builds are checked: every rank up to 16 ranks; above,
/// ranks near 0, the root, the middle, the end and the first rank of every
/// group after the first (an intergroup call's boundary), and every fifth
/// (offset by the root, so that each relative position is still checked
/// for some root). CHOREO_RANKFORM_ALL=1 checks every rank of every header
/// (the full sweep, about 2.5 times as long).
bool sampled(const CallHeader &H, Rank Me) {
  static const bool All = [] {
    const char *E = std::getenv("CHOREO_RANKFORM_ALL");
    return E && *E && std::strcmp(E, "0") != 0;
  }();
  uint32_t P = H.NumRanks, Root = H.Root.value_or(0);
  if (All || P <= 16)
    return true;
  auto Near = [&](uint32_t X) { return Me + 1 >= X && Me <= X + 1; };
  for (size_t G = 1; G < H.Groups.size(); ++G)
    if (!H.Groups[G].Members.empty() && Near(H.Groups[G].Members.front()))
      return true;
  return Me < 2 || Near(Root) || Near(P / 2) || Me + 2 >= P ||
         Me % 5 == Root % 5;
}

/// The headers a collective is tried on.
std::vector<CallHeader> headersFor(Collective Kind) {
  const CollectiveSpec &Spec = specOf(Kind);
  std::vector<CallHeader> Out;
  const uint32_t Ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 33, 48, 63, 64, 100};
  for (int Pattern = 0; Pattern < 5; ++Pattern) {
    if (Spec.Intergroup) {
      for (auto [P, Q] : {std::pair<uint32_t, uint32_t>{1, 1},
                          {2, 1},
                          {1, 3},
                          {4, 2},
                          {3, 5},
                          {6, 3},
                          {8, 4},
                          {7, 7},
                          {12, 5},
                          {16, 16},
                          {33, 31},
                          {64, 8},
                          {5, 59}}) {
        CallHeader H;
        H.Kind = Kind;
        auto ZerosOf = [&](uint32_t N) {
          return std::vector<uint64_t>(N, 0);
        };
        if (Spec.NoPayload) { // a barrier: one byte per rank, one pattern
          if (Pattern)
            continue;
          setIntergroup(H, std::vector<uint64_t>(P, 1),
                        std::vector<uint64_t>(Q, 1));
        } else if (Spec.Data == DataKind::Broadcast || Spec.isReduction()) {
          // One vector: long enough for MPICH's scatter + recursive
          // doubling (16 KiB) and scatter + ring (600,000 bytes)
          // broadcasts, of a few elements, of none, of one.
          setIntergroup(H, ZerosOf(P), ZerosOf(Q));
          H.Sizes = {{"all",
                      {Pattern == 0   ? 16384
                       : Pattern == 1 ? 8 * uint64_t(P + Q)
                       : Pattern == 2 ? 0
                       : Pattern == 3 ? 8
                                      : 600000}}};
        } else if (Spec.Data == DataKind::Alltoall) {
          // Blocks between the groups alike, irregular with zeros, none,
          // one, one way only.
          setIntergroup(H, ZerosOf(P), ZerosOf(Q));
          uint32_t N = P + Q;
          std::vector<uint64_t> M(size_t(N) * N, 0);
          for (uint32_t I = 0; I < N; ++I)
            for (uint32_t J = 0; J < N; ++J)
              if ((I < P) != (J < P))
                M[size_t(I) * N + J] = Pattern == 0   ? 16
                                       : Pattern == 1 ? (I * 7 + J * 3) % 5
                                       : Pattern == 3 ? (I + 1 == N && J == 0)
                                       : Pattern == 4 ? (I < P ? 8 : 0)
                                                      : 0;
          H.Sizes = {{"pairs", std::move(M)}};
        } else if (Spec.Rooted) {
          // A gather or scatter: the root at either end of either group,
          // the other group's members sized, the root's group's zero.
          std::vector<Rank> Roots = {0, P - 1, P, P + Q - 1};
          std::sort(Roots.begin(), Roots.end());
          Roots.erase(std::unique(Roots.begin(), Roots.end()), Roots.end());
          for (Rank Root : Roots) {
            if (Root < P)
              setIntergroup(H, ZerosOf(P), sizesOf(Q, Pattern));
            else
              setIntergroup(H, sizesOf(P, Pattern), ZerosOf(Q));
            H.Root = Root;
            Out.push_back(H);
          }
          continue;
        } else {
          std::vector<uint64_t> B = sizesOf(Q, Pattern);
          if (Spec.OnlyAContributes)
            B.assign(Q, 0);
          setIntergroup(H, sizesOf(P, Pattern), B);
        }
        if (Spec.Rooted) { // a broadcast's or reduce's root, either group
          std::vector<Rank> Roots = {0, P - 1, P, P + Q - 1};
          std::sort(Roots.begin(), Roots.end());
          Roots.erase(std::unique(Roots.begin(), Roots.end()), Roots.end());
          for (Rank Root : Roots) {
            H.Root = Root;
            Out.push_back(H);
          }
          continue;
        }
        Out.push_back(H);
      }
      continue;
    }
    for (uint32_t P : Ps) {
      CallHeader H;
      H.Kind = Kind;
      if (Spec.Data == DataKind::Alltoall) {
        // MPI_Alltoall's uniform header (sizes.block): blocks of 16 bytes
        // or none, every p.
        if (Pattern == 0 || Pattern == 2) {
          CallHeader U;
          U.Kind = Kind;
          setIntragroup(U, P, {});
          setUniformBlock(U, Pattern ? 0 : 16);
          Out.push_back(U);
        }
        // p^2 blocks: up to 48 ranks (100 would take most of the test's
        // time for no other case).
        if (P > 48)
          continue;
        // Every pair alike, irregular with zeros, all zero, one pair, a
        // skewed row (rank P / 2 sends much more).
        std::vector<uint64_t> M(size_t(P) * P);
        for (uint32_t I = 0; I < P; ++I)
          for (uint32_t J = 0; J < P; ++J)
            M[size_t(I) * P + J] = Pattern == 0   ? 16
                                   : Pattern == 1 ? (I * 7 + J * 3) % 5
                                   : Pattern == 3 ? (I + 1 == P && J == 0)
                                   : Pattern == 4 ? (I == P / 2 ? 40 : J % 2)
                                                  : 0;
        setIntragroup(H, P, {});
        H.Sizes = {{"pairs", std::move(M)}};
        Out.push_back(H);
        continue;
      }
      if (Spec.NoPayload) { // a barrier: one byte per rank, one pattern
        if (Pattern)
          break;
        setIntragroup(H, P, std::vector<uint64_t>(P, 1));
      } else if (Spec.sizedPerMember())
        setIntragroup(H, P, sizesOf(P, Pattern));
      else // fewer bytes than ranks in patterns 3 and 4
        setIntragroup(H, P,
                      {Pattern == 2   ? 0
                       : Pattern == 3 ? P / 2 + 1
                       : Pattern == 4 ? 1
                                      : 8 * uint64_t(P + Pattern)});
      if (!Spec.Rooted) {
        Out.push_back(H);
        continue;
      }
      for (uint32_t Root : rootsOf(P)) {
        H.Root = Root;
        Out.push_back(H);
      }
    }
  }
  return Out;
}

/// parseGenArgs of a command line, split at blanks.
llvm::Expected<OptionValues> genArgsOf(llvm::StringRef Line) {
  llvm::SmallVector<llvm::StringRef, 16> Words;
  llvm::SplitString(Line, Words);
  return parseGenArgs(std::vector<std::string>(Words.begin(), Words.end()));
}

OptionValues parsed(const Generator &G, std::vector<std::string> Args) {
  auto V = parseOptions(Args, G.options());
  EXPECT_TRUE(bool(V)) << G.id().str();
  if (!V) {
    llvm::consumeError(V.takeError());
    return OptionValues(G.options());
  }
  return *V;
}

/// Own options to try: none, each admitted word of each choice option, and
/// options that change the ops beyond the choices: a broadcast's
/// hierarchical form (--groups, with its own algorithm inside and the next
/// one outside, so that the family covers every outer and inner choice),
/// the pipelined ring's equidistant order and blocks, MPICH's ring's
/// pieces, Kang's two exchanges, Bruck's radices, the scattered batches,
/// the blocks of the pipeline and the circulant broadcast and reduce.
std::vector<OptionValues> variantsOf(const Generator &G) {
  std::vector<OptionValues> Out(1);
  for (const OptionDecl &D : G.options())
    if (D.Name == "groups") {
      std::string Mine = G.id().drop_front(strlen("bcast-")).str();
      const OptionDecl *Outer = nullptr;
      for (const OptionDecl &E : G.options())
        if (E.Name == "outer")
          Outer = &E;
      std::string Next = Mine;
      if (Outer) {
        auto It = llvm::find(Outer->Choices, Mine);
        if (It != Outer->Choices.end())
          Next =
              *(std::next(It) == Outer->Choices.end() ? Outer->Choices.begin()
                                                      : std::next(It));
      }
      Out.push_back(parsed(G, {"--groups", "3"}));
      Out.push_back(parsed(G, {"--groups", "5", "--outer", Next}));
      Out.push_back(parsed(G, {"--groups", "2", "--inner", Next}));
      Out.push_back(parsed(G, {"--groups", "auto"}));
    } else if (D.Name == "rerank") {
      Out.push_back(parsed(G, {"--rerank", "equidistant"}));
    } else if (D.Name == "block-bytes") {
      Out.push_back(parsed(G, {"--block-bytes", "3"}));
      Out.push_back(parsed(G, {"--block-bytes", "3", "--skip-empty", "off"}));
    } else if (D.Name == "exchange") {
      for (const char *W : {"balanced", "subgroups"})
        Out.push_back(parsed(G, {"--exchange", W}));
    } else if (D.Name == "radix") {
      for (const char *K : {"3", "4", "7", "64"})
        Out.push_back(parsed(G, {"--radix", K}));
    } else if (D.Name == "pipeline-bytes") {
      Out.push_back(parsed(G, {"--pipeline-bytes", "4"}));
      Out.push_back(parsed(G, {"--pipeline-bytes", "0"}));
    } else if (D.Name == "concurrent") {
      Out.push_back(parsed(G, {"--radix", "5", "--concurrent", "on"}));
    } else if (D.Name == "segments") {
      // Fewer blocks than rounds, more, and as many as elements allow.
      for (const char *N : {"2", "5", "13"})
        Out.push_back(parsed(G, {"--segments", N}));
    } else if (D.Name == "batch") {
      Out.push_back(parsed(G, {"--batch", "3"}));
      Out.push_back(parsed(G, {"--batch", "0"}));
    }
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

/// onlyRank(S, Me) for every rank Me, in one pass over S (a reduction's
/// projection keeps its whole list, as onlyRank does; lattice blocks are
/// copied anew, as onlyRank does).
std::vector<Schedule> projections(const Schedule &S) {
  std::vector<Schedule> Out(S.NumRanks);
  if (S.spec().isReduction() || S.Steps.numLattices()) {
    for (Rank Me = 0; Me < S.NumRanks; ++Me)
      Out[Me] = onlyRank(S, Me);
    return Out;
  }
  for (Schedule &P : Out) {
    P.header() = S.header();
    P.Algorithm = S.Algorithm;
    P.Params = S.Params;
    P.StepsDigest = S.StepsDigest;
  }
  for (unsigned I = 0; I < S.Steps.numSteps(); ++I) {
    for (Schedule &P : Out)
      P.Steps.newStep();
    for (const Op &O : S.Steps.step(I)) {
      Out[O.Src].Steps.addOp(O.Src, O.Dst, S.Steps.blocks(O));
      if (O.Dst != O.Src)
        Out[O.Dst].Steps.addOp(O.Src, O.Dst, S.Steps.blocks(O));
    }
  }
  return Out;
}

} // namespace

TEST(RankForm, EveryRankFormIsItsRanksOpsOfTheWhole) {
  unsigned Generators = 0, Checked = 0;
  // Per generator, the headers whose whole it builds: a generator whose
  // every build is refused (headers it cannot serve) would be swept for
  // nothing.
  std::map<std::string, unsigned> Built;
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
          ++Built[G->id().str()];
          std::vector<uint64_t> D = rankDigests(*Whole);
          std::vector<Schedule> Mine = projections(*Whole);
          for (Rank Me = 0; Me < Whole->NumRanks; ++Me) {
            if (!sampled(H, Me))
              continue;
            auto Part = G->generateFor(H, 8, Own, Me);
            ASSERT_TRUE(bool(Part)) << describe(*G, H, Own) << " rank " << Me
                                    << ": " << llvm::toString(Part.takeError());
            EXPECT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                      scheduleDigest(Mine[Me]))
                << describe(*G, H, Own) << " rank " << Me;
            std::vector<uint64_t> E = rankDigests(*Part);
            EXPECT_EQ(E[2 * Me], D[2 * Me]) << describe(*G, H, Own);
            EXPECT_EQ(E[2 * Me + 1], D[2 * Me + 1]) << describe(*G, H, Own);
            ++Checked;
          }
        }
  }
  for (const Generator *G : allGenerators())
    if (G->hasRankForm()) {
      EXPECT_GE(Built[G->id().str()], 10u) << G->id().str();
    }
  // allgather-ring, -bruck, -recdbl, inter-allgather-kang at least.
  EXPECT_GE(Generators, 4u);
  EXPECT_GT(Checked, 1000u);
  RecordProperty("generators", Generators);
  RecordProperty("rank_builds", Checked);
}

// The half-duplex root gathering, Kang's half-duplex allgather and the
// ring baseline build a rank's ops alone (the sweep above holds them to the
// whole), a few per step: at p = q = 512 rank a_0 of the root gathering
// has its gather's 9 receives and its send to b_0, Kang's b_0 its direct
// receive and Bruck's 2 ops per step over 512 members, and a_0 in the ring
// allgather over all 1024 ranks sends and receives A's 511 other messages
// (B's are empty).
TEST(RankForm, HalfAllgatherRootKangAndIntraRingBuildARanksOps) {
  CallHeader H;
  H.Kind = Collective::HalfAllgather;
  setIntergroup(H, std::vector<uint64_t>(512, 16),
                std::vector<uint64_t>(512, 0));
  for (auto [Id, Me, Ops] :
       {std::tuple<const char *, Rank, size_t>{"half-allgather-root", 0, 10},
        {"half-allgather-kang", 512, 1 + 2 * 9},
        {"half-allgather-intraring", 0, 2 * 511}}) {
    const Generator *G = findGenerator(Id);
    ASSERT_TRUE(G);
    EXPECT_TRUE(G->hasRankForm()) << Id;
    auto Part = G->generateFor(H, 8, OptionValues(G->options()), Me);
    ASSERT_TRUE(bool(Part)) << Id << ": " << llvm::toString(Part.takeError());
    EXPECT_EQ(Part->Steps.numOps(), Ops) << Id;
  }
}

// The optimal ring's rank form over every p <= 9 and q <= 24: the sweep
// above has no even q >= 2p (where hops move to steps 2 and 3) and no one
// sender with even q (a listing of its own). Sizes all 16, or irregular
// with zeros (steps kept only where a non-empty message moves).
TEST(RankForm, RingOptRankFormOverEveryShape) {
  const Generator *G = findGenerator("half-allgather-ring-opt");
  ASSERT_TRUE(G);
  EXPECT_TRUE(G->hasRankForm());
  unsigned Checked = 0;
  for (uint32_t P = 1; P <= 9; ++P)
    for (uint32_t Q = 1; Q <= 24; ++Q)
      for (int Pattern : {0, 1, 3}) {
        CallHeader H;
        H.Kind = Collective::HalfAllgather;
        setIntergroup(H, sizesOf(P, Pattern), std::vector<uint64_t>(Q, 0));
        OptionValues Own(G->options());
        auto Whole = G->generateFor(H, 8, Own);
        ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
        std::vector<Schedule> Mine = projections(*Whole);
        for (Rank Me = 0; Me < P + Q; ++Me) {
          auto Part = G->generateFor(H, 8, Own, Me);
          ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
          EXPECT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                    scheduleDigest(Mine[Me]))
              << "p " << P << " q " << Q << " pattern " << Pattern << " rank "
              << Me;
          ++Checked;
        }
      }
  EXPECT_GT(Checked, 5000u);
}

// Kang et al.'s ring (half-allgather-ring) builds a rank's ops by solving
// its runs: every p, q <= 32 (even and odd q: the dummy receiver; p >= q and
// p < q: Algorithms 1 and 3; q = 1: the pipeline), sizes all 16, irregular
// with zeros, one message with bytes (steps kept only where a non-empty
// message moves, ops of the dummy dropped), every rank.
TEST(RankForm, HalfAllgatherRingOverEveryShape) {
  const Generator *G = findGenerator("half-allgather-ring");
  ASSERT_TRUE(G);
  EXPECT_TRUE(G->hasRankForm());
  unsigned Checked = 0;
  for (uint32_t P = 1; P <= 32; ++P)
    for (uint32_t Q = 1; Q <= 32; ++Q)
      for (int Pattern : {0, 1, 3}) {
        CallHeader H;
        H.Kind = Collective::HalfAllgather;
        setIntergroup(H, sizesOf(P, Pattern), std::vector<uint64_t>(Q, 0));
        OptionValues Own(G->options());
        auto Whole = G->generateFor(H, 8, Own);
        ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
        std::vector<Schedule> Mine = projections(*Whole);
        for (Rank Me = 0; Me < P + Q; ++Me) {
          auto Part = G->generateFor(H, 8, Own, Me);
          ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
          ASSERT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                    scheduleDigest(Mine[Me]))
              << "p " << P << " q " << Q << " pattern " << Pattern << " rank "
              << Me;
          ++Checked;
        }
      }
  EXPECT_GT(Checked, 100000u);
}

// A broadcast that keeps to every --nodes layout builds a rank's ops alone
// with --nodes as without (the flat tree, the chain, the pipeline; the
// hierarchical form whose groups are the nodes, with every outer and inner
// algorithm), and says so (partIsWhole false); so do the trees (binomial,
// binary, split-binary: the layout checked over their O(p) ops, the rank's
// kept), MPICH's scatter + ring (checked over its scatter) and the others
// (checked node by node over the parts of the nodes' ranks).
// A rank's ops are its ops of the whole and a rank refuses exactly when the
// whole does, in the whole's words: p up to 32, nodes of one rank, of two,
// of three and irregular, every root up to 8 ranks, vectors of 8(p + 1),
// of p/2 + 1 and of no bytes.
TEST(RankForm, BcastWithNodesBuildsARanksOps) {
  auto Bind = [](const Generator &G, const std::string &A) {
    auto P = genArgsOf(A);
    EXPECT_TRUE(bool(P)) << A;
    if (!P) {
      llvm::consumeError(P.takeError());
      return std::optional<OptionValues>();
    }
    auto V = bindOptions(*P, G.options(), G.id());
    EXPECT_TRUE(bool(V)) << A;
    if (!V) {
      llvm::consumeError(V.takeError());
      return std::optional<OptionValues>();
    }
    return std::optional<OptionValues>(*V);
  };
  llvm::ArrayRef<BcastAlgo> Algos = allBcastAlgos();
  unsigned Parts = 0, Refused = 0, Checked = 0, Trees = 0, Rings = 0;
  for (size_t AI = 0; AI < Algos.size(); ++AI) {
    const Generator *G =
        findGenerator(("bcast-" + bcastAlgoName(Algos[AI])).str());
    ASSERT_TRUE(G);
    std::string Next = bcastAlgoName(Algos[(AI + 1) % Algos.size()]).str();
    std::string After = bcastAlgoName(Algos[(AI + 2) % Algos.size()]).str();
    bool Plain = Algos[AI] == BcastAlgo::Flat ||
                 Algos[AI] == BcastAlgo::Chain ||
                 Algos[AI] == BcastAlgo::Pipeline;
    for (uint32_t P : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 12u, 17u, 32u})
      for (int Layout = 0; Layout < 4; ++Layout) {
        std::vector<uint32_t> Nodes;
        for (uint32_t Left = P, I = 0; Left; ++I) {
          uint32_t K = Layout == 3 ? 1 + (I * 2) % 3 : uint32_t(Layout + 1);
          Nodes.push_back(std::min(K, Left));
          Left -= Nodes.back();
        }
        std::string NodeList;
        for (uint32_t K : Nodes)
          NodeList += (NodeList.empty() ? "" : ",") + std::to_string(K);
        std::string NumNodes = std::to_string(Nodes.size());
        // Own options, and whether they keep to the layout by construction
        // (every form on one node; every plain broadcast, single-ported, on
        // nodes of one rank).
        bool OneNode = Nodes.size() == 1;
        std::vector<std::pair<std::string, bool>> Owns = {
            {"", Plain || OneNode || Layout == 0},
            {"--groups nodes", true},
            {"--groups nodes --outer " + Next + " --inner " + After, true},
            {"--groups " + NumNodes,
             OneNode || evenGroups(P, Nodes.size()) == Nodes},
            {"--groups 2 --inner " + Next,
             OneNode || (P >= 2 && evenGroups(P, 2) == Nodes)}};
        for (uint32_t Root = 0; Root < P; ++Root) {
          if (P > 8 && Root > 1 && Root != P / 2 && Root + 1 != P)
            continue;
          for (uint64_t Bytes :
               {8 * uint64_t(P + 1), uint64_t(P / 2 + 1), uint64_t(0)})
            for (const auto &[Own, Kept] : Owns) {
              if (Own.find("groups 2") != std::string::npos && P < 2)
                continue;
              std::string A = "--p " + std::to_string(P) + " --bytes " +
                              std::to_string(Bytes) + " --root " +
                              std::to_string(Root) + " --nodes " + NodeList +
                              (Own.empty() ? "" : " ") + Own;
              std::optional<OptionValues> V = Bind(*G, A);
              if (!V)
                continue;
              std::string Where = G->id().str() + " " + A;
              // Kept by construction, or a tree checked over its p - 1 (2p)
              // ops: the rank keeps its own.
              bool Tree = Own.empty() && (Algos[AI] == BcastAlgo::Binomial ||
                                          Algos[AI] == BcastAlgo::Binary ||
                                          Algos[AI] == BcastAlgo::SplitBinary);
              // MPICH's scatter + ring: the layout checked over the
              // scatter's ops, the rank's own built.
              bool Ring =
                  Own.empty() &&
                  (Algos[AI] == BcastAlgo::ScatterRing ||
                   (Algos[AI] == BcastAlgo::Mpich &&
                    mpichBcastChoice(P, Bytes) == MpichBcast::ScatterRing));
              EXPECT_FALSE(G->partIsWhole(*V)) << Where;
              Trees += Tree && !Kept;
              Rings += Ring;
              auto Whole = G->build(*V);
              if (!Whole) {
                // What keeps by construction, the whole keeps.
                std::string Why = llvm::toString(Whole.takeError());
                EXPECT_FALSE(Kept && Why.find("does not keep to this layout") !=
                                         std::string::npos)
                    << Where << ": " << Why;
                ++Refused;
                for (Rank Me : {Rank(0), Rank(P - 1)}) {
                  auto Part = G->buildRank(*V, Me);
                  EXPECT_FALSE(bool(Part)) << Where << " rank " << Me;
                  if (!Part) {
                    EXPECT_EQ(llvm::toString(Part.takeError()), Why)
                        << Where << " rank " << Me;
                  }
                }
                continue;
              }
              std::vector<Schedule> Mine = projections(*Whole);
              for (Rank Me = 0; Me < P; ++Me) {
                auto Part = G->buildRank(*V, Me);
                ASSERT_TRUE(bool(Part)) << Where << " rank " << Me << ": "
                                        << llvm::toString(Part.takeError());
                ASSERT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                          scheduleDigest(Mine[Me]))
                    << Where << " rank " << Me;
                bool Others =
                    llvm::any_of(Part->Steps.allOps(), [&](const Op &O) {
                      return O.Src != Me && O.Dst != Me;
                    });
                EXPECT_FALSE(Others) << Where << " rank " << Me;
                Parts += !Others;
                ++Checked;
              }
            }
        }
      }
  }
  EXPECT_GT(Parts, 20000u);
  EXPECT_GT(Refused, 100u);
  EXPECT_GT(Trees, 1000u);
  EXPECT_GT(Rings, 100u);
  RecordProperty("rank_builds", Checked);
  RecordProperty("scatter_rings", Rings);
}

// The broadcasts whose layout a rank checks node by node over the parts of
// the nodes' ranks (scatter + recursive doubling, the circulant, mpich when
// it picks scatter + recursive doubling, hierarchies whose groups are not
// the nodes) at p = 48 and 64 on layouts of even nodes, uneven ones and
// nodes of one rank among nodes of several: every rank's build is its ops
// of the whole and nothing else, or every rank refuses in the whole's
// words; where the whole keeps to the layout, every rank's part checked as
// a job's rank checks it (the local checks, the nodes' ports and the
// message agreement) proves what the explicit checker proves of the whole.
TEST(RankForm, BcastScansTheNodesOfSeveralRanks) {
  unsigned Checked = 0, Refused = 0, Kept = 0;
  struct Case {
    const char *Id, *Own;
  };
  const Case Cases[] = {{"bcast-scatter-rd", ""},
                        {"bcast-circulant", "--segments 5"},
                        {"bcast-circulant", ""},
                        {"bcast-mpich", ""},
                        {"bcast-binomial", "--groups 3 --inner scatter-rd"},
                        {"bcast-flat", "--groups 5 --outer circulant "
                                       "--inner binomial"},
                        {"bcast-flat", "--groups 8"},
                        {"bcast-chain", "--groups 16 --outer scatter-rd"},
                        {"bcast-circulant", "--groups 6 --inner pipeline "
                                            "--segments 3"}};
  for (const Case &C : Cases) {
    const Generator *G = findGenerator(C.Id);
    ASSERT_TRUE(G) << C.Id;
    for (uint32_t P : {48u, 64u})
      for (const char *Layout : {"even4", "uneven", "ones", "halves"}) {
        std::string NodeList;
        std::string L = Layout;
        for (uint32_t Left = P, I = 0; Left; ++I) {
          uint32_t K = L == "even4"    ? 4
                       : L == "uneven" ? 1 + (I * 5 + 3) % 11
                       : L == "ones"   ? (I % 3 == 2 ? 3 : 1)
                                       : P / 2;
          K = std::min(K, Left);
          Left -= K;
          NodeList += (NodeList.empty() ? "" : ",") + std::to_string(K);
        }
        for (uint32_t Root : {0u, P / 2 + 1, P - 1})
          for (uint64_t Bytes : {uint64_t(1), uint64_t(P / 2),
                                 8 * uint64_t(P + 1), uint64_t(16384)}) {
            std::string A = "--p " + std::to_string(P) + " --bytes " +
                            std::to_string(Bytes) + " --root " +
                            std::to_string(Root) + " --nodes " + NodeList +
                            (*C.Own ? " " : "") + C.Own;
            auto Args = genArgsOf(A);
            ASSERT_TRUE(bool(Args)) << llvm::toString(Args.takeError());
            auto V = bindOptions(*Args, G->options(), G->id());
            if (!V) { // --segments above the bytes
              llvm::consumeError(V.takeError());
              continue;
            }
            std::string Where = std::string(C.Id) + " " + A;
            EXPECT_FALSE(G->partIsWhole(*V)) << Where;
            auto Whole = G->build(*V);
            if (!Whole) {
              std::string Why = llvm::toString(Whole.takeError());
              for (Rank Me = 0; Me < P; ++Me) {
                auto Part = G->buildRank(*V, Me);
                ASSERT_FALSE(bool(Part)) << Where << " rank " << Me;
                ASSERT_EQ(llvm::toString(Part.takeError()), Why)
                    << Where << " rank " << Me;
              }
              ++Refused;
              continue;
            }
            std::vector<Schedule> Mine = projections(*Whole);
            std::vector<Schedule> Parts;
            for (Rank Me = 0; Me < P; ++Me) {
              auto Part = G->buildRank(*V, Me);
              ASSERT_TRUE(bool(Part)) << Where << " rank " << Me << ": "
                                      << llvm::toString(Part.takeError());
              ASSERT_FALSE(
                  llvm::any_of(Part->Steps.allOps(), [&](const Op &O) {
                    return O.Src != Me && O.Dst != Me;
                  }))
                  << Where << " rank " << Me;
              ASSERT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                        scheduleDigest(Mine[Me]))
                  << Where << " rank " << Me;
              Parts.push_back(std::move(*Part));
              ++Checked;
            }
            ++Kept;
            EXPECT_EQ(checkDistributedViews(Parts).St,
                      checkExplicit(*Whole).St)
                << Where;
          }
      }
  }
  EXPECT_GT(Refused, 100u);
  EXPECT_GT(Kept, 20u);
  RecordProperty("rank_builds", Checked);
  RecordProperty("kept", Kept);
  RecordProperty("refused", Refused);
}

// On nodes of one rank each, or on one node, the broadcasts that break
// other layouts (scatter + recursive doubling, the circulant, mpich when it
// picks scatter + recursive doubling) keep to it by construction: a rank
// builds its own ops alone (partIsWhole false, no other rank's op in its
// part) and they are its ops of the whole, which keeps to the layout. Past
// the sweep above: p = 48, 64, 100, roots 0, 1, p / 2, p - 1, a vector of
// 8(p + 1) and one of 64 KiB.
TEST(RankForm, BcastOnOneRankNodesOrOneNodeBuildsARanksOps) {
  unsigned Checked = 0;
  for (const char *Id : {"bcast-scatter-rd", "bcast-circulant", "bcast-mpich",
                         "bcast-binary", "bcast-split-binary"}) {
    const Generator *G = findGenerator(Id);
    ASSERT_TRUE(G) << Id;
    for (uint32_t P : {48u, 64u, 100u})
      for (bool One : {true, false})
        for (uint32_t Root : {0u, 1u, P / 2, P - 1})
          for (uint64_t Bytes : {8 * uint64_t(P + 1), uint64_t(65536)}) {
            std::string NodeList = One ? "1" : std::to_string(P);
            for (uint32_t I = 1; One && I < P; ++I)
              NodeList += ",1";
            std::string A = "--p " + std::to_string(P) + " --bytes " +
                            std::to_string(Bytes) + " --root " +
                            std::to_string(Root) + " --nodes " + NodeList;
            auto Args = genArgsOf(A);
            ASSERT_TRUE(bool(Args)) << llvm::toString(Args.takeError());
            auto V = bindOptions(*Args, G->options(), G->id());
            ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
            std::string Where = std::string(Id) + " " + A.substr(0, 40);
            EXPECT_FALSE(G->partIsWhole(*V)) << Where;
            auto Whole = G->build(*V);
            ASSERT_TRUE(bool(Whole))
                << Where << ": " << llvm::toString(Whole.takeError());
            std::vector<Schedule> Mine = projections(*Whole);
            for (Rank Me : {Rank(0), Rank(1), Root, P / 2 + 1, P - 1}) {
              auto Part = G->buildRank(*V, Me);
              ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
              ASSERT_FALSE(llvm::any_of(Part->Steps.allOps(), [&](const Op &O) {
                return O.Src != Me && O.Dst != Me;
              })) << Where << " rank " << Me;
              ASSERT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                        scheduleDigest(Mine[Me]))
                  << Where << " rank " << Me;
              ++Checked;
            }
          }
  }
  EXPECT_GT(Checked, 1000u);
}

// partIsWhole (what `auto` in a job leaves out) says exactly when a rank's
// build is the whole schedule: for every generator, over sizes that cut
// allgatherv-mpich-ring's contributions into pieces with and without an
// empty one (allgatherv-mpich-ring and allgather-mpich built the whole
// there until 2026-11-27; now a rank's k-th loop slot is step k: never the
// whole), broadcasts with and without --nodes (trees and the scatter +
// allgather forms; one node, nodes of one rank, nodes of several: never
// the whole).
TEST(RankForm, PartIsWholeIsWhatTheRankBuilds) {
  const std::vector<std::string> Args = {
      "--p 5 --bytes 64",
      "--p 5 --counts 40000,0,8,70000,5",
      "--p 5 --counts 40000,1,8,70000,5",
      "--p 5 --counts 100,0,8,7,5",
      "--p 6 --bytes 96 --nodes 3,3",
      "--p 9 --bytes 1M --nodes 4,5",
      "--p 9 --bytes 1M --nodes 9",
      "--p 8 --bytes 64K --nodes 8",
      "--p 8 --bytes 64K --nodes 1,1,1,1,1,1,1,1",
      "--p 8 --bytes 64K --nodes 7,1",
      "--p 8 --bytes 64K --nodes 1,7",
      "--p 8 --bytes 64K --nodes 6,2",
      "--p 9 --bytes 1M --nodes 8,1",
      "--p 4 --q 2 --bytes-a 64 --bytes-b 32",
  };
  unsigned Whole = 0, Parts = 0;
  for (const Generator *G : allGenerators())
    for (const std::string &A : Args) {
      auto P = genArgsOf(A);
      ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
      auto V = bindOptions(*P, G->options(), G->id());
      if (!V) {
        llvm::consumeError(V.takeError());
        continue;
      }
      auto S = G->buildRank(*V, 1);
      if (!S) {
        llvm::consumeError(S.takeError());
        continue;
      }
      bool Others = llvm::any_of(S->Steps.allOps(), [](const Op &O) {
        return O.Src != 1 && O.Dst != 1;
      });
      EXPECT_EQ(G->partIsWhole(*V), Others)
          << G->id().str() << " " << A << ": partIsWhole says "
          << G->partIsWhole(*V);
      ++(G->partIsWhole(*V) ? Whole : Parts);
    }
  EXPECT_GT(Parts, 40u);
  EXPECT_EQ(Whole, 0u);
}

// MPICH's ring with contributions in pieces and empty ones (a rank's k-th
// loop slot is step k, an empty contribution one slot): every rank's part
// is its ops of the whole, the whole proves and has no empty step, and its
// steps are the slots of all contributions less the fewest of one
// (docs/allgatherv.md, "MPICH's ring"), for allgatherv-mpich-ring and for
// allgather-mpich when it takes that ring.
TEST(RankForm, MpichRingInPiecesWithEmptyContributions) {
  std::mt19937 Rng(29);
  unsigned Wholes = 0, Parts = 0;
  for (uint32_t P = 2; P <= 20; ++P)
    for (unsigned Trial = 0; Trial < 4; ++Trial) {
      std::vector<uint64_t> Sizes(P);
      for (uint64_t &M : Sizes)
        M = Rng() % 3 == 0 ? 0 : Rng() % 40;
      Sizes[Rng() % P] = 0;
      Sizes[Rng() % P] = 41 + Rng() % 40;
      std::string Counts;
      for (uint64_t M : Sizes)
        Counts += (Counts.empty() ? "" : ",") + std::to_string(M);
      for (uint64_t Pipe : {1, 7, 40}) {
        uint64_t Slots = 0, Fewest = UINT64_MAX;
        for (uint64_t M : Sizes) {
          uint64_t W = std::max<uint64_t>(1, (M + Pipe - 1) / Pipe);
          Slots += W;
          Fewest = std::min(Fewest, W);
        }
        std::string A = "--p " + std::to_string(P) + " --counts " + Counts +
                        " --pipeline-bytes " + std::to_string(Pipe);
        const Generator *G = findGenerator("allgatherv-mpich-ring");
        ASSERT_TRUE(G);
        auto Args = genArgsOf(A);
        ASSERT_TRUE(bool(Args)) << A;
        auto V = bindOptions(*Args, G->options(), G->id());
        ASSERT_TRUE(bool(V)) << A << ": " << llvm::toString(V.takeError());
        EXPECT_FALSE(G->partIsWhole(*V)) << A;
        auto Whole = G->build(*V);
        ASSERT_TRUE(bool(Whole)) << A << ": "
                                 << llvm::toString(Whole.takeError());
        ASSERT_TRUE(checkExplicit(*Whole).proved()) << A;
        EXPECT_EQ(Whole->Steps.numSteps(), Slots - Fewest) << A;
        for (unsigned I = 0; I < Whole->Steps.numSteps(); ++I)
          EXPECT_FALSE(Whole->Steps.step(I).empty()) << A << " step " << I;
        ++Wholes;
        std::vector<Schedule> Mine = projections(*Whole);
        for (Rank Me = 0; Me < P; ++Me) {
          auto Part = G->buildRank(*V, Me);
          ASSERT_TRUE(bool(Part)) << A << ": "
                                  << llvm::toString(Part.takeError());
          EXPECT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                    scheduleDigest(Mine[Me]))
              << A << " rank " << Me;
          EXPECT_FALSE(llvm::any_of(Part->Steps.allOps(), [&](const Op &O) {
            return O.Src != Me && O.Dst != Me;
          })) << A << " rank " << Me;
          ++Parts;
        }
      }
    }
  EXPECT_EQ(Wholes, 19u * 4 * 3);
  EXPECT_GT(Parts, 2000u);
}

// The uniform header is the matrix of entries alike in closed form: every
// alltoall generator that takes both builds the same steps from --bytes n
// (sizes.block) as from --pairs n,...,n (sizes.pairs); and at p = 300 every
// rank's part of the uniform form, checked as a job's rank checks it
// (docs/distributed-proof.md), gives the explicit checker's verdict.
TEST(RankForm, UniformAlltoallIsTheMatrixAlike) {
  unsigned Compared = 0;
  for (const Generator *G : allGenerators()) {
    // (An intergroup alltoall has no uniform form: blocks within a group
    // are empty.)
    const CollectiveSpec &Sp = specOf(G->collectives().members().front());
    if (Sp.Data != DataKind::Alltoall || Sp.Intergroup)
      continue;
    bool TakesPairs = false, TakesLattice = false;
    for (const OptionDecl &D : G->options()) {
      TakesPairs |= D.Name == "pairs";
      TakesLattice |= D.Name == "lattice";
    }
    // Bruck's uniform form is lattice blocks by default: compared here as
    // byte ranges (its lattices: BruckLatticeBuildsARanksOps).
    std::string Ranges = TakesLattice ? " --lattice off" : "";
    for (uint32_t P : {1u, 2u, 3u, 5u, 8u, 13u}) {
      for (uint64_t N : {0u, 1u, 7u}) {
        std::string Ps = "--p " + std::to_string(P);
        std::string List;
        for (uint64_t K = 0; K < uint64_t(P) * P; ++K)
          List += (K ? "," : "") + std::to_string(N);
        auto A = test::generateFromArgs(*G, Ps + " --bytes " +
                                                std::to_string(N) + Ranges);
        ASSERT_TRUE(bool(A)) << G->id().str() << llvm::toString(A.takeError());
        ASSERT_NE(A->sizes("block"), nullptr);
        if (!TakesPairs)
          continue;
        auto B = test::generateFromArgs(*G, Ps + " --pairs " + List);
        ASSERT_TRUE(bool(B)) << G->id().str() << llvm::toString(B.takeError());
        ASSERT_NE(B->sizes("pairs"), nullptr);
        EXPECT_EQ(A->buffers()[0].Length, B->buffers()[0].Length);
        ASSERT_EQ(A->Steps.numSteps(), B->Steps.numSteps()) << G->id().str();
        for (unsigned St = 0; St < A->Steps.numSteps(); ++St) {
          llvm::ArrayRef<Op> X = A->Steps.step(St);
          llvm::ArrayRef<Op> Y = B->Steps.step(St);
          ASSERT_EQ(X.size(), Y.size()) << G->id().str() << " step " << St;
          for (size_t I = 0; I < X.size(); ++I) {
            EXPECT_EQ(X[I].Src, Y[I].Src);
            EXPECT_EQ(X[I].Dst, Y[I].Dst);
            llvm::ArrayRef<Block> BX = A->Steps.blocks(X[I]);
            llvm::ArrayRef<Block> BY = B->Steps.blocks(Y[I]);
            ASSERT_EQ(BX.size(), BY.size());
            for (size_t K = 0; K < BX.size(); ++K)
              EXPECT_TRUE(BX[K].Lo == BY[K].Lo && BX[K].Hi == BY[K].Hi)
                  << G->id().str() << " p " << P << " step " << St;
          }
        }
        ++Compared;
      }
    }
    // Every rank's part at p = 300, checked apart.
    CallHeader H;
    H.Kind = G->collectives().members().front();
    setIntragroup(H, 300, {});
    setUniformBlock(H, 8);
    std::vector<Schedule> Parts;
    for (Rank Me = 0; Me < 300; ++Me) {
      auto Part = G->generateFor(H, 8, OptionValues(G->options()), Me);
      ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
      Parts.push_back(std::move(*Part));
    }
    auto Whole = G->generateFor(H, 8, OptionValues(G->options()));
    ASSERT_TRUE(bool(Whole));
    VerifyResult D = checkDistributedViews(Parts);
    EXPECT_EQ(D.St, VerifyResult::Status::Proved) << G->id().str();
    EXPECT_TRUE(checkExplicit(*Whole).proved()) << G->id().str();
    // A rank's part without its last receive: that rank lacks the block,
    // its sender disagrees, and neither check proves it.
    Schedule &Cut = Parts[7];
    StepList Kept;
    bool Dropped = false;
    for (unsigned St = 0; St < Cut.Steps.numSteps(); ++St) {
      Kept.newStep();
      for (const Op &O : Cut.Steps.step(St))
        if (!(St + 1 == Cut.Steps.numSteps() && O.Dst == 7 && !Dropped &&
              (Dropped = true)))
          Kept.addOp(O.Src, O.Dst, Cut.Steps.blocks(O));
    }
    ASSERT_TRUE(Dropped) << G->id().str();
    Cut.Steps = std::move(Kept);
    EXPECT_NE(checkDistributedViews(Parts).St, VerifyResult::Status::Proved)
        << G->id().str();
  }
  EXPECT_GE(Compared, 18u);
}

// reduce-circulant's rank form (the broadcast part turned around, each
// op's contributor set its sender's subtree in the block's tree) over every
// p <= 40 and 64, 65: blocks fewer than the rounds, more, the last block's
// tree alone (one block); every root up to 12 ranks and four above; every
// rank. Its part has only its own ops, and a set that names one rank too
// many or too few fails the comparison (the digests hold the sets).
TEST(RankForm, ReduceCirculantOverEveryShape) {
  const Generator *G = findGenerator("reduce-circulant");
  ASSERT_TRUE(G);
  EXPECT_TRUE(G->hasRankForm());
  EXPECT_FALSE(G->partIsWhole(OptionValues(G->options())));
  unsigned Checked = 0;
  std::vector<uint32_t> Ps;
  for (uint32_t P = 1; P <= 40; ++P)
    Ps.push_back(P);
  Ps.push_back(64);
  Ps.push_back(65);
  for (uint32_t P : Ps)
    for (uint64_t N : {1u, 2u, 3u, 7u, 13u})
      for (uint32_t Root = 0; Root < P; ++Root) {
        if (P > 12 && Root > 1 && Root != P / 2 && Root + 1 != P)
          continue;
        auto Args = parseGenArgs(
            {"--p", std::to_string(P), "--bytes", std::to_string(8 * N * 3),
             "--segments", std::to_string(N), "--root", std::to_string(Root)});
        ASSERT_TRUE(bool(Args)) << llvm::toString(Args.takeError());
        auto Whole = G->generate(*Args);
        ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
        std::vector<Schedule> Mine = projections(*Whole);
        for (Rank Me = 0; Me < P; ++Me) {
          auto Part = G->generateRank(*Args, Me);
          ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
          ASSERT_FALSE(llvm::any_of(Part->Steps.allOps(), [&](const Op &O) {
            return O.Src != Me && O.Dst != Me;
          }));
          ASSERT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                    scheduleDigest(Mine[Me]))
              << "p " << P << " n " << N << " root " << Root << " rank " << Me;
          ++Checked;
        }
      }
  EXPECT_GT(Checked, 20000u);
  RecordProperty("rank_builds", Checked);
}

// The intercommunicator broadcast, reductions, gather, scatter, barrier and
// alltoall (MPICH's algorithms) build a rank's ops alone from their blocks'
// rank forms: every p, q in a set with both group sizes 1, powers of two and
// not, every root of either group's ends, vectors of no bytes, of one
// element, and long enough for MPICH's scatter + recursive doubling and
// scatter + ring broadcasts; gathers and scatters short (the tree), long
// (linear), irregular with zeros and empty; alltoalls alike, one way only
// and irregular with zeros. Every rank: its part has only its own ops and
// is its ops of the whole in the whole's steps, and it refuses exactly when
// the whole does.
TEST(RankForm, InterCollectivesBuildARanksOps) {
  const uint32_t Sizes[] = {1, 2, 3, 5, 8, 9, 16};
  unsigned Checked = 0, Refused = 0;
  std::map<std::string, unsigned> PerGenerator;
  auto Check = [&](const char *Id, const std::string &A, uint32_t N) {
    const Generator *G = findGenerator(Id);
    ASSERT_TRUE(G) << Id;
    EXPECT_TRUE(G->hasRankForm()) << Id;
    auto Args = genArgsOf(A);
    ASSERT_TRUE(bool(Args)) << A << ": " << llvm::toString(Args.takeError());
    std::string Where = std::string(Id) + " " + A;
    auto Whole = G->generate(*Args);
    if (!Whole) {
      llvm::consumeError(Whole.takeError());
      ++Refused;
      auto Part = G->generateRank(*Args, 0);
      EXPECT_FALSE(bool(Part)) << Where;
      if (!Part)
        llvm::consumeError(Part.takeError());
      return;
    }
    EXPECT_FALSE(G->partIsWhole(OptionValues(G->options()))) << Id;
    // A rank past the p + q ranks: an error naming it, no part.
    auto Past = G->generateRank(*Args, N);
    ASSERT_FALSE(bool(Past)) << Where;
    EXPECT_NE(llvm::toString(Past.takeError()).find(std::to_string(N)),
              std::string::npos)
        << Where;
    std::vector<Schedule> Mine = projections(*Whole);
    for (Rank Me = 0; Me < N; ++Me) {
      auto Part = G->generateRank(*Args, Me);
      ASSERT_TRUE(bool(Part)) << Where << " rank " << Me << ": "
                              << llvm::toString(Part.takeError());
      ASSERT_FALSE(llvm::any_of(Part->Steps.allOps(), [&](const Op &O) {
        return O.Src != Me && O.Dst != Me;
      })) << Where << " rank " << Me;
      ASSERT_EQ(Part->Steps.numSteps(), Whole->Steps.numSteps())
          << Where << " rank " << Me;
      ASSERT_EQ(scheduleDigest(onlyRank(*Part, Me)), scheduleDigest(Mine[Me]))
          << Where << " rank " << Me;
      ++Checked;
      ++PerGenerator[Id];
    }
  };
  for (uint32_t P : Sizes)
    for (uint32_t Q : Sizes) {
      std::string PQ =
          "--p " + std::to_string(P) + " --q " + std::to_string(Q);
      uint32_t N = P + Q;
      Check("inter-barrier-bcast", PQ, N);
      std::vector<Rank> Roots = {0, P - 1, P, N - 1};
      std::sort(Roots.begin(), Roots.end());
      Roots.erase(std::unique(Roots.begin(), Roots.end()), Roots.end());
      for (uint64_t Bytes : {0u, 8u, 16384u, 600000u}) {
        std::string B = " --bytes " + std::to_string(Bytes);
        for (const char *Op : {"commutative", "noncommutative"})
          Check("inter-allreduce-exchange",
                PQ + B + " --element-bytes 8 --op " + Op, N);
        for (Rank Root : Roots) {
          std::string R = " --root " + std::to_string(Root);
          Check("inter-bcast-root", PQ + B + R, N);
          Check("inter-reduce-root", PQ + B + R + " --element-bytes 8", N);
        }
      }
      for (Rank Root : Roots) {
        bool InA = Root < P;
        uint32_t Other = InA ? Q : P;
        std::string Side = InA ? "b" : "a";
        std::string Irregular;
        for (uint32_t I = 0; I < Other; ++I)
          Irregular += (I ? "," : "") + std::to_string((I * 7) % 5 * 300);
        for (const std::string &S :
             {" --bytes-" + Side + " 8", " --bytes-" + Side + " 300",
              " --bytes-" + Side + " 0", " --counts-" + Side + " " + Irregular})
          for (const char *Id : {"inter-gather-root", "inter-scatter-root"})
            Check(Id, PQ + " --root " + std::to_string(Root) + S, N);
      }
      std::string Pairs;
      for (uint32_t I = 0; I < N; ++I)
        for (uint32_t J = 0; J < N; ++J)
          Pairs += std::string(I || J ? "," : "") +
                   std::to_string((I < P) == (J < P) ? 0 : (I * 3 + J * 5) % 4);
      for (const std::string &S : {std::string(" --bytes 8"),
                                   std::string(" --bytes-a 8 --bytes-b 0"),
                                   std::string(" --bytes 0"),
                                   " --pairs " + Pairs})
        Check("inter-alltoall-pairwise", PQ + S, N);
    }
  for (auto &[Id, Count] : PerGenerator)
    EXPECT_GT(Count, 300u) << Id;
  EXPECT_EQ(PerGenerator.size(), 7u);
  RecordProperty("rank_builds", Checked);
  RecordProperty("refused", Refused);
}

// inter-reduce-kang (a reduce-scatter in the group without the root, then
// each member's piece straight to the root): for p, q in {1, 2, 3, 5, 8,
// 9}, every root, vectors of no, one, fewer than g and many elements, the
// ring and the halving reduce-scatter for a commutative operator and the
// halving one for a non-commutative one, every rank's build is exactly its
// ops of the whole in the whole's steps (the digests of the projection and
// the per-rank digests), and the ring asked for a non-commutative operator
// is refused by the rank form as by the whole.
TEST(RankForm, InterReduceKangBuildsARanksOps) {
  const Generator *G = findGenerator("inter-reduce-kang");
  ASSERT_TRUE(G);
  EXPECT_TRUE(G->hasRankForm());
  const uint32_t Sizes[] = {1, 2, 3, 5, 8, 9};
  unsigned Checked = 0;
  for (uint32_t P : Sizes)
    for (uint32_t Q : Sizes)
      for (Rank Root = 0; Root < P + Q; ++Root)
        for (uint64_t Bytes : {0u, 8u, 24u, 8u * 101})
          for (const char *More :
               {" --op commutative", " --op commutative --reduce-scatter "
                                     "halving",
                " --op noncommutative",
                " --op noncommutative --reduce-scatter ring"}) {
            std::string A = "--p " + std::to_string(P) + " --q " +
                            std::to_string(Q) + " --bytes " +
                            std::to_string(Bytes) + " --element-bytes 8" +
                            " --root " + std::to_string(Root) + More;
            auto Args = genArgsOf(A);
            ASSERT_TRUE(bool(Args)) << A;
            auto Whole = G->generate(*Args);
            if (!Whole) {
              std::string Why = llvm::toString(Whole.takeError());
              EXPECT_NE(Why.find("--reduce-scatter"), std::string::npos) << A;
              auto Part = G->generateRank(*Args, Root);
              ASSERT_FALSE(bool(Part)) << A;
              llvm::consumeError(Part.takeError());
              continue;
            }
            auto Past = G->generateRank(*Args, P + Q);
            ASSERT_FALSE(bool(Past)) << A;
            llvm::consumeError(Past.takeError());
            std::vector<Schedule> Mine = projections(*Whole);
            std::vector<uint64_t> D = rankDigests(*Whole);
            for (Rank Me = 0; Me < P + Q; ++Me) {
              auto Part = G->generateRank(*Args, Me);
              ASSERT_TRUE(bool(Part)) << A << " rank " << Me << ": "
                                      << llvm::toString(Part.takeError());
              ASSERT_EQ(Part->Steps.numSteps(), Whole->Steps.numSteps())
                  << A << " rank " << Me;
              ASSERT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                        scheduleDigest(Mine[Me]))
                  << A << " rank " << Me;
              std::vector<uint64_t> E = rankDigests(*Part);
              ASSERT_EQ(E[2 * Me], D[2 * Me]) << A << " rank " << Me;
              ASSERT_EQ(E[2 * Me + 1], D[2 * Me + 1]) << A << " rank " << Me;
              ++Checked;
            }
          }
  EXPECT_GT(Checked, 40000u);
  RecordProperty("rank_builds", Checked);
}

// alltoall-bruck --lattice on: a rank's ops (lattice blocks, at most eight
// a message) are its ops of the whole, for every p up to 64, radices 2, 3,
// 5 and 64, one message a step or a round's at once, blocks of 1 and (p up
// to 20) 4 bytes; and every op of the whole carries exactly the bytes of
// the same op without --lattice (its blocks' ranges), no byte twice.
TEST(RankForm, BruckLatticeBuildsARanksOps) {
  const Generator *G = findGenerator("alltoall-bruck");
  ASSERT_TRUE(G);
  auto Gen = [&](const std::string &A, std::optional<Rank> Me) {
    auto V = genArgsOf(A);
    EXPECT_TRUE(bool(V)) << A;
    if (!V) {
      llvm::consumeError(V.takeError());
      return std::optional<Schedule>();
    }
    auto S = Me ? G->generateRank(*V, *Me) : G->generate(*V);
    EXPECT_TRUE(bool(S)) << A;
    if (!S) {
      llvm::consumeError(S.takeError());
      return std::optional<Schedule>();
    }
    return std::optional<Schedule>(std::move(*S));
  };
  unsigned Checked = 0, MostRects = 0;
  for (uint32_t P = 1; P <= 64; ++P)
    for (const char *K : {"2", "3", "5", "64"})
      for (const char *Conc : {"off", "on"})
        for (const char *B : {"1", "4"}) {
          if (std::string(B) == "4" && P > 20)
            continue;
          std::string A = "--p " + std::to_string(P) + " --bytes " + B +
                          " --radix " + K + " --concurrent " + Conc;
          auto Whole = Gen(A + " --lattice on", std::nullopt);
          auto Ranges = Gen(A + " --lattice off", std::nullopt);
          ASSERT_TRUE(Whole && Ranges) << A;
          ASSERT_EQ(Whole->Steps.numSteps(), Ranges->Steps.numSteps()) << A;
          for (unsigned St = 0; St < Whole->Steps.numSteps(); ++St) {
            llvm::ArrayRef<Op> X = Whole->Steps.step(St),
                               Y = Ranges->Steps.step(St);
            ASSERT_EQ(X.size(), Y.size()) << A << " step " << St;
            for (size_t I = 0; I < X.size(); ++I) {
              ASSERT_EQ(X[I].Src, Y[I].Src) << A;
              ASSERT_EQ(X[I].Dst, Y[I].Dst) << A;
              MostRects = std::max(MostRects, X[I].NumBlocks);
              EXPECT_LE(X[I].NumBlocks, 8u) << A;
              IntervalSet Got, Want;
              uint64_t Bytes = 0;
              for (const Block &Bk : Whole->Steps.blocks(X[I])) {
                EXPECT_TRUE(Bk.isLattice()) << A;
                Bytes += Whole->Steps.bytes(Bk);
                Whole->Steps.forEachRange(
                    Bk, [&](uint64_t Lo, uint64_t Hi) { Got.insert(Lo, Hi); });
              }
              for (const Block &Bk : Ranges->Steps.blocks(Y[I]))
                Want.insert(Bk.Lo, Bk.Hi);
              EXPECT_EQ(Got, Want) << A << " step " << St << " op " << I;
              EXPECT_EQ(Bytes, Got.cardinality()) << A;
            }
          }
          std::vector<uint64_t> D = rankDigests(*Whole);
          for (Rank Me = 0; Me < P; ++Me) {
            auto Part = Gen(A + " --lattice on", Me);
            ASSERT_TRUE(Part) << A;
            ASSERT_EQ(scheduleDigest(onlyRank(*Part, Me)),
                      scheduleDigest(onlyRank(*Whole, Me)))
                << A << " rank " << Me;
            std::vector<uint64_t> E = rankDigests(*Part);
            EXPECT_EQ(E[2 * Me], D[2 * Me]) << A << " rank " << Me;
            ++Checked;
          }
        }
  EXPECT_GT(Checked, 8000u);
  // Some message is cut at a wrap and at its short last column: four
  // rectangles (the most of any p below 400 with radix 2 to 7; eight is
  // the bound by construction).
  EXPECT_EQ(MostRects, 4u);
}
