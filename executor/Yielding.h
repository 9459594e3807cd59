//===- executor/Yielding.h - Collectives that wait yielding -----*- C++ -*-===//
///
/// \file
/// The runtime's own collectives (agreement, the proof in a job, the
/// library's private communicators) started non-blocking and waited on
/// with PMPI_Test and sched_yield(). MPICH's blocking collectives
/// busy-poll: with more ranks than cores a spinning rank takes the core of
/// the rank it waits for, and one small allreduce cost 0.3 to 1 s with 64
/// ranks on 2 cores (docs/pmpi.md, "First call at p = 64"). Yielding costs
/// one system call per poll when a core is free. The PMPI_ entry points are
/// called, so that the drop-in library's wrappers never see these.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_YIELDING_H
#define CHOREO_EXECUTOR_YIELDING_H

#include <mpi.h>

#include <string>

namespace choreo::yielding {

/// Waits for R: PMPI_Test, then the idle function and sched_yield() until
/// it completes.
int wait(MPI_Request &R, MPI_Status *St = MPI_STATUS_IGNORE);

/// What wait() calls between tests (null: nothing): the drop-in library
/// progresses its outstanding non-blocking collectives there, so that a
/// first call's agreement never starves a run a peer waits for.
void setIdle(void (*Fn)());

int allreduce(const void *In, void *Out, int N, MPI_Datatype T, MPI_Op Op,
              MPI_Comm C);
int bcast(void *Buf, int N, MPI_Datatype T, int Root, MPI_Comm C);
int gather(const void *In, int N, MPI_Datatype T, void *Out, int M,
           MPI_Datatype U, int Root, MPI_Comm C);
int gatherv(const void *In, int N, MPI_Datatype T, void *Out, const int *Counts,
            const int *Displs, MPI_Datatype U, int Root, MPI_Comm C);
int allgather(const void *In, int N, MPI_Datatype T, void *Out, int M,
              MPI_Datatype U, MPI_Comm C);
int reduceScatterBlock(const void *In, void *Out, int N, MPI_Datatype T,
                       MPI_Op Op, MPI_Comm C);
int barrier(MPI_Comm C);

/// Rank Root's Text on every rank of C (its length, then its bytes).
std::string bcastText(std::string Text, int Root, MPI_Comm C);

} // namespace choreo::yielding

#endif
