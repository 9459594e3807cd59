//===- tests/unit/BcastFamilyTest.cpp - The broadcast family, swept
//--------===//
///
/// \file
/// Every broadcast generator (seed 002) for p = 1..40, several roots and
/// sizes (0 included), proved by the explicit engine; step counts against
/// the algorithms' own arithmetic; the op-budget estimate against the ops
/// built; the hierarchical form (Algorithm 1) for every G, uneven groups and
/// any root, proved, with G = 1 and G = p the plain algorithm; the lock-step
/// time `--groups auto` minimises against the cost model's on the generated
/// schedule; the G it picks on either side of Eq. 14; and --nodes layouts
/// kept to or refused.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "cost/Model.h"
#include "generators/bcast/BcastFamily.h"
#include "template/Template.h"

#include <cmath>
#include <map>
#include <variant>

using namespace choreo;
using namespace choreo::test;

namespace {

void expectProved(llvm::StringRef Algo, const std::string &Args) {
  Schedule S = gen(Algo, Args);
  VerifyResult R = checkExplicit(S);
  EXPECT_TRUE(R.proved()) << Algo.str() << " " << Args << ": "
                          << firstMessage(R);
}

std::string id(BcastAlgo A) { return ("bcast-" + bcastAlgoName(A)).str(); }

bool sameSteps(const StepList &A, const StepList &B) {
  if (A.numSteps() != B.numSteps())
    return false;
  for (unsigned S = 0; S < A.numSteps(); ++S) {
    auto OA = A.step(S), OB = B.step(S);
    if (OA.size() != OB.size())
      return false;
    for (size_t I = 0; I < OA.size(); ++I) {
      if (OA[I].Src != OB[I].Src || OA[I].Dst != OB[I].Dst)
        return false;
      auto BA = A.blocks(OA[I]), BB = B.blocks(OB[I]);
      if (BA.size() != BB.size())
        return false;
      for (size_t K = 0; K < BA.size(); ++K)
        if (BA[K].Lo != BB[K].Lo || BA[K].Hi != BB[K].Hi)
          return false;
    }
  }
  return true;
}

/// The steps of A and B hold the same ops (order within a step aside).
bool sameStepsAnyOrder(const StepList &A, const StepList &B) {
  if (A.numSteps() != B.numSteps())
    return false;
  auto Key = [](const StepList &L, const Op &O) {
    std::vector<uint64_t> K{O.Src, O.Dst};
    for (const Block &X : L.blocks(O)) {
      K.push_back(X.Lo);
      K.push_back(X.Hi);
    }
    return K;
  };
  for (unsigned S = 0; S < A.numSteps(); ++S) {
    std::vector<std::vector<uint64_t>> KA, KB;
    for (const Op &O : A.step(S))
      KA.push_back(Key(A, O));
    for (const Op &O : B.step(S))
      KB.push_back(Key(B, O));
    llvm::sort(KA);
    llvm::sort(KB);
    if (KA != KB)
      return false;
  }
  return true;
}

Schedule expandBuiltin(llvm::StringRef Name, const Env &Params,
                       uint64_t Bytes) {
  auto T = loadTemplate(Name);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return Schedule();
  }
  auto S = expandTemplate(*T, Params, {Bytes}, {});
  if (!S) {
    ADD_FAILURE() << Name.str() << ": " << llvm::toString(S.takeError());
    return Schedule();
  }
  return std::move(*S);
}

} // namespace

TEST(BcastFamily, EveryGeneratorEveryPRootAndSize) {
  for (uint32_t P = 1; P <= 40; ++P) {
    std::string N = "--p " + std::to_string(P);
    for (const char *K : {"0", "1", "7", "1000", "40000"})
      for (uint32_t Root : {0u, P / 2, P - 1}) {
        std::string A = N + " --bytes " + K + " --root " + std::to_string(Root);
        for (BcastAlgo Algo : allBcastAlgos())
          expectProved(id(Algo), A);
        if (std::atoi(K) >= 3)
          expectProved("bcast-pipeline", A + " --segments 3");
      }
  }
}

