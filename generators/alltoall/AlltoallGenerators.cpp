//===- generators/alltoall/AlltoallGenerators.cpp - Shared base -----------===//
///
/// \file
/// The alltoall generators' one build: header, pattern, budgets, steps.
///
//===----------------------------------------------------------------------===//

#include "generators/alltoall/AlltoallGenerators.h"

#include "generators/SizeChecks.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;

llvm::Expected<Schedule>
AlltoallGenerator::buildPart(const OptionValues &V,
                             std::optional<Rank> Only) const {
  auto S = alltoallHeader(V);
  if (!S)
    return S.takeError();
  // A generator of alltoallv only (MPICH's): --bytes is its matrix of
  // blocks alike.
  if (!collectives().contains(S->Kind))
    S->Kind = Collective::Alltoallv;
  if (Only && *Only >= S->NumRanks)
    return optionError("p", llvm::formatv("rank {0} is not below --p {1}",
                                          *Only, S->NumRanks));
  PairMatrix M(*S);
  if (M.isRankView() && (!Only || *Only != M.viewRank()))
    return optionError(
        "rank-part",
        Only ? llvm::formatv("rank {0}'s row and column build rank {0}'s "
                             "part, not rank {1}'s",
                             M.viewRank(), *Only)
                   .str()
             : std::string("a rank's row and column build that rank's part "
                           "only (a rank form), not the whole schedule"));
  auto Pat = pattern(V, M);
  if (!Pat)
    return Pat.takeError();
  if (M.isRankView() && (*Pat)->relays() && !M.relayRadix())
    return optionError("rank-part",
                       llvm::formatv("{0} relays blocks of other ranks: a "
                                     "rank's part needs the blocks it "
                                     "relays (--relayed) or the whole "
                                     "matrix (--pairs)",
                                     id()));
  // A rank form is budgeted by the rank's own ops and blocks, the whole
  // schedule by all of them.
  if (auto E = checkOpBudget(id(), Only ? (*Pat)->rankOpsBound()
                                        : (*Pat)->opsBound()))
    return E;
  if (auto E = checkBlockBudget(id(), Only ? (*Pat)->rankBlocksBound()
                                           : (*Pat)->blocksBound()))
    return E;
  S->Port.Send = S->Port.Recv = (*Pat)->ports();
  S->Steps = buildAlltoall(M, **Pat, Only);
  return S;
}
