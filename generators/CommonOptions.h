//===- generators/CommonOptions.h - Options generators share -*- C++ -*----===//
///
/// \file
/// The declarations of the options several generators take (--p, --q, the
/// size options, --root, --topology, --intra) and the readers that turn
/// their values into what a generator builds with: group sizes, per-member
/// sizes, a root, a topology, an intragroup algorithm. Readers refuse
/// impossible values with an error naming the option.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_COMMONOPTIONS_H
#define CHOREO_GENERATORS_COMMONOPTIONS_H

#include "generators/allgatherv/Distributions.h"
#include "generators/blocks/Blocks.h"
#include "ir/Schedule.h"
#include "options/Parse.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace choreo {

/// A reduction's operator (--op).
enum class OperatorKind { Commutative, Noncommutative };

namespace opt {

/// --p: the number of ranks of an intragroup collective.
const Option<uint64_t> &ranks();
/// --p and --q: the sizes of groups A and B.
const Option<uint64_t> &groupA();
const Option<uint64_t> &groupB();

/// --bytes / --counts: what each rank of an intragroup collective
/// contributes, every rank alike or one size per rank.
const Option<Size> &bytes();
const Option<SizeList> &counts();
/// --bytes-a / --counts-a and --bytes-b / --counts-b: the same per group.
const Option<Size> &bytesA();
const Option<SizeList> &countsA();
const Option<Size> &bytesB();
const Option<SizeList> &countsB();

/// --distribution and --base: one of seed 003's six distributions of
/// contributions over the ranks (generators/allgatherv/Distributions.h)
/// from a base size c, instead of --bytes or --counts.
const Option<OneOf<Distribution>> &distribution();
const Option<Size> &base();

/// --root, default 0.
const Option<uint64_t> &root();

/// --topology: full (default) or ring.
const Option<OneOf<Topology::Kind>> &anyTopology();
/// --topology full only: the algorithm needs links the ring lacks.
const Option<OneOf<Topology::Kind>> &fullTopology();
/// --topology ring only (the default): Id runs on the ring.
Option<OneOf<Topology::Kind>> ringTopology(llvm::StringRef Id);

/// --nodes LIST: processes per compute node, consecutive ranks per node.
const Option<SizeList> &nodes();
/// --node-of LIST: the node of every rank (any placement).
const Option<SizeList> &nodeOf();

/// --intra: every intragroup allgather algorithm (what intraOf reads by).
const Option<OneOf<IntraAlgorithm>> &intraAny();
/// --intra: the algorithms Allowed, without a default (add one with
/// withDefault or describe it with withDefaultNote).
Option<OneOf<IntraAlgorithm>> intra(llvm::ArrayRef<IntraAlgorithm> Allowed);

/// Reductions (seed 004): --bytes as the vector length n, --element-bytes
/// (default 8; no block splits an element), --op (commutative by default),
/// and reduce_scatter's --slices.
const Option<Size> &vectorBytes();
const Option<Size> &elementBytes();
const Option<OneOf<OperatorKind>> &reductionOp();
/// --op commutative only: Why says why the algorithm cannot keep rank order.
Option<OneOf<OperatorKind>> commutativeOp(llvm::StringRef Why);
const Option<SizeList> &slices();

} // namespace opt

/// A number option that must be present: "--name: missing: the <help>"
/// (the help V's declarations give H).
llvm::Expected<uint64_t> requiredNumber(const OptionValues &V,
                                        const Option<uint64_t> &H);
llvm::Expected<uint64_t> requiredNumber(const OptionValues &V,
                                        const Option<Size> &H);

/// A group's size from --p or --q: present, at least 1 and at most 2^20.
llvm::Expected<uint32_t> groupCount(const OptionValues &V,
                                    const Option<uint64_t> &H);

/// Per-member sizes of a group of N from its size option Bytes (every
/// member alike) or its size-list option Counts (one per member, when V's
/// declarations have it); exactly one must be given. Irregular is set when
/// the list was given.
llvm::Expected<std::vector<uint64_t>>
memberSizes(const OptionValues &V, const Option<Size> &Bytes,
            const Option<SizeList> &Counts, uint32_t N, bool &Irregular);

/// Per-rank sizes of an intragroup collective over N ranks from --bytes,
/// --counts, or --distribution with --base (when declared); exactly one of
/// the three must be given. Irregular unless --bytes was given.
llvm::Expected<std::vector<uint64_t>>
intragroupSizes(const OptionValues &V, uint32_t N, bool &Irregular);

/// The sizes of groups A (--p) and B (--q) from the options sizing A and B.
/// Irregular when a size list was given for either group.
struct IntergroupSizes {
  std::vector<uint64_t> A, B;
  bool Irregular = false;
};
llvm::Expected<IntergroupSizes> intergroupSizes(const OptionValues &V);
/// The same for half_allgather: group B contributes nothing (B is all
/// zeros); A's sizes from the options sizing A.
llvm::Expected<IntergroupSizes> halfIntergroupSizes(const OptionValues &V);

/// (p + q)^2: a bound on the ops of a schedule that moves every one of the
/// p + q members' messages at most once across each of p + q ranks.
inline uint64_t allRanksSquared(const IntergroupSizes &Z) {
  const uint64_t N = Z.A.size() + Z.B.size();
  return N * N;
}

/// A half_allgather schedule before its steps: the sizes of A and B
/// (halfIntergroupSizes), the op budget checked against EstimatedOps(sizes)
/// before anything is built (checkOpBudget under generator Id), the
/// collective and the two groups set. The steps are the generator's.
struct HalfAllgatherStart {
  Schedule S;
  IntergroupSizes Sizes;
};
llvm::Expected<HalfAllgatherStart> startHalfAllgather(
    const OptionValues &V, llvm::StringRef Id,
    llvm::function_ref<uint64_t(const IntergroupSizes &)> EstimatedOps);

/// --root, below N.
llvm::Expected<uint32_t> rootRank(const OptionValues &V, uint32_t N);

/// --topology as a Topology (full when absent).
Topology topologyOf(const OptionValues &V);

/// The node of every rank from --nodes or --node-of (std::nullopt when
/// neither is given), over the P ranks CountName counts ("--p"). Errors name
/// the option: sums that are not P, empty nodes, node numbers with gaps or
/// out of range, a --node-of of the wrong length.
llvm::Expected<std::optional<std::vector<uint32_t>>>
nodeOfRanks(const OptionValues &V, uint32_t P,
            llvm::StringRef CountName = "--p");

/// The schedule's `nodes` partition from the node of every rank (numbered
/// 0, 1, ... without gaps, as nodeOfRanks returns them).
std::vector<std::vector<Rank>> nodePartition(llvm::ArrayRef<uint32_t> NodeOf);

/// Whether S keeps to its `nodes` layout: per step at most the node ports'
/// ops leave and enter every node (nothing to check without nodes). Else an
/// error naming --nodes: generator Id does not keep to the layout, the
/// first step and node over the limit, then Advice.
llvm::Error checkKeepsNodes(const Schedule &S, llvm::StringRef Id,
                            llvm::StringRef Advice);

/// --intra as an algorithm; std::nullopt when absent (no declared default).
std::optional<IntraAlgorithm> intraOf(const OptionValues &V);

} // namespace choreo

#endif
