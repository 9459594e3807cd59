//===- executor/RankPlan.h - One rank's part of a schedule ------*- C++ -*-===//
///
/// \file
/// A RankPlan is what one process does to run a schedule: for each step it
/// takes part in, the receives and sends to post, each as pieces of memory
/// regions (the user's send and receive buffers, a scratch area for data the
/// rank only relays, a sink for data it must receive but already holds or
/// must combine), and the local work after the step (copies out of the sink,
/// reductions). Compiling it scans the schedule once and keeps only this
/// rank's ops. No MPI here: the plan is bound to buffers and run by Plan.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_RANKPLAN_H
#define CHOREO_EXECUTOR_RANKPLAN_H

#include "executor/ScratchAlloc.h"
#include "ir/Schedule.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace choreo {

enum class Region : uint8_t {
  Send,    ///< the user's send buffer (own contribution only)
  Recv,    ///< the user's receive buffer (the collective's result)
  Scratch, ///< choreo's: a logical buffer the rank relays but does not keep
  Sink,    ///< choreo's: receipts to copy or combine after their step
  Pack,    ///< choreo's: a step's lattice sends packed before posting
};

struct MemPiece {
  Region R;
  uint64_t Offset, Len;
};

/// Local work after a step (or before the first): copy From to To, or, with
/// Combine, reduce From into To: To = From op To (MPI_Reduce_local(From,
/// To)) when the received partial From covers the lower ranks, and with
/// FromIsRight To = To op From (MPI_Reduce_local(To, From), then From copied
/// to To), so that the lower rank interval is always the left operand.
struct LocalAction {
  MemPiece From, To;
  bool Combine = false;
  bool FromIsRight = false;
};

/// A strided piece of a lattice message (docs/executor.md, "Lattice
/// pieces"): Rows x Cols elements of Elem bytes, element (r, c) at Offset
/// + r RowStride + c ColStride of region R, and at byte At + r AtRow + c
/// AtCol of the message (which carries its lattices' elements row by row).
/// Strides may be negative (a Bruck sender's rows run against its
/// relay area's).
struct LatticePiece {
  Region R;
  uint64_t Offset;
  int64_t RowStride, ColStride;
  uint64_t At, AtRow, AtCol;
  uint32_t Rows, Cols;
  uint64_t Elem;
  uint64_t bytes() const { return uint64_t(Rows) * Cols * Elem; }
};

/// Copies piece X between its region's memory, whose base is Mem, and the
/// message at Msg: ToMessage, memory into the message (a send's packing),
/// else the message into memory (a receive's unpacking).
void copyLatticePiece(const LatticePiece &X, char *Mem, char *Msg,
                      bool ToMessage);

struct Transfer {
  Rank Peer;
  std::vector<MemPiece> Pieces;
  uint64_t Bytes = 0;
  /// A message of lattices (Pieces empty): its bytes as strided pieces,
  /// O(the schedule's lattice pieces), not one per element.
  std::vector<LatticePiece> Lattice;
};

struct RankPlanStep {
  uint32_t Step; ///< the schedule's step index (message tags derive from it)
  std::vector<Transfer> Recvs, Sends;
  std::vector<LocalAction> After;
};

struct RankPlan {
  Rank Me = 0;
  Collective Kind = Collective::Allgather;
  std::vector<RankPlanStep> Steps;
  /// Before the first step: own contribution into place.
  std::vector<LocalAction> Prologue;
  /// After the last step: reduction results out of the working buffer.
  std::vector<LocalAction> Epilogue;
  uint64_t ScratchBytes = 0, SinkBytes = 0;
  /// An alltoall's scratch for relayed blocks, area by area: each placed by
  /// its first and last step (executor/ScratchAlloc.h), so that areas live
  /// at different times share bytes.
  std::vector<ScratchArea> ScratchAreas;
  /// What the user's buffers must hold at least, in bytes, and what for.
  uint64_t SendBytes = 0, RecvBytes = 0;
  std::string SendWhat, RecvWhat;
  /// The logical buffer the receive buffer holds (empty: none).
  std::string ResultBuffer;
  /// Reductions: every block boundary, to check against the element size.
  std::vector<uint64_t> ReductionOffsets;
  /// Reductions: the first combination of this rank that does not join
  /// adjacent rank intervals (so no operand order keeps rank order), in
  /// words; empty when every combination keeps rank order. A
  /// non-commutative MPI_Op cannot run such a plan.
  std::string UnorderedCombine;

  size_t numTransfers() const;
  /// Memory pieces and lattice pieces of its transfers and local work:
  /// what its size grows with.
  size_t numPieces() const;
  /// The bytes the plan itself takes (its vectors' capacities).
  size_t memoryBytes() const;
};

/// How the result buffer is laid out in the user's receive buffer.
struct RecvLayout {
  /// Byte displacement of each member's contribution of the result group
  /// (MPI_Allgatherv's displs, in bytes); empty: contiguous in member order.
  /// An alltoall: MPI_Alltoallv's rdispls, where block (i, Me) goes.
  std::vector<uint64_t> Displs;
  /// An alltoall: MPI_Alltoallv's sdispls in bytes, where block (Me, j) of
  /// the send buffer is; empty: its row packed in rank order.
  std::vector<uint64_t> SendDispls;
};

/// Compiles rank Me's part: one pass over the schedule. The schedule must be
/// structurally valid (and should be proved).
llvm::Expected<RankPlan> compileRankPlan(const Schedule &S, Rank Me,
                                         const RecvLayout &Layout = {});
/// A scan's or exscan's (compileRankPlan's for them): one working vector
/// per accumulator (executor/ScanPlan.cpp).
RankPlan compileScanPlan(const Schedule &S, Rank Me);

} // namespace choreo

#endif
