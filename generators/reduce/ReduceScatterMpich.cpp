//===- generators/reduce/ReduceScatterMpich.cpp - MPICH 4.0's RS ----------===//
///
/// \file
/// `reduce-scatter-mpich`: what MPICH 4.0's default selection runs for
/// MPI_Reduce_scatter, as a baseline. Commutative: recursive halving
/// (MPIR_Reduce_scatter_intra_recursive_halving: even ranks of the first 2r
/// fold into the odd ones, distance halving over the p' remaining ranks,
/// the odd ranks return their partner's slice) below 512 KB in all, else
/// the pairwise exchange. Non-commutative with p a power of two and equal
/// slices: MPIR_Reduce_scatter_intra_noncommutative (distance doubling,
/// each rank ending with its own slice). MPICH's remaining case, its
/// recursive-doubling reduce_scatter, is not modelled: refused.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;

namespace {

bool equalSlices(const ReductionInput &In) {
  for (uint64_t S : In.Slices)
    if (S != In.Slices.front())
      return false;
  return true;
}

class ReduceScatterMpich final : public ReductionGenerator {
public:
  /// MPICH's threshold for the pairwise exchange (commutative).
  static constexpr uint64_t PairwiseBytes = 524288;

  ReduceScatterMpich()
      : ReductionGenerator(Collective::ReduceScatter, opt::reductionOp()) {}
  llvm::StringRef id() const override { return "reduce-scatter-mpich"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's choice: recursive halving below 512 KB, else "
           "pairwise; noncommutative on a power of two with equal slices";
  }

private:
  /// p steps on the pairwise path only (the op budget of a recursive
  /// halving at large p).
  bool ringLike(const ReductionInput &In) const override {
    return In.Commutative && In.N >= PairwiseBytes;
  }
  llvm::Error refuse(const ReductionInput &In) const override {
    if (In.Commutative || (isPowerOfTwo(In.P) && equalSlices(In)))
      return llvm::Error::success();
    return optionError(
        "op", llvm::formatv("with a non-commutative operator MPICH runs its "
                            "recursive-doubling reduce_scatter unless p is a "
                            "power of two and the slices are equal (p = {0}"
                            "{1}); that algorithm is not modelled",
                            In.P, equalSlices(In) ? "" : ", unequal slices"));
  }
  /// Not commutative: one segment per slice, owned in rank order (strided
  /// under distance doubling).
  static SegmentLayout sliceLayout(const ReductionInput &In) {
    return SegmentLayout::inOrder(prefixSums(In.Slices));
  }
  uint64_t extraBlocks(const ReductionInput &In) const override {
    if (In.Commutative)
      return 0;
    return halvingReduceScatterBlocks(sliceLayout(In));
  }
  void place(const ReductionInput &In, RawSteps &R) const override {
    uint32_t Pof2 = floorPow2(In.P), Rem = In.P - Pof2;
    std::vector<uint64_t> Off = prefixSums(In.Slices);
    if (!In.Commutative) {
      halvingReduceScatter(R, 0, NewRanks::block(0, In.P), sliceLayout(In),
                           bitOrder(In.P, true));
      return;
    }
    if (In.N >= PairwiseBytes) {
      pairwiseReduceScatter(R, 0, In.P, Off);
      return;
    }
    std::vector<uint64_t> Cuts;
    for (uint32_t X = 0; X < Pof2; ++X)
      Cuts.push_back(Off[X < Rem ? 2 * X : X + Rem]);
    Cuts.push_back(In.N);
    unsigned St = 0;
    NewRanks M = foldToPowerOfTwo(R, 0, In.P, In.N, Fold::EvenToOdd, 0,
                                  std::nullopt, St);
    St = halvingReduceScatter(R, St, M, SegmentLayout::inOrder(std::move(Cuts)),
                              bitOrder(Pof2, false));
    returnToPartners(R, St, Rem, /*OddSends=*/true, [&](uint32_t I) {
      return Interval{Off[2 * I], Off[2 * I + 1]};
    });
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceScatterMpich() {
  return std::make_unique<ReduceScatterMpich>();
}
