//===- bench/PmpiBuild.cpp - Plan construction inside a job, per rank -----===//
///
/// \file
/// What one rank of a job does when libchoreo-mpi.so meets a call shape for
/// the first time, phase by phase, without running the job: build the
/// schedule for the call (pmpi::buildFor, the library's own path), prove it
/// (rank 0 only), keep the rank's own ops (onlyRank) and compile its
/// RankPlan, with op counts and resident memory; and what every other rank
/// does instead when the generator has a rank form (Generator::buildRank).
/// Cases: inter-allgather-kang with p = q = 512 (1 KiB per member) and
/// allgather-ring as MPI_Allgatherv with p = 4096 and irregular counts. Usage:
///   choreo-bench-pmpi-build [kang P | ring P]...   (default: kang 512 ring
///   4096)
///
//===----------------------------------------------------------------------===//

#include "executor/RankPlan.h"
#include "pmpi/Shape.h"
#include "verifier/Verifier.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>
#include <fstream>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

double seconds(std::chrono::steady_clock::time_point Since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Since)
      .count();
}

/// This process's CPU time (the machine may be shared: wall time is not).
double cpuSeconds() {
  timespec T;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

double rssMiB() {
  std::ifstream F("/proc/self/statm");
  long Pages = 0, Resident = 0;
  F >> Pages >> Resident;
  return Resident * 4096.0 / (1 << 20);
}

int runCase(llvm::StringRef Kind, uint32_t P) {
  MpiArgs Args;
  std::string Id;
  if (Kind == "kang") {
    Args.Call = MpiCall::Allgather;
    Args.Inter = true;
    Args.SizesA.assign(P, 1024);
    Args.SizesB.assign(P, 1024);
    Id = "inter-allgather-kang";
  } else {
    Args.Call = MpiCall::Allgatherv;
    for (uint32_t I = 0; I < P; ++I)
      Args.SizesA.push_back(64 + (I * 37) % 200);
    Id = "allgather-ring";
  }
  BoundCall Shape = llvm::cantFail(bindCall(std::move(Args)));
  auto T0 = std::chrono::steady_clock::now();
  double C0 = cpuSeconds();
  auto S = buildFor(Id, {}, Shape.Header, Shape.ElemBytes);
  double BuildCpu = cpuSeconds() - C0;
  if (!S) {
    llvm::errs() << llvm::toString(S.takeError()) << "\n";
    return 1;
  }
  double Build = seconds(T0);
  double RssBuilt = rssMiB();
  size_t Ops = S->Steps.numOps();
  T0 = std::chrono::steady_clock::now();
  C0 = cpuSeconds();
  VerifyResult R = checkExplicit(*S);
  double Prove = seconds(T0), ProveCpu = cpuSeconds() - C0;
  if (!R.proved()) {
    llvm::errs() << "not proved\n";
    return 1;
  }
  T0 = std::chrono::steady_clock::now();
  std::string Digest = scheduleDigest(*S).hex();
  double DigestT = seconds(T0);
  // A middle rank's part.
  Rank Me = S->NumRanks / 2 + 1;
  T0 = std::chrono::steady_clock::now();
  Schedule Mine = onlyRank(*S, Me);
  double Filter = seconds(T0);
  size_t MyOps = Mine.Steps.numOps();
  *S = Schedule(); // what the library does once the rank has its ops
  T0 = std::chrono::steady_clock::now();
  auto RP = compileRankPlan(Mine, Me);
  double Compile = seconds(T0);
  if (!RP) {
    llvm::errs() << llvm::toString(RP.takeError()) << "\n";
    return 1;
  }
  // What every rank but the prover does: its own ops only when the
  // generator has a rank form (else the whole schedule again).
  T0 = std::chrono::steady_clock::now();
  C0 = cpuSeconds();
  auto Own = buildFor(Id, {}, Shape.Header, Shape.ElemBytes, Me);
  double RankBuild = seconds(T0), RankCpu = cpuSeconds() - C0;
  if (!Own) {
    llvm::errs() << llvm::toString(Own.takeError()) << "\n";
    return 1;
  }
  std::string RankForm =
      findGenerator(Id)->hasRankForm()
          ? std::string(llvm::formatv("{0:f4} ({1:f4}), {2} ops", RankBuild,
                                      RankCpu, Own->Steps.numOps()))
          : std::string("none: whole schedule");
  llvm::outs() << llvm::formatv(
      "| {0} | {1} | {2} | {3} | {4:f3} ({5:f3}) | {6:f3} ({7:f3}) | {8:f3} | "
      "{9:f4} | {10:f4} | {11:f0} | {12} |\n",
      Id, Shape.describe(), Ops, MyOps, Build, BuildCpu, Prove, ProveCpu,
      DigestT, Filter, Compile, RssBuilt, RankForm);
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::pair<std::string, uint32_t>> Cases;
  for (int I = 1; I + 1 < Argc; I += 2)
    Cases.push_back({Argv[I], uint32_t(std::stoul(Argv[I + 1]))});
  if (Cases.empty())
    Cases = {{"kang", 512}, {"ring", 4096}};
  llvm::outs() << "| algorithm | call | ops | rank's ops | build s (CPU s) | "
                  "prove s, rank 0 (CPU s) | digest s | own ops s | RankPlan s "
                  "| RSS MiB | rank form: build s (CPU s) |\n"
                  "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (auto &[K, P] : Cases)
    if (int Rc = runCase(K, P))
      return Rc;
  return 0;
}
