//===- tools/choreo/choreo.cpp - The choreo command-line driver -----------===//
///
/// \file
/// `choreo list | gen | verify | show | stats | prove | cost | compare |
/// export | synth | select | trace | tune`: dispatches to the command, each of which reads
/// its declared options (options/Command.h) and calls one library entry
/// point; list, verify, show and stats are here, gen, prove, the cost
/// commands, select and synth in files of their own. Exit codes: 0 success
/// (for verify: proved), 1 a property fails, 2 unreadable or invalid input
/// or bad arguments.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "cost/Stats.h"
#include "generators/CommonOptions.h"
#include "generators/Generator.h"
#include "ir/ScheduleIO.h"
#include "template/Template.h"
#include "verifier/DistributedCheck.h"
#include "verifier/Verifier.h"
#include "verifier/smt/Prover.h"
#include "verifier/smt/Smt.h"
#include "views/ScheduleTable.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatAdapters.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>
#include <nlohmann/json.hpp>

using namespace choreo;

namespace {

const char *MainUsage =
    R"(usage: choreo <command> [arguments]

Generate, prove and inspect MPI collective-communication schedules.

commands:
  list                      the algorithms choreo generates
  gen ALGO [OPTIONS]        generate a schedule (format v1, JSON or CBOR)
  verify FILE|-             prove a schedule: availability, ports, topology,
                            completeness (and exactly-once for reductions)
  show FILE|-               a step-by-step table of who sends what to whom
  stats FILE|- [--json]     steps, bytes of the busiest sender and receiver,
                            bytes moved, lock-step bandwidth term
  prove ALGO|TEMPLATE       prove a template (affine loop nests over p, q)
                            for every p and q in its domain (--all: every
                            template choreo ships, as a table)
  cost FILE|-               predicted time under the alpha-beta(-gamma)
                            model: lock step and asynchronous
  compare ALGO... OPTIONS   predicted times and speed-ups of algorithms over
                            message sizes (--sizes), as a table or a chart
  export --goal FILE|-      the schedule in LogGOPSim's GOAL format
  synth --collective C ...  the fewest steps of a small instance, found by
                            Z3 (a schedule, or a proof that none exists)
  select --collective C --p P --bytes N
                            the fastest reduction algorithms under the model
                            (or a map of the winners: --plot FILE.svg)
  trace --collective C ... -- COMMAND
                            the schedule of a real MPI call, from the messages
                            it sends (docs/trace.md)
  tune [--machine FILE]     the drop-in library's selection file, MPICH's
                            and Open MPI's tuning files (--mpich, --ompi)
                            from the (calibrated) model (docs/machine.md)

`choreo <command> --help` describes a command.
exit codes: 0 success or proved, 1 a property fails, 2 invalid input.
)";

enum class Engine { Explicit, Smt, Both };

const Option<OneOf<Engine>> &engineOpt() {
  static const Option<OneOf<Engine>> O =
      choiceOption<Engine>("engine",
                           "explicit replays the schedule over interval "
                           "sets; smt encodes the same properties for Z3 and "
                           "proves them by refutation; both runs the two and "
                           "fails if they disagree",
                           {{"explicit", Engine::Explicit},
                            {"smt", Engine::Smt},
                            {"both", Engine::Both}})
          .withDefault("explicit")
          .parsedBy(choiceParser([](llvm::StringRef V) {
            return ("--engine: expected explicit, smt or both, got '" + V + "'")
                .str();
          }));
  return O;
}

const Option<uint64_t> &verifyTimeout() {
  static const Option<uint64_t> O =
      timeoutOpt("the SMT engine's limit in seconds", "S").withDefault("60");
  return O;
}

const Option<bool> &verifyDistributed() {
  static const Option<bool> O = flagOption(
      "distributed",
      "prove it as a job of p ranks would, every rank simulated in this "
      "process: each rank checks its own ops, each node's lowest rank its "
      "node ports, and every message's two ends agree on its digest "
      "(docs/distributed-proof.md); the same verdict and diagnostics as the "
      "explicit engine");
  return O;
}

