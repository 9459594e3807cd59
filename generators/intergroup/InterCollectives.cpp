//===- generators/intergroup/InterCollectives.cpp - Intercomm a2a, rooted -===//
///
/// \file
/// The options, headers and steps of the intercommunicator gather and
/// scatter generators.
///
//===----------------------------------------------------------------------===//

#include "generators/intergroup/InterCollectives.h"
#include "generators/intergroup/InterReduction.h"
#include "generators/scatter/Rooted.h"

#include "llvm/Support/FormatVariadic.h"

#include <numeric>

using namespace choreo;
using llvm::formatv;

uint64_t InterRooted::total() const {
  return std::accumulate(Sizes.begin(), Sizes.end(), uint64_t(0));
}

std::vector<OptionDecl> choreo::interRootedOptions() {
  return {opt::groupA(), opt::groupB(),  opt::root(),   opt::bytesA(),
          opt::bytesB(), opt::countsA(), opt::countsB()};
}

llvm::Expected<InterRooted> choreo::readInterRooted(const OptionValues &V) {
  InterRooted In;
  auto P = groupCount(V, opt::groupA());
  if (!P)
    return P.takeError();
  auto Q = groupCount(V, opt::groupB());
  if (!Q)
    return Q.takeError();
  In.P = *P;
  In.Q = *Q;
  uint64_t Root = V.get(opt::root());
  if (Root >= uint64_t(In.P) + In.Q)
    return optionError("root",
                       formatv("rank {0} is not below --p + --q = {1} (A is "
                               "ranks 0..p-1, B p..p+q-1)",
                               Root, uint64_t(In.P) + In.Q));
  In.Root = Rank(Root);
  bool RootInA = In.Root < In.P;
  In.OtherBase = RootInA ? In.P : 0;
  In.OtherSize = RootInA ? In.Q : In.P;
  In.OtherBuf = RootInA ? 1 : 0;
  // The root's group moves nothing: its size options absent or zero.
  const Option<Size> &RootBytes = RootInA ? opt::bytesA() : opt::bytesB();
  const Option<SizeList> &RootCounts =
      RootInA ? opt::countsA() : opt::countsB();
  bool NonZero = V.lookup(RootBytes).value_or(0) != 0;
  if (std::optional<std::vector<uint64_t>> C = V.lookup(RootCounts))
    for (uint64_t X : *C)
      NonZero |= X != 0;
  if (NonZero)
    return optionError(
        V.lookup(RootBytes) ? RootBytes.name() : RootCounts.name(),
        formatv("the root {0} is in group {1}, which sends and "
                "receives nothing: give the sizes of group {2}",
                In.Root, RootInA ? "A" : "B", RootInA ? "B" : "A"));
  auto Sz = memberSizes(V, RootInA ? opt::bytesB() : opt::bytesA(),
                        RootInA ? opt::countsB() : opt::countsA(), In.OtherSize,
                        In.Irregular);
  if (!Sz)
    return Sz.takeError();
  In.Sizes = std::move(*Sz);
  return In;
}

Schedule choreo::interRootedSchedule(Collective C, const InterRooted &In) {
  Schedule S;
  S.Kind = C;
  std::vector<uint64_t> Zeros(In.OtherBase ? In.P : In.Q, 0);
  if (In.OtherBase)
    setIntergroup(S, Zeros, In.Sizes);
  else
    setIntergroup(S, In.Sizes, Zeros);
  S.Root = In.Root;
  return S;
}

