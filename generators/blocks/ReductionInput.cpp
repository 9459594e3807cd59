//===- generators/blocks/ReductionInput.cpp - Reduction options -----------===//
///
/// \file
/// Reading the options every reduction generator takes (--p, --bytes or
/// --slices, --element-bytes, --op, --root) and making the schedule from
/// raw ops: their closed-form contributor sets, or the replay's.
///
//===----------------------------------------------------------------------===//

#include "generators/CommonOptions.h"
#include "generators/SizeChecks.h"
#include "generators/blocks/Reduction.h"
#include "verifier/ContribReplay.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

llvm::Expected<ReductionInput> choreo::readReductionInput(const OptionValues &V,
                                                          Collective C) {
  ReductionInput In;
  auto P = groupCount(V, opt::ranks());
  if (!P)
    return P.takeError();
  In.P = *P;
  In.Elem = V.get(opt::elementBytes());
  if (In.Elem == 0)
    return optionError("element-bytes", "an element has at least 1 byte");
  std::optional<std::vector<uint64_t>> Slices;
  if (V.decl(opt::slices()))
    Slices = V.lookup(opt::slices());
  std::optional<uint64_t> Bytes = V.lookup(opt::vectorBytes());
  if (Slices) {
    if (Slices->size() != In.P)
      return optionError("slices",
                         formatv("{0} slices for {1} ranks (--p); give one "
                                 "per rank",
                                 Slices->size(), In.P));
    for (size_t R = 0; R < Slices->size(); ++R)
      if ((*Slices)[R] % In.Elem)
        return optionError(
            "slices", formatv("rank {0}'s slice of {1} bytes is not a whole "
                              "number of {2}-byte elements (--element-bytes)",
                              R, (*Slices)[R], In.Elem));
    auto Total = sumOfSizes(*Slices, "slices");
    if (!Total)
      return Total.takeError();
    uint64_t Sum = *Total;
    if (Bytes && *Bytes != Sum)
      return optionError("slices", formatv("the slices sum to {0} bytes but "
                                           "--bytes is {1}",
                                           Sum, *Bytes));
    In.N = Sum;
    In.Slices = std::move(*Slices);
  } else {
    if (!Bytes)
      return optionError("bytes",
                         V.decl(opt::slices())
                             ? "missing: give the vector length n (--bytes) "
                               "or the slices (--slices)"
                             : "missing: the vector length n in bytes");
    In.N = *Bytes;
    if (In.N % In.Elem)
      return optionError("element-bytes",
                         formatv("{0}-byte elements do not divide the "
                                 "{1}-byte vector (--bytes); no block may "
                                 "split an element",
                                 In.Elem, In.N));
    if (specOf(C).Result == ResultRule::OwnSlice) {
      std::vector<uint64_t> Cuts = elementCuts(In.N, In.Elem, In.P);
      for (uint32_t R = 0; R < In.P; ++R)
        In.Slices.push_back(Cuts[R + 1] - Cuts[R]);
    }
  }
  In.Commutative = V.get(opt::reductionOp()) == OperatorKind::Commutative;
  if (specOf(C).Rooted) {
    auto Root = rootRank(V, In.P);
    if (!Root)
      return Root.takeError();
    In.Root = *Root;
  }
  return In;
}

Schedule choreo::reductionSchedule(Collective C, const ReductionInput &In,
                                   RawSteps &R, bool Replay) {
  Schedule S;
  S.Kind = C;
  setIntragroup(S, In.P, {In.N});
  if (specOf(C).Result == ResultRule::OwnSlice)
    S.Sizes.push_back({"slices", In.Slices});
  if (specOf(C).Rooted)
    S.Root = In.Root;
  if (!In.Commutative)
    S.ReduceOp = ReductionOp{false};
  if (Replay && !R.only()) {
    S.Steps = annotateContributors(R.takeRaw(), In.P, In.N);
    S.Steps.dropEmptySteps();
  } else {
    S.Steps = R.take();
  }
  return S;
}
