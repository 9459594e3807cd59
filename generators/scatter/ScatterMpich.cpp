//===- generators/scatter/ScatterMpich.cpp - MPICH 4.0's scatter ----------===//
///
/// \file
/// `scatter-mpich`: what MPICH 4.0.2's tuning file runs on an
/// intracommunicator: MPI_Scatter by the binomial tree
/// (MPIR_Scatter_intra_binomial), MPI_Scatterv linearly
/// (MPIR_Scatterv_allcomm_linear). A schedule's header does not say which
/// call it serves, so members alike take the tree and irregular slices the
/// linear scatterv, as nativeCall (ir/CallBinding.h) calls MPICH.
///
//===----------------------------------------------------------------------===//

#include "generators/scatter/Rooted.h"

using namespace choreo;

namespace {

class ScatterMpich final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "scatter-mpich"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's choice: binomial for MPI_Scatter (members alike), "
           "linear for MPI_Scatterv";
  }
  CollectiveSet collectives() const override { return {Collective::Scatter}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildRooted(id(), Collective::Scatter, V, Only,
                       [&](llvm::ArrayRef<uint64_t> Sizes, uint32_t Root) {
                         if (!regularSizes(Sizes))
                           return linearRooted(Sizes, Root, /*ToRoot=*/false,
                                               Only);
                         return binomialScatter(Sizes, Root, Only);
                       });
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::bytes(),
                                           opt::counts(), opt::root()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeScatterMpich() {
  return std::make_unique<ScatterMpich>();
}
