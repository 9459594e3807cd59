//===- tests/unit/AlltoallGeneratorTest.cpp - Alltoall generators ---------===//
///
/// \file
/// Every alltoall generator over a sweep of p (1 to 33, and 64), regular and
/// irregular matrices (zeros, one pair only, a skewed row), radices and
/// batches: the explicit engine proves each schedule; the step counts are
/// the algorithms' (p - 1 for pairwise; Bruck's one step per nonzero digit
/// value, ceil(log_k p) rounds with --concurrent on; ceil(p / batch) for
/// scattered); Bruck's bytes are its formula; MPICH's choice follows its
/// thresholds; the SMT engine agrees on small cases; bad options name the
/// option.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "cost/Model.h"
#include "ir/PairMatrix.h"
#include "options/Parse.h"
#include "verifier/Verifier.h"
#include "verifier/smt/Smt.h"

#include "llvm/Support/FormatVariadic.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::test;
using llvm::formatv;

namespace {

/// "--pairs ..." of a p x p matrix: 0 every block 5 bytes; 1 irregular with
/// zeros; 2 one pair only; 3 a skewed row (rank 0 sends 64 bytes to every
/// rank, the others 1); 4 all zero.
std::string pairsArg(uint32_t P, int Pattern) {
  std::string S = "--pairs ";
  for (uint32_t I = 0; I < P; ++I)
    for (uint32_t J = 0; J < P; ++J) {
      uint64_t X = Pattern == 0   ? 5
                   : Pattern == 1 ? (I * 7 + J * 3) % 5
                   : Pattern == 2 ? (I == P - 1 && J == 0 ? 9 : 0)
                   : Pattern == 3 ? (I == 0 ? 64 : 1)
                                  : 0;
      S += (I || J ? "," : "") + std::to_string(X);
    }
  return S;
}

/// Bruck's single-port steps at p with radix K: a step per digit place d
/// and value v with v K^d < p.
unsigned bruckSteps(uint64_t P, uint64_t K) {
  unsigned N = 0;
  for (uint64_t W = 1; W < P; W *= K)
    N += std::min<uint64_t>(K - 1, (P - 1) / W);
  return N;
}

unsigned rounds(uint64_t P, uint64_t K) {
  unsigned N = 0;
  for (uint64_t W = 1; W < P; W *= K)
    ++N;
  return N;
}

uint64_t bytesSent(const Schedule &S) {
  uint64_t N = 0;
  for (const Op &O : S.Steps.allOps())
    for (const Block &B : S.Steps.blocks(O))
      N += S.Steps.bytes(B); // a lattice block's elements
  return N;
}

} // namespace

TEST(AlltoallGenerators, SweepProves) {
  const char *Algos[] = {"alltoall-pairwise",
                         "alltoall-bruck",
                         "alltoall-bruck --radix 3",
                         "alltoall-bruck --radix 4 --concurrent on",
                         "alltoall-bruck --radix 7",
                         "alltoall-scattered",
                         "alltoall-scattered --batch 3",
                         "alltoall-scattered --batch 0"};
  unsigned Checked = 0;
  for (uint32_t P : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 33, 64})
    for (const char *A : Algos)
      for (int Pattern = -1; Pattern < 5; ++Pattern) {
        llvm::StringRef Id = llvm::StringRef(A).split(' ').first;
        std::string Args = formatv("--p {0} {1} {2}", P,
                                   Pattern < 0 ? std::string("--bytes 6")
                                               : pairsArg(P, Pattern),
                                   llvm::StringRef(A).split(' ').second);
        Schedule S = gen(Id, Args);
        VerifyResult R = checkExplicit(S);
        EXPECT_TRUE(R.proved()) << A << " " << Args << ": " << firstMessage(R);
        EXPECT_EQ(S.Kind,
                  Pattern < 0 ? Collective::Alltoall : Collective::Alltoallv);
        ++Checked;
      }
  EXPECT_GT(Checked, 700u);
}

