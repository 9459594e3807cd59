//===- generators/Generator.cpp - What every generator shares -------------===//
///
/// \file
/// Generator::generate (bind the options, build, record the algorithm and
/// its params), what a generator's declared collectives serve, and the op
/// budget every generator checks.
///
//===----------------------------------------------------------------------===//

#include "generators/Generator.h"

#include "generators/CallOptions.h"
#include "generators/SizeChecks.h"
#include "ir/CallBinding.h"
#include "ir/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using llvm::formatv;

std::vector<Collective> CollectiveSet::members() const {
  std::vector<Collective> Out;
  for (const CollectiveSpec &Spec : allCollectiveSpecs())
    if (contains(Spec.Kind))
      Out.push_back(Spec.Kind);
  return Out;
}

std::string CollectiveSet::str() const {
  std::string Out;
  for (Collective C : members())
    Out += (Out.empty() ? "" : ", ") + collectiveName(C).str();
  return Out;
}

Generator::~Generator() = default;

bool Generator::mayServe(Collective Kind, bool Commutative) const {
  if (!Commutative && specOf(Kind).isReduction() && !keepsRankOrder())
    return false;
  return llvm::any_of(collectives().members(),
                      [&](Collective C) { return servesSameCalls(C, Kind); });
}

llvm::Expected<Schedule> Generator::generate(const OptionValues &Args) const {
  auto V = bindOptions(Args, options(), id());
  if (!V)
    return V.takeError();
  auto S = build(*V);
  if (!S)
    return S.takeError();
  S->Algorithm = id().str();
  S->Params = V->toJson();
  return S;
}

llvm::Expected<Schedule> Generator::generateRank(const OptionValues &Args,
                                                 Rank Me) const {
  auto V = bindOptions(Args, options(), id());
  if (!V)
    return V.takeError();
  auto S = buildRank(*V, Me);
  if (!S)
    return S.takeError();
  S->Algorithm = id().str();
  // An alltoallv rank's own sizes (--rank-part, Bruck's --relayed: O(p)
  // and O(p log p) numbers) are its header's sizes already: not copied
  // into params as JSON.
  for (OptionEntry &E : V->entries())
    if (E.Decl->Name == "rank-part" || E.Decl->Name == "relayed")
      E.Given = false;
  S->Params = V->toJson();
  return S;
}

llvm::Expected<Schedule>
Generator::generateFor(const CallHeader &H, uint64_t ElemBytes,
                       const OptionValues &Own,
                       std::optional<Rank> Only) const {
  auto V = callOptions(*this, H, ElemBytes, Own);
  if (!V)
    return V.takeError();
  auto S = Only && hasRankForm() ? generateRank(*V, *Only) : generate(*V);
  if (!S)
    return S.takeError();
  std::string Why = headerMismatch(H, *S);
  if (!Why.empty())
    return makeDiagError("call", formatv("{0} cannot serve {1}: {2}", id(),
                                         describeHeader(H), Why));
  return S;
}

llvm::Error choreo::checkOpBudget(llvm::StringRef Id, uint64_t EstimatedOps) {
  constexpr uint64_t Limit = BuildLimit;
  if (EstimatedOps <= Limit)
    return llvm::Error::success();
  return makeDiagError("params",
                       formatv("{0}: these parameters give about {1} ops, more "
                               "than choreo builds in memory ({2})",
                               Id, EstimatedOps, Limit));
}
