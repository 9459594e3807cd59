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
/// matrix form keeps p^2 + 1 prefix sums. Two more compact forms
/// (docs/format.md): an intergroup alltoall's sizes.block [a, b] (every
/// block from A to B a bytes, from B to A b bytes, none within a group;
/// closed form, O(1)), and one rank's row and column (RankSizes: what an
/// MPI_Alltoallv rank knows, plus where its column's blocks start), which
/// answers for that rank's blocks only, in O(p) memory.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_PAIRMATRIX_H
#define CHOREO_IR_PAIRMATRIX_H

#include "ir/CallHeader.h"
#include "ir/IntervalSet.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace choreo {

/// One rank's view of an alltoallv (sizes.row, sizes.column,
/// sizes.column_at, sizes.part, sizes.used; docs/format.md, "An alltoallv
/// rank's row and column"): its row and column of the matrix, where each
/// block of its column starts in buffer `all`, where its row starts, the
/// buffer's length, and per offset b whether some block (i, i + b mod p)
/// is not empty (bit 1) and some block (i, i XOR b) is not empty (bit 2),
/// which every rank must agree on (the steps an algorithm leaves out).
/// Relay (sizes.relay, alltoall-bruck's rank part only; empty otherwise):
/// the radix k, then where each block the rank receives in Bruck's rounds
/// starts in buffer `all` and its bytes, in BruckRelays' order (learnt in
/// a Bruck round of the sizes themselves, never from the matrix).
struct RankSizes {
  Rank Me = 0;
  uint64_t RowAt = 0, Total = 0;
  std::vector<uint64_t> Row, Column, ColumnAt, Used;
  std::vector<uint64_t> Relay;
};

/// The blocks a rank receives in Bruck's alltoall with radix K over P ranks
/// (generators/alltoall/AlltoallPatterns.h, bruckPattern), and their order
/// in RankSizes::Relay: round d (weight W = K^d < P) brings rank r, for
/// every offset b < P whose digit d is not 0 in increasing b, block
/// (r - (b mod K W), r - (b mod K W) + b) (all mod P); the list holds round
/// 0's, then round 1's, ... O(log P) memory, O(1) or O(log P) a lookup.
class BruckRelays {
public:
  BruckRelays() = default;
  BruckRelays(Rank P, uint64_t K);
  uint64_t radix() const { return K; }
  unsigned rounds() const { return unsigned(W.size()); }
  uint64_t weight(unsigned D) const { return W[D]; }
  /// The blocks a rank receives over every round (sum of P - zeros).
  uint64_t total() const { return Off.empty() ? 0 : Off.back(); }
  /// Offsets below N whose digit D is 0.
  uint64_t zeros(unsigned D, uint64_t N) const;
  /// The entry of offset B (digit D not 0) received in round D.
  uint64_t index(unsigned D, uint64_t B) const {
    return Off[D] + B - zeros(D, B);
  }
  /// B mod K W_D (B itself past the last round's reach).
  uint64_t low(unsigned D, uint64_t B) const {
    if (D + 1 >= W.size())
      return B;
    return LogK ? B & (W[D + 1] - 1) : B % W[D + 1];
  }
  /// The entry of block (I, J) at rank Me, when Me receives it from
  /// another rank in some round (never for I == Me).
  std::optional<uint64_t> indexOf(Rank Me, Rank I, Rank J) const;

private:
  Rank P = 0;
  uint64_t K = 0;
  unsigned LogK = 0;         ///< log2 K when K is a power of two, else 0
  std::vector<uint64_t> W;   ///< the rounds' weights K^d < P
  std::vector<uint64_t> Off; ///< each round's first entry, then the total
};

/// Rank Me's RankSizes::Relay for radix K, from Block(I, J), the bytes of
/// `all` block (I, J) takes (the whole matrix's, in tests and benches: a
/// job learns it in a Bruck round of the sizes instead).
std::vector<uint64_t>
bruckRelayList(Rank P, uint64_t K, Rank Me,
               llvm::function_ref<Interval(Rank, Rank)> Block);

/// Whether H's alltoall sizes are one rank's row and column.
bool hasRankSizes(const CallHeader &H);
/// The header's alltoall sizes as Rs, replacing any sizes it had.
void setRankSizes(CallHeader &H, RankSizes Rs);
/// The used-offset flags of the blocks rank Me sends (its row): what its
/// share of an allreduce (bitwise or) of RankSizes::Used is.
void markUsedOffsets(Rank P, Rank Me, llvm::ArrayRef<uint64_t> Row,
                     std::vector<uint64_t> &Used);
