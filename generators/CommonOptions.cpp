//===- generators/CommonOptions.cpp - Options generators share ------------===//
///
/// \file
/// Declarations of the shared options and the readers of their values.
///
//===----------------------------------------------------------------------===//

#include "generators/CommonOptions.h"
#include "generators/Generator.h"
#include "generators/allgatherv/Distributions.h"
#include "verifier/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

const Option<uint64_t> &opt::ranks() {
  static const Option<uint64_t> O = countOption("p", "number of ranks");
  return O;
}

const Option<uint64_t> &opt::groupA() {
  static const Option<uint64_t> O = countOption("p", "size of group A");
  return O;
}

const Option<uint64_t> &opt::groupB() {
  static const Option<uint64_t> O = countOption("q", "size of group B");
  return O;
}

const Option<Size> &opt::bytes() {
  static const Option<Size> O =
      sizeOption("bytes", "bytes each rank contributes", SizedGroup::All);
  return O;
}

const Option<SizeList> &opt::counts() {
  static const Option<SizeList> O = sizeListOption(
      "counts", "comma list of bytes, one per rank", SizedGroup::All);
  return O;
}

namespace {
/// --bytes-X and --counts-X of group X (a or b): every member alike, or
/// one size per member.
Option<Size> groupBytes(llvm::StringRef X, SizedGroup G) {
  return sizeOption("bytes-" + X.lower(),
                    ("bytes each member of " + X + " contributes").str(), G);
}
Option<SizeList> groupCounts(llvm::StringRef X, SizedGroup G) {
  return sizeListOption("counts-" + X.lower(),
                        ("comma list of bytes, one per member of " + X).str(),
                        G);
}
} // namespace

const Option<Size> &opt::bytesA() {
  static const Option<Size> O = groupBytes("A", SizedGroup::A);
  return O;
}
const Option<SizeList> &opt::countsA() {
  static const Option<SizeList> O = groupCounts("A", SizedGroup::A);
  return O;
}
const Option<Size> &opt::bytesB() {
  static const Option<Size> O = groupBytes("B", SizedGroup::B);
  return O;
}
const Option<SizeList> &opt::countsB() {
  static const Option<SizeList> O = groupCounts("B", SizedGroup::B);
  return O;
}

const Option<OneOf<Distribution>> &opt::distribution() {
  static const Option<OneOf<Distribution>> O = [] {
    std::vector<Option<OneOf<Distribution>>::Word> Table;
    for (llvm::StringRef Name : distributionNames())
      Table.push_back({Name, *distributionByName(Name)});
    return choiceOption<Distribution>(
        "distribution",
        "seed 003's distribution of the contributions (Section 3), from "
        "--base c",
        Table);
  }();
  return O;
}

const Option<Size> &opt::base() {
  static const Option<Size> O =
      sizeOption("base", "the base size c in bytes of --distribution",
                 SizedGroup::All);
  return O;
}

const Option<uint64_t> &opt::root() {
  static const Option<uint64_t> O =
      rankOption("root", "root rank of the collective").withDefault("0");
  return O;
}

const Option<Size> &opt::vectorBytes() {
  static const Option<Size> O =
      sizeOption("bytes", "vector length n in bytes (every rank's input)",
                 SizedGroup::All);
  return O;
}

const Option<Size> &opt::elementBytes() {
  static const Option<Size> O =
      sizeOption("element-bytes", "bytes per element; blocks never split one")
          .withDefault("8");
  return O;
}

namespace {
const char *OpHelp = "the operator: commutative, or noncommutative (every "
                     "combination keeps rank order)";
} // namespace

const Option<OneOf<OperatorKind>> &opt::reductionOp() {
  static const Option<OneOf<OperatorKind>> O =
      choiceOption<OperatorKind>(
          "op", OpHelp,
          {{"commutative", OperatorKind::Commutative},
           {"noncommutative", OperatorKind::Noncommutative}})
          .withDefault("commutative");
  return O;
}

Option<OneOf<OperatorKind>> opt::commutativeOp(llvm::StringRef Why) {
  return reductionOp().only({"commutative"}).refusing("noncommutative", Why);
}

const Option<SizeList> &opt::slices() {
  static const Option<SizeList> O =
      sizeListOption("slices", "comma list of each rank's result slice in "
                               "bytes (default: n cut into p near-equal "
                               "slices of whole elements)");
  return O;
}

namespace {
const char *TopologyHelp = "links between the ranks: full (every pair) or "
                           "ring (neighbours i and i + 1 mod n only)";
} // namespace

const Option<OneOf<Topology::Kind>> &opt::anyTopology() {
  static const Option<OneOf<Topology::Kind>> O =
      choiceOption<Topology::Kind>("topology", TopologyHelp,
                                   {{"full", Topology::Kind::Full},
                                    {"ring", Topology::Kind::Ring}})
          .withDefault("full");
  return O;
}

