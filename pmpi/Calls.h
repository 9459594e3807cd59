//===- pmpi/Calls.h - The wrappers' shared call paths -----------*- C++ -*-===//
///
/// \file
/// What the blocking, non-blocking and persistent wrappers of one
/// collective share (pmpi/Wrappers.cpp, pmpi/NonblockingWrappers.cpp): a
/// call's arguments described in bytes and handed to pmpi::run, to run the
/// plan (blocking), start it (MPI_I*: a request the run completes) or find
/// or build it once (MPI_*_init: a persistent request that MPI_Start runs).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_CALLS_H
#define CHOREO_PMPI_CALLS_H

#include "pmpi/Library.h"

#include <functional>
#include <mpi.h>

namespace choreo {
namespace pmpi {

/// MPICH's own call with the wrapper's arguments.
using NativeFn = std::function<int()>;

/// What a wrapper asks of run (Library.h's Mode) and, for a started or
/// persistent call, where its request goes; NativeStart: MPICH's
/// non-blocking call, what a start of a persistent call does when the
/// library hands the call to MPICH after all.
struct Launch {
  Mode Do = Mode::Execute;
  MPI_Request *Out = nullptr;
  std::function<int(MPI_Request *)> NativeStart;
};

/// Allgather and allgatherv, intra and inter (started and persistent:
/// intra only). Counts == null: allgather (RecvCount per member); else
/// allgatherv (Counts, Displs).
int gatherCall(MpiCall C, const void *SendBuf, int SendCount,
               MPI_Datatype SendType, void *RecvBuf, int RecvCount,
               const int *Counts, const int *Displs, MPI_Datatype RecvType,
               MPI_Comm Comm, const NativeFn &Native, const Launch &L);

/// The four reductions on intracommunicators. Counts == null: Count
/// elements; else MPI_Reduce_scatter's recvcounts.
int reduceCall(MpiCall C, const void *SendBuf, void *RecvBuf, int Count,
               const int *Counts, MPI_Datatype Type, MPI_Op Op, int Root,
               MPI_Comm Comm, const NativeFn &Native, const Launch &L);

/// MPI_Bcast on an intracommunicator.
int bcastCall(void *Buffer, int Count, MPI_Datatype Type, int Root,
              MPI_Comm Comm, const NativeFn &Native, const Launch &L);

/// MPI_Bcast, MPI_Reduce and MPI_Allreduce on an intercommunicator
/// (pmpi/InterWrappers.cpp; Root MPI_ROOT, MPI_PROC_NULL or the root's rank
/// in the other group); blocking calls only.
int interBcastCall(void *Buffer, int Count, MPI_Datatype Type, int Root,
                   MPI_Comm Comm, const NativeFn &Native, const Launch &L);
int interReduceCall(MpiCall C, const void *SendBuf, void *RecvBuf,
                    uint64_t Bytes, uint64_t ElemBytes, bool Commutes,
                    MPI_Datatype Type, MPI_Op Op, int Root, MPI_Comm Comm,
                    const NativeFn &Native, const Launch &L);

} // namespace pmpi
} // namespace choreo

#endif
