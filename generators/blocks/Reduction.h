//===- generators/blocks/Reduction.h - Reduction building blocks -*- C++ -*-=//
///
/// \file
/// The pieces the reduction generators (generators/reduce/, seed 004) are
/// built from. A reduction is first written as raw ops: byte ranges of
/// buffer `all` sent from one rank to another, each either combined into
/// the receiver's partial (`Reduce`) or replacing it, without contributor
/// sets. annotateContributors (verifier/ContribReplay.h, the replay the
/// checker runs too) then replays the raw ops and writes on every
/// block the contributor set its sender holds for those bytes (splitting a
/// range where the sender's partial changes set), so a generator says only
/// who sends which bytes to whom; whether every contribution is combined
/// exactly once, in rank order for a non-commutative operator, is for the
/// verifier to prove.
///
/// Vectors are cut on element boundaries (--element-bytes): no block splits
/// an element.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_BLOCKS_REDUCTION_H
#define CHOREO_GENERATORS_BLOCKS_REDUCTION_H

#include "options/OptionValues.h"
#include "ir/Schedule.h"
#include "ir/StepList.h"
#include "verifier/ContribReplay.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace choreo {

/// Raw ops placed by step index, in any order; steps left empty are
/// dropped later.
class RawSteps {
public:
  /// Adds src -> dst carrying Ranges (empty ones skipped, contiguous ones
  /// merged); nothing when every range is empty.
  void add(unsigned Step, Rank Src, Rank Dst, llvm::ArrayRef<Interval> Ranges,
           bool Reduce);
  void add(unsigned Step, Rank Src, Rank Dst, uint64_t Lo, uint64_t Hi,
           bool Reduce) {
    Interval I{Lo, Hi};
    add(Step, Src, Dst, llvm::ArrayRef<Interval>(I), Reduce);
  }
  unsigned numSteps() const { return Steps.size(); }
  StepList take() const;

private:
  struct RawOp {
    Rank Src, Dst;
    llvm::SmallVector<Block, 2> Blocks;
  };
  std::vector<std::vector<RawOp>> Steps;
};

/// Parts + 1 cut points of [0, N) into Parts near-equal runs of whole
/// Elem-byte elements, the first (elements mod Parts) one element longer
/// (MPICH's cnts[]).
std::vector<uint64_t> elementCuts(uint64_t N, uint64_t Elem, uint64_t Parts);

/// The largest power of two <= P (P >= 1).
uint32_t floorPow2(uint32_t P);

//===--- The algorithms, as raw ops over ranks 0..P-1 ---------------------===//

/// Binomial-tree reduce (Sec. 3.3; MPICH's MPIR_Reduce_intra_binomial):
/// ceil(lg p) steps of the whole vector; at mask m relative rank r with
/// r mod 2m = m sends to r - m. Commutative: ranks relative to Root. Not
/// commutative: the tree is rooted at rank 0, which keeps rank order, and
/// one more step sends the result to Root (as MPICH does). From step First.
/// Returns the next free step.
unsigned treeReduce(RawSteps &R, unsigned First, uint32_t P, uint64_t N,
                    uint32_t Root, bool Commutative);

/// Binomial broadcast of the whole (reduced) vector from Root (MPICH's
/// binomial bcast), replacing what the receivers hold. Returns the next
/// free step.
unsigned treeBcast(RawSteps &R, unsigned First, uint32_t P, uint64_t N,
                   uint32_t Root);

/// Recursive doubling allreduce (Sec. 3.4; MPICH's
/// MPIR_Allreduce_intra_recursive_doubling): for p not a power of two the
/// first 2r ranks fold pairwise (even sends to odd), lg p' exchange steps of
/// the whole vector over the p' remaining ranks, and the odd ranks send the
/// result back to their even partner.
void recursiveDoublingAllreduce(RawSteps &R, uint32_t P, uint64_t N);

/// How a halving-doubling run places the p' final segments: segment j is
/// bytes [Cuts[j], Cuts[j+1]) and ends on new rank Owner[j].
struct SegmentLayout {
  std::vector<uint64_t> Cuts;
  std::vector<uint32_t> Owner;
};
/// p' equal segments in byte order, segment j owned by the bit reversal of
/// j: the contiguous halves of Fig. 2 (recursive vector halving with
/// distance doubling: the lower rank of a pair keeps the lower half).
SegmentLayout bitReversedLayout(uint64_t N, uint64_t Elem, uint32_t Pof2);

/// The fold of the first 2r = 2(p - p') ranks into p' and the numbering of
/// the remaining ranks.
enum class Fold {
  /// Rabenseifner, Fig. 2: even and odd exchange halves and combine, the odd
  /// one sends its reduced half to the even one, which stays (or the other
  /// way round for the reduce root).
  Halves,
  /// MPICH's allreduce and reduce_scatter: the even rank sends its whole
  /// vector to the odd one, which stays.
  EvenToOdd,
  /// MPICH's reduce: the odd rank sends its whole vector to the even one,
  /// which stays.
  OddToEven,
};
/// Emits the fold from step First (for Halves, splitting at byte Half;
/// KeepOdd names a pair whose odd rank stays, for a reduce root among the
/// removed ranks) and returns RankOf: new rank -> rank. Next is set to the
/// next free step.
std::vector<Rank> foldToPowerOfTwo(RawSteps &R, unsigned First, uint32_t P,
                                   uint64_t N, Fold F, uint64_t Half,
                                   std::optional<uint32_t> KeepOdd,
                                   unsigned &Next);

