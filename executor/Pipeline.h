//===- executor/Pipeline.h - Prove once, agree, project ---------*- C++ -*-===//
///
/// \file
/// The one path a schedule takes from where it comes from to a rank's plan,
/// collectively over a communicator (every rank calls it with the same
/// source):
///
///   1. acquire: read a schedule file (the prover whole, every other rank
///      only its own ops), or build it with the caller's callback (the
///      prover whole, every other rank only its part when the builder can);
///   2. prove, on the prover only (rank 0, or rank 0 of group A), with the
///      explicit engine, unless a verdict cache knows the schedule's digest
///      (scheduleDigest);
///   3. agree: any rank's problem is every rank's error (nobody hangs), and
///      every rank holds what the prover proved: a rank that read the
///      schedule compares its shared digest (header, step count, the steps
///      as read) with the prover's; a rank that built its part compares the
///      digest of its own ops with the prover's of the proved whole
///      (rankDigests);
///   4. project: a rank keeps only its own ops (onlyRank; a reader keeps
///      only its own while reading);
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
  /// rank r is schedule rank r): the whole schedule when Only is empty (the
  /// prover asks), else at least rank Only's ops in the whole's step
  /// numbering (a builder that cannot build a part alone builds the whole).
  /// It must not communicate.
  std::function<llvm::Expected<Schedule>(std::optional<Rank> Only)> Build;
  /// The prover's whole schedule when the caller has built it already (the
  /// library's `auto` choice): Build is not called on the prover.
  std::optional<Schedule> Built;

  static ScheduleSource file(llvm::StringRef Path) {
    ScheduleSource S;
    S.Path = Path.str();
    return S;
  }
};

/// Verdicts known without proving: the digests (scheduleDigest, in hex)
/// proved in this process and, when Dir is set, the files
/// `<digest>.proved` in Dir, written by every proof (so that a later job
/// with the same schedule does not prove it again).
struct VerdictCache {
  std::string Dir;
  std::set<std::string> Proved;
};

/// What the pipeline gives a rank.
struct ProvedSchedule {
  /// This rank's part: a schedule read is whole on the prover and this
  /// rank's ops elsewhere; a schedule built is this rank's ops on every
  /// rank. The header and the steps' digest are the whole schedule's.
  Schedule S;
  /// How the prover found its verdict: "proved (18 ops, 0.02 ms)", "proof
  /// cached in CHOREO_CACHE_DIR", or (also on every other rank) "proof
  /// known in this job".
  std::string How = "proof known in this job";
  /// Seconds this rank spent acquiring (reading or building).
  double AcquireSeconds = 0;
};

/// Stages 1-4, collective over Comm (an intra- or, for a file, an
/// intercommunicator, whose schedule rank this process plays by the
/// format's convention: A = 0..p-1, B = p..p+q-1, reading the file whole
/// when the groups break it). Any rank's problem is every rank's error,
/// with the lowest failing rank's message: a schedule that cannot be read
/// or built, does not prove, differs from the prover's ("rank R was given a
/// different schedule (PATH) than rank 0; every rank must run the same"),
/// or (built) whose rank's ops are not its ops of the proved whole. A
/// builder's errors name the rank ("rank 3: ..."): ranks build different
/// parts.
llvm::Expected<ProvedSchedule> proveAndAgree(MPI_Comm Comm, ScheduleSource Src,
                                             VerdictCache *Cache = nullptr);

/// proveAndAgree of a schedule file, without a verdict cache: the schedule
/// whole on the prover, this rank's ops elsewhere. What
/// Plan::createFromFile and choreo-run do before building a plan.
llvm::Expected<Schedule> readProvedSchedule(llvm::StringRef Path,
                                            MPI_Comm Comm);

} // namespace choreo

#endif
