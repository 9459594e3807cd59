//===- generators/blocks/Reduction.h - Reduction building blocks -*- C++ -*-=//
///
/// \file
/// The pieces the reduction generators (generators/reduce/, seed 004) are
/// built from. A reduction is written as raw ops: byte ranges of buffer
/// `all` sent from one rank to another, each either combined into the
/// receiver's partial (`Reduce`) or replacing it, each with the contributor
/// set its sender holds for those bytes in closed form (a binomial
/// subtree, the new ranks that agree with the sender on the bits not yet
/// processed, everyone after a reduce-scatter: docs/reductions.md, "Rank
/// forms"). Every building block can emit every rank's ops or one rank's
/// alone (RawSteps::only(), the rank form), in time proportional to what it
/// emits, and marks the steps where the whole schedule has an op (a rank's
/// part keeps the whole's step numbering though the whole drops its empty
/// steps).
///
/// The replay of verifier/ContribReplay.h (annotateContributors) writes the
/// same sets from the raw ops alone; reductionSchedule(..., Replay) builds
/// that way, and tests/unit/ReductionRankFormTest.cpp checks that both
/// agree block for block. Whether every contribution is combined exactly
/// once, in rank order for a non-commutative operator, is for the verifier
/// to prove (it replays the sets too and refuses a block whose set is not
/// its sender's).
///
/// Vectors are cut on element boundaries (--element-bytes): no block splits
/// an element.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_BLOCKS_REDUCTION_H
#define CHOREO_GENERATORS_BLOCKS_REDUCTION_H

#include "ir/Schedule.h"
#include "ir/StepList.h"
#include "options/OptionValues.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace choreo {

/// Raw ops placed by step index, in any order, each with one contributor
/// set for all its blocks; steps without ops are dropped when taken. With
/// Only, the ops of rank Only alone (others are ignored), and the steps
/// the whole schedule keeps are the ones marked by keep(). A rank's ops
/// that come in step order (every building block's but a few) go straight
/// into the list take() returns, one list step per step index, and take()
/// drops the empty steps not marked: no second copy of them (at p =
/// 65,536 a ring rank's 262,140 raw ops and their copy were 12 of its 29
/// MiB, and the faults on their fresh pages a fifth of its build). An op
/// placed before an earlier one's step moves the ops placed so far into
/// the raw lists, which take() sorts by step.
///
/// With Base, the algorithm's ranks 0..P-1 are ranks Base..Base+P-1 of
/// the list: every op's ends and every contributor set are shifted as
/// they are placed (a group of an intercommunicator, without relabelling
/// the list after). Only, wants() and only() stay in the algorithm's
/// numbering.
class RawSteps {
public:
  /// Ops over P ranks: every rank's, or Only's.
  explicit RawSteps(uint32_t P, std::optional<Rank> Only = std::nullopt,
                    Rank Base = 0)
      : P(P), Only(Only), Base(Base) {}

  uint32_t numRanks() const { return P; }
  Rank base() const { return Base; }
  std::optional<Rank> only() const { return Only; }
  /// Whether an op between A and B is emitted.
  bool wants(Rank A, Rank B) const { return !Only || A == *Only || B == *Only; }

  /// The id of contributor set [Lo, Hi), of everyone ([0, P)), or of any
  /// set: its index in the contributor table of the list take() returns
  /// (interned there at once, equal sets one id).
  uint32_t ranks(Rank Lo, Rank Hi);
  uint32_t everyone() {
    if (Everyone == Block::NoContrib)
      Everyone = ranks(0, P);
    return Everyone;
  }
  uint32_t contrib(RankSet S);
  /// The id of the set named by the subtree of Of in tree Tree of the
  /// family set by setFamily (ir/SubtreeFamily.h; rank parts only).
  uint32_t subtree(uint32_t Tree, Rank Of) { return Table.addSubtree(Tree, Of); }
  void setFamily(std::shared_ptr<const SubtreeFamily> F) {
    Table.setFamily(std::move(F));
  }

  /// Adds Src -> Dst carrying Ranges (empty ones skipped, contiguous ones
  /// merged), every block with set Contrib; nothing when every range is
  /// empty or the op is not wanted.
  void add(unsigned Step, Rank Src, Rank Dst, llvm::ArrayRef<Interval> Ranges,
           bool Reduce, uint32_t Contrib);
  void add(unsigned Step, Rank Src, Rank Dst, uint64_t Lo, uint64_t Hi,
           bool Reduce, uint32_t Contrib) {
    Interval I{Lo, Hi};
    add(Step, Src, Dst, llvm::ArrayRef<Interval>(I), Reduce, Contrib);
  }
  /// The same, ranges appended one at a time: begin, piece..., end.
  void begin(unsigned Step, Rank Src, Rank Dst, bool Reduce, uint32_t Contrib);
  void piece(uint64_t Lo, uint64_t Hi);
  void end();

