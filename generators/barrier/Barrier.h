//===- generators/barrier/Barrier.h - Barrier algorithms ---------*- C++
//-*-===//
///
/// \file
/// The barriers as step lists over ranks 0..p-1 in the format's layout (an
/// allgather of one byte per rank, "has arrived": byte r is rank r's), each
/// with its rank form, and the schedule every barrier generator builds.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_BARRIER_BARRIER_H
#define CHOREO_GENERATORS_BARRIER_BARRIER_H

#include "generators/Generators.h"

namespace choreo {

/// --radix: the dissemination barrier's k (default 2).
const Option<uint64_t> &barrierRadix();
/// --radix of V, refused below 2 (every round tells k - 1 ranks).
llvm::Expected<uint64_t> readBarrierRadix(const OptionValues &V);
/// The ports of a k-ary dissemination over N ranks: k - 1 messages out and
/// in per rank and round (fewer with few ranks).
Ports disseminationPorts(uint32_t N, uint64_t K);

/// The k-ary dissemination barrier (Hensgen, Finkel and Manber 1988; k = 2
/// is MPICH's MPIR_Barrier_intra_dissemination): in round j, with d = k^j,
/// rank i sends to i + m d (mod p) for m = 1..k-1 with m d < p the ranks it
/// knows of, the d ranks ending at i, cut to the min(d, p - m d) its
/// receiver does not know yet; ceil(log_k p) rounds of up to k - 1
/// messages per rank. With Only, rank Only's ops alone (every round keeps
/// its step).
StepList disseminationBarrier(uint32_t P, uint64_t K,
                              std::optional<Rank> Only = std::nullopt);
/// Its ops: p times the messages per rank.
uint64_t disseminationBarrierOps(uint32_t P, uint64_t K);

/// Recursive doubling with MPICH's non-power-of-two fill-in (as
/// MPIR_Allreduce_intra_recursive_doubling): with p' the largest power of
/// two <= p and r = p - p', the even ranks below 2r first send to the odd
/// rank above them, the p' remaining ranks exchange everything they know
/// with the partner at XOR distance 1, 2, ..., p'/2, and the odd ranks below
/// 2r finally tell the even ones; log2 p' steps, plus two when p is not a
/// power of two.
StepList recursiveDoublingBarrier(uint32_t P,
                                  std::optional<Rank> Only = std::nullopt);

/// The schedule of a barrier over --p ranks: sizes all 1, the given steps
/// (Steps builds the whole or rank Only's ops), after checking the op
/// budget against EstimatedOps.
llvm::Expected<Schedule>
buildBarrier(llvm::StringRef Id, const OptionValues &V,
             std::optional<Rank> Only,
             llvm::function_ref<uint64_t(uint32_t P)> EstimatedOps,
             llvm::function_ref<StepList(uint32_t P)> Steps);

} // namespace choreo

#endif
