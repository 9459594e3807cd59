//===- generators/allgatherv/AllgathervMpichRing.cpp - MPICH's ring -------===//
///
/// \file
/// `allgatherv-mpich-ring`: MPICH 4.0's MPIR_Allgatherv_intra_ring as it
/// runs, the baseline MPI users get for large allgathervs: rank order, one
/// blocking send-receive per loop iteration, and 32 KiB pieces once the
/// largest contribution exceeds MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE.
///
//===----------------------------------------------------------------------===//

#include "generators/SizeChecks.h"
#include "generators/allgatherv/AllgathervRing.h"

using namespace choreo;

namespace {

class AllgathervMpichRing final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "allgatherv-mpich-ring"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's ring allgatherv (MPIR_Allgatherv_intra_ring): 32 KiB "
           "pieces once the largest contribution exceeds 32 KiB";
  }
  CollectiveSet collectives() const override {
    return {Collective::Allgatherv};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  /// With Only, rank Only's ops alone (its k-th loop iteration at step k).
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto N = groupCount(V, opt::ranks());
    if (!N)
      return N.takeError();
    bool Irregular = false;
    auto Sizes = intragroupSizes(V, *N, Irregular);
    if (!Sizes)
      return Sizes.takeError();
    return buildMpichRing(id(), Collective::Allgatherv, *Sizes,
                          V.get(PipelineBytes), Only);
  }

  const Option<Size> PipelineBytes =
      sizeOption("pipeline-bytes",
                 "MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE: the piece size once "
                 "the largest contribution exceeds it (0: no pipelining)")
          .withDefault("32768");
  const std::vector<OptionDecl> Options = {
      opt::ranks(),        opt::bytes(),  opt::counts(),          opt::base(),
      opt::distribution(), PipelineBytes, opt::ringTopology(id())};
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllgathervMpichRing() {
  return std::make_unique<AllgathervMpichRing>();
}
