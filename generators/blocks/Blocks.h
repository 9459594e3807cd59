//===- generators/blocks/Blocks.h - Building blocks of collective schedules -*-
// C++ -*-=//
///
/// \file
/// Intragroup algorithms as StepLists over local ranks 0..n-1 and local
/// buffer 0, for generators to relabel onto real ranks and buffers
/// (StepList::relabeled) and compose (append, mergeAlongside).
///
/// Data layout of the gather-type blocks: local rank i contributes
/// [Displ[i], Displ[i] + Counts[i]) of buffer 0 with Displ the prefix sums of
/// Counts. Broadcasts move [0, Bytes) of buffer 0 from Root. Empty pieces are
/// never sent; an op whose pieces are all empty is left out.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_BLOCKS_BLOCKS_H
#define CHOREO_GENERATORS_BLOCKS_BLOCKS_H

#include "ir/Schedule.h"
#include "ir/StepList.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <vector>

namespace choreo {

/// Ring allgather(v): n - 1 steps; at step s rank i sends the block of rank
/// (i - s) mod n to rank i + 1.
StepList ringAllgatherv(llvm::ArrayRef<uint64_t> Counts);

/// Bruck's allgather(v): ceil(log2 n) steps; at step k rank i sends the
/// min(2^k, n - 2^k) blocks starting at its own to rank i - 2^k.
StepList bruckAllgatherv(llvm::ArrayRef<uint64_t> Counts);

/// Recursive-doubling allgather(v), n a power of two: log2 n steps; at step k
/// rank i exchanges its 2^k-block subtree with rank i xor 2^k.
StepList recursiveDoublingAllgatherv(llvm::ArrayRef<uint64_t> Counts);

/// The intragroup allgather algorithms building blocks choose between.
enum class IntraAlgorithm { Ring, Bruck, RecursiveDoubling };
llvm::StringRef intraAlgorithmName(IntraAlgorithm A);
/// The allgather(v) IntraAlgorithm names (RecursiveDoubling: n a power of
/// two).
StepList intraAllgatherv(IntraAlgorithm A, llvm::ArrayRef<uint64_t> Counts);
/// The ops of intraAllgatherv(A, Counts) that rank Me sends or receives, in
/// the same steps and order: 2 per step at most, O(N) time for the sizes.
/// Every step of the three algorithms carries every member's block, so a
/// step of the whole is empty only when every count is zero.
StepList intraAllgathervRank(IntraAlgorithm A, llvm::ArrayRef<uint64_t> Counts,
                             uint32_t Me);
/// intraAllgathervRank's steps appended to L (no copy of them).
void appendIntraAllgathervRank(StepList &L, IntraAlgorithm A,
                               llvm::ArrayRef<uint64_t> Counts, uint32_t Me);
/// The same with local rank x written as Map(x), every block carrying set
/// Contrib of L and replacing (a reduction's result copied on): what a
/// rank's part of an intergroup allreduce appends, with no relabelled copy.
void appendIntraAllgathervRank(StepList &L, IntraAlgorithm A,
                               llvm::ArrayRef<uint64_t> Counts, uint32_t Me,
                               llvm::function_ref<Rank(uint32_t)> Map,
                               uint32_t Contrib);
/// The steps intraAllgatherv(A, ...) has over N members (before empty ones
/// are dropped).
unsigned intraAllgatherSteps(IntraAlgorithm A, uint32_t N);

/// MPICH's binomial-tree gather to Root (MPIR_Gather_intra_binomial): at the
/// step with mask m, relative rank r with r mod 2m == m sends the blocks of
/// relative ranks [r, r + m) to r - m.
StepList binomialGather(llvm::ArrayRef<uint64_t> Counts, uint32_t Root);

/// MPICH's binomial broadcast (MPIR_Bcast_intra_binomial): masks from the
/// largest power of two below n down to 1; a holder sends to relative rank
/// r + mask.
StepList binomialBcast(uint32_t N, uint64_t Bytes, uint32_t Root);

/// Van de Geijn's broadcast as MPICH runs it: a binomial scatter of
/// ceil(Bytes / n)-byte chunks (relative rank r ends with chunk r), then an
/// allgather of the chunks over relative ranks: ring
/// (MPIR_Bcast_intra_scatter_ring_allgather), recursive doubling for n a
/// power of two (..._scatter_recursive_doubling_allgather), or Bruck (any n,
/// ceil(log2 n) steps: the 2 log n start-ups of the multiple-message
/// broadcast cost seed 001 uses).
StepList scatterAllgatherBcast(uint32_t N, uint64_t Bytes, uint32_t Root,
                               IntraAlgorithm Allgather);

/// The binomial scatter that scatterAllgatherBcast starts with (MPICH's
/// MPII_Scatter_for_bcast), alone: its ceil(log2 n) steps, O(n) ops (what
/// a rank checks a nodes layout over when the allgather after it is a
/// ring, which keeps to every layout of consecutive ranks).
StepList bcastScatter(uint32_t N, uint64_t Bytes, uint32_t Root);

enum class MpichBcast { Binomial, ScatterRecursiveDoubling, ScatterRing };

/// MPICH 4.0.2's choice: binomial up to 12288 B or under 8 processes,
/// scatter + recursive doubling up to 524288 B on a power of two, scatter +
/// ring otherwise.
MpichBcast mpichBcastChoice(uint32_t N, uint64_t Bytes);
StepList mpichBcast(uint32_t N, uint64_t Bytes, uint32_t Root);

/// At most the ops mpichBcast(N, Bytes, root) and binomialGather over N
/// members build (OpCounts.cpp): the same arithmetic, for op budgets.
uint64_t mpichBcastOps(uint32_t N, uint64_t Bytes);
uint64_t binomialGatherOps(uint32_t N);

/// Flat tree: the root sends [0, Bytes) to relative ranks 1, 2, ..., n - 1,
/// one per step (seed 002, Eq. 1).
StepList flatBcast(uint32_t N, uint64_t Bytes, uint32_t Root);

/// Pipelined chain: [0, Bytes) cut at Cuts (Cuts[0] = 0 < ... < Cuts[X] =
/// Bytes); at step t relative rank j sends segment t - j to j + 1: X + n - 2
/// steps (Eq. 3). One segment is the chain (Eq. 2).
StepList pipelineBcast(uint32_t N, llvm::ArrayRef<uint64_t> Cuts,
                       uint32_t Root);

/// Open MPI's binary tree (ompi_coll_base_topo_build_tree with fanout 2):
/// shifted rank r at level l = floor(log2(r + 1)) has children r + 2^l and
/// r + 2^(l+1); a rank that received at step s sends to its first child at
/// s + 1 and its second at s + 2.
StepList binaryBcast(uint32_t N, uint64_t Bytes, uint32_t Root);

/// Open MPI's split-binary tree (ompi_coll_base_bcast_intra_split_bintree,
/// unsegmented): the first ceil(Bytes/2) bytes down the root's first
/// subtree (odd shifted ranks), the rest down its second (even ones), then
/// one step in which shifted ranks 2k - 1 and 2k exchange halves (for even
/// n the root sends the second half to shifted rank n - 1). One byte goes
/// down the chain, as Open MPI does.
StepList splitBinaryBcast(uint32_t N, uint64_t Bytes, uint32_t Root);

/// MPICH's MPIR_Bcast_intra_scatter_recursive_doubling_allgather for any n:
/// the binomial scatter, then at mask 1, 2, 4, ... relative ranks r and
/// r xor mask exchange what they hold; where r xor mask does not exist, the
/// ranks of the lower subtree that got the upper subtree's data pass it on
/// by recursive halving (MPICH's non-power-of-two code).
StepList scatterRecursiveDoublingBcast(uint32_t N, uint64_t Bytes,
                                       uint32_t Root);

/// A rank's part of a building block over local ranks: rank Me's ops in
/// the block's own steps (every step, empty ones included, so that step i
/// is the block's step i), in the order the whole block lists them, and
/// which of the block's steps hold some rank's op (the steps the whole
/// keeps when it drops empty ones). The rank forms below build it in time
/// proportional to Me's ops plus the arithmetic they name, never the other
/// ranks' ops.
struct RankPart {
  StepList Steps;
  std::vector<bool> Used;
  /// Me's ops in the steps the whole keeps, renumbered as the whole's
  /// dropEmptySteps renumbers them (moved out when every step is kept).
  StepList kept() const &;
  StepList kept() &&;
  /// Appends Next's steps and marks (moving them into an empty part).
  void append(const RankPart &Next);
  void append(RankPart &&Next);
};

/// As Me for the rank forms: no rank's ops, only the steps and which are
/// used (what a rank needs of a block it takes no part in).
inline constexpr uint32_t NoRank = ~0u;

/// The rank forms of the broadcasts above (blocks/BcastRank.cpp); Used
/// costs O(1) per step except for binaryBcastRank and splitBinaryBcastRank
/// (O(N) arithmetic: the deepest leaf's step).
RankPart binomialBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root,
                           uint32_t Me);
