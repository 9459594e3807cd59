//===- ir/Collective.h - Collective kinds and their meaning -----*- C++ -*-===//
///
/// \file
/// The collectives a schedule can implement, by name. What each one means
/// (buffers, initial holdings, completeness, MPI call) is its CollectiveSpec
/// (ir/CollectiveSpec.h).
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
  Alltoall,
  Alltoallv,
  Scatter,
  Barrier,
  InterBcast,
  InterReduce,
  InterAllreduce,
  Scan,
  Exscan,
  InterAlltoall,
  InterGather,
  InterScatter,
  InterBarrier,
};

llvm::StringRef collectiveName(Collective C);
std::optional<Collective> parseCollective(llvm::StringRef Name);

} // namespace choreo

#endif
