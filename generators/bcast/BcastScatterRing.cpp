//===- generators/bcast/BcastScatterRing.cpp - Scatter + ring allgather ---===//
///
/// \file
/// `bcast-scatter-ring`: MPICH's MPIR_Bcast_intra_scatter_ring_allgather
/// (SRGA), seed 002, Eq. 5: a binomial scatter of ceil(n/p)-byte chunks,
/// then a ring allgather of the chunks.
/// With --groups, its hierarchical form (bcast/BcastFamily.h).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastScatterRing final : public BcastFamilyGenerator {
public:
  BcastScatterRing() : BcastFamilyGenerator(BcastAlgo::ScatterRing) {}
  llvm::StringRef summary() const override {
    return "MPICH's scatter-ring-allgather (SRGA): binomial scatter, then a "
           "ring allgather (seed 002, Eq. 5)";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastScatterRing() {
  return std::make_unique<BcastScatterRing>();
}