RankPart flatBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root, uint32_t Me);
RankPart pipelineBcastRank(uint32_t N, llvm::ArrayRef<uint64_t> Cuts,
                           uint32_t Root, uint32_t Me);
RankPart binaryBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root,
                         uint32_t Me);
RankPart splitBinaryBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root,
                              uint32_t Me);
/// O(N) arithmetic for the allgather's sizes.
RankPart scatterAllgatherBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root,
                                   IntraAlgorithm Allgather, uint32_t Me);
RankPart scatterRecursiveDoublingBcastRank(uint32_t N, uint64_t Bytes,
                                           uint32_t Root, uint32_t Me);
RankPart mpichBcastRank(uint32_t N, uint64_t Bytes, uint32_t Root, uint32_t Me);
/// binomialGather's rank form; Used in O(N) arithmetic (one sum per
/// member: which steps carry a non-empty block).
RankPart binomialGatherRank(llvm::ArrayRef<uint64_t> Counts, uint32_t Root,
                            uint32_t Me);
/// intraAllgatherv's rank form (every step used unless every count is 0).
RankPart intraAllgathervPart(IntraAlgorithm A, llvm::ArrayRef<uint64_t> Counts,
                             uint32_t Me);

/// Appends Part's steps to L with ranks renamed by Map (local -> real) and
/// buffers by Buffers, as StepList::relabeled would, without an O(N) map.
template <class MapFn>
void appendMapped(StepList &L, const StepList &Part, MapFn Map,
                  llvm::ArrayRef<BufferMap> Buffers = {}) {
  for (unsigned S = 0; S < Part.numSteps(); ++S) {
    L.newStep();
    for (const Op &O : Part.step(S)) {
      llvm::SmallVector<Block, 2> Bs(Part.blocks(O).begin(),
                                     Part.blocks(O).end());
      for (Block &B : Bs)
        if (B.Buf < Buffers.size()) {
          B.Lo += Buffers[B.Buf].Offset;
          B.Hi += Buffers[B.Buf].Offset;
          B.Buf = Buffers[B.Buf].To;
        }
      L.addOp(Map(O.Src), Map(O.Dst), Bs);
    }
  }
}

