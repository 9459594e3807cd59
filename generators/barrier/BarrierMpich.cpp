//===- generators/barrier/BarrierMpich.cpp - MPICH 4.0's barrier ----------===//
///
/// \file
/// `barrier-mpich`: what MPICH 4.0.2 runs for MPI_Barrier over point-to-point
/// messages, MPIR_Barrier_intra_dissemination (its tuning file's choice for
/// a communicator without node hierarchy, and what the ch4 device's
/// composition runs among the node roots): in round j, rank i sends a
/// zero-byte message to i + 2^j and receives from i - 2^j, ceil(log2 p)
/// rounds. (Within one node ch4 runs a shared-memory release/gather
/// barrier instead, which sends no messages.)
///
//===----------------------------------------------------------------------===//

#include "generators/barrier/Barrier.h"

using namespace choreo;

namespace {

class BarrierMpich final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "barrier-mpich"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's point-to-point barrier: dissemination, ceil(log2 p) "
           "rounds";
  }
  CollectiveSet collectives() const override { return {Collective::Barrier}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildBarrier(
        id(), V, Only, [](uint32_t P) { return disseminationBarrierOps(P, 2); },
        [&](uint32_t P) { return disseminationBarrier(P, 2, Only); });
  }

  const std::vector<OptionDecl> Options = {opt::ranks()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeBarrierMpich() {
  return std::make_unique<BarrierMpich>();
}
