//===- cost/Goal.h - A schedule in LogGOPSim's GOAL format ------*- C++ -*-===//
///
/// \file
/// GOAL (Hoefler et al., LogGOPSim) describes each rank's sends, receives and
/// local computations with labels and dependencies:
///
///   num_ranks 2
///   rank 0 {
///   o0s: send 8b to 1 tag 0
///   }
///   rank 1 {
///   o0r: recv 8b from 0 tag 0
///   }
///
/// writeGoal encodes exactly what choreo's executor does: a rank's ops of one
/// step are independent of each other and each requires every op of the
/// rank's previous step (through a `calc 0` join when that is fewer lines),
/// so a simulator runs the verified schedule, step order and all. Op i of
/// the schedule (in step order) is `oIs` at its sender and `oIr` at its
/// receiver, with tag i. With Gamma, a rank that combines reduced bytes in a
/// step runs `cS: calc round(Gamma x bytes)` after the step's ops, and its
/// next step waits for it; Gamma is in the simulator's time unit per byte.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_COST_GOAL_H
#define CHOREO_COST_GOAL_H

#include "ir/Schedule.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace choreo {

/// Fails, writing nothing, when a step's `calc` would not fit the 63 bits
/// LogGOPSim reads (Gamma x the bytes a rank combines in one step).
llvm::Error writeGoal(const Schedule &S, llvm::raw_ostream &OS,
                      double Gamma = 0);

} // namespace choreo

#endif
