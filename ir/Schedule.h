//===- ir/Schedule.h - A collective-communication schedule ------*- C++ -*-===//
///
/// \file
/// Schedule is the in-memory form of a format-v1 document
/// (schedule-format.md): a call header (ir/CallHeader.h: the collective and
/// its data, the machine model), the algorithm and its params, and the
/// steps. `verify()` checks the format's structural rules (ranks in range,
/// no self-send, blocks inside their buffers, ...) and names each failure by
/// its JSON pointer; the semantic properties (availability, ports, topology,
/// completeness) are the verifier's.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_SCHEDULE_H
#define CHOREO_IR_SCHEDULE_H

#include "ir/CallHeader.h"
#include "ir/CollectiveSpec.h"
#include "ir/Diagnostics.h"
#include "ir/Digest.h"
#include "ir/StepList.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace choreo {

/// An op by its step and its index in the step.
struct OpAt {
  uint32_t Step = 0, Index = 0;
};

/// A byte range of one member's contribution to its group's buffer.
using MemberSegment = Holding;

/// A schedule's "params" object (a JSON object, in the order written).
/// Boxed so that ir/Schedule.h needs only nlohmann/json_fwd.hpp: the JSON
/// library's templates are parsed and instantiated only by the files that
/// read or write params (include <nlohmann/json.hpp> there).
class ScheduleParams {
public:
  ScheduleParams();
  ScheduleParams(const nlohmann::ordered_json &V);
  ScheduleParams(const ScheduleParams &Other);
  ScheduleParams(ScheduleParams &&Other) noexcept;
  ScheduleParams &operator=(const ScheduleParams &Other);
  ScheduleParams &operator=(ScheduleParams &&Other) noexcept;
  ~ScheduleParams();

  /// The object (an empty one after a move from this box).
  nlohmann::ordered_json &json();
  const nlohmann::ordered_json &json() const;
  nlohmann::ordered_json *operator->() { return &json(); }
  const nlohmann::ordered_json *operator->() const { return &json(); }
  /// Compact JSON text (jsonText).
  std::string dump() const;

private:
  std::unique_ptr<nlohmann::ordered_json> V;
};

/// A call header (ir/CallHeader.h) and the steps that implement it.
class Schedule : public CallHeader {
public:
  std::string Algorithm;
  ScheduleParams Params;
  StepList Steps;
  /// The steps' digest (ir/Digest.h) of every step, op and block as read
  /// (all of them, also those a rank reading only its own ops drops), so
  /// that such a rank has the whole schedule's digest. Empty for a schedule
  /// built in code (scheduleDigest hashes its steps).
  std::optional<Digest128> StepsDigest;
  /// A schedule read keeping one rank's ops (ReadOptions::OnlyRank): each
  /// kept op's index in its step of the file, in Steps' op order, so that
  /// diagnostics name the file's op. Empty otherwise (and ignored once the
  /// steps no longer have one entry per op).
  std::vector<uint32_t> FileOpIndex;

  /// The index in the file of op Index of step St (Index itself for a
  /// schedule read whole or built in code).
  size_t fileOpIndex(unsigned St, size_t Index) const;

  const CallHeader &header() const { return *this; }
  CallHeader &header() { return *this; }

  /// What the collective means (ir/CollectiveSpec.h).
  const CollectiveSpec &spec() const { return specOf(Kind); }

  /// The buffers the collective defines (schedule-format.md, "Data"):
  /// one per group for gather-type collectives (only A for half_allgather),
  /// `all` for broadcasts and reductions. Index = BufferId.
  std::vector<Buffer> buffers() const { return spec().buffers(*this); }
  std::optional<BufferId> bufferId(llvm::StringRef Name) const {
    return spec().bufferId(*this, Name);
  }
  /// The vector length n of a bcast or reduction (sizes.all[0]), else 0.
  uint64_t vectorLength() const { return spec().vectorLength(*this); }

  /// Gather-type collectives: the contribution of every member, as a byte
  /// range of its group's buffer (empty ranges included); scatter: every
  /// member's slice of `all`.
  std::vector<MemberSegment> memberSegments() const;

  /// Checks the structural rules of the format; returns the first failure
  /// of each kind, each naming its JSON pointer. Empty means valid.
  std::vector<Diagnostic> verify() const;
  /// The rules verify() checks before the steps: ranks, groups, sizes,
  /// root, topology, ports, nodes and operator.
  std::vector<Diagnostic> verifyHeader() const;
  /// The rules of the steps for the ops Which only (a rank checking its
  /// own ops), on a header verifyHeader() accepts; Bufs: buffers() when
  /// the caller has them.
  std::vector<Diagnostic>
  verifyOps(llvm::ArrayRef<OpAt> Which,
            const std::vector<Buffer> *Bufs = nullptr) const;

  /// "A[24,32)", with " contrib {0-3}" and " reduce" for reduction blocks.
  std::string blockString(const Block &B) const;
  std::string blocksString(llvm::ArrayRef<Block> Bs) const;
};

/// A copy of S holding only the ops rank Me sends or receives, steps kept
/// in their numbering, the header and the steps' digest as read kept (what
/// a rank keeps of a proved schedule); a reduction's blocks keep their
/// contributor sets (interned in the part's own list).
Schedule onlyRank(const Schedule &S, Rank Me);

/// Compact JSON text of V; invalid UTF-8 (possible in CBOR input) is
/// replaced rather than thrown on.
std::string jsonText(const nlohmann::ordered_json &V);

/// Prefix sums: Out[i] = sum(Counts[0..i)), Out.size() == Counts.size() + 1.
std::vector<uint64_t> prefixSums(llvm::ArrayRef<uint64_t> Counts);

} // namespace choreo

#endif
