//===- tools/choreo/TraceCommand.cpp - choreo trace
//------------------------===//
///
/// \file
/// `choreo trace`: runs an MPI program with the trace's preload library
/// (or reads a kept trace directory), reconstructs the traced call's
/// schedule (trace/Reconstruct.h), proves it with the explicit engine,
/// reports what the record shows beyond it, and compares it op for op with
/// a generator's schedule or a file (trace/Compare.h). docs/trace.md.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "generators/CallOptions.h"
#include "generators/Generator.h"
#include "trace/Compare.h"
#include "trace/Launch.h"
#include "trace/Reconstruct.h"
#include "verifier/Verifier.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::trace;
using llvm::formatv;

namespace {

const CommandDoc TraceDoc = {
    R"(usage: choreo trace --collective C [--bytes N | --counts LIST] [--root R]
                    [--op commutative|noncommutative]
                    [--encoding sum|or|ordered] [--impl LIB:SYMBOL]
                    [--index K] [OPTIONS] -- COMMAND...
       choreo trace --from DIR [OPTIONS]
)",
    R"(Runs COMMAND (e.g. mpiexec -n 13 choreo-trace-driver) with the trace's
preload library. The program's K-th call of the collective (MPI_Bcast,
MPI_Gather, MPI_Gatherv, MPI_Scatter, MPI_Scatterv, MPI_Allgather,
MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallv, MPI_Barrier, MPI_Reduce,
MPI_Allreduce, MPI_Reduce_scatter, MPI_Reduce_scatter_block) runs
once on content-tagged buffers of the same sizes: by MPICH, or by the
implementation --impl names (a function with the MPI call's signature in a
shared library); every point-to-point message it sends is recorded at
MPICH's UCX layer. Then the program's own call runs on its own data.
choreo-trace-driver makes one call of the sizes given here.

The record becomes a schedule (format v1): every non-empty message an op
carrying what its bytes say, at the step the happens-before order gives it
(--steps, --ports). The schedule is proved with the explicit engine; what
the record shows beyond it (a rank's result that is wrong, a partial of the
ordered operator combined out of rank order) is reported in the same words.
--against compares it op for op with a generator's schedule for the same
call (ALGO or ALGO:option=value:...) or with a schedule file.

MPICH runs with MPIR_CVAR_NOLOCAL=1 (every process its own node) unless
--local: its shared-memory and node-aware paths are then out of the way and
MPICH chooses its algorithms as on a cluster of one process per node.
)",
    R"(exit codes: 0 traced and proved (and equal to --against), 1 a property
or a finding fails, or the schedules differ, 2 the call cannot be traced
(the reason is printed) or bad arguments.
example:
  choreo trace --collective bcast --bytes 1M --root 3 --against bcast-mpich \
      -o bcast.json -- mpiexec -n 13 build/bin/choreo-trace-driver
  choreo trace --collective alltoallv --counts 0,8,16,8,0,24,16,8,0 \
      --ports observed --against alltoallv-mpich \
      -- mpiexec -n 3 build/bin/choreo-trace-driver
  choreo trace --collective barrier --against barrier-mpich \
      -- mpiexec -n 6 build/bin/choreo-trace-driver
)"};

Option<std::string> word(llvm::StringRef Name, llvm::StringRef Help,
                         llvm::ArrayRef<llvm::StringRef> Words,
                         llvm::StringRef Default = "") {
  Option<std::string> O = wordOption(Name, Help, Words);
  return Default.empty() ? O : O.withDefault(Default);
}

