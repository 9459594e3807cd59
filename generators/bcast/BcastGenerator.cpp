//===- generators/bcast/BcastGenerator.cpp - Broadcast generators ---------===//
///
/// \file
/// BcastFamilyGenerator: the options every broadcast generator declares
/// (sizes, root, the pipeline's segments, --nodes, the hierarchical form),
/// what its build and its rank form share, and both builds.
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

#include "generators/SizeChecks.h"
#include "verifier/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

namespace {

/// The pipeline's default segment when neither --segments nor
/// --segment-bytes is given.
constexpr uint64_t DefaultSegmentBytes = 8192;

Option<OneOf<BcastAlgo>> algoChoice(llvm::StringRef Name,
                                    llvm::StringRef Help) {
  std::vector<Option<OneOf<BcastAlgo>>::Word> Table;
  for (BcastAlgo A : allBcastAlgos())
    Table.push_back({bcastAlgoName(A), A});
  return choiceOption<BcastAlgo>(Name, Help, Table)
      .withDefaultNote("this generator's algorithm");
}

/// The options of the family besides the shared ones.
struct FamilyOptions {
  Option<Size> Bytes = opt::bytes().withHelp("vector length to broadcast");
  Option<uint64_t> Segments =
      countOption("segments", "pipeline, circulant: cut the message into X "
                              "near-equal segments (default: segments of "
                              "8K)");
  Option<Size> SegmentBytes =
      sizeOption("segment-bytes", "pipeline, circulant: segments of S bytes, "
                                  "the last one shorter (Open MPI's "
                                  "segsize)");
  Option<SizeList> Nodes =
      sizeListOption("nodes", "ranks per compute node, consecutive ranks: "
                              "the schedule's nodes layout, kept to (one "
                              "message out of and one into a node per "
                              "step) or refused");
  Option<std::string> Groups =
      wordOption("groups",
                 "hierarchical broadcast (seed 002, Algorithm 1) over G "
                 "groups of consecutive ranks (ceil(p/G) and floor(p/G)); "
                 "auto: the G of least lock-step time under --alpha/--beta; "
                 "nodes: the --nodes layout",
                 {"auto", "nodes"})
          .admitting(OptionDecl::Numbers::Count);
  Option<OneOf<BcastAlgo>> Outer = algoChoice(
      "outer", "with --groups: the broadcast among the group leaders");
  Option<OneOf<BcastAlgo>> Inner =
      algoChoice("inner", "with --groups: the broadcast inside every group");
  Option<double> Alpha = realOption("alpha", "with --groups auto: start-up "
                                             "time of a message (seconds)")
                             .withDefault("1e-6");
  Option<double> Beta =
      realOption("beta", "with --groups auto: time per byte (seconds)")
          .withDefault("1e-10");
};

const FamilyOptions &family() {
  static const FamilyOptions F;
  return F;
}

const char *PipelineOnly =
    "only the pipeline and the circulant broadcast cut the message into "
    "segments (bcast-pipeline, bcast-circulant, or --outer/--inner pipeline "
    "or circulant with --groups)";

/// The pipeline's cuts from --segments / --segment-bytes; {0, Bytes} when
/// no pipeline is involved. The number of segments is checked against the
/// build limit before the list is made (a default 8K segment of 2^64 - 1
/// bytes would be 2^51 cuts).
llvm::Expected<SegmentCutList> segmentCuts(const OptionValues &V,
                                           uint64_t Bytes, bool Pipeline) {
  const FamilyOptions &F = family();
  bool BySegments = V.given(F.Segments), ByBytes = V.given(F.SegmentBytes);
  if (!Pipeline && (BySegments || ByBytes))
    return optionError(BySegments ? "segments" : "segment-bytes", PipelineOnly);
  if (BySegments && ByBytes)
    return optionError("segment-bytes",
                       "give --segments or --segment-bytes, not both");
  if (Bytes == 0)
    return SegmentCutList{0, 0};
  if (BySegments) {
    uint64_t X = *V.lookup(F.Segments);
    if (X == 0)
      return optionError("segments", "at least one segment");
    if (X > Bytes)
      return optionError("segments",
                         formatv("{0} segments of a {1}-byte message: "
                                 "segments larger than the message allows "
                                 "at most {1} (one byte each)",
                                 X, Bytes));
    if (X > BuildLimit)
      return optionError("segments",
                         formatv("{0} segments: more than choreo builds in "
                                 "memory ({1})",
                                 X, BuildLimit));
    SegmentCutList Cuts{0};
    for (uint64_t I = 1; I <= X; ++I)
      Cuts.push_back(partStart(Bytes, X, I));
    return Cuts;
  }
  uint64_t Seg = DefaultSegmentBytes;
  if (ByBytes) {
    Seg = *V.lookup(F.SegmentBytes);
    if (Seg == 0)
      return optionError("segment-bytes", "a segment of 0 bytes");
    if (Seg > Bytes)
      return optionError("segment-bytes",
                         formatv("a segment of {0} bytes is larger than the "
                                 "message ({1} bytes)",
                                 Seg, Bytes));
  }
  if (!Pipeline)
    return SegmentCutList{0, Bytes};
  uint64_t X = ceilDiv(Bytes, Seg);
  if (X > BuildLimit)
    return optionError(
        ByBytes ? "segment-bytes" : "bytes",
        formatv("{0} bytes in segments of {1} bytes{2} are {3} segments, "
                "more than choreo builds in memory ({4}); give a larger "
                "--segment-bytes or --segments",
                Bytes, Seg, ByBytes ? "" : " (the default)", X, BuildLimit));
  // Segment I starts at I * Seg < Bytes for I < X.
  SegmentCutList Cuts{0};
  for (uint64_t I = 1; I < X; ++I)
    Cuts.push_back(I * Seg);
  Cuts.push_back(Bytes);
  return Cuts;
}

/// --nodes as ranks per node (empty without it): every node holds a rank,
/// and they hold --p ranks in all (summed without overflow).
llvm::Expected<std::vector<uint32_t>> nodeSizes(const OptionValues &V,
                                                uint32_t P) {
  std::vector<uint32_t> Sizes;
  auto L = V.lookup(family().Nodes);
  if (!L)
    return Sizes;
  uint64_t Sum = 0;
  bool Past = false;
  for (size_t I = 0; I < L->size(); ++I) {
    if ((*L)[I] == 0)
      return optionError("nodes", formatv("node {0} has no rank", I));
    Past |= (*L)[I] > UINT64_MAX - Sum;
    Sum += (*L)[I];
    Sizes.push_back(uint32_t(std::min<uint64_t>((*L)[I], P + 1)));
  }
  if (Past)
    return optionError("nodes", formatv("the nodes hold more than 2^64 "
                                        "ranks, --p is {0}",
                                        P));
  if (Sum != P)
    return optionError("nodes", formatv("the nodes hold {0} ranks, "
                                        "--p is {1}",
                                        Sum, P));
  return Sizes;
}

/// What a broadcast that does not keep to --nodes can do instead: plain,
/// or in groups that are not the nodes.
const char *KeepNodesPlain =
    "seed 002's plain broadcasts are not node-aware (the binary, "
    "split-binary and scatter-rd trees break almost every layout, mpich when "
    "it picks scatter + recursive doubling); give --groups nodes (one leader "
    "per node, then a broadcast inside every node) or leave out --nodes";
const char *KeepNodesGroups =
    "groups that are not the nodes share the nodes' ports; give --groups "
    "nodes (one leader per node, then a broadcast inside every node) or "
    "leave out --nodes";

} // namespace

