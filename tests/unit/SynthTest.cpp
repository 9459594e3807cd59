//===- tests/unit/SynthTest.cpp - Synthesis against known optima
//-----------===//
///
/// \file
/// verifier/smt/Synth.h on small instances: every schedule it returns is
/// proved by the explicit engine and has the steps asked; its optima equal
/// optima known without it (the ring half-allgather family
/// half-allgather-ring-opt for every p, q <= 6, ceil(log2 p) for a
/// broadcast, p - 1 for a gather, ceil(log2 p) for a reduce and for an
/// allreduce of a power of two), with Z3 answering unsat one step below;
/// node sharing costs steps the flat instance does not need, and the
/// schedule carries its nodes; a schedule of the upper bound's steps always
/// exists, encodings past the variable limit are not asked; and it refuses
/// what it cannot synthesise.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "verifier/Verifier.h"
#include "verifier/smt/Synth.h"
#include "verifier/smt/SynthEncoding.h"

#include "llvm/Support/FormatVariadic.h"

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

TEST(Synth, ReduceAndAllreduceTakeLog2P) {
  for (unsigned P = 2; P <= 8; ++P) {
    unsigned Log = 0;
    while ((1u << Log) < P)
      ++Log;
    SynthRequest R;
    R.Kind = Collective::Reduce;
    R.P = P;
    R.Root = P / 2;
    EXPECT_EQ(optimum(R), Log) << "reduce p=" << P;
    if ((P & (P - 1)) == 0) {
      R.Kind = Collective::Allreduce;
      R.Root = 0;
      EXPECT_EQ(optimum(R), Log) << "allreduce p=" << P;
    }
  }
}

TEST(Synth, NodeSharingCostsSteps) {
  // Allgather of 2k ranks, two ports each: ceil((2k - 1) / 2) steps flat;
  // on k nodes of two ranks every node takes in 2k - 2 units one per step,
  // and the last must still reach the node's other rank: 2k - 1.
  for (unsigned K = 2; K <= 3; ++K) {
    SynthRequest R;
    R.Kind = Collective::Allgather;
    R.P = 2 * K;
    R.Port = {2, 2, true};
    EXPECT_EQ(optimum(R), K) << "flat p=" << R.P;
    R.Nodes.emplace();
    for (Rank X = 0; X < R.P; X += 2)
      R.Nodes->push_back({X, X + 1});
    EXPECT_EQ(optimum(R), 2 * K - 1) << "nodes p=" << R.P;
    auto H = synthInstance(R);
    ASSERT_TRUE(bool(H));
    auto S = synthesize(*H, 2 * K - 1);
    ASSERT_TRUE(bool(S));
    ASSERT_TRUE(S->Found);
    EXPECT_EQ(S->Found->Nodes, R.Nodes);
    EXPECT_TRUE(checkExplicit(*S->Found).proved());
    // A flat optimum placed on the nodes breaks their ports.
    SynthRequest Flat = R;
    Flat.Nodes.reset();
    auto FH = synthInstance(Flat);
    ASSERT_TRUE(bool(FH));
    auto F = synthesize(*FH, K);
    ASSERT_TRUE(bool(F));
    ASSERT_TRUE(F->Found);
    Schedule Placed = *F->Found;
    Placed.Nodes = R.Nodes;
    EXPECT_FALSE(checkExplicit(Placed).proved());
  }
}

