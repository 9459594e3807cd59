//===- generators/allgather/AllgatherRing.cpp - Ring allgather(v) ---------===//
///
/// \file
/// `allgather-ring`: the intragroup ring allgather (allgatherv with
/// --counts): p - 1 steps, each rank sending to its right neighbour, so it
/// runs on the ring topology as well.
///
//===----------------------------------------------------------------------===//

#include "generators/allgather/IntraAllgather.h"

using namespace choreo;

namespace {

class AllgatherRing final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "allgather-ring"; }
  llvm::StringRef summary() const override {
    return "intragroup ring allgather (allgatherv with --counts): p - 1 "
           "steps between ring neighbours";
  }
  CollectiveSet collectives() const override {
    return {Collective::Allgather, Collective::Allgatherv};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildIntraAllgather(id(), IntraAlgorithm::Ring, V, Only);
  }

private:
  const std::vector<OptionDecl> Options = {opt::ranks(),  opt::bytes(),
                                           opt::counts(), opt::anyTopology(),
                                           opt::base(),   opt::distribution()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllgatherRing() {
  return std::make_unique<AllgatherRing>();
}
