//===- generators/gather/GatherBinomial.cpp - Binomial gather -------------===//
///
/// \file
/// `gather-binomial`: MPICH's binomial-tree gather (MPIR_Gather_intra_binomial)
/// to --root (default 0), ceil(log2 p) steps; counts give a gatherv.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

class GatherBinomial final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "gather-binomial"; }
  llvm::StringRef summary() const override {
    return "MPICH's binomial-tree gather to --root: ceil(log2 p) steps";
  }
  CollectiveSet collectives() const override { return {Collective::Gather}; }
  /// p = 2^k and p = 2^k + m (1 <= m < 2^k), every root: every p >= 1.
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"gather-binomial", "", "p = pow2(k), root = root"},
        {"gather-binomial-fold", "", "p = pow2(k) + m, root = root"}};
    return Ts;
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  /// With Only, rank Only's sends and receives of the tree (O(p) arithmetic for
  /// the steps that carry bytes).
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
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
    Schedule S;
    S.Kind = Collective::Gather;
    setIntragroup(S, *N, *Sizes);
    S.Root = *Root;
    if (Only) {
      if (*Only >= *N)
        return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                    " is not below --p " + llvm::Twine(*N));
      S.Steps = binomialGatherRank(*Sizes, *Root, *Only).kept();
      return S;
    }
    S.Steps = binomialGather(*Sizes, *Root);
    S.Steps.dropEmptySteps();
    return S;
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::bytes(),
                                           opt::counts(), opt::root()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeGatherBinomial() {
  return std::make_unique<GatherBinomial>();
}
