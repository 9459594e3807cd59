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

class AllgatherBruck final : public Generator {
public:
  llvm::StringRef id() const override { return "allgather-bruck"; }
  llvm::StringRef summary() const override {
    return "intragroup Bruck allgather(v): ceil(log2 p) steps for any p";
  }
  CollectiveSet collectives() const override {
    return {Collective::Allgather, Collective::Allgatherv};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    return buildIntraAllgather(id(), IntraAlgorithm::Bruck, V);
  }
  bool hasRankForm() const override { return true; }
  llvm::Expected<Schedule> buildRank(const OptionValues &V,
                                     Rank Me) const override {
    return buildIntraAllgather(id(), IntraAlgorithm::Bruck, V, Me);
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