/// An intergroup alltoall over N ranks, groups A = 0..PA-1 and B =
/// PA..N-1: the step of inter-alltoall-pairwise that moves block (I, J)
/// (I and J of different groups): (local J - local I) mod max(p, q).
inline uint64_t interStepOf(Rank N, Rank PA, Rank I, Rank J) {
  uint64_t Q = N - PA, M = PA > Q ? PA : Q;
  uint64_t LI = I < PA ? I : I - PA, LJ = J < PA ? J : J - PA;
  return M ? (LJ + M - LI) % M : 0;
}
/// An intergroup alltoall's used flags (RankSizes::Used over the N ranks,
/// docs/alltoall.md): entry i < max(p, q) is 1 iff some block from a
/// local rank r of either group to remote rank (r + i) mod max(p, q) has
/// bytes (interStepOf), every other entry 0. Marks rank Me's row's.
void markInterUsedOffsets(Rank N, Rank PA, Rank Me,
                          llvm::ArrayRef<uint64_t> Row,
                          std::vector<uint64_t> &Used);
/// The names a RankSizes header uses, per rank (not shared by the job).
bool isPerRankSizesName(llvm::StringRef Name);

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
  /// P ranks, A = 0..PA-1 and B = PA..P-1: every block from A to B AB
  /// bytes, from B to A BA bytes, none within a group.
  static PairMatrix interUniform(Rank P, Rank PA, uint64_t AB, uint64_t BA);
  /// Rank Rs.Me's view: only blocks (Me, j) and (i, Me) are known.
  /// Rs must outlive the matrix.
  static PairMatrix rankView(Rank P, const RankSizes &Rs);

  /// Whether every block is alike by construction (sizes.block).
  bool isUniform() const { return F == Form::Uniform; }
  /// An intergroup sizes.block.
  bool isInterUniform() const { return F == Form::InterUniform; }
  /// Whether only one rank's blocks are known (rankView), and whose.
  bool isRankView() const { return F == Form::RankView; }
  Rank viewRank() const { return Me; }
  /// Whether a closed form or a view, not a matrix (nothing p x p).
  bool isCompact() const { return F != Form::Matrix; }
  /// A rank view's used-offset flags (RankSizes::Used).
  llvm::ArrayRef<uint64_t> usedFlags() const { return Used; }
  /// The radix of a rank view's relayed blocks (sizes.relay: Bruck's), or
  /// 0 when it has none (or a list of the wrong length).
  uint64_t relayRadix() const { return Relays.radix(); }
  /// The bytes rank I sends rank J (a rank view: 0 unless I or J is its
  /// rank, or Bruck relays the block through it).
  uint64_t size(Rank I, Rank J) const {
    switch (F) {
    case Form::Uniform:
      return Bytes;
    case Form::Matrix:
      return Pairs[size_t(I) * P + J];
    case Form::InterUniform:
      return (I < PA) == (J < PA) ? 0 : I < PA ? Bytes : BytesBA;
    case Form::RankView:
      return I == Me ? Row[J] : J == Me ? Col[I] : relayBlock(I, J).size();
    }
    return 0;
  }
  /// Block (I, J): its bytes of buffer `all`.
  Interval block(Rank I, Rank J) const {
    size_t K = size_t(I) * P + J;
    switch (F) {
    case Form::Uniform:
      return {K * Bytes, (K + 1) * Bytes};
    case Form::Matrix:
      return {Off[K], Off[K + 1]};
    case Form::InterUniform: {
      uint64_t At = row(I).Lo, N = size(I, J);
      if (I < PA)
        At += J < PA ? 0 : uint64_t(J - PA) * Bytes;
      else
        At += J < PA ? uint64_t(J) * BytesBA : uint64_t(PA) * BytesBA;
      return {At, At + N};
    }
    case Form::RankView:
      if (I == Me)
        return {RowAt + Off[J], RowAt + Off[J + 1]};
      if (J == Me)
        return {ColAt[I], ColAt[I] + Col[I]};
      return relayBlock(I, J);
    }
    return {0, 0};
  }
  /// Row I: everything rank I sends, blocks (I, 0..P-1) in order (a rank
  /// view: its own only).
  Interval row(Rank I) const {
    switch (F) {
    case Form::Uniform:
      return {uint64_t(I) * P * Bytes, uint64_t(I + 1) * P * Bytes};
    case Form::Matrix:
      return {Off[size_t(I) * P], Off[size_t(I + 1) * P]};
    case Form::InterUniform: {
      uint64_t Q = P - PA, ARows = uint64_t(PA) * Q * Bytes;
      if (I < PA)
        return {uint64_t(I) * Q * Bytes, uint64_t(I + 1) * Q * Bytes};
      return {ARows + uint64_t(I - PA) * PA * BytesBA,
              ARows + uint64_t(I - PA + 1) * PA * BytesBA};
    }
    case Form::RankView:
      return I == Me ? Interval{RowAt, RowAt + Off[P]} : Interval{0, 0};
    }
    return {0, 0};
  }
  /// The length of buffer `all`.
  uint64_t total() const {
    switch (F) {
    case Form::Uniform:
      return uint64_t(P) * P * Bytes;
    case Form::Matrix:
      return Off.empty() ? 0 : Off.back();
    case Form::InterUniform:
      return uint64_t(PA) * (P - PA) * (Bytes + BytesBA);
    case Form::RankView:
      return Total;
    }
    return 0;
  }
  /// Bytes rank J receives (its column, diagonal included).
  uint64_t columnBytes(Rank J) const;
  /// The block (I, J) holding byte X of `all` (X < total()); a rank view
  /// finds its own row's and column's blocks only.
  std::pair<Rank, Rank> blockAt(uint64_t X) const;
  /// Whether every entry off the diagonal is the same (alltoall's rule).
  bool offDiagonalEqual() const;
  /// Whether every entry, the diagonal too, is the same (MPI_Alltoall).
  bool allEqual() const;

