//===- bench/CostBench.cpp - Pricing, with and without eager sends -------===//
///
/// \file
/// The price of pricing (docs/cost.md, "Simulator speed and memory"): for
/// a few schedules, evaluateCost's time and the memory it takes beyond the
/// schedule, with the model's eager sends off and on (CostModel::EagerBytes,
/// every message eager), and one `choreo select`-like ranking of every
/// broadcast candidate. Each measurement runs in a child process forked
/// after the schedule is built, so its peak resident memory is its own (the
/// child's peak less the RSS it started with); times are CPU seconds, the
/// best of --reps. Usage:
///   choreo-bench-cost [--case NAME]... [--reps N] [--mode off|eager|both]
/// Cases: ring, circulant, binomial, alltoall, select (all by default).
///
//===----------------------------------------------------------------------===//

#include "cost/Model.h"
#include "generators/Generator.h"
#include "studies/Select.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace choreo;

namespace {

double rssMiB() {
  std::ifstream F("/proc/self/statm");
  long Pages = 0, Resident = 0;
  F >> Pages >> Resident;
  return Resident * 4096.0 / (1 << 20);
}

/// CPU time of this process (user + system), in seconds: what the
/// evaluation costs, whatever else the machine runs.
double cpuSeconds() {
  struct rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_utime.tv_sec + U.ru_stime.tv_sec +
         (U.ru_utime.tv_usec + U.ru_stime.tv_usec) * 1e-6;
}

double peakMiB() {
  struct rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss / 1024.0;
}

struct Case {
  const char *Name;
  const char *Algo; ///< nullptr: the select ranking
  const char *Args;
};

const Case Cases[] = {
    {"ring", "allgather-ring", "--p 1024 --bytes 1M"},
    {"circulant", "bcast-circulant", "--p 1024 --bytes 1M"},
    {"binomial", "bcast-binomial", "--p 1024 --bytes 1M"},
    {"alltoall", "alltoall-pairwise", "--p 256 --bytes 4K"},
    {"select", nullptr, "bcast p=256 1 MiB"},
};

struct Sample {
  double Seconds = 0, PeakMiB = 0, Time = 0;
};

/// Runs Work in a child: its best CPU time over Reps, its peak RSS growth
/// and the priced time, through a pipe. Skip: not run (a zero sample).
template <typename F> Sample measure(F Work, unsigned Reps, bool Skip) {
  if (Skip)
    return {};
  int Fd[2];
  if (pipe(Fd) != 0)
    return {};
  pid_t Pid = fork();
  if (Pid == 0) {
    close(Fd[0]);
    Sample S;
    double Before = rssMiB();
    S.Seconds = 1e300;
    for (unsigned R = 0; R < Reps; ++R) {
      double T0 = cpuSeconds();
      S.Time = Work();
      S.Seconds = std::min(S.Seconds, cpuSeconds() - T0);
    }
    S.PeakMiB = peakMiB() - Before;
    ssize_t W = write(Fd[1], &S, sizeof S);
    (void)W;
    _exit(0);
  }
  close(Fd[1]);
  Sample S;
  ssize_t Got = read(Fd[0], &S, sizeof S);
  close(Fd[0]);
  int Status = 0;
  waitpid(Pid, &Status, 0);
  if (Got != ssize_t(sizeof S))
    S.Seconds = -1;
  return S;
}

CostModel model(bool Eager) {
  CostModel M;
  M.Alpha = 1e-6;
  M.Beta = 1e-10;
  M.EagerBytes = Eager ? UINT64_MAX : 0;
  return M;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::string> Want;
  unsigned Reps = 3;
  std::string Mode = "both";
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    if (A == "--case" && I + 1 < Argc)
      Want.push_back(Argv[++I]);
    else if (A == "--mode" && I + 1 < Argc)
      Mode = Argv[++I];
    else if (A == "--reps" && I + 1 < Argc)
      Reps = std::max(1, std::atoi(Argv[++I]));
    else {
      llvm::errs() << "usage: choreo-bench-cost [--case NAME]... [--reps N] "
                      "[--mode off|eager|both]\n";
      return 2;
    }
  }
  llvm::outs() << llvm::formatv(
      "{0,-10} {1,-42} {2,9} {3,9} {4,10} {5,10} {6,7} {7}\n", "case",
      "schedule", "off s", "eager s", "off MiB", "eager MiB", "ratio",
      "eager time");
  for (const Case &C : Cases) {
    if (!Want.empty() &&
        std::find(Want.begin(), Want.end(), C.Name) == Want.end())
      continue;
    Sample Off, On;
    std::string What;
    if (!C.Algo) {
      SelectSpec Spec;
      Spec.Kind = Collective::Bcast;
      Spec.P = 256;
      Spec.Bytes = 1 << 20;
      What = C.Args;
      auto Run = [&](bool Eager) {
        SelectSpec X = Spec;
        X.Model = model(Eager);
        auto R = rankAlgorithms(X);
        if (!R) {
          llvm::consumeError(R.takeError());
          return -1.0;
        }
        return R->front().Time;
      };
      Off = measure([&] { return Run(false); }, Reps, Mode == "eager");
      On = measure([&] { return Run(true); }, Reps, Mode == "off");
    } else {
      const Generator *G = findGenerator(C.Algo);
      llvm::SmallVector<llvm::StringRef, 16> Parts;
      llvm::SplitString(C.Args, Parts);
      auto P =
          parseGenArgs(std::vector<std::string>(Parts.begin(), Parts.end()));
      if (!G || !P) {
        llvm::errs() << "cannot build " << C.Algo << "\n";
        if (P)
          continue;
        llvm::consumeError(P.takeError());
        continue;
      }
      auto S = G->generate(*P);
      if (!S) {
        llvm::errs() << C.Algo << ": " << llvm::toString(S.takeError())
                     << "\n";
        continue;
      }
      What = llvm::formatv("{0} {1} ({2} ops)", C.Algo, C.Args,
                           S->Steps.numOps())
                 .str();
      Off = measure([&] { return evaluateCost(*S, model(false)).Async; },
                    Reps, Mode == "eager");
      On = measure([&] { return evaluateCost(*S, model(true)).Async; },
                   Reps, Mode == "off");
    }
    // The eager time exactly (%a), so that two builds can be compared.
    char Exact[40];
    snprintf(Exact, sizeof Exact, "%a", On.Time);
    llvm::outs() << llvm::formatv(
        "{0,-10} {1,-42} {2,9:f3} {3,9:f3} {4,10:f1} {5,10:f1} {6,7:f2} "
        "{7}\n",
        C.Name, What, Off.Seconds, On.Seconds, Off.PeakMiB, On.PeakMiB,
        On.Seconds / Off.Seconds, Exact);
  }
  return 0;
}
