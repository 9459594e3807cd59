//===- generators/bcast/BcastFamily.cpp - The broadcast family ------------===//
///
/// \file
/// The plain broadcasts by name, their op counts, Algorithm 1 of seed 002
/// (hierarchical broadcast) with G chosen by the cost model (lock-step
/// times from cost/StepProfile.h), and the options and build of every
/// broadcast generator.
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

#include "cost/StepProfile.h"
#include "generators/SizeChecks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>

using namespace choreo;
using llvm::formatv;

namespace {

const BcastAlgo Algos[] = {
    BcastAlgo::Flat,        BcastAlgo::Chain,     BcastAlgo::Pipeline,
    BcastAlgo::Binary,      BcastAlgo::Binomial,  BcastAlgo::SplitBinary,
    BcastAlgo::ScatterRing, BcastAlgo::ScatterRd, BcastAlgo::Mpich};

/// The pipeline's default segment when neither --segments nor
/// --segment-bytes is given.
constexpr uint64_t DefaultSegmentBytes = 8192;

} // namespace

llvm::StringRef choreo::bcastAlgoName(BcastAlgo A) {
  switch (A) {
  case BcastAlgo::Flat:
    return "flat";
  case BcastAlgo::Chain:
    return "chain";
  case BcastAlgo::Pipeline:
    return "pipeline";
  case BcastAlgo::Binary:
    return "binary";
  case BcastAlgo::Binomial:
    return "binomial";
  case BcastAlgo::SplitBinary:
    return "split-binary";
  case BcastAlgo::ScatterRing:
    return "scatter-ring";
  case BcastAlgo::ScatterRd:
    return "scatter-rd";
  case BcastAlgo::Mpich:
    return "mpich";
  }
  return "?";
}

std::optional<BcastAlgo> choreo::bcastAlgoByName(llvm::StringRef Name) {
  for (BcastAlgo A : Algos)
    if (bcastAlgoName(A) == Name)
      return A;
  return std::nullopt;
}

llvm::ArrayRef<BcastAlgo> choreo::allBcastAlgos() { return Algos; }

StepList choreo::plainBcast(BcastAlgo A, uint32_t N, uint64_t Bytes,
                            uint32_t Root, llvm::ArrayRef<uint64_t> Cuts) {
  switch (A) {
  case BcastAlgo::Flat:
    return flatBcast(N, Bytes, Root);
  case BcastAlgo::Chain: {
    uint64_t One[] = {0, Bytes};
    return pipelineBcast(N, One, Root);
  }
  case BcastAlgo::Pipeline:
    return pipelineBcast(N, Cuts, Root);
  case BcastAlgo::Binary:
    return binaryBcast(N, Bytes, Root);
  case BcastAlgo::Binomial:
    return binomialBcast(N, Bytes, Root);
  case BcastAlgo::SplitBinary:
    return splitBinaryBcast(N, Bytes, Root);
  case BcastAlgo::ScatterRing:
    return scatterAllgatherBcast(N, Bytes, Root, IntraAlgorithm::Ring);
  case BcastAlgo::ScatterRd:
    return scatterRecursiveDoublingBcast(N, Bytes, Root);
  case BcastAlgo::Mpich:
    return mpichBcast(N, Bytes, Root);
  }
  return {};
}

uint64_t choreo::plainBcastOps(BcastAlgo A, uint32_t N, uint64_t Bytes,
                               uint64_t X) {
  if (N < 2 || Bytes == 0)
    return 0;
  uint64_t P = N, L = ceilLog2(N);
  switch (A) {
  case BcastAlgo::Flat:
  case BcastAlgo::Chain:
  case BcastAlgo::Binary:
  case BcastAlgo::Binomial:
    return P - 1;
  case BcastAlgo::Pipeline:
    return satMul(P - 1, X);
  case BcastAlgo::SplitBinary:
    return 2 * P;
  case BcastAlgo::ScatterRing:
    return (P - 1) + P * (P - 1);
  case BcastAlgo::ScatterRd:
    // Scatter, one exchange per rank and mask, and at most one fill-in op
    // per rank and halving step.
    return (P - 1) + P * L + P * L * L;
  case BcastAlgo::Mpich:
    switch (mpichBcastChoice(N, Bytes)) {
    case MpichBcast::Binomial:
      return P - 1;
    case MpichBcast::ScatterRecursiveDoubling:
      return (P - 1) + P * L;
    case MpichBcast::ScatterRing:
      return (P - 1) + P * (P - 1);
    }
  }
  return 0;
}

std::vector<uint32_t> choreo::evenGroups(uint32_t P, uint32_t G) {
  std::vector<uint32_t> Sizes(G, P / G);
  for (uint32_t I = 0; I < P % G; ++I)
    ++Sizes[I];
  return Sizes;
}

