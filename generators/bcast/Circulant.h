//===- generators/bcast/Circulant.h - Circulant-graph schedules -*- C++ -*-===//
///
/// \file
/// Träff's round-optimal n-block broadcast on a circulant graph ("Optimal
/// broadcast schedules in logarithmic time with applications to broadcast,
/// all-broadcast, reduction and all-reduction", arXiv 2312.11236): the
/// skips, a rank's baseblock, its receive and send schedules (each of
/// ceil(log2 p) entries, computed in O(log p) by the rank alone), and the
/// broadcast and its reversal (a reduction) built from them, whole or one
/// rank's part.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_BCAST_CIRCULANT_H
#define CHOREO_GENERATORS_BCAST_CIRCULANT_H

#include "generators/blocks/Blocks.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace choreo {

/// The circulant graph of P >= 2 ranks: Q = ceil(log2 P) skips, Skip[Q] =
/// P and Skip[k] = ceil(Skip[k + 1] / 2), so Skip[0] = 1. In round k of a
/// phase of Q rounds, relative rank r sends to r + Skip[k] and receives
/// from r - Skip[k] (mod P).
struct CirculantGraph {
  uint32_t P = 0, Q = 0;
  llvm::SmallVector<uint64_t, 33> Skip;
  explicit CirculantGraph(uint32_t P);
};

/// The block numbers of one phase of Q rounds: a rank's baseblock b
/// (0 <= b < Q, the block it gets in this phase) or e - Q (a block of the
/// previous phase, -Q <= e - Q < 0). NoBlock: the rank sends nothing
/// (its target is the root).
inline constexpr int32_t NoBlock = INT32_MIN;

/// The baseblock of relative rank R: the last skip of R's greedy sum of
/// distinct skips (largest first); Q for the root.
uint32_t circulantBaseblock(const CirculantGraph &G, uint64_t R);

/// A rank's schedules: in round k of every phase it receives block Recv[k]
/// from R - Skip[k] and sends block Send[k] to R + Skip[k] (block numbers
/// of the phase, above).
struct CirculantSchedule {
  llvm::SmallVector<int32_t, 32> Recv, Send;
};

/// Relative rank R's receive schedule (the paper's depth-first search over
/// sums of skips, O(log p)): false only if the search finds no block for
/// some round, which the unit tests check never happens.
bool circulantRecvSchedule(const CirculantGraph &G, uint64_t R,
                           llvm::SmallVectorImpl<int32_t> &Recv);

/// Relative rank R's send schedule in O(log p): from R's own sum of skips,
/// looking up the receive schedule of the target only where the paper's
/// rules leave the block open (a constant number of rounds). Send[k] is
/// the receiver's Recv[k], NoBlock when the receiver is the root.
bool circulantSendSchedule(const CirculantGraph &G, uint64_t R,
                           llvm::SmallVectorImpl<int32_t> &Send);

/// Both schedules of relative rank R (false as above).
bool circulantScheduleOf(const CirculantGraph &G, uint64_t R,
                         CirculantSchedule &S);

/// How many of the send schedule's entries looked up a receive schedule
/// (the paper's "violations"), for the tests' bound.
unsigned circulantSendLookups(const CirculantGraph &G, uint64_t R);

/// The broadcast of [0, Cuts.back()) cut at Cuts (n = Cuts.size() - 1
/// blocks) from Root over local ranks 0..N-1: n - 1 + ceil(log2 N) steps;
/// in step j (virtual round i = j + x, x = (Q - (n - 1) mod Q) mod Q,
/// round k = i mod Q of phase i / Q) relative rank r sends block
/// Send[k] + Q (i / Q) - x to r + Skip[k] when it is a block (>= 0; the
/// last one for any above n - 1) and the receiver is not the root. Ops of
/// a step in the order of their senders' relative ranks.
StepList circulantBcast(uint32_t N, llvm::ArrayRef<uint64_t> Cuts,
                        uint32_t Root);
RankPart circulantBcastRank(uint32_t N, llvm::ArrayRef<uint64_t> Cuts,
                            uint32_t Root, uint32_t Me);

/// n - 1 + ceil(log2 N) for N >= 2 and n >= 1 blocks, else 0.
uint64_t circulantRounds(uint32_t N, uint64_t Blocks);

} // namespace choreo

#endif
