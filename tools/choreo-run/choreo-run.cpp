//===- tools/choreo-run/choreo-run.cpp - Run a schedule under mpiexec -----===//
///
/// \file
/// `mpiexec -n N choreo-run FILE [--iterations K] [--warmup W] [--check]
/// [--json] [--native] [--wait yield|busy]`: proves the schedule (once, on
/// rank 0), builds the communicators its groups describe, fills the send
/// buffers, runs it K times and reports the median over iterations of the
/// slowest rank's time. --check compares every rank's result with the
/// expected bytes and with MPICH's own collective; --native also times
/// MPICH's collective, blocking and non-blocking. Exit codes: 0 success, 1 a
/// check fails, 2 the schedule, job or arguments are refused.
///
//===----------------------------------------------------------------------===//

#include "harness/Harness.h"
#include "ir/ScheduleIO.h"
#include "verifier/Verifier.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

using namespace choreo;
using namespace choreo::harness;

namespace {

constexpr int ExitOk = 0, ExitCheck = 1, ExitRefused = 2;

const char *Usage =
    R"(usage: mpiexec -n N choreo-run FILE [options]

Runs a schedule (format v1, JSON or CBOR) over MPI point-to-point. Rank 0
proves it first; the job must have exactly the schedule's number of ranks.

options:
  --iterations K   timed runs (default 10)
  --warmup W       untimed runs before them (default 1)
  --check          compare every rank's result with the expected bytes and
                   with MPICH's own collective on the same communicator
  --native         also time MPICH's collective: blocking, and non-blocking
                   waited on with MPI_Testall + sched_yield
  --wait MODE      yield (default: MPI_Testall + sched_yield) or busy
                   (MPI_Waitall)
  --json           print the results as one JSON object (rank 0)

Times are per iteration the slowest rank's, then the median over iterations.
exit codes: 0 success, 1 a check fails, 2 refused (schedule, job, arguments).
)";

struct Options {
  std::string File;
  unsigned Iterations = 10, Warmup = 1;
  bool Check = false, Native = false, Json = false;
  WaitMode Wait = WaitMode::Yield;
};

std::optional<std::string> parseArgs(int Argc, char **Argv, Options &O) {
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    auto Value = [&]() -> std::optional<llvm::StringRef> {
      if (I + 1 >= Argc)
        return std::nullopt;
      return llvm::StringRef(Argv[++I]);
    };
    if (A == "--check") {
      O.Check = true;
    } else if (A == "--native") {
      O.Native = true;
    } else if (A == "--json") {
      O.Json = true;
    } else if (A == "--iterations" || A == "--warmup") {
      auto V = Value();
      unsigned N;
      if (!V || V->getAsInteger(10, N))
        return (A + " needs a number").str();
      (A == "--iterations" ? O.Iterations : O.Warmup) = N;
    } else if (A == "--wait") {
      auto V = Value();
      if (!V || (*V != "yield" && *V != "busy"))
        return std::string("--wait needs yield or busy");
      O.Wait = *V == "busy" ? WaitMode::Busy : WaitMode::Yield;
    } else if (A.starts_with("-") && A != "-") {
      return ("unknown option " + A).str();
    } else if (O.File.empty()) {
      O.File = A.str();
    } else {
      return ("unexpected argument " + A).str();
    }
  }
  if (O.File.empty())
    return std::string("missing the schedule file");
  if (O.Iterations == 0)
    return std::string("--iterations must be at least 1");
  return std::nullopt;
}

/// Every rank refuses with the same message (printed once, by rank 0).
int refuse(int Me, llvm::Error E) {
  std::string Msg = llvm::toString(std::move(E));
  if (Me == 0)
    llvm::errs() << "choreo-run: error: " << Msg << '\n';
  return ExitRefused;
}