TEST(BcastFamily, StepsAndOpBudget) {
  for (uint32_t P = 2; P <= 40; ++P)
    for (uint64_t K : {1ull, 999ull, 65536ull}) {
      std::string A =
          "--p " + std::to_string(P) + " --bytes " + std::to_string(K);
      unsigned L = ceilLog2(P);
      EXPECT_EQ(gen("bcast-flat", A).Steps.numSteps(), P - 1);
      EXPECT_EQ(gen("bcast-chain", A).Steps.numSteps(), P - 1);
      EXPECT_EQ(gen("bcast-binomial", A).Steps.numSteps(), L);
      // Eq. 3: X + p - 2 steps.
      if (K >= 5)
        EXPECT_EQ(gen("bcast-pipeline", A + " --segments 5").Steps.numSteps(),
                  5 + P - 2);
      // Binary: a rank receiving at step s sends at s + 1 and s + 2; the
      // deepest is at most 2 ceil(log2(p + 1)) - 1 steps away.
      EXPECT_LE(gen("bcast-binary", A).Steps.numSteps(),
                2 * ceilLog2(P + 1) - 1);
      if (K >= P) {
        // Scatter: ceil(log2 p) steps; ring p - 1; recursive doubling
        // log2 p when p is a power of two.
        EXPECT_EQ(gen("bcast-scatter-ring", A).Steps.numSteps(), L + P - 1);
        if (isPowerOfTwo(P))
          EXPECT_EQ(gen("bcast-scatter-rd", A).Steps.numSteps(), 2 * L);
      }
      for (BcastAlgo Algo : allBcastAlgos()) {
        Schedule S = gen(id(Algo), A);
        // The pipeline's and the circulant's default: segments of 8K.
        uint64_t X = cutsSegments(Algo) ? (K + 8191) / 8192 : 1;
        EXPECT_LE(S.Steps.numOps(), plainBcastOps(Algo, P, K, X))
            << id(Algo) << " " << A;
      }
    }
  // The estimate is p - 1 for p - 1 ops: p = 14200 is far below the budget.
  Schedule S = gen("bcast-binomial", "--p 14200 --bytes 1K");
  EXPECT_EQ(S.Steps.numOps(), 14199u);
}

TEST(BcastFamily, HierarchicalEveryGroupCount) {
  const char *Pairs[][2] = {{"flat", "flat"},
                            {"chain", "chain"},
                            {"pipeline", "pipeline"},
                            {"binary", "binary"},
                            {"binomial", "binomial"},
                            {"split-binary", "split-binary"},
                            {"scatter-ring", "scatter-ring"},
                            {"scatter-rd", "scatter-rd"},
                            {"mpich", "mpich"},
                            {"flat", "pipeline"},
                            {"scatter-ring", "chain"},
                            {"binomial", "scatter-rd"}};
  for (uint32_t P = 1; P <= 23; P += (P < 12 ? 1 : 5))
    for (uint32_t G = 1; G <= P; ++G)
      for (uint32_t Root : {0u, P - 1, (P * 2) / 3})
        for (auto &Pair : Pairs) {
          std::string A = "--p " + std::to_string(P) + " --bytes 1001 --root " +
                          std::to_string(Root) + " --groups " +
                          std::to_string(G) + " --outer " + Pair[0] +
                          " --inner " + Pair[1];
          expectProved("bcast-" + std::string(Pair[0]), A);
        }
}

TEST(BcastFamily, HierarchicalEndsAreThePlainAlgorithm) {
  for (BcastAlgo Algo : allBcastAlgos())
    for (uint32_t P : {1u, 5u, 12u})
      for (uint32_t Root : {0u, P - 1}) {
        std::string A = "--p " + std::to_string(P) + " --bytes 4000 --root " +
                        std::to_string(Root);
        Schedule Plain = gen(id(Algo), A);
        EXPECT_TRUE(
            sameSteps(Plain.Steps, gen(id(Algo), A + " --groups 1").Steps))
            << id(Algo) << " " << A;
        EXPECT_TRUE(sameSteps(
            Plain.Steps,
            gen(id(Algo), A + " --groups " + std::to_string(P)).Steps))
            << id(Algo) << " " << A;
      }
}

TEST(BcastFamily, HierarchicalFlatStepsAreEq8) {
  // Eq. 8 in steps: (G - 1) + (ceil(p/G) - 1), the groups alongside.
  for (uint32_t P = 1; P <= 30; ++P)
    for (uint32_t G = 1; G <= P; ++G)
      for (const char *Algo : {"bcast-flat", "bcast-chain"}) {
        Schedule S = gen(
            Algo, "--p " + std::to_string(P) + " --bytes 10 --root " +
                      std::to_string(P / 2) + " --groups " + std::to_string(G));
        EXPECT_EQ(S.Steps.numSteps(), (G - 1) + ((P + G - 1) / G - 1))
            << Algo << " p " << P << " G " << G;
      }
}

