//===- generators/blocks/Bcast.cpp - MPICH's broadcasts -------------------===//
///
/// \file
/// The three broadcasts MPICH selects between (binomial, scatter + recursive
/// doubling, scatter + ring), as building blocks over relative ranks.
///
//===----------------------------------------------------------------------===//

#include "generators/Blocks.h"

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

/// MPICH's binomial scatter of Bytes in chunks of ceil(Bytes / N): relative
/// rank r ends with chunk r. Returns the chunk size.
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

StepList choreo::scatterRingBcast(uint32_t N, uint64_t Bytes, uint32_t Root) {
  StepList L;
  if (N < 2 || Bytes == 0)
    return L;
  uint64_t Chunk = appendScatter(L, N, Bytes, Root);
  auto ChunkOf = [&](Rank Actual) {
    uint64_t Rel = (Actual + N - Root) % N;
    llvm::SmallVector<Block, 1> Piece;
    addPiece(Piece, 0, std::min(Bytes, Rel * Chunk),
             std::min(Bytes, (Rel + 1) * Chunk));
    return Piece;
  };
  // Ring over actual ranks: at step s rank i forwards the chunk of rank i - s.
  for (uint32_t S = 0; S + 1 < N; ++S) {
    L.newStep();
    for (uint32_t I = 0; I < N; ++I)
      addOpIfAny(L, I, (I + 1) % N, ChunkOf((I + N - S) % N));
  }
  return L;
}

StepList choreo::scatterRecursiveDoublingBcast(uint32_t N, uint64_t Bytes,
                                               uint32_t Root) {
  StepList L;
  if (N < 2 || Bytes == 0)
    return L;
  uint64_t Chunk = appendScatter(L, N, Bytes, Root);
  for (uint64_t Mask = 1; Mask < N; Mask <<= 1) {
    L.newStep();
    for (uint64_t R = 0; R < N; ++R) {
      uint64_t Partner = R ^ Mask;
      if (Partner >= N)
        continue;
      uint64_t Tree = R & ~(Mask - 1);
      llvm::SmallVector<Block, 1> Piece;
      addPiece(Piece, 0, std::min(Bytes, Tree * Chunk),
               std::min(Bytes, (Tree + Mask) * Chunk));
      addOpIfAny(L, actual(R, Root, N), actual(Partner, Root, N), Piece);
    }
  }
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
    return scatterRecursiveDoublingBcast(N, Bytes, Root);
  case MpichBcast::ScatterRing:
    return scatterRingBcast(N, Bytes, Root);
  }
  return {};
}
