//===- generators/bcast/BcastBinomial.cpp - Binomial broadcast ------------===//
///
/// \file
/// `bcast-binomial`: MPICH's binomial-tree broadcast
/// (MPIR_Bcast_intra_binomial) from --root (default 0), ceil(log2 p) steps.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

class BcastBinomial final : public Generator {
public:
  llvm::StringRef id() const override { return "bcast-binomial"; }
  llvm::StringRef summary() const override {
    return "MPICH's binomial-tree broadcast from --root: ceil(log2 p) steps";
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    auto N = groupCount(V, "p");
    if (!N)
      return N.takeError();
    auto Root = rootRank(V, *N);
    if (!Root)
      return Root.takeError();
    auto Bytes = requiredNumber(V, "bytes");
    if (!Bytes)
      return Bytes.takeError();
    if (auto E = checkOpBudget(id(), uint64_t(*N) * (*N + 2 * ceilLog2(*N))))
      return E;
    Schedule S;
    S.Kind = Collective::Bcast;
    setIntragroup(S, *N, {*Bytes});
    S.Root = *Root;
    S.Steps = binomialBcast(*N, *Bytes, *Root);
    S.Steps.dropEmptySteps();
    return S;
  }

private:
  const std::vector<OptionDecl> Options = {
      opt::ranks(), opt::bytes().withHelp("vector length to broadcast"),
      opt::root()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastBinomial() {
  return std::make_unique<BcastBinomial>();
}
