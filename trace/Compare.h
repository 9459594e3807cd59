//===- trace/Compare.h - Two schedules op for op ----------------*- C++ -*-===//
///
/// \file
/// Compares a traced schedule with another (a generator's for the same
/// header, or a file): the call (collective, ranks, sizes, root, operator)
/// must be the same; then step by step the ops, each as its sender,
/// receiver and blocks (adjacent blocks of one kind merged, so a message
/// cut into pieces differently still compares equal). When the steps
/// differ it also says whether they are equal once both are retimed as soon
/// as possible (the same messages in the same order at every rank), or the
/// same messages in other steps.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_COMPARE_H
#define CHOREO_TRACE_COMPARE_H

#include "ir/Schedule.h"

#include <string>
#include <vector>

namespace choreo::trace {

struct Comparison {
  bool SameCall = false;
  /// Equal op for op, step by step.
  bool Equal = false;
  /// Equal once both are retimed as soon as possible (trace/Retime.h):
  /// the same messages in the same order at every rank.
  bool EqualAsap = false;
  /// Equal as a multiset of messages, whatever their steps.
  bool SameMessages = false;
  /// The report: a summary line, then the first differences.
  std::vector<std::string> Lines;
};

Comparison compareSchedules(const Schedule &A, llvm::StringRef NameA,
                            const Schedule &B, llvm::StringRef NameB,
                            size_t MaxDifferences = 8);

} // namespace choreo::trace

#endif
