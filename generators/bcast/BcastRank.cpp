//===- generators/bcast/BcastRank.cpp - One rank of the broadcast family --===//
///
/// \file
/// The rank forms of the plain broadcasts by name and of Algorithm 1 of
/// seed 002 (hierarchicalBcast): a rank's outer and inner ops from the
/// building blocks' rank forms (blocks/BcastRank.cpp), and the steps the
/// whole schedule keeps, without building any other rank's ops.
///
//===----------------------------------------------------------------------===//

#include "generators/SizeChecks.h"
#include "generators/bcast/BcastFamily.h"
#include "generators/bcast/Circulant.h"

#include <map>
#include <tuple>

using namespace choreo;

RankPart choreo::plainBcastRank(BcastAlgo A, uint32_t N, uint64_t Bytes,
                                uint32_t Root, llvm::ArrayRef<uint64_t> Cuts,
                                uint32_t Me) {
  switch (A) {
  case BcastAlgo::Flat:
    return flatBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::Chain: {
    uint64_t One[] = {0, Bytes};
    return pipelineBcastRank(N, One, Root, Me);
  }
  case BcastAlgo::Pipeline:
    return pipelineBcastRank(N, Cuts, Root, Me);
  case BcastAlgo::Binary:
    return binaryBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::Binomial:
    return binomialBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::SplitBinary:
    return splitBinaryBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::ScatterRing:
    return scatterAllgatherBcastRank(N, Bytes, Root, IntraAlgorithm::Ring, Me);
  case BcastAlgo::ScatterRd:
    return scatterRecursiveDoublingBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::Mpich:
    return mpichBcastRank(N, Bytes, Root, Me);
  case BcastAlgo::Circulant:
    return circulantBcastRank(N, Cuts, Root, Me);
  }
  return {};
}

uint64_t choreo::plainBcastRankOps(BcastAlgo A, uint32_t N, uint64_t Bytes,
                                   uint64_t X) {
  if (N < 2 || Bytes == 0)
    return 0;
  uint64_t P = N, L = ceilLog2(N);
  switch (A) {
  case BcastAlgo::Flat:
    return P - 1;
  case BcastAlgo::Chain:
  case BcastAlgo::Binary:
  case BcastAlgo::SplitBinary:
    return 5;
  case BcastAlgo::Binomial:
    return L;
  case BcastAlgo::Pipeline:
    return satMul(2, X);
  case BcastAlgo::ScatterRing:
    return L + 2 * (P - 1);
  case BcastAlgo::ScatterRd:
    return L + 2 * L + L * L;
  case BcastAlgo::Mpich:
    return L + 2 * (P - 1);
  case BcastAlgo::Circulant:
    return satMul(2, satAdd(X - 1, L));
  }
  return 0;
}

HierarchyParts::HierarchyParts(const Hierarchy &H, uint64_t Bytes,
                               uint32_t Root, llvm::ArrayRef<uint64_t> Cuts)
    : H(H), Bytes(Bytes), Root(Root), Cuts(Cuts.begin(), Cuts.end()) {
  // The groups' starts and the root's group (O(G)).
  uint32_t NumGroups = H.GroupSizes.size();
  Start.assign(NumGroups + 1, 0);
  for (uint32_t I = 0; I < NumGroups; ++I)
    Start[I + 1] = Start[I] + H.GroupSizes[I];
  RootGroup = groupOf(Root);
  // The outer broadcast's steps, and the steps any group's inner broadcast
  // uses (groups of one size and local root alike: at most three distinct
  // inner broadcasts).
  OuterUsed = plainBcastRank(H.Outer, NumGroups, Bytes, RootGroup, Cuts,
                             NoRank)
                  .Used;
  std::map<std::pair<uint32_t, uint32_t>, bool> Seen;
  for (uint32_t G = 0; G < NumGroups; ++G) {
    std::pair<uint32_t, uint32_t> Key(H.GroupSizes[G], leader(G) - Start[G]);
    if (!Seen.emplace(Key, true).second)
      continue;
    RankPart Part = plainBcastRank(H.Inner, Key.first, Bytes, Key.second, Cuts,
                                   NoRank);
    if (InnerUsed.size() < Part.Used.size())
      InnerUsed.resize(Part.Used.size(), false);
    for (size_t S = 0; S < Part.Used.size(); ++S)
      if (Part.Used[S])
        InnerUsed[S] = true;
  }
}

