//===- views/ScheduleTable.cpp - Step-by-step text view -------------------===//
///
/// \file
/// Renders a schedule as the step table of `choreo show`.
///
//===----------------------------------------------------------------------===//

#include "views/ScheduleTable.h"

#include "ir/PairMatrix.h"

#include "llvm/Support/FormatAdapters.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <nlohmann/json.hpp>

using namespace choreo;
using llvm::formatv;

namespace {

/// Closed rank ranges of a rank list: "0-5" or "0,2,4".
std::string memberRanks(llvm::ArrayRef<Rank> Members) {
  std::string Out;
  size_t I = 0;
  while (I < Members.size()) {
    size_t J = I;
    while (J + 1 < Members.size() && Members[J + 1] == Members[J] + 1)
      ++J;
    if (!Out.empty())
      Out += ",";
    Out += std::to_string(Members[I]);
    if (J > I)
      Out += "-" + std::to_string(Members[J]);
    I = J + 1;
  }
  return Out;
}
std::string memberRanks(const Group &G) { return memberRanks(G.Members); }

/// "nodes: 2; node 0 = ranks 0-2, node 1 = ranks 3-4", the first 16 nodes
/// named, and a line for the node ports.
std::string nodesLine(const Schedule &S) {
  const std::vector<std::vector<Rank>> &Nodes = *S.Nodes;
  std::string Out = formatv("nodes: {0}", Nodes.size());
  for (size_t I = 0; I < Nodes.size() && I < 16; ++I)
    Out += formatv("{0} node {1} = ranks {2}", I ? "," : ";", I,
                   memberRanks(Nodes[I]));
  if (Nodes.size() > 16)
    Out += ", ...";
  NodePorts NP = S.nodePorts();
  return Out + formatv("\nnode ports: send {0}, recv {1}; [node a -> node b] "
                       "marks an op between nodes",
                       NP.Send, NP.Recv)
                   .str();
}

std::string sizesSummary(const std::vector<uint64_t> &V) {
  uint64_t Sum = 0;
  bool Uniform = true;
  for (uint64_t X : V) {
    Sum += X;
    Uniform &= X == V.front();
  }
  if (V.empty())
    return "none";
  if (Uniform)
    return formatv("{0} bytes each, {1} in all", V.front(), Sum);
  std::string List;
  for (size_t I = 0; I < V.size() && I < 16; ++I)
    List += (I ? "," : "") + std::to_string(V[I]);
  if (V.size() > 16)
    List += ",...";
  return formatv("[{0}] bytes, {1} in all", List, Sum);
}

std::string paramsLine(const Schedule &S) {
  std::string Out;
  for (auto It = S.Params->begin(); It != S.Params->end(); ++It) {
    if (!Out.empty())
      Out += ' ';
    std::string V = It.value().is_string() ? It.value().get<std::string>()
                                           : jsonText(It.value());
    Out += It.key() + "=" + V;
  }
  return Out;
}

/// An alltoall's blocks in [Lo, Hi): "b(1,2)", a row's run "b(1,2..4)",
/// a part "b(1,2)[0,3)".
std::string blockNames(const Schedule &S, uint64_t Lo, uint64_t Hi) {
  PairMatrix M(S);
  if (!M.ranks() || Lo >= Hi || Hi > M.total())
    return "";
  std::vector<std::string> Parts;
  auto [I, J] = M.blockAt(Lo);
  std::optional<std::pair<Rank, Rank>> Run; // row, first column
  Rank RunEnd = 0;
  auto Flush = [&] {
    if (!Run)
      return;
    Parts.push_back(
        Run->second == RunEnd
            ? formatv("b({0},{1})", Run->first, RunEnd).str()
            : formatv("b({0},{1}..{2})", Run->first, Run->second, RunEnd)
                  .str());
    Run.reset();
  };
  for (size_t K = size_t(I) * M.ranks() + J; K < size_t(M.ranks()) * M.ranks();
       ++K) {
    Rank R = K / M.ranks(), C = K % M.ranks();
    Interval Bl = M.block(R, C);
    if (Bl.Lo >= Hi)
      break;
    uint64_t A = std::max(Lo, Bl.Lo), Z = std::min(Hi, Bl.Hi);
    if (A >= Z)
      continue;
    if (A == Bl.Lo && Z == Bl.Hi) {
      if (Run && (Run->first != R || RunEnd + 1 != C))
        Flush();
      if (!Run)
        Run = {R, C};
      RunEnd = C;
      continue;
    }
    Flush();
    Parts.push_back(
        formatv("b({0},{1})[{2},{3})", R, C, A - Bl.Lo, Z - Bl.Lo).str());
  }
  Flush();
  std::string Out;
  for (const std::string &P : Parts)
    Out += (Out.empty() ? "" : " ") + P;
  return Out;
}

} // namespace

