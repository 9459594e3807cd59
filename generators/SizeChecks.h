//===- generators/SizeChecks.h - Overflow-safe sizes, block budget -*- C++ -*-//
///
/// \file
/// What generators check sizes with before they allocate: arithmetic that
/// saturates at 2^64 - 1 instead of wrapping (so an estimate past the
/// budget stays past it), the sum of a size list refused by its option when
/// it passes 2^64, and the budget on blocks beside checkOpBudget's on ops:
/// an op carries one or more blocks, and a schedule whose messages carry
/// many blocks each (reduce-scatter's strided segments) is refused by its
/// block count as one with many ops is by its op count.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_SIZECHECKS_H
#define CHOREO_GENERATORS_SIZECHECKS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>

namespace choreo {

/// The most ops, blocks or segments a generator builds in memory: the
/// limit checkOpBudget applies to ops (generators/Generator.cpp).
inline constexpr uint64_t BuildLimit = 200'000'000;

inline uint64_t satAdd(uint64_t A, uint64_t B) {
  return A > UINT64_MAX - B ? UINT64_MAX : A + B;
}
inline uint64_t satMul(uint64_t A, uint64_t B) {
  return B != 0 && A > UINT64_MAX / B ? UINT64_MAX : A * B;
}
/// ceil(A / B) for B >= 1, without the overflow of (A + B - 1) / B.
inline uint64_t ceilDiv(uint64_t A, uint64_t B) { return A / B + (A % B != 0); }
/// min(Cap, I * Chunk) without overflow: where part I of a vector cut into
/// Chunk-byte parts starts, clipped to the vector's Cap bytes.
inline uint64_t clippedStart(uint64_t I, uint64_t Chunk, uint64_t Cap) {
  return Chunk != 0 && I > Cap / Chunk ? Cap : std::min(Cap, I * Chunk);
}

/// The sum of Sizes, the values of option Option ("slices"); an error
/// naming it when the sum passes 2^64 - 1 bytes.
llvm::Expected<uint64_t> sumOfSizes(llvm::ArrayRef<uint64_t> Sizes,
                                    llvm::StringRef Option);

/// Refuses schedules of generator Id whose blocks would not fit in memory
/// comfortably (more than BuildLimit), as checkOpBudget does for ops.
llvm::Error checkBlockBudget(llvm::StringRef Id, uint64_t EstimatedBlocks);

} // namespace choreo

#endif
