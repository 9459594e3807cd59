//===- harness/Reductions.h - Reduction data for choreo-run ----*- C++ -*-===//
///
/// \file
/// The operators choreo-run runs reductions with (--op): integer sums
/// (exact), double sums (compared within a relative tolerance, since
/// choreo and MPICH combine in different orders), MPI_MAXLOC on
/// MPI_DOUBLE_INT (exact: ties go to the lower rank either way), and a
/// user-defined non-commutative operator, the product of 2x2 integer
/// matrices (modulo 2^32, so associative and exact: choreo must match the
/// rank-ordered product, and MPICH, bit for bit). Each rank's input
/// elements depend on the rank and the element index; the expected result
/// is the rank-ordered fold.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_HARNESS_REDUCTIONS_H
#define CHOREO_HARNESS_REDUCTIONS_H

#include "ir/Collective.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <mpi.h>
#include <optional>
#include <string>

namespace choreo::harness {

enum class ReduceData { SumInt, SumDouble, MaxlocDoubleInt, Matmul2x2 };

/// "sum-int", "sum-double", "maxloc-double-int", "matmul-2x2".
llvm::StringRef reduceDataName(ReduceData D);
std::optional<ReduceData> parseReduceData(llvm::StringRef Name);

/// Relative tolerance of the double sums: |got - want| <= Tol * |want|.
constexpr double SumDoubleTolerance = 1e-12;

struct ReduceElements {
  MPI_Datatype Type;
  MPI_Op Op;
  /// The element's extent: what a schedule's blocks must be multiples of
  /// (MPI_DOUBLE_INT: 16, its 12 bytes padded).
  unsigned Bytes;
  /// "4-byte ints (MPI_INT, MPI_SUM)".
  const char *What;
};
/// The datatype and operator (created on first use; MPI must be
/// initialized).
ReduceElements reduceElements(ReduceData D);

/// Frees the user-defined datatype and operator, if created (before
/// MPI_Finalize).
void freeReduceElements();

/// Rank R's input elements FirstElem.. into Out (a whole number of
/// elements).
void fillReduceInput(ReduceData D, Rank R, uint64_t FirstElem,
                     llvm::MutableArrayRef<char> Out);

/// The first element of Got (elements FirstElem.. of the result over
/// ranks From..To-1: every rank, a scan's prefix, an intercommunicator's
/// other group) that is not the rank-ordered fold, as a message naming
/// rank Me and the element; nullopt when all are right.
std::optional<std::string> checkReduceResult(ReduceData D, Rank From, Rank To,
                                             uint64_t FirstElem,
                                             llvm::ArrayRef<char> Got, Rank Me);

/// Whether equal results must be equal bytes (everything but double sums),
/// so choreo's result is compared with MPICH's bit for bit.
bool reduceIsExact(ReduceData D);
/// Whether the bytes at Offset of an element are data (not padding).
bool reduceByteIsData(ReduceData D, uint64_t Offset);

} // namespace choreo::harness

#endif
