//===- trace/Decode.h - What a message's bytes carry ------------*- C++ -*-===//
///
/// \file
/// Reads a message's bytes back into what they are (trace/Encoding.h):
/// for gather-type data the runs of the collective's buffer it carries,
/// for reductions the element ranges with their contributor sets, whether
/// each partial's order fingerprint is the rank-order product of its set,
/// and the flags the ordered operator raises. A byte that is no tag is an
/// error saying where it lies in the message.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_DECODE_H
#define CHOREO_TRACE_DECODE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace choreo::trace {

/// Bytes [Lo, Hi) of the collective's buffer.
struct Run {
  uint64_t Lo = 0, Hi = 0;
};

/// The runs of the stream of Unit-byte words (of Total bytes) that Bytes
/// holds, in message order. Unit 8 finds a run's phase itself (a broadcast
/// cuts its vector at any byte); smaller units need runs on word bounds. A
/// run without a whole word must be the rest of the message.
llvm::Expected<std::vector<Run>> decodeStream(llvm::StringRef Bytes,
                                              unsigned Unit, uint64_t Total);

/// Elements [Lo, Hi) of a reduction's vector and the partial they hold.
struct Partial {
  uint64_t Lo = 0, Hi = 0;
  /// One bit per contributing rank.
  uint64_t Bits = 0;
  /// Ordered encoding: whether the fingerprint is the product of Bits's
  /// ranks in rank order; the operator's flags (Encoding.h; the sum
  /// encoding raises FlagOverlap too, for a rank counted twice).
  bool InOrder = true;
  uint64_t Flags = 0;
};

/// How a reduction's elements are encoded (trace/Encoding.h).
enum class ReductionEncoding { Or, Sum, Ordered };
std::optional<ReductionEncoding> parseEncoding(llvm::StringRef Name);

/// The partials Bytes holds (Ordered: four words per element, else one),
/// of a vector of Count elements.
llvm::Expected<std::vector<Partial>>
decodeReduction(llvm::StringRef Bytes, ReductionEncoding E, uint64_t Count);

} // namespace choreo::trace

#endif
