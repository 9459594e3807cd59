//===- tests/unit/PmpiSelectionTest.cpp - The drop-in library's choices ---===//
///
/// \file
/// Without MPI: the options a generator is given for an intercepted call
/// (from its declarations), the check that a schedule serves the call,
/// choices and their errors, selection files (first match, every condition,
/// errors with JSON paths, bounded nesting and size), the environment over
/// the rules, auto by the cost model, and a rank's own ops.
///
//===----------------------------------------------------------------------===//

#include "generators/CallOptions.h"
#include "pmpi/Candidates.h"
#include "pmpi/Selection.h"

#include "executor/RankPlan.h"
#include "verifier/Verifier.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// The call on an intracommunicator. Sizes: every member's bytes
/// (gather-type), every rank's slice (reduce-scatter), or the vector length
/// followed by a zero per other rank (bcast, reduce, allreduce).
MpiArgs intraArgs(MpiCall C, std::vector<uint64_t> Sizes, uint32_t Root) {
  MpiArgs A;
  A.Call = C;
  A.Root = Root;
  const CollectiveSpec &Spec = bindingOf(C).spec();
  if (Spec.sizedPerMember() || Spec.knowsSizes("slices")) {
    A.SizesA = std::move(Sizes);
  } else {
    A.Ranks = Sizes.size();
    A.Bytes = Sizes.empty() ? 0 : Sizes[0];
  }
  return A;
}

BoundCall intra(MpiCall C, std::vector<uint64_t> Sizes, uint32_t Root = 0) {
  return llvm::cantFail(bindCall(intraArgs(C, std::move(Sizes), Root)));
}

MpiArgs interArgs(MpiCall C, std::vector<uint64_t> A, std::vector<uint64_t> B) {
  MpiArgs X;
  X.Call = C;
  X.Inter = true;
  X.SizesA = std::move(A);
  X.SizesB = std::move(B);
  return X;
}

BoundCall inter(MpiCall C, std::vector<uint64_t> A, std::vector<uint64_t> B) {
  return llvm::cantFail(bindCall(interArgs(C, std::move(A), std::move(B))));
}

/// The options generator G is given for a bound call's header, with Extra
/// as its own options, as "--name value" words in declaration order.
llvm::Expected<std::vector<std::string>>
generatorArgs(const Generator &G, const BoundCall &C,
              llvm::ArrayRef<std::string> Extra) {
  OptionValues Own;
  if (!Extra.empty()) {
    auto P = parseGenArgs(Extra);
    if (!P)
      return P.takeError();
    Own = std::move(*P);
  }
  auto V = callOptions(G, C.Header, C.ElemBytes, Own);
  if (!V)
    return V.takeError();
  std::vector<std::string> Out;
  for (const OptionEntry &E : V->entries()) {
    if (!E.Given)
      continue;
    Out.push_back("--" + E.Decl->Name);
    if (const uint64_t *N = std::get_if<uint64_t>(&E.Value))
      Out.push_back(std::to_string(*N));
    else if (const auto *L = std::get_if<std::vector<uint64_t>>(&E.Value))
      Out.push_back(llvm::join(
          llvm::map_range(*L, [](uint64_t X) { return std::to_string(X); }),
          ","));
    else if (const std::string *W = std::get_if<std::string>(&E.Value))
      Out.push_back(*W);
  }
  return Out;
}
llvm::Expected<Schedule> buildFor(llvm::StringRef Id,
                                  llvm::ArrayRef<std::string> Extra,
                                  const BoundCall &C,
                                  std::optional<Rank> Only = {}) {
  return pmpi::buildFor(Id, Extra, C.Header, C.ElemBytes, Only);
}
std::string servesCall(const Schedule &S, const BoundCall &C) {
  return headerMismatch(C.Header, S);
}

std::string err(llvm::Error E) { return llvm::toString(std::move(E)); }

} // namespace

