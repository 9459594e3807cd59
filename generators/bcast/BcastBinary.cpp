//===- generators/bcast/BcastBinary.cpp - Binary tree broadcast -----------===//
///
/// \file
/// `bcast-binary`: Open MPI's binary-tree broadcast (ompi_coll_base_topo_
/// build_tree, fanout 2, unsegmented), seed 002, Eq. 4.
/// With --groups, its hierarchical form (bcast/BcastFamily.h).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastBinary final : public BcastFamilyGenerator {
public:
  BcastBinary() : BcastFamilyGenerator(BcastAlgo::Binary) {}
  llvm::StringRef summary() const override {
    return "Open MPI's binary tree: each rank forwards to its two children one "
           "after the other (seed 002, Eq. 4)";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastBinary() {
  return std::make_unique<BcastBinary>();
}
