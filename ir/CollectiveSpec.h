//===- ir/CollectiveSpec.h - What each collective means ---------*- C++ -*-===//
///
/// \file
/// One CollectiveSpec per collective kind says, once, everything the engines
/// need to know about it (schedule-format.md, "Data" and "completeness"):
/// which groups it has and which of them contribute, which buffers exist and
/// how long they are, who holds what before the first step, what every rank
/// must hold after the last, where a rank's data and result live in the
/// user's MPI buffers, and which MPI call it implements. The structural
/// rules, both verifier engines, the executor, the harness, the views and
/// the cost model ask it; none of them branches on the kind itself. Adding a
/// collective is one entry in CollectiveSpec.cpp.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_COLLECTIVESPEC_H
#define CHOREO_IR_COLLECTIVESPEC_H

#include "ir/Collective.h"
#include "ir/IntervalSet.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo {

struct CallHeader;

/// A buffer of the collective (schedule-format.md, "Data").
struct Buffer {
  std::string Name;
  uint64_t Length = 0;
};

/// What the buffers of a collective hold.
enum class DataKind : uint8_t {
  /// One buffer per contributing group: its members' contributions
  /// concatenated in group order (allgather, gather, intergroup).
  Gather,
  /// Buffer `all` of length n, initially held by the root only.
  Broadcast,
  /// Buffer `all` of length n held by every rank with contributors {itself};
  /// blocks carry contributor sets and combine.
  Reduction,
  /// Buffer `all`: the ranks x ranks blocks of sizes.pairs, row-major;
  /// rank i holds row i (what it sends), rank j must end with column j
  /// (ir/PairMatrix.h). Intergroup: the blocks within a group are empty.
  Alltoall,
  /// Buffer `all`: the members' slices concatenated in group order
  /// (sizes.all, one entry per member), initially held by the root only.
  /// Intergroup: buffers A and B (sizes.A, sizes.B), the root holding the
  /// other group's; the root's group's sizes are zero.
  Scatter,
};

/// Which ranks must hold what at the end.
enum class ResultRule : uint8_t {
  Everyone,   ///< every rank of `all`: all of buffer `all`
  OtherGroup, ///< every rank of A: all of B; every rank of B: all of A
  GroupB,     ///< every rank of B: all of buffer A (only A contributes)
  Root,       ///< the root: all of buffer `all` (intergroup gather: all of
              ///< the other group's buffer)
  OwnSlice,   ///< rank i: slice i of `all` (sizes.slices)
  Column,     ///< rank j: every block (i, j) of `all` (sizes.pairs)
  OwnSegment, ///< member i of `all`: its own segment of `all` (sizes.all);
              ///< intergroup: of its group's buffer
  RootsOther, ///< every rank of the group without the root: all of `all`
  Prefix, ///< rank i: all of `all` combined over ranks 0..i (exscan: 0..i-1)
};

/// An MPI collective call: the one a schedule of a kind implements, and
/// the key of the MPI binding (ir/CallBinding.h), which also binds
/// MPI_Reduce_scatter_block (a reduce_scatter of equal slices).
enum class MpiCall : uint8_t {
  Allgather,
  Allgatherv,
  Gatherv,
  Bcast,
  Reduce,
  Allreduce,
  ReduceScatter,
  ReduceScatterBlock,
  Alltoall,
  Alltoallv,
  Gather,
  Scatter,
  Scatterv,
  Barrier,
  Scan,
  Exscan,
};

/// Bytes [Lo, Hi) of buffer Buf at rank R: an initial holding or a
/// requirement.
struct Holding {
  Rank R;
  BufferId Buf;
  uint64_t Lo, Hi;
};

struct CollectiveSpec {
  Collective Kind;
  const char *Name; ///< "inter_allgather", as in the format
  DataKind Data;
  bool Intergroup;       ///< groups A and B, else one group `all`
  bool Rooted;           ///< needs `root`
  bool OnlyAContributes; ///< half_allgather: sizes.B all zero or omitted
  ResultRule Result;
  MpiCall Call;
  const char *MpiName; ///< "MPI_Allgatherv"
  /// The completeness rule in words, as the diagnostics state it.
  const char *Rule;
  /// What the messages carry is knowledge, not data (barrier: laid out as
  /// an allgather of one byte per rank, "has arrived"): its sizes are all
  /// 1, the executor sends its messages with no payload and the user has
  /// no buffers, and the cost model prices them as empty.
  bool NoPayload = false;

