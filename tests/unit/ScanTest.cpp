//===- tests/unit/ScanTest.cpp - Scan and exscan schedules ----------------===//
///
/// \file
/// The scan and exscan generators (recursive doubling, chain) for p =
/// 1..33, commutative and not: the explicit replay, the SMT engine and the
/// distributed check all prove them, and the JSON and CBOR forms read back
/// to the same steps (accumulators included). Mutations (an op dropped, a
/// receipt re-targeted past a rank, a receipt from above combined into the
/// result) fail in both engines with the same first diagnostic, naming the
/// step, rank and block.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "support/Mutations.h"
#include "verifier/DistributedCheck.h"
#include "verifier/smt/Smt.h"

using namespace choreo;
using namespace choreo::test;

namespace {

const char *const Algos[] = {"scan-recursive-doubling",
                             "exscan-recursive-doubling", "scan-chain",
                             "exscan-chain"};

std::string args(uint32_t P, uint64_t N, bool Commutative) {
  return "--p " + std::to_string(P) + " --bytes " + std::to_string(N) +
         (Commutative ? "" : " --op noncommutative");
}

std::string stepsText(const Schedule &S) {
  std::string T = toJsonText(S);
  return T.substr(T.find("\"steps\""));
}

/// Both engines fail S with the same first diagnostic; it is returned.
std::string expectBothFail(const Schedule &S) {
  VerifyResult E = checkExplicit(S), Z = checkSmt(S), D = checkDistributed(S);
  EXPECT_EQ(E.St, VerifyResult::Status::Failed) << firstMessage(E);
  EXPECT_EQ(Z.St, VerifyResult::Status::Failed) << firstMessage(Z);
  EXPECT_EQ(D.St, VerifyResult::Status::Failed) << firstMessage(D);
  EXPECT_EQ(firstMessage(E), firstMessage(Z));
  return firstMessage(E);
}

} // namespace

TEST(Scan, SweepBothEnginesProve) {
  for (const char *Id : Algos)
    for (uint32_t P = 1; P <= 33; ++P)
      for (uint64_t N : {uint64_t(0), uint64_t(8), uint64_t(24)})
        for (bool Comm : {true, false}) {
          std::string A = args(P, N, Comm);
          Schedule S = gen(Id, A);
          VerifyResult E = checkExplicit(S);
          ASSERT_TRUE(E.proved()) << Id << " " << A << ": " << firstMessage(E);
          if (N != 8 || (P > 17 && P % 8 != 1))
            continue; // the SMT engine and the split proof on a subset
          VerifyResult Z = checkSmt(S);
          EXPECT_TRUE(Z.proved()) << Id << " " << A << ": " << firstMessage(Z);
          VerifyResult D = checkDistributed(S);
          EXPECT_TRUE(D.proved()) << Id << " " << A << ": " << firstMessage(D);
        }
}

TEST(Scan, StepCounts) {
  for (uint32_t P : {1u, 2u, 5u, 8u, 33u}) {
    unsigned Lg = 0;
    while ((1ull << Lg) < P)
      ++Lg;
    EXPECT_EQ(gen("scan-recursive-doubling", args(P, 8, true)).Steps.numSteps(),
              Lg);
    EXPECT_EQ(gen("exscan-chain", args(P, 8, true)).Steps.numSteps(), P - 1);
  }
}

TEST(Scan, JsonAndCborKeepTheAccumulators) {
  Schedule S = gen("exscan-recursive-doubling", args(6, 16, false));
  std::string J = toJsonText(S);
  EXPECT_NE(J.find("\"acc\": [0, 1]"), std::string::npos) << J;
  for (const std::string &Doc : {J, toCborBytes(S)}) {
    auto R = parseSchedule(Doc);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ(stepsText(*R), stepsText(S));
    EXPECT_TRUE(checkExplicit(*R).proved());
  }
}

