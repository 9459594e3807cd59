//===- executor/Clock.h - The runtime's monotonic clock ---------*- C++ -*-===//
///
/// \file
/// Seconds on the steady clock: what the pipeline, the proof in a job and
/// the drop-in library time their phases with (differences only).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_CLOCK_H
#define CHOREO_EXECUTOR_CLOCK_H

#include <chrono>

namespace choreo {

inline double steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace choreo

#endif
