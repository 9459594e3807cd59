//===- ir/PairMatrix.h - The blocks of an alltoall -------------*- C++ -*-===//
///
/// \file
/// PairMatrix reads an alltoall's `sizes.pairs` (schedule-format.md): the
/// ranks x ranks matrix, row-major, of the bytes rank i sends rank j. Block
/// (i, j) is that many bytes of buffer `all`, starting at the sum of every
/// earlier entry; rank i holds row i before the first step, rank j must end
/// with column j. The spec, the executor's buffer mapping, the harness and
/// the generators all find a block's bytes here.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_PAIRMATRIX_H
#define CHOREO_IR_PAIRMATRIX_H

#include "ir/CallHeader.h"
#include "ir/IntervalSet.h"

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace choreo {

class PairMatrix {
public:
  /// The matrix of H's sizes.pairs; empty (ranks() == 0) when H has none or
  /// its length is not ranks^2. Sums are not checked for overflow here
  /// (Schedule::verify() refuses a buffer past 2^64 bytes).
  explicit PairMatrix(const CallHeader &H);
  /// P x P entries, row-major.
  PairMatrix(Rank P, llvm::ArrayRef<uint64_t> Pairs);

  Rank ranks() const { return P; }
  /// The bytes rank I sends rank J.
  uint64_t size(Rank I, Rank J) const { return Pairs[size_t(I) * P + J]; }
  /// Block (I, J): its bytes of buffer `all`.
  Interval block(Rank I, Rank J) const {
    size_t K = size_t(I) * P + J;
    return {Off[K], Off[K + 1]};
  }
  /// Row I: everything rank I sends, blocks (I, 0..P-1) in order.
  Interval row(Rank I) const {
    return {Off[size_t(I) * P], Off[size_t(I + 1) * P]};
  }
  /// The length of buffer `all`.
  uint64_t total() const { return Off.empty() ? 0 : Off.back(); }
  /// Bytes rank J receives (its column, diagonal included).
  uint64_t columnBytes(Rank J) const;
  /// The block (I, J) holding byte X of `all` (X < total()).
  std::pair<Rank, Rank> blockAt(uint64_t X) const;
  /// Whether every entry off the diagonal is the same (alltoall's rule).
  bool offDiagonalEqual() const;
  /// Whether every entry, the diagonal too, is the same (MPI_Alltoall).
  bool allEqual() const;

private:
  Rank P = 0;
  llvm::ArrayRef<uint64_t> Pairs;
  std::vector<uint64_t> Off; ///< P^2 + 1 prefix sums
};

} // namespace choreo

#endif
