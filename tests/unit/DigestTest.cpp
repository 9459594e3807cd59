//===- tests/unit/DigestTest.cpp - The one digest of a schedule -----------===//
///
/// \file
/// ir/Digest.h: the steps' digest the reader streams equals the one computed
/// from the step list (JSON and CBOR, read whole or only one rank's ops);
/// every header field and every op, block and contributor set changes the
/// digest; the algorithm's name and params do not.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "ir/Digest.h"
#include "ir/ScheduleIO.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::test;

namespace {

std::string write(const Schedule &S, FileFormat F) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeSchedule(S, OS, F);
  return Text;
}

const std::pair<const char *, const char *> Cases[] = {
    {"inter-allgather-kang", "--p 6 --q 4 --bytes-a 10 --bytes-b 7"},
    {"allgather-ring", "--p 5 --counts 3,0,7,1,2 --topology ring"},
    {"bcast-binomial", "--p 7 --bytes 1000 --root 3"},
    {"allreduce-halving-doubling",
     "--p 13 --bytes 4800 --element-bytes 16 --op noncommutative"},
    {"reduce-scatter-ring", "--p 5 --bytes 64 --slices 8,8,8,8,32"},
};

TEST(Digest, ReadEqualsBuilt) {
  for (auto [Algo, Args] : Cases) {
    Schedule S = gen(Algo, Args);
    Digest128 Built = scheduleDigest(S);
    EXPECT_FALSE(S.StepsDigest);
    for (FileFormat F : {FileFormat::Json, FileFormat::Cbor}) {
      auto R = parseSchedule(write(S, F));
      ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
      ASSERT_TRUE(R->StepsDigest);
      EXPECT_EQ(*R->StepsDigest, stepsDigest(S, S.Steps)) << Algo;
      EXPECT_EQ(scheduleDigest(*R), Built) << Algo;
      // A rank that keeps only its own ops knows the whole digest.
      for (Rank Me : {Rank(0), Rank(S.NumRanks - 1)}) {
        ReadOptions O;
        O.OnlyRank = Me;
        auto Own = parseSchedule(write(S, F), O);
        ASSERT_TRUE(bool(Own)) << llvm::toString(Own.takeError());
        EXPECT_LE(Own->Steps.numOps(), S.Steps.numOps());
        EXPECT_EQ(scheduleDigest(*Own), Built) << Algo << " rank " << Me;
        EXPECT_EQ(sharedDigest(*Own), sharedDigest(*R)) << Algo;
        EXPECT_EQ(scheduleDigest(onlyRank(*R, Me)), Built) << Algo;
      }
    }
  }
}

TEST(Digest, EveryHeaderFieldCounts) {
  Schedule S = gen("allgather-ring", "--p 5 --counts 3,0,7,1,2");
  Digest128 D = scheduleDigest(S);
  std::vector<std::function<void(Schedule &)>> Changes = {
      [](Schedule &T) { T.Kind = Collective::Gather; },
      [](Schedule &T) { T.Root = 0; },
      [](Schedule &T) { T.Topo = Topology::ring(); },
      [](Schedule &T) { T.Topo = Topology::ring({0, 2, 1, 3, 4}); },
      [](Schedule &T) {
        T.Topo.K = Topology::Kind::Graph;
        T.Topo.Edges = {{0, 1}};
      },
      [](Schedule &T) { T.Port.Send = 2; },
      [](Schedule &T) { T.Port.Recv = 2; },
      [](Schedule &T) { T.Port.Duplex = false; },
      [](Schedule &T) { T.Groups[0].Members[0] = 9; },
      [](Schedule &T) { T.Sizes[0].Values[1] = 1; },
      [](Schedule &T) { T.Nodes = {{{0, 1, 2}, {3, 4}}}; },
      [](Schedule &T) { T.NodePort = NodePorts{2, 1}; },
      [](Schedule &T) { T.ReduceOp = ReductionOp{false}; },
      [](Schedule &T) { T.Steps.newStep(); },
  };
  for (size_t I = 0; I < Changes.size(); ++I) {
    Schedule T = S;
    Changes[I](T);
    EXPECT_NE(scheduleDigest(T), D) << "change " << I;
  }
  Schedule Named = S;
  Named.Algorithm = "another";
  Named.Params.json() = nlohmann::ordered_json::object({{"p", 1}});
  EXPECT_EQ(scheduleDigest(Named), D);
}

TEST(Digest, EveryBlockCounts) {
  Schedule S = gen("allreduce-ring", "--p 4 --bytes 64");
  Digest128 D = scheduleDigest(S);
  ASSERT_GT(S.Steps.numOps(), 0u);
  // Rebuild the steps with one field of one block changed at a time.
  auto Rebuilt = [&](int Field) {
    Schedule T = S;
    T.Steps = StepList();
    bool Done = false;
    for (unsigned I = 0; I < S.Steps.numSteps(); ++I) {
      T.Steps.newStep();
      for (const Op &O : S.Steps.step(I)) {
        std::vector<Block> Bs(S.Steps.blocks(O).begin(),
                              S.Steps.blocks(O).end());
        for (Block &B : Bs) {
          if (B.hasContrib())
            B.Contrib = T.Steps.addContrib(S.Steps.contrib(B.Contrib));
          if (!Done && I == S.Steps.numSteps() - 1) {
            Done = true;
            if (Field == 0)
              B.Hi -= 1;
            if (Field == 1)
              B.Reduce = !B.Reduce;
            if (Field == 2) {
              IntervalSet C = S.Steps.contrib(S.Steps.blocks(O)[0].Contrib);
              C.insert(100, 101);
              B.Contrib = T.Steps.addContrib(C);
            }
          }
        }
        T.Steps.addOp(Field == 3 && !Done ? O.Dst : O.Src,
                      Field == 3 && !Done ? O.Src : O.Dst, Bs);
        if (Field == 3)
          Done = true;
      }
    }
    return T;
  };
  EXPECT_EQ(scheduleDigest(Rebuilt(-1)), D);
  for (int F = 0; F < 4; ++F)
    EXPECT_NE(scheduleDigest(Rebuilt(F)), D) << "field " << F;
}

} // namespace