namespace bcastnodes {

/// A node's off-node sends and receives per step.
struct NodeCounts {
  std::vector<uint32_t> Sends, Recvs;
  void count(unsigned St, bool Send) {
    if (Sends.size() <= St) {
      Sends.resize(St + 1, 0);
      Recvs.resize(St + 1, 0);
    }
    ++(Send ? Sends : Recvs)[St];
  }
};

/// The error of a broken layout (NodeBreak, BcastFamily.h): the node, the
/// step and the count the whole's check and a rank's scan both name, so
/// every rank of a job and `choreo gen` give the same words.
llvm::Error brokenLayout(const Schedule &Header, const NodeBreak &B,
                         llvm::StringRef Id, llvm::StringRef Advice) {
  Diagnostic D = report::nodePort(Header, B.Send, B.Step, B.Node, B.Count, {});
  return optionError("nodes", Id + " does not keep to this layout: " +
                                  D.Message + "; " + Advice);
}

/// A node's first break from its counts per step, sends first.
std::optional<NodeBreak> firstBreak(uint32_t Node, const NodeCounts &C,
                                    NodePorts NP) {
  for (unsigned St = 0; St < C.Sends.size(); ++St) {
    bool Send = C.Sends[St] > NP.Send;
    if (Send || C.Recvs[St] > NP.Recv)
      return NodeBreak{Node, St, Send, Send ? C.Sends[St] : C.Recvs[St]};
  }
  return std::nullopt;
}

/// Whether the broadcast's whole steps S keep to its nodes layout: the
/// report above over every op (O(ops + nodes)).
llvm::Error checkWhole(const Schedule &S, llvm::StringRef Id,
                       llvm::StringRef Advice) {
  if (!S.hasNodes())
    return llvm::Error::success();
  std::vector<uint32_t> NodeOf = S.nodeOfRank();
  std::vector<NodeCounts> Counts(S.Nodes->size());
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St)
    for (const Op &O : S.Steps.step(St)) {
      uint32_t From = NodeOf[O.Src], To = NodeOf[O.Dst];
      if (From == To)
        continue;
      Counts[From].count(St, true);
      Counts[To].count(St, false);
    }
  for (uint32_t N = 0; N < Counts.size(); ++N)
    if (auto B = firstBreak(N, Counts[N], S.nodePorts()))
      return brokenLayout(S, *B, Id, Advice);
  return llvm::Error::success();
}

