//===- trace/Knowledge.h - What a barrier's messages tell -------*- C++ -*-===//
///
/// \file
/// A barrier's messages carry no bytes (MPICH's are zero-byte
/// MPIC_Sendrecvs), but knowledge: schedule-format.md lays a barrier out as
/// an allgather of one byte of "has arrived" per rank, and a message from
/// s carries the bits s knew when it sent it, its own and those of every
/// message it had received. Its receiver learns those it did not know.
/// Two readings of "knew" (docs/trace.md, "Barriers"): all that s had
/// received when the message left (happens-before, taken literally), or
/// what s held by the message's step, the steps drawn by the port order
/// alone (what a lock-step schedule sends), never more than the first.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_KNOWLEDGE_H
#define CHOREO_TRACE_KNOWLEDGE_H

#include "trace/Decode.h"
#include "trace/Messages.h"

#include <vector>

namespace choreo::trace {

/// Happens-before taken literally: message m from s carries every bit s
/// knew when it sent m (its own, and what every message s received before
/// then carried). For each message of All, the bits its receiver learns
/// (those it did not know when the message completed), as runs of buffer
/// `all` (one byte per rank; empty when it learns nothing).
std::vector<std::vector<Run>> barrierKnowledge(const std::vector<Message> &All,
                                               uint32_t Ranks);

/// By steps (Step[m]: m's step from the port order): m carries what s held
/// at the start of m's step, that is its own bit and what the messages s
/// received in earlier steps carried, of those that completed before s sent
/// m (a message still under way says nothing yet). The bits its receiver
/// learns: those it did not hold at the start of that step.
std::vector<std::vector<Run>>
barrierKnowledgeByStep(const std::vector<Message> &All, uint32_t Ranks,
                       const std::vector<uint32_t> &Step);

} // namespace choreo::trace

#endif
