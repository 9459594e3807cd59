//===- generators/Blocks.h - Building blocks of collective schedules -*- C++ -*-=//
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

#ifndef CHOREO_GENERATORS_BLOCKS_H
#define CHOREO_GENERATORS_BLOCKS_H

#include "ir/StepList.h"

#include "llvm/ADT/SmallVector.h"

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

/// MPICH's binomial-tree gather to Root (MPIR_Gather_intra_binomial): at the
/// step with mask m, relative rank r with r mod 2m == m sends the blocks of
/// relative ranks [r, r + m) to r - m.
StepList binomialGather(llvm::ArrayRef<uint64_t> Counts, uint32_t Root);

/// MPICH's binomial broadcast (MPIR_Bcast_intra_binomial): masks from the
/// largest power of two below n down to 1; a holder sends to relative rank
/// r + mask.
StepList binomialBcast(uint32_t N, uint64_t Bytes, uint32_t Root);

/// MPICH's broadcast by binomial scatter of ceil(Bytes / n)-byte chunks
/// followed by a ring allgather (MPIR_Bcast_intra_scatter_ring_allgather).
StepList scatterRingBcast(uint32_t N, uint64_t Bytes, uint32_t Root);

/// The same scatter followed by a recursive-doubling allgather, n a power
/// of two (MPIR_Bcast_intra_scatter_recursive_doubling_allgather).
StepList scatterRecursiveDoublingBcast(uint32_t N, uint64_t Bytes,
                                       uint32_t Root);

enum class MpichBcast { Binomial, ScatterRecursiveDoubling, ScatterRing };

/// MPICH's choice (seed 002, Section 4.1): binomial below 12 KB or under 8
/// processes, scatter + recursive doubling below 512 KB on a power of two,
/// scatter + ring otherwise.
MpichBcast mpichBcastChoice(uint32_t N, uint64_t Bytes);
StepList mpichBcast(uint32_t N, uint64_t Bytes, uint32_t Root);

/// Appends Block{Buf, Lo, Hi} to Out unless it is empty, merging it into the
/// previous block when they are contiguous.
void addPiece(llvm::SmallVectorImpl<Block> &Out, BufferId Buf, uint64_t Lo,
              uint64_t Hi);

/// Adds an op when Pieces is not empty.
void addOpIfAny(StepList &L, Rank Src, Rank Dst,
                llvm::ArrayRef<Block> Pieces);

/// The blocks of a cyclic run of local ranks [First, First + Len) mod n, as
/// at most two contiguous pieces of buffer 0.
llvm::SmallVector<Block, 2> cyclicRun(llvm::ArrayRef<uint64_t> Displ,
                                      uint32_t First, uint32_t Len);

bool isPowerOfTwo(uint64_t X);
/// ceil(log2 X) for X >= 1.
unsigned ceilLog2(uint64_t X);

} // namespace choreo

#endif
