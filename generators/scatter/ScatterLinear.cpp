//===- generators/scatter/ScatterLinear.cpp - Linear scatter(v) -----------===//
///
/// \file
/// `scatter-linear`: MPICH's MPIR_Scatterv_allcomm_linear: the root sends
/// each member its slice, members 0, 1, ..., p - 1 in turn (not itself, not
/// a member with no bytes), one message per step.
///
//===----------------------------------------------------------------------===//

#include "generators/scatter/Rooted.h"

using namespace choreo;

namespace {

class ScatterLinear final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "scatter-linear"; }
  llvm::StringRef summary() const override {
    return "MPICH's linear scatterv: the root sends each member its slice, "
           "one per step";
  }
  CollectiveSet collectives() const override { return {Collective::Scatter}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {{"scatter-linear", ""}};
    return Ts;
  }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildRooted(id(), Collective::Scatter, V, Only,
                       [&](llvm::ArrayRef<uint64_t> Sizes, uint32_t Root) {
                         return linearRooted(Sizes, Root, /*ToRoot=*/false,
                                             Only);
                       });
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::bytes(),
                                           opt::counts(), opt::root()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeScatterLinear() {
  return std::make_unique<ScatterLinear>();
}
