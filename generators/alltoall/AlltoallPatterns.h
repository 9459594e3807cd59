//===- generators/alltoall/AlltoallPatterns.h - Alltoall algorithms -*- C++ -*-//
///
/// \file
/// The alltoall algorithms as what each rank sends in each step (an
/// AlltoallPattern): pairwise exchange, Bruck's store-and-forward with radix
/// k, and MPICH's scattered linear exchange with a batch. buildAlltoall
/// turns a pattern into steps, whole or one rank's ops alone: every rank
/// form is the same pattern asked for one rank's sends and for the senders
/// to it, so it is its rank's ops of the whole by construction (and
/// checked: tests/unit/RankFormTest.cpp). Steps that carry no bytes (an
/// alltoallv whose blocks there are all empty) are left out, decided from
/// the matrix alone so that every rank leaves out the same ones (a rank
/// view of the matrix, an alltoallv rank's row and column: from its used
/// offsets, which the ranks agree on).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_ALLTOALL_ALLTOALLPATTERNS_H
#define CHOREO_GENERATORS_ALLTOALL_ALLTOALLPATTERNS_H

#include "ir/PairMatrix.h"
#include "ir/StepList.h"

#include <memory>
#include <optional>
#include <vector>

namespace choreo {

/// Block (I, J) of an alltoall: what rank I sends rank J.
struct PairBlock {
  Rank I, J;
};

/// One message of a step: to Dst, its blocks in order.
struct PairMessage {
  Rank Dst;
  std::vector<PairBlock> Blocks;
};

/// A rectangle of the p x p block matrix, without wrap-around: the blocks
/// (I, J) with I in [I0, I0 + Rows) and J = J0 + t JStride for t < Cols,
/// listed row by row.
struct PairRect {
  Rank I0 = 0;
  uint32_t Rows = 0;
  Rank J0 = 0;
  uint32_t Cols = 0;
  uint64_t JStride = 1;
};

/// One message of a step as rectangles (a pattern with hasRects).
struct RectMessage {
  Rank Dst;
  llvm::SmallVector<PairRect, 8> Rects;
};

class AlltoallPattern {
public:
  virtual ~AlltoallPattern();
  /// Steps before those carrying no bytes are left out.
  virtual unsigned numSteps() const = 0;
  /// Whether some rank sends a non-empty block in step St.
  virtual bool carries(unsigned St) const = 0;
  /// The ranks that send to Me in step St.
  virtual void sendersTo(unsigned St, Rank Me, std::vector<Rank> &Out) const = 0;
  /// What rank R sends in step St, message by message.
  virtual void sendsOf(unsigned St, Rank R,
                       std::vector<PairMessage> &Out) const = 0;
  /// R's messages of step St to Dst, each with its index in sendsOf's
  /// list (what a rank form needs of a sender to it). By default sendsOf,
  /// filtered; a pattern of many messages a step answers directly.
  virtual void
  sendsTo(unsigned St, Rank R, Rank Dst,
          std::vector<std::pair<size_t, PairMessage>> &Out) const;
  /// Whether rectsOf gives the messages (as rectangles of the block
  /// matrix: Bruck's with --lattice on and every block alike), in the
  /// order and to the peers of sendsOf's.
  virtual bool hasRects() const { return false; }
  virtual void rectsOf(unsigned St, Rank R,
                       std::vector<RectMessage> &Out) const {}
  /// Whether a rank forwards blocks of which it is neither end (Bruck):
  /// then a rank's part needs, beyond its own row and column, the blocks
  /// it relays (a rank view with sizes.relay, ir/PairMatrix.h
  /// BruckRelays).
  virtual bool relays() const { return false; }
  /// The most messages a rank sends (and receives) in one step.
  virtual uint32_t ports() const { return 1; }
  /// The ops and the blocks of the whole schedule, at most (budgets).
  virtual uint64_t opsBound() const = 0;
  virtual uint64_t blocksBound() const { return opsBound(); }
  /// The ops and the blocks of one rank's part, at most (the budgets of a
  /// rank form: its sends and receives, ports() a step each way).
  uint64_t rankOpsBound() const { return 2 * uint64_t(numSteps()) * ports(); }
  uint64_t rankBlocksBound() const { return 2 * sentBlocksBound(); }
  /// The blocks one rank sends over every step, at most (one a message
  /// unless a message carries several).
  virtual uint64_t sentBlocksBound() const {
    return uint64_t(numSteps()) * ports();
  }
};

/// Pairwise exchange (MPIR_Alltoall_intra_pairwise): p - 1 steps; in step
/// d rank r sends block (r, r XOR d) to r XOR d when p is a power of two,
/// else block (r, r + d) to r + d (and receives from r - d).
std::unique_ptr<AlltoallPattern> pairwisePattern(const PairMatrix &M);

/// Bruck's alltoall with radix K (Bruck et al., IEEE TPDS 1997;
/// MPIR_Alltoall_intra_brucks for K = 2): the block (i, j) has offset
/// b = j - i mod p; in round d (d = 0 .. ceil(log_K p) - 1) every block
/// whose digit d of b (base K) is v moves v K^d ranks forward, so after its
/// last nonzero digit it is at j. The message to r + v K^d carries every
/// block at r with that digit: blocks that r received earlier and relays.
/// One step per (d, v), single-port; Concurrent: one step per round with
/// its K - 1 messages at once (ports K - 1). Lattice (with sizes.block): a
/// message is at most eight rectangles of the block matrix (rectsOf; its
/// blocks become lattice blocks, docs/format.md "Lattice blocks"); with
/// blocks of their own sizes (sizes.pairs) the blocks are ranges anyway.
std::unique_ptr<AlltoallPattern> bruckPattern(const PairMatrix &M,
                                              uint64_t Radix, bool Concurrent,
                                              bool Lattice = false);

/// MPICH's scattered alltoall (MPIR_Alltoall_intra_scattered,
/// MPIR_Alltoallv_intra_scattered): ceil(p / Batch) steps; in step s rank r
/// sends block (r, r - d) to r - d and receives from r + d for the Batch
/// distances d = s Batch .. s Batch + Batch - 1 (0, the rank itself, is a
/// local copy), at once (ports: the most distances of a step). Batch 0:
/// every distance in one step.
std::unique_ptr<AlltoallPattern> scatteredPattern(const PairMatrix &M,
                                                  uint64_t Batch);

/// The steps of Pat over M that carry bytes: the whole schedule, or with
/// Only exactly rank Only's ops of it (steps numbered alike). A step lists
/// every sender's first message, then every sender's second, ...; an op
/// carries its message's non-empty blocks as byte ranges of `all`, adjacent
/// ones merged; a message of empty blocks is no op. With Pat.hasRects(), an
/// op carries its message's rectangles as lattice blocks instead.
StepList buildAlltoall(const PairMatrix &M, const AlltoallPattern &Pat,
                       std::optional<Rank> Only);

/// Whether some block at offset b (block (i, i + b mod p) for some i) is
/// not empty, for every b in [0, p); a rank view's from its used flags
/// (O(p)).
std::vector<bool> usedOffsets(const PairMatrix &M);

} // namespace choreo

#endif