TEST(Synth, Refusals) {
  SynthRequest R;
  R.Kind = Collective::Allreduce;
  R.P = 4;
  R.Port = {1, 2, true};
  auto E = synthInstance(R);
  ASSERT_FALSE(bool(E));
  EXPECT_NE(llvm::toString(E.takeError()).find("one receive port"),
            std::string::npos);
  R.Port = {};
  R.Nodes = std::vector<std::vector<Rank>>{{0, 1}, {1, 2, 3}};
  auto N = synthInstance(R);
  ASSERT_FALSE(bool(N));
  EXPECT_NE(llvm::toString(N.takeError()).find("/nodes"), std::string::npos);
  R.Nodes.reset();
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

// The upper bound (issue 30, item 7: `--steps 1000000` encoded every step
// and ran out of memory): one op per step always makes a schedule, so a
// question from the bound on is answered by that schedule, without Z3, for
// every collective, topology, chunking and node layout; and Z3 finds one
// at the bound too.
TEST(Synth, TheUpperBoundIsAlwaysSat) {
  const Collective Kinds[] = {
      Collective::Allgather,     Collective::Allgatherv,
      Collective::Bcast,         Collective::Gather,
      Collective::HalfAllgather, Collective::InterAllgather,
      Collective::Reduce,        Collective::Allreduce,
      Collective::ReduceScatter};
  unsigned Cases = 0;
  for (Collective K : Kinds)
    for (unsigned N = 1; N <= 5; ++N)
      for (bool Ring : {false, true})
        for (unsigned Chunks : {1u, 2u}) {
          const CollectiveSpec &Spec = specOf(K);
          bool Reduction = Spec.isReduction();
          if (Reduction && Chunks * N > 8)
            continue;
          SynthRequest R;
          R.Kind = K;
          R.P = Spec.Intergroup ? (N + 1) / 2 : N;
          R.Q = Spec.Intergroup ? N / 2 + 1 : 0;
          R.Root = Spec.Rooted ? N - 1 : 0;
          R.Chunks = Chunks;
          R.Topo = Ring ? Topology::ring() : Topology::full();
          if (R.P + R.Q == 4 && !Ring)
            R.Nodes = std::vector<std::vector<Rank>>{{0, 2}, {1, 3}};
          auto H = synthInstance(R);
          ASSERT_TRUE(bool(H)) << llvm::toString(H.takeError());
          auto Res = synthesize(*H, 1u << 31);
          ASSERT_TRUE(bool(Res)) << llvm::toString(Res.takeError());
          SCOPED_TRACE(llvm::formatv("{0} n = {1} ring {2} chunks {3}",
                                     Spec.Name, N, Ring, Chunks)
                           .str());
          EXPECT_LE(Res->LowerBound, Res->UpperBound);
          ASSERT_EQ(Res->Queries.size(), 1u);
          EXPECT_EQ(Res->Queries[0].Steps, Res->UpperBound);
          ASSERT_TRUE(Res->Found.has_value());
          EXPECT_TRUE(checkExplicit(*Res->Found).proved());
          EXPECT_EQ(Res->Found->Steps.numSteps(), Res->UpperBound);
          EXPECT_EQ(Res->Variables, 0u);
          // Z3 at the bound (small instances: it is slow where the bound
          // is far above the optimum).
          if (Res->UpperBound > 0 && Res->UpperBound <= 8) {
            auto Z = synthesizeMin(*H, Res->UpperBound, Res->UpperBound);
            ASSERT_TRUE(bool(Z)) << llvm::toString(Z.takeError());
            EXPECT_TRUE(Z->Found.has_value());
          }
          ++Cases;
        }
  EXPECT_GT(Cases, 100u);
}

// An encoding past the variable limit is refused before anything is
// encoded (--steps), or ends --minimize's search as unknown, not asked.
TEST(Synth, EncodingsPastTheLimitAreNotAsked) {
  SynthRequest R;
  R.Kind = Collective::Allgather;
  R.P = 4;
  auto H = synthInstance(R);
  ASSERT_TRUE(bool(H));
  auto I = synth::analyse(*H);
  ASSERT_TRUE(bool(I));
  const uint64_t PerStep = synth::variablesPerStep(*I);
  SynthOptions O;
  // The optimum is 3 steps (each rank receives 3 units, one per step):
  // --minimize asks 2 (unsat), then 3, which is over this limit.
  O.MaxVariables = 2 * PerStep;
  auto Min = synthesizeMin(*H, 0, 40, O);
  ASSERT_TRUE(bool(Min)) << llvm::toString(Min.takeError());
  ASSERT_EQ(Min->Queries.size(), 2u);
  EXPECT_EQ(Min->Queries[0].A, SynthQuery::Answer::Unsat);
  EXPECT_EQ(Min->Queries[1].Steps, 3u);
  EXPECT_EQ(Min->Queries[1].A, SynthQuery::Answer::Unknown);
  EXPECT_EQ(Min->Queries[1].Why.rfind("not asked: the encoding of 3 steps", 0),
            0u)
      << Min->Queries[1].Why;
  EXPECT_FALSE(Min->Found.has_value());
  auto Steps = synthesize(*H, 3, O);
  ASSERT_FALSE(bool(Steps));
  EXPECT_EQ(llvm::toString(Steps.takeError())
                .rfind("--steps 3: the encoding of 3 steps has up to", 0),
            0u);
  O.MaxVariables = 1;
  auto First = synthesizeMin(*H, 0, 40, O);
  ASSERT_FALSE(bool(First));
  EXPECT_EQ(llvm::toString(First.takeError()).rfind("--minimize: ", 0), 0u);
}