/// The same report from the parts of the ranks of the nodes of more than
/// one rank, node by node, stopping at the first broken node: PartOf(x)
/// is rank x's ops in the whole's steps. A node of one rank keeps to any
/// layout (every broadcast is single-ported: a rank sends and receives at
/// most one message per step), so its rank is not built. Time: the parts
/// of the ranks of the nodes up to the first broken one (on a kept layout,
/// of every rank on a node of several); memory: one part and a node's
/// counts per step.
llvm::Error checkByParts(const Schedule &Header,
                         llvm::function_ref<StepList(Rank)> PartOf,
                         llvm::StringRef Id, llvm::StringRef Advice) {
  for (uint32_t N = 0; N < Header.Nodes->size(); ++N) {
    const std::vector<Rank> &Ranks = (*Header.Nodes)[N];
    if (Ranks.size() < 2)
      continue;
    // Nodes of consecutive ranks (prepare's layout).
    Rank Lo = Ranks.front(), Hi = Ranks.back() + 1;
    auto Off = [&](Rank R) { return R < Lo || R >= Hi; };
    NodeCounts C;
    for (Rank X = Lo; X < Hi; ++X) {
      StepList L = PartOf(X);
      for (unsigned St = 0; St < L.numSteps(); ++St)
        for (const Op &O : L.step(St)) {
          if (O.Src == X && Off(O.Dst))
            C.count(St, true);
          else if (O.Dst == X && Off(O.Src))
            C.count(St, false);
        }
    }
    if (auto B = firstBreak(N, C, Header.nodePorts()))
      return brokenLayout(Header, *B, Id, Advice);
  }
  return llvm::Error::success();
}

} // namespace bcastnodes

BcastFamilyGenerator::BcastFamilyGenerator(BcastAlgo A)
    : Algo(A), Id(("bcast-" + bcastAlgoName(A)).str()) {
  const FamilyOptions &F = family();
  Options = {opt::ranks(), F.Bytes,     F.Segments, F.SegmentBytes,
             F.Nodes,      opt::root(), F.Groups,   F.Outer,
             F.Inner,      F.Alpha,     F.Beta};
}

