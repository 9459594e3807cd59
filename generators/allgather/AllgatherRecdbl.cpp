//===- generators/allgather/AllgatherRecdbl.cpp - Recursive doubling ------===//
///
/// \file
/// `allgather-recdbl`: the intragroup recursive-doubling allgather(v):
/// log2 p pairwise exchanges, p a power of two (fully connected only).
///
//===----------------------------------------------------------------------===//

#include "generators/allgather/IntraAllgather.h"

using namespace choreo;

namespace {

class AllgatherRecdbl final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "allgather-recdbl"; }
  llvm::StringRef summary() const override {
    return "intragroup recursive-doubling allgather(v): log2 p pairwise "
           "exchanges, p a power of two";
  }
  CollectiveSet collectives() const override {
    return {Collective::Allgather, Collective::Allgatherv};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  /// p = 2^k, the only p it builds.
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"allgather-recdbl", "", "p = pow2(k)"}};
    return Ts;
  }
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildIntraAllgather(id(), IntraAlgorithm::RecursiveDoubling, V,
                               Only);
  }

private:
  const std::vector<OptionDecl> Options = {opt::ranks(),  opt::bytes(),
                                           opt::counts(), opt::fullTopology(),
                                           opt::base(),   opt::distribution()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllgatherRecdbl() {
  return std::make_unique<AllgatherRecdbl>();
}
