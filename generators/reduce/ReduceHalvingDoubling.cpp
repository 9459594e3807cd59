//===- generators/reduce/ReduceHalvingDoubling.cpp - Sec. 3.5 reduce ------===//
///
/// \file
/// `reduce-halving-doubling` (seed 004, Sec. 3.5): Fig. 2's reduce-scatter,
/// then a binary-tree gather of the segments to --root (distance halving;
/// of each pair the one whose bit agrees with the root's new rank
/// receives). A root among the removed ranks swaps roles with its partner
/// in the fold: the partner sends its reduced half to the root instead of
/// the other way round, at no extra cost.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class ReduceHalvingDoubling final : public ReductionGenerator {
public:
  ReduceHalvingDoubling()
      : ReductionGenerator(Collective::Reduce, opt::reductionOp()) {}
  llvm::StringRef id() const override { return "reduce-halving-doubling"; }
  llvm::StringRef summary() const override {
    return "Rabenseifner's reduce-scatter + binary-tree gather to --root, "
           "any p (Sec. 3.5)";
  }

private:
  void place(const ReductionInput &In, RawSteps &R) const override {
    uint32_t Pof2 = floorPow2(In.P), Rem = In.P - Pof2;
    SegmentLayout Lay = SegmentLayout::bitReversed(In.N, In.Elem, Pof2);
    std::optional<uint32_t> KeepOdd;
    uint32_t NewRoot = In.Root >= 2 * Rem ? In.Root - Rem : In.Root / 2;
    if (In.Root < 2 * Rem && In.Root % 2)
      KeepOdd = In.Root / 2;
    unsigned St = 0;
    NewRanks M = foldToPowerOfTwo(R, 0, In.P, In.N, Fold::Halves,
                                  Lay.cut(Pof2 / 2), KeepOdd, St);
    std::vector<unsigned> Bits = bitOrder(Pof2, /*Doubling=*/true);
    St = halvingReduceScatter(R, St, M, Lay, Bits);
    treeGatherSegments(R, St, M, Lay, Bits, NewRoot);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceHalvingDoubling() {
  return std::make_unique<ReduceHalvingDoubling>();
}