const Option<OneOf<Topology::Kind>> &opt::fullTopology() {
  static const Option<OneOf<Topology::Kind>> O =
      anyTopology().only({"full"}).refusing(
          "ring", "this algorithm needs links the ring does not have; use "
                  "--topology full");
  return O;
}

Option<OneOf<Topology::Kind>> opt::ringTopology(llvm::StringRef Id) {
  return anyTopology()
      .only({"ring"})
      .withDefault("ring")
      .refusing("full", (Id + " runs on the ring only (--topology ring)").str());
}

const Option<SizeList> &opt::nodes() {
  static const Option<SizeList> O = sizeListOption(
      "nodes", "processes per compute node, consecutive ranks per node "
               "(1,5,2: rank 0, ranks 1-5, ranks 6-7)");
  return O;
}

const Option<SizeList> &opt::nodeOf() {
  static const Option<SizeList> O = sizeListOption(
      "node-of", "the compute node of every rank (0,1,0,1: two nodes, ranks "
                 "placed round robin)");
  return O;
}

const Option<OneOf<IntraAlgorithm>> &opt::intraAny() {
  static const Option<OneOf<IntraAlgorithm>> O = [] {
    std::vector<Option<OneOf<IntraAlgorithm>>::Word> Table;
    for (IntraAlgorithm A : {IntraAlgorithm::Ring, IntraAlgorithm::Bruck,
                             IntraAlgorithm::RecursiveDoubling})
      Table.push_back({intraAlgorithmName(A), A});
    return choiceOption<IntraAlgorithm>(
        "intra", "algorithm of the intragroup allgathers", Table);
  }();
  return O;
}

Option<OneOf<IntraAlgorithm>>
opt::intra(llvm::ArrayRef<IntraAlgorithm> Allowed) {
  llvm::SmallVector<llvm::StringRef, 3> Names;
  for (IntraAlgorithm A : Allowed)
    Names.push_back(intraAlgorithmName(A));
  return intraAny().only(Names);
}

