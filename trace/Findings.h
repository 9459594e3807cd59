//===- trace/Findings.h - What a trace shows beyond it ----------*- C++ -*-===//
///
/// \file
/// The checks a reconstructed schedule cannot carry: whether each rank's
/// result buffer holds what the collective requires (a program can place
/// received bytes wrongly, which no message shows), and for the ordered
/// reduction operator whether every partial was combined in rank order and
/// without counting a contributor twice (the format's schedules always
/// combine the lower interval first). Each finding names the step, rank
/// and block, in the words of `choreo verify`.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_FINDINGS_H
#define CHOREO_TRACE_FINDINGS_H

#include "trace/Reconstruct.h"

namespace choreo::trace {

std::vector<Diagnostic> traceFindings(const TraceRecord &T,
                                      const std::vector<Message> &Msgs,
                                      const std::vector<Content> &Contents,
                                      const std::vector<uint32_t> &Step,
                                      const Schedule &S);

} // namespace choreo::trace

#endif
