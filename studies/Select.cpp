//===- studies/Select.cpp - Which algorithm the model picks ---------------===//
///
/// \file
/// Building every generator that declares a collective for a header of p
/// ranks and a vector of n bytes and pricing it; the winners over a grid.
///
//===----------------------------------------------------------------------===//

#include "studies/Select.h"

#include "generators/Generator.h"
#include "ir/PairMatrix.h"

#include <algorithm>

using namespace choreo;

namespace {

/// G's schedule for the call S asks about: a header of S.P ranks and a
/// vector of S.Bytes (a reduction, reduce_scatter's slices the generator's
/// own default), S.Bytes per member (gather, scatter), S.Bytes per block
/// (alltoall) or one byte of "has arrived" per rank (barrier); root 0 when
/// rooted.
llvm::Expected<Schedule> build(const Generator &G, const SelectSpec &S) {
  CallHeader H;
  H.Kind = S.Kind;
  const CollectiveSpec &Spec = specOf(S.Kind);
  if (Spec.NoPayload)
    setIntragroup(H, S.P, std::vector<uint64_t>(S.P, 1));
  else if (Spec.sizedPerMember())
    setIntragroup(H, S.P, std::vector<uint64_t>(S.P, S.Bytes));
  else
    setIntragroup(H, S.P, {S.Bytes});
  if (Spec.Data == DataKind::Alltoall)
    setUniformBlock(H, S.Bytes);
  if (specOf(S.Kind).Rooted)
    H.Root = 0;
  return G.generateFor(H, S.ElementBytes);
}

} // namespace

std::vector<std::string> choreo::selectCandidates(Collective Kind) {
  std::vector<std::string> Out;
  for (const Generator *G : allGenerators())
    if (G->collectives().contains(Kind))
      Out.push_back(G->id().str());
  return Out;
}

llvm::Expected<std::vector<SelectEntry>>
choreo::rankAlgorithms(const SelectSpec &S) {
  if (auto E = S.Model.check())
    return E;
  std::vector<SelectEntry> Out;
  std::optional<llvm::Error> First;
  for (const std::string &Id : selectCandidates(S.Kind)) {
    auto Sch = build(*findGenerator(Id), S);
    if (!Sch) {
      if (!First)
        First = Sch.takeError();
      else
        llvm::consumeError(Sch.takeError());
      continue;
    }
    CostResult R = evaluateCost(*Sch, S.Model);
    if (auto E = checkFinite(R, S.Model))
      return E;
    Out.push_back(
        {Id, S.Lockstep ? R.Lockstep : R.Async, Sch->Steps.numSteps()});
  }
  if (Out.empty()) {
    if (First)
      return std::move(*First);
    return makeDiagError("select", "no generator builds this collective");
  }
  if (First)
    llvm::consumeError(std::move(*First));
  std::stable_sort(Out.begin(), Out.end(),
                   [](const SelectEntry &A, const SelectEntry &B) {
                     return A.Time < B.Time;
                   });
  return Out;
}

llvm::Expected<SelectMap> choreo::selectMap(const SelectSpec &Base,
                                            std::vector<uint32_t> Ps,
                                            std::vector<uint64_t> Sizes) {
  SelectMap M;
  M.Ps = std::move(Ps);
  M.Sizes = std::move(Sizes);
  M.Algorithms = selectCandidates(Base.Kind);
  for (uint32_t P : M.Ps) {
    std::vector<unsigned> Row;
    for (uint64_t N : M.Sizes) {
      SelectSpec S = Base;
      S.P = P;
      S.Bytes = N;
      auto Ranked = rankAlgorithms(S);
      if (!Ranked)
        return Ranked.takeError();
      Row.push_back(std::find(M.Algorithms.begin(), M.Algorithms.end(),
                              Ranked->front().Algorithm) -
                    M.Algorithms.begin());
    }
    M.Winner.push_back(std::move(Row));
  }
  return M;
}