TEST(PmpiShape, ArgumentsFromDeclarations) {
  auto Args = generatorArgs(*findGenerator("allgather-ring"),
                            intra(MpiCall::Allgather, {8, 8, 8}), {});
  ASSERT_TRUE(bool(Args));
  EXPECT_EQ(*Args, (std::vector<std::string>{"--p", "3", "--bytes", "8"}));
  // Irregular sizes take the size list.
  Args = generatorArgs(*findGenerator("allgather-bruck"),
                       intra(MpiCall::Allgatherv, {1, 0, 5}), {});
  ASSERT_TRUE(bool(Args));
  EXPECT_EQ(*Args, (std::vector<std::string>{"--p", "3", "--counts", "1,0,5"}));
  Args = generatorArgs(*findGenerator("bcast-binomial"),
                       intra(MpiCall::Bcast, {100, 0, 0, 0}, 2), {});
  ASSERT_TRUE(bool(Args));
  EXPECT_EQ(*Args, (std::vector<std::string>{"--p", "4", "--bytes", "100",
                                             "--root", "2"}));
  Args = generatorArgs(*findGenerator("inter-allgather-kang"),
                       inter(MpiCall::Allgather, {4, 4}, {2, 2, 2}),
                       {"--intra", "bruck"});
  ASSERT_TRUE(bool(Args));
  EXPECT_EQ(*Args,
            (std::vector<std::string>{"--p", "2", "--q", "3", "--bytes-a", "4",
                                      "--bytes-b", "2", "--intra", "bruck"}));
  // An intergroup generator for an intragroup call.
  EXPECT_NE(err(generatorArgs(*findGenerator("inter-allgather-kang"),
                              intra(MpiCall::Allgather, {1, 1}), {})
                    .takeError())
                .find("is an intergroup algorithm"),
            std::string::npos);
}

TEST(PmpiShape, ServesOnlyItsCall) {
  auto S =
      buildFor("allgather-ring", {}, intra(MpiCall::Allgatherv, {3, 0, 7}));
  ASSERT_TRUE(bool(S)) << err(S.takeError());
  EXPECT_EQ(servesCall(*S, intra(MpiCall::Allgatherv, {3, 0, 7})), "");
  EXPECT_NE(servesCall(*S, intra(MpiCall::Allgatherv, {3, 1, 7})), "");
  EXPECT_NE(servesCall(*S, intra(MpiCall::Bcast, {10, 0, 0})), "");
  // gather-binomial builds MPI_Gatherv: not an allgather.
  std::string E =
      err(buildFor("gather-binomial", {}, intra(MpiCall::Allgather, {4, 4, 4}))
              .takeError());
  EXPECT_NE(E.find("gather-binomial cannot serve MPI_Allgather"),
            std::string::npos)
      << E;
  // half_allgather is an MPI_Allgatherv, but not the intercommunicator's.
  E = err(buildFor("half-allgather-kang", {},
                   inter(MpiCall::Allgather, {4, 4}, {0, 0}))
              .takeError());
  EXPECT_FALSE(E.empty());
  auto K = buildFor("inter-allgatherv-kang", {},
                    inter(MpiCall::Allgatherv, {1, 2, 3}, {4, 0}));
  ASSERT_TRUE(bool(K)) << err(K.takeError());
  EXPECT_TRUE(checkExplicit(*K).proved());
}

TEST(PmpiShape, OwnOpsCompileAlike) {
  auto S = buildFor("allgather-bruck", {},
                    intra(MpiCall::Allgather, {5, 5, 5, 5, 5}));
  ASSERT_TRUE(bool(S));
  for (Rank Me = 0; Me < 5; ++Me) {
    Schedule Mine = onlyRank(*S, Me);
    EXPECT_EQ(Mine.Steps.numSteps(), S->Steps.numSteps());
    auto Whole = compileRankPlan(*S, Me), Part = compileRankPlan(Mine, Me);
    ASSERT_TRUE(Whole && Part);
    EXPECT_EQ(Whole->numTransfers(), Part->numTransfers());
    EXPECT_EQ(Whole->Steps.size(), Part->Steps.size());
  }
  // The digest sees every op.
  Schedule T = *S;
  EXPECT_EQ(scheduleDigest(T), scheduleDigest(*S));
  T.Steps = StepList();
  EXPECT_NE(scheduleDigest(T), scheduleDigest(*S));
}

TEST(PmpiSelection, Choices) {
  auto C = parseChoice("inter-allgather-kang:intra=bruck:exchange=balanced",
                       "CHOREO_X");
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->K, Choice::Algorithm);
  EXPECT_EQ(C->Extra, (std::vector<std::string>{"--intra", "bruck",
                                                "--exchange", "balanced"}));
  EXPECT_EQ(parseChoice("native", "X")->K, Choice::Native);
  EXPECT_EQ(parseChoice("auto", "X")->K, Choice::Auto);
  EXPECT_NE(err(parseChoice("allgather-rign", "CHOREO_ALLGATHER").takeError())
                .find("CHOREO_ALLGATHER: unknown algorithm 'allgather-rign'"),
            std::string::npos);
  EXPECT_NE(err(parseChoice("allgather-ring:intra", "X").takeError())
                .find("is not NAME=VALUE"),
            std::string::npos);
}

