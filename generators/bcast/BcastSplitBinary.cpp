//===- generators/bcast/BcastSplitBinary.cpp - Split-binary tree broadcast ===//
///
/// \file
/// `bcast-split-binary`: Open MPI's split-binary tree
/// (ompi_coll_base_bcast_intra_split_bintree, unsegmented), seed 002, Eq. 7.
/// With --groups, its hierarchical form (bcast/BcastFamily.h).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastSplitBinary final : public BcastFamilyGenerator {
public:
  BcastSplitBinary() : BcastFamilyGenerator(BcastAlgo::SplitBinary) {}
  llvm::StringRef summary() const override {
    return "Open MPI's split-binary tree: two halves down the two subtrees, "
           "then a pairwise exchange (seed 002, Eq. 7)";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastSplitBinary() {
  return std::make_unique<BcastSplitBinary>();
}
