//===- tests/unit/SynthTest.cpp - Synthesis against known optima -----------===//
///
/// \file
/// verifier/smt/Synth.h on small instances: every schedule it returns is
/// proved by the explicit engine and has the steps asked; its optima equal
/// optima known without it (the ring half-allgather family
/// half-allgather-ring-opt for every p, q <= 6, ceil(log2 p) for a
/// broadcast, p - 1 for a gather), with Z3 answering unsat one step below;
/// and it refuses what it cannot synthesise.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "verifier/smt/Synth.h"
#include "verifier/Verifier.h"

using namespace choreo;
using namespace choreo::test;

namespace {

/// The optimum by --minimize, checked: found, proved, T - 1 unsat.
unsigned optimum(const SynthRequest &R) {
  auto H = synthInstance(R);
  EXPECT_TRUE(bool(H)) << llvm::toString(H.takeError());
  if (!H)
    return 0;
  auto Res = synthesizeMin(*H, 0, 40);
  EXPECT_TRUE(bool(Res)) << llvm::toString(Res.takeError());
  if (!Res || !Res->Found) {
    ADD_FAILURE() << "no schedule";
    return 0;
  }
  const SynthQuery &Last = Res->Queries.back();
  EXPECT_EQ(Last.A, SynthQuery::Answer::Sat);
  EXPECT_TRUE(checkExplicit(*Res->Found).proved());
  EXPECT_LE(Res->Found->Steps.numSteps(), Last.Steps);
  EXPECT_GE(Res->Queries.size(), 2u);
  if (Res->Queries.size() >= 2) {
    const SynthQuery &Before = Res->Queries[Res->Queries.size() - 2];
    EXPECT_EQ(Before.A, SynthQuery::Answer::Unsat);
    EXPECT_EQ(Before.Steps + 1, Last.Steps);
  }
  EXPECT_LE(Res->LowerBound, Last.Steps);
  return Last.Steps;
}

} // namespace

TEST(Synth, RingHalfAllgatherOptimumIsTheFamilyUpTo6) {
  for (unsigned P = 1; P <= 6; ++P)
    for (unsigned Q = 1; Q <= 6; ++Q) {
      SynthRequest R;
      R.Kind = Collective::HalfAllgather;
      R.P = P;
      R.Q = Q;
      R.Topo = Topology::ring();
      Schedule G = gen("half-allgather-ring-opt",
                       "--p " + std::to_string(P) + " --q " +
                           std::to_string(Q) + " --bytes-a 1");
      EXPECT_EQ(optimum(R), G.Steps.numSteps()) << "p=" << P << " q=" << Q;
    }
}

TEST(Synth, BroadcastAndGatherOnTheFullGraph) {
  for (unsigned P = 2; P <= 9; ++P) {
    SynthRequest B;
    B.Kind = Collective::Bcast;
    B.P = P;
    B.Root = P - 1;
    unsigned Log = 0;
    while ((1u << Log) < P)
      ++Log;
    EXPECT_EQ(optimum(B), Log) << "bcast p=" << P;
    SynthRequest G;
    G.Kind = Collective::Gather;
    G.P = P;
    G.Root = 1;
    EXPECT_EQ(optimum(G), P - 1) << "gather p=" << P;
  }
}

TEST(Synth, StepsBelowTheOptimumAreUnsatAndAtItSat) {
  SynthRequest R;
  R.Kind = Collective::Allgather;
  R.P = 6;
  R.Topo = Topology::ring();
  auto H = synthInstance(R);
  ASSERT_TRUE(bool(H));
  auto No = synthesize(*H, 4);
  ASSERT_TRUE(bool(No));
  EXPECT_EQ(No->Queries.back().A, SynthQuery::Answer::Unsat);
  EXPECT_FALSE(No->Found);
  auto Yes = synthesize(*H, 5);
  ASSERT_TRUE(bool(Yes));
  ASSERT_TRUE(Yes->Found);
  EXPECT_EQ(Yes->Found->Steps.numSteps(), 5u);
  EXPECT_TRUE(checkExplicit(*Yes->Found).proved());
}

TEST(Synth, Refusals) {
  SynthRequest R;
  R.Kind = Collective::Allreduce;
  R.P = 4;
  auto E = synthInstance(R);
  ASSERT_FALSE(bool(E));
  EXPECT_NE(llvm::toString(E.takeError()).find("not reductions"),
            std::string::npos);
  R.Kind = Collective::Bcast;
  R.Root = 9;
  auto F = synthInstance(R);
  ASSERT_FALSE(bool(F));
  EXPECT_NE(llvm::toString(F.takeError()).find("--root"), std::string::npos);
  R.Root = 0;
  R.Topo.K = Topology::Kind::Graph;
  R.Topo.Edges = {{0, 1}, {2, 3}};
  auto H = synthInstance(R);
  ASSERT_TRUE(bool(H));
  auto S = synthesize(*H, 3);
  ASSERT_FALSE(bool(S));
  EXPECT_NE(llvm::toString(S.takeError()).find("no path"), std::string::npos);
}
