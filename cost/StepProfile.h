//===- cost/StepProfile.h - Lock-step time of composed blocks ---*- C++ -*-===//
///
/// \file
/// The lock-step alpha-beta time of building blocks composed step by step,
/// priced from each block's profile (per step, its largest message) instead
/// of from the composed schedule: what a generator that picks a parameter by
/// the cost model evaluates per candidate without building it (the
/// broadcast family's `--groups auto`, generators/bcast/BcastFamily.cpp).
/// Every op is priced CostModel::transfer(n, bidirectional), alpha + n beta,
/// with nothing combined: for a schedule with at most one op per port and
/// step and f_alpha = f_beta = 1 this is evaluateCost's lock-step time
/// (BcastFamilyTest.LockstepTimeIsTheCostModels).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_COST_STEPPROFILE_H
#define CHOREO_COST_STEPPROFILE_H

#include "cost/Model.h"
#include "ir/StepList.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace choreo {

/// Per step of a list, the bytes of its largest message; -1 for a step
/// without ops.
using StepProfile = std::vector<int64_t>;

StepProfile stepProfile(const StepList &L);

/// The lock-step time of blocks run alongside (step s holds step s of every
/// one of them): step s costs M.StepStartup plus M.transfer of the largest
/// message any block sends in its step s; a step empty in every block costs
/// nothing. Blocks run one after another cost the sum of their times. The
/// start-up is evaluateCost's lock step (startUpWake) for blocks in which a
/// rank receives at most one message per step, as the broadcast family's
/// trees, chains and rings do: every receive of a lock step is waited for.
double alongsideLockstepTime(llvm::ArrayRef<const StepProfile *> Blocks,
                             const CostModel &M);

} // namespace choreo

#endif
