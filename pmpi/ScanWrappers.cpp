//===- pmpi/ScanWrappers.cpp - MPI_Scan and MPI_Exscan --------------------===//
///
/// \file
/// MPI_Scan and MPI_Exscan on intracommunicators, as calls of collectives
/// `scan` and `exscan` through the reductions' path (pmpi/Calls.h,
/// reduceCall): contiguous datatypes, any operator (a non-commutative one
/// gets a schedule proved in rank order), MPI_IN_PLACE (the input is taken
/// from recvbuf). Exscan's rank 0 receive buffer is left untouched.
/// Intercommunicators (erroneous for these calls) go to MPICH.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Calls.h"
#include "pmpi/Library.h"

using namespace choreo;
using namespace choreo::pmpi;

extern "C" {

int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  auto Native = [&] {
    return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
  };
  if (Guard::active() || !enabled())
    return Native();
  return reduceCall(MpiCall::Scan, sendbuf, recvbuf, count, nullptr, datatype,
                    op, 0, comm, Native, Launch());
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  auto Native = [&] {
    return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
  };
  if (Guard::active() || !enabled())
    return Native();
  return reduceCall(MpiCall::Exscan, sendbuf, recvbuf, count, nullptr, datatype,
                    op, 0, comm, Native, Launch());
}

} // extern "C"
