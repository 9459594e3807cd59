//===- pmpi/BarrierWrapper.cpp - MPI_Barrier for libchoreo-mpi.so ---------===//
///
/// \file
/// MPI_Barrier, MPI_Ibarrier and MPI_Barrier_init on an intracommunicator:
/// a call of collective `barrier`, one byte of "has arrived" per rank in the
/// schedule's layout, whose plan sends its messages with no payload and has
/// no buffers (ir/CollectiveSpec.h, NoPayload); run, started or prepared as
/// the form says (pmpi/Calls.h). On an intercommunicator (MPI-4 6.3: a rank
/// leaves once every rank of the other group arrived) a call of
/// `inter_barrier` over the merged ranks, the low group A first; groups
/// the library cannot place in MPI_COMM_WORLD go to PMPI_*.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Calls.h"

#include "executor/Agree.h"

using namespace choreo;
using namespace choreo::pmpi;

namespace {

template <class W> int barrier(const W &F, MPI_Comm comm) {
  auto Native = [&] { return F.native(comm); };
  if (!intercept() || comm == MPI_COMM_NULL)
    return Native();
  bool Inter = commIsInter(comm);
  int N = commSize(comm);
  if (!Inter) {
    // Handed to MPICH before: found without allocating (the same
    // arguments as below; no thread calls here beside another: enabled).
    static MpiArgs Which;
    Which.Call = MpiCall::Barrier;
    Which.SizesA.assign(size_t(N), 1);
    if (handedOver(comm, Which))
      return Native();
  }
  Request R;
  R.Args.Call = MpiCall::Barrier;
  R.Args.SizesA.assign(N, 1);
  if (Inter) {
    std::optional<bool> Low = inLowGroup(comm);
    if (!Low) {
      noteNative(comm, bindingOf(MpiCall::Barrier).MpiName,
                 "intercommunicator groups outside MPI_COMM_WORLD");
      return Native();
    }
    int Remote = 0;
    PMPI_Comm_remote_size(comm, &Remote);
    R.Args.Inter = true;
    R.Args.SizesA.assign(*Low ? N : Remote, 1);
    R.Args.SizesB.assign(*Low ? Remote : N, 1);
  }
  Guard G;
  return runOrNative(comm, R, Native, F.launch(comm));
}

} // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  return barrier(blocking(PMPI_Barrier, PMPI_Ibarrier), comm);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  return barrier(started(PMPI_Ibarrier, request), comm);
}

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return barrier(persistent(PMPI_Barrier_init, PMPI_Ibarrier, info, request),
                 comm);
}

} // extern "C"