TEST(PmpiSelection, RulesFirstMatch) {
  auto J = nlohmann::ordered_json::parse(R"({
    "collective=allgather": {
      "comm_type=inter": {"algorithm=inter-allgather-kang": {}},
      "comm_size=pow2": {"algorithm=allgather-recdbl": {}},
      "avg_msg_size<=1K": {"in_place=yes": {"algorithm=allgather-ring": {}},
                           "algorithm=allgather-bruck": {}},
      "algorithm=native": {}
    },
    "collective=bcast": {"total_msg_size>4096": {"algorithm=bcast-scatter-allgather": {}}},
    "collective=any": {"algorithm=auto": {}}
  })");
  auto R = parseRules(J, "r.json");
  ASSERT_TRUE(bool(R)) << err(R.takeError());
  ASSERT_EQ(R->size(), 7u);
  auto First = [&](const BoundCall &S) -> int {
    for (size_t I = 0; I < R->size(); ++I)
      if (ruleMatches((*R)[I], S))
        return I + 1;
    return 0;
  };
  EXPECT_EQ(First(inter(MpiCall::Allgather, {1}, {1, 1})), 1);
  EXPECT_EQ(First(intra(MpiCall::Allgather, {9, 9, 9, 9})), 2);
  BoundCall Small = intra(MpiCall::Allgather, {9, 9, 9});
  EXPECT_EQ(First(Small), 4);
  Small.InPlace = true;
  EXPECT_EQ(First(Small), 3);
  EXPECT_EQ(First(intra(MpiCall::Allgather, {2000, 2000, 2000})), 5);
  EXPECT_EQ(First(intra(MpiCall::Bcast, {4097, 0, 0})), 6);
  EXPECT_EQ(First(intra(MpiCall::Bcast, {4096, 0, 0})), 7);
  EXPECT_EQ(First(intra(MpiCall::Allgatherv, {1, 2})), 7);
  EXPECT_EQ((*R)[1].Path, "/collective=allgather/comm_size=pow2/"
                          "algorithm=allgather-recdbl");
}

TEST(PmpiSelection, RuleErrorsNameThePath) {
  auto Bad = [](const char *Text) {
    auto R = parseRules(nlohmann::ordered_json::parse(Text), "r.json");
    return R ? std::string() : err(R.takeError());
  };
  EXPECT_NE(Bad(R"({"collective=allgather": {"colour=blue": {}}})")
                .find("r.json: /collective=allgather/colour=blue: unknown "
                      "condition 'colour'"),
            std::string::npos);
  EXPECT_NE(Bad(R"({"comm_size<=lots": {}})").find("/comm_size<=lots"),
            std::string::npos);
  EXPECT_NE(Bad(R"({"in_place<yes": {}})").find("in_place takes '=' only"),
            std::string::npos);
  EXPECT_NE(Bad(R"({"algorithm=nope": {}})").find("unknown algorithm 'nope'"),
            std::string::npos);
  EXPECT_NE(Bad(R"({"comm_size=4": 3})").find("expected an object"),
            std::string::npos);
  EXPECT_NE(Bad(R"({"nonsense": {}})").find("is not a condition"),
            std::string::npos);
}

// Nested conditions: 64 levels are read, 65 are refused naming the
// top-level key and the first key too deep; 20,000 (what crashed every
// rank by recursion) likewise.
TEST(PmpiSelection, NestingIsBounded) {
  auto Nested = [](size_t Depth) {
    std::string T;
    for (size_t I = 0; I < Depth; ++I)
      T += R"({"comm_size>=1": )";
    T += R"({"algorithm=native": {}})";
    return T + std::string(Depth, '}');
  };
  auto R = parseRules(nlohmann::ordered_json::parse(Nested(64)), "r.json");
  ASSERT_TRUE(bool(R)) << err(R.takeError());
  ASSERT_EQ(R->size(), 1u);
  EXPECT_EQ((*R)[0].Conds.size(), 64u);
  for (size_t Depth : {size_t(65), size_t(20000)}) {
    R = parseRules(nlohmann::ordered_json::parse(Nested(Depth)), "r.json");
    ASSERT_FALSE(bool(R));
    EXPECT_EQ(err(R.takeError()),
              "r.json: /comm_size>=1/.../comm_size>=1: conditions nested "
              "deeper than 64 levels");
  }
}

