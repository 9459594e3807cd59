//===- generators/CommonOptions.cpp - Options generators share ------------===//
///
/// \file
/// Declarations of the shared options and the readers of their values.
///
//===----------------------------------------------------------------------===//

#include "generators/CommonOptions.h"
#include "generators/Generator.h"
#include "generators/allgatherv/Distributions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

OptionDecl opt::ranks() { return OptionDecl::count("p", "number of ranks"); }

OptionDecl opt::groupA() { return OptionDecl::count("p", "size of group A"); }

OptionDecl opt::groupB() { return OptionDecl::count("q", "size of group B"); }

OptionDecl opt::bytes() {
  return OptionDecl::size("bytes", "bytes each rank contributes",
                          SizedGroup::All);
}

OptionDecl opt::counts() {
  return OptionDecl::sizeList("counts", "comma list of bytes, one per rank",
                              SizedGroup::All);
}

namespace {
/// --bytes-X and --counts-X of group X (a or b): every member alike, or
/// one size per member.
OptionDecl groupBytes(llvm::StringRef X, SizedGroup G) {
  return OptionDecl::size("bytes-" + X.lower(),
                          ("bytes each member of " + X + " contributes").str(),
                          G);
}
OptionDecl groupCounts(llvm::StringRef X, SizedGroup G) {
  return OptionDecl::sizeList(
      "counts-" + X.lower(),
      ("comma list of bytes, one per member of " + X).str(), G);
}
} // namespace

OptionDecl opt::bytesA() { return groupBytes("A", SizedGroup::A); }
OptionDecl opt::countsA() { return groupCounts("A", SizedGroup::A); }
OptionDecl opt::bytesB() { return groupBytes("B", SizedGroup::B); }
OptionDecl opt::countsB() { return groupCounts("B", SizedGroup::B); }

OptionDecl opt::distribution() {
  return OptionDecl::choice("distribution",
                            "seed 003's distribution of the contributions "
                            "(Section 3), from --base c",
                            distributionNames());
}

OptionDecl opt::base() {
  return OptionDecl::size("base",
                          "the base size c in bytes of --distribution",
                          SizedGroup::All);
}

OptionDecl opt::root() {
  return OptionDecl::rank("root", "root rank of the collective")
      .withDefault("0");
}

OptionDecl opt::vectorBytes() {
  return OptionDecl::size("bytes", "vector length n in bytes (every rank's "
                                   "input)",
                          SizedGroup::All);
}

OptionDecl opt::elementBytes() {
  return OptionDecl::size("element-bytes",
                          "bytes per element; blocks never split one",
                          SizedGroup::None)
      .withDefault("8");
}

namespace {
const char *OpHelp = "the operator: commutative, or noncommutative (every "
                     "combination keeps rank order)";
} // namespace

OptionDecl opt::reductionOp() {
  return OptionDecl::choice("op", OpHelp, {"commutative", "noncommutative"})
      .withDefault("commutative");
}

OptionDecl opt::commutativeOp(llvm::StringRef Why) {
  return OptionDecl::choice("op", OpHelp, {"commutative"})
      .withDefault("commutative")
      .refusing("noncommutative", Why);
}

OptionDecl opt::slices() {
  return OptionDecl::sizeList("slices",
                              "comma list of each rank's result slice in "
                              "bytes (default: n cut into p near-equal "
                              "slices of whole elements)",
                              SizedGroup::None);
}

namespace {
const char *TopologyHelp = "links between the ranks: full (every pair) or "
                           "ring (neighbours i and i + 1 mod n only)";
} // namespace

OptionDecl opt::anyTopology() {
  return OptionDecl::choice("topology", TopologyHelp, {"full", "ring"})
      .withDefault("full");
}

OptionDecl opt::fullTopology() {
  return OptionDecl::choice("topology", TopologyHelp, {"full"})
      .withDefault("full")
      .refusing("ring", "this algorithm needs links the ring does not have; "
                        "use --topology full");
}

OptionDecl opt::ringTopology(llvm::StringRef Id) {
  return OptionDecl::choice("topology", TopologyHelp, {"ring"})
      .withDefault("ring")
      .refusing("full",
                (Id + " runs on the ring only (--topology ring)").str());
}

OptionDecl opt::nodes() {
  return OptionDecl::sizeList("nodes",
                              "processes per compute node, consecutive ranks "
                              "per node (1,5,2: rank 0, ranks 1-5, ranks 6-7)",
                              SizedGroup::None);
}

OptionDecl opt::nodeOf() {
  return OptionDecl::sizeList("node-of",
                              "the compute node of every rank (0,1,0,1: two "
                              "nodes, ranks placed round robin)",
                              SizedGroup::None);
}

OptionDecl opt::intra(llvm::ArrayRef<IntraAlgorithm> Allowed) {
  llvm::SmallVector<llvm::StringRef, 3> Names;
  for (IntraAlgorithm A : Allowed)
    Names.push_back(intraAlgorithmName(A));
  return OptionDecl::choice("intra", "algorithm of the intragroup allgathers",
                            Names);
}

