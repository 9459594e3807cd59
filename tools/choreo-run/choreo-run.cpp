//===- tools/choreo-run/choreo-run.cpp - Run a schedule under mpiexec -----===//
///
/// \file
/// `mpiexec -n N choreo-run FILE... [--iterations K] [--warmup W] [--check]
/// [--json] [--native] [--wait yield|busy] [--op OP]`: parses the options and calls
/// harness::runSchedule (harness/Run.h), which proves the schedule (once,
/// on rank 0), runs it K times and reports the median over iterations of
/// the slowest rank's time. Exit codes (ir/ExitCodes.h): 0 success, 1 a
/// check fails, 2 the schedule, job or arguments are refused.
///
//===----------------------------------------------------------------------===//

#include "harness/Run.h"
#include "ir/ExitCodes.h"

#include "llvm/Support/raw_ostream.h"

#include <mpi.h>
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

using namespace choreo;
using namespace choreo::harness;

namespace {

const char *Usage =
    R"(usage: mpiexec -n N choreo-run FILE... [options]

Runs a schedule (format v1, JSON or CBOR) over MPI point-to-point. Rank 0
proves it first; the job must have exactly the schedule's number of ranks.
Several files run one after another in the same job (exit code: the worst).

options:
  --iterations K   timed runs (default 10)
  --warmup W       untimed runs before them (default 1)
  --check          compare every rank's result with the expected bytes and
                   with MPICH's own collective on the same communicator
  --native         also time MPICH's collective: blocking, and non-blocking
                   waited on with MPI_Testall + sched_yield
  --wait MODE      yield (default: MPI_Testall + sched_yield) or busy
                   (MPI_Waitall)
  --op OP          reductions: sum-int (default; 4-byte ints, exact),
                   sum-double (doubles, within a relative 1e-12),
                   maxloc-double-int (MPI_MAXLOC on MPI_DOUBLE_INT, 16-byte
                   elements), matmul-2x2 (a user-defined non-commutative
                   product of 16-byte 2x2 int matrices; equal to MPICH's bit
                   for bit)
  --json           print the results as one JSON object (rank 0)

Times are per iteration the slowest rank's, then the median over iterations.
exit codes: 0 success, 1 a check fails, 2 refused (schedule, job, arguments).
)";

/// Fills O from the arguments; returns the problem with them, if any.
std::optional<std::string> parseArgs(int Argc, char **Argv, RunOptions &O,
                                     std::vector<std::string> &Files,
                                     bool &Help) {
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    auto Value = [&]() -> std::optional<llvm::StringRef> {
      if (I + 1 >= Argc)
        return std::nullopt;
      return llvm::StringRef(Argv[++I]);
    };
    if (A == "--help" || A == "-h") {
      Help = true;
      return std::nullopt;
    } else if (A == "--check") {
      O.Check = true;
    } else if (A == "--native") {
      O.Native = true;
    } else if (A == "--json") {
      O.Json = true;
    } else if (A == "--iterations" || A == "--warmup") {
      auto V = Value();
      unsigned N;
      if (!V)
        return (A + " needs a number").str();
      if (V->getAsInteger(10, N))
        return (A + ": expected a non-negative integer below 2^32, got '" +
                *V + "'")
            .str();
      (A == "--iterations" ? O.Iterations : O.Warmup) = N;
    } else if (A == "--wait") {
      auto V = Value();
      if (!V || (*V != "yield" && *V != "busy"))
        return std::string("--wait needs yield or busy");
      O.Wait = *V == "busy" ? WaitMode::Busy : WaitMode::Yield;
    } else if (A == "--op") {
      auto V = Value();
      std::optional<ReduceData> D;
      if (V)
        D = parseReduceData(*V);
      if (!D)
        return std::string("--op needs sum-int, sum-double, "
                           "maxloc-double-int or matmul-2x2");
      O.Op = *D;
    } else if (A.starts_with("-") && A != "-") {
      return ("unknown option " + A).str();
    } else {
      Files.push_back(A.str());
    }
  }
  if (Files.empty())
    return std::string("missing the schedule file");
  O.File = Files.front();
  if (O.Iterations == 0)
    return std::string("--iterations must be at least 1");
  return std::nullopt;
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Me;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  RunOptions O;
  std::vector<std::string> Files;
  int Code = ExitOk;
  // Every rank parses its own command line (mpiexec's `:` gives ranks
  // different ones): one rank's bad arguments are every rank's refusal.
  bool Help = false;
  std::optional<std::string> Err = parseArgs(Argc, Argv, O, Files, Help);
  // Every rank must run the same number of files, or the ranks with more
  // would wait in the next file's collectives for ranks already finalizing.
  // --help on any rank prints the usage (rank 0) and runs nothing anywhere.
  long Counts[3] = {static_cast<long>(Files.size()),
                    -static_cast<long>(Files.size()), Help ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, Counts, 3, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (Counts[2]) {
    if (Me == 0)
      llvm::outs() << Usage;
    MPI_Finalize();
    return ExitOk;
  }
  if (!Err && Counts[0] != -Counts[1])
    Err = "got " + std::to_string(Files.size()) +
          " schedule files, but other ranks got between " +
          std::to_string(-Counts[1]) + " and " + std::to_string(Counts[0]);
  if (Err)
    *Err = "rank " + std::to_string(Me) + ": " + *Err;
  if (llvm::Error E = agreeOnErrors(MPI_COMM_WORLD, Err ? *Err : "")) {
    std::string Msg = llvm::toString(std::move(E));
    if (Me == 0)
      llvm::errs() << "choreo-run: error: " << Msg << "\n\n" << Usage;
    Code = ExitInvalid;
  } else {
    // Plans and communicators are gone when it returns, before
    // MPI_Finalize. Several files run one after another in the one job;
    // the exit code is the worst.
    for (const std::string &F : Files) {
      O.File = F;
      Code = std::max(Code, runSchedule(O));
    }
  }
  MPI_Finalize();
  return Code;
}
