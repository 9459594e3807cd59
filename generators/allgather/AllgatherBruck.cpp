//===- generators/allgather/AllgatherBruck.cpp - Bruck allgather(v) -------===//
///
/// \file
/// `allgather-bruck`: Bruck's intragroup allgather(v): ceil(log2 p) steps
/// for any p, rank i sending to rank i - 2^k (fully connected only).
///
//===----------------------------------------------------------------------===//

#include "generators/allgather/IntraAllgather.h"

using namespace choreo;

namespace {

class AllgatherBruck final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "allgather-bruck"; }
  llvm::StringRef summary() const override {
    return "intragroup Bruck allgather(v): ceil(log2 p) steps for any p";
  }
  CollectiveSet collectives() const override {
    return {Collective::Allgather, Collective::Allgatherv};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  /// p = 2^k and p = 2^k + m (1 <= m < 2^k): every p >= 1 in one.
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"allgather-bruck", "", "p = pow2(k)"},
        {"allgather-bruck-fold", "", "p = pow2(k) + m"}};
    return Ts;
  }
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildIntraAllgather(id(), IntraAlgorithm::Bruck, V, Only);
  }

private:
  const std::vector<OptionDecl> Options = {opt::ranks(),  opt::bytes(),
                                           opt::counts(), opt::fullTopology(),
                                           opt::base(),   opt::distribution()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllgatherBruck() {
  return std::make_unique<AllgatherBruck>();
}