TEST(AlltoallGenerators, StepsAndBytes) {
  for (uint32_t P : {2, 3, 5, 8, 12, 16, 27, 33, 64}) {
    std::string N = formatv("--p {0} --bytes 8", P);
    EXPECT_EQ(gen("alltoall-pairwise", N).Steps.numSteps(), P - 1) << P;
    for (uint64_t K : {2, 3, 4, 8}) {
      Schedule B = gen("alltoall-bruck", N + " --radix " + std::to_string(K));
      EXPECT_EQ(B.Steps.numSteps(), bruckSteps(P, K)) << P << " " << K;
      EXPECT_EQ(B.Port.Send, 1u);
      Schedule C = gen("alltoall-bruck",
                       N + " --concurrent on --radix " + std::to_string(K));
      EXPECT_EQ(C.Steps.numSteps(), rounds(P, K)) << P << " " << K;
      EXPECT_EQ(C.Port.Send, std::min<uint32_t>(K - 1, P - 1));
      // Each block moves once per nonzero digit of its offset j - i.
      uint64_t Moves = 0;
      for (uint64_t B2 = 1; B2 < P; ++B2)
        for (uint64_t X = B2; X; X /= K)
          Moves += X % K != 0;
      EXPECT_EQ(bytesSent(B), 8 * P * Moves) << P << " " << K;
      EXPECT_EQ(bytesSent(C), 8 * P * Moves);
    }
    // p = 2^m, radix 2: (n/2) log2 p per rank (MPICH's cost comment).
    if ((P & (P - 1)) == 0) {
      EXPECT_EQ(bytesSent(gen("alltoall-bruck", N)),
                uint64_t(P) * (8 * P / 2) * rounds(P, 2));
    }
    Schedule Sc = gen("alltoall-scattered", N + " --batch 4");
    EXPECT_EQ(Sc.Steps.numSteps(), (P + 3) / 4) << P;
    // The first batch holds distance 0, the rank itself (a local copy).
    uint32_t Most = std::min<uint32_t>(4, P) - 1;
    if (P > 4)
      Most = std::max(Most, std::min<uint32_t>(4, P - 4));
    EXPECT_EQ(Sc.Port.Send, Most) << P;
    EXPECT_EQ(bytesSent(Sc), 8ull * P * (P - 1));
  }
  // Pairwise: XOR partners when p is a power of two.
  Schedule X = gen("alltoall-pairwise", "--p 8 --bytes 1");
  for (unsigned St = 0; St < X.Steps.numSteps(); ++St)
    for (const Op &O : X.Steps.step(St))
      EXPECT_EQ(O.Src ^ O.Dst, St + 1);
  Schedule Sh = gen("alltoall-pairwise", "--p 6 --bytes 1");
  for (unsigned St = 0; St < Sh.Steps.numSteps(); ++St)
    for (const Op &O : Sh.Steps.step(St))
      EXPECT_EQ((O.Dst + 6 - O.Src) % 6, St + 1);
}

TEST(AlltoallGenerators, EmptyStepsLeftOut) {
  // Only block (p - 1, 0) has bytes: one step, one op, for every algorithm.
  for (const char *A :
       {"alltoall-pairwise", "alltoall-bruck", "alltoall-scattered"}) {
    Schedule S = gen(A, "--p 6 " + pairsArg(6, 2));
    EXPECT_EQ(S.Steps.numOps(), 1u) << A;
    EXPECT_EQ(S.Steps.numSteps(), 1u) << A;
  }
  // Nothing at all: no steps.
  EXPECT_EQ(gen("alltoall-bruck", "--p 5 " + pairsArg(5, 4)).Steps.numSteps(),
            0u);
}

TEST(AlltoallGenerators, MpichChoice) {
  auto Algo = [](llvm::StringRef Args) {
    Schedule S = gen("alltoall-mpich", Args);
    // Bruck relays (a message of several blocks), scattered has one step
    // of several messages per rank (p <= 32), pairwise p - 1 steps.
    if (S.Port.Send > 1)
      return std::string("scattered");
    return S.Steps.numSteps() + 1 == S.NumRanks ? std::string("pairwise")
                                                : std::string("bruck");
  };
  // MPICH 4.0.2's selection reads its tuning file's "comm_size<8" as
  // p <= 8 (csel.c's MPIR_Csel_search; traced: docs/trace.md): Bruck from
  // p = 9 on.
  EXPECT_EQ(Algo("--p 8 --bytes 256"), "scattered");
  EXPECT_EQ(Algo("--p 8 --bytes 8"), "scattered");
  EXPECT_EQ(Algo("--p 9 --bytes 256"), "bruck");
  // Its Bruck moves lattice blocks (a rank's plan in O(log p) pieces), and
  // the schedule proves with them.
  Schedule B = gen("alltoall-mpich", "--p 13 --bytes 8");
  EXPECT_GT(B.Steps.numLattices(), 0u);
  EXPECT_TRUE(checkExplicit(B).proved());
  EXPECT_EQ(Algo("--p 9 --bytes 257"), "scattered");
  EXPECT_EQ(Algo("--p 8 --bytes 257"), "scattered");
  EXPECT_EQ(Algo("--p 8 --bytes 32768"), "scattered");
  EXPECT_EQ(Algo("--p 8 --bytes 32769"), "pairwise");
  EXPECT_EQ(Algo("--p 7 --bytes 8"), "scattered");
  EXPECT_EQ(Algo("--p 7 --bytes 32769"), "pairwise");
  // MPICH's scattered posts 32 at a time: p = 40 takes two steps.
  EXPECT_EQ(gen("alltoall-mpich", "--p 40 --bytes 1000").Steps.numSteps(), 2u);
  EXPECT_EQ(gen("alltoall-mpich", "--p 40 --bytes 1000").Port.Send, 31u);
  // MPI_Alltoallv: scattered whatever the sizes.
  Schedule V = gen("alltoallv-mpich", "--p 5 " + pairsArg(5, 1));
  EXPECT_EQ(V.Kind, Collective::Alltoallv);
  EXPECT_EQ(V.Steps.numSteps(), 1u);
  EXPECT_TRUE(checkExplicit(V).proved());
}

