//===- generators/scatter/Rooted.cpp - Scatters and linear gathers --------===//
///
/// \file
/// Reversal of a gather's steps, MPICH's linear trees and the schedule of a
/// gather or scatter.
///
//===----------------------------------------------------------------------===//

#include "generators/scatter/Rooted.h"

using namespace choreo;

StepList choreo::reversedSteps(const StepList &L) {
  StepList Out;
  Out.reserve(L.numOps(), L.numBlocks());
  for (unsigned S = L.numSteps(); S-- > 0;) {
    Out.newStep();
    for (const Op &O : L.step(S))
      Out.addOp(O.Dst, O.Src, L.blocks(O));
  }
  return Out;
}

StepList choreo::binomialScatter(llvm::ArrayRef<uint64_t> Sizes, uint32_t Root,
                                 std::optional<Rank> Me) {
  if (Me)
    return reversedPart(binomialGatherRank(Sizes, Root, *Me)).kept();
  StepList L = reversedSteps(binomialGather(Sizes, Root));
  L.dropEmptySteps();
  return L;
}

RankPart choreo::reversedPart(const RankPart &P) {
  RankPart Out;
  Out.Steps = reversedSteps(P.Steps);
  Out.Used.assign(P.Used.rbegin(), P.Used.rend());
  return Out;
}

StepList choreo::linearRooted(llvm::ArrayRef<uint64_t> Counts, uint32_t Root,
                              bool ToRoot, std::optional<Rank> Me) {
  std::vector<uint64_t> Displ = prefixSums(Counts);
  StepList L;
  for (uint32_t I = 0; I < Counts.size(); ++I) {
    if (I == Root || !Counts[I])
      continue;
    L.newStep();
    if (Me && *Me != Root && *Me != I)
      continue;
    llvm::SmallVector<Block, 1> Slice;
    addPiece(Slice, 0, Displ[I], Displ[I + 1]);
    if (ToRoot)
      L.addOp(I, Root, Slice);
    else
      L.addOp(Root, I, Slice);
  }
  return L;
}

bool choreo::regularSizes(llvm::ArrayRef<uint64_t> Sizes) {
  return llvm::all_of(Sizes, [&](uint64_t X) { return X == Sizes.front(); });
}

llvm::Expected<Schedule> choreo::buildRooted(
    llvm::StringRef Id, Collective Kind, const OptionValues &V,
    std::optional<Rank> Only,
    llvm::function_ref<StepList(llvm::ArrayRef<uint64_t> Sizes, uint32_t Root)>
        Steps) {
  auto N = groupCount(V, opt::ranks());
  if (!N)
    return N.takeError();
  auto Root = rootRank(V, *N);
  if (!Root)
    return Root.takeError();
  bool Irregular = false;
  auto Sizes = memberSizes(V, opt::bytes(), opt::counts(), *N, Irregular);
  if (!Sizes)
    return Sizes.takeError();
  if (Only && *Only >= *N)
    return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                " is not below --p " + llvm::Twine(*N));
  // A tree or a linear pass: one message per member at most.
  if (auto E = checkOpBudget(Id, *N))
    return E;
  Schedule S;
  S.Kind = Kind;
  setIntragroup(S, *N, *Sizes);
  S.Root = *Root;
  S.Steps = Steps(*Sizes, *Root);
  return S;
}