TEST(Scan, AccumulatorsOnlyForScans) {
  std::string J = toJsonText(gen("allreduce-recursive-doubling", "--p 2 "
                                                                 "--bytes 8"));
  size_t At = J.find("\"reduce\": true");
  ASSERT_NE(At, std::string::npos);
  J.insert(At, "\"acc\": 1, ");
  std::string E = errorText(parseSchedule(J));
  EXPECT_NE(E.find("only scan and exscan blocks name accumulators"),
            std::string::npos)
      << E;
  std::string K = toJsonText(gen("scan-chain", "--p 2 --bytes 8"));
  K.insert(K.find("\"contrib\""), "\"acc\": 4, ");
  E = errorText(parseSchedule(K));
  EXPECT_NE(E.find("acc: 4 is too large for an accumulator"), std::string::npos)
      << E;
}

TEST(Scan, DroppedOpFails) {
  Schedule Base = gen("scan-recursive-doubling", args(6, 8, false));
  Steps St = unpack(Base);
  // Step 0: rank 2 -> 3 dropped; rank 3 sends at step 1 what it lacks.
  auto &Ops = St[0];
  Ops.erase(std::find_if(Ops.begin(), Ops.end(), [](const OpRec &O) {
    return O.Src == 2 && O.Dst == 3;
  }));
  Schedule S = Base;
  pack(S, St);
  std::string M = expectBothFail(S);
  EXPECT_NE(M.find("step 1: rank 3 sends all[0,8) with contributors {2-3}, but "
                   "holds it with contributors {3}"),
            std::string::npos)
      << M;
}

TEST(Scan, OutOfOrderCombinationFails) {
  Schedule Base = gen("exscan-chain", args(5, 8, false));
  Steps St = unpack(Base);
  // Step 1: rank 1's prefix {0-1} goes to rank 3, past rank 2.
  St[1][0].Dst = 3;
  Schedule S = Base;
  pack(S, St);
  std::string M = expectBothFail(S);
  EXPECT_NE(M.find("step 1"), std::string::npos) << M;
  EXPECT_NE(M.find("rank 3"), std::string::npos) << M;
  EXPECT_NE(M.find("all[0,8)"), std::string::npos) << M;
  VerifyResult E = checkExplicit(S);
  bool Order = false;
  for (const Diagnostic &D : E.Diags)
    Order |= D.Kind == property::OperandOrder &&
             D.Message.find("lie between them") != std::string::npos;
  EXPECT_TRUE(Order);
}

TEST(Scan, ReceiptFromAboveIntoTheResultFails) {
  Schedule Base = gen("scan-recursive-doubling", args(4, 8, false));
  Steps St = unpack(Base);
  // Step 0: rank 1 -> 0 combines {1} into rank 0's result too.
  for (OpRec &O : St[0])
    if (O.Src == 1 && O.Dst == 0)
      O.Blocks[0].setAcc(1, 3);
  Schedule S = Base;
  pack(S, St);
  std::string M = expectBothFail(S);
  EXPECT_NE(M.find("rank 0"), std::string::npos) << M;
  EXPECT_NE(M.find("all[0,8) combines {0-1}, more than {0}"), std::string::npos)
      << M;
}

TEST(Scan, SeededMutationsAgree) {
  std::mt19937 Rng(25);
  std::vector<Schedule> Bases;
  for (const char *Id : Algos)
    for (uint32_t P : {3u, 6u})
      Bases.push_back(gen(Id, args(P, 16, false)));
  unsigned Done = 0, Failing = 0;
  while (Done < 300) {
    const Schedule &Base = Bases[Rng() % Bases.size()];
    Schedule S;
    std::string How;
    if (!mutate(Base, S, How, Rng))
      continue;
    ++Done;
    VerifyResult E = checkExplicit(S), Z = checkSmt(S);
    EXPECT_EQ(int(E.St), int(Z.St)) << How << "\n"
                                    << firstMessage(E) << "\n"
                                    << firstMessage(Z);
    if (E.St == VerifyResult::Status::Failed) {
      ++Failing;
      EXPECT_EQ(firstMessage(E), firstMessage(Z)) << How;
    }
  }
  EXPECT_GT(Failing, 100u);
}
