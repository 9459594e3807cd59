//===- trace/Reconstruct.h - A schedule from a traced call ------*- C++ -*-===//
///
/// \file
/// Turns a trace record (trace/TraceRecord.h) into a choreo schedule:
/// the call's header, every non-empty message as an op carrying what its
/// bytes say (trace/Decode.h), placed at the step the happens-before order
/// gives it (trace/Steps.h). Reductions also say whether each received
/// partial was combined or replaced what the receiver held (read from
/// what the receiver sent or kept next). Besides the schedule, findings the
/// schedule cannot express: a rank's result that is not what the
/// collective requires, a partial combined out of rank order.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_RECONSTRUCT_H
#define CHOREO_TRACE_RECONSTRUCT_H

#include "trace/Decode.h"
#include "trace/Messages.h"
#include "trace/TraceRecord.h"

#include "ir/Diagnostics.h"
#include "ir/Schedule.h"

namespace choreo::trace {

/// What a message must follow. Data: the messages its sender received
/// before sending it whose content it carries on (for a reduction: whose
/// contributors its partial includes); Time: every message its sender
/// received before sending it.
enum class StepRule { Data, Time };
/// Single: one send and one receive per rank and step (the sender's sends
/// and the receiver's receives each in their order); Observed: no such
/// order, the header states the most any rank used in a step.
enum class PortRule { Single, Observed };

struct ReconstructOptions {
  StepRule Steps = StepRule::Data;
  PortRule Ports = PortRule::Single;
};

struct Reconstruction {
  Schedule S;
  /// What the record shows and the schedule cannot: results, order.
  std::vector<Diagnostic> Findings;
  /// Messages: those with bytes (a barrier's: all but to itself);
  /// EmptyMessages: those
  /// left out (zero bytes; a barrier's: those that told their receiver
  /// nothing it did not know).
  size_t Messages = 0, EmptyMessages = 0;
  /// Messages a rank sent itself (a local copy through UCX), left out.
  size_t SelfMessages = 0;
  uint64_t Bytes = 0;
};

llvm::Expected<Reconstruction> reconstruct(const TraceRecord &T,
                                           const ReconstructOptions &O);

/// A message's content, decoded: gather-type runs or reduction partials.
struct Content {
  std::vector<Run> Runs;
  std::vector<Partial> Parts;
};

/// A piece of a reduction message as the schedule carries it: elements
/// [Lo, Hi), the partial's contributors, and whether the receiver combined
/// it with what it held (else it replaced it).
struct ReductionPiece {
  uint64_t Lo = 0, Hi = 0, Bits = 0;
  bool Combine = false;
};

/// For each message, its pieces with the combine-or-replace choice:
/// replaying each receiver's partials in the order its receives completed,
/// a piece is combined when what the receiver sends (or keeps) next over
/// those elements still holds the receiver's own contributors, and
/// replaces them otherwise; contributors it held already are never
/// combined again unless what follows shows both. Results[r] is rank r's
/// decoded result, if recorded; ElemBytes names blocks in bytes. A partial its
/// receiver forwards as it came while its result combines it with the
/// receiver's own (two partials of the same elements at once, which a schedule
/// cannot carry) is added to Findings.
std::vector<std::vector<ReductionPiece>>
decideCombines(const std::vector<Message> &Msgs,
               const std::vector<Content> &Contents, uint32_t Ranks,
               uint64_t Count, uint64_t ElemBytes,
               const std::vector<std::optional<std::vector<Partial>>> &Results,
               std::vector<Diagnostic> &Findings);

} // namespace choreo::trace

#endif
