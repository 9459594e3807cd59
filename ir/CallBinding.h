//===- ir/CallBinding.h - MPI's collective calls and call headers -*- C++
//-*-===//
///
/// \file
/// The MPI binding's half without MPI, in one table keyed by the spec's
/// MpiCall (ir/CollectiveSpec.h). A row says the call's names (`allgather`
/// in CHOREO_ALLGATHER and the selection rules, `MPI_Allgather` in
/// messages) and the collective it asks for on an intracommunicator and on
/// an intercommunicator.
///
/// An MPI call's arguments, in bytes (MpiArgs), become a BoundCall: the
/// call header (ir/CallHeader.h) every rank computes alike plus what a
/// header does not hold: the element size, which changes how a generator
/// cuts blocks but not what is proved (blocks are byte ranges; a plan
/// checks them against the datatype's extent when it is bound), and
/// MPI_IN_PLACE, a rank's own business. The drop-in library keys its plans
/// by it and asks headerMismatch whether a built schedule's header is the
/// call's. Nothing here needs MPI, so the selection and its fuzz target
/// build without it; MPICH's own calls for a header are
/// executor/MpiBinding.h.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_CALLBINDING_H
#define CHOREO_IR_CALLBINDING_H

#include "ir/CallHeader.h"
#include "ir/CollectiveSpec.h"
#include "ir/Digest.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace choreo {

struct RankSizes; // ir/PairMatrix.h

/// One row of the binding.
struct MpiBinding {
  MpiCall Call;
  /// "allgather", "reduce_scatter_block": CHOREO_<NAME> and the selection
  /// rules' `collective=`.
  const char *Name;
  /// "MPI_Allgather".
  const char *MpiName;
  /// The collective the call asks for on an intracommunicator.
  Collective Intra;
  /// The collective it asks for on an intercommunicator, if choreo has one.
  std::optional<Collective> Inter;
  const CollectiveSpec &spec() const { return specOf(Intra); }
};

const MpiBinding &bindingOf(MpiCall C);
/// Every row, in MpiCall order.
llvm::ArrayRef<MpiBinding> allBindings();

/// What an MPI collective call's arguments say alike on every rank (MPI
/// requires it), in bytes (counts times the datatype's size or extent).
struct MpiArgs {
  MpiCall Call = MpiCall::Allgather;
  bool Inter = false;
  /// Gather-type calls: every member's bytes, of the communicator's group
  /// or of group A (the low group) and, on an intercommunicator, of group B.
  /// MPI_Reduce_scatter(_block): every rank's slice. MPI_Alltoall(v): the
  /// Ranks x Ranks matrix, row-major, of the bytes rank i sends rank j, or
  /// empty for every block Bytes (sizes.block, MPI_Alltoall's one count);
  /// on an intercommunicator the matrix over the p + q ranks (A first,
  /// blocks within a group zero) or, for MPI_Alltoall, two entries: the
  /// bytes of a block from A to B and back (sizes.block [a, b]); and
  /// SizesB q entries (B's size).
  /// MPI_Barrier: one 1 per member.
  std::vector<uint64_t> SizesA, SizesB;
  /// MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Alltoall(v): the
  /// communicator's size; the vector's bytes (MPI_Alltoall: a block's).
  Rank Ranks = 0;
  uint64_t Bytes = 0;
  /// Rooted calls.
  Rank Root = 0;
  /// Reductions: whether the operator commutes, the datatype's extent.
  bool Commutative = true;
  uint64_t ElemBytes = 0;
  /// This rank passed MPI_IN_PLACE.
  bool InPlace = false;
  /// MPI_Alltoallv from the ranks' rows and columns (docs/format.md, "An
  /// alltoallv rank's row and column"): this rank's part of the matrix
  /// instead of SizesA (its row, column, where its column's blocks start,
  /// where its row starts, the length of buffer all, the used offsets),
  /// and the job's key of the whole matrix, alike on every rank (the sum
  /// over the ranks of each one's digest of its rank, row and column).
  std::shared_ptr<const RankSizes> Part;
  Digest128 MatrixKey;
};

/// An MPI call bound to its header: the plan cache's key and what a
/// generator is asked to build.
struct BoundCall {
  MpiCall Call = MpiCall::Allgather;
  CallHeader Header;
  /// Reductions: bytes per element (blocks never split one).
  uint64_t ElemBytes = 0;
  /// Not part of the key: MPI_IN_PLACE on this rank.
  bool InPlace = false;
  /// A header with this rank's own row and column (MpiArgs::Part): the
  /// job's key of the matrix, which the key takes instead of the rank's
  /// own entries (so that every rank's key is the same).
  Digest128 MatrixKey;

  const MpiBinding &binding() const { return bindingOf(Call); }
  llvm::StringRef name() const { return binding().Name; }
  llvm::StringRef mpiName() const { return binding().MpiName; }
  bool inter() const { return specOf(Header.Kind).Intergroup; }
  bool commutative() const { return Header.commutative(); }
  /// The size of the communicator's group (intercommunicator: of A).
  Rank commSize() const;
  /// Intercommunicator: the size of B.
  Rank remoteSize() const;
  /// Every rank's bytes as the call gives them: the members' contributions
  /// (A's, then B's), every rank's slice, an alltoall's rows (what each
  /// rank sends), or the vector length followed by a zero for every other
  /// rank.
  std::vector<uint64_t> memberBytes() const;
  uint64_t totalBytes() const;
  /// The total over the ranks; an alltoall's over its ranks x ranks
  /// blocks (MPICH's avg_msg_size, the bytes per destination).
  uint64_t averageBytes() const;
  /// The cache key: the call, the header's digest, the element size (a
  /// header with this rank's own row and column: the header without them
  /// and MatrixKey).
  Digest128 key() const;
  /// For messages: "MPI_Allgatherv (intercommunicator 3 + 4, 112 bytes in
  /// all)".
  std::string describe() const;
};

/// The call's header, laid out as the library runs it (intra: group `all`
/// is 0..n-1; inter: A = 0..p-1, B = p..p+q-1 with the members' sizes). An
/// error for a call choreo has no collective for (an intercommunicator's
/// MPI_Reduce_scatter).
llvm::Expected<BoundCall> bindCall(MpiArgs A);

/// "MPI_Allgather (communicator of 3, 24 bytes in all)" for a header alone,
/// its collective's MPI call named.
std::string describeHeader(const CallHeader &H);

/// Whether a schedule with header Built serves the call whose header is
/// Call: empty when every field the call fixes is Call's (the collective,
/// up to allgather and allgatherv, which differ only in whether the
/// members' sizes are alike; the ranks; the groups; the sizes; the root; a
/// non-commutative operator), else the first field that differs, in words.
/// The machine model (topology, ports, nodes) is the schedule's own.
std::string headerMismatch(const CallHeader &Call, const CallHeader &Built);

/// The MPI call that runs H natively: its collective's, except that
/// MPI_Allgather takes one count per group, so members of different sizes
/// take MPI_Allgatherv, that gathers and scatters whose members' sizes
/// are alike take MPI_Gather and MPI_Scatter (which MPICH runs by other
/// algorithms than the v forms), and MPI_Alltoall one count, so an alltoall
/// whose diagonal differs takes MPI_Alltoallv. It depends on the header
/// only, so every rank makes the same call.
MpiCall nativeCall(const CallHeader &H);

} // namespace choreo

#endif