/// Reduce-scatter by recursive vector halving over the p' = RankOf.size()
/// new ranks: at the step over bit b, new rank x and x xor 2^b exchange the
/// segments of the owners on the other side and combine. Bits in the order
/// given: 0, 1, ... (distance doubling, Rabenseifner) or the reverse
/// (distance halving, MPICH's recursive halving). Returns the next step.
unsigned halvingReduceScatter(RawSteps &R, unsigned First,
                              llvm::ArrayRef<Rank> RankOf,
                              const SegmentLayout &Lay,
                              llvm::ArrayRef<unsigned> Bits);
/// How many blocks halvingReduceScatter over all the bits of Pof2 new ranks
/// sends at most: each non-empty segment of Lay once from each of Pof2 - 1
/// senders (messages carry the segments of the owners on the other side,
/// which are strided when owners are in byte order).
uint64_t halvingReduceScatterBlocks(const SegmentLayout &Lay, uint32_t Pof2);
/// The allgather undoing it (recursive vector doubling, bits in reverse),
/// replacing; returns the next step.
unsigned doublingAllgather(RawSteps &R, unsigned First,
                           llvm::ArrayRef<Rank> RankOf,
                           const SegmentLayout &Lay,
                           llvm::ArrayRef<unsigned> Bits);
/// The gather to new rank NewRoot (binary tree, distance halving): of each
/// pair the one whose bit agrees with NewRoot's receives; returns the next
/// step.
unsigned treeGatherSegments(RawSteps &R, unsigned First,
                            llvm::ArrayRef<Rank> RankOf,
                            const SegmentLayout &Lay,
                            llvm::ArrayRef<unsigned> Bits, uint32_t NewRoot);
/// Bits 0 .. K-1 (Doubling) or K-1 .. 0.
std::vector<unsigned> bitOrder(uint32_t Pof2, bool Doubling);

/// Pairwise-exchange reduce-scatter (Sec. 3.7; MPICH's pairwise): p - 1
/// steps; at step i rank r sends [Cuts[r+i], Cuts[r+i+1]) to rank r + i
/// (mod p), which combines it. Returns the next step.
unsigned pairwiseReduceScatter(RawSteps &R, unsigned First, uint32_t P,
                               llvm::ArrayRef<uint64_t> Cuts);
/// Ring allgather of the segments: at step s rank r sends segment
/// (r - s) mod p to r + 1. Returns the next step.
unsigned ringAllgatherSegments(RawSteps &R, unsigned First, uint32_t P,
                               llvm::ArrayRef<uint64_t> Cuts);

/// Binary blocks (Sec. 3.6, Fig. 3): the ranks split into blocks of the
/// binary decomposition of p, the largest first (lowest ranks); each block
/// reduce-scatters by halving-doubling; from the smallest block up, a
/// block's partial segments are cut into the next larger block's segments,
/// sent there and combined. Leaves the result scattered over the largest
/// block; Blocks returns the blocks (first rank, size), largest first, and
/// Lay the largest block's segment layout (owners are local ranks). Returns
/// the next free step.
struct BinaryBlock {
  Rank First;
  uint32_t Size;
};
unsigned binaryBlocksReduceScatter(RawSteps &R, uint32_t P, uint64_t N,
                                   uint64_t Elem,
                                   std::vector<BinaryBlock> &Blocks,
                                   SegmentLayout &Lay);
/// The allreduce's second part: each block hands the next smaller block its
/// segments (receivers take one message per step), and every block runs
/// the doubling allgather. Starts at step First.
void binaryBlocksAllgather(RawSteps &R, unsigned First, uint64_t N,
                           llvm::ArrayRef<BinaryBlock> Blocks,
                           const SegmentLayout &Lay);

//===--- Options and schedules --------------------------------------------===//

/// What every reduction generator reads from its options.
struct ReductionInput {
  uint32_t P = 1;
  uint64_t N = 0;
  uint64_t Elem = 8;
  bool Commutative = true;
  uint32_t Root = 0;
  /// reduce_scatter: each rank's slice, in bytes.
  std::vector<uint64_t> Slices;
};

/// Reads --p, --bytes (or --slices), --element-bytes, --op and --root as
/// declared; refuses an element size that does not divide n or a slice.
llvm::Expected<ReductionInput> readReductionInput(const OptionValues &V,
                                                  Collective C);

/// The schedule of collective C with the raw ops of R, annotated, empty
/// steps dropped, op written when not commutative.
Schedule reductionSchedule(Collective C, const ReductionInput &In,
                           const RawSteps &R);

} // namespace choreo

#endif