// The file is a regular file of at most 1 MiB: /dev/zero, a directory and
// a larger file are refused naming the path, before anything is read.
TEST(PmpiSelection, FileIsRegularAndBounded) {
  auto Read = [](const std::string &Path) {
    auto R = readRulesFile(Path);
    return R ? std::string() : err(R.takeError());
  };
  EXPECT_EQ(Read("/dev/zero"),
            "CHOREO_SELECTION: /dev/zero is not a regular file");
  std::string Dir = ::testing::TempDir();
  EXPECT_EQ(Read(Dir), "CHOREO_SELECTION: " + Dir + " is not a regular file");
  std::string Missing = Dir + "/pmpi-selection-missing.json";
  EXPECT_EQ(Read(Missing), "CHOREO_SELECTION: cannot open " + Missing +
                               ": No such file or directory");
  // Exactly the limit reads; one byte more does not.
  std::string File = Dir + "/pmpi-selection-big.json";
  std::string Text = R"({"algorithm=native": {}})";
  Text.resize(MaxSelectionFileBytes, ' ');
  for (bool Over : {false, true}) {
    if (Over)
      Text += ' ';
    std::FILE *F = std::fopen(File.c_str(), "wb");
    ASSERT_TRUE(F);
    std::fwrite(Text.data(), 1, Text.size(), F);
    std::fclose(F);
    auto R = readRulesFile(File);
    if (!Over) {
      ASSERT_TRUE(bool(R)) << err(R.takeError());
      EXPECT_EQ(R->size(), 1u);
    } else {
      ASSERT_FALSE(bool(R));
      EXPECT_EQ(err(R.takeError()),
                "CHOREO_SELECTION: " + File +
                    " is 1048577 bytes, larger than the limit of 1048576 "
                    "bytes");
    }
  }
  std::remove(File.c_str());
}

// The Bruck round of the sizes auto runs for an MPI_Alltoallv's parts is
// the radix of its relaying candidate, alltoall-bruck's default 2 (from the
// registry alone: alike on every rank); no other call has one.
TEST(PmpiSelection, AutoRelayRadixIsBrucks) {
  CallHeader H;
  H.Kind = Collective::Alltoallv;
  EXPECT_EQ(autoRelayRadix(H), 2u);
  bool Relays = false;
  for (const Candidate &C : candidatesFor(H, {}))
    Relays |= C.G->id() == "alltoall-bruck";
  EXPECT_TRUE(Relays);
  H.Kind = Collective::Allgather;
  EXPECT_EQ(autoRelayRadix(H), 0u);
}

TEST(PmpiSelection, EnvironmentBeforeRules) {
  SelectionConfig Cfg;
  auto R = parseRules(
      nlohmann::ordered_json::parse(R"({"algorithm=allgather-bruck": {}})"),
      "r.json");
  ASSERT_TRUE(bool(R));
  Cfg.Rules = *R;
  Cfg.RulesFile = "r.json";
  BoundCall S = intra(MpiCall::Allgather, {1, 1});
  EXPECT_EQ(envName(S), "CHOREO_ALLGATHER");
  EXPECT_EQ(envName(inter(MpiCall::Allgatherv, {1}, {1})),
            "CHOREO_ALLGATHERV_INTER");
  ::unsetenv("CHOREO_ALLGATHER");
  auto C = select(S, Cfg);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->Id, "allgather-bruck");
  EXPECT_EQ(C->Why, "rule 1 of r.json (/algorithm=allgather-bruck)");
  ::setenv("CHOREO_ALLGATHER", "allgather-ring", 1);
  C = select(S, Cfg);
  ::unsetenv("CHOREO_ALLGATHER");
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->Id, "allgather-ring");
  EXPECT_EQ(C->Why, "CHOREO_ALLGATHER");
  Cfg.Rules.clear();
  C = select(S, Cfg);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->K, Choice::Auto);
}

