//===- verifier/HeldBytes.h - A rank's bytes, merged in batches -*- C++ -*-===//
///
/// \file
/// HeldBytes is the set of bytes of one buffer a rank holds during its
/// local check: sorted, disjoint, non-adjacent runs [Lo, Hi) in a vector,
/// and the runs received since they were last merged in, unsorted. A run
/// arriving anywhere costs O(1); the fresh runs are sorted and merged in
/// one pass when they grow to a quarter of the sorted ones, or when a
/// lookup needs them. (IntervalSet inserts into the middle of its vector:
/// an alltoall rank of p ranks receives the p blocks of its column in the
/// order of its partners, not of the bytes, which took O(p^2) moves; a
/// balanced tree pays a cache miss per level on each of Bruck's p log p / 2
/// blocks.)
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_HELDBYTES_H
#define CHOREO_VERIFIER_HELDBYTES_H

#include "ir/IntervalSet.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace choreo {

class HeldBytes {
public:
  /// Adds [Lo, Hi); empty is ignored.
  void insert(uint64_t Lo, uint64_t Hi) {
    if (Lo >= Hi)
      return;
    Fresh.push_back({Lo, Hi});
    if (Fresh.size() > 64 && 4 * Fresh.size() > Runs.size())
      merge();
  }

  /// Whether every byte of [Lo, Hi) is held (vacuously when empty).
  bool contains(uint64_t Lo, uint64_t Hi) {
    if (Lo >= Hi)
      return true;
    if (sortedContains(Lo, Hi))
      return true;
    if (Fresh.empty())
      return false;
    merge();
    return sortedContains(Lo, Hi);
  }

  /// For many ranges at once (a message of many blocks): Ok[K] = whether
  /// Qs[K].first is held, Qs[K].second being K's place in Ok. Sorts Qs, then
  /// one walk over the runs: O(k log k + n) rather than k binary searches
  /// that each miss the cache.
  void containsEach(std::vector<std::pair<Interval, uint32_t>> &Qs,
                    std::vector<char> &Ok) {
    merge();
    llvm::sort(Qs, [](const auto &A, const auto &B) {
      return A.first.Lo < B.first.Lo;
    });
    auto It = Runs.begin();
    for (const auto &[Q, K] : Qs) {
      if (Q.Lo >= Q.Hi) {
        Ok[K] = 1;
        continue;
      }
      while (It != Runs.end() && It->Hi <= Q.Lo)
        ++It;
      Ok[K] = It != Runs.end() && It->Lo <= Q.Lo && It->Hi >= Q.Hi;
    }
  }

  /// The bytes of every range of Qs not held (Qs is sorted here): one walk
  /// over the runs.
  IntervalSet missingFromEach(std::vector<Interval> &Qs) {
    merge();
    llvm::sort(Qs, [](const Interval &A, const Interval &B) {
      return A.Lo < B.Lo;
    });
    IntervalSet Out;
    auto It = Runs.begin();
    for (const Interval &Q : Qs) {
      if (Q.Lo >= Q.Hi)
        continue;
      while (It != Runs.end() && It->Hi <= Q.Lo)
        ++It;
      uint64_t Cur = Q.Lo;
      for (auto J = It; J != Runs.end() && J->Lo < Q.Hi && Cur < Q.Hi; ++J) {
        if (J->Lo > Cur)
          Out.insert(Cur, J->Lo);
        Cur = std::max(Cur, J->Hi);
      }
      if (Cur < Q.Hi)
        Out.insert(Cur, Q.Hi);
    }
    return Out;
  }

  /// The bytes of [Lo, Hi) not held.
  IntervalSet missingFrom(uint64_t Lo, uint64_t Hi) {
    merge();
    IntervalSet Out;
    if (Lo >= Hi)
      return Out;
    uint64_t Cur = Lo;
    auto It = llvm::partition_point(
        Runs, [&](const Interval &X) { return X.Hi <= Lo; });
    for (; It != Runs.end() && It->Lo < Hi && Cur < Hi; ++It) {
      if (It->Lo > Cur)
        Out.insert(Cur, It->Lo);
      Cur = std::max(Cur, It->Hi);
    }
    if (Cur < Hi)
      Out.insert(Cur, Hi);
    return Out;
  }

private:
  std::vector<Interval> Runs;  ///< sorted, disjoint, non-adjacent
  std::vector<Interval> Fresh; ///< received since the last merge

  bool sortedContains(uint64_t Lo, uint64_t Hi) const {
    auto It = llvm::partition_point(
        Runs, [&](const Interval &X) { return X.Hi <= Lo; });
    return It != Runs.end() && It->Lo <= Lo && It->Hi >= Hi;
  }

  void merge() {
    if (Fresh.empty())
      return;
    llvm::sort(Fresh, [](const Interval &A, const Interval &B) {
      return A.Lo < B.Lo;
    });
    std::vector<Interval> Merged;
    Merged.reserve(Runs.size() + Fresh.size());
    auto Add = [&](const Interval &X) {
      if (!Merged.empty() && Merged.back().Hi >= X.Lo)
        Merged.back().Hi = std::max(Merged.back().Hi, X.Hi);
      else
        Merged.push_back(X);
    };
    size_t A = 0, B = 0;
    while (A < Runs.size() || B < Fresh.size())
      if (B == Fresh.size() || (A < Runs.size() && Runs[A].Lo <= Fresh[B].Lo))
        Add(Runs[A++]);
      else
        Add(Fresh[B++]);
    Runs.swap(Merged);
    Fresh.clear();
  }
};

} // namespace choreo

#endif
