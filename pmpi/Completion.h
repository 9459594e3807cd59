//===- pmpi/Completion.h - MPI completion rules, any requests -*- C++ -*-===//
///
/// \file
/// MPI_Testall, MPI_Testany and MPI_Testsome as MPI specifies them, built on
/// PMPI_Request_get_status (which completes nothing) and PMPI_Test of one
/// request, for arrays that mix the library's generalized requests,
/// point-to-point requests and MPICH's persistent collective requests.
/// MPICH 4.0.2's own forms fail on the last kind: MPI_Testall returns
/// MPI_ERR_IN_STATUS whenever one of them is complete (its
/// MPIR_Request_get_error has no case for them), and MPI_Testany,
/// MPI_Testsome, Waitany and Waitsome take an inactive one for an active
/// complete request (its MPIR_Request_is_active says 1 for every
/// collective), returning its index for ever.
///
/// Which persistent requests are active is known from MPI_Start and
/// MPI_Startall, which the library intercepts: a request they started is
/// active until a completion call completes it, and every completion call
/// on an array holding such a request (active or not, until it is freed)
/// takes these functions. A persistent request that PMPI_Test completes
/// and that is not active is inactive, and MPI ignores it in these calls.
/// (A persistent collective request of MPICH's that was never started is
/// not known: MPICH's own MPI_Testany would return it.)
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_COMPLETION_H
#define CHOREO_PMPI_COMPLETION_H

#include <mpi.h>

namespace choreo {
namespace pmpi {

/// MPI_Start(all) started MPICH's persistent request R.
void noteStarted(MPI_Request R);
/// R is freed (MPI_Request_free): its handle may come back for another.
void noteFreed(MPI_Request R);
/// Whether one of R[0..N) is a persistent request that MPI_Start(all)
/// started: a completion call on them takes the functions below.
bool anyKnown(int N, const MPI_Request *R);

/// A completion call of MPICH's completed Before (After: its handle now; a
/// persistent request's stays, and is inactive).
void noteCompleted(MPI_Request Before, MPI_Request After);
/// PMPI_Test of one request; a persistent one it completes is inactive.
int testOne(MPI_Request *R, int *Flag, MPI_Status *St);
/// MPI_Testall: flag 0 modifies no request; flag 1 completed every one
/// (statuses of null and inactive ones empty); MPI_ERR_IN_STATUS with each
/// status's MPI_ERROR when a request failed.
int testAll(int N, MPI_Request *R, int *Flag, MPI_Status *Sts);
/// MPI_Testany: the index of one active request it completed; flag 1 and
/// MPI_UNDEFINED when no request is active.
int testAny(int N, MPI_Request *R, int *Index, int *Flag, MPI_Status *St);
/// MPI_Testsome: every active request complete now, once; outcount
/// MPI_UNDEFINED when no request is active.
int testSome(int N, MPI_Request *R, int *OutCount, int *Indices,
             MPI_Status *Sts);

} // namespace pmpi
} // namespace choreo

#endif