/// The blocks of a cyclic run of local ranks [First, First + Len) mod n, as
/// at most two contiguous pieces of buffer 0.
llvm::SmallVector<Block, 2> cyclicRun(llvm::ArrayRef<uint64_t> Displ,
                                      uint32_t First, uint32_t Len);

/// An op whose place is given by orders, not by a step.
struct OrderedOp {
  Rank Src, Dst;
  llvm::SmallVector<Block, 1> Blocks;
};
/// Places ops as early as possible such that every rank sends its ops in the
/// order SendOrder[rank] lists them (indices into Ops) and receives them in
/// the order RecvOrder[rank] lists them: op o goes one step after the later
/// of its predecessor in its sender's order and in its receiver's order.
/// One send and one receive per rank and step (full duplex) follow. Fails
/// if the orders contradict each other (a cycle).
llvm::Expected<StepList>
scheduleInOrder(llvm::ArrayRef<OrderedOp> Ops,
                llvm::ArrayRef<std::vector<size_t>> SendOrder,
                llvm::ArrayRef<std::vector<size_t>> RecvOrder);

/// Kang et al.'s Algorithm 2 exchange between groups A (buffer 0) and B
/// (buffer 1): A's bytes cut into |B| near-equal segments by global byte
/// index, segment k sent to B's member k piece by piece, and B's likewise
/// to A, in the paper's order (multi-target senders in receiver order;
/// receivers take the higher multi-target sender first, the lower last).
/// SegOfA[k] / SegOfB[k]: the bytes member k of A / B ends up holding.
/// Cuts: where the segments start (see SegmentCuts).
enum class SegmentCuts {
  /// The first K mod N segments one byte longer (partStart): Algorithm 2 as
  /// printed.
  FirstLonger,
  /// Segment I starts at floor(I K / N) (proportionalStart): the same sizes,
  /// but a segment never overlaps more messages than its real-valued
  /// counterpart, so with equal messages a receiver has at most
  /// ceil((p + q - gcd(p, q)) / q) senders (docs/errata.md, E5).
  Proportional,
};
llvm::Expected<StepList>
balancedExchange(Rank NumRanks, const Group &A, llvm::ArrayRef<uint64_t> SizesA,
                 const Group &B, llvm::ArrayRef<uint64_t> SizesB,
                 std::vector<uint64_t> &SegOfA, std::vector<uint64_t> &SegOfB,
                 SegmentCuts Cuts = SegmentCuts::FirstLonger);

/// balancedExchange's rank form: rank Me's ops in the exchange's steps
/// (none of which is empty), and the segment sizes. A step is the longest
/// chain of the send and receive orders before an op, a property of the
/// whole exchange, so this walks every piece's place in those orders:
/// O(p + q) time and flat arrays of O(p + q) entries (the exchange has at
/// most p + q pieces per direction), never the other ranks' ops.
StepList balancedExchangeRank(const Group &A, llvm::ArrayRef<uint64_t> SizesA,
                              const Group &B, llvm::ArrayRef<uint64_t> SizesB,
                              std::vector<uint64_t> &SegOfA,
                              std::vector<uint64_t> &SegOfB, SegmentCuts Cuts,
                              Rank Me);

/// The intragroup allgathers that end Kang et al.'s algorithms, side by
/// side, as rank Me (a member of A or B) sees them: A's members allgather
/// SegOfA of buffer 1 (B's bytes), B's SegOfB of buffer 0; Me's group's
/// ops and the steps either group uses.
RankPart allgathersSideBySideRank(IntraAlgorithm Intra, const Group &A,
                                  llvm::ArrayRef<uint64_t> SegOfA,
                                  const Group &B,
                                  llvm::ArrayRef<uint64_t> SegOfB, Rank Me);

bool isPowerOfTwo(uint64_t X);
/// X mod N in [0, N) for N >= 1, also for negative X (ring positions).
inline int64_t floorMod(int64_t X, int64_t N) { return ((X % N) + N) % N; }
/// ceil(log2 X) for X >= 1.
unsigned ceilLog2(uint64_t X);

} // namespace choreo

#endif
