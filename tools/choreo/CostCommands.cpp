//===- tools/choreo/CostCommands.cpp - cost, compare, export --------------===//
///
/// \file
/// The commands that price schedules (cost/Model.h), compare algorithms over
/// message sizes (studies/Compare.h) and hand schedules to an external
/// simulator (cost/Goal.h).
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "studies/Compare.h"
#include "studies/Select.h"
#include "views/CompareChart.h"
#include "views/SelectChart.h"
#include "views/CompareText.h"
#include "cost/Goal.h"
#include "cost/Model.h"
#include "cost/Stats.h"
#include "ir/ScheduleIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace choreo;

namespace {

const CommandDoc CostDoc = {
    R"(usage: choreo cost FILE|- [--machine FILE] [--alpha A] [--beta B]
                   [--gamma G] [--f-alpha F] [--f-beta F] [--step-startup S]
                   [--flow-control BYTES] [--json] [--per-rank]
)",
    R"(Predicts a schedule's time in the cost model of the seed papers: a message
of n bytes costs alpha + n beta, combining n received bytes into a partial
result n gamma. A message that travels one way on a quiet pair of ports (its
sender receives nothing in its step, its receiver sends nothing) costs
f_alpha alpha + n f_beta beta (seed 004's unidirectional factors, 0.5 for a
simplex network, 1 for full duplex). With --step-startup S a rank also
pays S after each receive it waits for, before its next sends (the
executor's polling, or waiting for a core when ranks outnumber cores); a
rank that only sends pays nothing (docs/machine.md, "Per-step start-up").
With --flow-control BYTES a message of at least BYTES also pays the
executor's handshakes: its receiver's clear-to-send before it and its
acknowledgement after it, each a zero-byte message the other end waits for
(docs/machine.md, "Flow control, priced").

Two evaluations: lock step (each step costs its slowest op, plus combining),
and asynchronous, as the executor runs it (each rank runs its steps in
order; an op starts once its sender and its receiver have finished their
previous steps; per step a rank has ports.send and ports.recv channels). Also
reports bytes moved, the busiest sender and receiver, and each rank's busy
and idle time (--per-rank lists every rank).
)",
    R"(Times are in the unit of alpha (the defaults are seconds: 1 us start-up,
10 GB/s).
)"};

const Option<bool> &perRankOpt() {
  static const Option<bool> O =
      flagOption("per-rank", "list every rank's finish, busy and idle time");
  return O;
}

llvm::ArrayRef<OptionDecl> costDecls() {
  static const std::vector<OptionDecl> Decls = [] {
    std::vector<OptionDecl> D(modelopt::all().begin(), modelopt::all().end());
    D.push_back(jsonOpt());
    D.push_back(perRankOpt());
    return D;
  }();
  return Decls;
}

std::string costUsage() { return commandHelp(CostDoc, costDecls()); }

} // namespace

namespace {

const CommandDoc CompareDoc = {
    R"(usage: choreo compare ALGO... [GEN-OPTIONS] --sizes S1,S2,...
                      [--over OPTION --values V1,V2,...]
                      [--machine FILE] [--alpha A] [--beta B] [--gamma G]
                      [--f-alpha F] [--f-beta F] [--step-startup S]
                      [--lockstep] [--json]
                      [--plot FILE.svg]
)",
    R"(Generates each algorithm (see `choreo list`) with GEN-OPTIONS (those of
`choreo gen`, e.g. --p 128 --q 128) at each message size and prints the
predicted time of each (asynchronous, or lock step with --lockstep) and the
speed-up of each over the first algorithm (its time over theirs).

The message size is the largest block a process contributes. Size options
in GEN-OPTIONS give the shape: --bytes-a 4 --bytes-b 1 is k_A = 4 k_B,
--counts 1,2,3,4 an arithmetic sequence; every size is scaled so that the
largest equals the message size. Without size options, each size option an
algorithm takes (--bytes, --bytes-a, --bytes-b) is the message size.

