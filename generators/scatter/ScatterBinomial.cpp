//===- generators/scatter/ScatterBinomial.cpp - Binomial scatter ----------===//
///
/// \file
/// `scatter-binomial`: MPICH's binomial-tree scatter
/// (MPIR_Scatter_intra_binomial) from --root (default 0): relative rank r
/// receives the slices of relative ranks [r, r + m) from r - m, m its
/// lowest set bit, and hands on the upper halves, m/2 first; ceil(log2 p)
/// steps. It is binomial gather run backwards; --counts give a scatterv
/// over the same tree.
///
//===----------------------------------------------------------------------===//

#include "generators/scatter/Rooted.h"

using namespace choreo;

namespace {

class ScatterBinomial final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "scatter-binomial"; }
  llvm::StringRef summary() const override {
    return "MPICH's binomial-tree scatter from --root: ceil(log2 p) steps";
  }
  CollectiveSet collectives() const override { return {Collective::Scatter}; }
  /// p = 2^k and p = 2^k + m (1 <= m < 2^k), every root: every p >= 1.
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"scatter-binomial", "", "p = pow2(k), root = root"},
        {"scatter-binomial-fold", "", "p = pow2(k) + m, root = root"}};
    return Ts;
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildRooted(id(), Collective::Scatter, V, Only,
                       [&](llvm::ArrayRef<uint64_t> Sizes, uint32_t Root) {
                         return binomialScatter(Sizes, Root, Only);
                       });
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::bytes(),
                                           opt::counts(), opt::root()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeScatterBinomial() {
  return std::make_unique<ScatterBinomial>();
}
