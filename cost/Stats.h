//===- cost/Stats.h - Counting what a schedule moves ------------*- C++ -*-===//
///
/// \file
/// The model-free measures of a schedule that the papers' formulas speak
/// of: steps (start-ups in lock step), the bytes the busiest rank sends and
/// receives, the bytes moved in all, and the lock-step bandwidth term (per
/// step, the largest message).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_COST_STATS_H
#define CHOREO_COST_STATS_H

#include "ir/Schedule.h"

namespace choreo {

struct ScheduleStats {
  unsigned Steps = 0;
  size_t Ops = 0;
  /// Bytes carried by all ops.
  uint64_t BytesMoved = 0;
  /// The busiest sender and receiver, and their bytes.
  Rank MaxSentRank = 0, MaxRecvRank = 0;
  uint64_t MaxSent = 0, MaxRecv = 0;
  /// Sum over steps of the largest message of the step: the t_w term of a
  /// lock-step execution.
  uint64_t LockstepBytes = 0;
  /// Largest number of messages any rank receives.
  size_t MaxMessagesReceived = 0;
};

ScheduleStats computeStats(const Schedule &S);

} // namespace choreo

#endif
