//===- trace/preload/Calls.h - What the traced call wrappers share -*- C++
//-*-===//
///
/// \file
/// The pieces every PMPI wrapper of a traced collective uses (Calls.cpp,
/// ExchangeCalls.cpp): whether this call is the one to trace, the
/// implementation to run (CHOREO_TRACE_IMPL or MPICH), the record's header
/// lines, and `traced`, which runs the call once on content-tagged buffers
/// inside the recording window and once on the program's own.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_PRELOAD_CALLS_H
#define CHOREO_TRACE_PRELOAD_CALLS_H

#include "trace/Encoding.h"
#include "trace/preload/Recorder.h"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace choreo::trace {

/// Set while a traced call runs (its own MPI calls pass straight through).
bool &insideTracedCall();
/// Whether this call of Coll (CHOREO_TRACE_CALL's name) is the one to
/// trace (its CHOREO_TRACE_INDEX-th).
bool traceThis(const char *Coll);
/// The user's implementation named by CHOREO_TRACE_IMPL, or null (MPICH);
/// Name says which.
void *implSymbol(std::string &Name);
int worldRank();
/// The header lines every record starts with: the call, its communicator's
/// members as world ranks, and the implementation.
std::string callHeader(const char *Coll, MPI_Comm Comm, int Root,
                       const std::string &Impl);
/// "sizes ..." and "unit U" lines.
std::string sizesLine(const std::vector<uint64_t> &Sizes, unsigned Unit);
uint64_t typeBytes(MPI_Datatype T, MPI_Aint Count);

/// Runs one traced call: Body (the call on tagged buffers, which records
/// its result) with the recording on, then Plain (the program's own call)
/// with it off; each starts after a barrier and is timed. Writes the record
/// with Header and the two times; returns Plain's result.
template <typename F, typename G>
int traced(const std::string &Header, MPI_Comm Comm, F Body, G Plain) {
  insideTracedCall() = true;
  PMPI_Barrier(Comm);
  double T0 = PMPI_Wtime();
  openWindow();
  Body();
  stopRecording();
  double T1 = PMPI_Wtime();
  PMPI_Barrier(Comm);
  double T2 = PMPI_Wtime();
  int Rc = Plain();
  double T3 = PMPI_Wtime();
  char Timing[96];
  snprintf(Timing, sizeof Timing, "timing %.9f %.9f\n", T1 - T0, T3 - T2);
  writeRecord(Header + Timing, worldRank());
  insideTracedCall() = false;
  return Rc;
}

} // namespace choreo::trace

#endif