llvm::Expected<std::optional<std::vector<uint32_t>>>
choreo::nodeOfRanks(const OptionValues &V, uint32_t P,
                    llvm::StringRef CountName) {
  auto Nodes = V.lookup(opt::nodes());
  auto NodeOf = V.lookup(opt::nodeOf());
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
      if ((*Nodes)[N] > P - Sum) { // past P (also past 2^64)
        Sum = uint64_t(P) + 1;
        break;
      }
      Sum += (*Nodes)[N];
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

namespace {
/// The help V's declarations give H (a variant's), else H's own.
const std::string &helpOf(const OptionValues &V, const OptionBase &H) {
  const OptionDecl *D = V.decl(H);
  return D ? D->Help : H.decl().Help;
}

template <class T>
llvm::Expected<uint64_t> required(const OptionValues &V, const Option<T> &H) {
  if (std::optional<uint64_t> X = V.lookup(H))
    return *X;
  return optionError(H.name(), "missing: the " + helpOf(V, H));
}
} // namespace

llvm::Expected<uint64_t> choreo::requiredNumber(const OptionValues &V,
                                                const Option<uint64_t> &H) {
  return required(V, H);
}

llvm::Expected<uint64_t> choreo::requiredNumber(const OptionValues &V,
                                                const Option<Size> &H) {
  return required(V, H);
}

llvm::Expected<uint32_t> choreo::groupCount(const OptionValues &V,
                                            const Option<uint64_t> &H) {
  auto N = requiredNumber(V, H);
  if (!N)
    return N.takeError();
  if (*N == 0)
    return optionError(H.name(),
                       "the " + helpOf(V, H) + " must be at least 1");
  if (*N > (1u << 20))
    return optionError(H.name(), formatv("{0} is more ranks than choreo "
                                         "generates (at most 1048576)",
                                         *N));
  return static_cast<uint32_t>(*N);
}

llvm::Expected<std::vector<uint64_t>>
choreo::memberSizes(const OptionValues &V, const Option<Size> &BytesH,
                    const Option<SizeList> &CountsH, uint32_t N,
                    bool &Irregular) {
  const OptionDecl *BytesD = V.decl(BytesH), *CountsD = V.decl(CountsH);
  if (!BytesD)
    return optionError(BytesH.name(), "not an option of this generator");
  llvm::StringRef BytesOpt = BytesD->Name;
  std::optional<uint64_t> Bytes = V.lookup(BytesH);
  std::optional<std::vector<uint64_t>> Counts;
  if (CountsD)
    Counts = V.lookup(CountsH);
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
  std::optional<Distribution> Dist = V.lookup(opt::distribution());
  bool Base = V.has(opt::base());
  if (!Dist && !Base) {
    if (V.decl(opt::distribution()) && !V.has(opt::bytes()) &&
        !V.has(opt::counts()))
      return optionError("bytes",
                         "missing: give --bytes (every rank alike), --counts "
                         "(one per rank) or --distribution with --base");
    return memberSizes(V, opt::bytes(), opt::counts(), N, Irregular);
  }
  if (!Dist)
    return optionError("base", "--base is the base size of --distribution; "
                               "give --distribution too");
  if (!Base)
    return optionError("distribution",
                       "missing --base, the base size c in bytes");
  const OptionBase *Others[] = {&opt::bytes(), &opt::counts()};
  for (const OptionBase *Other : Others)
    if (V.has(*Other))
      return optionError(Other->name(),
                         llvm::formatv("give --{0} or --distribution, not "
                                       "both",
                                       Other->name()));
  Irregular = true;
  return distributionSizes(*Dist, N, *V.lookup(opt::base()));
}

llvm::Expected<IntergroupSizes> choreo::intergroupSizes(const OptionValues &V) {
  auto NA = groupCount(V, opt::groupA());
  if (!NA)
    return NA.takeError();
  auto NB = groupCount(V, opt::groupB());
  if (!NB)
    return NB.takeError();
  IntergroupSizes Out;
  bool IrrA = false, IrrB = false;
  auto A = memberSizes(V, opt::bytesA(), opt::countsA(), *NA, IrrA);
  if (!A)
    return A.takeError();
  auto B = memberSizes(V, opt::bytesB(), opt::countsB(), *NB, IrrB);
  if (!B)
    return B.takeError();
  Out.A = std::move(*A);
  Out.B = std::move(*B);
  Out.Irregular = IrrA || IrrB;
  return Out;
}

llvm::Expected<IntergroupSizes>
choreo::halfIntergroupSizes(const OptionValues &V) {
  auto NA = groupCount(V, opt::groupA());
  if (!NA)
    return NA.takeError();
  auto NB = groupCount(V, opt::groupB());
  if (!NB)
    return NB.takeError();
  IntergroupSizes Out;
  auto A = memberSizes(V, opt::bytesA(), opt::countsA(), *NA, Out.Irregular);
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
  uint64_t Root = V.get(opt::root());
  if (Root >= N)
    return optionError("root", llvm::Twine("rank ") + llvm::Twine(Root) +
                                   " is not below --p " + llvm::Twine(N));
  return static_cast<uint32_t>(Root);
}

Topology choreo::topologyOf(const OptionValues &V) {
  return V.lookup(opt::anyTopology()) == Topology::Kind::Ring
             ? Topology::ring()
             : Topology::full();
}

llvm::Error choreo::checkKeepsNodes(const Schedule &S, llvm::StringRef Id,
                                    llvm::StringRef Advice) {
  if (!S.hasNodes())
    return llvm::Error::success();
  std::vector<uint32_t> NodeOf = S.nodeOfRank();
  size_t NumNodes = S.Nodes->size();
  NodePorts NP = S.nodePorts();
  // Per node: off-node sends and receives of the step, and the index of
  // its first off-node op in either direction.
  std::vector<unsigned> Sends(NumNodes, 0), Recvs(NumNodes, 0);
  std::vector<size_t> FirstSend(NumNodes), FirstRecv(NumNodes);
  std::vector<uint32_t> Touched;
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St) {
    llvm::ArrayRef<Op> Ops = S.Steps.step(St);
    for (size_t I = 0; I < Ops.size(); ++I) {
      uint32_t From = NodeOf[Ops[I].Src], To = NodeOf[Ops[I].Dst];
      if (From == To)
        continue;
      std::optional<Diagnostic> Over;
      if (Sends[From] == 0 && Recvs[From] == 0)
        Touched.push_back(From);
      if (Sends[To] == 0 && Recvs[To] == 0)
        Touched.push_back(To);
      if (Sends[From]++ == 0)
        FirstSend[From] = I;
      if (Recvs[To]++ == 0)
        FirstRecv[To] = I;
      if (Sends[From] > NP.Send)
        Over =
            report::nodeSendPort(S, St, From, Sends[From], FirstSend[From], I);
      else if (Recvs[To] > NP.Recv)
        Over = report::nodeRecvPort(S, St, To, Recvs[To], FirstRecv[To], I);
      if (Over)
        return optionError("nodes", Id + " does not keep to this layout: " +
                                        Over->Message + "; " + Advice);
    }
    for (uint32_t N : Touched)
      Sends[N] = Recvs[N] = 0;
    Touched.clear();
  }
  return llvm::Error::success();
}

std::optional<IntraAlgorithm> choreo::intraOf(const OptionValues &V) {
  return V.lookup(opt::intraAny());
}
