//===- pmpi/Config.h - The library's environment variables ------*- C++ -*-===//
///
/// \file
/// The drop-in library's configuration, read from the environment once
/// (CHOREO_VERBOSE, CHOREO_FALLBACK, CHOREO_CHECK, CHOREO_PLANS_PER_COMM,
/// CHOREO_CACHE_DIR, CHOREO_DEFAULT, CHOREO_MACHINE, CHOREO_ALPHA/BETA/GAMMA,
/// CHOREO_SELECTION, CHOREO_NODES, CHOREO_NATIVE_WAIT; docs/pmpi.md). A bad
/// value is kept as an error that every intercepted call reports.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_CONFIG_H
#define CHOREO_PMPI_CONFIG_H

#include "executor/Pipeline.h"
#include "pmpi/Nodes.h"
#include "pmpi/Selection.h"

#include <mpi.h>

#include <cstddef>
#include <string>

namespace choreo {
namespace pmpi {

enum class Fallback { Error, Print, Silent };

/// CHOREO_NATIVE_WAIT: how a blocking call the library hands to MPICH
/// waits. Yield: MPICH's non-blocking form of the call, waited on with
/// PMPI_Test, the library's progress and sched_yield() (executor/
/// Yielding.h); Block: MPICH's blocking call, which busy-polls; Auto: Yield
/// when this node runs more ranks (MPI_LOCALNRANKS, Open MPI's
/// OMPI_COMM_WORLD_LOCAL_SIZE) than this process may use CPUs.
enum class NativeWait { Auto, Yield, Block };

struct Config {
  bool Loaded = false;
  int Verbose = 0;
  Fallback OnFallback = Fallback::Print;
  bool CheckAlways = false;
  size_t MaxPlans = 16;
  /// CHOREO_CACHE_DIR and the digests proved in this process (any
  /// communicator; the prover of a communicator asks).
  VerdictCache Verdicts;
  SelectionConfig Sel;
  /// CHOREO_NODES: how auto learns the compute nodes (pmpi/Nodes.h).
  NodesSource Nodes;
  NativeWait Wait = NativeWait::Auto;
  /// The executor's flow control for messages of at least this many bytes
  /// (CHOREO_FLOW_CONTROL, else CHOREO_MACHINE's flow_control_bytes; 0:
  /// off); agreed per private communicator (PrivateComm::FlowControl).
  uint64_t FlowControl = 0;
  /// Whether handed-over blocking calls on an intracommunicator wait
  /// yielding (Wait decided), and why, for CHOREO_VERBOSE.
  bool NativeYields = false;
  std::string NativeWhy;
  /// A problem with the environment itself (every call reports it).
  std::string Error;
};

/// The configuration, read on the first call.
Config &config();

/// Whether a blocking call handed to MPICH on Comm waits yielding: Comm is
/// an intracommunicator (MPICH 4.0.2's non-blocking intercommunicator
/// broadcast delivers nothing, docs/pmpi.md) with the library's state, and
/// every rank of it configured so (PrivateComm::NativeYields: blocking and
/// non-blocking collectives do not match). A lookup of Comm's attribute,
/// only where this process's configuration yields (pmpi/Library.cpp).
bool nativeWaitYields(MPI_Comm Comm);

} // namespace pmpi
} // namespace choreo

#endif