llvm::Expected<std::optional<std::vector<uint32_t>>>
choreo::nodeOfRanks(const OptionValues &V, uint32_t P,
                    llvm::StringRef CountName) {
  auto Nodes = V.sizeList("nodes");
  auto NodeOf = V.sizeList("node-of");
  if (Nodes && NodeOf)
    return optionError("node-of", "give --nodes or --node-of, not both");
  std::vector<uint32_t> Out;
  if (Nodes) {
    uint64_t Sum = 0;
    for (size_t N = 0; N < Nodes->size(); ++N) {
      if ((*Nodes)[N] == 0)
        return optionError("nodes", formatv("node {0} has no process; every "
                                            "node holds at least one",
                                            N));
      Sum += (*Nodes)[N];
      if (Sum > P)
        break;
      Out.insert(Out.end(), (*Nodes)[N], uint32_t(N));
    }
    if (Sum != P)
      return optionError(
          "nodes", formatv("the processes per node add up to {0}{1}, but "
                           "{2} is {3}",
                           Sum > P ? "more than " : "", Sum > P ? P : Sum,
                           CountName, P));
    return std::optional<std::vector<uint32_t>>(std::move(Out));
  }
  if (NodeOf) {
    if (NodeOf->size() != P)
      return optionError("node-of", formatv("{0} nodes given for {1} {2}; "
                                            "give the node of every rank",
                                            NodeOf->size(), CountName, P));
    uint64_t Max = 0;
    for (uint64_t N : *NodeOf)
      Max = std::max(Max, N);
    if (Max >= P)
      return optionError("node-of", formatv("node {0} is not below {1} {2}; "
                                            "number the nodes 0, 1, ...",
                                            Max, CountName, P));
    std::vector<bool> Used(Max + 1, false);
    for (uint64_t N : *NodeOf)
      Used[N] = true;
    for (uint64_t N = 0; N <= Max; ++N)
      if (!Used[N])
        return optionError("node-of",
                           formatv("node {0} has no rank, but node {1} has; "
                                   "number the nodes 0, 1, ... without gaps",
                                   N, Max));
    Out.assign(NodeOf->begin(), NodeOf->end());
    return std::optional<std::vector<uint32_t>>(std::move(Out));
  }
  return std::optional<std::vector<uint32_t>>();
}

std::vector<std::vector<Rank>>
choreo::nodePartition(llvm::ArrayRef<uint32_t> NodeOf) {
  uint32_t NumNodes = 0;
  for (uint32_t X : NodeOf)
    NumNodes = std::max(NumNodes, X + 1);
  std::vector<std::vector<Rank>> Nodes(NumNodes);
  for (Rank R = 0; R < NodeOf.size(); ++R)
    Nodes[NodeOf[R]].push_back(R);
  return Nodes;
}

llvm::Expected<uint64_t> choreo::requiredNumber(const OptionValues &V,
                                                llvm::StringRef Name) {
  if (std::optional<uint64_t> X = V.number(Name))
    return *X;
  const OptionDecl *D = V.decl(Name);
  return optionError(Name, "missing: the " + (D ? D->Help : Name.str()));
}

llvm::Expected<uint32_t> choreo::groupCount(const OptionValues &V,
                                            llvm::StringRef Name) {
  auto N = requiredNumber(V, Name);
  if (!N)
    return N.takeError();
  if (*N == 0) {
    const OptionDecl *D = V.decl(Name);
    return optionError(Name, "the " + (D ? D->Help : Name.str()) +
                                 " must be at least 1");
  }
  if (*N > (1u << 20))
    return optionError(Name, formatv("{0} is more ranks than choreo "
                                     "generates (at most 1048576)",
                                     *N));
  return static_cast<uint32_t>(*N);
}

llvm::Expected<std::vector<uint64_t>> choreo::memberSizes(const OptionValues &V,
                                                          SizedGroup Group,
                                                          uint32_t N,
                                                          bool &Irregular) {
  const OptionDecl *BytesD = nullptr, *CountsD = nullptr;
  for (const OptionDecl &D : V.decls())
    if (D.Sizes == Group) {
      if (D.Kind == OptionKind::Size && !BytesD)
        BytesD = &D;
      else if (D.Kind == OptionKind::SizeList && !CountsD)
        CountsD = &D;
    }
  assert(BytesD && "no size option declared for the group");
  if (!BytesD)
    return makeDiagError("params", "no size option declared for the group");
  llvm::StringRef BytesOpt = BytesD->Name;
  std::optional<uint64_t> Bytes = V.number(BytesOpt);
  std::optional<std::vector<uint64_t>> Counts;
  if (CountsD)
    Counts = V.sizeList(CountsD->Name);
  if (Bytes && Counts)
    return optionError(CountsD->Name, formatv("give --{0} or --{1}, not both",
                                              BytesOpt, CountsD->Name));
  if (!Bytes && !Counts)
    return optionError(
        BytesOpt,
        CountsD ? formatv("missing: give --{0} (every member alike) or --{1} "
                          "(one per member)",
                          BytesOpt, CountsD->Name)
                      .str()
                : formatv("missing: the {0}", BytesD->Help).str());
  Irregular = Counts.has_value();
  if (Bytes) {
    if (*Bytes != 0 && N > UINT64_MAX / *Bytes)
      return optionError(BytesOpt, "the sizes add up past 2^64 bytes");
    return std::vector<uint64_t>(N, *Bytes);
  }
  if (Counts->size() != N)
    return optionError(CountsD->Name, formatv("{0} counts for a group of {1}",
                                              Counts->size(), N));
  uint64_t Sum = 0;
  for (uint64_t C : *Counts) {
    if (Sum + C < Sum)
      return optionError(CountsD->Name, "the sizes add up past 2^64 bytes");
    Sum += C;
  }
  return std::move(*Counts);
}