TEST(BcastFamily, NodesLayoutAsGroups) {
  Schedule S = gen("bcast-chain",
                   "--p 10 --bytes 100 --root 4 --nodes 3,3,4 --groups nodes");
  ASSERT_TRUE(S.hasNodes());
  EXPECT_EQ(S.Nodes->size(), 3u);
  EXPECT_TRUE(checkExplicit(S).proved());
  // Leaders 0, 4 (the root), 6: a chain of 3 then chains of 3, 3, 4.
  EXPECT_EQ(S.Steps.numSteps(), 2u + 3u);
}

namespace {
/// Generates Algo with Args; the schedule, or the error's text.
std::variant<Schedule, std::string> tryGen(llvm::StringRef Algo,
                                           const std::string &Args) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::SplitString(Args, Parts);
  auto P = parseGenArgs(std::vector<std::string>(Parts.begin(), Parts.end()));
  if (!P)
    return llvm::toString(P.takeError());
  auto S = findGenerator(Algo)->generate(*P);
  if (!S)
    return llvm::toString(S.takeError());
  return std::move(*S);
}
} // namespace

// Issue 30, item 5: with --nodes the schedule carries the layout, so it
// must keep to the node ports (one message out of and one into a node per
// step) or be refused naming --nodes. Every layout of p = 2..9 ranks into
// consecutive nodes, three roots: flat, chain, pipeline, binomial and
// scatter-ring keep to every one; binary, split-binary, scatter-rd and
// mpich's scatter + recursive doubling (p = 8, 20000 B) are refused where
// they do not; --groups nodes keeps to every one with any algorithm.
TEST(BcastFamily, NodesLayoutKeptOrRefused) {
  const BcastAlgo Always[] = {BcastAlgo::Flat, BcastAlgo::Chain,
                              BcastAlgo::Pipeline, BcastAlgo::Binomial,
                              BcastAlgo::ScatterRing};
  std::map<BcastAlgo, unsigned> Refused;
  for (uint32_t P = 2; P <= 9; ++P)
    for (uint32_t Cuts = 0; Cuts < (1u << (P - 1)); ++Cuts) {
      std::string Nodes;
      uint32_t Run = 1;
      for (uint32_t I = 0; I + 1 < P; ++I, ++Run)
        if (Cuts >> I & 1) {
          Nodes += std::to_string(Run) + ",";
          Run = 0;
        }
      Nodes += std::to_string(Run);
      for (uint32_t Root : {0u, P / 2, P - 1})
        for (BcastAlgo A : allBcastAlgos()) {
          std::string Args = "--p " + std::to_string(P) +
                             " --bytes 20000 --root " + std::to_string(Root) +
                             " --nodes " + Nodes;
          auto Plain = tryGen(id(A), Args);
          if (auto *Err = std::get_if<std::string>(&Plain)) {
            ++Refused[A];
            EXPECT_FALSE(llvm::is_contained(Always, A)) << id(A) << " " << Args;
            EXPECT_TRUE(llvm::StringRef(*Err).starts_with(
                "--nodes: " + id(A) + " does not keep to this layout: step "))
                << *Err;
          } else {
            VerifyResult R = checkExplicit(std::get<Schedule>(Plain));
            EXPECT_TRUE(R.proved())
                << id(A) << " " << Args << ": " << firstMessage(R);
          }
          expectProved(id(A), Args + " --groups nodes");
        }
    }
  // The trees that are not node-aware break almost every layout.
  for (BcastAlgo A : {BcastAlgo::Binary, BcastAlgo::SplitBinary,
                      BcastAlgo::ScatterRd, BcastAlgo::Mpich})
    EXPECT_GT(Refused[A], 0u) << id(A);
}

