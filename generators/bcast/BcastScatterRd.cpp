//===- generators/bcast/BcastScatterRd.cpp - Scatter + recursive doubling -===//
///
/// \file
/// `bcast-scatter-rd`: MPICH's MPIR_Bcast_intra_scatter_recursive_doubling_
/// allgather, seed 002, Eq. 6, for any p: where p is not a power of two,
/// MPICH's recursive-halving fill-in of the missing subtrees.
/// With --groups, its hierarchical form (bcast/BcastFamily.h).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastScatterRd final : public BcastFamilyGenerator {
public:
  BcastScatterRd() : BcastFamilyGenerator(BcastAlgo::ScatterRd) {}
  llvm::StringRef summary() const override {
    return "MPICH's scatter-recursive-doubling-allgather, any p (MPICH's "
           "non-power-of-two fill-in) (seed 002, Eq. 6)";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastScatterRd() {
  return std::make_unique<BcastScatterRd>();
}