TEST(AlltoallGenerators, SmtEngineAgrees) {
  for (const char *A : {"alltoall-pairwise --p 5", "alltoall-bruck --p 6",
                        "alltoall-bruck --p 7 --radix 3 --concurrent on",
                        "alltoall-scattered --p 5 --batch 2"}) {
    for (int Pattern : {0, 1}) {
      llvm::StringRef Id = llvm::StringRef(A).split(' ').first;
      uint32_t P = llvm::StringRef(A).contains("--p 5")   ? 5
                   : llvm::StringRef(A).contains("--p 6") ? 6
                                                          : 7;
      Schedule S = gen(Id, llvm::StringRef(A).split(' ').second.str() + " " +
                               pairsArg(P, Pattern));
      VerifyResult R = checkSmt(S, SmtOptions());
      EXPECT_TRUE(R.proved()) << A << ": " << firstMessage(R);
    }
  }
}

TEST(AlltoallGenerators, BadOptionsNameTheOption) {
  const Generator *B = findGenerator("alltoall-bruck");
  ASSERT_TRUE(B);
  EXPECT_EQ(errorText(generateFromArgs(*B, "--p 4 --bytes 1 --radix 1")),
            "--radix: the radix must be at least 2 (got 1)");
  EXPECT_EQ(errorText(generateFromArgs(*B, "--p 4 --bytes 1 --radix 0")),
            "--radix: the radix must be at least 2 (got 0)");
  EXPECT_EQ(errorText(generateFromArgs(*B, "--p 3 --pairs 1,2,3")),
            "--pairs: 3 sizes; --p 3 needs p x p = 9, row-major (entry i*p+j "
            "is the bytes rank i sends rank j)");
  EXPECT_EQ(errorText(generateFromArgs(*B, "--p 3")),
            "--bytes: missing: give --bytes (every block alike) or --pairs "
            "(p x p sizes)");
  EXPECT_EQ(errorText(generateFromArgs(*B, "--p 2 --pairs "
                                           "18446744073709551615,1,0,0")),
            "--pairs: the sizes add up past 2^64 bytes");
  // --bytes takes any p (sizes.block): the whole Bruck schedule of byte
  // ranges is refused by its blocks, a rank's part is budgeted by the
  // rank's own.
  EXPECT_EQ(errorText(generateFromArgs(*B, "--p 4097 --bytes 1 --lattice off")),
            "alltoall-bruck: these parameters give about 218210317 blocks "
            "(byte ranges the messages carry), more than choreo builds in "
            "memory (200000000)");
  auto V = parseOptions({"--p", "4097", "--bytes", "1"}, B->options());
  ASSERT_TRUE(bool(V));
  auto Part = B->buildRank(*V, 4096);
  ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
  EXPECT_EQ(Part->Steps.numOps(), 26u); // 13 rounds, a send and a receive
  EXPECT_EQ(errorText(generateFromArgs(*findGenerator("alltoall-mpich"),
                                       "--p 3 --pairs 1,1,1,1,1,1,1,1,1")),
            "--pairs: alltoall-mpich does not take this option (it takes --p, "
            "--bytes)");
}

TEST(AlltoallGenerators, MachinePortsQueueTheBatch) {
  // The scattered step of 11 messages a rank: one transfer time on the
  // schedule's own 11 ports, eleven on a machine with one (as pairwise's
  // eleven steps): messages listed first of every rank, then second, ...
  CostModel M;
  M.Beta = 1e-3;
  Schedule S = gen("alltoall-scattered", "--p 12 --bytes 1000");
  EXPECT_EQ(S.Port.Send, 11u);
  EXPECT_DOUBLE_EQ(evaluateCost(S, M).Async, 1.0);
  M.Ports = 1;
  EXPECT_DOUBLE_EQ(evaluateCost(S, M).Async, 11.0);
  EXPECT_DOUBLE_EQ(
      evaluateCost(gen("alltoall-pairwise", "--p 12 --bytes 1000"), M).Async,
      11.0);
  M.Ports = 4;
  EXPECT_DOUBLE_EQ(evaluateCost(S, M).Async, 3.0);
  EXPECT_EQ(M.toJson()["machine_ports"], 4);
}