namespace {

/// Group starts, the root's group and each group's leader.
struct GroupLayout {
  std::vector<uint32_t> Start, Leader;
  uint32_t RootGroup = 0;
};

GroupLayout layout(llvm::ArrayRef<uint32_t> Sizes, uint32_t Root) {
  GroupLayout G;
  uint32_t At = 0;
  for (uint32_t I = 0; I < Sizes.size(); ++I) {
    G.Start.push_back(At);
    bool HasRoot = Root >= At && Root < At + Sizes[I];
    if (HasRoot)
      G.RootGroup = I;
    G.Leader.push_back(HasRoot ? Root : At);
    At += Sizes[I];
  }
  return G;
}

} // namespace

StepList choreo::hierarchicalBcast(const Hierarchy &H, uint64_t Bytes,
                                   uint32_t Root,
                                   llvm::ArrayRef<uint64_t> Cuts) {
  GroupLayout G = layout(H.GroupSizes, Root);
  uint32_t NumGroups = H.GroupSizes.size();
  StepList L = plainBcast(H.Outer, NumGroups, Bytes, G.RootGroup, Cuts)
                   .relabeled(G.Leader);
  // Every group's broadcast over local ranks; groups of one size and local
  // root share one (at most three distinct: two sizes, the root's group).
  std::map<std::pair<uint32_t, uint32_t>, StepList> Local;
  std::vector<const StepList *> Of(NumGroups);
  unsigned Steps = 0;
  for (uint32_t I = 0; I < NumGroups; ++I) {
    std::pair<uint32_t, uint32_t> Key(H.GroupSizes[I],
                                      G.Leader[I] - G.Start[I]);
    auto It = Local.find(Key);
    if (It == Local.end())
      It = Local
               .emplace(Key,
                        plainBcast(H.Inner, Key.first, Bytes, Key.second, Cuts))
               .first;
    Of[I] = &It->second;
    Steps = std::max(Steps, It->second.numSteps());
  }
  // Alongside: step s holds step s of every group, in group order.
  for (unsigned S = 0; S < Steps; ++S) {
    L.newStep();
    for (uint32_t I = 0; I < NumGroups; ++I) {
      if (S >= Of[I]->numSteps())
        continue;
      for (const Op &O : Of[I]->step(S))
        L.addOp(G.Start[I] + O.Src, G.Start[I] + O.Dst, Of[I]->blocks(O));
    }
  }
  return L;
}

uint64_t choreo::hierarchicalBcastOps(const Hierarchy &H, uint64_t Bytes,
                                      uint64_t X) {
  uint64_t Ops = plainBcastOps(H.Outer, H.GroupSizes.size(), Bytes, X);
  for (uint32_t Size : H.GroupSizes)
    Ops = satAdd(Ops, plainBcastOps(H.Inner, Size, Bytes, X));
  return Ops;
}

namespace {

CostModel alphaBeta(double Alpha, double Beta) {
  CostModel M;
  M.Alpha = Alpha;
  M.Beta = Beta;
  return M;
}

/// Step profiles (cost/StepProfile.h) of plain broadcasts, by algorithm and
/// size (the root does not change them: a relabelling).
class ProfileCache {
public:
  ProfileCache(uint64_t Bytes, llvm::ArrayRef<uint64_t> Cuts)
      : Bytes(Bytes), Cuts(Cuts) {}
  const StepProfile &get(BcastAlgo A, uint32_t N) {
    auto Key = std::make_pair(int(A), N);
    auto It = Cache.find(Key);
    if (It == Cache.end())
      It = Cache.emplace(Key, stepProfile(plainBcast(A, N, Bytes, 0, Cuts)))
               .first;
    return It->second;
  }

private:
  uint64_t Bytes;
  llvm::ArrayRef<uint64_t> Cuts;
  std::map<std::pair<int, uint32_t>, StepProfile> Cache;
};

/// The outer broadcast's steps, then the groups' alongside.
double hierarchyTime(const Hierarchy &H, ProfileCache &C,
                     const CostModel &M) {
  const StepProfile *Outer = &C.get(H.Outer, H.GroupSizes.size());
  double T = alongsideLockstepTime({Outer}, M);
  std::vector<const StepProfile *> Inner;
  std::vector<uint32_t> Seen;
  for (uint32_t Size : H.GroupSizes)
    if (!llvm::is_contained(Seen, Size)) {
      Seen.push_back(Size);
      Inner.push_back(&C.get(H.Inner, Size));
    }
  return T + alongsideLockstepTime(Inner, M);
}

} // namespace

