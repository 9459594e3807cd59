//===- tests/unit/SmtTimeoutTest.cpp - The engines' time limits -----------===//
///
/// \file
/// Every Z3 engine ends in its time (issue 30, item 6: Z3 4.8.12's own
/// timer deadlocked the prover) and says so: the template prover reports
/// timed-out obligations apart from unknown ones, not attempted past the
/// run's deadline; the concrete engine's timeout is an undecided verdict.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "verifier/smt/Prover.h"
#include "verifier/smt/Smt.h"

#include <chrono>

using namespace choreo;
using namespace choreo::test;

namespace {

using Clock = std::chrono::steady_clock;

/// bcast-hier-flat with n >= 25: nonlinear obligations (groups * n) that
/// take Z3 seconds each, none provable up to a bound of 24.
Template hierFlat25() {
  std::string Text;
  for (auto [N, T] : builtinTemplates())
    if (llvm::StringRef(N) == "bcast-hier-flat")
      Text = T;
  size_t At = Text.find("n >= 1,");
  EXPECT_NE(At, std::string::npos);
  Text.replace(At, 7, "n >= 25,");
  auto T = parseTemplate(Text, "hier25");
  EXPECT_TRUE(bool(T)) << llvm::toString(T.takeError());
  return T ? std::move(*T) : Template();
}

double secondsSince(Clock::time_point Start) {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

} // namespace

TEST(SmtTimeout, PassedDeadlineAttemptsNothing) {
  Template T = hierFlat25();
  ProveOptions O;
  O.Deadline = Clock::now();
  auto R = proveTemplate(T, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Obligations.size(), 27u);
  for (const Obligation &Ob : R->Obligations) {
    EXPECT_EQ(Ob.R, Obligation::Result::Timeout) << Ob.Name;
    EXPECT_EQ(Ob.Why, "not attempted: the run's --timeout has passed");
  }
  EXPECT_FALSE(R->proved());
}

TEST(SmtTimeout, DeadlineEndsTheRun) {
  // Z3's own timer hung here for ever at --timeout 1, 2 and 5.
  Template T = hierFlat25();
  ProveOptions O;
  O.TimeoutMs = 1000;
  auto Start = Clock::now();
  O.Deadline = Start + std::chrono::seconds(1);
  auto R = proveTemplate(T, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_LT(secondsSince(Start), 20.0);
  size_t TimedOut = 0;
  for (const Obligation &Ob : R->Obligations) {
    EXPECT_TRUE(Ob.R == Obligation::Result::Timeout ||
                Ob.R == Obligation::Result::Proved)
        << Ob.Name;
    TimedOut += Ob.R == Obligation::Result::Timeout;
  }
  EXPECT_GT(TimedOut, 0u);
}

TEST(SmtTimeout, QueryTimeoutIsATimeout) {
  // No deadline: each query ends at its own limit, the nonlinear ones
  // undecided, and nothing up to the bound lies in the domain.
  Template T = hierFlat25();
  ProveOptions O;
  O.TimeoutMs = 150;
  O.Bound = 2;
  auto Start = Clock::now();
  auto R = proveTemplate(T, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_LT(secondsSince(Start), 60.0);
  size_t TimedOut = 0;
  for (const Obligation &Ob : R->Obligations) {
    EXPECT_NE(Ob.R, Obligation::Result::Counterexample) << Ob.Name;
    if (Ob.R != Obligation::Result::Timeout)
      continue;
    ++TimedOut;
    // After the witnesses' note, where the template gives witnesses.
    llvm::StringRef Why = Ob.Why;
    EXPECT_TRUE(Why.starts_with("timeout") || Why.contains("; timeout"))
        << Ob.Name << ": " << Ob.Why;
  }
  EXPECT_GT(TimedOut, 0u);
}

TEST(SmtTimeout, ConcreteEngineTimesOut) {
  Schedule S = gen("allreduce-ring", "--p 48 --bytes 4800");
  SmtOptions O;
  O.TimeoutMs = 1;
  VerifyResult R = checkSmt(S, O);
  ASSERT_EQ(R.St, VerifyResult::Status::Unknown);
  ASSERT_EQ(R.Diags.size(), 1u);
  EXPECT_EQ(R.Diags[0].Message, "the SMT engine could not decide: timeout");
  // With time, the same schedule proves.
  EXPECT_TRUE(checkSmt(S).proved());
}
