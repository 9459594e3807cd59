//===- tests/unit/DifferentialTest.cpp - Explicit vs SMT engine -----------===//
///
/// \file
/// The two engines must agree — same verdict, same diagnostics — on every
/// test schedule and on random mutations of them: ops moved, dropped,
/// duplicated and re-targeted, blocks shrunk and shifted, contributor sets
/// changed, the last step dropped.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "verifier/smt/Smt.h"

#include <random>

using namespace choreo;
using namespace choreo::test;

namespace {

struct OpRec {
  Rank Src, Dst;
  std::vector<Block> Blocks;
  std::vector<RankSet> Contribs; // per block, for reductions
};
using Steps = std::vector<std::vector<OpRec>>;

Steps unpack(const Schedule &S) {
  Steps Out(S.Steps.numSteps());
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St)
    for (const Op &O : S.Steps.step(St)) {
      OpRec R{O.Src, O.Dst, {}, {}};
      for (const Block &B : S.Steps.blocks(O)) {
        R.Blocks.push_back(B);
        R.Contribs.push_back(B.hasContrib() ? S.Steps.contrib(B.Contrib)
                                            : RankSet());
      }
      Out[St].push_back(R);
    }
  return Out;
}

void pack(Schedule &S, const Steps &In) {
  StepList L;
  for (const auto &Ops : In) {
    L.newStep();
    for (const OpRec &R : Ops) {
      std::vector<Block> Bs = R.Blocks;
      for (size_t K = 0; K < Bs.size(); ++K)
        if (Bs[K].hasContrib())
          Bs[K].Contrib = L.addContrib(R.Contribs[K]);
      L.addOp(R.Src, R.Dst, Bs);
    }
  }
  S.Steps = std::move(L);
}

std::string describe(const VerifyResult &R) {
  std::string S = std::to_string(int(R.St)) + ":";
  for (const Diagnostic &D : R.Diags) {
    S += " [" + D.Kind + "] " + D.Message;
    for (const std::string &N : D.Notes)
      S += " {" + N + "}";
  }
  return S;
}

void expectAgree(const Schedule &S, const std::string &What) {
  VerifyResult E = checkExplicit(S);
  VerifyResult Z = checkSmt(S);
  ASSERT_NE(Z.St, VerifyResult::Status::Unknown) << What << ": " << describe(Z);
  EXPECT_EQ(describe(E), describe(Z)) << What;
}

Schedule reduction(const char *Json) {
  auto S = parseSchedule(Json);
  EXPECT_TRUE(bool(S)) << llvm::toString(S.takeError());
  return S ? std::move(*S) : Schedule();
}

std::vector<std::pair<std::string, Schedule>> corpus() {
  std::vector<std::pair<std::string, Schedule>> C;
  auto Add = [&](const char *Algo, const char *Args) {
    C.push_back({std::string(Algo) + " " + Args, gen(Algo, Args)});
  };
  Add("allgather-ring", "--p 4 --bytes 3 --topology ring");
  Add("allgather-bruck", "--p 5 --counts 2,0,3,1,4");
  Add("allgather-recdbl", "--p 4 --bytes 2");
  Add("gather-binomial", "--p 5 --bytes 2 --root 3");
  Add("bcast-binomial", "--p 5 --bytes 6 --root 2");
  Add("bcast-scatter-allgather", "--p 6 --bytes 13 --intra bruck");
  Add("inter-allgather-kang", "--p 4 --q 3 --bytes-a 3 --bytes-b 5");
  Add("inter-allgather-root", "--p 3 --q 2 --bytes-a 2 --bytes-b 3");
  Add("inter-allgatherv-kang", "--p 4 --q 2 --counts-a 1,0,3,2 --counts-b 4,1");
  Add("inter-allgatherv-root", "--p 3 --q 2 --counts-a 1,2,0 --counts-b 2,2");
  Add("half-allgather-kang", "--p 2 --q 5 --bytes-a 4");
  Add("half-allgather-root", "--p 3 --q 3 --bytes-a 2");
  Add("half-allgather-ring", "--p 3 --q 4 --bytes-a 2");
  Add("half-allgather-ring", "--p 4 --q 3 --bytes-a 1");
  Schedule NoDuplex = gen("allgather-ring", "--p 3 --bytes 2");
  NoDuplex.Port.Duplex = false;
  C.push_back({"allgather-ring, not duplex", NoDuplex});
  Schedule TwoPorts = gen("allgather-bruck", "--p 4 --bytes 2");
  TwoPorts.Port.Send = 2;
  C.push_back({"allgather-bruck, two send ports", TwoPorts});
  C.push_back({"allreduce by recursive doubling", reduction(R"({
    "format": "choreo-schedule", "version": 1, "collective": "allreduce",
    "ranks": 4, "groups": {"all": [0, 1, 2, 3]}, "sizes": {"all": [8]},
    "steps": [
      {"ops": [
        {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 1]], "reduce": true}]},
        {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[1, 2]], "reduce": true}]},
        {"src": 2, "dst": 3, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[2, 3]], "reduce": true}]},
        {"src": 3, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[3, 4]], "reduce": true}]}]},
      {"ops": [
        {"src": 0, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 2]], "reduce": true}]},
        {"src": 2, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[2, 4]], "reduce": true}]},
        {"src": 1, "dst": 3, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[0, 2]], "reduce": true}]},
        {"src": 3, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[2, 4]], "reduce": true}]}]}]})")});
  C.push_back({"reduce-scatter then allgather", reduction(R"({
    "format": "choreo-schedule", "version": 1, "collective": "allreduce",
    "ranks": 2, "groups": {"all": [0, 1]}, "sizes": {"all": [8]},
    "steps": [
      {"ops": [
        {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 4, "hi": 8, "contrib": [[0, 1]], "reduce": true}]},
        {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 4, "contrib": [[1, 2]], "reduce": true}]}]},
      {"ops": [
        {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 4, "contrib": [[0, 2]]}]},
        {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 4, "hi": 8, "contrib": [[0, 2]]}]}]}]})")});
  C.push_back({"reduce to a root", reduction(R"({
    "format": "choreo-schedule", "version": 1, "collective": "reduce",
    "ranks": 3, "root": 0, "groups": {"all": [0, 1, 2]}, "sizes": {"all": [4]},
    "steps": [
      {"ops": [{"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 4, "contrib": [[1, 2]], "reduce": true}]}]},
      {"ops": [{"src": 2, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 4, "contrib": [[2, 3]], "reduce": true}]}]}]})")});
  return C;
}

} // namespace

