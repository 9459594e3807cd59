//===- generators/gather/GatherMpich.cpp - MPICH 4.0's gather -------------===//
///
/// \file
/// `gather-mpich`: what MPICH 4.0.2's tuning file runs on an
/// intracommunicator: MPI_Gather by the binomial tree
/// (MPIR_Gather_intra_binomial), MPI_Gatherv linearly
/// (MPIR_Gatherv_allcomm_linear). A schedule's header does not say which
/// call it serves, so members alike take the tree and irregular
/// contributions the linear gatherv, as nativeCall (ir/CallBinding.h)
/// calls MPICH.
///
//===----------------------------------------------------------------------===//

#include "generators/scatter/Rooted.h"

using namespace choreo;

namespace {

class GatherMpich final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "gather-mpich"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's choice: binomial for MPI_Gather (members alike), "
           "linear for MPI_Gatherv";
  }
  CollectiveSet collectives() const override { return {Collective::Gather}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildRooted(id(), Collective::Gather, V, Only,
                       [&](llvm::ArrayRef<uint64_t> Sizes, uint32_t Root) {
                         if (!regularSizes(Sizes))
                           return linearRooted(Sizes, Root, /*ToRoot=*/true,
                                               Only);
                         if (Only)
                           return binomialGatherRank(Sizes, Root, *Only).kept();
                         StepList L = binomialGather(Sizes, Root);
                         L.dropEmptySteps();
                         return L;
                       });
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::bytes(),
                                           opt::counts(), opt::root()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeGatherMpich() {
  return std::make_unique<GatherMpich>();
}