llvm::ArrayRef<GeneratorTemplate> BcastFamilyGenerator::templates() const {
  // The hierarchical templates take G = groups groups of n ranks and the
  // root o places into group g.
  static const char *Hier = "p = groups * n, groups = groups, root = g * n + o";
  static const GeneratorTemplate Flat[] = {{"bcast-flat", ""},
                                           {"bcast-hier-flat", "", Hier}};
  static const GeneratorTemplate Chain[] = {{"bcast-chain", ""},
                                            {"bcast-hier-chain", "", Hier}};
  static const GeneratorTemplate Pipeline[] = {{"bcast-pipeline", ""}};
  switch (Algo) {
  case BcastAlgo::Flat:
    return Flat;
  case BcastAlgo::Chain:
    return Chain;
  case BcastAlgo::Pipeline:
    return Pipeline;
  default:
    return {};
  }
}

/// What build and buildRank share: the header, the algorithms, the cuts
/// and the groups (with --groups).
struct BcastFamilyGenerator::Prepared {
  Schedule S;
  uint32_t Root = 0;
  uint64_t Bytes = 0;
  SegmentCutList Cuts;
  bool Hier = false;
  Hierarchy H;
};

llvm::Expected<BcastFamilyGenerator::Prepared>
BcastFamilyGenerator::prepare(const OptionValues &V,
                              std::optional<Rank> Only) const {
  auto P = groupCount(V, opt::ranks());
  if (!P)
    return P.takeError();
  auto Root = rootRank(V, *P);
  if (!Root)
    return Root.takeError();
  const FamilyOptions &F = family();
  auto Bytes = requiredNumber(V, F.Bytes);
  if (!Bytes)
    return Bytes.takeError();

  auto NodeSizes = nodeSizes(V, *P);
  if (!NodeSizes)
    return NodeSizes.takeError();

  bool Hier = V.has(F.Groups);
  BcastAlgo Outer = Algo, Inner = Algo;
  for (const Option<OneOf<BcastAlgo>> *O : {&F.Outer, &F.Inner}) {
    if (!V.given(*O))
      continue;
    if (!Hier)
      return optionError(O->name(), "only the hierarchical form (--groups) "
                                    "has an outer and an inner broadcast");
    (O == &F.Outer ? Outer : Inner) = *V.lookup(*O);
  }
  std::string GroupsWord = Hier ? *V.lookup(F.Groups) : "";
  llvm::StringRef GroupsText = GroupsWord;
  for (const Option<double> *O : {&F.Alpha, &F.Beta})
    if (V.given(*O) && GroupsText != "auto")
      return optionError(O->name(), "only --groups auto uses the cost model");

  bool Pipeline = cutsSegments(Algo) ||
                  (Hier && (cutsSegments(Outer) || cutsSegments(Inner)));
  auto Cuts = segmentCuts(V, *Bytes, Pipeline);
  if (!Cuts)
    return Cuts.takeError();
  uint64_t X = Cuts->size() - 1;

  Prepared Out;
  Schedule &S = Out.S;
  S.Kind = Collective::Bcast;
  setIntragroup(S, *P, {*Bytes});
  S.Root = *Root;
  if (!NodeSizes->empty()) {
    std::vector<std::vector<Rank>> Nodes;
    Rank At = 0;
    for (uint32_t Size : *NodeSizes) {
      Nodes.emplace_back();
      for (uint32_t I = 0; I < Size; ++I)
        Nodes.back().push_back(At++);
    }
    S.Nodes = std::move(Nodes);
  }
  Out.Root = *Root;
  Out.Bytes = *Bytes;
  Out.Cuts = std::move(*Cuts);
  Out.Hier = Hier;

  if (!Hier) {
    uint64_t Ops = Only ? plainBcastRankOps(Algo, *P, *Bytes, X)
                        : plainBcastOps(Algo, *P, *Bytes, X);
    if (auto E = checkOpBudget(id(), Ops))
      return E;
    return Out;
  }

  Hierarchy &H = Out.H;
  H.Outer = Outer;
  H.Inner = Inner;
  if (GroupsText == "nodes") {
    if (NodeSizes->empty())
      return optionError("groups", "nodes: the schedule has no nodes layout "
                                   "(give --nodes)");
    H.GroupSizes = *NodeSizes;
  } else if (GroupsText == "auto") {
    // The candidates' building blocks include the plain outer and inner
    // broadcasts over all p ranks (G = p and G = 1).
    if (auto E =
            checkOpBudget(id(), std::max(plainBcastOps(Outer, *P, *Bytes, X),
                                         plainBcastOps(Inner, *P, *Bytes, X))))
      return E;
    H.GroupSizes =
        evenGroups(*P, bestGroupCount(Outer, Inner, *P, *Bytes, Out.Cuts,
                                      V.get(F.Alpha), V.get(F.Beta)));
  } else {
    uint64_t G = 0;
    GroupsText.getAsInteger(10, G); // checked by bindOptions
    if (G == 0)
      return optionError("groups", "at least one group");
    if (G > *P)
      return optionError("groups", formatv("{0} groups of {1} ranks: at most "
                                           "--p groups (one rank each)",
                                           G, *P));
    H.GroupSizes = evenGroups(*P, uint32_t(G));
  }
  uint64_t Ops = hierarchicalBcastOps(H, *Bytes, X);
  if (Only) {
    // Me's outer and inner ops, and one rank's of each distinct inner
    // broadcast (for the steps they use).
    uint32_t Largest = *llvm::max_element(H.GroupSizes);
    Ops = satAdd(plainBcastRankOps(Outer, H.GroupSizes.size(), *Bytes, X),
                 satMul(4, plainBcastRankOps(Inner, Largest, *Bytes, X)));
  }
  if (auto E = checkOpBudget(id(), Ops))
    return E;
  return Out;
}

