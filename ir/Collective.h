//===- ir/Collective.h - Collective kinds and their meaning -----*- C++ -*-===//
///
/// \file
/// The collectives a schedule can implement, and what each one means in terms
/// of data: which buffers exist, what every rank holds before the first step
/// and what it must hold after the last (schedule-format.md, "Data" and
/// "completeness"). The verifier, the executor and the cost model all take
/// the meaning of a collective from here.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_COLLECTIVE_H
#define CHOREO_IR_COLLECTIVE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace choreo {

using Rank = uint32_t;
using BufferId = uint16_t;

enum class Collective : uint8_t {
  Allgather,
  Allgatherv,
  InterAllgather,
  InterAllgatherv,
  HalfAllgather,
  Gather,
  Bcast,
  Reduce,
  Allreduce,
  ReduceScatter,
};

llvm::StringRef collectiveName(Collective C);
std::optional<Collective> parseCollective(llvm::StringRef Name);

/// Two groups A and B (inter_allgather, inter_allgatherv, half_allgather).
bool isIntergroup(Collective C);
/// Buffers hold the members' contributions concatenated in group order.
bool isGatherType(Collective C);
/// Buffer `all` of length n; every rank starts with [0,n) and contributor
/// set {itself}.
bool isReduction(Collective C);
/// Needs a root rank.
bool isRooted(Collective C);

} // namespace choreo

#endif
