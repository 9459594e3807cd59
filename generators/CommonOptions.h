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

#include "generators/Options.h"
#include "generators/blocks/Blocks.h"
#include "ir/Schedule.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace choreo {
namespace opt {

/// --p: the number of ranks of an intragroup collective.
OptionDecl ranks();
/// --p and --q: the sizes of groups A and B.
OptionDecl groupA();
OptionDecl groupB();

/// --bytes / --counts: what each rank of an intragroup collective
/// contributes, every rank alike or one size per rank.
OptionDecl bytes();
OptionDecl counts();
/// --bytes-a / --counts-a and --bytes-b / --counts-b: the same per group.
OptionDecl bytesA();
OptionDecl countsA();
OptionDecl bytesB();
OptionDecl countsB();

/// --distribution and --base: one of seed 003's six distributions of
/// contributions over the ranks (generators/allgatherv/Distributions.h)
/// from a base size c, instead of --bytes or --counts.
OptionDecl distribution();
OptionDecl base();

/// --root, default 0.
OptionDecl root();

/// --topology: full (default) or ring.
OptionDecl anyTopology();
/// --topology full only: the algorithm needs links the ring lacks.
OptionDecl fullTopology();
/// --topology ring only (the default): Id runs on the ring.
OptionDecl ringTopology(llvm::StringRef Id);

/// --nodes LIST: processes per compute node, consecutive ranks per node.
OptionDecl nodes();
/// --node-of LIST: the node of every rank (any placement).
OptionDecl nodeOf();

/// --intra: the intragroup allgather algorithms Allowed, without a default
/// (add one with withDefault or describe it with withDefaultNote).
OptionDecl intra(llvm::ArrayRef<IntraAlgorithm> Allowed);

/// Reductions (seed 004): --bytes as the vector length n, --element-bytes
/// (default 8; no block splits an element), --op (commutative by default),
/// and reduce_scatter's --slices.
OptionDecl vectorBytes();
OptionDecl elementBytes();
OptionDecl reductionOp();
/// --op commutative only: Why says why the algorithm cannot keep rank order.
OptionDecl commutativeOp(llvm::StringRef Why);
OptionDecl slices();

} // namespace opt

/// A number option that must be present: "--name: missing: the <help>".
llvm::Expected<uint64_t> requiredNumber(const OptionValues &V,
                                        llvm::StringRef Name);

/// A group's size from --p or --q: present, at least 1 and at most 2^20.
llvm::Expected<uint32_t> groupCount(const OptionValues &V,
                                    llvm::StringRef Name);

/// Per-member sizes of a group of N from the options declared to size
/// Group: its size option (every member alike) or its size-list option (one
/// per member); exactly one must be given. Irregular is set when the list
/// was given.
llvm::Expected<std::vector<uint64_t>> memberSizes(const OptionValues &V,
                                                  SizedGroup Group, uint32_t N,
                                                  bool &Irregular);

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

/// --intra as an algorithm; std::nullopt when absent (no declared default).
std::optional<IntraAlgorithm> intraOf(const OptionValues &V);

} // namespace choreo

#endif