llvm::Expected<Schedule>
BcastFamilyGenerator::build(const OptionValues &V) const {
  auto P = prepare(V, std::nullopt);
  if (!P)
    return P.takeError();
  Schedule &S = P->S;
  if (!P->Hier) {
    S.Steps = plainBcast(Algo, S.NumRanks, P->Bytes, P->Root, P->Cuts);
    S.Steps.dropEmptySteps();
    if (auto E = bcastnodes::checkWhole(S, id(), KeepNodesPlain))
      return E;
    return std::move(S);
  }
  S.Steps = hierarchicalBcast(P->H, P->Bytes, P->Root, P->Cuts);
  S.Steps.dropEmptySteps();
  // Groups of one node each keep to it: the outer broadcast has one
  // leader per node, the inner ones stay inside.
  if (auto E = bcastnodes::checkWhole(S, id(), KeepNodesGroups))
    return E;
  return std::move(S);
}

bool BcastFamilyGenerator::keepsNodesByConstruction(
    const OptionValues &V) const {
  const FamilyOptions &F = family();
  auto P = groupCount(V, opt::ranks());
  if (!P) {
    llvm::consumeError(P.takeError());
    return false;
  }
  auto NodeSizes = nodeSizes(V, *P);
  if (!NodeSizes) {
    llvm::consumeError(NodeSizes.takeError());
    return false;
  }
  // One node: no op leaves it.
  if (NodeSizes->size() <= 1)
    return true;
  // The flat tree sends one message per step, the chain and the pipeline
  // one per link (x -> x + 1 mod p): a node's only links off it are from
  // its last rank and into its first. On nodes of one rank each every
  // plain broadcast keeps (each is single-ported: a rank sends and
  // receives at most one message per step, and a node's ops off it are its
  // rank's).
  if (!V.has(F.Groups))
    return Algo == BcastAlgo::Flat || Algo == BcastAlgo::Chain ||
           Algo == BcastAlgo::Pipeline ||
           llvm::all_of(*NodeSizes, [](uint32_t K) { return K == 1; });
  // Groups that are the nodes: off a node go only its leader's ops of the
  // outer broadcast, at most one send and one receive per step (every
  // plain broadcast is single-ported).
  llvm::StringRef Word = *V.lookup(F.Groups);
  if (Word == "nodes")
    return true;
  uint64_t G = 0;
  if (Word.getAsInteger(10, G) || G == 0 || G > *P)
    return false;
  return evenGroups(*P, uint32_t(G)) == *NodeSizes;
}

