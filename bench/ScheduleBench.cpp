//===- bench/ScheduleBench.cpp - Generation and verification at scale -----===//
///
/// \file
/// Times each phase for a large schedule, inter-allgather-kang with
/// p = q = 1024 by default (about two million ops): building it, writing it
/// as CBOR, reading it back, and proving it with the explicit engine; with
/// the resident memory after each phase. Usage:
///   choreo-bench-schedule [ALGO "ARGS"] [--out FILE.cbor]
///
//===----------------------------------------------------------------------===//

#include "generators/Generator.h"
#include "ir/ScheduleIO.h"
#include "verifier/Verifier.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <fstream>
#include <sys/resource.h>

using namespace choreo;

namespace {

double seconds(std::chrono::steady_clock::time_point Since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Since)
      .count();
}

/// Resident set size now, in MiB (from /proc/self/statm).
double rssMiB() {
  std::ifstream F("/proc/self/statm");
  long Pages = 0, Resident = 0;
  F >> Pages >> Resident;
  return Resident * 4096.0 / (1 << 20);
}

double peakMiB() {
  struct rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss / 1024.0;
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Algo = "inter-allgather-kang";
  std::string Args = "--p 1024 --q 1024 --bytes-a 4096 --bytes-b 4096";
  std::string Out = "/tmp/choreo-bench.cbor";
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    if (A == "--out" && I + 1 < Argc)
      Out = Argv[++I];
    else if (I + 1 < Argc) {
      Algo = Argv[I];
      Args = Argv[++I];
    }
  }
  const Generator *G = findGenerator(Algo);
  if (!G) {
    llvm::errs() << "unknown algorithm " << Algo << "\n";
    return 2;
  }
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::SplitString(Args, Parts);
  auto P = parseGenArgs(std::vector<std::string>(Parts.begin(), Parts.end()));
  if (!P) {
    printError(llvm::errs(), P.takeError());
    return 2;
  }
  double Base = rssMiB();
  llvm::outs() << llvm::formatv("{0} {1}\n", Algo, Args);

  auto T0 = std::chrono::steady_clock::now();
  auto S = G->generate(*P);
  if (!S) {
    printError(llvm::errs(), S.takeError());
    return 2;
  }
  double TGen = seconds(T0);
  double MemSched = rssMiB() - Base;
  size_t Ops = S->Steps.numOps();

  T0 = std::chrono::steady_clock::now();
  if (auto E = writeScheduleFile(*S, Out, FileFormat::Cbor)) {
    printError(llvm::errs(), std::move(E));
    return 2;
  }
  double TWrite = seconds(T0);
  uint64_t FileSize = 0;
  llvm::sys::fs::file_size(Out, FileSize);
  *S = Schedule(); // release before reading back

  T0 = std::chrono::steady_clock::now();
  auto R = readScheduleFile(Out);
  if (!R) {
    printError(llvm::errs(), R.takeError());
    return 2;
  }
  double TRead = seconds(T0);

  T0 = std::chrono::steady_clock::now();
  VerifyResult V = checkExplicit(*R);
  double TVerify = seconds(T0);

  llvm::outs() << llvm::formatv(
      "ops {0}, steps {1}, CBOR {2:f1} MiB ({3:f1} bytes/op)\n", Ops,
      R->Steps.numSteps(), FileSize / 1048576.0, double(FileSize) / Ops);
  llvm::outs() << llvm::formatv("generate      {0,6:f3} s\n", TGen);
  llvm::outs() << llvm::formatv("write CBOR    {0,6:f3} s\n", TWrite);
  llvm::outs() << llvm::formatv("generate+write{0,6:f3} s\n", TGen + TWrite);
  llvm::outs() << llvm::formatv("read CBOR     {0,6:f3} s\n", TRead);
  llvm::outs() << llvm::formatv("verify        {0,6:f3} s  ({1})\n", TVerify,
                                V.proved() ? "proved" : "NOT PROVED");
  llvm::outs() << llvm::formatv("read+verify   {0,6:f3} s\n", TRead + TVerify);
  llvm::outs() << llvm::formatv(
      "memory: schedule {0:f1} MiB ({1:f1} bytes/op), peak RSS {2:f1} MiB\n",
      MemSched, MemSched * 1048576.0 / Ops, peakMiB());
  return V.proved() ? 0 : 1;
}