TEST(PmpiSelection, AutoPicksTheModelsBest) {
  SelectionConfig Cfg;
  // Latency-bound: Bruck (ceil(log2 7) = 3 steps) beats the ring's 6.
  Cfg.Model.Alpha = 1e-5;
  Cfg.Model.Beta = 1e-12;
  auto A = chooseByModel(intra(MpiCall::Allgather, std::vector<uint64_t>(7, 8)),
                         Cfg);
  ASSERT_TRUE(bool(A));
  EXPECT_EQ(A->Id, "allgather-bruck");
  EXPECT_GE(A->Candidates, 2u);
  EXPECT_TRUE(checkExplicit(A->S).proved());
  // Intergroup: only intergroup generators are candidates.
  A = chooseByModel(inter(MpiCall::Allgather, {64, 64, 64, 64}, {64, 64}), Cfg);
  ASSERT_TRUE(bool(A));
  EXPECT_EQ(llvm::StringRef(A->Id).starts_with("inter-allgather"), true);
  // Gather, scatter, barrier: their own families only (an allgather's
  // generators do not serve a barrier), each proved.
  Cfg.Model.Alpha = 2e-6;
  Cfg.Model.Beta = 1e-9;
  struct Case {
    BoundCall Call;
    const char *Best;
  } Cases[] = {
      {intra(MpiCall::Gather, std::vector<uint64_t>(7, 64), 3),
       "gather-binomial"},
      {intra(MpiCall::Scatter, std::vector<uint64_t>(7, 64), 6),
       "scatter-binomial"},
      // The tree relays the one slice twice, the linear form sends it once.
      {intra(MpiCall::Scatterv, {0, 0, 0, 1000}, 0), "scatter-linear"},
      {intra(MpiCall::Barrier, std::vector<uint64_t>(6, 1)),
       "barrier-dissemination"},
  };
  for (const Case &K : Cases) {
    auto X = chooseByModel(K.Call, Cfg);
    ASSERT_TRUE(bool(X)) << K.Call.describe();
    EXPECT_EQ(X->Id, K.Best) << K.Call.describe();
    EXPECT_EQ(X->Candidates, 3u) << K.Call.describe();
    EXPECT_EQ(X->S.Kind, K.Call.Header.Kind);
    EXPECT_TRUE(checkExplicit(X->S).proved()) << K.Call.describe();
  }
  // An intercommunicator's broadcast and reductions (3 + 2 ranks, the
  // root B's last): their generators, proved.
  for (auto [Call, Best] :
       {std::pair{MpiCall::Bcast, "inter-bcast-root"},
        {MpiCall::Reduce, "inter-reduce-root"},
        {MpiCall::Allreduce, "inter-allreduce-exchange"}}) {
    MpiArgs A;
    A.Call = Call;
    A.Inter = true;
    A.SizesA.assign(3, 0);
    A.SizesB.assign(2, 0);
    A.Bytes = 64;
    A.ElemBytes = 8;
    A.Root = 4;
    A.Commutative = Call != MpiCall::Allreduce;
    auto B = bindCall(A);
    ASSERT_TRUE(bool(B)) << err(B.takeError());
    auto X = chooseByModel(*B, Cfg);
    ASSERT_TRUE(bool(X)) << B->describe();
    EXPECT_EQ(X->Id, Best) << B->describe();
    EXPECT_TRUE(checkExplicit(X->S).proved()) << B->describe();
  }
  // A long intercommunicator allreduce, commutative or not: the Kang form
  // (a reduce-scatter in each group, a swap, an allgather in each group)
  // moves about 2n/p bytes per rank where the exchange's first ranks move
  // n several times.
  for (bool Commutative : {true, false}) {
    MpiArgs A;
    A.Call = MpiCall::Allreduce;
    A.Inter = true;
    A.SizesA.assign(3, 0);
    A.SizesB.assign(2, 0);
    A.Bytes = 65536;
    A.ElemBytes = 8;
    A.Commutative = Commutative;
    auto B = bindCall(A);
    ASSERT_TRUE(bool(B)) << err(B.takeError());
    auto X = chooseByModel(*B, Cfg);
    ASSERT_TRUE(bool(X)) << B->describe();
    EXPECT_EQ(X->Id, "inter-allreduce-kang") << B->describe();
    // The exchange, and the Kang form with its three priced variants
    // (Generator::pricedVariants: Bruck, halving, both).
    EXPECT_EQ(X->Candidates, 5u) << B->describe();
    EXPECT_TRUE(checkExplicit(X->S).proved()) << B->describe();
  }
  // A long intercommunicator reduce, commutative or not: the
  // reduce-scatter and gather (inter-reduce-kang) sends the root n bytes in
  // g pieces where MPICH's form sends it n bytes combined over lg g rounds
  // of n bytes; the root's candidates are the two generators and the Kang
  // form's halving variant.
  for (bool Commutative : {true, false}) {
    MpiArgs A;
    A.Call = MpiCall::Reduce;
    A.Inter = true;
    A.SizesA.assign(4, 0);
    A.SizesB.assign(2, 0);
    A.Bytes = 1 << 20;
    A.ElemBytes = 8;
    A.Root = 5;
    A.Commutative = Commutative;
    auto B = bindCall(A);
    ASSERT_TRUE(bool(B)) << err(B.takeError());
    auto X = chooseByModel(*B, Cfg);
    ASSERT_TRUE(bool(X)) << B->describe();
    EXPECT_EQ(X->Id, "inter-reduce-kang") << B->describe();
    EXPECT_EQ(X->Candidates, 3u) << B->describe();
    EXPECT_TRUE(checkExplicit(X->S).proved()) << B->describe();
  }
  // Nor a reduce_scatter on an intercommunicator: the binding has none.
  auto B = bindCall(interArgs(MpiCall::ReduceScatterBlock, {8}, {8}));
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(err(B.takeError()), "MPI_Reduce_scatter_block on an "
                                "intercommunicator: choreo has no such "
                                "collective");
}