const Option<std::string> &collectiveOpt() {
  static const auto O =
      word("collective", "the MPI collective to trace",
           {"bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
            "allgatherv", "alltoall", "alltoallv", "barrier", "reduce",
            "allreduce", "reduce_scatter", "reduce_scatter_block"});
  return O;
}
const Option<Size> &bytesOpt() {
  static const auto O = sizeOption(
      "bytes", "bytes each rank contributes or receives (gather, scatter, "
               "allgather), sends every rank (alltoall), or the vector's "
               "(bcast, reductions): what choreo-trace-driver passes");
  return O;
}
const Option<SizeList> &countsOpt() {
  static const auto O = sizeListOption(
      "counts", "allgatherv, gatherv, scatterv, reduce_scatter: comma list "
                "of bytes, one per rank; alltoallv: p x p, row-major (entry "
                "i*p+j: the bytes rank i sends rank j) (for "
                "choreo-trace-driver)");
  return O;
}
const Option<uint64_t> &rootOpt() {
  static const auto O =
      rankOption("root", "the root (for choreo-trace-driver)").withDefault("0");
  return O;
}
const Option<std::string> &opOpt() {
  static const auto O =
      word("op",
           "reductions: choreo-trace-driver calls with a built-in operator "
           "(MPI_SUM) or an operator of its own that does not commute",
           {"commutative", "noncommutative"}, "commutative");
  return O;
}
const Option<std::string> &encodingOpt() {
  static const auto O =
      word("encoding",
           "reductions: sum counts each rank's contributions (at most "
           "16 ranks), or sets a bit per rank (at most 32; a "
           "contribution combined twice does not show), ordered "
           "multiplies per-rank matrices, a user operator that does "
           "not commute (at most 64); default: sum or or for a "
           "built-in operator, ordered for the program's own",
           {"sum", "or", "ordered"});
  return O;
}
const Option<std::string> &implOpt() {
  static const auto O =
      textOption("impl",
                 "run this implementation of the call instead of MPICH's: a "
                 "function with the MPI call's signature in a shared library",
                 "LIB:SYMBOL");
  return O;
}
const Option<uint64_t> &indexOpt() {
  static const auto O =
      countOption("index", "trace the program's K-th call of the collective, "
                           "from 0")
          .withMetavar("K")
          .withDefault("0");
  return O;
}
const Option<std::string> &stepsOpt() {
  static const auto O =
      word("steps",
           "data: a message follows the messages its sender received "
           "before it whose content it carries on; time: every message "
           "its sender received before it",
           {"data", "time"}, "data");
  return O;
}
const Option<std::string> &portsOpt() {
  static const auto O =
      word("ports",
           "single: one send and one receive per rank and step, in each "
           "rank's order; observed: no such order, the header states the "
           "most a rank used",
           {"single", "observed"}, "single");
  return O;
}
const Option<bool> &localOpt() {
  static const auto O = flagOption(
      "local", "leave MPIR_CVAR_NOLOCAL unset (MPICH's node-aware choices)");
  return O;
}
const Option<std::string> &keepOpt() {
  static const auto O =
      textOption("keep", "keep the record in DIR (created if missing)", "DIR");
  return O;
}
const Option<std::string> &fromOpt() {
  static const auto O = textOption(
      "from", "reconstruct from the record in DIR, running nothing", "DIR");
  return O;
}
const Option<std::string> &againstOpt() {
  static const auto O =
      textOption("against",
                 "compare op for op with a generator's schedule for the same "
                 "call, or with a schedule file",
                 "ALGO|FILE");
  return O;
}
const Option<std::string> &outOpt() {
  static const auto O =
      textOption("o", "write the schedule to FILE (- for standard output)",
                 "FILE")
          .singleDash();
  return O;
}

llvm::ArrayRef<OptionDecl> traceDecls() {
  static const OptionDecl Decls[] = {
      collectiveOpt(), bytesOpt(),    countsOpt(), rootOpt(),
      opOpt(),         encodingOpt(), implOpt(),   indexOpt(),
      stepsOpt(),      portsOpt(),    localOpt(),  keepOpt(),
      fromOpt(),       againstOpt(),  outOpt(),    formatOpt()};
  return Decls;
}

std::string traceUsage() { return commandHelp(TraceDoc, traceDecls()); }

/// The environment the preload library and the driver read.
std::vector<std::pair<std::string, std::string>> traceEnv(const OptionValues &V,
                                                          llvm::StringRef Dir) {
  std::vector<std::pair<std::string, std::string>> E = {
      {"CHOREO_TRACE_DIR", Dir.str()},
      {"CHOREO_TRACE_CALL", V.get(collectiveOpt())},
      {"CHOREO_TRACE_INDEX", std::to_string(V.get(indexOpt()))},
      {"CHOREO_TRACE_ROOT", std::to_string(V.get(rootOpt()))}};
  if (auto B = V.lookup(bytesOpt()))
    E.push_back({"CHOREO_TRACE_BYTES", std::to_string(*B)});
  if (auto C = V.lookup(countsOpt())) {
    std::vector<std::string> S;
    for (uint64_t X : *C)
      S.push_back(std::to_string(X));
    E.push_back({"CHOREO_TRACE_COUNTS", llvm::join(S, ",")});
  }
  E.push_back({"CHOREO_TRACE_OP",
               V.get(opOpt()) == "commutative" ? "builtin" : "user"});
  if (auto Enc = V.lookup(encodingOpt()))
    E.push_back({"CHOREO_TRACE_ENCODING", *Enc});
  if (auto I = V.lookup(implOpt()))
    E.push_back({"CHOREO_TRACE_IMPL", *I});
  if (!V.get(localOpt()))
    E.push_back({"MPIR_CVAR_NOLOCAL", "1"});
  return E;
}

