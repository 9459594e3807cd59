//===- generators/Generator.cpp - What every generator shares -------------===//
///
/// \file
/// Generator::generate (bind the options, build, record the algorithm and
/// its params) and the op budget every generator checks.
///
//===----------------------------------------------------------------------===//

#include "generators/Generator.h"

#include "ir/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

Generator::~Generator() = default;

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
  S->Params = V->toJson();
  return S;
}

llvm::Error choreo::checkOpBudget(llvm::StringRef Id, uint64_t EstimatedOps) {
  constexpr uint64_t Limit = 200'000'000;
  if (EstimatedOps <= Limit)
    return llvm::Error::success();
  return makeDiagError("params",
                       formatv("{0}: these parameters give about {1} ops, more "
                               "than choreo builds in memory ({2})",
                               Id, EstimatedOps, Limit));
}
