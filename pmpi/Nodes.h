//===- pmpi/Nodes.h - The compute nodes of a communicator -------*- C++ -*-===//
///
/// \file
/// How the drop-in library learns which ranks of a communicator share a
/// compute node, once per group (pmpi/PrivateComm.h): by
/// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), a node named by its lowest
/// MPI_COMM_WORLD rank, or, for tests and emulated clusters, from
/// CHOREO_NODES=N (N consecutive MPI_COMM_WORLD ranks per node). Every
/// rank then sends its node's name to every other (one allgather), so the
/// map is the same on every rank by construction. The nodes are numbered
/// 0, 1, ... in the order of their first ranks; the map is empty on one
/// node (nothing changes there) and with CHOREO_NODES=off.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_NODES_H
#define CHOREO_PMPI_NODES_H

#include "llvm/ADT/StringRef.h"

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace choreo {
namespace pmpi {

/// CHOREO_NODES: where the nodes come from.
struct NodesSource {
  enum Kind : uint64_t { Shared = 0, Off = 1, PerNode = 2 } K = Shared;
  /// PerNode: MPI_COMM_WORLD ranks per node.
  uint64_t RanksPerNode = 0;
};

/// "shared", "off" or a positive count; an error text naming CHOREO_NODES
/// otherwise.
std::optional<NodesSource> parseNodesSource(llvm::StringRef Text,
                                            std::string &Err);

/// Collective over Comm, an intracommunicator: the node of each of its
/// ranks (empty: one node, or Off). Err (the same on every rank) when the
/// ranks were not given the same CHOREO_NODES.
std::vector<uint32_t> learnNodes(MPI_Comm Comm, const NodesSource &Src,
                                 std::string &Err);

/// "2 nodes: 2,2 ranks" or "2 nodes: node of rank 0,1,0,1" (messages).
std::string nodesText(const std::vector<uint32_t> &NodeOf);

} // namespace pmpi
} // namespace choreo

#endif
