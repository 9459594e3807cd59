//===- ir/PairMatrix.h - The blocks of an alltoall -------------*- C++ -*-===//
///
/// \file
/// PairMatrix reads an alltoall's sizes (schedule-format.md, docs/format.md):
/// the ranks x ranks matrix `sizes.pairs`, row-major, of the bytes rank i
/// sends rank j, or its compact uniform form `sizes.block` (one entry n:
/// every block, the diagonal too, is n bytes, as MPI_Alltoall's one count).
/// Block (i, j) is that many bytes of buffer `all`, starting at the sum of
/// every earlier entry; rank i holds row i before the first step, rank j
/// must end with column j. The spec, the executor's buffer mapping, the
/// harness and the generators all find a block's bytes here. The uniform
/// form takes O(1) memory and time per lookup (block (i, j) starts at
/// (i p + j) n), so a rank of a large job never materialises p x p; the
/// matrix form keeps p^2 + 1 prefix sums.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_PAIRMATRIX_H
#define CHOREO_IR_PAIRMATRIX_H

#include "ir/CallHeader.h"
#include "ir/IntervalSet.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <vector>

namespace choreo {

class PairMatrix {
public:
  /// The matrix of H's sizes.pairs, or the uniform one of its sizes.block
  /// (one entry); empty (ranks() == 0) when H has neither, both, or a
  /// list of the wrong length. Sums are not checked for overflow here
  /// (Schedule::verify() refuses a buffer past 2^64 bytes).
  explicit PairMatrix(const CallHeader &H);
  /// P x P entries, row-major.
  PairMatrix(Rank P, llvm::ArrayRef<uint64_t> Pairs);
  /// P x P entries, every one Bytes.
  static PairMatrix uniform(Rank P, uint64_t Bytes);

  Rank ranks() const { return P; }
  /// Whether every block is alike by construction (sizes.block).
  bool isUniform() const { return Uniform; }
  /// The bytes rank I sends rank J.
  uint64_t size(Rank I, Rank J) const {
    return Uniform ? Bytes : Pairs[size_t(I) * P + J];
  }
  /// Block (I, J): its bytes of buffer `all`.
  Interval block(Rank I, Rank J) const {
    size_t K = size_t(I) * P + J;
    if (Uniform)
      return {K * Bytes, (K + 1) * Bytes};
    return {Off[K], Off[K + 1]};
  }
  /// Row I: everything rank I sends, blocks (I, 0..P-1) in order.
  Interval row(Rank I) const {
    if (Uniform)
      return {uint64_t(I) * P * Bytes, uint64_t(I + 1) * P * Bytes};
    return {Off[size_t(I) * P], Off[size_t(I + 1) * P]};
  }
  /// The length of buffer `all`.
  uint64_t total() const {
    if (Uniform)
      return uint64_t(P) * P * Bytes;
    return Off.empty() ? 0 : Off.back();
  }
  /// Bytes rank J receives (its column, diagonal included).
  uint64_t columnBytes(Rank J) const;
  /// The block (I, J) holding byte X of `all` (X < total()).
  std::pair<Rank, Rank> blockAt(uint64_t X) const;
  /// Whether every entry off the diagonal is the same (alltoall's rule).
  bool offDiagonalEqual() const;
  /// Whether every entry, the diagonal too, is the same (MPI_Alltoall).
  bool allEqual() const;

private:
  PairMatrix() = default;
  Rank P = 0;
  bool Uniform = false;
  uint64_t Bytes = 0; ///< uniform: every entry
  llvm::ArrayRef<uint64_t> Pairs;
  std::vector<uint64_t> Off; ///< P^2 + 1 prefix sums (matrix form)
};

/// The sizes.block entry of an alltoall header, when it has one entry.
std::optional<uint64_t> uniformBlockOf(const CallHeader &H);

/// The header's alltoall sizes as a uniform block (sizes.block = [Bytes]),
/// replacing any sizes it had.
void setUniformBlock(CallHeader &H, uint64_t Bytes);

} // namespace choreo

#endif
