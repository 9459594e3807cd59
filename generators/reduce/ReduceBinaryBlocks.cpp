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
    std::vector<BinaryBlock> Blocks;
    SegmentLayout Lay;
    unsigned St = binaryBlocksReduceScatter(R, In.P, In.N, In.Elem, Blocks,
                                            Lay);
    uint32_t Size = Blocks.front().Size;
    std::vector<Rank> RankOf(Size);
    for (uint32_t X = 0; X < Size; ++X)
      RankOf[X] = X;
    uint32_t NewRoot = In.Root;
    if (In.Root >= Size) {
      std::vector<Interval> Own;
      for (size_t J = 0; J < Lay.Owner.size(); ++J)
        if (Lay.Owner[J] == 0)
          Own.push_back({Lay.Cuts[J], Lay.Cuts[J + 1]});
      R.add(St++, 0, In.Root, Own, /*Reduce=*/false);
      RankOf[0] = In.Root;
      NewRoot = 0;
    }
    treeGatherSegments(R, St, RankOf, Lay, bitOrder(Size, true), NewRoot);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceBinaryBlocks() {
  return std::make_unique<ReduceBinaryBlocks>();
}
