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

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <optional>
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
  Add("scatter-binomial", "--p 6 --counts 3,0,5,1,0,2 --root 4");
  Add("scatter-linear", "--p 4 --bytes 2 --root 1");
  Add("gather-linear", "--p 4 --counts 1,0,2,3 --root 2");
  Add("barrier-dissemination", "--p 5 --radix 3");
  Add("barrier-recursive-doubling", "--p 6");
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

//===----------------------------------------------------------------------===//
// Nodes and non-commutative reductions
//===----------------------------------------------------------------------===//

namespace {

Schedule withNodes(Schedule S, std::vector<std::vector<Rank>> Nodes,
                   std::optional<NodePorts> NP = std::nullopt) {
  S.Nodes = std::move(Nodes);
  S.NodePort = NP;
  return S;
}

Schedule nonCommutative(Schedule S) {
  S.ReduceOp = ReductionOp{false};
  return S;
}

/// Schedules with nodes or a non-commutative operator; the names of those
/// that must fail say "fails".
std::vector<std::pair<std::string, Schedule>> nodeAndOrderCorpus() {
  std::vector<std::pair<std::string, Schedule>> C;
  C.push_back({"allgather-ring on two nodes",
               withNodes(gen("allgather-ring", "--p 6 --bytes 3 --topology ring"),
                         {{0, 1, 2}, {3, 4, 5}})});
  C.push_back({"allgather-ring on three nodes",
               withNodes(gen("allgather-ring", "--p 6 --counts 1,2,0,3,1,2"),
                         {{0, 1}, {2, 3}, {4, 5}})});
  C.push_back({"bcast-binomial on two nodes",
               withNodes(gen("bcast-binomial", "--p 8 --bytes 4 --root 0"),
                         {{0, 1, 2, 3}, {4, 5, 6, 7}})});
  C.push_back({"allgather-recdbl on two nodes, two node ports",
               withNodes(gen("allgather-recdbl", "--p 4 --bytes 2"),
                         {{0, 1}, {2, 3}}, NodePorts{2, 2})});
  C.push_back({"inter-allgather-kang on a node per group, two node ports",
               withNodes(gen("inter-allgather-kang",
                             "--p 4 --q 2 --bytes-a 3 --bytes-b 2"),
                         {{0, 1, 2, 3}, {4, 5}}, NodePorts{2, 2})});
  C.push_back({"allgather-recdbl on two nodes (fails node ports)",
               withNodes(gen("allgather-recdbl", "--p 4 --bytes 2"),
                         {{0, 1}, {2, 3}})});
  C.push_back({"allgather-bruck on two nodes (fails node ports)",
               withNodes(gen("allgather-bruck", "--p 6 --bytes 2"),
                         {{0, 1, 2}, {3, 4, 5}})});
  C.push_back({"non-commutative chain reduce", reduction(R"({
    "format": "choreo-schedule", "version": 1, "collective": "reduce",
    "ranks": 4, "root": 0, "groups": {"all": [0, 1, 2, 3]}, "sizes": {"all": [6]},
    "op": {"commutative": false}, "topology": {"kind": "ring"},
    "steps": [
      {"ops": [{"src": 3, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 6, "contrib": [[3, 4]], "reduce": true}]}]},
      {"ops": [{"src": 2, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 6, "contrib": [[2, 4]], "reduce": true}]}]},
      {"ops": [{"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 6, "contrib": [[1, 4]], "reduce": true}]}]}]})")});
  C.push_back({"non-commutative binary tree reduce on two nodes", reduction(R"({
    "format": "choreo-schedule", "version": 1, "collective": "reduce",
    "ranks": 4, "root": 0, "groups": {"all": [0, 1, 2, 3]}, "sizes": {"all": [6]},
    "op": {"commutative": false}, "nodes": [[0, 1], [2, 3]],
    "steps": [
      {"ops": [{"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 6, "contrib": [[1, 2]], "reduce": true}]},
               {"src": 3, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 6, "contrib": [[3, 4]], "reduce": true}]}]},
      {"ops": [{"src": 2, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 6, "contrib": [[2, 4]], "reduce": true}]}]}]})")});
  // The halves reduced at ranks 1 and 2, then sent to the others.
  C.push_back({"non-commutative reduce-scatter then allgather", reduction(R"({
    "format": "choreo-schedule", "version": 1, "collective": "allreduce",
    "ranks": 3, "groups": {"all": [0, 1, 2]}, "sizes": {"all": [8]},
    "op": {"commutative": false},
    "steps": [
      {"ops": [
        {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 4, "contrib": [[0, 1]], "reduce": true}]},
        {"src": 1, "dst": 2, "blocks": [{"buf": "all", "lo": 4, "hi": 8, "contrib": [[1, 2]], "reduce": true}]}]},
      {"ops": [
        {"src": 2, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 4, "contrib": [[2, 3]], "reduce": true}]},
        {"src": 0, "dst": 2, "blocks": [{"buf": "all", "lo": 4, "hi": 8, "contrib": [[0, 1]], "reduce": true}]}]},
      {"ops": [
        {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 4, "contrib": [[0, 3]]}]},
        {"src": 2, "dst": 1, "blocks": [{"buf": "all", "lo": 4, "hi": 8, "contrib": [[0, 3]]}]}]},
      {"ops": [
        {"src": 1, "dst": 2, "blocks": [{"buf": "all", "lo": 0, "hi": 4, "contrib": [[0, 3]]}]},
        {"src": 2, "dst": 0, "blocks": [{"buf": "all", "lo": 4, "hi": 8, "contrib": [[0, 3]]}]}]}]})")});
  // Rank 1 sends all of [0,8) as {1} while it holds [0,4) as {0-1}: rank 0
  // receives {0-1} on [0,4) (its own contribution again) and {1} on [4,8).
  // Each engine reports the failure on [0,4) only.
  for (bool Commutative : {true, false}) {
    Schedule Twice = reduction(R"({
      "format": "choreo-schedule", "version": 1, "collective": "allreduce",
      "ranks": 3, "groups": {"all": [0, 1, 2]}, "sizes": {"all": [8]},
      "steps": [
        {"ops": [{"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 4, "contrib": [[0, 1]], "reduce": true}]}]},
        {"ops": [{"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 0, "hi": 8, "contrib": [[1, 2]], "reduce": true}]}]}]})");
    C.push_back({Commutative ? "a send across two partials (fails exactly once)"
                             : "a non-commutative send across two partials "
                               "(fails exactly once and operand order)",
                 Commutative ? Twice : nonCommutative(Twice)});
  }
  for (auto &[What, S] : corpus())
    if (What == "allreduce by recursive doubling")
      C.push_back({"non-commutative recursive doubling on two nodes, two "
                   "node ports",
                   withNodes(nonCommutative(S), {{0, 1}, {2, 3}},
                             NodePorts{2, 2})});
  // The ring allreduce: chunk c starts at rank c + 1 and wraps around.
  std::string Ring = R"({"format": "choreo-schedule", "version": 1,
    "collective": "allreduce", "ranks": 3, "groups": {"all": [0, 1, 2]},
    "sizes": {"all": [6]}, "op": {"commutative": false},
    "topology": {"kind": "ring"}, "steps": [)";
  for (unsigned St = 0; St < 4; ++St) {
    Ring += St ? ", {\"ops\": [" : "{\"ops\": [";
    for (unsigned R = 0; R < 3; ++R) {
      unsigned Chunk = St < 2 ? (R + 3 - St) % 3 : (R + 1 + 3 - (St - 2)) % 3;
      RankSet Set;
      for (unsigned K = 0; K <= (St < 2 ? St : 2); ++K)
        Set.insert((Chunk + K) % 3, (Chunk + K) % 3 + 1);
      std::string Contrib;
      for (const Interval &I : Set.intervals())
        Contrib += (Contrib.empty() ? "" : ", ") + llvm::formatv("[{0}, {1}]", I.Lo, I.Hi).str();
      Ring += llvm::formatv("{0}{\"src\": {1}, \"dst\": {2}, \"blocks\": "
                            "[{\"buf\": \"all\", \"lo\": {3}, \"hi\": {4}, "
                            "\"contrib\": [{5}]{6}}]}",
                            R ? ", " : "", R, (R + 1) % 3, 2 * Chunk,
                            2 * Chunk + 2, Contrib,
                            St < 2 ? ", \"reduce\": true" : "")
                  .str();
    }
    Ring += "]}";
  }
  Ring += "]}";
  Schedule RingS = reduction(Ring.c_str());
  Schedule RingCommutative = RingS;
  RingCommutative.ReduceOp.reset();
  C.push_back({"ring allreduce, commutative", RingCommutative});
  C.push_back({"non-commutative ring allreduce (fails operand order)", RingS});
  return C;
}

/// One random mutation of Base: the mutations of the first corpus, and
/// moves across nodes, node ports, contributor intervals and the operator.
bool mutateNodesAndOrder(const Schedule &Base, Schedule &S, std::string &How,
                         std::mt19937 &Rng) {
  auto Pick = [&](size_t N) { return N ? size_t(Rng() % N) : 0; };
  Steps St = unpack(Base);
  S = Base;
  if (St.empty())
    return false;
  size_t A = Pick(St.size());
  if (St[A].empty())
    return false;
  size_t I = Pick(St[A].size());
  OpRec &O = St[A][I];
  Block &B = O.Blocks[Pick(O.Blocks.size())];
  std::vector<uint32_t> NodeOf = S.nodeOfRank();
  switch (Rng() % 11) {
  case 0: {
    How = "move an op to another step";
    OpRec Copy = O;
    St[A].erase(St[A].begin() + I);
    St[Pick(St.size())].push_back(Copy);
    break;
  }
  case 1: {
    How = "duplicate an op";
    OpRec Copy = O;
    St[Pick(St.size())].push_back(Copy);
    break;
  }
  case 2:
    How = "drop an op";
    St[A].erase(St[A].begin() + I);
    break;
  case 3:
    How = "re-target an op";
    (Rng() % 2 ? O.Dst : O.Src) = Pick(S.NumRanks);
    break;
  case 4: {
    How = "re-target an op to another node";
    if (NodeOf.empty())
      return false;
    std::vector<Rank> Away;
    for (Rank R = 0; R < S.NumRanks; ++R)
      if (NodeOf[R] != NodeOf[O.Src])
        Away.push_back(R);
    if (Away.empty())
      return false;
    O.Dst = Away[Pick(Away.size())];
    break;
  }
  case 5: {
    How = "move a rank to another node";
    if (!S.Nodes || S.Nodes->size() < 2)
      return false;
    auto &Nodes = *S.Nodes;
    size_t From = Pick(Nodes.size()), To = Pick(Nodes.size() - 1);
    To += To >= From;
    if (Nodes[From].size() < 2)
      return false;
    size_t K = Pick(Nodes[From].size());
    Nodes[To].push_back(Nodes[From][K]);
    Nodes[From].erase(Nodes[From].begin() + K);
    break;
  }
  case 6:
    How = "change the node ports";
    if (!S.Nodes)
      return false;
    S.NodePort = NodePorts{uint32_t(1 + Rng() % 2), uint32_t(1 + Rng() % 2)};
    break;
  case 7:
    How = "change a contributor set to another interval";
    if (!B.hasContrib())
      return false;
    {
      uint64_t Lo = Pick(S.NumRanks), Hi = Lo + 1 + Pick(S.NumRanks - Lo);
      O.Contribs[&B - O.Blocks.data()] = RankSet(Lo, Hi);
    }
    break;
  case 8:
    How = "flip the reduce flag";
    if (!B.hasContrib())
      return false;
    B.Reduce = !B.Reduce;
    break;
  case 9:
    How = "make the operator (non-)commutative";
    if (!S.spec().isReduction())
      return false;
    S.ReduceOp = ReductionOp{!S.commutative()};
    break;
  case 10:
    How = "shrink a block";
    (Rng() % 2 ? B.Lo : B.Hi) += Rng() % 2 ? 1 : -1;
    break;
  }
  pack(S, St);
  return true;
}

} // namespace

TEST(Differential, EnginesAgreeOnNodesAndOperandOrder) {
  for (auto &[What, S] : nodeAndOrderCorpus()) {
    ASSERT_TRUE(S.verify().empty()) << What;
    expectAgree(S, What);
    bool Expected = What.find("fails") == std::string::npos;
    VerifyResult R = checkSmt(S);
    EXPECT_EQ(R.proved(), Expected) << What << ": " << describe(R);
    if (What.find("fails node ports") != std::string::npos)
      EXPECT_TRUE(R.failsKind(property::NodeSendPort)) << What;
    if (What.find("operand order)") != std::string::npos)
      EXPECT_TRUE(R.failsKind(property::OperandOrder)) << What;
    if (What.find("fails exactly once") != std::string::npos) {
      EXPECT_TRUE(R.failsKind(property::ExactlyOnce)) << What;
      EXPECT_NE(describe(R).find("into all[0,4) a second time"),
                std::string::npos)
          << describe(R);
    }
  }
}

TEST(Differential, EnginesAgreeOnMutationsOfNodesAndOperandOrder) {
  std::mt19937 Rng(2027);
  std::vector<std::pair<std::string, Schedule>> C = nodeAndOrderCorpus();
  unsigned Mutations = 0, Failing = 0;
  std::map<std::string, unsigned> Kinds;
  while (Mutations < 800) {
    auto &[What, Base] = C[Rng() % C.size()];
    Schedule S;
    std::string How;
    if (!mutateNodesAndOrder(Base, S, How, Rng))
      continue;
    ++Mutations;
    VerifyResult E = checkExplicit(S);
    Failing += !E.proved();
    for (const Diagnostic &D : E.Diags)
      ++Kinds[D.Kind];
    expectAgree(S, What + ", " + How);
    if (HasFailure())
      break;
  }
  EXPECT_GT(Failing, Mutations / 2);
  // The new properties fail often enough to be compared in earnest.
  EXPECT_GT(Kinds[property::NodeSendPort], 20u);
  EXPECT_GT(Kinds[property::NodeRecvPort], 20u);
  EXPECT_GT(Kinds[property::OperandOrder], 20u);
}