uint32_t HierarchyParts::groupOf(uint32_t R) const {
  return uint32_t(std::upper_bound(Start.begin(), Start.end(), R) -
                  Start.begin() - 1);
}

uint32_t HierarchyParts::leader(uint32_t G) const {
  return G == RootGroup ? Root : Start[G];
}

RankPart HierarchyParts::of(uint32_t Me) const {
  uint32_t NumGroups = H.GroupSizes.size();
  uint32_t MyGroup = groupOf(Me);
  RankPart P;
  P.Used = OuterUsed;
  // The outer broadcast among the leaders: Me's ops if Me leads its group.
  if (leader(MyGroup) == Me) {
    RankPart Outer =
        plainBcastRank(H.Outer, NumGroups, Bytes, RootGroup, Cuts, MyGroup);
    appendMapped(P.Steps, Outer.Steps,
                 [this](Rank G) { return leader(G); });
  } else {
    for (size_t S = 0; S < OuterUsed.size(); ++S)
      P.Steps.newStep();
  }
  // Me's group's inner broadcast, padded to the longest group's.
  uint32_t Base = Start[MyGroup];
  RankPart Inner = plainBcastRank(H.Inner, H.GroupSizes[MyGroup], Bytes,
                                  leader(MyGroup) - Base, Cuts, Me - Base);
  appendMapped(P.Steps, Inner.Steps, [Base](Rank R) { return Base + R; });
  unsigned Want = P.Used.size() + InnerUsed.size();
  while (P.Steps.numSteps() < Want)
    P.Steps.newStep();
  P.Used.insert(P.Used.end(), InnerUsed.begin(), InnerUsed.end());
  return P;
}

