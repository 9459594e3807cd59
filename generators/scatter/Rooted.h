//===- generators/scatter/Rooted.h - Rooted building blocks ----*- C++ -*-===//
///
/// \file
/// What the scatter generators and the linear gathers build with: a
/// gather's steps turned into a scatter's (time reversed, every message the
/// other way), MPICH's linear trees, and the schedule of a rooted
/// collective whose sizes are the members' (gather, scatter) over --p ranks
/// with --bytes or --counts and --root.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_SCATTER_ROOTED_H
#define CHOREO_GENERATORS_SCATTER_ROOTED_H

#include "generators/Generators.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace choreo {

/// L's steps in reverse order with every op's sender and receiver swapped
/// (a gather's schedule run backwards is a scatter's). Ops keep their
/// order within a step.
StepList reversedSteps(const StepList &L);
/// The same for a rank's part: its steps and which are used, reversed.
RankPart reversedPart(const RankPart &P);

/// The binomial scatter: the binomial gather's steps (blocks/Blocks.h) run
/// backwards, its empty steps dropped; with Me, rank Me's ops alone in the
/// same steps.
StepList binomialScatter(llvm::ArrayRef<uint64_t> Sizes, uint32_t Root,
                         std::optional<Rank> Me = std::nullopt);

/// MPICH's linear gatherv and scatterv (MPIR_Gatherv_allcomm_linear,
/// MPIR_Scatterv_allcomm_linear): the root and members 0, 1, ..., p - 1
/// in turn, one message per step, members with no bytes (and the root)
/// skipped; ToRoot: each member sends its slice to the root, else the root
/// sends it. With Me, rank Me's ops alone in the same steps (O(p)
/// arithmetic).
StepList linearRooted(llvm::ArrayRef<uint64_t> Counts, uint32_t Root,
                      bool ToRoot, std::optional<Rank> Me = std::nullopt);

/// The schedule of a gather or scatter over --p ranks: the members' sizes
/// from --bytes or --counts, --root, the op budget checked against
/// EstimatedOps (p for a tree), and the steps Steps builds for the sizes
/// and root (with Only, rank Only's ops alone).
llvm::Expected<Schedule> buildRooted(
    llvm::StringRef Id, Collective Kind, const OptionValues &V,
    std::optional<Rank> Only,
    llvm::function_ref<StepList(llvm::ArrayRef<uint64_t> Sizes, uint32_t Root)>
        Steps);

/// Whether every member's bytes are alike (MPI_Gather and MPI_Scatter
/// rather than their v forms).
bool regularSizes(llvm::ArrayRef<uint64_t> Sizes);

} // namespace choreo

#endif