  /// Room for about Ops more ops of a rank (a hint).
  void reserve(size_t Ops) {
    if (Only && Direct) {
      Table.reserve(Table.numOps() + Ops, Table.numBlocks() + Ops);
    } else if (Only) {
      Flat.Ops.reserve(Flat.Ops.size() + Ops);
      Flat.Ranges.reserve(Flat.Ranges.size() + Ops);
    }
  }
  /// Whether a rank's ops went straight into the list so far (tests ask).
  bool direct() const { return Only && Direct; }

  /// Marks step Step as one where the whole schedule has an op.
  void keep(unsigned Step);
  void keepIf(bool Cond, unsigned Step) {
    if (Cond)
      keep(Step);
  }

  /// The steps with their contributor sets (the closed forms): the steps
  /// with an op (whole) or the marked ones (rank form). Consumes the ops.
  StepList take();
  /// The steps without contributor sets and with their empty steps, for
  /// annotateContributors (the replay).
  StepList takeRaw();

private:
  struct RawOp {
    Rank Src, Dst;
    uint32_t Contrib;
    bool Reduce;
    unsigned Step;
    uint32_t FirstRange, NumRanges;
  };
  struct RawStep {
    std::vector<RawOp> Ops;
    std::vector<Interval> Ranges;
  };
  RawStep &at(unsigned Step);
  void addBlocks(StepList &L, const RawStep &S, const RawOp &O, bool Contribs);
  /// Moves the ops placed straight into Table into Flat (an op came for an
  /// earlier step).
  void toFlat();

  uint32_t P;
  std::optional<Rank> Only;
  Rank Base = 0;
  /// A rank's ops so far in step order, held in Table (see the class).
  bool Direct = true;
  /// The op begin() opened straight into Table: its ends, combine flag,
  /// set and blocks until end().
  bool OpenDirect = false;
  Rank OpenSrc = 0, OpenDst = 0;
  bool OpenReduce = false;
  uint32_t OpenContrib = Block::NoContrib;
  llvm::SmallVector<Block, 8> OpenBlocks;
  /// Every rank's ops by step (each freed once taken), or one rank's in
  /// one list (a few per step over up to 2p steps: no list per step).
  std::vector<RawStep> Steps;
  RawStep Flat;
  std::vector<bool> Kept;
  /// The contributor sets, and a rank's ops while Direct; take() adds
  /// the other ops to it, so a raw op's set id is its block's (no second
  /// table, no copy).
  StepList Table;
  /// The id of [0, P) once asked for (every allgather op carries it).
  uint32_t Everyone = Block::NoContrib;
  /// The op begin() opened (its step), or none.
  RawStep *Open = nullptr;
};

/// Parts + 1 cut points of [0, N) into Parts near-equal runs of whole
/// Elem-byte elements, the first (elements mod Parts) one element longer
/// (MPICH's cnts[]).
std::vector<uint64_t> elementCuts(uint64_t N, uint64_t Elem, uint64_t Parts);

/// The largest power of two <= P (P >= 1).
uint32_t floorPow2(uint32_t P);

/// Ranges are collected for one op at a time.
using RangeSink = llvm::function_ref<void(uint64_t Lo, uint64_t Hi)>;

//===--- Trees, recursive doubling and rings, over ranks 0..P-1 -----------===//

/// Binomial-tree reduce (Sec. 3.3; MPICH's MPIR_Reduce_intra_binomial):
/// ceil(lg p) steps of the whole vector; at mask m relative rank r with
/// r mod 2m = m sends to r - m (its subtree [r, r + m) of relative ranks).
/// Commutative: ranks relative to Root. Not commutative: the tree is rooted
/// at rank 0, which keeps rank order, and one more step sends the result to
/// Root (as MPICH does). From step First. Returns the next free step.
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

/// Pairwise-exchange reduce-scatter (Sec. 3.7; MPICH's pairwise): p - 1
/// steps; at step i rank r sends [Cuts[r+i], Cuts[r+i+1]) to rank r + i
/// (mod p), which combines it (the sender's own contribution alone).
/// Returns the next step.
unsigned pairwiseReduceScatter(RawSteps &R, unsigned First, uint32_t P,
                               llvm::ArrayRef<uint64_t> Cuts);
