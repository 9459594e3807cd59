//===- executor/MpiBinding.h - MPICH's own call for a header ----*- C++ -*-===//
///
/// \file
/// The MPI binding's half with MPI (the other half, an MPI call's
/// arguments -> its header, is ir/CallBinding.h): a header and a rank's
/// buffers become MPICH's own call, for choreo-run's --check and --native
/// and for the drop-in library's calls that go native.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_MPIBINDING_H
#define CHOREO_EXECUTOR_MPIBINDING_H

#include "executor/Plan.h"
#include "ir/CallBinding.h"

#include "llvm/Support/Error.h"

#include <mpi.h>
#include <string>

namespace choreo {

/// MPICH's own collective for H, on Comm (an intercommunicator of A and B
/// for an intergroup collective, else an intracommunicator whose rank r is
/// schedule rank r) with schedule rank Me's buffers laid out as
/// UserBuffers says (reductions: counts are bytes over the extent of
/// B.ReduceType); blocking, or non-blocking when Req is given (the caller
/// waits for it).
llvm::Error callNative(const CallHeader &H, MPI_Comm Comm, Rank Me,
                       const UserBuffers &B, MPI_Request *Req = nullptr);

/// What a row's Native is given (MpiBinding.cpp).
struct NativeArgs {
  const CallHeader &H;
  MPI_Comm Comm;
  Rank Me;
  const UserBuffers &B;
  MPI_Request *Req;
  /// The first count that does not fit an int, as the message.
  std::string TooLarge;

  /// V as an MPI count; records TooLarge ("WHAT exceeds INT_MAX bytes").
  int count(uint64_t V, const char *What);
};

} // namespace choreo

#endif
