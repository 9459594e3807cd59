//===- generators/reduce/AllreduceHalvingDoubling.cpp - Fig. 2 ------------===//
///
/// \file
/// `allreduce-halving-doubling` (seed 004, Sec. 3.5, Fig. 2): the first 2r
/// ranks (r = p - p') exchange halves and combine, the odd ones send their
/// reduced half to the even ones and drop out; the first r even ranks and
/// the last p - 2r ranks are renumbered 0..p'-1; reduce-scatter by
/// recursive vector halving with distance doubling (the lower rank of a
/// pair keeps the lower half, so new rank x ends with segment bitrev(x) of
/// p'); allgather by vector doubling and distance halving; the removed
/// ranks get the result from their partner. 2 lg p' steps, + 3 when p is
/// not a power of two.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class AllreduceHalvingDoubling final : public ReductionGenerator {
public:
  AllreduceHalvingDoubling()
      : ReductionGenerator(Collective::Allreduce, opt::reductionOp()) {}
  llvm::StringRef id() const override { return "allreduce-halving-doubling"; }
  llvm::StringRef summary() const override {
    return "Rabenseifner's reduce-scatter (vector halving, distance "
           "doubling) + allgather, any p (Sec. 3.5, Fig. 2)";
  }

  /// Its templates for p = 2^k and p = 2^k + m (docs/templates.md,
  /// "Halving and doubling"), proved for every k and m: every p >= 1 in
  /// one. The schedules of `--op noncommutative` (the generator combines
  /// the same blocks with any operator).
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"allreduce-halving-doubling", "--op noncommutative", "p = pow2(k)"},
        {"allreduce-halving-doubling-fold", "--op noncommutative",
         "p = pow2(k) + m"}};
    return Ts;
  }

private:
  void place(const ReductionInput &In, RawSteps &R) const override {
    uint32_t Pof2 = floorPow2(In.P);
    SegmentLayout Lay = SegmentLayout::bitReversed(In.N, In.Elem, Pof2);
    unsigned St = 0;
    NewRanks M = foldToPowerOfTwo(R, 0, In.P, In.N, Fold::Halves,
                                  Lay.cut(Pof2 / 2), std::nullopt, St);
    std::vector<unsigned> Bits = bitOrder(Pof2, /*Doubling=*/true);
    St = halvingReduceScatter(R, St, M, Lay, Bits);
    St = doublingAllgather(R, St, M, Lay, Bits);
    returnToPartners(R, St, M.Rem, /*OddSends=*/false, [&](uint32_t) {
      return Interval{0, In.N};
    });
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllreduceHalvingDoubling() {
  return std::make_unique<AllreduceHalvingDoubling>();
}