llvm::Expected<std::vector<uint64_t>>
choreo::intragroupSizes(const OptionValues &V, uint32_t N, bool &Irregular) {
  std::optional<llvm::StringRef> Dist = V.choice("distribution");
  bool Base = V.has("base");
  if (!Dist && !Base) {
    if (V.decl("distribution") && !V.has("bytes") && !V.has("counts"))
      return optionError("bytes",
                         "missing: give --bytes (every rank alike), --counts "
                         "(one per rank) or --distribution with --base");
    return memberSizes(V, SizedGroup::All, N, Irregular);
  }
  if (!Dist)
    return optionError("base", "--base is the base size of --distribution; "
                               "give --distribution too");
  if (!Base)
    return optionError("distribution",
                       "missing --base, the base size c in bytes");
  for (llvm::StringRef Other : {"bytes", "counts"})
    if (V.has(Other))
      return optionError(Other, llvm::formatv("give --{0} or --distribution, "
                                              "not both",
                                              Other));
  auto D = distributionByName(*Dist);
  if (!D) // bindOptions admits only the declared names
    return optionError("distribution", "unknown distribution '" + *Dist + "'");
  Irregular = true;
  return distributionSizes(*D, N, *V.number("base"));
}

llvm::Expected<IntergroupSizes> choreo::intergroupSizes(const OptionValues &V) {
  auto NA = groupCount(V, "p");
  if (!NA)
    return NA.takeError();
  auto NB = groupCount(V, "q");
  if (!NB)
    return NB.takeError();
  IntergroupSizes Out;
  bool IrrA = false, IrrB = false;
  auto A = memberSizes(V, SizedGroup::A, *NA, IrrA);
  if (!A)
    return A.takeError();
  auto B = memberSizes(V, SizedGroup::B, *NB, IrrB);
  if (!B)
    return B.takeError();
  Out.A = std::move(*A);
  Out.B = std::move(*B);
  Out.Irregular = IrrA || IrrB;
  return Out;
}

llvm::Expected<IntergroupSizes>
choreo::halfIntergroupSizes(const OptionValues &V) {
  auto NA = groupCount(V, "p");
  if (!NA)
    return NA.takeError();
  auto NB = groupCount(V, "q");
  if (!NB)
    return NB.takeError();
  IntergroupSizes Out;
  auto A = memberSizes(V, SizedGroup::A, *NA, Out.Irregular);
  if (!A)
    return A.takeError();
  Out.A = std::move(*A);
  Out.B.assign(*NB, 0);
  return Out;
}

llvm::Expected<HalfAllgatherStart> choreo::startHalfAllgather(
    const OptionValues &V, llvm::StringRef Id,
    llvm::function_ref<uint64_t(const IntergroupSizes &)> EstimatedOps) {
  auto Sizes = halfIntergroupSizes(V);
  if (!Sizes)
    return Sizes.takeError();
  if (auto E = checkOpBudget(Id, EstimatedOps(*Sizes)))
    return std::move(E);
  HalfAllgatherStart Out;
  Out.S.Kind = Collective::HalfAllgather;
  setIntergroup(Out.S, Sizes->A, Sizes->B);
  Out.Sizes = std::move(*Sizes);
  return Out;
}

llvm::Expected<uint32_t> choreo::rootRank(const OptionValues &V, uint32_t N) {
  uint64_t Root = V.number("root").value_or(0);
  if (Root >= N)
    return optionError("root", llvm::Twine("rank ") + llvm::Twine(Root) +
                                   " is not below --p " + llvm::Twine(N));
  return static_cast<uint32_t>(Root);
}

Topology choreo::topologyOf(const OptionValues &V) {
  std::optional<llvm::StringRef> T = V.choice("topology");
  return T && *T == "ring" ? Topology::ring() : Topology::full();
}

std::optional<IntraAlgorithm> choreo::intraOf(const OptionValues &V) {
  std::optional<llvm::StringRef> Name = V.choice("intra");
  if (!Name)
    return std::nullopt;
  for (IntraAlgorithm A : {IntraAlgorithm::Ring, IntraAlgorithm::Bruck,
                           IntraAlgorithm::RecursiveDoubling})
    if (*Name == intraAlgorithmName(A))
      return A;
  return std::nullopt;
}
