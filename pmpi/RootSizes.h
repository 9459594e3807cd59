//===- pmpi/RootSizes.h - The v forms' sizes, known at the root -*- C++ -*-===//
///
/// \file
/// MPI_Gatherv and MPI_Scatterv give every member's count to the root only,
/// and each member its own: before the call's header can be made, every
/// rank tells every other its bytes, and the root a digest of the counts it
/// was given, so that every rank knows all sizes alike and every rank
/// finds a root whose counts do not match what the members pass.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_ROOTSIZES_H
#define CHOREO_PMPI_ROOTSIZES_H

#include "pmpi/Library.h"

#include <string>

namespace choreo {
namespace pmpi {

/// Collective over Priv, the private communicator of the call's group (rank
/// r is the call's rank r): one allgather of two words per rank. Sets
/// R.Args.SizesA to every member's bytes, R.LocalBytes each, on every rank;
/// returns "" or, on every rank alike, why the root's counts are not the
/// members' (naming the call and the first member that differs).
std::string exchangeRootSizes(MPI_Comm Priv, Request &R);

/// The exchange's parts, for a started call that posts it without waiting
/// (pmpi/StartedCounts.h): what rank Me says (two words), and, from every
/// rank's two words All, every member's bytes (Sizes) or, alike on every
/// rank, why the root's counts are not the members'.
void rootSizesSaid(const Request &R, int Me, uint64_t Mine[2]);
std::string rootSizesHeard(const MpiArgs &A, llvm::ArrayRef<uint64_t> All,
                           std::vector<uint64_t> &Sizes);

} // namespace pmpi
} // namespace choreo

#endif