ALGO:name=value:... gives options to one column only, e.g. a block-size
sweep: allgatherv-pipelined-ring:block-bytes=64K
allgatherv-pipelined-ring:block-bytes=1M.

--over OPTION --values V1,V2,... makes the rows the values of a generator
option instead of message sizes, at the one size --sizes gives.
)",
    R"(example: seed 002's predicted time against the number of groups G,
  choreo compare bcast-scatter-ring --p 5000 --sizes 512K --over groups
                 --values 1,2,5,10,25,50,70,100,250,500,1000 --plot g.svg
)"};

/// A comma list of sizes (K, M, G suffixes) of option D.
llvm::Expected<OptionValue> parseSizes(const OptionDecl &D,
                                       llvm::StringRef Text) {
  std::vector<uint64_t> Out;
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Text.split(Parts, ',');
  for (llvm::StringRef Part : Parts) {
    auto Size = parseSize(Part.trim(), D.Name);
    if (!Size)
      return Size.takeError();
    Out.push_back(*Size);
  }
  return OptionValue(std::move(Out));
}

const Option<SizeList> &sizesOpt() {
  static const Option<SizeList> O =
      sizeListOption("sizes", "the message sizes, one row each")
          .withMetavar("S1,S2,...")
          .parsedBy(parseSizes);
  return O;
}

const Option<std::string> &overOpt() {
  static const Option<std::string> O = textOption(
      "over", "rows by the values of this generator option instead of "
              "message sizes",
      "OPTION");
  return O;
}

const Option<SizeList> &valuesOpt() {
  static const Option<SizeList> O =
      sizeListOption("values", "the values of --over")
          .withMetavar("V1,V2,...")
          .parsedBy(parseSizes);
  return O;
}

const Option<std::string> &plotOpt() {
  static const Option<std::string> O = textOption(
      "plot", "draw the times (log-log) and the speed-ups as an SVG chart",
      "FILE.svg");
  return O;
}

llvm::ArrayRef<OptionDecl> compareDecls() {
  static const std::vector<OptionDecl> Decls = [] {
    std::vector<OptionDecl> D = {sizesOpt(), overOpt(), valuesOpt()};
    D.insert(D.end(), modelopt::all().begin(), modelopt::all().end());
    D.push_back(lockstepOpt());
    D.push_back(jsonOpt());
    D.push_back(plotOpt());
    return D;
  }();
  return Decls;
}

std::string compareUsage() { return commandHelp(CompareDoc, compareDecls()); }

} // namespace

namespace {

const CommandDoc ExportDoc = {
    "usage: choreo export --goal FILE|- [-o OUT] [--gamma G]\n",
    R"(Writes the schedule in the GOAL format of LogGOPSim (Hoefler et al.) so an
external simulator runs exactly the schedule choreo verified: per rank, its
sends and receives (op i of the schedule is `oIs` at its sender and `oIr` at
its receiver, tag i), each requiring every op of the rank's previous step,
as the executor runs them. --gamma G adds a `calc` of G x bytes (rounded, in
the simulator's time unit) after each step in which a rank combines reduced
bytes. Writes to standard output unless -o.
)",
    ""};

const Option<bool> &goalOpt() {
  static const Option<bool> O =
      flagOption("goal", "LogGOPSim's GOAL format (the one format)");
  return O;
}

const Option<std::string> &exportOutOpt() {
  static const Option<std::string> O =
      textOption("o", "write to OUT instead of standard output", "OUT")
          .singleDash();
  return O;
}

llvm::ArrayRef<OptionDecl> exportDecls() {
  static const OptionDecl Decls[] = {
      goalOpt(), exportOutOpt(),
      modelopt::gamma().withHelp("time per combined byte: a calc of G x "
                                 "bytes after each step that combines")};
  return Decls;
}

} // namespace

namespace {

/// cmdCost's short name for the cost commands' number format.
std::string num(double V) { return costNumber(V); }

} // namespace