/// Runs the command into a record directory (kept, or temporary).
llvm::Expected<std::string> runTraced(const OptionValues &V,
                                      llvm::ArrayRef<std::string> Command,
                                      const char *Argv0, bool &Temporary) {
  auto Lib = findPreloadLibrary(Argv0);
  if (!Lib)
    return Lib.takeError();
  llvm::SmallString<128> Dir;
  if (auto K = V.lookup(keepOpt())) {
    Dir = *K;
    if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
      return makeDiagError("trace-launch", formatv("--keep: cannot create {0}: "
                                                   "{1}",
                                                   Dir, EC.message())
                                               .str());
    // A record left by an earlier run would be read as this one's.
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      if (llvm::sys::path::filename(It->path()).starts_with("rank-"))
        llvm::sys::fs::remove(It->path());
  } else {
    if (std::error_code EC =
            llvm::sys::fs::createUniqueDirectory("choreo-trace", Dir))
      return makeDiagError("trace-launch", "cannot create a directory for the "
                                           "record: " +
                                               EC.message());
    Temporary = true;
  }
  LaunchSpec S;
  S.Command = Command;
  S.Library = *Lib;
  S.Env = traceEnv(V, Dir);
  if (auto E = launch(S))
    return E;
  return Dir.str().str();
}

/// The schedule --against names: a file, or a generator for S's call.
llvm::Expected<Schedule>
againstSchedule(llvm::StringRef Spec, const Schedule &S, uint64_t ElemBytes) {
  if (llvm::sys::fs::is_regular_file(Spec))
    return readScheduleFile(Spec);
  auto [Id, Rest] = Spec.split(':');
  const Generator *G = findGenerator(Id);
  if (!G)
    return makeDiagError("trace-against",
                         "--against: '" + Spec.str() +
                             "' is neither a file nor a generator (see `choreo "
                             "list`)");
  std::vector<std::string> Args;
  while (!Rest.empty()) {
    auto [Opt, Tail] = Rest.split(':');
    Args.push_back("--" + Opt.str());
    Rest = Tail;
  }
  auto Own = parseGenArgs(Args);
  if (!Own)
    return Own.takeError();
  auto V = callOptions(*G, S.header(), ElemBytes, *Own);
  if (!V)
    return V.takeError();
  return G->generate(*V);
}

/// "timing: the call took 1.2 ms traced, 0.4 ms untraced (the slowest
/// rank)", or nothing without times.
std::string timing(const TraceRecord &T) {
  double A = 0, B = 0;
  for (const ProcessRecord &P : T.Ranks)
    if (P.Timing) {
      A = std::max(A, P.Timing->first);
      B = std::max(B, P.Timing->second);
    }
  if (!A)
    return "";
  return formatv("timing: the call took {0:f3} ms traced, {1:f3} ms "
                 "untraced (the slowest rank)\n",
                 A * 1e3, B * 1e3);
}

/// Reports the reconstruction; returns the exit code.
int report(const TraceRecord &T, const Reconstruction &R, const OptionValues &V,
           llvm::raw_ostream &OS, uint64_t ElemBytes) {
  const Schedule &S = R.S;
  // A barrier's messages carry knowledge, not bytes (docs/trace.md).
  bool Knowledge = S.spec().NoPayload;
  OS << formatv(
      "traced: {0}, {1} ranks{2}, by {3}: {4} messages ({5}){6}{7}\n{8}",
      collectiveName(S.Kind), S.NumRanks,
      S.Root ? formatv(", root {0}", *S.Root).str() : "",
      S.Params->value("impl", "mpich"), R.Messages,
      Knowledge
          ? formatv("{0} bytes; each tells what its sender knew", R.Bytes).str()
          : formatv("{0} bytes", R.Bytes).str(),
      !R.EmptyMessages ? ""
      : Knowledge
          ? formatv(", {0} that told their receiver nothing new left out",
                    R.EmptyMessages)
                .str()
          : formatv(", {0} empty ones left out", R.EmptyMessages).str(),
      R.SelfMessages ? formatv(", {0} a rank sent itself (local copies) left "
                               "out",
                               R.SelfMessages)
                           .str()
                     : "",
      timing(T));
  OS << formatv("schedule: {0} steps, {1} ops, ports send {2} recv {3} "
                "(steps: {4}, ports: {5})\n",
                S.Steps.numSteps(), S.Steps.numOps(), S.Port.Send, S.Port.Recv,
                V.get(stepsOpt()), V.get(portsOpt()));
  int Exit = ExitOk;
  VerifyResult VR = checkExplicit(S);
  if (VR.proved()) {
    OS << "verify: proved\n";
  } else {
    OS << formatv("verify: not proved, {0} {1}\n", VR.Diags.size(),
                  VR.Diags.size() == 1 ? "property fails" : "properties fail");
    printDiagnostics(OS, VR.Diags);
    Exit = VR.exitCode();
  }
  if (!R.Findings.empty()) {
    OS << formatv("trace: {0} {1}\n", R.Findings.size(),
                  R.Findings.size() == 1 ? "finding" : "findings");
    printDiagnostics(OS, R.Findings);
    Exit = std::max(Exit, int(ExitFailed));
  }
  if (auto A = V.lookup(againstOpt())) {
    auto Other = againstSchedule(*A, S, ElemBytes);
    if (!Other) {
      printError(OS, Other.takeError());
      return ExitInvalid;
    }
    Comparison C = compareSchedules(S, "trace", *Other, *A);
    OS << "against " << *A << ": " << C.Lines.front() << "\n";
    for (size_t I = 1; I < C.Lines.size(); ++I)
      OS << "  " << C.Lines[I] << "\n";
    if (!C.Equal)
      Exit = std::max(Exit, int(ExitFailed));
  }
  return Exit;
}

} // namespace

