//===- pmpi/JobCost.h - The cost model's time, priced in a job --*- C++ -*-===//
///
/// \file
/// The asynchronous time of the cost model (cost/Model.h) of schedules no
/// rank holds whole: every rank holds its own part of each candidate, and
/// the ranks replay the candidates' ops with timestamps instead of data.
/// For each of its ops, in step order, a rank tells the op's other end when
/// its channel for the op is free (and whether it also sends, or receives,
/// in the step; the sender, the op's bytes) and hears the same from it; both
/// ends then know when the op starts and ends, exactly as the whole
/// schedule's simulation does. One maximum over the ranks of when each
/// finished gives every candidate's time. This is how the drop-in library's
/// `auto` prices its candidates (docs/pmpi.md, "auto in a job").
///
/// Within a step the ranks take their ops in (sender, receiver) order, the
/// projection of one global order, so that no two ranks wait on each other:
/// the time is evaluateCost(...).Async of the whole schedule with each
/// step's ops in that order (canonicalStepOrder), which differs from the
/// generator's order only when a rank has more ops in a step than channels.
/// The exchange runs only for candidates whose parts agree on every message
/// (one allreduce of the agreement digests, verifier/DistributedCheck.h):
/// parts that disagree could wait on each other forever, and are not priced.
/// An op between two ranks of one node pays the model's intra-node pair
/// (CostModel::Intra) by the part's `nodes`, else the model's NodeOf.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_JOBCOST_H
#define CHOREO_PMPI_JOBCOST_H

#include "cost/Model.h"
#include "ir/CallBinding.h"
#include "ir/Schedule.h"
#include "pmpi/Selection.h"

#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <mpi.h>
#include <optional>
#include <string>
#include <vector>

namespace choreo {
namespace pmpi {

/// The price of one candidate in a job.
struct JobPrice {
  enum class Status : uint8_t {
    Priced,
    /// Some rank has no part (its build failed): not priced.
    Missing,
    /// The ranks' parts do not agree on every message.
    Disagree,
    /// A part with `nodes` whose node channels could make an op wait
    /// (they are not replayed): priced only when, per node, at most one
    /// rank sends off it and at most one receives from another, every rank
    /// with one channel each way (the node-aware candidates).
    HasNodes,
  };
  Status St = Status::Missing;
  /// The asynchronous time (Status::Priced), the same on every rank.
  double Time = 0;
};

/// Collective over Comm, an intracommunicator whose rank r is schedule
/// rank r: Parts[i] is candidate i's part at this rank (Me), at least Me's
/// ops in the whole's step numbering, or none when this rank could not
/// build it. Every rank passes as many candidates, in the same order, and
/// gets the same prices.
std::vector<JobPrice>
priceInJob(MPI_Comm Comm, llvm::ArrayRef<const std::optional<Schedule> *> Parts,
           Rank Me, const CostModel &M);

/// Auto's choice, priced in the job: the candidate (pmpi/Candidates.h)
/// with the least
/// asynchronous time under the model (the first of the least, in the
/// registry's order, as chooseByModel), its part at this rank and how many
/// were priced; none when no candidate could be priced. Collective over
/// Comm (whose rank r is the call's schedule rank r, Me this rank); every
/// rank chooses alike.
struct JobChoice {
  std::string Id;
  std::optional<Schedule> Part;
  double Time = 0;
  unsigned Candidates = 0;
  /// The cheapest priced model of MPICH's own algorithm (a `*-mpich`
  /// generator) and its time, when one serves the call: what the library
  /// weighs its choice against (SelectionConfig::Margin).
  std::string MpichId;
  std::optional<double> MpichTime;
  /// The winner's own options and the choice's text (AutoResult's).
  std::vector<std::string> Extra;
  std::string Text;
};
/// NodeOf: the job's nodes (chooseByModel's; the same on every rank).
std::optional<JobChoice> chooseInJob(MPI_Comm Comm, Rank Me,
                                     const BoundCall &Call,
                                     const SelectionConfig &Sel,
                                     llvm::ArrayRef<uint32_t> NodeOf = {});

/// canonicalStepOrder (pmpi/Selection.h): the order priceInJob prices.

/// chooseInJob in stages that a caller drives without waiting (a started
/// MPI_Ialltoallv's run, pmpi/AlltoallWrappers.cpp, whose messages after
/// the call returns are point to point in its run's slot): the caller
/// carries the two reductions over the ranks in its own messages, and
/// advance() progresses the replays without blocking. The same candidates,
/// words, replay and rule as chooseInJob, so the same choice and times,
/// except that a candidate whose part has `nodes` is not priced here (its
/// node channels' check is one more reduction; no alltoall generator takes
/// a layout). Every rank makes the same calls with the same reductions.
class StagedChoice {
public:
  /// Every candidate's part at Me (as chooseInJob builds them).
  StagedChoice(const BoundCall &Call, const SelectionConfig &Sel, Rank Me,
               llvm::ArrayRef<uint32_t> NodeOf = {});
  ~StagedChoice();
  StagedChoice(const StagedChoice &) = delete;
  StagedChoice &operator=(const StagedChoice &) = delete;

  size_t size() const;
  /// 1. Four words a candidate to sum over the ranks: missing at this
  /// rank, `nodes`, the agreement term (priceInJob's).
  std::vector<uint64_t> sumWords() const;
  /// 2. With the sums: this rank's replays of the priced candidates posted
  /// on Comm, candidate I's messages on tag Tag0 + I (Tag0 .. Tag0 +
  /// size() - 1, which no other message on Comm may use meanwhile).
  void startReplays(MPI_Comm Comm, llvm::ArrayRef<uint64_t> Sums, int Tag0);
  /// Progresses every replay without waiting; true once all of this
  /// rank's are done.
  bool advance();
  /// 3. One word a candidate to take the maximum of over the ranks: when
  /// this rank finished the candidate's replay, as the bits of the
  /// non-negative double (which order as the doubles do).
  std::vector<uint64_t> maxWords() const;
  /// 4. Auto's choice from the maxima (chooseInJob's: the first of the
  /// least, MPICH's cheapest model beside it; the winner's part moved into
  /// it), and its candidate's index in At; none when no candidate was
  /// priced.
  std::optional<JobChoice> choose(llvm::ArrayRef<uint64_t> Max,
                                  size_t *At = nullptr);
  /// The part of the candidate named Text (Candidate::text(), as
  /// JobChoice::MpichId), moved out; none once moved or if none is so
  /// named.
  std::optional<Schedule> takePart(llvm::StringRef Text);

private:
  struct State;
  std::unique_ptr<State> S;
};

} // namespace pmpi
} // namespace choreo

#endif
