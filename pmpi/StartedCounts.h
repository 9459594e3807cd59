//===- pmpi/StartedCounts.h - Started v forms, counts in the run -*- C++ -*-===//
///
/// \file
/// MPI_Igatherv, MPI_Iscatterv and MPI_Ialltoallv on an intracommunicator
/// or an intercommunicator: only the root knows every member's count (an
/// alltoallv's matrix no rank; on an intercommunicator the ranks passing
/// MPI_PROC_NULL do not even know the root),
/// so the call's header (and so its schedule) is known to no rank at the
/// start. The start does not wait for the other ranks: it posts the
/// exchange of the counts as the run's first step (a non-blocking allgather
/// on the private communicator: two words a rank for the rooted calls, as
/// the blocking call's, pmpi/RootSizes.h; an alltoallv's row and the digest
/// of its column, p + 2 words a rank; on an intercommunicator a gatherv's or
/// scatterv's root and counts, 1 + 2(p + q) words combined by MPI_MAX, as
/// the blocking call's), and returns. When the
/// exchange has completed (a progress of the run, pmpi/Progress.h), every
/// rank knows the same header, and every rank makes the same plan without
/// a message: the algorithm the ranks agreed on the communicator's first
/// such call (a generator named, or auto: the cheapest under the cost model
/// over whole schedules, chooseByModel; where the margin would hand the
/// call to MPICH, which the started call no longer can, the model of
/// MPICH's algorithm, `gather-mpich` or `scatter-mpich`), its whole
/// schedule built and proved with the explicit engine on every rank
/// (O(p) ops for gather and scatter, O(p^2) at most for alltoallv, whose
/// started form the library serves up to 256 ranks), kept per private
/// communicator by the
/// header's key so that a shape that comes again only binds and starts.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_STARTEDCOUNTS_H
#define CHOREO_PMPI_STARTEDCOUNTS_H

#include "pmpi/Library.h"
#include "pmpi/PrivateComm.h"
#include "pmpi/Selection.h"

#include <string>
#include <vector>

namespace choreo {
namespace pmpi {

/// Starts R (Mode::Start; R.RootSizes with the root's R.Args.SizesA and
/// every rank's R.LocalBytes, or R.Said and R.Heard) on Priv in run slot Slot with choice Ch (Algorithm
/// or Auto, agreed by every rank), NodeOf the job's nodes as known when the
/// call was made. CommName names the user communicator in messages. The
/// return code of the start (a generalized request in *R.Out); errors found
/// once the counts arrived complete the request with them.
int startWithCounts(PrivateComm *Priv, MPI_Comm User, std::string CommName,
                    uint32_t Slot, const Choice &Ch,
                    std::vector<uint32_t> NodeOf, Request &R);

} // namespace pmpi
} // namespace choreo

#endif
