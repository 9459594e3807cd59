//===- generators/bcast/BcastFlat.cpp - Flat tree broadcast ---------------===//
///
/// \file
/// `bcast-flat`: the flat (linear) tree of seed 002, Eq. 1: the root sends
/// [0, n) to relative ranks 1, 2, ..., p - 1, one per step.
/// With --groups, its hierarchical form (bcast/BcastFamily.h).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastFlat final : public BcastFamilyGenerator {
public:
  BcastFlat() : BcastFamilyGenerator(BcastAlgo::Flat) {}
  llvm::StringRef summary() const override {
    return "the root sends the whole message to every other rank, one per "
           "step: p - 1 steps (seed 002, Eq. 1)";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastFlat() {
  return std::make_unique<BcastFlat>();
}