TEST(PmpiShape, RingRankFormIsItsOpsOfTheWhole) {
  for (uint32_t P = 1; P <= 9; ++P)
    for (int Pattern = 0; Pattern < 3; ++Pattern) {
      std::vector<uint64_t> Sizes(P);
      for (uint32_t I = 0; I < P; ++I)
        Sizes[I] = Pattern == 0 ? 16 : Pattern == 1 ? (I * 7) % 5 : 0;
      BoundCall Sh =
          intra(Pattern == 0 ? MpiCall::Allgather : MpiCall::Allgatherv, Sizes);
      auto Whole = buildFor("allgather-ring", {}, Sh);
      ASSERT_TRUE(bool(Whole)) << err(Whole.takeError());
      std::vector<uint64_t> D = rankDigests(*Whole);
      for (Rank Me = 0; Me < P; ++Me) {
        auto Own = buildFor("allgather-ring", {}, Sh, Me);
        ASSERT_TRUE(bool(Own)) << err(Own.takeError());
        EXPECT_LE(Own->Steps.numOps(), 2 * size_t(P));
        EXPECT_EQ(scheduleDigest(onlyRank(*Own, Me)),
                  scheduleDigest(onlyRank(*Whole, Me)))
            << "p " << P << " pattern " << Pattern << " rank " << Me;
        std::vector<uint64_t> E = rankDigests(*Own);
        EXPECT_EQ(E[2 * Me], D[2 * Me]);
        EXPECT_EQ(E[2 * Me + 1], D[2 * Me + 1]);
      }
    }
  // A rank missing one of its ops is caught by the digest.
  auto Whole =
      buildFor("allgather-ring", {}, intra(MpiCall::Allgather, {4, 4, 4}));
  ASSERT_TRUE(bool(Whole));
  Schedule Cut = onlyRank(*Whole, 1);
  Schedule Fewer = Cut;
  Fewer.Steps = StepList();
  for (unsigned I = 0; I < Cut.Steps.numSteps(); ++I) {
    Fewer.Steps.newStep();
    for (const Op &O : Cut.Steps.step(I))
      if (!(I == 1 && O.Dst == 1))
        Fewer.Steps.addOp(O.Src, O.Dst, Cut.Steps.blocks(O));
  }
  EXPECT_NE(rankDigests(Fewer)[2], rankDigests(*Whole)[2]);
  EXPECT_EQ(rankDigests(Cut)[2], rankDigests(*Whole)[2]);
}

namespace {

BoundCall reduction(MpiCall C, std::vector<uint64_t> Sizes, uint64_t Elem,
                    bool Commutative = true, uint32_t Root = 0) {
  MpiArgs A = intraArgs(C, std::move(Sizes), Root);
  A.ElemBytes = Elem;
  A.Commutative = Commutative;
  return llvm::cantFail(bindCall(std::move(A)));
}

} // namespace

