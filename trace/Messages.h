//===- trace/Messages.h - A traced call's messages --------------*- C++ -*-===//
///
/// \file
/// The messages of a traced call: every send paired with the receive that
/// took it. The sender's endpoint names the receiver (an endpoint reaches
/// the process whose worker address it was opened with); the receiver's
/// completion names the sender (the rank field of MPICH's UCX tag:
/// context id 16 bits, source rank 16 bits, MPI tag 32 bits); the k-th
/// receive a rank posted that took a message from s with tag T took the
/// k-th such message s sent it (MPI's non-overtaking rule), and the
/// receive's digest of its bytes must be the send's. What cannot be paired
/// so is an error that says why (docs/trace.md, "Refusals").
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_MESSAGES_H
#define CHOREO_TRACE_MESSAGES_H

#include "trace/TraceRecord.h"

#include <vector>

namespace choreo::trace {

struct Message {
  /// Communicator ranks.
  uint32_t Src = 0, Dst = 0;
  uint64_t Tag = 0;
  llvm::StringRef Bytes;
  /// Event numbers in the sender's and the receiver's records.
  uint64_t SendSeq = 0, PostSeq = 0, CompleteSeq = 0;
};

/// The fields of MPICH's UCX tag.
inline uint32_t tagContext(uint64_t T) { return uint32_t(T >> 48); }
inline uint32_t tagSource(uint64_t T) { return uint32_t(T >> 32) & 0xffff; }
inline uint32_t tagValue(uint64_t T) { return uint32_t(T); }

/// The messages of T in the order of their senders' records (rank by
/// rank), or the first reason they cannot be recovered.
llvm::Expected<std::vector<Message>> pairMessages(const TraceRecord &T);

} // namespace choreo::trace

#endif
