//===- generators/reduce/ReduceBinaryBlocks.cpp - Fig. 3 reduce -----------===//
///
/// \file
/// `reduce-binary-blocks` (seed 004, Sec. 3.6): the binary-blocks
/// reduce-scatter, then a binary-tree gather of the largest block's
/// segments to --root. A root outside the largest block first gets rank
/// 0's segment and plays rank 0 in the gather.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class ReduceBinaryBlocks final : public ReductionGenerator {
public:
  ReduceBinaryBlocks()
      : ReductionGenerator(Collective::Reduce, opt::reductionOp()) {}
  llvm::StringRef id() const override { return "reduce-binary-blocks"; }
  llvm::StringRef summary() const override {
    return "binary-blocks reduce-scatter + binary-tree gather to --root "
           "(Rabenseifner Sec. 3.6)";
  }

private:
  void place(const ReductionInput &In, RawSteps &R) const override {
    unsigned St = binaryBlocksReduceScatter(R, In.P, In.N, In.Elem);
    uint32_t Size = floorPow2(In.P);
    SegmentLayout Lay = SegmentLayout::bitReversed(In.N, In.Elem, Size);
    NewRanks M = NewRanks::block(0, Size);
    uint32_t NewRoot = In.Root;
    if (In.Root >= Size) {
      St = handOverSegment(R, St, M, Lay, In.Root);
      M.Zero = In.Root;
      NewRoot = 0;
    }
    treeGatherSegments(R, St, M, Lay, bitOrder(Size, true), NewRoot);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceBinaryBlocks() {
  return std::make_unique<ReduceBinaryBlocks>();
}
