//===- pmpi/Datatypes.h - A rank's type map and the packed bytes -*- C++
//-*-===//
///
/// \file
/// A schedule moves byte ranges of the packed representation of a call's
/// data: the bytes of its elements in type-map order, as MPI_Pack lays them
/// out. MPI lets every rank describe its buffer with its own datatype (only
/// the type signatures must match: an hindexed type whose first int sits at
/// offset 4 and second at 0 on one rank, 2 x MPI_INT on another), so each
/// rank decides alone how its buffers map to the packed bytes: directly,
/// when its type map is its bytes [0, size) in order (typeInOrder), or
/// through a packed copy (PackedCopy) that MPI_Pack fills before the plan
/// runs and MPI_Unpack empties after it.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_DATATYPES_H
#define CHOREO_PMPI_DATATYPES_H

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace choreo {
namespace pmpi {

/// What the wrappers ask of a named (predefined) type, kept after the
/// first call that names it: a named type's handle never names another
/// type, so a hand-over of MPI_INT or MPI_BYTE asks MPI nothing about it.
struct NamedType {
  MPI_Datatype T;
  int Size = 0;
  MPI_Aint Lb = 0, Extent = 0;
  /// Lower bound 0, extent and true extent its size.
  bool Contiguous = false;
};

/// T's facts when T is a named type, else null (a derived type: callers
/// ask MPI). Remembers a few types, named or not, in a small table.
const NamedType *namedType(MPI_Datatype T);

/// Whether Count elements of T occupy bytes [0, Count * size) of their
/// buffer in type-map order (no lower bound, no holes, no reordering),
/// and T's size. Decided by the type's envelope for named types, else by
/// packing one element of numbered bytes; cached on T (an MPI attribute,
/// freed with the type). False for a type MPI cannot describe.
bool typeInOrder(MPI_Datatype T, int &Size);

/// The type's extent (0 when MPI cannot tell).
MPI_Aint typeExtent(MPI_Datatype T);

/// Packed copies of a rank's buffers: Count elements of T at Buf become
/// Count * size bytes at Dst (pack) and back (unpack).
/// Count may exceed INT_MAX (the `_c` calls): packed in pieces.
bool packInto(const void *Buf, int64_t Count, MPI_Datatype T, char *Dst,
              uint64_t Bytes);
bool unpackFrom(const char *Src, uint64_t Bytes, void *Buf, int64_t Count,
                MPI_Datatype T);

/// Why MPI_Reduce_local refuses Op on T (MPICH's words: a predefined
/// operator on a datatype MPI does not define it for, such as MPI_SUM on a
/// contiguous type of two ints), or "" when it takes them. Checked on one
/// zeroed element, for predefined operators only (a user's function is
/// never called, and MPI_Reduce_local passes any datatype to it).
std::string reductionUndefined(MPI_Datatype T, MPI_Op Op);

} // namespace pmpi
} // namespace choreo

#endif