TEST(PmpiShape, ReductionArguments) {
  auto Args =
      generatorArgs(*findGenerator("reduce-scatter-ring"),
                    reduction(MpiCall::ReduceScatter, {8, 0, 16}, 4), {});
  ASSERT_TRUE(bool(Args)) << err(Args.takeError());
  EXPECT_EQ(*Args, (std::vector<std::string>{
                       "--p", "3", "--bytes", "24", "--slices", "8,0,16",
                       "--element-bytes", "4", "--op", "commutative"}));
  Args = generatorArgs(*findGenerator("reduce-binary-tree"),
                       reduction(MpiCall::Reduce, {96, 0, 0, 0}, 16, false, 3),
                       {});
  ASSERT_TRUE(bool(Args)) << err(Args.takeError());
  EXPECT_EQ(*Args, (std::vector<std::string>{"--p", "4", "--bytes", "96",
                                             "--element-bytes", "16", "--op",
                                             "noncommutative", "--root", "3"}));
  // A gather generator for a reduction, a reduction generator for a gather.
  EXPECT_NE(err(generatorArgs(*findGenerator("allgather-ring"),
                              reduction(MpiCall::Allreduce, {8, 0}, 4), {})
                    .takeError())
                .find("not an algorithm for MPI_Allreduce"),
            std::string::npos);
  EXPECT_NE(err(generatorArgs(*findGenerator("allreduce-ring"),
                              intra(MpiCall::Allgather, {8, 8}), {})
                    .takeError())
                .find("not an algorithm for MPI_Allgather"),
            std::string::npos);
}

TEST(PmpiShape, ReductionsServeTheirCall) {
  BoundCall RS = reduction(MpiCall::ReduceScatter, {8, 0, 16}, 4);
  auto S = buildFor("reduce-scatter-ring", {}, RS);
  ASSERT_TRUE(bool(S)) << err(S.takeError());
  EXPECT_TRUE(checkExplicit(*S).proved());
  EXPECT_EQ(servesCall(*S, RS), "");
  // MPI_Reduce_scatter_block is a reduce_scatter of equal slices.
  BoundCall Blk = reduction(MpiCall::ReduceScatterBlock, {8, 8, 8}, 4);
  EXPECT_NE(servesCall(*S, Blk), "");
  auto SB = buildFor("reduce-scatter-ring", {}, Blk);
  ASSERT_TRUE(bool(SB)) << err(SB.takeError());
  EXPECT_EQ(servesCall(*SB, Blk), "");
  EXPECT_NE(servesCall(*SB, reduction(MpiCall::Allreduce, {24, 0, 0}, 4)), "");
  // The root is the call's.
  auto R = buildFor("reduce-binary-tree", {},
                    reduction(MpiCall::Reduce, {40, 0, 0, 0, 0}, 8, true, 2));
  ASSERT_TRUE(bool(R)) << err(R.takeError());
  EXPECT_EQ(*R->Root, 2u);
  EXPECT_NE(
      servesCall(*R, reduction(MpiCall::Reduce, {40, 0, 0, 0, 0}, 8, true, 1)),
      "");
  // A non-commutative operator: the ring refuses it, a schedule proved for
  // a commutative operator does not serve it, an order-keeping one does.
  BoundCall NC = reduction(MpiCall::Allreduce, {64, 0, 0, 0, 0, 0}, 16, false);
  std::string E = err(buildFor("allreduce-ring", {}, NC).takeError());
  EXPECT_NE(E.find("cannot keep rank order"), std::string::npos) << E;
  auto Comm = buildFor("allreduce-recursive-doubling", {},
                       reduction(MpiCall::Allreduce, {64, 0, 0, 0, 0, 0}, 16));
  ASSERT_TRUE(bool(Comm));
  EXPECT_NE(servesCall(*Comm, NC), "");
  auto Ordered = buildFor("allreduce-recursive-doubling", {}, NC);
  ASSERT_TRUE(bool(Ordered)) << err(Ordered.takeError());
  EXPECT_FALSE(Ordered->commutative());
  EXPECT_TRUE(checkExplicit(*Ordered).proved());
}

