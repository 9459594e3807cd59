//===- pmpi/Nodes.cpp - The compute nodes of a communicator ---------------===//
///
/// \file
/// One agreement on CHOREO_NODES, the node's name (a split by shared memory,
/// or the world rank divided by the ranks per node), and one allgather of
/// the names (pmpi/Nodes.h).
///
//===----------------------------------------------------------------------===//

#include "pmpi/Nodes.h"

#include "executor/Yielding.h"
#include "pmpi/PrivateComm.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace choreo;
using namespace choreo::pmpi;

std::optional<NodesSource> pmpi::parseNodesSource(llvm::StringRef Text,
                                                  std::string &Err) {
  NodesSource S;
  if (Text.empty() || Text == "shared")
    return S;
  if (Text == "off") {
    S.K = NodesSource::Off;
    return S;
  }
  uint64_t N = 0;
  if (Text.getAsInteger(10, N) || N == 0 || N > (1u << 30)) {
    Err = llvm::formatv("CHOREO_NODES={0}: expected shared, off or a "
                        "positive number of ranks per node (2: world ranks "
                        "0-1 on node 0, 2-3 on node 1, ...)",
                        Text);
    return std::nullopt;
  }
  S.K = NodesSource::PerNode;
  S.RanksPerNode = N;
  return S;
}

std::vector<uint32_t> pmpi::learnNodes(MPI_Comm Comm, const NodesSource &Src,
                                       std::string &Err) {
  // Every rank must have the same source, or their collectives below would
  // not match: the maxima of each value and its complement tell.
  uint64_t Said[4] = {Src.K, ~uint64_t(Src.K), Src.RanksPerNode,
                      ~Src.RanksPerNode};
  yielding::allreduce(MPI_IN_PLACE, Said, 4, MPI_UINT64_T, MPI_MAX, Comm);
  if (Said[0] != ~Said[1] || Said[2] != ~Said[3]) {
    Err = "CHOREO_NODES is not the same on every rank of the communicator";
    return {};
  }
  if (Src.K == NodesSource::Off)
    return {};
  int World = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &World);
  // The node's name: its lowest world rank, or world rank / N. UINT64_MAX:
  // this rank could not tell, and then no rank uses nodes.
  uint64_t Name = UINT64_MAX;
  if (Src.K == NodesSource::PerNode) {
    Name = uint64_t(World) / Src.RanksPerNode;
  } else {
    ReturnErrors Returns(Comm);
    MPI_Comm Node = MPI_COMM_NULL;
    if (PMPI_Comm_split_type(Comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                             &Node) == MPI_SUCCESS &&
        Node != MPI_COMM_NULL) {
      uint64_t Mine = uint64_t(World);
      if (PMPI_Allreduce(&Mine, &Name, 1, MPI_UINT64_T, MPI_MIN, Node) !=
          MPI_SUCCESS)
        Name = UINT64_MAX;
      PMPI_Comm_free(&Node);
    }
  }
  int P = 0;
  PMPI_Comm_size(Comm, &P);
  std::vector<uint64_t> Names(P);
  yielding::allgather(&Name, 1, MPI_UINT64_T, Names.data(), 1, MPI_UINT64_T,
                      Comm);
  std::map<uint64_t, uint32_t> Number;
  std::vector<uint32_t> NodeOf(P);
  for (int R = 0; R < P; ++R) {
    if (Names[R] == UINT64_MAX)
      return {};
    auto [It, New] = Number.try_emplace(Names[R], uint32_t(Number.size()));
    NodeOf[R] = It->second;
  }
  if (Number.size() < 2)
    return {};
  return NodeOf;
}

std::string pmpi::nodesText(const std::vector<uint32_t> &NodeOf) {
  uint32_t Nodes = 0;
  for (uint32_t X : NodeOf)
    Nodes = std::max(Nodes, X + 1);
  std::vector<uint64_t> Count(Nodes, 0);
  bool Consecutive = true;
  for (size_t R = 0; R < NodeOf.size(); ++R) {
    ++Count[NodeOf[R]];
    if (R && NodeOf[R] != NodeOf[R - 1] && NodeOf[R] != NodeOf[R - 1] + 1)
      Consecutive = false;
  }
  std::string T = std::to_string(Nodes) + " nodes: ";
  const auto &List =
      Consecutive ? Count : std::vector<uint64_t>(NodeOf.begin(), NodeOf.end());
  for (size_t I = 0; I < List.size(); ++I) {
    if (I == 16) {
      T += ",...";
      break;
    }
    T += (I ? "," : "") + std::to_string(List[I]);
  }
  return T +
         (Consecutive ? " consecutive ranks per node" : " (node of each rank)");
}