  bool isGatherType() const { return Data == DataKind::Gather; }
  bool isReduction() const { return Data == DataKind::Reduction; }
  /// Whether sizes name each member's bytes of its group's buffer (gather
  /// type and scatter), rather than one vector length.
  bool sizedPerMember() const {
    return Data == DataKind::Gather || Data == DataKind::Scatter;
  }

  /// The groups the collective needs, in the order the format lists them.
  llvm::ArrayRef<llvm::StringRef> groupNames() const;
  /// Whether group G's members contribute bytes (gather-type only).
  bool contributes(llvm::StringRef G) const;
  /// The size entries a schedule of this kind may carry: its groups', plus
  /// `slices` for reduce_scatter.
  bool knowsSizes(llvm::StringRef Name) const;

  /// The buffers, in BufferId order: one per contributing group for
  /// gather-type collectives, `all` otherwise.
  std::vector<Buffer> buffers(const CallHeader &S) const;
  /// The index of the buffer called Name, if the collective has one.
  std::optional<BufferId> bufferId(const CallHeader &S,
                                   llvm::StringRef Name) const;
  /// The name of buffer B without computing lengths ("buffer#B" when the
  /// collective has no such buffer).
  std::string bufferName(BufferId B) const;
  /// n, the vector length of a broadcast or reduction (sizes.all[0]).
  uint64_t vectorLength(const CallHeader &S) const;

  /// What every rank holds before the first step (empty ranges included
  /// for gather-type contributions). Reductions: every rank holds all of
  /// `all` with contributors {itself}.
  std::vector<Holding> initialHoldings(const CallHeader &S) const;
  /// What rank R must hold at the end, if anything, when it is one range.
  /// The receive buffer of R holds exactly this range, starting at offset 0
  /// (or at MPI displacements for gather-type results). An alltoall's
  /// result is not one range (nullopt): results().
  std::optional<Holding> result(const CallHeader &S, Rank R) const;
  /// What rank R must hold at the end, in the order its receive buffer
  /// holds it (contiguous without displacements): result() as one range,
  /// or an alltoall's column, every non-empty block (i, R) in order of i.
  std::vector<Holding> results(const CallHeader &S, Rank R) const;
  /// Every rank's result, in the order diagnostics report them (group
  /// order; A before B); a rank's holdings are consecutive (an alltoall's
  /// rank j: its column's non-empty blocks).
  std::vector<Holding> requirements(const CallHeader &S) const;
  /// reduce_scatter: rank R's slice of `all`.
  Interval slice(const CallHeader &S, Rank R) const;
  /// Scatter: member R's segment of its group's buffer (`all`, or A or B
  /// of an intergroup scatter; by its group's sizes in group order; empty
  /// when R is no member).
  Interval segment(const CallHeader &S, Rank R) const;
  /// Reductions: the ranks whose vectors R's result combines: every rank,
  /// for an intergroup reduction the members of R's other group, for scan
  /// 0..R and for exscan 0..R-1.
  IntervalSet contributorsOf(const CallHeader &S, Rank R) const;
  /// Scan, exscan: contributorsOf as the one interval it is.
  Interval wantedContributors(const CallHeader &S, Rank R) const;
  /// Scan, exscan: a rank keeps several partial results per byte range
  /// (blocks name accumulators).
  bool usesAccumulators() const { return Result == ResultRule::Prefix; }

  /// Where rank R's initial data lives in the user's buffers: the send
  /// buffer (contributions, reduction vectors) or the receive buffer (the
  /// broadcast root's message, as MPI_Bcast has one buffer).
  bool initialInRecv() const { return Data == DataKind::Broadcast; }
};

const CollectiveSpec &specOf(Collective C);
/// Whether schedules of collectives X and Y serve the same calls: their
/// specs agree but for the name and the MPI call (allgather and allgatherv
/// differ only in whether the members' sizes are alike).
bool servesSameCalls(Collective X, Collective Y);
llvm::ArrayRef<CollectiveSpec> allCollectiveSpecs();

/// The format names of the collectives Keep admits, in spec order, joined
/// by ", " ("reduce, allreduce, reduce_scatter"): what messages list.
std::string collectiveNames(bool (*Keep)(const CollectiveSpec &) = nullptr);

} // namespace choreo

#endif
