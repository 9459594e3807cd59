//===- trace/Steps.h - Steps from the order of a trace's events -*- C++ -*-===//
///
/// \file
/// A message's step is one more than the latest step of the messages it
/// must follow (none: step 0): the longest path to it in the graph whose
/// edges the reconstruction draws (the messages its sender received before
/// sending it, and with single ports the sender's previous send and the
/// receiver's previous receive). The events of one process are in real
/// time order, so a cycle means the record mixes orders the single-port
/// model cannot keep; it is reported with the messages on it.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_STEPS_H
#define CHOREO_TRACE_STEPS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace choreo::trace {

/// Steps of N messages given each one's predecessors; Describe names a
/// message in an error.
llvm::Expected<std::vector<uint32_t>>
longestPathSteps(const std::vector<std::vector<uint32_t>> &Preds,
                 llvm::function_ref<std::string(uint32_t)> Describe);

} // namespace choreo::trace

#endif
