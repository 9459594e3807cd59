//===- generators/reduce/ReduceScatterHalvingDoubling.cpp - Sec. 3.5 RS ---===//
///
/// \file
/// `reduce-scatter-halving-doubling` (seed 004, Sec. 3.5, its first part):
/// the fold of Fig. 2, then recursive vector halving with distance
/// doubling over the p' remaining ranks. MPI_Reduce_scatter fixes where
/// each slice ends: segment j is the slices of the ranks new rank j stands
/// for (new rank x < r: slices 2x and 2x+1; else slice x + r). The halving
/// splits the vector into contiguous halves (the lower rank of a pair
/// keeps the lower half; every message one range), which leaves segment j
/// at new rank bitrev(j); one step then swaps every segment to its owner
/// (new rank x and bitrev(x) exchange, what MPICH's noncommutative
/// reduce_scatter does by permuting its buffer before it starts). A last
/// step hands each removed rank its slice. Distance doubling keeps rank
/// order, so non-commutative operators are fine. (Halving in rank order
/// instead sends the owners' strided segments: p'/2 ranges per message at
/// the first step, about p'^2 blocks in all.)
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class ReduceScatterHalvingDoubling final : public ReductionGenerator {
public:
  ReduceScatterHalvingDoubling()
      : ReductionGenerator(Collective::ReduceScatter, opt::reductionOp()) {}
  llvm::StringRef id() const override {
    return "reduce-scatter-halving-doubling";
  }
  llvm::StringRef summary() const override {
    return "Rabenseifner's reduce-scatter (fold, vector halving with "
           "distance doubling), slices in rank order, any p (Sec. 3.5)";
  }

private:
  /// The p' final segments: new rank x < r stands for slices 2x and 2x+1,
  /// the others for slice x + r; the halving leaves segment j at new rank
  /// bitrev(j).
  static SegmentLayout layout(const ReductionInput &In) {
    uint32_t Pof2 = floorPow2(In.P), Rem = In.P - Pof2;
    std::vector<uint64_t> Off = prefixSums(In.Slices);
    std::vector<uint64_t> Cuts;
    for (uint32_t X = 0; X < Pof2; ++X)
      Cuts.push_back(Off[X < Rem ? 2 * X : X + Rem]);
    Cuts.push_back(In.N);
    return SegmentLayout::reversedAt(std::move(Cuts));
  }
  void place(const ReductionInput &In, RawSteps &R) const override {
    uint32_t Pof2 = floorPow2(In.P);
    std::vector<uint64_t> Off = prefixSums(In.Slices);
    SegmentLayout Lay = layout(In);
    uint64_t Half = partStart(In.N / In.Elem, 2, 1) * In.Elem;
    unsigned St = 0;
    NewRanks M = foldToPowerOfTwo(R, 0, In.P, In.N, Fold::Halves, Half,
                                  std::nullopt, St);
    St = halvingReduceScatter(R, St, M, Lay, bitOrder(Pof2, /*Doubling=*/true));
    St = segmentsToOwners(R, St, M, Lay);
    returnToPartners(R, St, M.Rem, /*OddSends=*/false, [&](uint32_t I) {
      return Interval{Off[2 * I + 1], Off[2 * I + 2]};
    });
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceScatterHalvingDoubling() {
  return std::make_unique<ReduceScatterHalvingDoubling>();
}
