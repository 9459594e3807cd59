//===- trace/Retime.h - Ops as soon as possible -----------------*- C++ -*-===//
///
/// \file
/// The same ops in each rank's order, every op moved to the earliest step
/// at which its sender holds what it sends (gather-type: the bytes it did
/// not hold at the start; reductions: the partials whose contributors its
/// block includes) and its sender's previous send and its receiver's
/// previous receive are done. A generator that starts a phase in lock step
/// (a ring after a whole scatter) and a trace of code that lets each rank
/// go on as soon as it can then compare equal when they send the same
/// messages in the same per-rank order.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_RETIME_H
#define CHOREO_TRACE_RETIME_H

#include "ir/Schedule.h"

namespace choreo::trace {

/// S retimed as soon as possible (S must be verified: every op's data is
/// delivered before it, which the retiming keeps).
Schedule retimeAsap(const Schedule &S);

} // namespace choreo::trace

#endif