std::string choreo::messageNames(const Schedule &S, const Block &B) {
  if (S.spec().Data == DataKind::Alltoall) {
    std::string Names; // a lattice block: each run of its elements
    S.Steps.forEachRange(B, [&](uint64_t Lo, uint64_t Hi) {
      std::string N = blockNames(S, Lo, Hi);
      if (!N.empty())
        Names += (Names.empty() ? "" : " ") + N;
    });
    return Names;
  }
  if (!S.spec().sizedPerMember())
    return "";
  std::vector<Buffer> Bufs = S.buffers();
  if (B.Buf >= Bufs.size())
    return "";
  const Group *G = S.group(Bufs[B.Buf].Name);
  const std::vector<uint64_t> *Sz = S.sizes(Bufs[B.Buf].Name);
  if (!G || !Sz)
    return "";
  std::string Prefix =
      S.spec().Intergroup ? "m_" + G->Name : std::string("m_");
  std::vector<uint64_t> Off = prefixSums(*Sz);
  // Members whose message overlaps [Lo, Hi).
  size_t First = std::upper_bound(Off.begin(), Off.end(), B.Lo) - Off.begin() - 1;
  std::vector<std::string> Parts;
  size_t RunStart = SIZE_MAX, RunEnd = 0;
  auto FlushRun = [&]() {
    if (RunStart == SIZE_MAX)
      return;
    Parts.push_back(RunStart == RunEnd
                        ? Prefix + std::to_string(RunStart)
                        : formatv("{0}{1}..{0}{2}", Prefix, RunStart, RunEnd)
                              .str());
    RunStart = SIZE_MAX;
  };
  for (size_t M = First; M < Sz->size() && Off[M] < B.Hi; ++M) {
    if (Off[M] == Off[M + 1])
      continue;
    uint64_t Lo = std::max(B.Lo, Off[M]), Hi = std::min(B.Hi, Off[M + 1]);
    if (Lo >= Hi)
      continue;
    if (Lo == Off[M] && Hi == Off[M + 1]) {
      if (RunStart == SIZE_MAX)
        RunStart = M;
      RunEnd = M;
      continue;
    }
    FlushRun();
    Parts.push_back(formatv("{0}{1}[{2},{3})", Prefix, M, Lo - Off[M],
                            Hi - Off[M]));
  }
  FlushRun();
  std::string Out;
  for (const std::string &P : Parts)
    Out += (Out.empty() ? "" : " ") + P;
  return Out;
}

