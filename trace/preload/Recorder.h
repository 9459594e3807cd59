//===- trace/preload/Recorder.h - A process's record of a call --*- C++ -*-===//
///
/// \file
/// What the preload library keeps of one process while a traced call runs
/// (the window): the point-to-point messages MPICH hands to UCX (sends with
/// their bytes, receives posted and completed with the sender's tag and a
/// digest of the bytes), the endpoints MPICH opened at MPI_Init, the call's
/// header lines and its result; written as `rank-W.events` (text, one
/// record a line, docs/trace.md) and `rank-W.data` (the bytes) after the
/// call.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_PRELOAD_RECORDER_H
#define CHOREO_TRACE_PRELOAD_RECORDER_H

#include <cstdint>
#include <string>

namespace choreo::trace {

/// Opens the window: from now on messages are recorded.
void openWindow();
/// Closes it.
void stopRecording();
/// Writes the record (with Header's lines first) to the trace directory;
/// a failure to write is reported on standard error.
void writeRecord(const std::string &Header, int WorldRank);
bool windowOpen();
/// Appends bytes as the call's result (what the rank's output buffer held
/// at the end of the call).
void recordResult(const void *Data, uint64_t Len);
/// Notes a reason the record cannot be trusted (written as a `refuse`
/// line, read as a refusal).
void recordRefusal(const std::string &Why);

} // namespace choreo::trace

#endif
