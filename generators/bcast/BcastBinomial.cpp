//===- generators/bcast/BcastBinomial.cpp - Binomial broadcast ------------===//
///
/// \file
/// `bcast-binomial`: MPICH's binomial-tree broadcast
/// (MPIR_Bcast_intra_binomial) from --root (default 0), ceil(log2 p) steps
/// (seed 002, Eq. 4). With --groups, its hierarchical form
/// (bcast/BcastFamily.h).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastBinomial final : public BcastFamilyGenerator {
public:
  BcastBinomial() : BcastFamilyGenerator(BcastAlgo::Binomial) {}
  llvm::StringRef summary() const override {
    return "MPICH's binomial-tree broadcast from --root: ceil(log2 p) steps "
           "(seed 002, Eq. 4)";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastBinomial() {
  return std::make_unique<BcastBinomial>();
}
