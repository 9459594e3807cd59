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

using namespace choreo;

const char *choreo::CostUsage =
    R"(usage: choreo cost FILE|- [--alpha A] [--beta B] [--gamma G]
                   [--f-alpha F] [--f-beta F] [--json] [--per-rank]

Predicts a schedule's time in the cost model of the seed papers: a message
of n bytes costs alpha + n beta, combining n received bytes into a partial
result n gamma. A message that travels one way on a quiet pair of ports (its
sender receives nothing in its step, its receiver sends nothing) costs
f_alpha alpha + n f_beta beta (seed 004's unidirectional factors, 0.5 for a
simplex network, 1 for full duplex).

Two evaluations: lock step (each step costs its slowest op, plus combining),
and asynchronous, as the executor runs it (each rank runs its steps in
order; an op starts once its sender and its receiver have finished their
previous steps; per step a rank has ports.send and ports.recv channels). Also
reports bytes moved, the busiest sender and receiver, and each rank's busy
and idle time (--per-rank lists every rank).

Defaults: alpha 1e-6, beta 1e-10 (seconds: 1 us start-up, 10 GB/s),
gamma 0, f-alpha 1, f-beta 1. Times are in the unit of alpha.
--json prints one object; its "time" is the asynchronous time.
)";

const char *choreo::CompareUsage =
    R"(usage: choreo compare ALGO... [GEN-OPTIONS] --sizes S1,S2,...
                      [--over OPTION --values V1,V2,...]
                      [--alpha A] [--beta B] [--gamma G] [--f-alpha F]
                      [--f-beta F] [--lockstep] [--json] [--plot FILE.svg]

Generates each algorithm (see `choreo list`) with GEN-OPTIONS (those of
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

--plot FILE.svg draws the times (log-log) and the speed-ups as an SVG chart.
Model options as for `choreo cost` (same defaults).

--over OPTION --values V1,V2,... makes the rows the values of a generator
option instead of message sizes, at the one size --sizes gives: seed 002's
predicted time against the number of groups G,
  choreo compare bcast-scatter-ring --p 5000 --sizes 512K --over groups
                 --values 1,2,5,10,25,50,70,100,250,500,1000 --plot g.svg
)";

const char *choreo::ExportUsage =
    R"(usage: choreo export --goal FILE|- [-o OUT] [--gamma G]

Writes the schedule in the GOAL format of LogGOPSim (Hoefler et al.) so an
external simulator runs exactly the schedule choreo verified: per rank, its
sends and receives (op i of the schedule is `oIs` at its sender and `oIr` at
its receiver, tag i), each requiring every op of the rank's previous step,
as the executor runs them. --gamma G adds a `calc` of G x bytes (rounded, in
the simulator's time unit) after each step in which a rank combines reduced
bytes. Writes to standard output unless -o.
)";

