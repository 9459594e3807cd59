//===- generators/bcast/BcastMpich.cpp - MPICH's default choice -----------===//
///
/// \file
/// `bcast-mpich`: what MPICH 4.0.2's MPI_Bcast runs by default (its tuning
/// file, checked by choreo trace): binomial if p < 8 or n <= 12288 B,
/// scatter + recursive doubling if p is a power of two and n <= 524288 B,
/// else scatter + ring.
/// With --groups, its hierarchical form (bcast/BcastFamily.h).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastMpich final : public BcastFamilyGenerator {
public:
  BcastMpich() : BcastFamilyGenerator(BcastAlgo::Mpich) {}
  llvm::StringRef summary() const override {
    return "MPICH 4.0's choice: binomial if p < 8 or n <= 12K, scatter + "
           "recursive doubling if p is a power of two and n <= 512K, else "
           "scatter + ring";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastMpich() {
  return std::make_unique<BcastMpich>();
}
