//===- generators/bcast/BcastChain.cpp - Chain broadcast ------------------===//
///
/// \file
/// `bcast-chain`: the linear tree (chain) of seed 002, Eq. 2: relative rank i
/// receives the whole message at step i - 1 and forwards it to i + 1.
/// With --groups, its hierarchical form (bcast/BcastFamily.h).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastChain final : public BcastFamilyGenerator {
public:
  BcastChain() : BcastFamilyGenerator(BcastAlgo::Chain) {}
  llvm::StringRef summary() const override {
    return "linear tree: relative rank i forwards the message to i + 1: p - 1 "
           "steps (seed 002, Eq. 2)";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastChain() {
  return std::make_unique<BcastChain>();
}