namespace {

/// Parses the model options at Args[I] (advancing I past the value);
/// returns false if Args[I] is not one.
bool modelOption(llvm::ArrayRef<std::string> Args, size_t &I, CostModel &M,
                 std::string &Err) {
  llvm::StringRef A = Args[I];
  double *Slot = A == "--alpha"     ? &M.Alpha
                 : A == "--beta"    ? &M.Beta
                 : A == "--gamma"   ? &M.Gamma
                 : A == "--f-alpha" ? &M.FAlpha
                 : A == "--f-beta"  ? &M.FBeta
                                    : nullptr;
  if (!Slot)
    return false;
  if (I + 1 >= Args.size()) {
    Err = (A + ": missing value").str();
    return true;
  }
  llvm::StringRef V = Args[++I];
  if (V.getAsDouble(*Slot))
    Err = (A + ": '" + V + "' is not a number").str();
  return true;
}

CostModel defaultModel() {
  CostModel M;
  M.Alpha = 1e-6;
  M.Beta = 1e-10;
  return M;
}

/// cmdCost's short name for the cost commands' number format.
std::string num(double V) { return costNumber(V); }

/// Writes what Fill produces to Path ("-": standard output), reporting
/// failures, Fill's included (then no file is left behind); returns the exit
/// code.
int writeText(llvm::StringRef Path,
              llvm::function_ref<llvm::Error(llvm::raw_ostream &)> Fill) {
  if (Path == "-") {
    if (auto E = Fill(llvm::outs())) {
      printError(llvm::errs(), std::move(E));
      return ExitInvalid;
    }
    return ExitOk;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    llvm::errs() << "error: cannot write " << Path << ": " << EC.message()
                 << "\n";
    return ExitInvalid;
  }
  llvm::Error FillErr = Fill(OS);
  OS.close();
  if (FillErr) {
    printError(llvm::errs(), std::move(FillErr));
    llvm::sys::fs::remove(Path);
    return ExitInvalid;
  }
  if (OS.has_error()) {
    llvm::errs() << "error: cannot write " << Path << ": "
                 << OS.error().message() << "\n";
    OS.clear_error();
    return ExitInvalid;
  }
  return ExitOk;
}

} // namespace

int choreo::cmdCost(llvm::ArrayRef<std::string> Args) {
  if (wantsHelp(Args)) {
    llvm::outs() << CostUsage;
    return ExitOk;
  }
  CostModel M = defaultModel();
  bool Json = false, PerRank = false;
  std::vector<std::string> Files;
  for (size_t I = 0; I < Args.size(); ++I) {
    std::string Err;
    if (modelOption(Args, I, M, Err)) {
      if (!Err.empty())
        return usageError(Err, CostUsage);
    } else if (Args[I] == "--json") {
      Json = true;
    } else if (Args[I] == "--per-rank") {
      PerRank = true;
    } else if (Args[I] != "-" && llvm::StringRef(Args[I]).starts_with("-")) {
      return usageError("unknown option " + Args[I], CostUsage);
    } else {
      Files.push_back(Args[I]);
    }
  }
  if (auto E = M.check())
    return usageError(llvm::toString(std::move(E)), CostUsage);
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(Files, CostUsage, Exit);
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
  C.Spec.Model = defaultModel();
  std::vector<std::string> GenArgs;
  size_t I = 0;
  for (; I < Args.size() && !llvm::StringRef(Args[I]).starts_with("-"); ++I)
    C.Spec.Algorithms.push_back(Args[I]);
  for (; I < Args.size(); ++I) {
    std::string Err;
    llvm::StringRef A = Args[I];
    if (modelOption(Args, I, C.Spec.Model, Err)) {
      if (!Err.empty())
        return usageError(Err, CompareUsage);
    } else if (A == "--json") {
      C.Json = true;
    } else if (A == "--lockstep") {
      C.Lockstep = true;
    } else if (A == "--plot" || A == "--sizes" || A == "--over" ||
               A == "--values") {
      if (I + 1 >= Args.size())
        return usageError(A + ": missing value", CompareUsage);
      llvm::StringRef V = Args[++I];
      if (A == "--plot") {
        C.Plot = V.str();
        continue;
      }
      if (A == "--over") {
        C.Spec.Over = V.str();
        continue;
      }
      llvm::SmallVector<llvm::StringRef, 8> Parts;
      V.split(Parts, ',');
      for (llvm::StringRef Part : Parts) {
        auto Size = parseSize(Part.trim(), A.drop_front(2));
        if (!Size) {
          printError(llvm::errs(), Size.takeError());
          return ExitInvalid;
        }
        (A == "--sizes" ? C.Spec.Sizes : C.Spec.OverValues).push_back(*Size);
      }
    } else {
      GenArgs.push_back(A.str());
    }
  }
  if (C.Spec.Algorithms.empty())
    return usageError("missing the algorithms to compare (see `choreo list`)",
                      CompareUsage);
  if (C.Spec.Sizes.empty())
    return usageError("missing --sizes (e.g. --sizes 64K,256K,1M,4M,8M)",
                      CompareUsage);
  auto Base = parseGenArgs(GenArgs);
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
    llvm::outs() << CompareUsage;
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
  if (wantsHelp(Args)) {
    llvm::outs() << ExportUsage;
    return ExitOk;
  }
  bool Goal = false;
  std::string Out = "-";
  CostModel M;
  std::vector<std::string> Files;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    std::string Err;
    if (A == "--goal") {
      Goal = true;
    } else if (A == "-o") {
      if (I + 1 >= Args.size())
        return usageError("-o: missing value", ExportUsage);
      Out = Args[++I];
    } else if (A == "--gamma" && modelOption(Args, I, M, Err)) {
      if (!Err.empty())
        return usageError(Err, ExportUsage);
    } else if (A != "-" && A.starts_with("-")) {
      return usageError("unknown option " + A, ExportUsage);
    } else {
      Files.push_back(A.str());
    }
  }
  if (!Goal)
    return usageError("missing the format (--goal)", ExportUsage);
  if (auto E = M.check())
    return usageError(llvm::toString(std::move(E)), ExportUsage);
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(Files, ExportUsage, Exit);
  if (!S)
    return Exit;
  return writeText(Out, [&](llvm::raw_ostream &OS) {
    return writeGoal(*S, OS, M.Gamma);
  });
}

