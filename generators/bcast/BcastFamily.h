//===- generators/bcast/BcastFamily.h - The broadcast family -----*- C++
//-*-===//
///
/// \file
/// What the broadcast generators share (seed 002): the nine plain
/// broadcasts by name, their op counts for the op budget, the pipeline's
/// segments, the hierarchical form of Algorithm 1 (G groups, a broadcast
/// among the leaders, then one inside every group, the groups alongside
/// one another), the choice of G by the cost model (`--groups auto`), and
/// BcastFamilyGenerator, the generator each algorithm's file specialises.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_BCAST_BCASTFAMILY_H
#define CHOREO_GENERATORS_BCAST_BCASTFAMILY_H

#include "generators/Generators.h"

#include <optional>

namespace choreo {

/// The plain broadcasts of seed 002, Section 2.1, MPICH's choice and the
/// circulant-graph broadcast.
enum class BcastAlgo {
  Flat,
  Chain,
  Pipeline,
  Binary,
  Binomial,
  SplitBinary,
  ScatterRing,
  ScatterRd,
  Mpich,
  /// Träff's round-optimal broadcast on a circulant graph (not of seed
  /// 002; bcast/Circulant.h): the message cut into n blocks as the
  /// pipeline's segments, n - 1 + ceil(log2 p) steps.
  Circulant,
};

/// The name --outer and --inner take ("flat", "scatter-ring", ...); the
/// generator id is "bcast-" and the name.
llvm::StringRef bcastAlgoName(BcastAlgo A);
std::optional<BcastAlgo> bcastAlgoByName(llvm::StringRef Name);
llvm::ArrayRef<BcastAlgo> allBcastAlgos();

/// Where the pipeline (or the circulant broadcast) cuts [0, Bytes): Cuts[0]
/// = 0 < ... < Cuts[X] = Bytes (X = 1 for any other algorithm).
using SegmentCutList = std::vector<uint64_t>;

/// The plain broadcast A of [0, Bytes) from Root over local ranks 0..N-1.
StepList plainBcast(BcastAlgo A, uint32_t N, uint64_t Bytes, uint32_t Root,
                    llvm::ArrayRef<uint64_t> Cuts);

/// The rank form of plainBcast (blocks/BcastRank.cpp): rank Me's ops in
/// its steps, and which steps hold an op.
RankPart plainBcastRank(BcastAlgo A, uint32_t N, uint64_t Bytes, uint32_t Root,
                        llvm::ArrayRef<uint64_t> Cuts, uint32_t Me);

/// An upper bound on plainBcast's op count, from the same arithmetic as the
/// algorithm (X segments for the pipeline and the circulant broadcast).
uint64_t plainBcastOps(BcastAlgo A, uint32_t N, uint64_t Bytes, uint64_t X);

/// Algorithm 1 of seed 002 over ranks 0..P-1 cut into consecutive groups of
/// GroupSizes: the leader of a group is its first rank, the root's group's
/// leader the root itself (Calculate_Root_Inner); Outer broadcasts among the
/// leaders from the root's group, then Inner broadcasts inside every group
/// from its leader, all groups in the same steps.
struct Hierarchy {
  BcastAlgo Outer = BcastAlgo::Binomial, Inner = BcastAlgo::Binomial;
  std::vector<uint32_t> GroupSizes;
};
StepList hierarchicalBcast(const Hierarchy &H, uint64_t Bytes, uint32_t Root,
                           llvm::ArrayRef<uint64_t> Cuts);
/// The rank form of hierarchicalBcast: rank Me's ops (the outer
/// broadcast's if Me leads its group, its group's inner one), with the
/// steps used by some rank (the inner steps of the other groups from the
/// at most three distinct inner broadcasts, each from one rank's part).
RankPart hierarchicalBcastRank(const Hierarchy &H, uint64_t Bytes,
                               uint32_t Root, llvm::ArrayRef<uint64_t> Cuts,
                               uint32_t Me);
/// hierarchicalBcastRank for many ranks of one hierarchy: what every rank's
/// part shares (the groups' starts, the steps the outer and the inner
/// broadcasts use: O(G) and at most three inner broadcasts' steps) once,
/// then of(Me) is Me's part from its own outer and inner ops alone.
/// Where a broadcast first breaks a nodes layout, as the broadcasts report
/// it: the first node (in node order) whose off-node sends or receives
/// exceed the node ports in some step, at its first such step (of the
/// whole, after its empty steps are dropped), sends before receives, with
/// the step's count.
struct NodeBreak {
  uint32_t Node = 0;
  unsigned Step = 0;
  bool Send = true;
  uint32_t Count = 0;
};

class HierarchyParts {
public:
  HierarchyParts(const Hierarchy &H, uint64_t Bytes, uint32_t Root,
                 llvm::ArrayRef<uint64_t> Cuts);
  RankPart of(uint32_t Me) const;
  /// The whole hierarchy's first break of the layout Nodes (consecutive
  /// ranks) under NP, without building any rank's part: per node of
  /// several ranks, the outer ops of its leaders when it holds two or more
  /// (a node with one leader sends and receives at most one outer message
  /// a step), and the inner ops of the at most two groups that cross its
  /// edges, read off the inner broadcast's whole block (at most three
  /// distinct ones, each built once) for the ranks of the group inside the
  /// node (memoised by group size, local root and the node's range in the
  /// group: a regular layout has few). Time: the blocks' ops, the node's
  /// off-node ops and its groups, O(G) for the groups.
  std::optional<NodeBreak>
  firstNodeBreak(llvm::ArrayRef<std::vector<Rank>> Nodes, NodePorts NP) const;

private:
  uint32_t groupOf(uint32_t R) const;
  uint32_t leader(uint32_t G) const;
  const Hierarchy &H;
  uint64_t Bytes;
  uint32_t Root, RootGroup = 0;
  std::vector<uint64_t> Cuts;
  std::vector<uint32_t> Start;
  std::vector<bool> OuterUsed, InnerUsed;
};
/// At most the ops one rank has in plainBcast / hierarchicalBcast: what the
/// rank forms check against the op budget.
uint64_t plainBcastRankOps(BcastAlgo A, uint32_t N, uint64_t Bytes, uint64_t X);
uint64_t hierarchicalBcastOps(const Hierarchy &H, uint64_t Bytes, uint64_t X);

/// Whether A cuts the message into segments (--segments, --segment-bytes):
/// the pipeline and the circulant broadcast.
bool cutsSegments(BcastAlgo A);

/// G consecutive groups of P ranks: the first P mod G of ceil(P/G), the
/// rest of floor(P/G).
std::vector<uint32_t> evenGroups(uint32_t P, uint32_t G);

/// The lock-step time (alpha + beta x the largest message of each step,
/// summed) of hierarchicalBcast(H, Bytes, Root, Cuts): the outer broadcast's
/// steps, then per step the slowest group. Computed from the generated
/// building blocks (one per distinct group size); equals the cost model's
/// lock-step time of the generated schedule (BcastFamilyTest).
double hierarchicalLockstepTime(const Hierarchy &H, uint64_t Bytes,
                                llvm::ArrayRef<uint64_t> Cuts, double Alpha,
                                double Beta);

/// `--groups auto`: the G whose hierarchicalBcast with evenGroups(P, G) has
/// the least lock-step time. Candidates: every G when P <= 256, else
/// G <= 2 ceil(sqrt P) and G = ceil(P / k) for k <= 2 ceil(sqrt P) (both
/// sides of the parabola's minimum near sqrt P). Ties go to the smaller G.
uint32_t bestGroupCount(BcastAlgo Outer, BcastAlgo Inner, uint32_t P,
                        uint64_t Bytes, llvm::ArrayRef<uint64_t> Cuts,
                        double Alpha, double Beta);

/// The generator of one plain broadcast with the hierarchical options:
/// --p, --bytes, --root, --groups N|auto|nodes, --outer, --inner, --nodes,
/// --alpha, --beta, --segments, --segment-bytes.
class BcastFamilyGenerator : public Generator {
public:
  explicit BcastFamilyGenerator(BcastAlgo A);
  llvm::StringRef id() const override { return Id; }
  CollectiveSet collectives() const override { return {Collective::Bcast}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  /// The flat tree, the chain and the pipeline: their templates (seed 002),
  /// plain and, for the flat tree and the chain, hierarchical (--groups G
  /// with p = G n).
  llvm::ArrayRef<GeneratorTemplate> templates() const override;
  llvm::Expected<Schedule> build(const OptionValues &V) const override;
  /// Every algorithm, plain or hierarchical (--groups N, nodes or auto),
  /// has a rank form, with --nodes too (partIsWhole is false): unless the
  /// broadcast keeps to every layout (keepsNodesByConstruction), the
  /// layout is checked as the whole's build checks it and names the same
  /// node and step: a whole of at most 2p ops (the trees, MPICH's binomial
  /// choice; a hierarchy of them) is built for that check and the rank
  /// keeps its own ops (O(p) time, its ops held); MPICH's scatter + ring
  /// (scatter-ring, mpich's choice) is checked over its scatter's O(p) ops;
  /// any other (scatter-rd, circulant, mpich's scatter + recursive
  /// doubling, other hierarchies) node by node over the parts of the ranks
  /// of the nodes of several ranks, up to the first node that breaks it
  /// (on a kept layout every such node's). With --groups auto the choice
  /// prices whole building blocks.
  bool hasRankForm() const override { return true; }
  llvm::Expected<Schedule> buildRank(const OptionValues &V,
                                     Rank Me) const override;

private:
  /// Whether the schedule keeps to any --nodes layout, so that a rank's
  /// build need not check it: the flat tree, the chain and the pipeline
  /// (plain), and the hierarchical form whose groups are the nodes
  /// (--groups nodes, or --groups G whose even groups are the nodes).
  bool keepsNodesByConstruction(const OptionValues &V) const;
  /// Whether the whole schedule has at most 2p ops (by the op estimates,
  /// without building), so that a rank may build it to check the layout
  /// in O(p) and keep its own ops.
  bool linearWhole(const OptionValues &V) const;
  /// Whether the plain broadcast is MPICH's binomial scatter and ring
  /// allgather (scatter-ring, or mpich choosing it): its ring sends one
  /// message per link x -> x + 1 mod p, which keeps to every layout of
  /// consecutive ranks, so the layout is kept or refused by the scatter's
  /// O(p) ops alone, in the whole's first steps.
  bool scatterThenRing(const OptionValues &V) const;
  struct Prepared;
  llvm::Expected<Prepared> prepare(const OptionValues &V,
                                   std::optional<Rank> Only) const;

  BcastAlgo Algo;
  std::string Id;
  std::vector<OptionDecl> Options;
};

} // namespace choreo

#endif
