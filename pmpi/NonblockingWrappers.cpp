//===- pmpi/NonblockingWrappers.cpp - MPI_I* and MPI_*_init ---------------===//
///
/// \file
/// The non-blocking and persistent forms of MPI_Allgather, MPI_Allgatherv,
/// MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter and
/// MPI_Reduce_scatter_block on intracommunicators, each with int and with
/// MPI_Count (`_c`) counts: the blocking wrappers' call paths
/// (pmpi/Calls.h) in a form that starts the plan (MPI_I*: the request is a
/// generalized request the run completes, pmpi/Progress.h) or only finds
/// or builds it (MPI_*_init: a persistent request that MPI_Start runs).
/// The first call of a shape builds and proves its plan collectively
/// inside the call, as the blocking call does. On an intercommunicator,
/// MPI_Iallgather, MPI_Iallgatherv, MPI_Ibcast, MPI_Ireduce,
/// MPI_Iallreduce and their _init forms are served (the broadcast and
/// reductions by pmpi/InterWrappers.cpp); what the library does not run
/// goes to MPICH's own call of the same form unchanged (intercommunicator
/// MPI_Ireduce_scatter(_block)).
///
//===----------------------------------------------------------------------===//

#include "pmpi/Calls.h"

using namespace choreo;
using namespace choreo::pmpi;

extern "C" {

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request) {
  return allgather(started(PMPI_Iallgather, request), sendbuf, sendcount,
                   sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request) {
  return allgather(started(PMPI_Iallgather_c, request), sendbuf, sendcount,
                   sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgather_init(const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request) {
  return allgather(
      persistent(PMPI_Allgather_init, PMPI_Iallgather, info, request), sendbuf,
      sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return allgather(
      persistent(PMPI_Allgather_init_c, PMPI_Iallgather_c, info, request),
      sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request) {
  return allgatherv(started(PMPI_Iallgatherv, request), sendbuf, sendcount,
                    sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request) {
  return allgatherv(started(PMPI_Iallgatherv_c, request), sendbuf, sendcount,
                    sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request) {
  return allgatherv(
      persistent(PMPI_Allgatherv_init, PMPI_Iallgatherv, info, request),
      sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
      comm);
}

int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request) {
  return allgatherv(
      persistent(PMPI_Allgatherv_init_c, PMPI_Iallgatherv_c, info, request),
      sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
      comm);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm, MPI_Request *request) {
  return bcast(started(PMPI_Ibcast, request), buffer, count, datatype, root,
               comm);
}

int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, MPI_Request *request) {
  return bcast(started(PMPI_Ibcast_c, request), buffer, count, datatype, root,
               comm);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return bcast(persistent(PMPI_Bcast_init, PMPI_Ibcast, info, request), buffer,
               count, datatype, root, comm);
}

int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
                     int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request) {
  return bcast(persistent(PMPI_Bcast_init_c, PMPI_Ibcast_c, info, request),
               buffer, count, datatype, root, comm);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *request) {
  return reduce(started(PMPI_Ireduce, request), sendbuf, recvbuf, count,
                datatype, op, root, comm);
}

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                  MPI_Request *request) {
  return reduce(started(PMPI_Ireduce_c, request), sendbuf, recvbuf, count,
                datatype, op, root, comm);
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request) {
  return reduce(persistent(PMPI_Reduce_init, PMPI_Ireduce, info, request),
                sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request) {
  return reduce(persistent(PMPI_Reduce_init_c, PMPI_Ireduce_c, info, request),
                sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
  return allreduce(started(PMPI_Iallreduce, request), sendbuf, recvbuf, count,
                   datatype, op, comm);
}

int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Request *request) {
  return allreduce(started(PMPI_Iallreduce_c, request), sendbuf, recvbuf, count,
                   datatype, op, comm);
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request) {
  return allreduce(
      persistent(PMPI_Allreduce_init, PMPI_Iallreduce, info, request), sendbuf,
      recvbuf, count, datatype, op, comm);
}

int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request) {
  return allreduce(
      persistent(PMPI_Allreduce_init_c, PMPI_Iallreduce_c, info, request),
      sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  return reduceScatter(started(PMPI_Ireduce_scatter, request), sendbuf, recvbuf,
                       recvcounts, datatype, op, comm);
}

int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf,
                          const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  return reduceScatter(started(PMPI_Ireduce_scatter_c, request), sendbuf,
                       recvbuf, recvcounts, datatype, op, comm);
}

int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                            const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request) {
  return reduceScatter(
      persistent(PMPI_Reduce_scatter_init, PMPI_Ireduce_scatter, info, request),
      sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf,
                              const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Info info, MPI_Request *request) {
  return reduceScatter(persistent(PMPI_Reduce_scatter_init_c,
                                  PMPI_Ireduce_scatter_c, info, request),
                       sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request) {
  return reduceScatterBlock(started(PMPI_Ireduce_scatter_block, request),
                            sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm,
                                MPI_Request *request) {
  return reduceScatterBlock(started(PMPI_Ireduce_scatter_block_c, request),
                            sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf,
                                  int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request) {
  return reduceScatterBlock(persistent(PMPI_Reduce_scatter_block_init,
                                       PMPI_Ireduce_scatter_block, info,
                                       request),
                            sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf,
                                    MPI_Count recvcount, MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request) {
  return reduceScatterBlock(persistent(PMPI_Reduce_scatter_block_init_c,
                                       PMPI_Ireduce_scatter_block_c, info,
                                       request),
                            sendbuf, recvbuf, recvcount, datatype, op, comm);
}

} // extern "C"