void choreo::printScheduleTable(const Schedule &S, llvm::raw_ostream &OS) {
  const StepList &L = S.Steps;
  OS << (S.Algorithm.empty() ? std::string("(no algorithm)") : S.Algorithm)
     << ": " << collectiveName(S.Kind);
  std::string Params = paramsLine(S);
  if (!Params.empty())
    OS << " (" << Params << ")";
  OS << '\n';
  OS << "ranks: " << S.NumRanks;
  for (const Group &G : S.Groups) {
    OS << "; " << G.Name << " = ";
    if (S.spec().Intergroup)
      OS << llvm::StringRef(G.Name).lower() << "0.."
         << llvm::StringRef(G.Name).lower() << G.Members.size() - 1 << " = ";
    OS << "ranks " << memberRanks(G);
  }
  OS << '\n';
  OS << "sizes:";
  if (S.spec().sizedPerMember()) {
    bool First = true;
    for (const NamedSizes &NS : S.Sizes) {
      OS << (First ? " " : "; ") << NS.Name << " " << sizesSummary(NS.Values);
      First = false;
    }
  } else if (const std::vector<uint64_t> *Pairs = S.sizes("pairs")) {
    OS << " pairs " << sizesSummary(*Pairs);
  } else if (const std::vector<uint64_t> *Block = S.sizes("block");
             Block && Block->size() == 2) {
    // An intergroup alltoall's: A to B, B to A.
    OS << " block " << (*Block)[0] << " bytes from every rank of A to every "
       << "rank of B, " << (*Block)[1] << " bytes back";
  } else if (const std::vector<uint64_t> *Block = S.sizes("block")) {
    OS << " block " << (Block->empty() ? 0 : Block->front())
       << " bytes, every one of the " << S.NumRanks << " x " << S.NumRanks
       << " blocks";
  } else if (const std::vector<uint64_t> *Part = S.sizes("part");
             Part && Part->size() == 3) {
    OS << " rank " << (*Part)[0] << "'s row and column (all: " << (*Part)[2]
       << " bytes)";
  } else {
    OS << " n = " << S.vectorLength();
  }
  if (S.Root)
    OS << "; root " << *S.Root;
  OS << '\n';
  OS << "topology " << S.Topo.kindName();
  // A ring other than 0..n-1 (a reranking) is printed in ring order.
  bool Reranked = false;
  for (size_t I = 0; I < S.Topo.Order.size(); ++I)
    Reranked |= S.Topo.Order[I] != I;
  if (S.Topo.K == Topology::Kind::Ring && Reranked) {
    OS << " (order";
    for (Rank R : S.Topo.Order)
      OS << ' ' << R;
    OS << ')';
  }
  OS << "; ports: send " << S.Port.Send
     << ", recv " << S.Port.Recv << (S.Port.Duplex ? ", duplex" : ", one way")
     << '\n';
  if (S.hasNodes())
    OS << nodesLine(S) << '\n';
  if (!S.commutative())
    OS << "op: not commutative (every combination keeps rank order)\n";
  OS << L.numSteps() << " steps, " << L.numOps() << " ops\n";

  std::vector<std::string> Names(S.NumRanks);
  for (Rank R = 0; R < S.NumRanks; ++R)
    Names[R] = std::to_string(R);
  if (S.spec().Intergroup)
    for (const Group &G : S.Groups)
      for (size_t I = 0; I < G.Members.size(); ++I)
        Names[G.Members[I]] = llvm::StringRef(G.Name).lower() + std::to_string(I);
  // Column widths over the whole schedule.
  size_t WSrc = 1, WDst = 1, WBlk = 1;
  for (const Op &O : L.allOps()) {
    WSrc = std::max(WSrc, Names[O.Src].size());
    WDst = std::max(WDst, Names[O.Dst].size());
    WBlk = std::max(WBlk, S.blocksString(L.blocks(O)).size());
  }
  auto OpLine = [&](const Op &O) {
    std::string Msgs;
    for (const Block &B : L.blocks(O)) {
      std::string M = messageNames(S, B);
      if (!M.empty())
        Msgs += (Msgs.empty() ? "" : " ") + M;
    }
    std::string Line = formatv(
        "  {0} -> {1}  {2}",
        llvm::fmt_align(Names[O.Src], llvm::AlignStyle::Right, WSrc),
        llvm::fmt_align(Names[O.Dst], llvm::AlignStyle::Left, WDst),
        llvm::fmt_align(S.blocksString(L.blocks(O)), llvm::AlignStyle::Left,
                        Msgs.empty() ? 0 : WBlk));
    if (!Msgs.empty())
      Line += "  " + Msgs;
    return llvm::StringRef(Line).rtrim().str();
  };
  // With nodes, ops between nodes end in an aligned marker.
  std::vector<uint32_t> NodeOf = S.nodeOfRank();
  size_t WLine = 0;
  if (!NodeOf.empty())
    for (const Op &O : L.allOps())
      if (NodeOf[O.Src] != NodeOf[O.Dst])
        WLine = std::max(WLine, OpLine(O).size());
  for (unsigned St = 0; St < L.numSteps(); ++St) {
    OS << "\nstep " << St << '\n';
    for (const Op &O : L.step(St)) {
      std::string Line = OpLine(O);
      if (!NodeOf.empty() && NodeOf[O.Src] != NodeOf[O.Dst])
        Line = formatv("{0}  [node {1} -> node {2}]",
                       llvm::fmt_align(Line, llvm::AlignStyle::Left, WLine),
                       NodeOf[O.Src], NodeOf[O.Dst]);
      OS << Line << '\n';
    }
  }
}