const char *choreo::SelectUsage =
    R"(usage: choreo select --collective reduce|allreduce|reduce_scatter
                     --p P --bytes N [--element-bytes E] [--lockstep]
                     [--alpha A] [--beta B] [--gamma G] [--f-alpha F]
                     [--f-beta F] [--json]
       choreo select --collective C --plot FILE.svg [--p-max P]
                     [--max-bytes N] [model options]

Builds every algorithm of the collective (see `choreo list`) for p ranks and
an N-byte vector of E-byte elements (default 8) and prints them fastest
first under the cost model (asynchronous time, or lock step): the winner and
the runner-up first, with predicted times and steps. Reduce schedules are
built for root 0.

With --plot, draws the winner for every p = 2..P-max (default 128) and
every n = 8 B, 16 B, ... up to --max-bytes (default 16M) as an SVG map, as
seed 004's Fig. 4 does for measured times. Model options and defaults as for
`choreo cost` (alpha 1e-6, beta 1e-10, gamma 0, f-alpha 1, f-beta 1).

example: choreo select --collective allreduce --p 13 --bytes 1M --gamma 1e-10
)";

int choreo::cmdSelect(llvm::ArrayRef<std::string> Args) {
  if (wantsHelp(Args)) {
    llvm::outs() << SelectUsage;
    return ExitOk;
  }
  SelectSpec S;
  S.Model = defaultModel();
  std::optional<Collective> Kind;
  std::optional<uint64_t> P, Bytes;
  uint64_t PMax = 128, MaxBytes = 16 << 20;
  std::optional<std::string> Plot;
  bool Json = false;
  for (size_t I = 0; I < Args.size(); ++I) {
    std::string Err;
    llvm::StringRef A = Args[I];
    if (modelOption(Args, I, S.Model, Err)) {
      if (!Err.empty())
        return usageError(Err, SelectUsage);
      continue;
    }
    if (A == "--json") {
      Json = true;
      continue;
    }
    if (A == "--lockstep") {
      S.Lockstep = true;
      continue;
    }
    if (I + 1 >= Args.size())
      return usageError(A + ": missing value", SelectUsage);
    llvm::StringRef V = Args[++I];
    if (A == "--collective") {
      Kind = parseCollective(V);
      if (!Kind || !specOf(*Kind).isReduction())
        return usageError("--collective: '" + V +
                              "' is not reduce, allreduce or reduce_scatter",
                          SelectUsage);
    } else if (A == "--plot") {
      Plot = V.str();
    } else if (A == "--p" || A == "--bytes" || A == "--element-bytes" ||
               A == "--p-max" || A == "--max-bytes") {
      auto X = parseSize(V, A.drop_front(2));
      if (!X) {
        printError(llvm::errs(), X.takeError());
        return ExitInvalid;
      }
      if (A == "--p")
        P = *X;
      else if (A == "--bytes")
        Bytes = *X;
      else if (A == "--element-bytes")
        S.ElementBytes = *X;
      else if (A == "--p-max")
        PMax = *X;
      else
        MaxBytes = *X;
    } else {
      return usageError("unknown option " + A, SelectUsage);
    }
  }
  if (!Kind)
    return usageError("missing --collective", SelectUsage);
  S.Kind = *Kind;
  if (Plot) {
    if (PMax < 2 || PMax > 4096)
      return usageError("--p-max: must be 2..4096", SelectUsage);
    std::vector<uint32_t> Ps;
    for (uint32_t X = 2; X <= PMax; ++X)
      Ps.push_back(X);
    std::vector<uint64_t> Sizes;
    for (uint64_t N = std::max<uint64_t>(S.ElementBytes, 8); N <= MaxBytes;
         N *= 2)
      Sizes.push_back(N);
    auto M = selectMap(S, Ps, Sizes);
    if (!M) {
      printError(llvm::errs(), M.takeError());
      return ExitInvalid;
    }
    std::string Title =
        formatv("{0}: fastest algorithm by the model (alpha {1}, beta {2}, "
                "gamma {3}, f_alpha {4}, f_beta {5})",
                collectiveName(S.Kind), S.Model.Alpha, S.Model.Beta,
                S.Model.Gamma, S.Model.FAlpha, S.Model.FBeta);
    return writeText(*Plot, [&](llvm::raw_ostream &OS) {
      writeSelectSvg(*M, Title, OS);
      return llvm::Error::success();
    });
  }
  if (!P || !Bytes)
    return usageError("missing --p or --bytes (or --plot FILE.svg)",
                      SelectUsage);
  if (*P == 0 || *P > (1u << 20))
    return usageError("--p: must be 1..1048576", SelectUsage);
  S.P = *P;
  S.Bytes = *Bytes;
  auto R = rankAlgorithms(S);
  if (!R) {
    printError(llvm::errs(), R.takeError());
    return ExitInvalid;
  }
  if (Json) {
    nlohmann::ordered_json J;
    J["collective"] = collectiveName(S.Kind);
    J["p"] = S.P;
    J["bytes"] = S.Bytes;
    J["model"] = S.Model.toJson();
    J["time"] = S.Lockstep ? "lockstep" : "async";
    for (const SelectEntry &E : *R)
      J["ranking"].push_back(
          {{"algorithm", E.Algorithm}, {"time", E.Time}, {"steps", E.Steps}});
    llvm::outs() << jsonText(J) << '\n';
    return ExitOk;
  }
  llvm::outs() << formatv("{0}, p = {1}, n = {2} bytes ({3} time):\n",
                          collectiveName(S.Kind), S.P, S.Bytes,
                          S.Lockstep ? "lock-step" : "asynchronous");
  const SelectEntry &Best = R->front();
  llvm::outs() << "winner:    " << Best.Algorithm << "  " << num(Best.Time)
               << "  (" << Best.Steps << " steps)\n";
  if (R->size() > 1) {
    const SelectEntry &Next = (*R)[1];
    llvm::outs() << "runner-up: " << Next.Algorithm << "  " << num(Next.Time)
                 << "  (" << Next.Steps << " steps, "
                 << num(Next.Time / Best.Time) << "x)\n";
  }
  for (size_t I = 2; I < R->size(); ++I)
    llvm::outs() << "           " << (*R)[I].Algorithm << "  "
                 << num((*R)[I].Time) << "  (" << (*R)[I].Steps
                 << " steps, " << num((*R)[I].Time / Best.Time) << "x)\n";
  return ExitOk;
}
