//===- ir/CallHeader.h - What a collective call asks for --------*- C++ -*-===//
///
/// \file
/// CallHeader is the typed header of a collective call, apart from any step
/// list: the collective, its groups, the bytes each member contributes (or
/// the vector length and slices), the root, the machine model (topology,
/// ports, compute nodes and their ports) and the reduction operator. It is
/// plain data: the collective spec (ir/CollectiveSpec.h) works on it alone
/// (the spec depends on the header, never the other way), and a Schedule
/// (ir/Schedule.h) is a header plus the steps that implement it. The drop-in
/// library turns an MPI call into a header, a generator builds from one, and
/// the harness turns one back into MPI's own call.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_CALLHEADER_H
#define CHOREO_IR_CALLHEADER_H

#include "ir/Collective.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace choreo {

struct Group {
  std::string Name;
  std::vector<Rank> Members;
};

struct NamedSizes {
  std::string Name;
  std::vector<uint64_t> Values;
};

struct Topology {
  enum class Kind { Full, Ring, Graph };
  Kind K = Kind::Full;
  /// Ring: the cycle, every rank once (empty means 0..ranks-1).
  std::vector<Rank> Order;
  /// Graph: undirected links.
  std::vector<std::pair<Rank, Rank>> Edges;

  static Topology full() { return {}; }
  static Topology ring(std::vector<Rank> Order = {}) {
    Topology T;
    T.K = Kind::Ring;
    T.Order = std::move(Order);
    return T;
  }
  llvm::StringRef kindName() const;
};

struct Ports {
  uint32_t Send = 1, Recv = 1;
  bool Duplex = true;
};

/// Off-node ports of every compute node (schedule-format.md, `node_ports`):
/// per step, at most Send ops leave the node and at most Recv ops enter it.
struct NodePorts {
  uint32_t Send = 1, Recv = 1;
};

/// The reduction operator (schedule-format.md, `op`).
struct ReductionOp {
  bool Commutative = true;
};

/// The header of a collective call: everything but the steps.
struct CallHeader {
  Collective Kind = Collective::Allgather;
  Rank NumRanks = 0;
  std::vector<Group> Groups;
  std::vector<NamedSizes> Sizes;
  std::optional<Rank> Root;
  Topology Topo;
  Ports Port;
  /// Compute nodes: a partition of the ranks (`nodes`), absent when the
  /// call has no node constraint.
  std::optional<std::vector<std::vector<Rank>>> Nodes;
  /// `node_ports` as given; nodePorts() applies the default.
  std::optional<NodePorts> NodePort;
  /// `op` as given (reductions only); commutative() applies the default.
  std::optional<ReductionOp> ReduceOp;

  const Group *group(llvm::StringRef Name) const;
  const std::vector<uint64_t> *sizes(llvm::StringRef Name) const;

  bool hasNodes() const { return Nodes.has_value(); }
  NodePorts nodePorts() const { return NodePort.value_or(NodePorts()); }
  bool commutative() const { return !ReduceOp || ReduceOp->Commutative; }
  /// The node of every rank (size NumRanks); empty without nodes. Call on a
  /// verified header only (ranks of a valid partition).
  std::vector<uint32_t> nodeOfRank() const;
  /// "{0-2}": the ranks of node I, compactly.
  std::string nodeRanksString(size_t I) const;
};

/// Groups A = 0..p-1 and B = p..p+q-1 with the given sizes, or one group
/// `all` of every rank: how generators and the drop-in library lay out a
/// call's ranks.
void setIntergroup(CallHeader &H, llvm::ArrayRef<uint64_t> SizesA,
                   llvm::ArrayRef<uint64_t> SizesB);
void setIntragroup(CallHeader &H, Rank N, llvm::ArrayRef<uint64_t> SizesAll);

} // namespace choreo

#endif