private:
  enum class Form : uint8_t { Matrix, Uniform, InterUniform, RankView };
  PairMatrix() = default;
  Rank P = 0;
  Form F = Form::Matrix;
  uint64_t Bytes = 0;   ///< uniform: every entry; intergroup: A to B
  uint64_t BytesBA = 0; ///< intergroup: B to A
  Rank PA = 0;          ///< intergroup: the ranks of A
  Rank Me = 0;          ///< a rank view's rank
  uint64_t RowAt = 0, Total = 0;
  llvm::ArrayRef<uint64_t> Pairs;
  llvm::ArrayRef<uint64_t> Row, Col, ColAt, Used; ///< a rank view's
  /// P^2 + 1 prefix sums (matrix form); a rank view's row's P + 1.
  std::vector<uint64_t> Off;
  /// A rank view's relayed blocks (sizes.relay without its radix: start
  /// and bytes of each) and their order.
  llvm::ArrayRef<uint64_t> RelayList;
  BruckRelays Relays;

  /// A rank view's block (I, J) of neither its row nor its column: a
  /// relayed one's bytes, else none.
  Interval relayBlock(Rank I, Rank J) const;
  /// Takes the relay list L (radix first) if its length fits.
  void setRelays(llvm::ArrayRef<uint64_t> L);
};

/// The sizes.block entry of an alltoall header, when it has one entry.
std::optional<uint64_t> uniformBlockOf(const CallHeader &H);

/// The header's alltoall sizes as a uniform block (sizes.block = [Bytes]),
/// replacing any sizes it had.
void setUniformBlock(CallHeader &H, uint64_t Bytes);

/// Rank Me's view of the whole matrix M, which must not be a rank view
/// (O(p^2) for a matrix: tests and small calls; a job computes it from
/// exchanges instead). InterA > 0: an intergroup alltoall whose group A is
/// ranks 0..InterA-1 (its used flags are markInterUsedOffsets').
RankSizes rankSizesOf(const PairMatrix &M, Rank Me, Rank InterA = 0);

/// The length of an alltoall's buffer `all`: O(1) for the compact forms
/// (sizes.block, a rank's part), the sum of sizes.pairs otherwise
/// (saturating at 2^64 - 1; verify() refuses longer).
uint64_t alltoallLength(const CallHeader &H);

/// An intergroup alltoall's sizes.block [AB, BA]: what every rank of A
/// sends every rank of B, and back (the header's groups A = 0..p-1 and
/// B = p..p+q-1, as setIntergroup lays them out), replacing any sizes.
void setInterUniformBlock(CallHeader &H, uint64_t AB, uint64_t BA);

} // namespace choreo

#endif