bool BcastFamilyGenerator::linearWhole(const OptionValues &V) const {
  auto P = prepare(V, std::nullopt);
  if (!P) {
    llvm::consumeError(P.takeError());
    return false;
  }
  uint64_t X = P->Cuts.size() - 1;
  uint64_t Ops = P->Hier ? hierarchicalBcastOps(P->H, P->Bytes, X)
                         : plainBcastOps(Algo, P->S.NumRanks, P->Bytes, X);
  return Ops <= 2 * uint64_t(P->S.NumRanks);
}

bool BcastFamilyGenerator::scatterThenRing(const OptionValues &V) const {
  if (V.has(family().Groups) ||
      (Algo != BcastAlgo::ScatterRing && Algo != BcastAlgo::Mpich))
    return false;
  auto P = groupCount(V, opt::ranks());
  if (!P) {
    llvm::consumeError(P.takeError());
    return false;
  }
  std::optional<uint64_t> Bytes = V.lookup(family().Bytes);
  if (!Bytes)
    return false;
  return Algo == BcastAlgo::ScatterRing ||
         mpichBcastChoice(*P, *Bytes) == MpichBcast::ScatterRing;
}

llvm::Expected<Schedule> BcastFamilyGenerator::buildRank(const OptionValues &V,
                                                         Rank Me) const {
  // With --nodes, unless the broadcast keeps to every layout: a whole of
  // O(p) ops is built, checked and the rank's ops kept; MPICH's scatter +
  // ring is checked over its scatter; any other is checked node by node
  // over the parts of the ranks of the nodes of several ranks.
  bool CheckScatter = false, ScanNodes = false;
  if (V.has(family().Nodes) && !keepsNodesByConstruction(V) &&
      !(CheckScatter = scatterThenRing(V))) {
    if (!linearWhole(V)) {
      ScanNodes = true;
    } else {
      auto S = build(V);
      if (!S)
        return S.takeError();
      if (Me >= S->NumRanks)
        return optionError(
            "p", formatv("rank {0} is not below --p {1}", Me, S->NumRanks));
      return onlyRank(*S, Me);
    }
  }
  auto P = prepare(V, Me);
  if (!P)
    return P.takeError();
  Schedule &S = P->S;
  if (CheckScatter) {
    // The layout over the scatter's ops, the whole's first steps (the
    // whole's check names the same node and step: the ring after it keeps
    // to the layout).
    S.Steps = bcastScatter(S.NumRanks, P->Bytes, P->Root);
    S.Steps.dropEmptySteps();
    if (auto E = bcastnodes::checkWhole(S, id(), KeepNodesPlain))
      return std::move(E);
    S.Steps = StepList();
  }
  std::optional<HierarchyParts> Hier;
  if (P->Hier)
    Hier.emplace(P->H, P->Bytes, P->Root, P->Cuts);
  auto PartOf = [&](Rank X) {
    return (Hier ? Hier->of(X)
                 : plainBcastRank(Algo, S.NumRanks, P->Bytes, P->Root, P->Cuts,
                                  X))
        .kept();
  };
  if (ScanNodes && Hier) {
    if (auto B = Hier->firstNodeBreak(*S.Nodes, S.nodePorts()))
      return bcastnodes::brokenLayout(S, *B, id(), KeepNodesGroups);
  } else if (ScanNodes) {
    if (auto E = bcastnodes::checkByParts(S, PartOf, id(), KeepNodesPlain))
      return std::move(E);
  }
  if (Me >= S.NumRanks)
    return optionError(
        "p", formatv("rank {0} is not below --p {1}", Me, S.NumRanks));
  S.Steps = PartOf(Me);
  return std::move(S);
}
