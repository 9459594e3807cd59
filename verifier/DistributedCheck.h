//===- verifier/DistributedCheck.h - The proof split over ranks -*- C++ -*-===//
///
/// \file
/// The explicit checker's verdict computed the way a job of p ranks can,
/// no rank holding the whole schedule: every rank checks, on its own ops
/// only, the obligations that live at the rank (checkLocal: the structure
/// of its ops, ports, topology links, availability of what it sends,
/// exactly-once and operand order of what it combines, its completeness);
/// the lowest rank of each compute node counts the node's off-node ops per
/// step (checkNodePorts); and the ranks agree, peer by peer, that what s
/// sends to r is what r expects from s (the message digests of every
/// LocalResult). docs/distributed-proof.md says why the conjunction is
/// exactly the explicit verdict and what each part costs a rank.
/// checkDistributed simulates every rank in one process and merges what
/// they find into the explicit checker's diagnostics.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_DISTRIBUTEDCHECK_H
#define CHOREO_VERIFIER_DISTRIBUTEDCHECK_H

#include "ir/PairMatrix.h"
#include "verifier/Verifier.h"

#include "llvm/ADT/ArrayRef.h"

#include <compare>
#include <optional>
#include <string>
#include <vector>

namespace choreo {

/// What a rank derives from its call header alone: the buffers, every
/// rank's initial holdings and requirement (and its place in the spec's
/// order of requirements), the links of the topology and the node of every
/// rank. Built from a header that verifyHeader() accepts; a simulation
/// shares one among its ranks.
///
/// A job's rank asks only for its own holdings and requirement: the first
/// rank asked is answered from the header directly (O(p) time, memory for
/// its own holdings only: at p = 65,536 the tables of every rank took a
/// rank 3-10 ms, nearly all of it fresh pages), and the tables of every
/// rank (O(p) time and memory; O(p^2) for an alltoall given as its p x p
/// matrix, sizes.pairs; O(p) for one given as sizes.block, whose columns
/// are listed on demand) are built when a second rank, or a requirement's
/// place (requirementPos: merging findings), is asked for.
class HeaderFacts {
public:
  explicit HeaderFacts(const CallHeader &H);

  const std::vector<Buffer> &buffers() const { return Bufs; }
  /// What rank R holds before the first step.
  llvm::ArrayRef<Holding> initialOf(Rank R) const;
  /// What rank R must hold at the end, its non-empty requirements (one
  /// range, or an alltoall's column of blocks, listed in O(p)); empty when
  /// nothing.
  std::vector<Holding> requirementsOf(Rank R) const;
  /// Where R's requirement stands in the spec's order (ranks of A before
  /// B): the explicit checker reports the first incomplete rank in it.
  size_t requirementPos(Rank R) const;
  /// Whether U and V are linked (the explicit checker's isLink).
  bool isLink(Rank U, Rank V) const;
  bool hasNodes() const { return !NodeOf.empty(); }
  uint32_t nodeOf(Rank R) const { return NodeOf[R]; }
  /// Bytes these tables take (what a rank pays for them).
  size_t bytes() const;
  /// Whether the tables of every rank were built (a second rank asked).
  bool hasTables() const { return Tables; }

private:
  const CallHeader &H;
  std::vector<Buffer> Bufs;
  /// The first rank asked, answered alone: its holdings.
  mutable std::optional<Rank> Own;
  mutable std::vector<Holding> OwnInitial;
  /// The tables of every rank, once built.
  mutable bool Tables = false;
  mutable std::vector<Holding> Initial;       // sorted by rank
  mutable std::vector<uint32_t> InitialBegin; // per rank, into Initial
  mutable std::vector<Holding> Reqs;          // the spec's order (not alltoall)
  mutable std::optional<PairMatrix> Columns; // alltoall: the blocks
  bool Matrix = false;                        // sizes.pairs, summed lazily
  mutable bool ColumnsUsed = false;
  mutable std::vector<uint32_t> ReqPos; // per rank, into Reqs, or NoReq
  std::vector<uint32_t> RingPos;      // ring topology
  std::vector<uint64_t> Edges;        // graph topology, sorted keys
  std::vector<uint32_t> NodeOf;
  static constexpr uint32_t NoReq = ~0u;

