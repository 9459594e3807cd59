//===- executor/ScratchAlloc.h - Scratch areas reused by liveness -*- C++ -*-===//
///
/// \file
/// Where a plan's scratch areas live (docs/executor.md, "Scratch reused by
/// liveness"): each area is written first in one step and read for the
/// last time in another, and two areas share bytes only when one's last
/// step comes strictly before the other's first. Not the same step: with
/// CHOREO_LATTICE_PIECES=datatype (and for byte-range messages) a step's
/// receives land in place while its sends are still reading, and MPI
/// forbids writing a buffer a pending send uses. A linear scan over the
/// steps, best fit in the free list: a relaying alltoall (Bruck) then
/// needs O(p) blocks of scratch, not one area per block it ever relays.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_SCRATCHALLOC_H
#define CHOREO_EXECUTOR_SCRATCHALLOC_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace choreo {

/// A scratch area: Bytes live from step First (its first write) to step
/// Last (its last read), both included; Offset is where it was put.
struct ScratchArea {
  uint64_t Bytes = 0;
  uint32_t First = 0, Last = 0;
  uint64_t Offset = 0;
};

/// Sets every area's Offset from Base; returns the bytes used (the top of
/// the highest area, less Base). Deterministic.
uint64_t allocateScratch(std::vector<ScratchArea> &Areas, uint64_t Base = 0);

/// Empty when no two areas live in a common step share a byte; else the
/// first such pair, in words (which areas, their steps and bytes).
std::string checkScratchAreas(llvm::ArrayRef<ScratchArea> Areas);

/// Tests only: frees every area Steps steps before its last read (0, the
/// default: exactly after it), so that a test can see the check and a run
/// fail. Process-wide.
void setScratchEarlyFreeForTesting(uint32_t Steps);

} // namespace choreo

#endif
