//===- ir/Schedule.h - A collective-communication schedule ------*- C++ -*-===//
///
/// \file
/// Schedule is the in-memory form of a format-v1 document
/// (schedule-format.md): the collective and its data (groups, sizes, root),
/// the machine model (topology, ports) and the steps. `verify()` checks the
/// format's structural rules (ranks in range, no self-send, blocks inside
/// their buffers, ...) and names each failure by its JSON pointer; the
/// semantic properties (availability, ports, topology, completeness) are the
/// verifier's.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_SCHEDULE_H
#define CHOREO_IR_SCHEDULE_H

#include "ir/Collective.h"
#include "ir/CollectiveSpec.h"
#include "ir/Diagnostics.h"
#include "ir/StepList.h"

#include <nlohmann/json.hpp>

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

struct Buffer {
  std::string Name;
  uint64_t Length = 0;
};

/// A byte range of one member's contribution to its group's buffer.
using MemberSegment = Holding;

class Schedule {
public:
  Collective Kind = Collective::Allgather;
  std::string Algorithm;
  nlohmann::ordered_json Params = nlohmann::ordered_json::object();
  Rank NumRanks = 0;
  std::vector<Group> Groups;
  std::vector<NamedSizes> Sizes;
  std::optional<Rank> Root;
  Topology Topo;
  Ports Port;
  /// Compute nodes: a partition of the ranks (`nodes`), absent when the
  /// schedule has no node constraint.
  std::optional<std::vector<std::vector<Rank>>> Nodes;
  /// `node_ports` as given; nodePorts() applies the default.
  std::optional<NodePorts> NodePort;
  /// `op` as given (reductions only); commutative() applies the default.
  std::optional<ReductionOp> ReduceOp;
  StepList Steps;
  /// A hash of every step, op and block as read (all of them, also those a
  /// rank reading only its own ops drops): ranks that read the same
  /// document have the same digest. 0 for a schedule built in code.
  uint64_t Digest = 0;

  const Group *group(llvm::StringRef Name) const;
  const std::vector<uint64_t> *sizes(llvm::StringRef Name) const;

  /// What the collective means (ir/CollectiveSpec.h).
  const CollectiveSpec &spec() const { return specOf(Kind); }

  /// The buffers the collective defines (schedule-format.md, "Data"):
  /// one per group for gather-type collectives (only A for half_allgather),
  /// `all` for broadcasts and reductions. Index = BufferId.
  std::vector<Buffer> buffers() const { return spec().buffers(*this); }
  std::optional<BufferId> bufferId(llvm::StringRef Name) const;
  /// The vector length n of a bcast or reduction (sizes.all[0]), else 0.
  uint64_t vectorLength() const { return spec().vectorLength(*this); }

  /// Gather-type collectives: the contribution of every member, as a byte
  /// range of its group's buffer (empty ranges included).
  std::vector<MemberSegment> memberSegments() const;

  bool hasNodes() const { return Nodes.has_value(); }
  NodePorts nodePorts() const { return NodePort.value_or(NodePorts()); }
  bool commutative() const { return !ReduceOp || ReduceOp->Commutative; }
  /// The node of every rank (size NumRanks); empty without nodes. Call on a
  /// verified schedule only (ranks of a valid partition).
  std::vector<uint32_t> nodeOfRank() const;
  /// "{0-2}": the ranks of node I, compactly.
  std::string nodeRanksString(size_t I) const;

  /// Checks the structural rules of the format; returns the first failure
  /// of each kind, each naming its JSON pointer. Empty means valid.
  std::vector<Diagnostic> verify() const;

  /// "A[24,32)", with " contrib {0-3}" and " reduce" for reduction blocks.
  std::string blockString(const Block &B) const;
  std::string blocksString(llvm::ArrayRef<Block> Bs) const;
};

/// Convenience for generators: groups A = 0..p-1 and B = p..p+q-1 with the
/// given sizes, or one group `all` of every rank.
void setIntergroup(Schedule &S, llvm::ArrayRef<uint64_t> SizesA,
                   llvm::ArrayRef<uint64_t> SizesB);
void setIntragroup(Schedule &S, Rank N, llvm::ArrayRef<uint64_t> SizesAll);

/// Compact JSON text of V; invalid UTF-8 (possible in CBOR input) is
/// replaced rather than thrown on.
std::string jsonText(const nlohmann::ordered_json &V);

/// Prefix sums: Out[i] = sum(Counts[0..i)), Out.size() == Counts.size() + 1.
std::vector<uint64_t> prefixSums(llvm::ArrayRef<uint64_t> Counts);

} // namespace choreo

#endif
