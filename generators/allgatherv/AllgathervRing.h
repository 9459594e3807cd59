//===- generators/allgatherv/AllgathervRing.h - Rings ----------*- C++ -*-===//
///
/// \file
/// What the allgatherv ring generators share: the pipelined (blocked) ring
/// of seed 003 (Traeff et al., Section 2.2) with the zero-skip of Section
/// 2.3, the ring orders it runs on (equidistant placement of the empty
/// contributions, Fig. 3; node-aware order, Fig. 1), the block size of
/// Section 2.4 (Eq. 2 and its special cases), MPICH 4.0's ring allgatherv
/// as it runs, and the options they declare.
///
/// Sizes are per rank (the MPI layout: rank i's bytes follow rank i-1's in
/// buffer `all`); a ring order lists the ranks around the ring, position k
/// sending to position k + 1. Ops carry only real bytes: a partial block its
/// bytes, an empty contribution nothing.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_ALLGATHERV_ALLGATHERVRING_H
#define CHOREO_GENERATORS_ALLGATHERV_ALLGATHERVRING_H

#include "generators/Generators.h"

#include <optional>

namespace choreo {

namespace opt {
/// --block-bytes SIZE|auto (default auto): the block size B.
const Option<SizeOrWord> &blockBytes();
/// --skip-empty on|off (default on): the zero-skip of Section 2.3; reads
/// as whether to skip.
const Option<OneOf<bool>> &skipEmpty();
/// --rerank none|equidistant (default none).
const Option<std::string> &rerank();
/// --alpha X, --beta X: the cost model --block-bytes auto minimises.
const Option<double> &alpha();
const Option<double> &beta();
} // namespace opt

/// Ranks 0..p-1 with the p - z non-empty contributors placed equidistantly
/// among the z empty ones (Section 2.3, Fig. 3): each non-empty rank
/// followed by floor(z / (p - z)) empty ones, the first z mod (p - z) gaps
/// one longer; rank order kept within both kinds.
std::vector<Rank> equidistantOrder(llvm::ArrayRef<uint64_t> Sizes);

/// The node-aware ring of Fig. 1: nodes in order of their numbers, each
/// node's ranks together (so one rank per node receives from another node
/// and one sends to another node), the empty contributors of a node first
/// so that the rank sending off-node has data when any rank of it has.
std::vector<Rank> nodeAwareOrder(llvm::ArrayRef<uint32_t> NodeOf,
                                 llvm::ArrayRef<uint64_t> Sizes);

/// b = sum_i max(1, ceil(m_i / B)) (saturating).
uint64_t totalBlocks(llvm::ArrayRef<uint64_t> Sizes, uint64_t B);

/// The pipelined ring over Order with blocks of at most B bytes: the ring
/// of b virtual processes (rank i simulating b_i of them), where virtual
/// process v sends block (v - t) mod b in round t and only the last virtual
/// process of each rank sends for real. Without SkipEmpty round t is step
/// t: r = b - min b_i steps (Eq. 1), ops carrying empty blocks left out.
/// With SkipEmpty every link sends the same non-empty blocks in the same
/// order, each as early as the link and the block's arrival allow.
StepList pipelinedRingAllgatherv(llvm::ArrayRef<uint64_t> Sizes,
                                 llvm::ArrayRef<Rank> Order, uint64_t B,
                                 bool SkipEmpty);

/// The rank form of pipelinedRingAllgatherv: rank Me's ops in the whole's
/// steps, from the block counts alone (O(p) arithmetic, O(log p) per op).
/// Without the zero-skip link k's T-th block goes at step T; with it, the
/// i-th non-empty block at step i plus what it gained at the empty
/// positions it passed (AllgathervRing.cpp); no step in between is empty
/// either way.
StepList pipelinedRingAllgathervRank(llvm::ArrayRef<uint64_t> Sizes,
                                     llvm::ArrayRef<Rank> Order, uint64_t B,
                                     bool SkipEmpty, Rank Me);

/// The number of steps Section 2.3 predicts with the zero-skip:
/// sum_i ceil(m_i / B) - 1 + max over non-empty ranks i of z_i, the empty
/// ranks right before i in Order (the paper writes z' = floor(z/(p - z))
/// for it: docs/errata.md, E-003-2). Exact when every non-empty rank has
/// more blocks than z_i; a lower bound otherwise (docs/allgatherv.md). 0
/// when nothing is sent (p < 2 or every size 0).
uint64_t zeroSkipRounds(llvm::ArrayRef<uint64_t> Sizes,
                        llvm::ArrayRef<Rank> Order, uint64_t B);

/// How --block-bytes auto chose B.
enum class BlockRule { Regular, Pipeline, Eq2 };
struct AutoBlock {
  uint64_t Bytes = 1;
  BlockRule Rule = BlockRule::Eq2;
};
/// Section 2.4: all sizes equal -> B = m' (the plain ring); one rank with
/// data (z = p - 1) -> the B minimising the linear pipeline's
/// (ceil(m/B) + p - 2)(alpha + beta B); otherwise Eq. 2 as corrected in
/// docs/errata.md (E-003-1). B is rounded to bytes and kept in
/// [1, max m_i].
AutoBlock autoBlockBytes(llvm::ArrayRef<uint64_t> Sizes, double Alpha,
                         double Beta);

/// MPICH 4.0's MPIR_Allgatherv_intra_ring on bytes: rank r sends its own
/// contribution, then those of r-1, r-2, ... to r+1 and receives those of
/// r-1, r-2, ... from r-1, in chunks of PipelineBytes once the largest
/// contribution exceeds PipelineBytes (MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE,
/// 32768), one blocking MPI_Sendrecv (or MPI_Send / MPI_Recv when one side
/// is empty, nothing when both are) per loop iteration. Steps: rank r's k-th
/// loop iteration (its slot k) is step k. A contribution takes
/// max(1, ceil(size / chunk)) slots of a rank's loop (an empty one one slot,
/// in which nothing moves), and r's k-th send is r + 1's k-th receive (both
/// walk contributions r, r-1, ... in the same pieces), so the two ends of a
/// message agree on its step. Each rank runs exactly MPICH's sequence of
/// sends and receives; a rank whose slot is empty goes on at once, as
/// MPICH's loop does. Every step holds an op: with W the slots of all
/// contributions and w the fewest of one, the steps are W - w
/// (docs/allgatherv.md, "MPICH's ring": why none is empty).
StepList mpichRingAllgatherv(llvm::ArrayRef<uint64_t> Sizes,
                             uint64_t PipelineBytes);

/// Rank Me's ops of mpichRingAllgatherv, with its steps (O(p + Me's slots)
/// time): its k-th slot's receive from Me - 1 and send to Me + 1 at step k.
StepList mpichRingAllgathervRank(llvm::ArrayRef<uint64_t> Sizes,
                                 uint64_t PipelineBytes, Rank Me);

/// The schedule of mpichRingAllgatherv over Sizes (Kind allgather or
/// allgatherv, on the ring): whole, or with Only rank Only's ops alone
/// (mpichRingAllgathervRank). Id names the
/// generator in the op budget's and the rank's errors.
llvm::Expected<Schedule> buildMpichRing(llvm::StringRef Id, Collective Kind,
                                        llvm::ArrayRef<uint64_t> Sizes,
                                        uint64_t PipelineBytes,
                                        std::optional<Rank> Only);

} // namespace choreo

#endif
