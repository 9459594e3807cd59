//===- pmpi/ScanWrappers.cpp - MPI_Scan and MPI_Exscan --------------------===//
///
/// \file
/// MPI_Scan and MPI_Exscan on intracommunicators, blocking, non-blocking
/// (MPI_Iscan, MPI_Iexscan) and persistent (MPI_Scan_init,
/// MPI_Exscan_init), each with int and MPI_Count counts: calls of
/// collectives `scan` and `exscan` through the reductions' path
/// (pmpi/Calls.h, reduceCall): contiguous datatypes, any operator (a
/// non-commutative one gets a schedule proved in rank order), MPI_IN_PLACE
/// (the input is taken from recvbuf). Exscan's rank 0 receive buffer is
/// left untouched. Intercommunicators (erroneous for these calls) go to
/// MPICH.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Calls.h"

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// MPI_Scan (C = MpiCall::Scan) or MPI_Exscan in form F.
template <class W, class Cnt>
int scan(MpiCall C, const W &F, const void *sendbuf, void *recvbuf, Cnt count,
         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, recvbuf, count, datatype, op, comm);
  };
  if (!intercept())
    return Native();
  return reduceCall(C, sendbuf, recvbuf, count, nullptr, datatype, op, 0, comm,
                    Native,
                    F.launch(sendbuf, recvbuf, count, datatype, op, comm));
}

} // namespace

extern "C" {

#define CHOREO_SCAN_FORMS(Call, Name, Lower)                                   \
  int MPI_##Name(const void *sendbuf, void *recvbuf, int count,                \
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {            \
    return scan(MpiCall::Call, blocking(PMPI_##Name, PMPI_I##Lower), sendbuf,  \
                recvbuf, count, datatype, op, comm);                           \
  }                                                                            \
  int MPI_##Name##_c(const void *sendbuf, void *recvbuf, MPI_Count count,      \
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {        \
    return scan(MpiCall::Call, blocking(PMPI_##Name##_c, PMPI_I##Lower##_c),   \
                sendbuf, recvbuf, count, datatype, op, comm);                  \
  }                                                                            \
  int MPI_I##Lower(const void *sendbuf, void *recvbuf, int count,              \
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,            \
                   MPI_Request *request) {                                     \
    return scan(MpiCall::Call, started(PMPI_I##Lower, request), sendbuf,       \
                recvbuf, count, datatype, op, comm);                           \
  }                                                                            \
  int MPI_I##Lower##_c(const void *sendbuf, void *recvbuf, MPI_Count count,    \
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,        \
                       MPI_Request *request) {                                 \
    return scan(MpiCall::Call, started(PMPI_I##Lower##_c, request), sendbuf,   \
                recvbuf, count, datatype, op, comm);                           \
  }                                                                            \
  int MPI_##Name##_init(const void *sendbuf, void *recvbuf, int count,         \
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,       \
                        MPI_Info info, MPI_Request *request) {                 \
    return scan(MpiCall::Call,                                                 \
                persistent(PMPI_##Name##_init, PMPI_I##Lower, info, request),  \
                sendbuf, recvbuf, count, datatype, op, comm);                  \
  }                                                                            \
  int MPI_##Name##_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, \
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,     \
                          MPI_Info info, MPI_Request *request) {               \
    return scan(                                                               \
        MpiCall::Call,                                                         \
        persistent(PMPI_##Name##_init_c, PMPI_I##Lower##_c, info, request),    \
        sendbuf, recvbuf, count, datatype, op, comm);                          \
  }

CHOREO_SCAN_FORMS(Scan, Scan, scan)
CHOREO_SCAN_FORMS(Exscan, Exscan, exscan)

#undef CHOREO_SCAN_FORMS

} // extern "C"