double choreo::hierarchicalLockstepTime(const Hierarchy &H, uint64_t Bytes,
                                        llvm::ArrayRef<uint64_t> Cuts,
                                        double Alpha, double Beta) {
  ProfileCache C(Bytes, Cuts);
  return hierarchyTime(H, C, alphaBeta(Alpha, Beta));
}

uint32_t choreo::bestGroupCount(BcastAlgo Outer, BcastAlgo Inner, uint32_t P,
                                uint64_t Bytes, llvm::ArrayRef<uint64_t> Cuts,
                                double Alpha, double Beta) {
  std::vector<uint32_t> Candidates;
  if (P <= 256) {
    for (uint32_t G = 1; G <= P; ++G)
      Candidates.push_back(G);
  } else {
    uint32_t K = 2 * uint32_t(std::ceil(std::sqrt(double(P))));
    for (uint32_t G = 1; G <= K; ++G) {
      Candidates.push_back(G);
      Candidates.push_back((P + G - 1) / G);
    }
    llvm::sort(Candidates);
    Candidates.erase(std::unique(Candidates.begin(), Candidates.end()),
                     Candidates.end());
  }
  ProfileCache C(Bytes, Cuts);
  CostModel M = alphaBeta(Alpha, Beta);
  uint32_t Best = 1;
  double BestTime = INFINITY;
  for (uint32_t G : Candidates) {
    double T = hierarchyTime({Outer, Inner, evenGroups(P, G)}, C, M);
    if (T < BestTime) {
      BestTime = T;
      Best = G;
    }
  }
  return Best;
}

//===----------------------------------------------------------------------===//
// The generators
//===----------------------------------------------------------------------===//

namespace {

Option<OneOf<BcastAlgo>> algoChoice(llvm::StringRef Name,
                                     llvm::StringRef Help) {
  std::vector<Option<OneOf<BcastAlgo>>::Word> Table;
  for (BcastAlgo A : Algos)
    Table.push_back({bcastAlgoName(A), A});
  return choiceOption<BcastAlgo>(Name, Help, Table)
      .withDefaultNote("this generator's algorithm");
}

/// The options of the family besides the shared ones.
struct FamilyOptions {
  Option<Size> Bytes = opt::bytes().withHelp("vector length to broadcast");
  Option<uint64_t> Segments =
      countOption("segments", "pipeline: cut the message into X near-equal "
                              "segments (default: segments of 8K)");
  Option<Size> SegmentBytes =
      sizeOption("segment-bytes", "pipeline: segments of S bytes, the last "
                                  "one shorter (Open MPI's segsize)");
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

const char *PipelineOnly = "only the pipeline cuts the message into "
                           "segments (bcast-pipeline, or --outer/--inner "
                           "pipeline with --groups)";

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

BcastFamilyGenerator::BcastFamilyGenerator(BcastAlgo A)
    : Algo(A), Id(("bcast-" + bcastAlgoName(A)).str()) {
  const FamilyOptions &F = family();
  Options = {opt::ranks(), F.Bytes,  F.Segments, F.SegmentBytes,
             F.Nodes,      opt::root(), F.Groups, F.Outer,
             F.Inner,      F.Alpha,  F.Beta};
}

llvm::Expected<Schedule>
BcastFamilyGenerator::build(const OptionValues &V) const {
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

  bool Pipeline =
      Algo == BcastAlgo::Pipeline ||
      (Hier && (Outer == BcastAlgo::Pipeline || Inner == BcastAlgo::Pipeline));
  auto Cuts = segmentCuts(V, *Bytes, Pipeline);
  if (!Cuts)
    return Cuts.takeError();
  uint64_t X = Cuts->size() - 1;

  Schedule S;
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

  if (!Hier) {
    if (auto E = checkOpBudget(id(), plainBcastOps(Algo, *P, *Bytes, X)))
      return E;
    S.Steps = plainBcast(Algo, *P, *Bytes, *Root, *Cuts);
    S.Steps.dropEmptySteps();
    if (auto E = checkKeepsNodes(S, id(), KeepNodesPlain))
      return E;
    return S;
  }

  Hierarchy H{Outer, Inner, {}};
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
    H.GroupSizes = evenGroups(*P, bestGroupCount(Outer, Inner, *P, *Bytes,
                                                 *Cuts, V.get(F.Alpha),
                                                 V.get(F.Beta)));
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
  if (auto E = checkOpBudget(id(), hierarchicalBcastOps(H, *Bytes, X)))
    return E;
  S.Steps = hierarchicalBcast(H, *Bytes, *Root, *Cuts);
  S.Steps.dropEmptySteps();
  // Groups of one node each keep to it: the outer broadcast has one
  // leader per node, the inner ones stay inside.
  if (auto E = checkKeepsNodes(S, id(), KeepNodesGroups))
    return E;
  return S;
}
