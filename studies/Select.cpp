//===- studies/Select.cpp - Which algorithm the model picks ---------------===//
///
/// \file
/// Building every generator that declares a collective for a header of p
/// ranks and a vector of n bytes and pricing it; the winners over a grid.
///
//===----------------------------------------------------------------------===//

#include "studies/Select.h"

#include "generators/CallOptions.h"
#include "ir/PairMatrix.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace choreo;

namespace {

/// G's schedule for the call S asks about: a header of S.P ranks (and S.Q
/// in group B of an intercommunicator collective) and a vector of S.Bytes
/// (a reduction, reduce_scatter's slices the generator's own default),
/// S.Bytes per member (gather, scatter, allgather(v)), S.Bytes per block
/// (alltoall) or one byte of "has arrived" per rank (barrier); root 0 when
/// rooted (on an intercommunicator: A's first rank, so B contributes to a
/// gather or reduce and receives a scatter or broadcast).
llvm::Expected<Schedule> build(const Generator &G, const SelectSpec &S,
                               const OptionValues &Own) {
  CallHeader H;
  H.Kind = S.Kind;
  const CollectiveSpec &Spec = specOf(S.Kind);
  if (Spec.Intergroup) {
    auto Each = [&](llvm::StringRef Grp, Rank N) {
      uint64_t B = 0;
      if (Spec.NoPayload)
        B = 1;
      else if (Spec.sizedPerMember() &&
               (Spec.Rooted ? Grp == "B" : Spec.contributes(Grp)))
        B = S.Bytes;
      return std::vector<uint64_t>(N, B);
    };
    setIntergroup(H, Each("A", S.P), Each("B", S.Q));
    if (Spec.Data == DataKind::Alltoall) {
      // S.Bytes from every rank to every rank of the other group, nothing
      // within a group: sizes.block [a, b], O(1) whatever p and q. Pricing
      // still builds each candidate's whole schedule, about 2pq messages.
      Rank N = S.P + S.Q;
      if (uint64_t(N) * N > (uint64_t(1) << 26))
        return makeDiagError(
            "select",
            llvm::formatv("{0}: (p + q)^2 = {1} is over 2^26; pricing builds "
                          "every candidate's whole schedule of about 2pq "
                          "messages: choose a smaller p or q",
                          collectiveName(S.Kind), uint64_t(N) * N)
                .str());
      setInterUniformBlock(H, S.Bytes, S.Bytes);
    } else if (!Spec.sizedPerMember()) {
      H.Sizes = {{"all", {S.Bytes}}};
    }
  } else if (Spec.NoPayload) {
    setIntragroup(H, S.P, std::vector<uint64_t>(S.P, 1));
  } else if (Spec.sizedPerMember()) {
    setIntragroup(H, S.P, std::vector<uint64_t>(S.P, S.Bytes));
  } else {
    setIntragroup(H, S.P, {S.Bytes});
  }
  if (!Spec.Intergroup && Spec.Data == DataKind::Alltoall)
    setUniformBlock(H, S.Bytes);
  if (Spec.Rooted)
    H.Root = 0;
  if (Spec.isReduction() && !S.Commutative)
    H.ReduceOp = ReductionOp{false};
  return G.generateFor(H, S.ElementBytes, Own);
}

/// The generator and options of a candidate (generators/CallOptions.h's
/// variantText).
llvm::Expected<std::pair<const Generator *, OptionValues>>
readCandidate(llvm::StringRef Text) {
  auto W = splitVariantText(Text, "select", "candidate");
  if (!W)
    return W.takeError();
  const Generator *G = findGenerator(W->Id);
  if (!G)
    return makeDiagError("select", ("unknown algorithm '" + W->Id + "'"));
  auto V = parseGenArgs(W->Args);
  if (!V)
    return V.takeError();
  return std::make_pair(G, std::move(*V));
}

} // namespace

std::vector<std::string> choreo::selectCandidates(Collective Kind) {
  std::vector<std::string> Out;
  for (const Generator *G : allGenerators())
    if (G->collectives().contains(Kind)) {
      Out.push_back(G->id().str());
      for (const std::vector<std::string> &V : G->pricedVariants())
        Out.push_back(variantText(G->id(), V));
    }
  return Out;
}

llvm::Expected<std::vector<SelectEntry>>
choreo::rankAlgorithms(const SelectSpec &S) {
  if (auto E = S.Model.check())
    return E;
  std::vector<SelectEntry> Out;
  std::optional<llvm::Error> First;
  for (const std::string &Id : selectCandidates(S.Kind)) {
    auto C = readCandidate(Id);
    if (!C)
      return C.takeError();
    auto Sch = build(*C->first, S, C->second);
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
      if (specOf(S.Kind).Intergroup && Base.Q == 0)
        S.Q = P; // q = p on an intercommunicator unless given

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