namespace {

/// Local ranks 0..n-1 and buffer 0 of a building block as the other
/// group's ranks and buffer.
StepList onOtherGroup(StepList L, const InterRooted &In) {
  std::vector<Rank> Ranks(In.OtherSize);
  std::iota(Ranks.begin(), Ranks.end(), In.OtherBase);
  BufferMap To;
  To.To = In.OtherBuf;
  return std::move(L).relabeled(Ranks, {To});
}

void addWholeOther(StepList &L, const InterRooted &In, Rank From, Rank To) {
  L.newStep();
  if (uint64_t N = In.total()) {
    Block B;
    B.Buf = In.OtherBuf;
    B.Hi = N;
    L.addOp(From, To, B);
  }
}

/// One message per step between the root and each member with bytes.
StepList linear(const InterRooted &In, bool ToRoot) {
  StepList L;
  uint64_t Off = 0;
  for (uint32_t I = 0; I < In.OtherSize; ++I) {
    uint64_t N = In.Sizes[I];
    if (!N)
      continue;
    Block B;
    B.Buf = In.OtherBuf;
    B.Lo = Off;
    B.Hi = Off + N;
    Off += N;
    L.newStep();
    Rank M = In.OtherBase + I;
    L.addOp(ToRoot ? M : In.Root, ToRoot ? In.Root : M, B);
  }
  return L;
}

} // namespace

StepList choreo::interLocalGatherRemoteSend(const InterRooted &In) {
  StepList L = onOtherGroup(binomialGather(In.Sizes, 0), In);
  addWholeOther(L, In, In.OtherBase, In.Root);
  return L;
}

StepList choreo::interLinearGather(const InterRooted &In) {
  return linear(In, /*ToRoot=*/true);
}

StepList choreo::interRemoteSendLocalScatter(const InterRooted &In) {
  StepList L;
  addWholeOther(L, In, In.Root, In.OtherBase);
  L.append(onOtherGroup(binomialScatter(In.Sizes, 0), In));
  return L;
}

StepList choreo::interLinearScatter(const InterRooted &In) {
  return linear(In, /*ToRoot=*/false);
}

namespace {

/// The whole other-group buffer From -> To (addWholeOther's block).
Block wholeOther(const InterRooted &In) {
  Block B;
  B.Buf = In.OtherBuf;
  B.Hi = In.total();
  return B;
}

/// linear's part: one step per member with bytes, Me's op in it when Me is
/// the root or that member.
RankPart linearPart(const InterRooted &In, bool ToRoot, Rank Me) {
  RankPart P;
  uint32_t Mine = localOf(Me, In.OtherBase, In.OtherSize);
  bool IsRoot = Me == In.Root;
  uint64_t Off = 0;
  for (uint32_t I = 0; I < In.OtherSize; ++I) {
    uint64_t N = In.Sizes[I];
    if (!N)
      continue;
    P.Steps.newStep();
    P.Used.push_back(true);
    if (IsRoot || I == Mine) {
      Block B;
      B.Buf = In.OtherBuf;
      B.Lo = Off;
      B.Hi = Off + N;
      Rank M = In.OtherBase + I;
      P.Steps.addOp(ToRoot ? M : In.Root, ToRoot ? In.Root : M, B);
    }
    Off += N;
  }
  return P;
}

uint32_t localIn(const InterRooted &In, Rank Me) {
  return localOf(Me, In.OtherBase, In.OtherSize);
}

} // namespace

RankPart choreo::interLocalGatherRemoteSendPart(const InterRooted &In,
                                                Rank Me) {
  RankPart P = onGroupPart(binomialGatherRank(In.Sizes, 0, localIn(In, Me)),
                           In.OtherBase, In.OtherBuf);
  P.append(onePart(In.OtherBase, In.Root, wholeOther(In), Me));
  return P;
}

RankPart choreo::interLinearGatherPart(const InterRooted &In, Rank Me) {
  return linearPart(In, /*ToRoot=*/true, Me);
}

RankPart choreo::interRemoteSendLocalScatterPart(const InterRooted &In,
                                                 Rank Me) {
  RankPart P = onePart(In.Root, In.OtherBase, wholeOther(In), Me);
  P.append(onGroupPart(
      reversedPart(binomialGatherRank(In.Sizes, 0, localIn(In, Me))),
      In.OtherBase, In.OtherBuf));
  return P;
}

RankPart choreo::interLinearScatterPart(const InterRooted &In, Rank Me) {
  return linearPart(In, /*ToRoot=*/false, Me);
}

bool choreo::interRootedShort(const InterRooted &In) {
  return regularSizes(In.Sizes) && In.total() < InterRootedShortBytes;
}
