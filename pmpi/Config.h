//===- pmpi/Config.h - The library's environment variables ------*- C++ -*-===//
///
/// \file
/// The drop-in library's configuration, read from the environment once
/// (CHOREO_VERBOSE, CHOREO_FALLBACK, CHOREO_CHECK, CHOREO_PLANS_PER_COMM,
/// CHOREO_CACHE_DIR, CHOREO_DEFAULT, CHOREO_MACHINE, CHOREO_ALPHA/BETA/GAMMA,
/// CHOREO_SELECTION, CHOREO_NODES; docs/pmpi.md). A bad value is kept as an
/// error that every intercepted call reports.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_CONFIG_H
#define CHOREO_PMPI_CONFIG_H

#include "executor/Pipeline.h"
#include "pmpi/Nodes.h"
#include "pmpi/Selection.h"

#include <cstddef>
#include <string>

namespace choreo {
namespace pmpi {

enum class Fallback { Error, Print, Silent };

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
  /// A problem with the environment itself (every call reports it).
  std::string Error;
};

/// The configuration, read on the first call.
Config &config();

} // namespace pmpi
} // namespace choreo

#endif
