//===- executor/JobProof.h - The distributed proof in a job -----*- C++ -*-===//
///
/// \file
/// The proof of a schedule that no rank holds whole: every rank of a job
/// checks its own part (verifier/DistributedCheck.h, checkLocal), the
/// lowest rank of each compute node checks the node's off-node ports, and
/// the ranks agree on every message in one 32-byte allreduce (the sum of
/// their agreement terms is zero). Only when something fails do ranks
/// exchange more: the pairs that disagree send each other their messages to
/// locate the first differing step, and rank 0 gathers every finding,
/// merges them as the explicit checker orders its diagnostics
/// (mergeFindings) and tells every rank. docs/distributed-proof.md says why
/// the conjunction is the explicit checker's verdict and what it costs.
///
/// The same allreduce sums every rank's sends' digests: with the header's
/// digest it names the whole schedule (the job's digest), which a verdict
/// cache knows a proof by, so that a job proves a schedule once.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_JOBPROOF_H
#define CHOREO_EXECUTOR_JOBPROOF_H

#include "executor/Pipeline.h"

#include "llvm/ADT/ArrayRef.h"

namespace choreo {

/// Collective over Comm, an intracommunicator of Part.NumRanks ranks whose
/// rank c plays schedule rank RankOf[c] (c itself when RankOf is empty);
/// Part holds at least this rank's (Me's) ops, in the whole schedule's step
/// numbering. Returns how the verdict was found ("proved by 64 ranks
/// (...)", "proof cached in CHOREO_CACHE_DIR", "proof known in this job"),
/// the same on every rank; or, on every rank, the same error: the explicit
/// checker's diagnostics of the schedule the parts make, or why they make
/// none (another header or step count, another job size).
llvm::Expected<std::string> proveInJob(MPI_Comm Comm, const Schedule &Part,
                                       Rank Me, llvm::ArrayRef<Rank> RankOf,
                                       VerdictCache *Cache);

/// What proveInJob's ranks reduce when the parts prove, for a caller that
/// reduces them itself without blocking (a started MPI_Ialltoallv,
/// pmpi/StartedParts.cpp): the header's fingerprint and the first rank
/// whose own header fails (combined by MPI_MIN, unsigned), the job's digest
/// terms, the message agreement and the rows' edges (MPI_SUM), whether the
/// local check found anything and this rank's ops (MPI_MAX). Local: every
/// rank's own check runs here. A Part with nodes is not supported (its node
/// checks need the node's ranks): NodesUnsupported is set.
struct ProofWords {
  static constexpr int NMin = 5, NSum = 8, NMax = 5;
  uint64_t Min[NMin] = {}, Sum[NSum] = {}, Max[NMax] = {};
  bool NodesUnsupported = false;
};
ProofWords proofWords(const Schedule &Part, Rank Me, int CommRank);

/// The verdict of the reduced words (alike on every rank): "" when the
/// parts prove, else what failed, in a sentence (proveInJob, called by
/// every rank, names the step, rank and block).
std::string proofVerdict(const Schedule &Part, int CommSize,
                         const ProofWords &Reduced);

} // namespace choreo

#endif
