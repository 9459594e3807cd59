//===- pmpi/Progress.h - Outstanding runs and their requests ----*- C++ -*-===//
///
/// \file
/// The non-blocking and persistent collectives the library serves: every
/// started run (a plan's run, executor/Plan.h) is outstanding here until
/// it completes, and the application holds a real MPI request for it, an
/// MPICH extended generalized request (MPIX_Grequest_start) that the run
/// completes. progressAll() advances every outstanding run without
/// blocking, in start order; it runs from the requests' poll function
/// (MPICH calls it when MPI_Test*/Wait* look at the request) and from
/// every wrapper of pmpi/ProgressWrappers.cpp (completion calls, blocking
/// point-to-point and probe calls) and pmpi::run (served collectives).
///
/// A persistent collective's request (MPI_Allreduce_init, ...) is an
/// inactive persistent receive that is never started (from MPI_ANY_SOURCE:
/// not MPI_PROC_NULL, which MPICH 4.0.2's MPI_Start would remember in the
/// request's object for the next request made in it), so that the application
/// holds a real persistent request; MPI_Start starts a run with a
/// generalized request of its own, which the completion wrappers use in
/// the persistent request's place while it is active.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_PROGRESS_H
#define CHOREO_PMPI_PROGRESS_H

#include "pmpi/Library.h"
#include "pmpi/PrivateComm.h"

#include <functional>
#include <memory>
#include <mpi.h>
#include <string>

namespace choreo {
namespace pmpi {

/// Registers P's run in slot Slot (on Priv, for User's call What) and
/// makes the generalized request *R.Out that completes with it; the return
/// code. The run starts at once (Plan::start) unless an outstanding run on
/// Priv holds the slot: then it is queued, and progressAll starts it when
/// every such run completed on this rank (pmpi/Library.cpp, nextSlot).
int startedRun(std::shared_ptr<Plan> P, PrivateComm *Priv, MPI_Comm User,
               std::string What, const Request &R, uint32_t Slot);

/// Whether a run outstanding (or queued) on Priv holds slot Slot: its
/// messages' tags (Plan::tagBase).
bool slotHeld(PrivateComm *Priv, uint32_t Slot);
/// Whether P's run is queued (registered, not started): P is taken.
bool planQueued(const Plan *P);

/// A started run whose plan is known only once an exchange it began
/// completes (a started v form's counts, pmpi/StartedCounts.h). Called by
/// the progress without blocking: null while the exchange is in flight,
/// then the plan, already started in the run's slot; an error when the run
/// cannot go on (alike on every rank: no message of a plan was sent).
using PendingPlan = std::function<llvm::Expected<std::shared_ptr<Plan>>()>;

/// startedRun for a run whose plan Poll gives once it is known (Poll
/// starts it); it holds slot Slot until it completes (none: -1).
int startedPending(PendingPlan Poll, PrivateComm *Priv, MPI_Comm User,
                   std::string What, const Request &R, int64_t Slot = -1);

/// Advances every outstanding run (local, never blocks) and completes the
/// requests of those that finished; a failed run's error is reported on
/// stderr and returned by the completion call.
void progressAll();

/// Progresses until no run is outstanding (MPI_Finalize: runs whose
/// requests the application freed before they completed).
void drainRuns();

/// Before a blocking collective handed to MPICH's blocking call (which
/// advances only MPICH's own requests): progresses until no run of this
/// rank is outstanding. A peer that waits for one of them before it enters
/// the same call would otherwise wait for ever; every rank makes the same
/// blocking call (MPI never matches it with a non-blocking one), and a run
/// started before it on every rank completes without this rank's later
/// calls. Not when a run started after the peer's blocking call on another
/// communicator (docs/pmpi.md, "Limits").
void finishRunsBeforeBlocking();

/// Whether a run is outstanding or a persistent request active: when not,
/// the completion and point-to-point wrappers call PMPI_* directly.
bool busy();

/// A persistent collective's state: its call (what MPI_Start runs) and,
/// while active, the request of the current run.
struct Persistent {
  MPI_Comm Comm = MPI_COMM_NULL;
  Request Call;
  /// MPICH's non-blocking call, for a start that the library hands to
  /// MPICH (the plan was evicted and rebuilding it chose MPICH's).
  std::function<int(MPI_Request *)> Native;
  MPI_Request Current = MPI_REQUEST_NULL;
};

/// After MPI_*_init found or built the call's plan: makes the persistent
/// request *Out for Call on Comm.
int makePersistent(MPI_Comm Comm, Request Call,
                   std::function<int(MPI_Request *)> Native, MPI_Request *Out);
/// The library's persistent request H, or null.
Persistent *persistentOf(MPI_Request H);
/// The active persistent request H's current request, or null.
Persistent *activePersistent(MPI_Request H);
/// MPI_Start of the library's persistent request.
int startPersistent(Persistent &P);
/// MPI_Request_free of it (an active one's run completes on its own).
int freePersistent(MPI_Request *H);
/// Whether R is the request of a run the library started (not completed),
/// and the communicator of its call.
bool isRunRequest(MPI_Request R, MPI_Comm &User);

/// Whether a run is outstanding or a persistent request of the library's
/// exists: its plan, packed copies and unpacking may use the application's
/// datatypes and operators later, by their handles.
bool holdsHandles();
/// MPI_Type_free and MPI_Op_free of the application while holdsHandles():
/// the handle is freed once nothing is held (MPI lets a pending operation
/// or a persistent request go on with a freed datatype or operator; the
/// library's runs use the handle itself). At the latest in drainRuns.
void deferTypeFree(MPI_Datatype T);
void deferOpFree(MPI_Op Op);

} // namespace pmpi
} // namespace choreo

#endif
