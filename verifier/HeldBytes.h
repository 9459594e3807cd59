//===- verifier/HeldBytes.h - A rank's bytes, by ordered map ----*- C++ -*-===//
///
/// \file
/// HeldBytes is the set of bytes of one buffer a rank holds during its
/// local check: disjoint, non-adjacent runs [Lo, Hi) in an ordered map, so
/// that a run arriving anywhere costs O(log n). (IntervalSet keeps its runs
/// in a vector: an alltoall rank of p ranks receives p blocks of its column
/// in the order of its partners, not of the bytes, and inserting each into
/// the middle of a vector would take O(p^2) moves.)
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_HELDBYTES_H
#define CHOREO_VERIFIER_HELDBYTES_H

#include "ir/IntervalSet.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

namespace choreo {

class HeldBytes {
public:
  /// Adds [Lo, Hi), merged with the runs it touches; empty is ignored.
  void insert(uint64_t Lo, uint64_t Hi) {
    if (Lo >= Hi)
      return;
    auto It = Runs.upper_bound(Lo);
    if (It != Runs.begin()) {
      auto Prev = std::prev(It);
      if (Prev->second >= Lo) {
        Lo = Prev->first;
        Hi = std::max(Hi, Prev->second);
        It = Runs.erase(Prev);
      }
    }
    while (It != Runs.end() && It->first <= Hi) {
      Hi = std::max(Hi, It->second);
      It = Runs.erase(It);
    }
    Runs.emplace_hint(It, Lo, Hi);
  }

  /// Whether every byte of [Lo, Hi) is held (vacuously when empty).
  bool contains(uint64_t Lo, uint64_t Hi) const {
    if (Lo >= Hi)
      return true;
    auto It = Runs.upper_bound(Lo);
    if (It == Runs.begin())
      return false;
    return std::prev(It)->second >= Hi;
  }

  /// The bytes of [Lo, Hi) not held.
  IntervalSet missingFrom(uint64_t Lo, uint64_t Hi) const {
    IntervalSet Out;
    if (Lo >= Hi)
      return Out;
    uint64_t Cur = Lo;
    auto It = Runs.upper_bound(Lo);
    if (It != Runs.begin())
      Cur = std::max(Cur, std::prev(It)->second);
    for (; It != Runs.end() && It->first < Hi && Cur < Hi; ++It) {
      if (It->first > Cur)
        Out.insert(Cur, It->first);
      Cur = std::max(Cur, It->second);
    }
    if (Cur < Hi)
      Out.insert(Cur, Hi);
    return Out;
  }

  size_t numRuns() const { return Runs.size(); }

private:
  std::map<uint64_t, uint64_t> Runs; ///< Lo -> Hi
};

} // namespace choreo

#endif
