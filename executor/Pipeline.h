//===- executor/Pipeline.h - Acquire parts, agree, prove them --*- C++ -*-===//
///
/// \file
/// The one path a schedule takes from where it comes from to a rank's plan,
/// collectively over a communicator (every rank calls it with the same
/// source). No rank reads, builds, holds or proves the whole schedule:
///
///   1. acquire: every rank reads only its own ops of a schedule file
///      (the whole file when an intercommunicator's groups break the
///      format's convention), or builds only its own part with the
///      caller's callback (the generator's rank form; a generator without
///      one builds the whole, of which the rank keeps its ops);
///   2. agree: any rank's problem is every rank's error (nobody hangs); the
///      ranks that read a file compare its digest (header, step count, the
///      steps as read) with rank 0's;
///   3. prove: the ranks prove their parts together (executor/JobProof.h,
///      docs/distributed-proof.md), unless a verdict cache knows the job's
///      digest; a failure is every rank's error, with the explicit
///      checker's diagnostics;
///   4. project: a rank keeps only its own ops (onlyRank);
///   5. plan: Plan::create with PlanOptions::Verify off, with the caller's
///      buffers.
///
/// Plan::createFromFile runs all five; choreo-run (harness/Run.h) runs 1-4
/// (readProvedSchedule), then builds its communicators and buffers from the
/// header and creates the plan; the drop-in library (pmpi/) builds with the
/// generator it selected, caches verdicts (CHOREO_CACHE_DIR) and creates
/// the plan on its private communicator. The runtime knows no generator:
/// the build callback is how the library plugs them in.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_PIPELINE_H
#define CHOREO_EXECUTOR_PIPELINE_H

#include "executor/Agree.h"
#include "ir/Schedule.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <mpi.h>
#include <optional>
#include <set>
#include <string>

namespace choreo {

/// Where a schedule comes from: a file, or a builder.
struct ScheduleSource {
  /// A schedule file (format v1, JSON or CBOR); "-" is standard input, read
  /// by rank 0 of an intracommunicator and sent to the others.
  std::string Path;
  /// Or a builder (then the communicator is an intracommunicator whose
  /// rank r is schedule rank r): at least rank Only's ops in the whole's
  /// step numbering (a builder that cannot build a part alone builds the
  /// whole); the pipeline always passes Only. It must not communicate.
  std::function<llvm::Expected<Schedule>(std::optional<Rank> Only)> Build;

  static ScheduleSource file(llvm::StringRef Path) {
    ScheduleSource S;
    S.Path = Path.str();
    return S;
  }
};

/// Verdicts known without proving: the job's digests (executor/JobProof.h,
/// in hex)
/// proved in this process and, when Dir is set, the files
/// `<digest>.proved` in Dir, written by every proof (so that a later job
/// with the same schedule does not prove it again).
struct VerdictCache {
  std::string Dir;
  std::set<std::string> Proved;
};

/// What the pipeline gives a rank.
struct ProvedSchedule {
  /// This rank's ops, under the whole schedule's header (and, read from a
  /// file, the steps' digest of the whole file).
  Schedule S;
  /// How the job found its verdict, the same on every rank: "proved by 4
  /// ranks (18 ops, at most 9 on a rank; 0.02 ms of checking on the
  /// slowest)", "proof cached in CHOREO_CACHE_DIR", or "proof known in this
  /// job".
  std::string How = "proof known in this job";
  /// Seconds this rank spent acquiring (reading or building).
  double AcquireSeconds = 0;
};

/// Stages 1-4, collective over Comm (an intra- or, for a file, an
/// intercommunicator, whose schedule rank this process plays by the
/// format's convention: A = 0..p-1, B = p..p+q-1, reading the file whole
/// when the groups break it). Any rank's problem is every rank's error,
/// with the lowest failing rank's message: a schedule that cannot be read
/// or built, differs from rank 0's ("rank R was given a different schedule
/// (PATH) than rank 0; every rank must run the same"), or whose parts do
/// not prove (the explicit checker's diagnostics of the schedule they make,
/// or the first message its two ends see differently). A builder's errors
/// name the rank ("rank 3: ..."): ranks build different parts.
llvm::Expected<ProvedSchedule> proveAndAgree(MPI_Comm Comm, ScheduleSource Src,
                                             VerdictCache *Cache = nullptr);

/// proveAndAgree of a schedule file, without a verdict cache: this rank's
/// ops. What
/// Plan::createFromFile and choreo-run do before building a plan.
llvm::Expected<Schedule> readProvedSchedule(llvm::StringRef Path,
                                            MPI_Comm Comm);

} // namespace choreo

#endif
