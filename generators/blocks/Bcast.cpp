//===- generators/blocks/Bcast.cpp - MPICH's broadcasts -------------------===//
///
/// \file
/// The broadcasts MPICH selects between (binomial; binomial scatter followed
/// by a ring or recursive-doubling allgather), the scatter followed by
/// Bruck's allgather, and MPICH's size-based choice.
///
//===----------------------------------------------------------------------===//

#include "generators/SizeChecks.h"
#include "generators/blocks/Blocks.h"

#include "llvm/ADT/STLFunctionalExtras.h"

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
/// (Chunk starts are clipped to Bytes without overflow: near 2^64 bytes
/// r * Chunk passes 2^64.)
uint64_t appendScatter(StepList &L, uint32_t N, uint64_t Bytes, uint32_t Root) {
  uint64_t Chunk = ceilDiv(Bytes, N);
  // End of the range each relative rank holds: [r * Chunk, End[r]).
  std::vector<uint64_t> End(N, 0);
  End[0] = Bytes;
  for (uint64_t Mask = topMask(N); Mask > 0; Mask >>= 1) {
    L.newStep();
    for (uint64_t R = 0; R + Mask < N; R += 2 * Mask) {
      uint64_t From = clippedStart(R + Mask, Chunk, Bytes);
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

StepList choreo::bcastScatter(uint32_t N, uint64_t Bytes, uint32_t Root) {
  StepList L;
  if (N < 2 || Bytes == 0)
    return L;
  appendScatter(L, N, Bytes, Root);
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
    Counts[R] =
        clippedStart(R + 1, Chunk, Bytes) - clippedStart(R, Chunk, Bytes);
  L.append(intraAllgatherv(Allgather, Counts)
               .relabeled(relativeToActual(N, Root)));
  return L;
}

MpichBcast choreo::mpichBcastChoice(uint32_t N, uint64_t Bytes) {
  // MPICH 4.0.2's bounds are inclusive, as its own MPI_Bcast shows under
  // choreo trace (docs/trace.md): 12288 B is binomial (p = 8 and 13), and
  // 524288 B at p = 8 scatter + recursive doubling.
  constexpr uint64_t Short = 12288, Long = 524288;
  constexpr uint32_t MinProcs = 8;
  if (Bytes <= Short || N < MinProcs)
    return MpichBcast::Binomial;
  if (Bytes <= Long && isPowerOfTwo(N))
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

StepList choreo::flatBcast(uint32_t N, uint64_t Bytes, uint32_t Root) {
  StepList L;
  if (N < 2 || Bytes == 0)
    return L;
  llvm::SmallVector<Block, 1> Piece;
  addPiece(Piece, 0, 0, Bytes);
  for (uint64_t R = 1; R < N; ++R) {
    L.newStep();
    L.addOp(Root, actual(R, Root, N), Piece);
  }
  return L;
}

StepList choreo::pipelineBcast(uint32_t N, llvm::ArrayRef<uint64_t> Cuts,
                               uint32_t Root) {
  StepList L;
  if (N < 2 || Cuts.size() < 2 || Cuts.back() == 0)
    return L;
  uint64_t X = Cuts.size() - 1;
  L.reserve(X * (N - 1), X * (N - 1));
  for (uint64_t T = 0; T + 2 < X + N; ++T) {
    L.newStep();
    // Relative rank J sends segment T - J; J <= T and T - J < X.
    uint64_t First = T >= X ? T - X + 1 : 0;
    uint64_t Last = std::min<uint64_t>(T, N - 2);
    for (uint64_t J = First; J <= Last; ++J) {
      llvm::SmallVector<Block, 1> Piece;
      addPiece(Piece, 0, Cuts[T - J], Cuts[T - J + 1]);
      addOpIfAny(L, actual(J, Root, N), actual(J + 1, Root, N), Piece);
    }
  }
  return L;
}

namespace {

/// One op of a tree broadcast, placed at a step.
struct TreeOp {
  unsigned Step;
  uint64_t Src, Dst; // shifted ranks
  uint64_t Lo, Hi;
};

/// Open MPI's fanout-2 tree over shifted ranks 0..N-1 (root 0): the
/// children of r, r + 2^l and r + 2^(l+1) with l = floor(log2(r + 1)), the
/// ones below N.
llvm::SmallVector<uint64_t, 2> binaryChildren(uint64_t R, uint32_t N) {
  uint64_t Delta = 1;
  while (2 * Delta <= R + 1)
    Delta *= 2;
  llvm::SmallVector<uint64_t, 2> C;
  for (uint64_t I = 1; I <= 2 && R + I * Delta < N; ++I)
    C.push_back(R + I * Delta);
  return C;
}

/// The ops of a binary-tree broadcast in which rank r forwards
/// [Lo(r), Hi(r)) to its children one step after another (the root's
/// child i at step i), as TreeOps over shifted ranks.
std::vector<TreeOp>
binaryTreeOps(uint32_t N, llvm::function_ref<std::pair<uint64_t, uint64_t>(
                              uint64_t Parent, uint64_t Child)>
                              Range) {
  std::vector<TreeOp> Ops;
  // Received[r]: the step r received in; the root "received" before step 0.
  std::vector<int64_t> Received(N, -1);
  // Parents come before children (a child is larger than its parent).
  for (uint64_t R = 0; R < N; ++R) {
    auto C = binaryChildren(R, N);
    for (unsigned I = 0; I < C.size(); ++I) {
      unsigned Step = unsigned(Received[R] + 1 + I);
      Received[C[I]] = Step;
      auto [Lo, Hi] = Range(R, C[I]);
      Ops.push_back({Step, R, C[I], Lo, Hi});
    }
  }
  return Ops;
}

/// Places tree ops (shifted ranks) into L, opening steps from L's end.
void appendTreeOps(StepList &L, std::vector<TreeOp> Ops, uint32_t N,
                   uint32_t Root) {
  std::stable_sort(Ops.begin(), Ops.end(),
                   [](const TreeOp &A, const TreeOp &B) {
                     return A.Step < B.Step;
                   });
  unsigned Steps = Ops.empty() ? 0 : Ops.back().Step + 1;
  size_t I = 0;
  for (unsigned S = 0; S < Steps; ++S) {
    L.newStep();
    for (; I < Ops.size() && Ops[I].Step == S; ++I) {
      llvm::SmallVector<Block, 1> Piece;
      addPiece(Piece, 0, Ops[I].Lo, Ops[I].Hi);
      addOpIfAny(L, actual(Ops[I].Src, Root, N), actual(Ops[I].Dst, Root, N),
                 Piece);
    }
  }
}

} // namespace

StepList choreo::binaryBcast(uint32_t N, uint64_t Bytes, uint32_t Root) {
  StepList L;
  if (N < 2 || Bytes == 0)
    return L;
  appendTreeOps(L,
                binaryTreeOps(N,
                              [&](uint64_t, uint64_t) {
                                return std::pair<uint64_t, uint64_t>(0, Bytes);
                              }),
                N, Root);
  return L;
}

StepList choreo::splitBinaryBcast(uint32_t N, uint64_t Bytes, uint32_t Root) {
  StepList L;
  if (N < 2 || Bytes == 0)
    return L;
  uint64_t Half = ceilDiv(Bytes, 2); // counts[0]; counts[1] = Bytes - Half
  if (Bytes - Half == 0) {
    // Open MPI falls back to the chain when a half is empty.
    uint64_t Cuts[] = {0, Bytes};
    return pipelineBcast(N, Cuts, Root);
  }
  // Left subtree (odd shifted ranks) gets [0, Half), right [Half, Bytes).
  auto HalfOf = [&](uint64_t R) {
    return R % 2 == 1 ? std::pair<uint64_t, uint64_t>(0, Half)
                      : std::pair<uint64_t, uint64_t>(Half, Bytes);
  };
  appendTreeOps(
      L, binaryTreeOps(N, [&](uint64_t, uint64_t Child) { return HalfOf(Child); }),
      N, Root);
  // The exchange: odd r with r + 1; for even N the last (odd) shifted rank
  // gets the second half from the root.
  L.newStep();
  for (uint64_t R = 1; R < N; R += 2) {
    if (R + 1 < N) {
      llvm::SmallVector<Block, 1> A, B;
      addPiece(A, 0, 0, Half);
      addPiece(B, 0, Half, Bytes);
      L.addOp(actual(R, Root, N), actual(R + 1, Root, N), A);
      L.addOp(actual(R + 1, Root, N), actual(R, Root, N), B);
    } else {
      llvm::SmallVector<Block, 1> B;
      addPiece(B, 0, Half, Bytes);
      L.addOp(Root, actual(R, Root, N), B);
    }
  }
  return L;
}

StepList choreo::scatterRecursiveDoublingBcast(uint32_t N, uint64_t Bytes,
                                               uint32_t Root) {
  StepList L;
  if (N < 2 || Bytes == 0)
    return L;
  const uint64_t S = appendScatter(L, N, Bytes, Root);
  // MPICH's curr_size and recv_size per relative rank: rank r holds
  // [tree_root(r) * S, tree_root(r) * S + Curr[r]).
  std::vector<uint64_t> Curr(N), RecvSize(N, 0);
  for (uint64_t R = 0; R < N; ++R)
    Curr[R] = clippedStart(R + 1, S, Bytes) - clippedStart(R, S, Bytes);
  // [Lo, Lo + Size) clipped to the vector; Lo comes as a chunk index
  // (tree roots count in chunks of S bytes).
  auto Range = [&](uint64_t Chunk, uint64_t Size) {
    llvm::SmallVector<Block, 1> Piece;
    uint64_t Lo = clippedStart(Chunk, S, Bytes);
    addPiece(Piece, 0, Lo, Lo + std::min(Size, Bytes - Lo));
    return Piece;
  };
  std::vector<uint64_t> Got(N);
  unsigned I = 0;
  for (uint64_t Mask = 1; Mask < N; Mask <<= 1, ++I) {
    L.newStep();
    std::fill(Got.begin(), Got.end(), UINT64_MAX);
    for (uint64_t R = 0; R < N; ++R) {
      uint64_t Dst = R ^ Mask;
      if (Dst >= N)
        continue;
      uint64_t MyRoot = R >> I << I;
      auto Piece = Range(MyRoot, Curr[R]);
      addOpIfAny(L, actual(R, Root, N), actual(Dst, Root, N), Piece);
      Got[Dst] = Piece.empty() ? 0 : Piece[0].size();
    }
    bool FillIn = false;
    for (uint64_t R = 0; R < N; ++R) {
      if (Got[R] != UINT64_MAX) {
        Curr[R] += Got[R];
        RecvSize[R] = Got[R];
      }
      uint64_t DstRoot = (R ^ Mask) >> I << I;
      FillIn |= DstRoot + Mask > N;
    }
    if (!FillIn)
      continue;
    // The haves of a subtree whose partner subtree is incomplete send the
    // partner's data to the have-nots by recursive halving.
    int K = int(I) - 1;
    for (uint64_t Tmp = Mask >> 1; Tmp > 0; Tmp >>= 1, --K) {
      L.newStep();
      std::fill(Got.begin(), Got.end(), UINT64_MAX);
      for (uint64_t R = 0; R < N; ++R) {
        uint64_t DstRoot = (R ^ Mask) >> I << I;
        if (DstRoot + Mask <= N)
          continue;
        uint64_t MyRoot = R >> I << I;
        int64_t Completed = int64_t(N) - int64_t(MyRoot) - int64_t(Mask);
        uint64_t Dst = R ^ Tmp;
        int64_t TreeRoot = int64_t(R >> K << K);
        if (Dst > R && int64_t(R) < TreeRoot + Completed &&
            int64_t(Dst) >= TreeRoot + Completed) {
          auto Piece = Range(MyRoot + Mask, RecvSize[R]);
          addOpIfAny(L, actual(R, Root, N), actual(Dst, Root, N), Piece);
          Got[Dst] = Piece.empty() ? 0 : Piece[0].size();
        }
      }
      for (uint64_t R = 0; R < N; ++R)
        if (Got[R] != UINT64_MAX) {
          Curr[R] += Got[R];
          RecvSize[R] = Got[R];
        }
    }
  }
  return L;
}
