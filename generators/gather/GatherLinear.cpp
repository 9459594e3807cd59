//===- generators/gather/GatherLinear.cpp - Linear gather(v) --------------===//
///
/// \file
/// `gather-linear`: MPICH's MPIR_Gatherv_allcomm_linear: the root receives
/// each member's contribution, members 0, 1, ..., p - 1 in turn (not
/// itself, not a member with no bytes), one message per step.
///
//===----------------------------------------------------------------------===//

#include "generators/scatter/Rooted.h"

using namespace choreo;

namespace {

class GatherLinear final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "gather-linear"; }
  llvm::StringRef summary() const override {
    return "MPICH's linear gatherv: every member sends to the root, one per "
           "step";
  }
  CollectiveSet collectives() const override { return {Collective::Gather}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {{"gather-linear", ""}};
    return Ts;
  }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildRooted(id(), Collective::Gather, V, Only,
                       [&](llvm::ArrayRef<uint64_t> Sizes, uint32_t Root) {
                         return linearRooted(Sizes, Root, /*ToRoot=*/true,
                                             Only);
                       });
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::bytes(),
                                           opt::counts(), opt::root()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeGatherLinear() {
  return std::make_unique<GatherLinear>();
}