/// Ring allgather of the reduced segments: at step s rank r sends segment
/// (r - s) mod p to r + 1. Returns the next step.
unsigned ringAllgatherSegments(RawSteps &R, unsigned First, uint32_t P,
                               llvm::ArrayRef<uint64_t> Cuts);

//===--- Halving and doubling over p' new ranks ---------------------------===//

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

/// The new ranks 0..Size-1 a halving-doubling run works over and the ranks
/// that play them: new rank x < Rem stands for ranks Base + 2x and
/// Base + 2x + 1 (folded: one of them plays it), the others for
/// Base + x + Rem. Zero, when set, plays new rank 0 instead (a reduce root
/// that takes its segment over for the gather). No vector: a rank's part
/// asks for a few ranks only.
struct NewRanks {
  uint32_t Size = 1;
  Rank Base = 0;
  uint32_t Rem = 0;
  /// Which of a folded pair plays its new rank: the odd one for every pair,
  /// or for pair KeepOdd alone.
  bool OddStays = false;
  std::optional<uint32_t> KeepOdd;
  std::optional<Rank> Zero;

  /// Size ranks Base, Base + 1, ...
  static NewRanks block(Rank Base, uint32_t Size) {
    NewRanks M;
    M.Base = Base;
    M.Size = Size;
    return M;
  }
  Rank rankOf(uint32_t X) const;
  /// The new rank R plays, if any.
  std::optional<uint32_t> newRankOf(Rank R) const;
  /// The ranks new rank X stands for: [firstOf(X), endOf(X)).
  Rank firstOf(uint32_t X) const { return Base + (X < Rem ? 2 * X : X + Rem); }
  Rank endOf(uint32_t X) const {
    return Base + (X < Rem ? 2 * X + 2 : X + Rem + 1);
  }
};

/// Emits the fold of P ranks from step First (for Halves, splitting at byte
/// Half; KeepOdd names a pair whose odd rank stays, for a reduce root among
/// the removed ranks) and returns the new ranks. Next is set to the next
/// free step.
NewRanks foldToPowerOfTwo(RawSteps &R, unsigned First, uint32_t P, uint64_t N,
                          Fold F, uint64_t Half,
                          std::optional<uint32_t> KeepOdd, unsigned &Next);

/// Ops from the ranks that played a folded pair to the others, at step St,
/// replacing with the result (everyone's contributions): pair I's range
/// Range(I), the odd rank sending (OddSends) or the even one.
void returnToPartners(RawSteps &R, unsigned St, uint32_t Rem, bool OddSends,
                      llvm::function_ref<Interval(uint32_t)> Range);

/// Where a halving-doubling run leaves the final segments: Size of them in
/// byte order, segment j owned by new rank owner(j). Computed, not stored
/// (but for given cuts): a rank's part reads a few segments only.
class SegmentLayout {
public:
  /// Size (a power of two) near-equal segments of whole elements (MPICH's
  /// cnts), segment j owned by the bit reversal of j: the contiguous halves
  /// of Fig. 2 (recursive vector halving with distance doubling: the lower
  /// rank of a pair keeps the lower half). With Parts (a multiple of Size),
  /// the segments are unions of Parts / Size consecutive ones of the
  /// Parts-way cut (binary blocks: a smaller block's segments split exactly
  /// into the larger one's).
  static SegmentLayout bitReversed(uint64_t N, uint64_t Elem, uint32_t Size,
                                   uint32_t Parts = 0);
  /// Segments at Cuts (Size + 1 of them), segment j owned by new rank j.
  static SegmentLayout inOrder(std::vector<uint64_t> Cuts);
  /// Segments at Cuts, segment j owned by the bit reversal of j: where
  /// halving with distance doubling leaves them when every message is one
  /// range (the lower rank of a pair keeps the lower half).
  static SegmentLayout reversedAt(std::vector<uint64_t> Cuts);

  uint32_t size() const { return Size; }
  uint64_t cut(uint32_t J) const;
  uint32_t owner(uint32_t J) const { return Reversed ? reverse(J) : J; }
  uint32_t segmentOf(uint32_t Owner) const { return owner(Owner); }
  bool empty() const { return cut(0) == cut(Size); }
  /// Sink(Lo, Hi) for the bytes of the segments whose owner o has
  /// ((o ^ Y) & Mask) == 0, in byte order, consecutive segments as one range
  /// (stops at the end of the vector): one range when they are contiguous,
  /// whatever their number.
  void forEachLike(uint32_t Y, uint32_t Mask, RangeSink Sink) const;
  /// Whether some of those segments is non-empty.
  bool someLike(uint32_t Y, uint32_t Mask) const;

private:
  uint32_t reverse(uint32_t X) const;
  template <class Fn> void visitLike(uint32_t Y, uint32_t Mask, Fn F) const;