llvm::ArrayRef<OptionDecl> verifyDecls() {
  static const OptionDecl Decls[] = {engineOpt(), verifyTimeout(),
                                     verifyDistributed()};
  return Decls;
}

const CommandDoc VerifyDoc = {
    "usage: choreo verify FILE|- [--engine explicit|smt|both] [--timeout S]\n"
    "                            [--distributed]\n",
    R"(Proves a schedule (JSON or CBOR, "-" reads standard input) with the explicit
engine: every op's sender holds what it sends (availability), per step no
rank exceeds its send/recv ports (and, unless duplex, never both sends and
receives), every op is a link of the topology, every rank ends with what the
collective requires (completeness), and reductions combine each contribution
exactly once. With `nodes`, per step no node sends more ops to other nodes
(or receives more from them) than `node_ports` allow; with a non-commutative
`op`, every combination joins two adjacent rank intervals (operand order).
Reports the first failure of each kind with its step, rank and block.

With --distributed the same properties are proved split over the ranks, as
a job that never builds the whole schedule proves them: every rank checks
its own sends and receives, the lowest rank of every node counts the
node's off-node ops, and every message's sender and receiver agree on a
digest of it. Example:
  choreo gen allgather-bruck --p 6 --bytes 4 | choreo verify --distributed -
)",
    R"(exit codes: 0 proved, 1 a property fails (or the SMT engine cannot decide,
or the engines disagree), 2 unreadable or invalid schedule.
)"};

std::string verifyUsage() { return commandHelp(VerifyDoc, verifyDecls()); }

const CommandDoc ShowDoc = {
    "usage: choreo show FILE|-\n",
    R"(Prints a schedule step by step: every op as `src -> dst  blocks  messages`,
ranks of intergroup collectives named a0.., b0.., blocks as buffer byte ranges
and the member messages they carry (m_A3 is a3's whole message, m_B0[0,3) its
first three bytes).
)",
    ""};

std::string showUsage() { return commandHelp(ShowDoc, {}); }

const CommandDoc ListDoc = {
    "usage: choreo list\n",
    "Lists the generators by id with a one-line description.\n", ""};