TEST(BcastFamily, LockstepTimeIsTheCostModels) {
  CostModel M;
  M.Alpha = 1e-6;
  M.Beta = 1e-9;
  for (BcastAlgo Algo : allBcastAlgos())
    for (uint32_t P : {7u, 16u, 30u})
      for (uint32_t G : {1u, 2u, 3u, 5u, P}) {
        Hierarchy H{Algo, Algo, evenGroups(P, G)};
        std::vector<uint64_t> Cuts = {0, 1000, 2000, 3000, 4000, 4097};
        Schedule S;
        S.Kind = Collective::Bcast;
        setIntragroup(S, P, {4097});
        S.Root = P - 1;
        S.Steps = hierarchicalBcast(H, 4097, P - 1, Cuts);
        S.Steps.dropEmptySteps();
        double Want = evaluateCost(S, M).Lockstep;
        EXPECT_NEAR(hierarchicalLockstepTime(H, 4097, Cuts, M.Alpha, M.Beta),
                    Want, 1e-12 * std::max(1.0, Want))
            << bcastAlgoName(Algo).str() << " p " << P << " G " << G;
      }
}

TEST(BcastFamily, AutoGroupsFollowEq14) {
  // alpha / beta = 1e4. p = 400: 2m/p < 1e4 for m = 512K (G near sqrt p =
  // 20), > 1e4 for m = 4M (G = 1).
  std::vector<uint64_t> Cuts512 = {0, 512 * 1024}, Cuts4 = {0, 4 << 20};
  uint32_t G = bestGroupCount(BcastAlgo::ScatterRing, BcastAlgo::ScatterRing,
                              400, 512 * 1024, Cuts512, 1e-6, 1e-10);
  EXPECT_GE(G, 14u);
  EXPECT_LE(G, 28u);
  EXPECT_EQ(bestGroupCount(BcastAlgo::ScatterRing, BcastAlgo::ScatterRing, 400,
                           4 << 20, Cuts4, 1e-6, 1e-10),
            1u);
  // Through the generator: --groups auto is the schedule of the G found.
  Schedule A =
      gen("bcast-scatter-ring", "--p 400 --bytes 512K --groups auto --root 7");
  Schedule B = gen("bcast-scatter-ring", "--p 400 --bytes 512K --groups " +
                                             std::to_string(G) + " --root 7");
  EXPECT_TRUE(sameSteps(A.Steps, B.Steps));
}

TEST(BcastFamily, GeneratorsAreTheirTemplates) {
  // bcast-flat, -chain and -pipeline against the templates `choreo prove`
  // proves for every p, root and X.
  for (int64_t P = 1; P <= 20; ++P)
    for (int64_t Root : {int64_t(0), P / 3, P - 1})
      for (uint64_t Bytes : {1ull, 1001ull}) {
        std::string A = "--p " + std::to_string(P) + " --bytes " +
                        std::to_string(Bytes) + " --root " +
                        std::to_string(Root);
        for (const char *Id : {"bcast-flat", "bcast-chain"})
          EXPECT_TRUE(sameStepsAnyOrder(
              gen(Id, A).Steps,
              expandBuiltin(Id, {{"p", P}, {"root", Root}}, Bytes).Steps))
              << Id << " " << A;
        for (int64_t X : {1, 2, 7})
          if (uint64_t(X) <= Bytes)
            EXPECT_TRUE(sameStepsAnyOrder(
                gen("bcast-pipeline", A + " --segments " + std::to_string(X))
                    .Steps,
                expandBuiltin("bcast-pipeline",
                              {{"p", P}, {"segments", X}, {"root", Root}},
                              Bytes)
                    .Steps))
                << A << " X " << X;
      }
  // The hierarchical flat and chain with G groups of n: every g, o.
  for (int64_t G = 1; G <= 6; ++G)
    for (int64_t N = 1; N <= 6; ++N)
      for (int64_t Gr = 0; Gr < G; ++Gr)
        for (int64_t O = 0; O < N; ++O) {
          std::string A = "--p " + std::to_string(G * N) +
                          " --bytes 100 --groups " + std::to_string(G) +
                          " --root " + std::to_string(Gr * N + O);
          Env E{{"groups", G}, {"n", N}, {"g", Gr}, {"o", O}};
          EXPECT_TRUE(
              sameStepsAnyOrder(gen("bcast-flat", A).Steps,
                                expandBuiltin("bcast-hier-flat", E, 100).Steps))
              << A;
          EXPECT_TRUE(sameStepsAnyOrder(
              gen("bcast-chain", A).Steps,
              expandBuiltin("bcast-hier-chain", E, 100).Steps))
              << A;
        }
}