  /// Whether rank R is answered alone (the first rank asked, no tables).
  bool alone(Rank R) const;
  void buildTables() const;
};

/// A place in the explicit checker's order of events. A rank keys each
/// finding by it, so that the ranks' findings merged (per kind the least
/// key, then in key order) are the explicit checker's first failure of
/// each kind, in its order.
struct EventKey {
  enum Phase : uint8_t {
    Header,  ///< the header's rules, and the ranks' agreement
    Ops,     ///< an op: its structure, ports, node ports, link, blocks
    Deliver, ///< the end of a step: combining what arrived
    End,     ///< after the last step: completeness
  };
  uint32_t Step = 0;
  Phase Ph = Header;
  uint64_t Op = 0;  ///< the op's index in its step (see checkLocal)
  uint64_t Sub = 0; ///< the order of events at one op
  auto operator<=>(const EventKey &) const = default;
};

struct Finding {
  EventKey Key;
  Diagnostic D;
};

/// An op of a rank that leaves (Send) or enters its compute node: what
/// its node's check counts.
struct OffNodeOp {
  uint32_t Step = 0, Index = 0;
  bool Send = false;
};

/// A digest of every message between a rank and one peer, in one
/// direction: step, blocks (buffer, byte range, combine flag, contributor
/// set), in order.
struct PeerDigest {
  Rank Peer = 0;
  Digest128 D;
};

/// What one rank's local check finds and what it hands on.
struct LocalResult {
  Rank Me = 0;
  /// Structural failures of its ops (the first of each kind); when there
  /// are any, nothing else was checked.
  std::vector<Finding> Structure;
  /// Property failures at the rank (the first of each kind).
  std::vector<Finding> Findings;
  /// What it lacks at the end ("lacks A[0,4)"), if anything.
  std::optional<std::string> Lack;
  /// Its off-node ops, for its node's lowest rank (only with `nodes`).
  std::vector<OffNodeOp> OffNode;
  /// Per peer, what it sends to the peer and what it expects from it;
  /// sorted by peer. A job exchanges these (peerDigestsFor).
  std::vector<PeerDigest> Sends, Expects;
  /// A digest of the sizes only this rank's header holds (an alltoallv
  /// rank's row and column, ownSizesDigest); zero otherwise. sendsTerm
  /// adds it, so that the job's digest names the whole matrix.
  Digest128 Own;
  size_t NumOps = 0;
};

/// The digest of H's per-rank sizes (an alltoallv rank's sizes.part, row,
/// column and column_at), zero when it has none.
Digest128 ownSizesDigest(const CallHeader &H);

/// What every rank's part must share with rank 0's: the header's digest
/// and the step count (one 16-byte comparison in a job; O(p) to compute,
/// once per header). An alltoallv rank's own row and column are left out
/// (the length of `all` and the used offsets stay): they are the ranks'
/// own, and the message agreement checks that they fit together.
Digest128 partHeaderDigest(const Schedule &Part);

/// Rank Me's ops in S, in order (by step, then index): S is the whole
/// schedule or Me's part of it.
std::vector<OpAt> opsOf(const Schedule &S, Rank Me);

/// Rank Me's local check of its ops Mine (opsOf) in S, whose header
/// verifyHeader() accepts and Facts describes. GlobalIndex: an op's index
/// in S is its index in the whole schedule's step (S whole, or a part that
/// kept every op); otherwise (onlyRank, a rank form) notes name an op by
/// its step only and ranks' findings of one step merge by rank.
LocalResult checkLocal(const Schedule &S, Rank Me, llvm::ArrayRef<OpAt> Mine,
                       const HeaderFacts &Facts, bool GlobalIndex = true);

/// Rank Me's per-peer message digests (LocalResult's Sends and Expects,
/// nothing checked): what checkLocal hands on, at the cost of hashing Me's
/// ops, for a job that knows the verdict already (a proof cache).
LocalResult messageDigests(const Schedule &S, Rank Me,
                           llvm::ArrayRef<OpAt> Mine);

/// One failure of a node's off-node ports: in step Step, node Node's
/// Count-th off-node send (or receive) is At (of rank AtRank); First (of
/// FirstRank) is its first of the step.
struct NodePortFailure {
  const char *Kind;
  uint32_t Node = 0, Step = 0, Count = 0;
  Rank FirstRank = 0, AtRank = 0;
  OffNodeOp First, At;
};

/// One rank's off-node ops, as its node's lowest rank receives them.
struct MemberOffNode {
  Rank R;
  llvm::ArrayRef<OffNodeOp> Ops;
};

/// The node-port obligation of node Node, checked by its lowest rank over
/// the off-node ops of its members: the first send and the first receive
/// failure, if any. O(k log k) for k off-node ops of the node.
std::vector<NodePortFailure>
checkNodePorts(const CallHeader &H, uint32_t Node,
               llvm::ArrayRef<MemberOffNode> Members);

/// The additive agreement term of one rank: the sum over its sends of
/// h(me, peer, digest) minus the sum over its expects of h(peer, me,
/// digest), lane by lane mod 2^64. The ranks agree on every message iff
/// the terms sum to zero (but for a collision of the 128-bit hash): one
/// 16-byte allreduce; the per-peer lists then locate a mismatch.
Digest128 agreementTerm(const LocalResult &R);

/// The sends half of agreementTerm: the sum over R's sends of h(me, peer,
/// digest). Summed over every rank it digests the whole schedule's
/// messages (each counted once, by its sender): with the header's digest,
/// the key a job's proof cache knows a verdict by.
Digest128 sendsTerm(const LocalResult &R);

/// A pair of ranks whose ends see a message differently, located at its
/// first differing step (describeMismatch, verifier/MessageAgreement.h).
struct PairMismatch {
  uint32_t Step = 0;
  Rank Src = 0, Dst = 0;
  Diagnostic D;
};

/// Everything the ranks found, gathered in one place (a simulation holds
/// it; a job gathers it on one rank).
struct GatheredFindings {
  /// Every rank's structural failures (when any, nothing else counts).
  std::vector<Finding> Structure;
  /// Every rank's property failures and every node's port failures.
  std::vector<Finding> Findings;
  std::vector<PairMismatch> Mismatches;
  /// The ranks that lack something at the end, and what (LocalResult::Lack).
  std::vector<std::pair<Rank, std::string>> Lacks;
};

/// The explicit checker's verdict from what the ranks found: invalid with
/// the first structural failure of each kind, else the first disagreeing
/// pair of ranks, then per kind the finding with the least event key, in
/// key order, and completeness from the first incomplete rank in the
/// spec's order and the count of them. Head is any rank's part (its header
/// and step count are everyone's).
VerifyResult mergeFindings(const Schedule &Head, const HeaderFacts &Facts,
                           GatheredFindings G);

/// What a simulation did.
struct DistributedStats {
  size_t Ranks = 0;
  /// Nodes whose lowest rank ran a node check.
  size_t NodeChecks = 0;
  /// Per-peer message digests compared (sends matched with expects).
  size_t Digests = 0;
  /// The most ops any rank holds, and that rank.
  size_t MaxRankOps = 0;
  Rank Busiest = 0;
};

/// Every rank's local check over its ops of Whole, the node checks and the
/// message agreement, simulated in one process, merged into the explicit
/// checker's result: the same status and, where the explicit checker names
/// them, the same diagnostics (docs/distributed-proof.md lists where a
/// later failure can differ once a send failed). Runs the header's
/// structural rules first, so any Schedule is safe to pass.
VerifyResult checkDistributed(const Schedule &Whole,
                              DistributedStats *Stats = nullptr);

/// The same over parts held separately: Views[r] holds rank r's ops (and
/// maybe others': only r's are checked) under its own header, in the
/// whole's step numbering, as onlyRank or a rank form gives them; op
/// indices are not the whole's (GlobalIndex false). Ranks whose headers or
/// messages disagree fail "message-agreement", naming the first step,
/// sender and receiver whose views differ.
VerifyResult checkDistributedViews(llvm::ArrayRef<Schedule> Views,
                                   DistributedStats *Stats = nullptr);

namespace property {
inline constexpr const char *MessageAgreement = "message-agreement";
} // namespace property

} // namespace choreo

#endif
