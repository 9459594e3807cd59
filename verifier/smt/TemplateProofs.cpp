//===- verifier/smt/TemplateProofs.cpp - choreo prove's proofs ------------===//
///
/// \file
/// The templates of an algorithm, each loaded and proved, and the replay of
/// a counterexample by the explicit engine on the expanded schedule. No Z3
/// here: proveTemplate (TemplateProver.cpp) is the solver's side.
///
//===----------------------------------------------------------------------===//

#include "verifier/Verifier.h"
#include "verifier/smt/Prover.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;

/// The largest expansion a counterexample is replayed on (ranks, ops and
/// loop iterations; estimateTemplateOps).
static constexpr uint64_t ReplayBudget = 10'000'000;

std::string choreo::replayCounterexample(const Template &T,
                                         const Obligation &Ob) {
  Env Params;
  for (const std::string &P : T.Params) {
    auto It = Ob.Model.find(P);
    if (It == Ob.Model.end())
      return "not replayed: the counterexample gives no value of " + P;
    Params[P] = It->second;
  }
  // Confirmed only where the expansion fits: a counterexample at p = 2e9
  // is reported, not expanded.
  auto Size = estimateTemplateOps(T, Params, ReplayBudget);
  if (!Size)
    return "confirmed by the expansion at these parameters, which refuses "
           "the template: " +
           llvm::toString(Size.takeError());
  if (*Size > ReplayBudget)
    return llvm::formatv("not replayed: the expansion at these parameters "
                         "takes more than {0} ranks, ops and loop iterations",
                         ReplayBudget);
  auto [A, B] = unitSizes(T, Params);
  if (A.size() + B.size() > 4096)
    return llvm::formatv("not replayed: {0} ranks is more than the explicit "
                         "replay takes here",
                         A.size() + B.size());
  auto S = expandTemplate(T, Params, A, B);
  if (!S)
    // The expansion itself evaluates the op and refuses it (a message that
    // does not exist, a stage that cannot be laid out).
    return "confirmed by the expansion at these parameters, which refuses "
           "the template: " +
           llvm::toString(S.takeError());
  VerifyResult R = checkExplicit(*S);
  std::string Args;
  for (const std::string &P : T.Params)
    Args += " --" + P + " " + std::to_string(Params[P]);
  if (R.proved())
    return "the explicit engine proves the expanded schedule (choreo gen "
           "--template " +
           T.Name + Args +
           "): the obligation is stronger than the schedule needs";
  return "confirmed by the explicit engine on `choreo gen --template " +
         T.Name + Args + "`: " +
         (R.Diags.empty() ? std::string("it does not prove")
                          : R.Diags.front().Message);
}

llvm::Expected<ProveReport>
choreo::proveTargetCover(llvm::ArrayRef<std::string> Templates,
                         const ProveOptions &O) {
  std::vector<Template> Ts;
  for (const std::string &Name : Templates) {
    auto T = loadTemplate(Name);
    if (!T)
      return T.takeError();
    Ts.push_back(std::move(*T));
  }
  std::vector<const Template *> Ptrs;
  for (const Template &T : Ts)
    Ptrs.push_back(&T);
  return proveDomainsCover(Ptrs, O);
}

llvm::Error
choreo::proveTarget(llvm::ArrayRef<std::string> Templates,
                    const ProveOptions &O,
                    llvm::function_ref<void(const TemplateProof &)> OnProof) {
  for (const std::string &Name : Templates) {
    auto T = loadTemplate(Name);
    if (!T)
      return T.takeError();
    auto R = proveTemplate(*T, O);
    if (!R)
      return R.takeError();
    TemplateProof P;
    P.Name = T->Name;
    for (const CondPtr &C : T->Domain)
      P.Domain += (P.Domain.empty() ? "" : ", ") + C->str();
    for (const Obligation &Ob : R->Obligations)
      P.Replays.push_back(Ob.R == Obligation::Result::Counterexample
                              ? replayCounterexample(*T, Ob)
                              : "");
    P.Report = std::move(*R);
    OnProof(P);
  }
  return llvm::Error::success();
}
