//===- generators/intergroup/InterCollectives.h - Intercomm a2a, rooted -*- C++
//-*-===//
///
/// \file
/// What the intercommunicator alltoall, gather, scatter and barrier
/// generators share: their options and headers (groups A = 0..p-1 and
/// B = p..p+q-1; a gather's or scatter's root anywhere among the p + q
/// ranks, its group moving nothing) and the steps of MPICH 4.0.2's
/// intercommunicator algorithms for them (MPIR_Alltoall_inter_pairwise_
/// exchange, MPIR_Gather_inter_local_gather_remote_send and _linear,
/// MPIR_Scatter_inter_remote_send_local_scatter and _linear,
/// MPIR_Barrier_inter_bcast), written from MPI-4's definitions and MPICH's
/// algorithm descriptions.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_INTERGROUP_INTERCOLLECTIVES_H
#define CHOREO_GENERATORS_INTERGROUP_INTERCOLLECTIVES_H

#include "generators/Generators.h"

namespace choreo {

/// An intergroup gather or scatter: the groups, the root, and the members'
/// sizes of the group without the root (the root's group's are zero).
struct InterRooted {
  uint32_t P = 1, Q = 1;
  Rank Root = 0;
  Rank OtherBase = 0;
  uint32_t OtherSize = 1;
  /// The other group's buffer: A is buffer 0, B buffer 1.
  BufferId OtherBuf = 0;
  std::vector<uint64_t> Sizes;
  bool Irregular = false;
  uint64_t total() const;
};

/// --p, --q, --root, --bytes-a/--counts-a, --bytes-b/--counts-b.
std::vector<OptionDecl> interRootedOptions();
/// Reads them: the root below p + q; the other group's sizes from its
/// options (one of them is needed), the root's group's absent or zero.
llvm::Expected<InterRooted> readInterRooted(const OptionValues &V);
/// The header of an inter_gather or inter_scatter for In.
Schedule interRootedSchedule(Collective C, const InterRooted &In);

/// MPICH's short-message gather: a binomial gather in the other group to its
/// first rank, which sends the whole buffer to the root.
StepList interLocalGatherRemoteSend(const InterRooted &In);
/// MPICH's long-message (and v-form) gather: each member of the other group
/// sends its block to the root, one message per step (its members in order,
/// empty ones skipped).
StepList interLinearGather(const InterRooted &In);
/// MPICH's short-message scatter: the root sends the other group's buffer
/// to its first rank, which scatters it there by a binomial tree.
StepList interRemoteSendLocalScatter(const InterRooted &In);
/// MPICH's long-message (and v-form) scatter: the root sends each member
/// its slice, one message per step.
StepList interLinearScatter(const InterRooted &In);

/// The rank forms of the four: rank Me's ops (none when Me takes no part)
/// in the block's steps, and which steps hold some rank's op (RankPart,
/// blocks/Blocks.h): the trees' from binomialGatherRank (O(n) arithmetic
/// for which steps carry bytes), the linear ones' by counting the members
/// with bytes (the root's part is one op per such member).
RankPart interLocalGatherRemoteSendPart(const InterRooted &In, Rank Me);
RankPart interLinearGatherPart(const InterRooted &In, Rank Me);
RankPart interRemoteSendLocalScatterPart(const InterRooted &In, Rank Me);
RankPart interLinearScatterPart(const InterRooted &In, Rank Me);

/// MPICH 4.0.2's choice (its tuning file): below 2048 bytes in all with
/// members alike the local/remote tree, else linear.
inline constexpr uint64_t InterRootedShortBytes = 2048;
bool interRootedShort(const InterRooted &In);

} // namespace choreo

#endif
