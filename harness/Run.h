//===- harness/Run.h - choreo-run: a schedule run as an MPI job -*- C++ -*-===//
///
/// \file
/// What `mpiexec -n N choreo-run FILE` does, as a library: read and prove
/// the schedule once (readProvedSchedule, the runtime's pipeline:
/// executor/Pipeline.h), build the communicators its groups
/// describe, fill the buffers, optionally check the result against the
/// expected bytes and MPICH's own collective, and time the plan (and
/// MPICH's collective) over iterations. runJob is the engine and prints
/// nothing; printRunReport renders its result; runSchedule is the tool.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_HARNESS_RUN_H
#define CHOREO_HARNESS_RUN_H

#include "executor/Plan.h"
#include "harness/Reductions.h"
#include "ir/Schedule.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace choreo::harness {

struct RunOptions {
  std::string File;
  unsigned Iterations = 10, Warmup = 1;
  /// Compare every rank's result with the expected bytes and with MPICH's
  /// collective on the same communicator.
  bool Check = false;
  /// Also time MPICH's collective, blocking and non-blocking.
  bool Native = false;
  /// Report as one JSON object instead of text.
  bool Json = false;
  WaitMode Wait = WaitMode::Yield;
  /// Receiver-driven flow control for messages of at least this many
  /// bytes (PlanOptions::FlowControlBytes); 0: off.
  uint64_t FlowControlBytes = 0;
  /// Reductions: the elements and operator (--op).
  ReduceData Op = ReduceData::SumInt;
};

struct RunResult {
  /// The schedule run: whole on rank 0, this rank's ops elsewhere.
  Schedule S;
  /// Run on an intercommunicator of groups A and B.
  bool Inter = false;
  /// Per iteration, the slowest rank's time (the same on every rank).
  std::vector<double> Times, NativeBlocking, NativeNonBlocking;
  /// Every rank on one host (one MPI_Wtime clock): then also, per
  /// iteration, the makespan on that clock (latest end minus earliest
  /// start), which does not undercount when ranks leave the start barrier
  /// apart.
  bool SharedClock = false;
  std::vector<double> Makespans, NativeBlockingMakespans,
      NativeNonBlockingMakespans;
  /// Check: the failed comparisons summed over the ranks (each rank's
  /// result against choreo's and MPICH's), and this rank's first one.
  int Failures = 0;
  std::string FirstFailure;
};

/// Collective over MPI_COMM_WORLD, whose size must be the schedule's. A
/// refused schedule or job is an error on every rank, with the same
/// message.
llvm::Expected<RunResult> runJob(const RunOptions &O);

/// Rank 0's report of a run: text or (O.Json) one JSON object.
void printRunReport(const RunOptions &O, const RunResult &R,
                    llvm::raw_ostream &OS);

/// choreo-run: runJob, then the report on rank 0's standard output, a
/// refusal once (by rank 0) and each failed check by its rank on standard
/// error. Returns ExitOk, ExitFailed (a check fails) or ExitInvalid
/// (refused).
int runSchedule(const RunOptions &O);

} // namespace choreo::harness

#endif
