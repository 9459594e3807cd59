//===- pmpi/Config.cpp - The library's environment variables --------------===//
///
/// \file
/// Reading the CHOREO_* variables once (pmpi/Config.h).
///
//===----------------------------------------------------------------------===//

#include "pmpi/Config.h"

#include "cost/Machine.h"
#include "executor/Plan.h"
#include "options/Parse.h"

#include "llvm/Support/FormatVariadic.h"

#include <climits>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sched.h>
#include <unistd.h>

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

Config &pmpi::config() {
  static Config C;
  if (C.Loaded)
    return C;
  C.Loaded = true;
  auto Env = [](const char *N) -> llvm::StringRef {
    const char *V = std::getenv(N);
    return V ? llvm::StringRef(V) : llvm::StringRef();
  };
  llvm::StringRef V = Env("CHOREO_VERBOSE");
  C.Verbose = V.empty() || V == "0" ? 0 : (V == "2" ? 2 : 1);
  llvm::StringRef F = Env("CHOREO_FALLBACK");
  if (F == "error")
    C.OnFallback = Fallback::Error;
  else if (F == "silent")
    C.OnFallback = Fallback::Silent;
  else if (F.empty() || F == "print")
    C.OnFallback = Fallback::Print;
  else
    C.Error =
        formatv("CHOREO_FALLBACK={0}: expected error, print or silent", F);
  llvm::StringRef Chk = Env("CHOREO_CHECK");
  if (Chk == "always")
    C.CheckAlways = true;
  else if (!Chk.empty() && Chk != "first")
    C.Error = formatv("CHOREO_CHECK={0}: expected first or always", Chk);
  if (llvm::StringRef M = Env("CHOREO_PLANS_PER_COMM"); !M.empty()) {
    unsigned long long N = 0;
    if (M.getAsInteger(10, N) || N == 0)
      C.Error = formatv("CHOREO_PLANS_PER_COMM={0}: expected a positive "
                        "number",
                        M);
    else
      C.MaxPlans = N;
  }
  C.Verdicts.Dir = Env("CHOREO_CACHE_DIR").str();
  if (llvm::StringRef D = Env("CHOREO_DEFAULT"); !D.empty()) {
    if (auto Ch = parseChoice(D, "CHOREO_DEFAULT"))
      C.Sel.Default = D.str();
    else
      C.Error = llvm::toString(Ch.takeError());
  }
  // A machine file first (choreo-calibrate), then the variables over it.
  if (llvm::StringRef M = Env("CHOREO_MACHINE"); !M.empty()) {
    if (auto MF = readMachineFile(M)) {
      C.Sel.Model = MF->Model;
      C.FlowControl = MF->Model.FlowControlBytes;
    } else {
      C.Error = "CHOREO_MACHINE: " + llvm::toString(MF.takeError());
    }
  }
  for (auto [Name, Ptr] :
       {std::pair{"CHOREO_ALPHA", &C.Sel.Model.Alpha},
        std::pair{"CHOREO_BETA", &C.Sel.Model.Beta},
        std::pair{"CHOREO_GAMMA", &C.Sel.Model.Gamma},
        std::pair{"CHOREO_STEP_STARTUP", &C.Sel.Model.StepStartup}}) {
    llvm::StringRef T = Env(Name);
    if (T.empty())
      continue;
    double X;
    if (T.getAsDouble(X) || !(X >= 0) || X > 1e6)
      C.Error = formatv("{0}={1}: expected a non-negative number of seconds",
                        Name, T);
    else
      *Ptr = X;
  }
  if (llvm::StringRef F = Env("CHOREO_FLOW_CONTROL"); !F.empty()) {
    auto N = F == "off" ? llvm::Expected<uint64_t>(uint64_t(0))
                        : parseSize(F, "CHOREO_FLOW_CONTROL");
    if (!N || (*N == 0 && F != "off") || *N > uint64_t(INT_MAX)) {
      if (!N)
        llvm::consumeError(N.takeError());
      C.Error = formatv("CHOREO_FLOW_CONTROL={0}: expected off or a "
                        "positive number of bytes below 2^31 (64K, 1M)",
                        F);
    } else {
      C.FlowControl = *N;
    }
  }
  if (Plan::tagUbKnob() < 0)
    C.Error = formatv("CHOREO_TAG_UB={0}: expected a number from 32767 to "
                      "2147483647 (the tag bound the library's messages may "
                      "use)",
                      Env("CHOREO_TAG_UB"));
  // auto prices the flow control the plans run with (CostModel::opTimes).
  C.Sel.Model.FlowControlBytes = C.FlowControl;
  // Not the machine file's eager_bytes: the in-job replay (JobCost.cpp)
  // prices each op between its two ends and cannot order a port's
  // messages among ranks, and auto's two pricings must agree (docs/machine.md,
  // "Eager sends").
  C.Sel.Model.EagerBytes = 0;
  if (llvm::StringRef M = Env("CHOREO_MARGIN"); !M.empty()) {
    double X;
    if (M == "off")
      C.Sel.Margin = -1;
    else if (M.getAsDouble(X) || !(X >= 0) || X > 100)
      C.Error = formatv("CHOREO_MARGIN={0}: expected off or a fraction from "
                        "0 to 100 (0.1: choreo's schedule must be predicted "
                        "10 % faster than MPICH's own)",
                        M);
    else
      C.Sel.Margin = X;
  }
  std::string NodesErr;
  if (auto N = parseNodesSource(Env("CHOREO_NODES"), NodesErr))
    C.Nodes = *N;
  else
    C.Error = NodesErr;
  // How handed-over blocking calls wait: with more ranks on this node than
  // CPUs to run them, MPICH's busy-polling waits take the cores of the
  // ranks they wait for (docs/pmpi.md, "First call at p = 64").
  llvm::StringRef W = Env("CHOREO_NATIVE_WAIT");
  if (W == "yield")
    C.Wait = NativeWait::Yield;
  else if (W == "block")
    C.Wait = NativeWait::Block;
  else if (W.empty() || W == "auto")
    C.Wait = NativeWait::Auto;
  else
    C.Error =
        formatv("CHOREO_NATIVE_WAIT={0}: expected auto, yield or block", W);
  if (C.Wait == NativeWait::Auto) {
    unsigned Local = 0;
    for (const char *N : {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE"})
      if (llvm::StringRef T = Env(N); !T.empty() && !T.getAsInteger(10, Local))
        break;
    // The CPUs this node's ranks have between them. A rank the launcher
    // bound (hydra's -bind-to, Slurm's --cpu-bind) holds fewer CPUs than the
    // launcher had to hand out, so the launcher's own set (the parent
    // process: hydra's proxy, slurmstepd) counts too: two ranks bound to
    // one core each of two are not oversubscribed. A job confined as a
    // whole (taskset around mpiexec) confines the launcher as well.
    cpu_set_t Own, Parent;
    CPU_ZERO(&Own);
    CPU_ZERO(&Parent);
    unsigned Mine = sched_getaffinity(0, sizeof(Own), &Own) == 0
                        ? unsigned(CPU_COUNT(&Own))
                        : 0;
    unsigned Cpus = Mine;
    if (Mine && sched_getaffinity(getppid(), sizeof(Parent), &Parent) == 0) {
      CPU_OR(&Parent, &Parent, &Own);
      Cpus = unsigned(CPU_COUNT(&Parent));
    }
    C.NativeYields = Local && Cpus && Local > Cpus;
    C.NativeWhy =
        Local && Cpus
            ? formatv("CHOREO_NATIVE_WAIT=auto: {0} ranks on this node, {1} "
                      "CPUs{2}",
                      Local, Cpus,
                      Mine < Cpus
                          ? formatv(" (the launcher's; this rank is bound to "
                                    "{0})",
                                    Mine)
                                .str()
                          : std::string())
                  .str()
            : std::string("CHOREO_NATIVE_WAIT=auto: the ranks on this node "
                          "are not known");
  } else {
    C.NativeYields = C.Wait == NativeWait::Yield;
    C.NativeWhy = ("CHOREO_NATIVE_WAIT=" + W).str();
  }
  if (llvm::StringRef R = Env("CHOREO_SELECTION"); !R.empty()) {
    auto Rules = readRulesFile(R);
    if (Rules) {
      C.Sel.Rules = std::move(*Rules);
      C.Sel.RulesFile = R.str();
    } else {
      C.Error = llvm::toString(Rules.takeError());
    }
  }
  return C;
}