int choreo::cmdTrace(llvm::ArrayRef<std::string> Args) {
  std::string Usage = traceUsage();
  auto Dash = std::find(Args.begin(), Args.end(), "--");
  llvm::ArrayRef<std::string> Own(Args.begin(), Dash);
  llvm::ArrayRef<std::string> Command =
      Dash == Args.end() ? llvm::ArrayRef<std::string>()
                         : llvm::ArrayRef<std::string>(Dash + 1, Args.end());
  if (wantsHelp(Own)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  CommandRules Rules;
  Rules.Positionals = false;
  auto C = parseCommand(Own, traceDecls(), Usage, Rules);
  if (!C)
    return ExitInvalid;
  const OptionValues &V = C->Values;
  std::optional<std::string> From = V.lookup(fromOpt());
  if (From && (!Command.empty() || Dash != Args.end()))
    return usageError("--from reads a record: give no command", Usage);
  if (!From && !V.given(collectiveOpt()))
    return usageError("missing --collective (or --from DIR)", Usage);
  if (!From && Command.empty())
    return usageError("missing the command to trace, after --", Usage);
  bool Temporary = false;
  std::string Dir;
  if (From) {
    Dir = *From;
  } else {
    auto D = runTraced(V, Command, "choreo", Temporary);
    if (!D) {
      printError(llvm::errs(), D.takeError());
      return ExitInvalid;
    }
    Dir = *D;
  }
  auto Cleanup = llvm::make_scope_exit([&] {
    if (Temporary)
      llvm::sys::fs::remove_directories(Dir);
  });
  auto T = readTraceDir(Dir);
  if (!T) {
    printError(llvm::errs(), T.takeError());
    return ExitInvalid;
  }
  std::string Asked = V.get(collectiveOpt());
  // The record names the collective (schedule-format.md), not the MPI call.
  if (Asked == "reduce_scatter_block")
    Asked = "reduce_scatter";
  else if (Asked == "gatherv" || Asked == "scatterv")
    Asked.pop_back();
  if (V.given(collectiveOpt()) && T->call().Collective != Asked) {
    llvm::errs() << "error: the record in " << Dir << " is of "
                 << T->call().Collective << ", not " << V.get(collectiveOpt())
                 << "\n";
    return ExitInvalid;
  }
  ReconstructOptions O;
  O.Steps = V.get(stepsOpt()) == "time" ? StepRule::Time : StepRule::Data;
  O.Ports =
      V.get(portsOpt()) == "observed" ? PortRule::Observed : PortRule::Single;
  auto R = reconstruct(*T, O);
  if (!R) {
    llvm::errs() << "error: the call cannot be traced:\n";
    printError(llvm::errs(), R.takeError());
    return ExitInvalid;
  }
  std::optional<std::string> Out = V.lookup(outOpt());
  if (Out) {
    std::optional<FileFormat> F = V.lookup(formatOpt());
    if (auto E = writeScheduleFile(R->S, *Out, F ? *F : formatForPath(*Out))) {
      printError(llvm::errs(), std::move(E));
      return ExitInvalid;
    }
  }
  uint64_t Elem = T->call().isReduction() ? T->call().ElemBytes : 1;
  return report(*T, *R, V, Out && *Out == "-" ? llvm::errs() : llvm::outs(),
                Elem);
}
