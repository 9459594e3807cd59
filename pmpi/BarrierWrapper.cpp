//===- pmpi/BarrierWrapper.cpp - MPI_Barrier for libchoreo-mpi.so ---------===//
///
/// \file
/// MPI_Barrier on an intracommunicator: a call of collective `barrier`, one
/// byte of "has arrived" per rank in the schedule's layout, whose plan sends
/// its messages with no payload and has no buffers (ir/CollectiveSpec.h,
/// NoPayload). Intercommunicators go to PMPI_Barrier.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Library.h"

using namespace choreo;
using namespace choreo::pmpi;

extern "C" int MPI_Barrier(MPI_Comm comm) {
  if (Guard::active() || !enabled() || comm == MPI_COMM_NULL)
    return PMPI_Barrier(comm);
  int Inter = 0, N = 0;
  PMPI_Comm_test_inter(comm, &Inter);
  if (Inter) {
    noteNative(comm, bindingOf(MpiCall::Barrier).MpiName,
               "an intercommunicator (no generator)");
    return PMPI_Barrier(comm);
  }
  PMPI_Comm_size(comm, &N);
  Guard G;
  Request R;
  R.Args.Call = MpiCall::Barrier;
  R.Args.SizesA.assign(N, 1);
  int Rc = MPI_SUCCESS;
  switch (run(comm, R, Rc)) {
  case Outcome::Ran:
  case Outcome::Failed:
    return Rc;
  case Outcome::Native:
    break;
  }
  return PMPI_Barrier(comm);
}
