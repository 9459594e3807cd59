//===- ir/IntervalSet.h - Sets of half-open integer intervals ---*- C++ -*-===//
///
/// \file
/// IntervalSet holds a set of integers as sorted, disjoint, non-adjacent
/// half-open intervals [lo, hi). It is the possession state of the verifier
/// (bytes of a buffer a rank holds) and the contributor set of a reduction
/// block (ranks whose contributions are combined in it). One interval is
/// held inline (no allocation): most contributor sets are one range of
/// ranks, and a ring rank's part carries one per op.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_INTERVALSET_H
#define CHOREO_IR_INTERVALSET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace choreo {

struct Interval {
  uint64_t Lo = 0, Hi = 0;
  uint64_t size() const { return Hi - Lo; }
  bool empty() const { return Hi <= Lo; }
  friend bool operator==(const Interval &, const Interval &) = default;
};

class IntervalSet {
public:
  IntervalSet() = default;
  IntervalSet(uint64_t Lo, uint64_t Hi) { insert(Lo, Hi); }

  /// Adds [Lo, Hi); empty intervals are ignored.
  void insert(uint64_t Lo, uint64_t Hi);
  void insert(const IntervalSet &Other);
  /// Removes [Lo, Hi).
  void erase(uint64_t Lo, uint64_t Hi);

  /// True when every element of [Lo, Hi) is in the set (vacuously for empty).
  bool contains(uint64_t Lo, uint64_t Hi) const;
  bool contains(uint64_t X) const { return contains(X, X + 1); }
  /// True when some element of [Lo, Hi) is in the set.
  bool intersects(uint64_t Lo, uint64_t Hi) const;
  bool intersects(const IntervalSet &Other) const;

  /// The part of [Lo, Hi) not in the set.
  IntervalSet missingFrom(uint64_t Lo, uint64_t Hi) const;
  /// The part of [Lo, Hi) in the set.
  IntervalSet clippedTo(uint64_t Lo, uint64_t Hi) const;

  bool empty() const { return Runs.empty(); }
  size_t numIntervals() const { return Runs.size(); }
  uint64_t cardinality() const;
  llvm::ArrayRef<Interval> intervals() const { return Runs; }
  void clear() { Runs.clear(); }
  /// A hash of the intervals (equal sets hash equal), for interning.
  uint64_t hash() const;

  friend bool operator==(const IntervalSet &, const IntervalSet &) = default;

  /// "[0,8) [16,24)" style, with an optional prefix per interval ("A").
  std::string str(llvm::StringRef Prefix = "") const;

private:
  llvm::SmallVector<Interval, 1> Runs; // sorted, disjoint, non-adjacent
};

/// Prints a rank set compactly: "{0-3,5}" (closed ranges of ranks).
std::string rankSetString(const IntervalSet &Ranks);

} // namespace choreo

#endif
