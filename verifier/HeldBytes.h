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
/// Lattice blocks (Bruck's rectangles of the block matrix) are kept as
/// lattices beside the runs: whether a lattice is held is decided on the
/// lattices and runs that meet it, as rectangles of its own (row, column)
/// indices (coveredFast: O(n^2) for n of them, n = O(log p) in Bruck).
/// What that cannot decide (a lattice of another element size or row
/// stride, or a byte range asked about) is answered exactly after the
/// lattices are expanded into runs (flatten).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_HELDBYTES_H
#define CHOREO_VERIFIER_HELDBYTES_H

#include "ir/IntervalSet.h"
#include "ir/StepList.h"

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

  /// Adds the bytes of lattice X.
  void insert(const Lattice &X) {
    if (X.count() && X.Elem)
      Grid.push_back(X);
  }
  bool hasLattices() const { return !Grid.empty(); }

  /// Whether every byte of [Lo, Hi) is held (vacuously when empty).
  bool contains(uint64_t Lo, uint64_t Hi) {
    if (Lo >= Hi)
      return true;
    if (sortedContains(Lo, Hi))
      return true;
    if (Fresh.empty() && Grid.empty())
      return false;
    flatten();
    return sortedContains(Lo, Hi);
  }

  /// Whether every byte of lattice Q is held.
  bool contains(const Lattice &Q) {
    if (!Q.count() || !Q.Elem)
      return true;
    merge();
    if (coveredFast(Q))
      return true;
    flatten();
    bool All = true;
    forEachRange(Q, [&](uint64_t Lo, uint64_t Hi) {
      All = All && sortedContains(Lo, Hi);
    });
    return All;
  }

  /// The bytes of lattice Q not held.
  IntervalSet missingFrom(const Lattice &Q) {
    flatten();
    IntervalSet Out;
    forEachRange(Q, [&](uint64_t Lo, uint64_t Hi) {
      for (const Interval &X : missingFrom(Lo, Hi).intervals())
        Out.insert(X.Lo, X.Hi);
    });
    return Out;
  }

  /// Calls F(Lo, Hi) for each run of Q's elements (adjacent ones merged).
  template <class Fn> static void forEachRange(const Lattice &Q, Fn F) {
    uint64_t Lo = 0, Hi = 0;
    bool Any = false;
    Q.forEach([&](uint64_t At) {
      if (Any && At == Hi) {
        Hi += Q.Elem;
        return;
      }
      if (Any)
        F(Lo, Hi);
      Lo = At, Hi = At + Q.Elem, Any = true;
    });
    if (Any)
      F(Lo, Hi);
  }

  /// For many ranges at once (a message of many blocks): Ok[K] = whether
  /// Qs[K].first is held, Qs[K].second being K's place in Ok. Sorts Qs, then
  /// one walk over the runs: O(k log k + n) rather than k binary searches
  /// that each miss the cache.
  void containsEach(std::vector<std::pair<Interval, uint32_t>> &Qs,
                    std::vector<char> &Ok) {
    flatten();
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
    flatten();
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
    flatten();
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
  std::vector<Lattice> Grid;   ///< lattices received, not yet expanded

  /// Expands the lattices into runs and merges.
  void flatten() {
    for (const Lattice &X : Grid)
      forEachRange(X, [&](uint64_t Lo, uint64_t Hi) {
        Fresh.push_back({Lo, Hi});
      });
    Grid.clear();
    merge();
  }

  /// A rectangle of a lattice's (row, column) indices: rows [I0, I1),
  /// columns [T0, T1).
  struct IndexRect {
    uint64_t I0, I1, T0, T1;
  };

  /// Whether Q is held, shown from the runs (merged) and lattices that
  /// meet it, each as a rectangle of Q's indices whose elements it holds
  /// whole: false means not shown (the caller then decides exactly). Q's
  /// frame: byte x is row x / R, offset x % R with R = Q.RowStride; a
  /// lattice counts when it has Q's element size and row stride, its rows
  /// stay within the frame's rows, and its columns meet Q's in a range
  /// of Q's columns (its column stride divides Q's, or one of the two has
  /// one column).
  bool coveredFast(const Lattice &Q) const {
    using I128 = __int128;
    const uint64_t R = Q.RowStride, E = Q.Elem, NI = Q.Rows, NT = Q.Cols;
    if (!R)
      return false;
    auto Span = [](const Lattice &X) {
      return I128(X.Cols - 1) * X.ColStride + X.Elem;
    };
    if (I128(Q.Start % R) + Span(Q) > I128(R) ||
        (NT > 1 && Q.ColStride < E))
      return false;
    const uint64_t QRow = Q.Start / R, QC = Q.Start % R, CQ = Q.ColStride;
    llvm::SmallVector<IndexRect, 32> Rects;
    // Q's columns t with QC + t CQ = GC + u CG for some u < NG: a range.
    auto Columns = [&](uint64_t GC, uint64_t CG, uint64_t NG, uint64_t &T0,
                       uint64_t &T1) {
      I128 D = I128(QC) - I128(GC); // Q's first column, from G's first
      if (NT == 1) {
        bool In = NG == 1 ? D == 0
                          : D >= 0 && CG && D % CG == 0 && D / CG < I128(NG);
        T0 = 0, T1 = In;
        return;
      }
      if (NG == 1) { // G's one column: Q's column t = -D / CQ, if any
        I128 T = CQ ? -D / CQ : -1;
        bool In = CQ && -D >= 0 && -D % CQ == 0 && T < I128(NT);
        T0 = In ? uint64_t(T) : 0, T1 = In ? uint64_t(T) + 1 : 0;
        return;
      }
      T0 = T1 = 0;
      if (!CG || CQ % CG || D % I128(CG)) // another class, or not a range
        return;
      I128 A = D / I128(CG), Q2 = CQ / CG; // u(t) = A + t Q2
      auto FloorDiv = [](I128 X, I128 Y) {
        return X >= 0 ? X / Y : -((-X + Y - 1) / Y);
      };
      I128 Lo = std::max<I128>(0, -FloorDiv(A, Q2)); // ceil(-A / Q2)
      I128 Hi = std::min<I128>(I128(NT), FloorDiv(I128(NG) - 1 - A, Q2) + 1);
      if (Lo < Hi)
        T0 = uint64_t(Lo), T1 = uint64_t(Hi);
    };
    for (const Lattice &G : Grid) {
      if (G.Elem != E || (G.Rows > 1 && G.RowStride != R) ||
          I128(G.Start % R) + Span(G) > I128(R))
        continue;
      uint64_t GRow = G.Start / R;
      uint64_t I0 = std::max(QRow, GRow), I1 = std::min(QRow + NI, GRow + G.Rows);
      if (I0 >= I1)
        continue;
      uint64_t T0, T1;
      Columns(G.Start % R, G.ColStride, G.Cols, T0, T1);
      if (T0 < T1)
        Rects.push_back({I0 - QRow, I1 - QRow, T0, T1});
    }
    // A run holds Q's elements k0 .. k1 - 1 in row-major order (Q's
    // addresses rise with k): at most three rectangles.
    auto FirstAtLeast = [&](uint64_t X) -> uint64_t {
      if (X <= Q.Start)
        return 0;
      uint64_t I = (X - Q.Start) / R;
      if (I >= NI)
        return NI * NT;
      uint64_t Off = X - (Q.Start + I * R), T;
      if (Off == 0)
        T = 0;
      else if (NT == 1 || !CQ)
        T = 1;
      else
        T = (Off + CQ - 1) / CQ;
      return T >= NT ? (I + 1) * NT : I * NT + T;
    };
    auto It = llvm::partition_point(
        Runs, [&](const Interval &X) { return X.Hi <= Q.Start; });
    uint64_t End = Q.end();
    for (unsigned N = 0; It != Runs.end() && It->Lo < End; ++It, ++N) {
      if (N == 64)
        return false;
      uint64_t K0 = FirstAtLeast(It->Lo),
               K1 = It->Hi < E ? 0 : FirstAtLeast(It->Hi - E + 1);
      if (K0 >= K1)
        continue;
      uint64_t A = K0 / NT, TA = K0 % NT, B = K1 / NT, TB = K1 % NT;
      if (A == B) {
        Rects.push_back({A, A + 1, TA, TB});
        continue;
      }
      Rects.push_back({A, A + 1, TA, NT});
      if (A + 1 < B)
        Rects.push_back({A + 1, B, 0, NT});
      if (TB)
        Rects.push_back({B, B + 1, 0, TB});
    }
    // Is [0, NI) x [0, NT) covered? Band by band between row boundaries.
    llvm::SmallVector<uint64_t, 64> Cuts{0, NI};
    for (const IndexRect &X : Rects)
      Cuts.append({X.I0, X.I1});
    llvm::sort(Cuts);
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
    llvm::SmallVector<std::pair<uint64_t, uint64_t>, 32> Ts;
    for (size_t C = 0; C + 1 < Cuts.size() && Cuts[C] < NI; ++C) {
      Ts.clear();
      for (const IndexRect &X : Rects)
        if (X.I0 <= Cuts[C] && X.I1 >= Cuts[C + 1])
          Ts.push_back({X.T0, X.T1});
      llvm::sort(Ts);
      uint64_t At = 0;
      for (auto [T0, T1] : Ts) {
        if (T0 > At)
          break;
        At = std::max(At, T1);
      }
      if (At < NT)
        return false;
    }
    return true;
  }

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
