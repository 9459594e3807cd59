//===- trace/TraceRecord.h - A traced call as written -----------*- C++ -*-===//
///
/// \file
/// The record the preload library (trace/preload/) leaves in a trace
/// directory, read back: per process its endpoints, the call's header
/// lines, its sends (with their bytes), its receives posted and completed,
/// its result and the refusals it noted (docs/trace.md gives the lines).
/// Reading checks each line and that the processes describe one call of
/// one communicator; errors name the file and line.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_TRACERECORD_H
#define CHOREO_TRACE_TRACERECORD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace choreo::trace {

/// What every process says of the call (the same on every member but Me).
struct CallRecord {
  std::string Collective;
  uint32_t Size = 0, Me = 0;
  std::optional<uint32_t> Root;
  /// World rank of each member of the communicator.
  std::vector<uint32_t> Members;
  std::string Impl;
  /// Gather-type: bytes per member (bcast: the vector, one entry), and the
  /// word size of the stream.
  std::vector<uint64_t> Sizes;
  unsigned Unit = 0;
  /// Reductions: the vector's bytes, the encoding ("or", "sum", "ordered") and
  /// its element size.
  uint64_t Vector = 0;
  std::string Op;
  /// reduce_scatter: each rank's slice in bytes.
  std::vector<uint64_t> Slices;
  uint64_t ElemBytes = 0;

  bool isReduction() const { return !Op.empty(); }
};

struct SendRecord {
  uint64_t Seq = 0;
  uint32_t Ep = 0;
  uint64_t Tag = 0, Len = 0;
  /// Offset of the bytes in the process's data; absent when packed.
  std::optional<uint64_t> Offset;
  bool Sync = false;
};

struct RecvRecord {
  uint32_t Id = 0;
  uint64_t PostSeq = 0, Tag = 0, Mask = 0, Capacity = 0;
  bool Packed = false;
  /// Filled by the completion line, if any.
  bool Completed = false;
  uint64_t CompleteSeq = 0, SenderTag = 0, Len = 0, Hash = 0;
  std::string Status;
};

struct ProcessRecord {
  std::string Path;
  uint32_t World = 0;
  std::string Address;
  std::vector<std::string> EpAddress;
  CallRecord Call;
  std::vector<std::string> Refusals;
  std::vector<SendRecord> Sends;
  std::vector<RecvRecord> Recvs;
  std::optional<std::pair<uint64_t, uint64_t>> Result; // length, offset
  /// Seconds of the traced call (recording on) and of the program's own
  /// call after it (recording off), on this rank.
  std::optional<std::pair<double, double>> Timing;
  std::unique_ptr<llvm::MemoryBuffer> Data;

  llvm::StringRef bytes(uint64_t Offset, uint64_t Len) const {
    return Data->getBuffer().substr(Offset, Len);
  }
};

/// Every process's record of one traced call, indexed by communicator rank.
struct TraceRecord {
  std::string Dir;
  std::vector<ProcessRecord> Ranks;
  const CallRecord &call() const { return Ranks.front().Call; }
};

/// Reads the records of Dir (rank-W.events and rank-W.data).
llvm::Expected<TraceRecord> readTraceDir(llvm::StringRef Dir);

} // namespace choreo::trace

#endif