std::optional<NodeBreak>
HierarchyParts::firstNodeBreak(llvm::ArrayRef<std::vector<Rank>> Nodes,
                               NodePorts NP) const {
  uint32_t NumGroups = H.GroupSizes.size();
  unsigned Outer = OuterUsed.size();
  // The whole's step of every raw step (the whole drops its empty ones).
  std::vector<unsigned> KeptAt(Outer + InnerUsed.size());
  unsigned K = 0;
  for (size_t I = 0; I < KeptAt.size(); ++I) {
    KeptAt[I] = K;
    K += I < Outer ? OuterUsed[I] : InnerUsed[I - Outer];
  }
  // An off-node op of a node: its raw step and whether the node sends it.
  using Event = std::pair<unsigned, bool>;
  // The inner broadcasts whole, each local rank's ops in step order
  // (step, peer, whether it sends).
  struct Inner {
    std::vector<uint64_t> Begin;
    std::vector<std::tuple<unsigned, uint32_t, bool>> Ops;
  };
  std::map<std::pair<uint32_t, uint32_t>, Inner> Blocks;
  auto BlockOf = [&](uint32_t Size, uint32_t LocalRoot) -> const Inner & {
    auto [It, New] = Blocks.try_emplace({Size, LocalRoot});
    if (!New)
      return It->second;
    StepList L = plainBcast(H.Inner, Size, Bytes, LocalRoot, Cuts);
    Inner &B = It->second;
    B.Begin.assign(Size + 1, 0);
    for (unsigned St = 0; St < L.numSteps(); ++St)
      for (const Op &O : L.step(St)) {
        ++B.Begin[O.Src + 1];
        ++B.Begin[O.Dst + 1];
      }
    for (uint32_t R = 0; R < Size; ++R)
      B.Begin[R + 1] += B.Begin[R];
    B.Ops.resize(B.Begin[Size]);
    std::vector<uint64_t> At(B.Begin.begin(), B.Begin.end() - 1);
    for (unsigned St = 0; St < L.numSteps(); ++St)
      for (const Op &O : L.step(St)) {
        B.Ops[At[O.Src]++] = {St, O.Dst, true};
        B.Ops[At[O.Dst]++] = {St, O.Src, false};
      }
    return B;
  };
  // A group's ranks [Lo, Hi) (local) against the rest of the group.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>,
           std::vector<Event>>
      Crossing;
  auto CrossingOf = [&](uint32_t Size, uint32_t LocalRoot, uint32_t Lo,
                        uint32_t Hi) -> const std::vector<Event> & {
    auto [It, New] = Crossing.try_emplace({Size, LocalRoot, Lo, Hi});
    if (!New)
      return It->second;
    const Inner &B = BlockOf(Size, LocalRoot);
    for (uint64_t I = B.Begin[Lo]; I < B.Begin[Hi]; ++I) {
      auto [St, Peer, Send] = B.Ops[I];
      if (Peer < Lo || Peer >= Hi)
        It->second.push_back({Outer + St, Send});
    }
    return It->second;
  };
  std::vector<Event> Ev;
  for (uint32_t N = 0; N < Nodes.size(); ++N) {
    if (Nodes[N].size() < 2)
      continue;
    Rank A = Nodes[N].front(), B = Nodes[N].back() + 1;
    auto In = [&](Rank R) { return R >= A && R < B; };
    uint32_t G0 = groupOf(A), G1 = groupOf(B - 1);
    Ev.clear();
    // The outer ops of the node's leaders, when it holds two or more.
    unsigned Leaders = 0;
    for (uint32_t G = G0; G <= G1 && Leaders < 2; ++G)
      Leaders += In(leader(G));
    if (Leaders >= 2)
      for (uint32_t G = G0; G <= G1; ++G) {
        if (!In(leader(G)))
          continue;
        RankPart O =
            plainBcastRank(H.Outer, NumGroups, Bytes, RootGroup, Cuts, G);
        for (unsigned St = 0; St < O.Steps.numSteps(); ++St)
          for (const Op &X : O.Steps.step(St)) {
            bool Send = X.Src == G;
            if (!In(leader(Send ? X.Dst : X.Src)))
              Ev.push_back({St, Send});
          }
      }
    // The inner ops of the groups crossing the node's edges (a group
    // inside the node has none off it).
    uint32_t Crossed[] = {G0, G1};
    for (uint32_t G : llvm::ArrayRef<uint32_t>(Crossed, G0 == G1 ? 1 : 2)) {
      uint32_t Lo = std::max(A, Start[G]), Hi = std::min(B, Start[G + 1]);
      if (Lo == Start[G] && Hi == Start[G + 1])
        continue;
      const std::vector<Event> &C = CrossingOf(
          H.GroupSizes[G], leader(G) - Start[G], Lo - Start[G], Hi - Start[G]);
      Ev.insert(Ev.end(), C.begin(), C.end());
    }
    llvm::sort(Ev);
    for (size_t I = 0; I < Ev.size();) {
      size_t J = I;
      uint32_t Sends = 0, Recvs = 0;
      for (; J < Ev.size() && Ev[J].first == Ev[I].first; ++J)
        ++(Ev[J].second ? Sends : Recvs);
      if (Sends > NP.Send || Recvs > NP.Recv) {
        bool Send = Sends > NP.Send;
        return NodeBreak{N, KeptAt[Ev[I].first], Send, Send ? Sends : Recvs};
      }
      I = J;
    }
  }
  return std::nullopt;
}

RankPart choreo::hierarchicalBcastRank(const Hierarchy &H, uint64_t Bytes,
                                       uint32_t Root,
                                       llvm::ArrayRef<uint64_t> Cuts,
                                       uint32_t Me) {
  return HierarchyParts(H, Bytes, Root, Cuts).of(Me);
}
