//===- pmpi/NonblockingWrappers.cpp - MPI_I* and MPI_*_init ---------------===//
///
/// \file
/// The non-blocking and persistent forms of MPI_Allgather, MPI_Allgatherv,
/// MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter and
/// MPI_Reduce_scatter_block on intracommunicators: the blocking wrappers'
/// call paths (pmpi/Calls.h) with a Launch that starts the plan (MPI_I*:
/// the request is a generalized request the run completes, pmpi/Progress.h)
/// or only finds or builds it (MPI_*_init: a persistent request that
/// MPI_Start runs). The first call of a shape builds and proves its plan
/// collectively inside the call, as the blocking call does. What the
/// library does not run goes to MPICH's own call unchanged
/// (intercommunicators, `_c` large counts).
///
//===----------------------------------------------------------------------===//

#include "pmpi/Calls.h"

using namespace choreo;
using namespace choreo::pmpi;

namespace {

bool intercept() { return !Guard::active() && enabled(); }

Launch started(MPI_Request *R) { return {Mode::Start, R, nullptr}; }

Launch persistent(MPI_Request *R, std::function<int(MPI_Request *)> NB) {
  return {Mode::Prepare, R, std::move(NB)};
}

} // namespace

extern "C" {

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, comm, request);
  };
  if (!intercept())
    return Native();
  return gatherCall(MpiCall::Allgather, sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, nullptr, nullptr, recvtype, comm, Native,
                    started(request));
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                            displs, recvtype, comm, request);
  };
  if (!intercept() || !recvcounts || !displs)
    return Native();
  return gatherCall(MpiCall::Allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                    0, recvcounts, displs, recvtype, comm, Native,
                    started(request));
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm, MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  };
  if (!intercept() || comm == MPI_COMM_NULL)
    return Native();
  return bcastCall(buffer, count, datatype, root, comm, Native,
                   started(request));
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm,
                        request);
  };
  if (!intercept())
    return Native();
  return reduceCall(MpiCall::Reduce, sendbuf, recvbuf, count, nullptr, datatype,
                    op, root, comm, Native, started(request));
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm,
                           request);
  };
  if (!intercept())
    return Native();
  return reduceCall(MpiCall::Allreduce, sendbuf, recvbuf, count, nullptr,
                    datatype, op, 0, comm, Native, started(request));
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                comm, request);
  };
  if (!intercept() || !recvcounts)
    return Native();
  return reduceCall(MpiCall::ReduceScatter, sendbuf, recvbuf, 0, recvcounts,
                    datatype, op, 0, comm, Native, started(request));
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                      comm, request);
  };
  if (!intercept())
    return Native();
  return reduceCall(MpiCall::ReduceScatterBlock, sendbuf, recvbuf, recvcount,
                    nullptr, datatype, op, 0, comm, Native, started(request));
}

int MPI_Allgather_init(const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, comm, info, request);
  };
  if (!intercept())
    return Native();
  auto NB = [=](MPI_Request *R) {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, comm, R);
  };
  return gatherCall(MpiCall::Allgather, sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, nullptr, nullptr, recvtype, comm, Native,
                    persistent(request, NB));
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf,
                                recvcounts, displs, recvtype, comm, info,
                                request);
  };
  if (!intercept() || !recvcounts || !displs)
    return Native();
  auto NB = [=](MPI_Request *R) {
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                            displs, recvtype, comm, R);
  };
  return gatherCall(MpiCall::Allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                    0, recvcounts, displs, recvtype, comm, Native,
                    persistent(request, NB));
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Bcast_init(buffer, count, datatype, root, comm, info, request);
  };
  if (!intercept() || comm == MPI_COMM_NULL)
    return Native();
  auto NB = [=](MPI_Request *R) {
    return PMPI_Ibcast(buffer, count, datatype, root, comm, R);
  };
  return bcastCall(buffer, count, datatype, root, comm, Native,
                   persistent(request, NB));
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm,
                            info, request);
  };
  if (!intercept())
    return Native();
  auto NB = [=](MPI_Request *R) {
    return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, R);
  };
  return reduceCall(MpiCall::Reduce, sendbuf, recvbuf, count, nullptr, datatype,
                    op, root, comm, Native, persistent(request, NB));
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm,
                               info, request);
  };
  if (!intercept())
    return Native();
  auto NB = [=](MPI_Request *R) {
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, R);
  };
  return reduceCall(MpiCall::Allreduce, sendbuf, recvbuf, count, nullptr,
                    datatype, op, 0, comm, Native, persistent(request, NB));
}

int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                            const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op,
                                    comm, info, request);
  };
  if (!intercept() || !recvcounts)
    return Native();
  auto NB = [=](MPI_Request *R) {
    return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                comm, R);
  };
  return reduceCall(MpiCall::ReduceScatter, sendbuf, recvbuf, 0, recvcounts,
                    datatype, op, 0, comm, Native, persistent(request, NB));
}

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf,
                                  int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request) {
  auto Native = [&] {
    return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype,
                                          op, comm, info, request);
  };
  if (!intercept())
    return Native();
  auto NB = [=](MPI_Request *R) {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                      comm, R);
  };
  return reduceCall(MpiCall::ReduceScatterBlock, sendbuf, recvbuf, recvcount,
                    nullptr, datatype, op, 0, comm, Native,
                    persistent(request, NB));
}

} // extern "C"
