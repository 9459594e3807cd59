//===- generators/allgatherv/Distributions.h - Seed 003's sizes -*- C++ -*-===//
///
/// \file
/// The six distributions of contributions of seed 003 (Traeff et al.,
/// Section 3), from a base size c in bytes over p processes, so that a user
/// of an allgatherv generator gives `--distribution spike --base 1M` instead
/// of p counts.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_ALLGATHERV_DISTRIBUTIONS_H
#define CHOREO_GENERATORS_ALLGATHERV_DISTRIBUTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace choreo {

/// Section 3's distributions, in the paper's order (1) to (6).
enum class Distribution { Regular, Broadcast, Spike, HalfFull, Decreasing, Geometric };

/// "regular", "broadcast", "spike", "half-full", "decreasing", "geometric".
llvm::ArrayRef<llvm::StringRef> distributionNames();
std::optional<Distribution> distributionByName(llvm::StringRef Name);

/// m_0 .. m_{P-1} for base C bytes (P >= 1). Where the paper's value is not
/// an integer it is rounded as docs/allgatherv.md says (spike: c/2 to rank 0
/// rounded up, the rest cut into near-equal parts, so m = c exactly;
/// decreasing and geometric: rounded down). Fails, naming --base, when a
/// size or the total passes 2^64 bytes.
llvm::Expected<std::vector<uint64_t>> distributionSizes(Distribution D,
                                                        uint32_t P, uint64_t C);

} // namespace choreo

#endif
