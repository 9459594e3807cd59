//===- tools/choreo-run/choreo-run.cpp - Run a schedule under mpiexec -----===//
///
/// \file
/// `mpiexec -n N choreo-run FILE... [--iterations K] [--warmup W] [--check]
/// [--json] [--native] [--wait yield|busy] [--op OP]
/// [--flow-control BYTES|off]`: parses the options and
/// calls harness::runSchedule (harness/Run.h), which proves the schedule (once,
/// on rank 0), runs it K times and reports the median over iterations of
/// the slowest rank's time. Exit codes (ir/ExitCodes.h): 0 success, 1 a
/// check fails, 2 the schedule, job or arguments are refused.
///
//===----------------------------------------------------------------------===//

#include "harness/Run.h"
#include "ir/ExitCodes.h"
#include "options/Command.h"
#include "options/Help.h"
#include "options/Parse.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mpi.h>
#include <optional>
#include <string>
#include <vector>

using namespace choreo;
using namespace choreo::harness;

namespace {

const CommandDoc RunDoc = {
    "usage: mpiexec -n N choreo-run FILE... [options]\n",
    R"(Runs a schedule (format v1, JSON or CBOR) over MPI point-to-point. Rank 0
proves it first; the job must have exactly the schedule's number of ranks.
Several files run one after another in the same job (exit code: the worst).
FILE '-' is standard input (at most 1 GiB), given to every rank alike: rank
0 reads it and sends it to the others (a job mixing '-' and files is
refused on every rank).
)",
    R"(Times are per iteration the slowest rank's, then the median over iterations.
exit codes: 0 success, 1 a check fails, 2 refused (schedule, job, arguments).
)"};

/// --iterations and --warmup: below 2^32.
Option<uint64_t> runCount(llvm::StringRef Name, llvm::StringRef Help,
                          llvm::StringRef Meta, llvm::StringRef Default) {
  return countOption(Name, Help)
      .withMetavar(Meta)
      .withDefault(Default)
      .parsedBy(
          numberParser(0, UINT32_MAX, "a non-negative integer below 2^32"))
      .missingValue(("--" + Name + " needs a number").str());
}

/// choreo-run's options, declared once.
struct RunOptionSet {
  Option<uint64_t> Iterations = runCount("iterations", "timed runs", "K", "10");
  Option<uint64_t> Warmup =
      runCount("warmup", "untimed runs before them", "W", "1");
  Option<bool> Check = flagOption(
      "check", "compare every rank's result with the expected bytes and with "
               "MPICH's own collective on the same communicator (a barrier: "
               "one rank at a time arrives 50 ms late, and no other rank may "
               "leave before it arrived)");
  Option<bool> Native = flagOption(
      "native", "also time MPICH's collective: blocking, and non-blocking "
                "waited on with MPI_Testall + sched_yield");
  Option<OneOf<WaitMode>> Wait =
      choiceOption<WaitMode>(
          "wait",
          "yield (MPI_Testall + sched_yield) or busy "
          "(MPI_Waitall)",
          {{"yield", WaitMode::Yield}, {"busy", WaitMode::Busy}})
          .withMetavar("MODE")
          .withDefault("yield")
          .parsedBy(choiceParser(
              [](llvm::StringRef) { return "--wait needs yield or busy"; }))
          .missingValue("--wait needs yield or busy");
  Option<OneOf<ReduceData>> Op = [] {
    const char *Needs = "--op needs sum-int, sum-double, maxloc-double-int "
                        "or matmul-2x2";
    std::vector<Option<OneOf<ReduceData>>::Word> Table;
    for (ReduceData D : {ReduceData::SumInt, ReduceData::SumDouble,
                         ReduceData::MaxlocDoubleInt, ReduceData::Matmul2x2})
      Table.push_back({reduceDataName(D), D});
    return choiceOption<ReduceData>(
               "op",
               "reductions: sum-int (4-byte ints, exact), sum-double "
               "(doubles, within a relative 1e-12), maxloc-double-int "
               "(MPI_MAXLOC on MPI_DOUBLE_INT, 16-byte elements), "
               "matmul-2x2 (a user-defined non-commutative product of "
               "16-byte 2x2 int matrices; equal to MPICH's bit for bit)",
               Table)
        .withMetavar("OP")
        .withDefault("sum-int")
        .parsedBy(choiceParser([=](llvm::StringRef) { return Needs; }))
        .missingValue(Needs);
  }();
  Option<bool> Json =
      flagOption("json", "print the results as one JSON object (rank 0)");
  Option<SizeOrWord> FlowControl =
      sizeOrWordOption(
          "flow-control",
          "receiver-driven flow control: a message of at least BYTES "
          "(64K, 1M) is sent only once its receiver, in the step, sent a "
          "zero-byte clear-to-send (docs/executor.md, \"Flow control\"); "
          "off: every message eager",
          {"off"})
          .withMetavar("BYTES")
          .withDefault("off");

  std::vector<OptionDecl> decls() const {
    return {Iterations, Warmup, Check, Native, Wait, Op, Json, FlowControl};
  }
};

const RunOptionSet &runOpts() {
  static const RunOptionSet O;
  return O;
}

llvm::ArrayRef<OptionDecl> runDecls() {
  static const std::vector<OptionDecl> Decls = runOpts().decls();
  return Decls;
}

std::string usage() { return commandHelp(RunDoc, runDecls()); }

/// Fills O from the arguments; returns the problem with them, if any.
std::optional<std::string> parseArgs(int Argc, char **Argv, RunOptions &O,
                                     std::vector<std::string> &Files,
                                     bool &Help) {
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  if (wantsHelp(Args)) {
    Help = true;
    return std::nullopt;
  }
  CommandLine C;
  llvm::Error E = parseCommandLineInto(Args, runDecls(), {}, C);
  // The files read before a refused option still count (every rank must
  // be given as many).
  Files = C.Positionals;
  if (E)
    return llvm::toString(std::move(E));
  const OptionValues &V = C.Values;
  const RunOptionSet &R = runOpts();
  O.Iterations = V.get(R.Iterations);
  O.Warmup = V.get(R.Warmup);
  O.Check = V.get(R.Check);
  O.Native = V.get(R.Native);
  O.Json = V.get(R.Json);
  O.Wait = V.get(R.Wait);
  O.Op = V.get(R.Op);
  SizeOrWord FC = V.get(R.FlowControl);
  O.FlowControlBytes = FC.Bytes ? *FC.Bytes : 0;
  if (FC.Bytes && *FC.Bytes == 0)
    return std::string("--flow-control needs a positive number of bytes or "
                       "off");
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
      llvm::outs() << usage();
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
      llvm::errs() << "choreo-run: error: " << Msg << "\n\n" << usage();
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