int cmdList(llvm::ArrayRef<std::string> Args) {
  std::string Usage = commandHelp(ListDoc, {});
  if (wantsHelp(Args)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  CommandRules NoArguments;
  NoArguments.Positionals = false;
  if (!parseCommand(Args, {}, Usage, NoArguments))
    return ExitInvalid;
  size_t W = 0;
  for (const Generator *G : allGenerators())
    W = std::max(W, G->id().size());
  for (const Generator *G : allGenerators())
    llvm::outs() << llvm::formatv(
        "{0}  {1}\n", llvm::fmt_align(G->id(), llvm::AlignStyle::Left, W),
        G->summary());
  return ExitOk;
}

/// Whether two engines' results agree: the same status and the same
/// diagnostics.
bool sameResult(const VerifyResult &A, const VerifyResult &B) {
  if (A.St != B.St || A.Diags.size() != B.Diags.size())
    return false;
  for (size_t I = 0; I < A.Diags.size(); ++I)
    if (A.Diags[I].Kind != B.Diags[I].Kind ||
        A.Diags[I].Message != B.Diags[I].Message)
      return false;
  return true;
}

/// " (distributed: 6 ranks of at most 6 ops, 2 node checks, 18 sender-
/// receiver pairs agree)".
std::string distributedSummary(const DistributedStats &DS) {
  std::string Nodes =
      DS.NodeChecks ? llvm::formatv(", {0} node checks", DS.NodeChecks).str()
                    : "";
  return llvm::formatv(" (distributed: {0} ranks of at most {1} ops{2}, {3} "
                       "sender-receiver pairs agree)",
                       DS.Ranks, DS.MaxRankOps, Nodes, DS.Digests)
      .str();
}

int cmdVerify(llvm::ArrayRef<std::string> Args) {
  std::string Usage = verifyUsage();
  if (wantsHelp(Args)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  auto C = parseCommand(Args, verifyDecls(), Usage);
  if (!C)
    return ExitInvalid;
  Engine E = C->Values.get(engineOpt());
  bool Distributed = C->Values.get(verifyDistributed());
  if (Distributed && C->Values.given(engineOpt()))
    return usageError("--distributed proves with the explicit engine's rules "
                      "per rank; it takes no --engine",
                      Usage);
  SmtOptions SO;
  SO.TimeoutMs = C->Values.get(verifyTimeout()) * 1000;
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(C->Positionals, Usage, Exit);
  if (!S)
    return Exit;
  DistributedStats DS;
  VerifyResult R = Distributed        ? checkDistributed(*S, &DS)
                   : E == Engine::Smt ? checkSmt(*S, SO)
                                      : checkExplicit(*S);
  if (E == Engine::Both && !Distributed) {
    VerifyResult Z = checkSmt(*S, SO);
    if (!sameResult(R, Z)) {
      llvm::errs() << "error: the engines disagree\n";
      llvm::errs() << "note: explicit engine:\n";
      printDiagnostics(llvm::errs(), R.Diags);
      llvm::errs() << "note: SMT engine:\n";
      printDiagnostics(llvm::errs(), Z.Diags);
      return ExitFailed;
    }
  }
  printDiagnostics(llvm::errs(), R.Diags);
  std::string What = llvm::formatv(
      "{0} ({1}, {2} ranks, {3} steps, {4} ops)",
      S->Algorithm.empty() ? "schedule" : S->Algorithm, collectiveName(S->Kind),
      S->NumRanks, S->Steps.numSteps(), S->Steps.numOps());
  if (R.proved()) {
    llvm::outs() << "proved: " << What << ": availability, ports, topology, "
                 << (S->spec().isReduction() ? "completeness, exactly-once"
                                             : "completeness")
                 << (S->hasNodes() ? ", node ports" : "")
                 << (S->commutative() ? "" : ", operand order")
                 << (Distributed             ? distributedSummary(DS)
                     : E == Engine::Explicit ? ""
                                             : " (" + engineOpt().word(E) + ")")
                 << "\n";
  } else {
    llvm::outs() << "not proved: " << What << ": " << R.Diags.size()
                 << (R.Diags.size() == 1 ? " property fails\n"
                                         : " properties fail\n");
  }
  return R.exitCode();
}

int cmdShow(llvm::ArrayRef<std::string> Args) {
  std::string Usage = showUsage();
  if (wantsHelp(Args)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  auto C = parseCommand(Args, {}, Usage);
  if (!C)
    return ExitInvalid;
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(C->Positionals, Usage, Exit);
  if (!S)
    return Exit;
  printScheduleTable(*S, llvm::outs());
  return ExitOk;
}

const CommandDoc StatsDoc = {
    "usage: choreo stats FILE|- [--json]\n",
    R"(Counts what a schedule moves: steps (start-ups in lock step), ops, bytes
moved in all, the bytes the busiest rank sends and receives, the most
messages any rank receives, and the lock-step bandwidth term (the sum over
steps of each step's largest message, in bytes).
)",
    ""};

const Option<bool> &statsJson() {
  static const Option<bool> O =
      flagOption("json", "print the counts as one JSON object");
  return O;
}

int cmdStats(llvm::ArrayRef<std::string> Args) {
  static const OptionDecl Decls[] = {statsJson()};
  std::string Usage = commandHelp(StatsDoc, Decls);
  if (wantsHelp(Args)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  auto C = parseCommand(Args, Decls, Usage);
  if (!C)
    return ExitInvalid;
  bool Json = C->Values.get(statsJson());
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(C->Positionals, Usage, Exit);
  if (!S)
    return Exit;
  ScheduleStats St = computeStats(*S);
  if (Json) {
    nlohmann::ordered_json J = {
        {"algorithm", S->Algorithm},
        {"steps", St.Steps},
        {"ops", St.Ops},
        {"bytes_moved", St.BytesMoved},
        {"max_sent", St.MaxSent},
        {"max_sent_rank", St.MaxSentRank},
        {"max_received", St.MaxRecv},
        {"max_received_rank", St.MaxRecvRank},
        {"max_messages_received", St.MaxMessagesReceived},
        {"lockstep_bytes", St.LockstepBytes}};
    llvm::outs() << jsonText(J) << '\n';
    return ExitOk;
  }
  llvm::outs() << llvm::formatv(
      "steps {0}, ops {1}, bytes moved {2}\n"
      "busiest sender: rank {3}, {4} bytes; busiest receiver: rank {5}, {6} "
      "bytes; at most {7} messages received by a rank\n"
      "lock-step bandwidth term: {8} bytes\n",
      St.Steps, St.Ops, St.BytesMoved, St.MaxSentRank, St.MaxSent,
      St.MaxRecvRank, St.MaxRecv, St.MaxMessagesReceived, St.LockstepBytes);
  return ExitOk;
}

} // namespace

int run(std::vector<std::string> Args) {
  if (Args.empty())
    return usageError("missing a command", MainUsage);
  std::string Cmd = Args[0];
  std::vector<std::string> Rest(Args.begin() + 1, Args.end());
  if (Cmd == "--help" || Cmd == "-h" || Cmd == "help") {
    if (Rest.empty()) {
      llvm::outs() << MainUsage;
      return ExitOk;
    }
    // `choreo help gen` is `choreo gen --help`.
    Cmd = Rest[0];
    Rest = {"--help"};
  }
  if (Cmd == "list")
    return cmdList(Rest);
  if (Cmd == "gen")
    return cmdGen(Rest);
  if (Cmd == "verify")
    return cmdVerify(Rest);
  if (Cmd == "show")
    return cmdShow(Rest);
  if (Cmd == "stats")
    return cmdStats(Rest);
  if (Cmd == "prove")
    return cmdProve(Rest);
  if (Cmd == "cost")
    return cmdCost(Rest);
  if (Cmd == "compare")
    return cmdCompare(Rest);
  if (Cmd == "export")
    return cmdExport(Rest);
  if (Cmd == "synth")
    return cmdSynth(Rest);
  if (Cmd == "select")
    return cmdSelect(Rest);
  if (Cmd == "trace")
    return cmdTrace(Rest);
  if (Cmd == "tune")
    return cmdTune(Rest);
  return usageError("unknown command '" + Cmd + "'", MainUsage);
}

int main(int Argc, char **Argv) {
  // No input should reach this handler; it turns a bug into a clear exit 2
  // instead of an abort.
  try {
    return run(std::vector<std::string>(Argv + 1, Argv + Argc));
  } catch (const std::exception &E) {
    // Running out of memory is not a bug: say what was too large. Z3
    // reports its own allocation failures as an exception of this text.
    bool OutOfMemory = dynamic_cast<const std::bad_alloc *>(&E) ||
                       llvm::StringRef(E.what()).contains("out of memory");
    if (!OutOfMemory) {
      llvm::errs() << "error: internal error: " << E.what() << '\n';
      return ExitInvalid;
    }
    std::string Cmd;
    for (int I = 1; I < Argc; ++I)
      Cmd += std::string(I > 1 ? " " : "") + Argv[I];
    llvm::errs() << "error: out of memory: `choreo " << Cmd
                 << "` needs more memory than this process may use (try "
                    "fewer ranks, steps or ops)\n";
    return ExitInvalid;
  }
}