  uint32_t Size = 1;
  unsigned Log = 0;
  bool Reversed = false;
  /// bitReversed: cut(j) = partStart(Count, Parts, j * Stride) * Elem.
  uint64_t Count = 0, Elem = 1;
  uint32_t Parts = 1, Stride = 1;
  /// inOrder and reversedAt: the cuts themselves.
  std::vector<uint64_t> Cuts;
};

/// Reduce-scatter by recursive vector halving over the new ranks M: at the
/// step over bit b, new rank x and x xor 2^b exchange the segments of the
/// owners on the other side and combine; a sender's set is the new ranks
/// that agree with it on the bits not yet processed. Bits in the order
/// given: 0, 1, ... (distance doubling, Rabenseifner) or the reverse
/// (distance halving, MPICH's recursive halving). Returns the next step.
unsigned halvingReduceScatter(RawSteps &R, unsigned First, const NewRanks &M,
                              const SegmentLayout &Lay,
                              llvm::ArrayRef<unsigned> Bits);
/// How many blocks halvingReduceScatter over all the bits of Lay.size() new
/// ranks sends at most: each non-empty segment of Lay once from each of
/// size - 1 senders (messages carry the segments of the owners on the other
/// side, which are strided when owners are in byte order).
uint64_t halvingReduceScatterBlocks(const SegmentLayout &Lay);
/// The allgather undoing it (recursive vector doubling, bits in reverse),
/// replacing; returns the next step.
unsigned doublingAllgather(RawSteps &R, unsigned First, const NewRanks &M,
                           const SegmentLayout &Lay,
                           llvm::ArrayRef<unsigned> Bits);
/// The gather to new rank NewRoot (binary tree, distance halving): of each
/// pair the one whose bit agrees with NewRoot's receives; returns the next
/// step.
unsigned treeGatherSegments(RawSteps &R, unsigned First, const NewRanks &M,
                            const SegmentLayout &Lay,
                            llvm::ArrayRef<unsigned> Bits, uint32_t NewRoot);
/// New rank 0's own segments, from the rank playing it in M to To at step
/// St (a reduce root that plays new rank 0 in the gather), replacing.
/// Returns the next step.
unsigned handOverSegment(RawSteps &R, unsigned St, const NewRanks &M,
                         const SegmentLayout &Lay, Rank To);
/// After a halving over Lay (segment j left at new rank owner(j)), every
/// segment to new rank j, replacing, at step St: owner is an involution
/// (the bit reversal), so the ops pair up. Nothing for a layout in order.
/// Returns the next step.
unsigned segmentsToOwners(RawSteps &R, unsigned St, const NewRanks &M,
                          const SegmentLayout &Lay);
/// Bits 0 .. K-1 (Doubling) or K-1 .. 0.
std::vector<unsigned> bitOrder(uint32_t Pof2, bool Doubling);

/// Binary blocks (Sec. 3.6, Fig. 3): the ranks split into blocks of the
/// binary decomposition of p, the largest first (lowest ranks); each block
/// reduce-scatters by halving-doubling; from the smallest block up, a
/// block's partial segments are cut into the next larger block's segments,
/// sent there and combined. Leaves the result scattered over the largest
/// block, whose layout is bitReversed(N, Elem, Largest). Returns the next
/// free step.
struct BinaryBlock {
  Rank First;
  uint32_t Size;
};
/// The blocks of P, largest first.
std::vector<BinaryBlock> binaryBlocks(uint32_t P);
unsigned binaryBlocksReduceScatter(RawSteps &R, uint32_t P, uint64_t N,
                                   uint64_t Elem);
/// The allreduce's second part: each block hands the next smaller block its
/// segments (receivers take one message per step), and every block runs
/// the doubling allgather. Starts at step First.
void binaryBlocksAllgather(RawSteps &R, unsigned First, uint32_t P, uint64_t N,
                           uint64_t Elem);

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

/// The schedule of collective C with the ops of R (every rank's, or one
/// rank's), empty steps dropped, op written when not commutative: the
/// closed-form contributor sets, or (Replay, whole schedules) those of
/// annotateContributors.
Schedule reductionSchedule(Collective C, const ReductionInput &In, RawSteps &R,
                           bool Replay = false);

} // namespace choreo

#endif
