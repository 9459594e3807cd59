//===- generators/reduce/AllreduceBinaryBlocks.cpp - Fig. 3 allreduce -----===//
///
/// \file
/// `allreduce-binary-blocks` (seed 004, Sec. 3.6, Fig. 3): the ranks in
/// blocks of the binary decomposition of p, largest first; each block
/// reduce-scatters by halving-doubling; from the smallest block up, each
/// block's partial segments go, cut into the next larger block's segments,
/// to that block and are combined there (a sender sends one message per
/// step, ratio-of-sizes messages in all). Second part: each block hands
/// the next smaller one its segments and runs the doubling allgather. For
/// p a power of two it is the halving-doubling algorithm. The largest
/// block holds the lowest ranks, so combinations keep rank order.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class AllreduceBinaryBlocks final : public ReductionGenerator {
public:
  AllreduceBinaryBlocks()
      : ReductionGenerator(Collective::Allreduce, opt::reductionOp()) {}
  llvm::StringRef id() const override { return "allreduce-binary-blocks"; }
  llvm::StringRef summary() const override {
    return "binary blocks: per-block halving-doubling, smaller blocks "
           "feeding the next larger one (Rabenseifner Sec. 3.6, Fig. 3)";
  }

private:
  void place(const ReductionInput &In, RawSteps &R) const override {
    unsigned St = binaryBlocksReduceScatter(R, In.P, In.N, In.Elem);
    binaryBlocksAllgather(R, St, In.P, In.N, In.Elem);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllreduceBinaryBlocks() {
  return std::make_unique<AllreduceBinaryBlocks>();
}
