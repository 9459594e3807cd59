//===- generators/blocks/Bcast.cpp - MPICH's broadcasts -------------------===//
///
/// \file
/// The broadcasts MPICH selects between (binomial; binomial scatter followed
/// by a ring or recursive-doubling allgather), the scatter followed by
/// Bruck's allgather, and MPICH's size-based choice.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Blocks.h"

using namespace choreo;

namespace {

/// Largest power of two strictly below N (N >= 2), the first mask of
/// MPICH's binomial trees.
uint64_t topMask(uint32_t N) {
  uint64_t M = 1;
  while (M < N)
    M <<= 1;
  return M >> 1;
}

Rank actual(uint64_t Rel, uint32_t Root, uint32_t N) {
  return (Rel + Root) % N;
}

/// Relative rank r -> actual rank (r + Root) mod N.
std::vector<Rank> relativeToActual(uint32_t N, uint32_t Root) {
  std::vector<Rank> Map(N);
  for (uint32_t R = 0; R < N; ++R)
    Map[R] = actual(R, Root, N);
  return Map;
}

/// MPICH's binomial scatter (MPII_Scatter_for_bcast) of Bytes in chunks of
/// ceil(Bytes / N): relative rank r receives [r * Chunk, End) from its
/// parent and forwards the tail to its children. Returns the chunk size.
uint64_t appendScatter(StepList &L, uint32_t N, uint64_t Bytes, uint32_t Root) {
  uint64_t Chunk = (Bytes + N - 1) / N;
  // End of the range each relative rank holds: [r * Chunk, End[r]).
  std::vector<uint64_t> End(N, 0);
  End[0] = Bytes;
  for (uint64_t Mask = topMask(N); Mask > 0; Mask >>= 1) {
    L.newStep();
    for (uint64_t R = 0; R + Mask < N; R += 2 * Mask) {
      uint64_t From = std::min(Bytes, (R + Mask) * Chunk);
      llvm::SmallVector<Block, 1> Piece;
      addPiece(Piece, 0, From, End[R]);
      addOpIfAny(L, actual(R, Root, N), actual(R + Mask, Root, N), Piece);
      if (End[R] > From) {
        End[R + Mask] = End[R];
        End[R] = From;
      }
    }
  }
  return Chunk;
}

} // namespace

StepList choreo::binomialBcast(uint32_t N, uint64_t Bytes, uint32_t Root) {
  StepList L;
  if (N < 2 || Bytes == 0)
    return L;
  for (uint64_t Mask = topMask(N); Mask > 0; Mask >>= 1) {
    L.newStep();
    for (uint64_t R = 0; R + Mask < N; R += 2 * Mask) {
      llvm::SmallVector<Block, 1> Piece;
      addPiece(Piece, 0, 0, Bytes);
      L.addOp(actual(R, Root, N), actual(R + Mask, Root, N), Piece);
    }
  }
  return L;
}

StepList choreo::scatterAllgatherBcast(uint32_t N, uint64_t Bytes,
                                       uint32_t Root,
                                       IntraAlgorithm Allgather) {
  StepList L;
  if (N < 2 || Bytes == 0)
    return L;
  uint64_t Chunk = appendScatter(L, N, Bytes, Root);
  // Chunks lie in relative-rank order, so the allgather runs over relative
  // ranks on buffer 0 as it is and is relabelled onto actual ranks. (For the
  // ring this is MPICH's ring over actual ranks: relative r -> r + 1 is
  // actual r + Root -> r + Root + 1.)
  std::vector<uint64_t> Counts(N);
  for (uint64_t R = 0; R < N; ++R)
    Counts[R] = std::min(Bytes, (R + 1) * Chunk) - std::min(Bytes, R * Chunk);
  L.append(intraAllgatherv(Allgather, Counts)
               .relabeled(relativeToActual(N, Root)));
  return L;
}

MpichBcast choreo::mpichBcastChoice(uint32_t N, uint64_t Bytes) {
  // MPIR_CVAR_BCAST_SHORT_MSG_SIZE, _LONG_MSG_SIZE, _MIN_PROCS.
  constexpr uint64_t Short = 12288, Long = 524288;
  constexpr uint32_t MinProcs = 8;
  if (Bytes < Short || N < MinProcs)
    return MpichBcast::Binomial;
  if (Bytes < Long && isPowerOfTwo(N))
    return MpichBcast::ScatterRecursiveDoubling;
  return MpichBcast::ScatterRing;
}

StepList choreo::mpichBcast(uint32_t N, uint64_t Bytes, uint32_t Root) {
  switch (mpichBcastChoice(N, Bytes)) {
  case MpichBcast::Binomial:
    return binomialBcast(N, Bytes, Root);
  case MpichBcast::ScatterRecursiveDoubling:
    return scatterAllgatherBcast(N, Bytes, Root,
                                 IntraAlgorithm::RecursiveDoubling);
  case MpichBcast::ScatterRing:
    return scatterAllgatherBcast(N, Bytes, Root, IntraAlgorithm::Ring);
  }
  return {};
}