TEST(PmpiSelection, AutoForReductions) {
  SelectionConfig Cfg;
  for (MpiCall C : {MpiCall::Reduce, MpiCall::Allreduce, MpiCall::ReduceScatter,
                    MpiCall::ReduceScatterBlock})
    for (bool Commutative : {true, false}) {
      std::vector<uint64_t> Sizes = {4096, 0, 0, 0, 0, 0};
      if (C == MpiCall::ReduceScatter || C == MpiCall::ReduceScatterBlock)
        Sizes = {16, 16, 16, 16, 16, 16};
      auto A = chooseByModel(reduction(C, Sizes, 16, Commutative, 1), Cfg);
      ASSERT_TRUE(bool(A)) << bindingOf(C).Name << " " << err(A.takeError());
      EXPECT_GE(A->Candidates, Commutative ? 2u : 1u) << bindingOf(C).Name;
      EXPECT_EQ(A->S.commutative(), Commutative) << A->Id;
      EXPECT_TRUE(checkExplicit(A->S).proved()) << A->Id;
    }
  // The rules see commutativity.
  auto Rules = parseRules(nlohmann::ordered_json::parse(R"({
      "collective=allreduce": {"is_commutative=yes":
          {"algorithm=allreduce-ring": {}},
        "is_commutative=no": {"algorithm=allreduce-binary-tree": {}}}})"),
                          "r.json");
  ASSERT_TRUE(bool(Rules));
  Cfg.Rules = *Rules;
  auto C = select(reduction(MpiCall::Allreduce, {64, 0}, 8, false), Cfg);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->Id, "allreduce-binary-tree");
  C = select(reduction(MpiCall::Allreduce, {64, 0}, 8, true), Cfg);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->Id, "allreduce-ring");
}

TEST(PmpiShape, KangRankFormIsItsOpsOfTheWhole) {
  for (uint32_t P = 1; P <= 6; ++P)
    for (uint32_t Q = 1; Q <= 6; ++Q)
      for (int Pattern = 0; Pattern < 3; ++Pattern) {
        std::vector<uint64_t> A(P), B(Q);
        for (uint32_t I = 0; I < P; ++I)
          A[I] = Pattern == 0 ? 12 : Pattern == 1 ? (I * 5) % 4 : 0;
        for (uint32_t J = 0; J < Q; ++J)
          B[J] = Pattern == 0 ? 7 : Pattern == 1 ? (J * 3) % 5 : 0;
        BoundCall Sh = inter(
            Pattern == 0 ? MpiCall::Allgather : MpiCall::Allgatherv, A, B);
        auto Whole = buildFor("inter-allgather-kang", {}, Sh);
        ASSERT_TRUE(bool(Whole)) << err(Whole.takeError());
        std::vector<uint64_t> D = rankDigests(*Whole);
        bool Listing = std::max(P, Q) % std::min(P, Q) == 0;
        for (Rank Me = 0; Me < P + Q; ++Me) {
          auto Own = buildFor("inter-allgather-kang", {}, Sh, Me);
          ASSERT_TRUE(bool(Own)) << err(Own.takeError());
          // The listing's rank form: the rank's exchange ops and its ring's.
          if (Listing)
            EXPECT_LE(Own->Steps.numOps(), 2 * size_t(P + Q));
          EXPECT_EQ(Own->Steps.numSteps(), Whole->Steps.numSteps());
          EXPECT_EQ(scheduleDigest(onlyRank(*Own, Me)),
                    scheduleDigest(onlyRank(*Whole, Me)))
              << "p " << P << " q " << Q << " pattern " << Pattern << " rank "
              << Me;
          std::vector<uint64_t> E = rankDigests(*Own);
          EXPECT_EQ(E[2 * Me], D[2 * Me]);
          EXPECT_EQ(E[2 * Me + 1], D[2 * Me + 1]);
        }
      }
}

TEST(PmpiShape, DigestSeesTheOperator) {
  // The same ops proved for a commutative and for a non-commutative
  // operator are different verdicts: the digests differ.
  auto C = buildFor("allreduce-recursive-doubling", {},
                    reduction(MpiCall::Allreduce, {64, 0, 0, 0}, 16, true));
  auto N = buildFor("allreduce-recursive-doubling", {},
                    reduction(MpiCall::Allreduce, {64, 0, 0, 0}, 16, false));
  ASSERT_TRUE(bool(C) && bool(N));
  Schedule Flipped = *N;
  Flipped.ReduceOp = ReductionOp{true};
  EXPECT_NE(scheduleDigest(Flipped), scheduleDigest(*N));
  EXPECT_EQ(scheduleDigest(*C), scheduleDigest(*C));
}