TEST(Differential, EnginesAgreeOnTheCorpus) {
  for (auto &[What, S] : corpus()) {
    expectAgree(S, What);
    // A ring allgather sends and receives in every step: not duplex fails.
    bool Expected = What != "allgather-ring, not duplex";
    EXPECT_EQ(checkSmt(S).proved(), Expected) << What;
  }
}

TEST(Differential, EnginesAgreeOnRandomMutations) {
  std::mt19937 Rng(2026);
  auto Pick = [&](size_t N) { return N ? size_t(Rng() % N) : 0; };
  unsigned Mutations = 0, Failing = 0;
  std::vector<std::pair<std::string, Schedule>> C = corpus();
  while (Mutations < 1200) {
    auto &[What, Base] = C[Pick(C.size())];
    Steps St = unpack(Base);
    if (St.empty())
      continue;
    Schedule S = Base;
    std::string How;
    unsigned Kind = Rng() % 8;
    size_t A = Pick(St.size());
    if (St[A].empty())
      continue;
    size_t I = Pick(St[A].size());
    OpRec &O = St[A][I];
    Block &B = O.Blocks[Pick(O.Blocks.size())];
    switch (Kind) {
    case 0:
      How = "drop an op";
      St[A].erase(St[A].begin() + I);
      break;
    case 1: {
      How = "duplicate an op";
      OpRec Copy = O;
      St[Pick(St.size())].push_back(Copy);
      break;
    }
    case 2: {
      How = "move an op";
      OpRec Copy = O;
      St[A].erase(St[A].begin() + I);
      St[Pick(St.size())].push_back(Copy);
      break;
    }
    case 3:
      How = "re-target an op";
      (Rng() % 2 ? O.Dst : O.Src) = Pick(S.NumRanks);
      break;
    case 4:
      How = "shrink a block";
      (Rng() % 2 ? B.Lo : B.Hi) += Rng() % 2 ? 1 : -1;
      break;
    case 5: {
      How = "shift a block";
      uint64_t D = 1 + Rng() % 3;
      if (Rng() % 2) {
        B.Lo += D;
        B.Hi += D;
      } else if (B.Lo >= D) {
        B.Lo -= D;
        B.Hi -= D;
      }
      break;
    }
    case 6:
      How = "drop the last step";
      St.pop_back();
      break;
    case 7:
      How = "change a contributor set or the reduce flag";
      if (!B.hasContrib())
        continue;
      if (Rng() % 2)
        B.Reduce = !B.Reduce;
      else
        O.Contribs[&B - O.Blocks.data()] =
            RankSet(Pick(S.NumRanks), S.NumRanks);
      break;
    }
    pack(S, St);
    ++Mutations;
    VerifyResult E = checkExplicit(S);
    Failing += !E.proved();
    expectAgree(S, What + ", " + How);
    if (HasFailure())
      break;
  }
  // The mutations must exercise the failure paths, not only proofs.
  EXPECT_GT(Failing, Mutations / 2);
}
