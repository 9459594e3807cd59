//===- executor/AlltoallLayout.h - An alltoall in user buffers -*- C++ -*-===//
///
/// \file
/// Where one rank's bytes of an alltoall's buffer `all` live while its plan
/// runs (executor/RankPlan.h): block (Me, j) of its row in the send buffer
/// at MPI's sdispls[j] (packed in rank order without them), block (i, Me) of
/// its column in the receive buffer at rdispls[i] (the diagonal block (Me,
/// Me) there too: the prologue copies it over), and every other block it
/// relays (Bruck's store-and-forward) packed in scratch.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_ALLTOALLLAYOUT_H
#define CHOREO_EXECUTOR_ALLTOALLLAYOUT_H

#include "executor/RankPlan.h"

#include "llvm/Support/Error.h"

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
  /// The rank's row where the user gave it: the send buffer.
  std::vector<LaidPiece> Input;
  /// Scratch bytes used from the base given; what the send and receive
  /// buffers must hold (the largest displacement plus its block).
  uint64_t ScratchBytes = 0, SendExtent = 0, RecvExtent = 0;
};

/// The layout of rank Me of the alltoall H, whose ops touch Touched of
/// buffer `all`; scratch starts at ScratchBase. SendDispls and RecvDispls
/// are MPI_Alltoallv's sdispls and rdispls in bytes (one per rank), or
/// empty: blocks packed in rank order. An error when a list has not one
/// entry per rank.
llvm::Expected<AlltoallLayout>
layOutAlltoall(const CallHeader &H, Rank Me, const IntervalSet &Touched,
               llvm::ArrayRef<uint64_t> SendDispls,
               llvm::ArrayRef<uint64_t> RecvDispls, uint64_t ScratchBase);

} // namespace choreo

#endif
