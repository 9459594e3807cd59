//===- generators/bcast/BcastPipeline.cpp - Pipelined chain broadcast -----===//
///
/// \file
/// `bcast-pipeline`: the pipelined chain of seed 002, Eq. 3: the message cut
/// into X segments (--segments X near-equal ones, or --segment-bytes S as
/// Open MPI's segsize); at step t relative rank j forwards segment t - j.
/// With --groups, its hierarchical form (bcast/BcastFamily.h).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastPipeline final : public BcastFamilyGenerator {
public:
  BcastPipeline() : BcastFamilyGenerator(BcastAlgo::Pipeline) {}
  llvm::StringRef summary() const override {
    return "chain with the message cut into X segments (--segments, "
           "--segment-bytes): X + p - 2 steps (seed 002, Eq. 3)";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastPipeline() {
  return std::make_unique<BcastPipeline>();
}
