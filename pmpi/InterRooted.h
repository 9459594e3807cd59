//===- pmpi/InterRooted.h - Intercommunicator gather and scatter -*- C++
//-*-===//
///
/// \file
/// MPI_Gather(v) and MPI_Scatter(v) on an intercommunicator (MPI-4 6.5,
/// 6.6), served as inter_gather and inter_scatter over the merged ranks (the
/// low group A first): the root passes MPI_ROOT, the rest of its group
/// MPI_PROC_NULL, the other group the root's rank in the root's group.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_INTERROOTED_H
#define CHOREO_PMPI_INTERROOTED_H

#include "pmpi/Calls.h"

namespace choreo {
namespace pmpi {

/// One side of a rooted call: a buffer, Count elements of Type or (the v
/// forms, at the root) Counts at Displs.
struct RootedSide {
  const void *Buf;
  int64_t Count;
  CountArray Counts, Displs;
  MPI_Datatype Type;
};

/// A gather (C MPI_Gather or MPI_Gatherv: Own the send side, RootSide the
/// receive side) or a scatter (MPI_Scatter(v): RootSide the send side, Own
/// the receive side) on the intercommunicator Comm. Every rank learns the
/// root and every member's bytes from one MPI_MAX allreduce over choreo's
/// private communicator before the call is bound; a root whose counts are
/// not what the members pass fails the call on every rank. Buffers whose
/// type map is not in order, or a root's displacements other than member
/// order, go through packed copies.
int interRootedCall(MpiCall C, RootedSide Own, RootedSide RootSide, int Root,
                    MPI_Comm Comm, const NativeFn &Native, const Launch &L);

} // namespace pmpi
} // namespace choreo

#endif