int run(int Argc, char **Argv) {
  int Me, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  Options O;
  if (std::optional<std::string> Err = parseArgs(Argc, Argv, O)) {
    if (Me == 0)
      llvm::errs() << "choreo-run: error: " << *Err << "\n\n" << Usage;
    return ExitRefused;
  }

  // Rank 0 reads the whole schedule and proves it; the others keep only
  // their own ops. Any rank's problem is every rank's.
  std::string Err;
  ReadOptions RO;
  if (Me != 0)
    RO.OnlyRank = Me;
  auto S = readScheduleFile(O.File, RO);
  if (!S) {
    Err = llvm::toString(S.takeError());
  } else if (Me == 0) {
    VerifyResult R = checkExplicit(*S);
    if (!R.proved()) {
      std::string Diags;
      llvm::raw_string_ostream OS(Diags);
      printDiagnostics(OS, R.Diags);
      Err = "the schedule does not verify; it is not run:\n" +
            llvm::StringRef(Diags).rtrim().str();
    }
  }
  if (Err.empty() && S->NumRanks != static_cast<Rank>(Size))
    Err = llvm::formatv("the schedule has {0} ranks but the job has {1} "
                        "processes (run it with mpiexec -n {0})",
                        S->NumRanks, Size);
  if (auto E = agreeOnErrors(MPI_COMM_WORLD, Err))
    return refuse(Me, std::move(E));

  auto C = makeCommunicators(*S);
  if (!C)
    return refuse(Me, C.takeError());
  auto B = makeBuffers(*S, Me);
  if (auto E = agreeOnErrors(MPI_COMM_WORLD,
                             B ? "" : llvm::toString(B.takeError())))
    return refuse(Me, std::move(E));
  PlanOptions PO;
  PO.Wait = O.Wait;
  PO.Verify = false; // proved above, once
  auto P = Plan::create(*S, C->Run, B->user(), PO);
  if (!P)
    return refuse(Me, P.takeError());

  // Check: our result, then MPICH's, against the expected bytes.
  int Failures = 0;
  std::string FirstFailure;
  if (O.Check) {
    poison(*S, Me, *B);
    if (auto E = (*P)->execute())
      return refuse(Me, std::move(E));
    if (auto Bad = checkResult(*S, Me, B->Recv)) {
      ++Failures;
      FirstFailure = "choreo: " + *Bad;
    }
    poison(*S, Me, *B);
    if (auto E = runNative(*S, *C, Me, *B, /*NonBlocking=*/true))
      return refuse(Me, std::move(E));
    if (auto Bad = checkResult(*S, Me, B->Recv)) {
      ++Failures;
      if (FirstFailure.empty())
        FirstFailure = ("MPICH " + nativeName(*S) + ": " + *Bad).str();
    }
    int Any = Failures;
    MPI_Allreduce(MPI_IN_PLACE, &Any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!FirstFailure.empty())
      llvm::errs() << "choreo-run: check failed: " << FirstFailure << '\n';
    Failures = Any;
  }

  auto Times = timeIterations(MPI_COMM_WORLD, O.Warmup, O.Iterations,
                              [&] { return (*P)->execute(); });
  if (!Times)
    return refuse(Me, Times.takeError());
  std::vector<double> NativeBlocking, NativeNonBlocking;
  if (O.Native) {
    for (bool NB : {false, true}) {
      auto T = timeIterations(MPI_COMM_WORLD, O.Warmup, O.Iterations, [&] {
        return runNative(*S, *C, Me, *B, NB);
      });
      if (!T)
        return refuse(Me, T.takeError());
      (NB ? NativeNonBlocking : NativeBlocking) = *T;
    }
  }

  if (Me == 0) {
    const RankPlan &RP = (*P)->rankPlan();
    (void)RP;
    std::string Where =
        C->Inter ? llvm::formatv("an intercommunicator of {0} + {1} ranks",
                                 S->group("A")->Members.size(),
                                 S->group("B")->Members.size())
                       .str()
                 : llvm::formatv("{0} ranks", S->NumRanks).str();
    double Med = median(*Times);
    if (O.Json) {
      nlohmann::ordered_json J = {
          {"schedule", O.File},
          {"algorithm", S->Algorithm},
          {"collective", collectiveName(S->Kind).str()},
          {"ranks", S->NumRanks},
          {"steps", S->Steps.numSteps()},
          {"iterations", O.Iterations},
          {"median_s", Med},
          {"min_s", *std::min_element(Times->begin(), Times->end())},
          {"max_s", *std::max_element(Times->begin(), Times->end())}};
      if (O.Check)
        J["check"] = Failures ? "failed" : "passed";
      if (O.Native) {
        J["native"] = nativeName(*S).str();
        J["native_blocking_median_s"] = median(NativeBlocking);
        J["native_nonblocking_median_s"] = median(NativeNonBlocking);
      }
      llvm::outs() << jsonText(J) << '\n';
    } else {
      llvm::outs() << llvm::formatv(
          "choreo-run: {0} ({1}, {2} steps) on {3}\n",
          S->Algorithm.empty() ? "schedule" : S->Algorithm,
          collectiveName(S->Kind), S->Steps.numSteps(), Where);
      if (O.Check)
        llvm::outs() << (Failures
                             ? llvm::formatv("check: FAILED on {0} rank(s)\n",
                                             Failures)
                                   .str()
                             : llvm::formatv("check: passed (every rank's "
                                             "result matches the expected "
                                             "bytes and MPICH's {0})\n",
                                             nativeName(*S))
                                   .str());
      llvm::outs() << llvm::formatv(
          "choreo: median {0:e3} s over {1} iterations (min {2:e3}, max "
          "{3:e3}), slowest rank per iteration\n",
          Med, O.Iterations, *std::min_element(Times->begin(), Times->end()),
          *std::max_element(Times->begin(), Times->end()));
      if (O.Native)
        llvm::outs() << llvm::formatv(
            "MPICH {0}: median {1:e3} s blocking, {2:e3} s non-blocking with "
            "Testall + yield\n",
            nativeName(*S), median(NativeBlocking), median(NativeNonBlocking));
    }
    llvm::outs().flush();
  }
  return Failures ? ExitCheck : ExitOk;
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Code;
  {
    Code = run(Argc, Argv);
  }
  // Plans and communicators are gone before MPI_Finalize.
  MPI_Finalize();
  return Code;
}
