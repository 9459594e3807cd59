//===- executor/AlltoallLayout.h - An alltoall in user buffers -*- C++ -*-===//
///
/// \file
/// Where one rank's bytes of an alltoall's buffer `all` live while its plan
/// runs (executor/RankPlan.h): block (Me, j) of its row in the send buffer
/// at MPI's sdispls[j] (packed in rank order without them), block (i, Me) of
/// its column in the receive buffer at rdispls[i] (the diagonal block (Me,
/// Me) there too: the prologue copies it over), and every other block it
/// relays (Bruck's store-and-forward) packed in scratch. An alltoall of
/// lattice blocks (docs/format.md) is laid out by rectangles instead
/// (layOutAlltoallRects): O(the rectangles a rank receives), not O(p).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_ALLTOALLLAYOUT_H
#define CHOREO_EXECUTOR_ALLTOALLLAYOUT_H

#include "executor/RankPlan.h"
#include "executor/ScratchAlloc.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace choreo {

/// Logical bytes [Lo, Hi) of a buffer at Offset of region R.
struct LaidPiece {
  uint64_t Lo, Hi;
  Region R;
  uint64_t Offset;
};

struct AlltoallLayout {
  /// Where every byte the rank holds or touches lives during the run,
  /// sorted by Lo and disjoint.
  std::vector<LaidPiece> Work;
  /// The relayed bytes' scratch areas (executor/ScratchAlloc.h): runs of
  /// bytes first received and last sent in the same steps.
  std::vector<ScratchArea> Areas;
  /// The rank's row where the user gave it: the send buffer.
  std::vector<LaidPiece> Input;
  /// Scratch bytes used from the base given; what the send and receive
  /// buffers must hold (the largest displacement plus its block).
  uint64_t ScratchBytes = 0, SendExtent = 0, RecvExtent = 0;
};

/// Bytes [Lo, Hi) of buffer `all` sent or received by a rank in a step.
struct RangeUse {
  uint64_t Lo, Hi;
  uint32_t Step;
};

/// The layout of rank Me of the alltoall H, whose ops touch Touched of
/// buffer `all` (in the steps Uses say: each relayed run of bytes takes
/// scratch from its first receipt to its last send, reused after, by
/// allocateScratch); scratch starts at ScratchBase. SendDispls and
/// RecvDispls are MPI_Alltoallv's sdispls and rdispls in bytes (one per
/// rank), or empty: blocks packed in rank order. An error when a list has
/// not one entry per rank.
llvm::Expected<AlltoallLayout>
layOutAlltoall(const CallHeader &H, Rank Me, const IntervalSet &Touched,
               llvm::ArrayRef<RangeUse> Uses,
               llvm::ArrayRef<uint64_t> SendDispls,
               llvm::ArrayRef<uint64_t> RecvDispls, uint64_t ScratchBase);

/// A rectangle of an alltoall's blocks (a lattice block of a uniform
/// matrix, docs/format.md "Lattice blocks"): blocks (I, J) for I in [I0,
/// I0 + Rows) and J = J0 + c Q, c < Cols, all below p (no wrap). One column:
/// Q is 0.
struct BlockRect {
  uint64_t I0 = 0, J0 = 0, Q = 0;
  uint32_t Rows = 0, Cols = 0;
  uint64_t count() const { return uint64_t(Rows) * Cols; }
  bool operator==(const BlockRect &O) const = default;
};

/// The rectangle lattice X of buffer `all` names when every block is S
/// bytes and there are P ranks: its elements whole blocks, its rows
/// consecutive sources, its columns one arithmetic run of destinations
/// within a row; std::nullopt when it is not one.
std::optional<BlockRect> blockRect(const Lattice &X, uint64_t S, uint64_t P);

/// The blocks two rectangles share, as a rectangle (Rows 0: none).
BlockRect intersectRects(const BlockRect &A, const BlockRect &B);

/// Where a rectangle of blocks lives: block (I0 + r, J0 + c Q) at Offset +
/// r RowStride + c ColStride of region R.
struct LaidRect {
  BlockRect X;
  Region R;
  uint64_t Offset;
  int64_t RowStride, ColStride;
};

/// An alltoall of S-byte blocks without displacements whose rank Me sends
/// and receives rectangles (lattice blocks) only: its row (but the diagonal
/// block) in the send buffer, its column in the receive buffer, and every
/// other block it receives in scratch, an area per rectangle received (its
/// blocks row by row), or, when the rectangles it sends cut the received
/// one into parts exactly, an area per part, so that each part's bytes are
/// free once it is sent and scratch is reused by liveness
/// (executor/ScratchAlloc.h); each rectangle a message carries is a few
/// strided pieces of these (docs/executor.md, "Lattice pieces"). O(the
/// rectangles received and sent), never O(p) pieces.
struct RectLayout {
  std::vector<LaidRect> Work;
  std::vector<ScratchArea> Areas;
  uint64_t ScratchBytes = 0;
};

/// A rectangle a rank receives or sends in a step.
struct StepRect {
  BlockRect X;
  uint32_t Step = 0;
};

/// The layout, or std::nullopt when Received (the rectangles rank Me
/// receives) overlap each other or Me's row: a schedule the executor then
/// runs as byte ranges. Sent: the rectangles it sends (what frees scratch).
std::optional<RectLayout> layOutAlltoallRects(uint64_t P, uint64_t S, Rank Me,
                                              llvm::ArrayRef<StepRect> Received,
                                              llvm::ArrayRef<StepRect> Sent,
                                              uint64_t ScratchBase);

/// The strided pieces of rectangle Y in layout L, in Y's message (its
/// blocks row by row from byte At): appended to Out; false when a block of
/// Y is nowhere in L.
bool rectPieces(const RectLayout &L, const BlockRect &Y, uint64_t S,
                uint64_t At, std::vector<LatticePiece> &Out);

} // namespace choreo

#endif