int choreo::cmdCost(llvm::ArrayRef<std::string> Args) {
  std::string Usage = costUsage();
  if (wantsHelp(Args)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  auto C = parseCommand(Args, costDecls(), Usage);
  if (!C)
    return ExitInvalid;
  auto MOr = modelOf(C->Values);
  if (!MOr)
    return usageError(llvm::toString(MOr.takeError()), Usage);
  CostModel M = *MOr;
  bool Json = C->Values.get(jsonOpt()), PerRank = C->Values.get(perRankOpt());
  if (auto E = M.check())
    return usageError(llvm::toString(std::move(E)), Usage);
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(C->Positionals, Usage, Exit);
  if (!S)
    return Exit;
  ScheduleStats St = computeStats(*S);
  CostResult R = evaluateCost(*S, M);
  if (auto E = checkFinite(R, M)) {
    printError(llvm::errs(), std::move(E));
    return ExitInvalid;
  }
  double BusySum = 0;
  for (double B : R.Busy)
    BusySum += B;
  double MeanIdle = S->NumRanks ? R.Async - BusySum / S->NumRanks : 0;
  if (Json) {
    nlohmann::ordered_json J = {
        {"algorithm", S->Algorithm},
        {"collective", collectiveName(S->Kind)},
        {"ranks", S->NumRanks},
        {"steps", St.Steps},
        {"ops", St.Ops},
        {"model", M.toJson()},
        {"time", R.Async},
        {"time_lockstep", R.Lockstep},
        {"bytes_moved", St.BytesMoved},
        {"max_sent", {{"rank", St.MaxSentRank}, {"bytes", St.MaxSent}}},
        {"max_received", {{"rank", St.MaxRecvRank}, {"bytes", St.MaxRecv}}},
        {"ops_bidirectional", R.BidirectionalOps},
        {"ops_unidirectional", R.UnidirectionalOps},
        {"last_rank", {{"rank", R.LastRank}, {"finish", R.Finish.empty() ? 0.0 : R.Finish[R.LastRank]}}},
        {"busiest_rank", {{"rank", R.BusiestRank}, {"busy", R.Busy.empty() ? 0.0 : R.Busy[R.BusiestRank]}}},
        {"mean_idle", MeanIdle}};
    if (PerRank) {
      nlohmann::ordered_json Ranks = nlohmann::ordered_json::array();
      for (Rank X = 0; X < S->NumRanks; ++X)
        Ranks.push_back({{"rank", X},
                         {"finish", R.Finish[X]},
                         {"busy", R.Busy[X]},
                         {"idle", R.Async - R.Busy[X]}});
      J["per_rank"] = std::move(Ranks);
    }
    llvm::outs() << jsonText(J) << '\n';
    return ExitOk;
  }
  llvm::outs() << (S->Algorithm.empty() ? "schedule" : S->Algorithm) << " ("
               << collectiveName(S->Kind) << "): " << S->NumRanks
               << " ranks, " << St.Steps << " steps, " << St.Ops << " ops\n"
               << "model: " << modelText(M) << " (" << R.BidirectionalOps
               << " ops bidirectional, " << R.UnidirectionalOps
               << " unidirectional)\n"
               << "time: " << num(R.Async) << " asynchronous, "
               << num(R.Lockstep) << " lock step\n"
               << "bytes: " << St.BytesMoved << " moved; busiest sender rank "
               << St.MaxSentRank << " (" << St.MaxSent
               << " bytes), busiest receiver rank " << St.MaxRecvRank << " ("
               << St.MaxRecv << " bytes)\n";
  if (S->NumRanks && R.Async > 0)
    llvm::outs() << "ranks: last to finish rank " << R.LastRank << " at "
                 << num(R.Finish[R.LastRank]) << "; busiest rank "
                 << R.BusiestRank << ", busy " << num(R.Busy[R.BusiestRank])
                 << " (" << num(100 * R.Busy[R.BusiestRank] / R.Async)
                 << "%); mean idle " << num(MeanIdle) << " ("
                 << num(100 * MeanIdle / R.Async) << "%)\n";
  if (PerRank) {
    llvm::outs() << "rank  finish  busy  idle\n";
    for (Rank X = 0; X < S->NumRanks; ++X)
      llvm::outs() << X << "  " << num(R.Finish[X]) << "  " << num(R.Busy[X])
                   << "  " << num(R.Async - R.Busy[X]) << "\n";
  }
  return ExitOk;
}

namespace {

/// `choreo compare`'s options.
struct CompareCommand {
  CompareSpec Spec;
  bool Json = false, Lockstep = false;
  std::optional<std::string> Plot;
};

/// Fills C from the arguments; when they are refused, reports why and
/// returns the exit code.
std::optional<int> parseCompareArgs(llvm::ArrayRef<std::string> Args,
                                    CompareCommand &C) {
  std::string Usage = compareUsage();
  size_t I = 0;
  for (; I < Args.size() && !llvm::StringRef(Args[I]).starts_with("-"); ++I)
    C.Spec.Algorithms.push_back(Args[I]);
  // What no option of compare takes is the generators' (GEN-OPTIONS).
  CommandRules Rules;
  Rules.PassThrough = true;
  auto L = parseCommand(Args.drop_front(I), compareDecls(), Usage, Rules);
  if (!L)
    return ExitInvalid;
  const OptionValues &V = L->Values;
  auto Model = modelOf(V);
  if (!Model)
    return usageError(llvm::toString(Model.takeError()), Usage);
  C.Spec.Model = *Model;
  C.Json = V.get(jsonOpt());
  C.Lockstep = V.get(lockstepOpt());
  C.Plot = V.lookup(plotOpt());
  C.Spec.Over = V.lookup(overOpt()).value_or("");
  C.Spec.Sizes = V.lookup(sizesOpt()).value_or(SizeList());
  C.Spec.OverValues = V.lookup(valuesOpt()).value_or(SizeList());
  if (C.Spec.Algorithms.empty())
    return usageError("missing the algorithms to compare (see `choreo list`)",
                      Usage);
  if (C.Spec.Sizes.empty())
    return usageError("missing --sizes (e.g. --sizes 64K,256K,1M,4M,8M)",
                      Usage);
  auto Base = parseGenArgs(L->Rest);
  if (!Base) {
    printError(llvm::errs(), Base.takeError());
    return ExitInvalid;
  }
  C.Spec.Base = std::move(*Base);
  return std::nullopt;
}

} // namespace

int choreo::cmdCompare(llvm::ArrayRef<std::string> Args) {
  if (wantsHelp(Args)) {
    llvm::outs() << compareUsage();
    return ExitOk;
  }
  CompareCommand C;
  if (std::optional<int> Exit = parseCompareArgs(Args, C))
    return *Exit;
  auto T = compareAlgorithms(C.Spec);
  if (!T) {
    printError(llvm::errs(), T.takeError());
    return ExitInvalid;
  }
  if (C.Json)
    llvm::outs() << jsonText(compareJson(*T, C.Spec, C.Lockstep)) << '\n';
  else
    printCompareTable(*T, C.Spec, C.Lockstep, llvm::outs());
  if (C.Plot)
    return writeText(*C.Plot, [&](llvm::raw_ostream &OS) {
      writeCompareSvg(*T, C.Lockstep, C.Spec.Model, OS);
      return llvm::Error::success();
    });
  return ExitOk;
}

int choreo::cmdExport(llvm::ArrayRef<std::string> Args) {
  std::string Usage = commandHelp(ExportDoc, exportDecls());
  if (wantsHelp(Args)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  auto C = parseCommand(Args, exportDecls(), Usage);
  if (!C)
    return ExitInvalid;
  std::string Out = C->Values.lookup(exportOutOpt()).value_or("-");
  CostModel M;
  M.Gamma = C->Values.get(modelopt::gamma());
  if (!C->Values.get(goalOpt()))
    return usageError("missing the format (--goal)", Usage);
  if (auto E = M.check())
    return usageError(llvm::toString(std::move(E)), Usage);
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(C->Positionals, Usage, Exit);
  if (!S)
    return Exit;
  return writeText(Out, [&](llvm::raw_ostream &OS) {
    return writeGoal(*S, OS, M.Gamma);
  });
}

