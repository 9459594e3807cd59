//===- generators/reduce/AllreduceMpich.cpp - MPICH 4.0's allreduce -------===//
///
/// \file
/// `allreduce-mpich`: what MPICH 4.0's default selection runs for
/// MPI_Allreduce on one communicator, as a baseline: recursive doubling
/// (MPIR_Allreduce_intra_recursive_doubling) when n <= 8 bytes, the
/// operator is not built in (here: --op noncommutative) or there are fewer
/// elements than p'; else MPIR_Allreduce_intra_reduce_scatter_allgather:
/// the even ranks of the first 2r send their whole vector to the odd ones,
/// recursive halving with distance doubling, recursive doubling allgather,
/// and the odd ranks return the result.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class AllreduceMpich final : public ReductionGenerator {
public:
  AllreduceMpich()
      : ReductionGenerator(Collective::Allreduce, opt::reductionOp()) {}
  llvm::StringRef id() const override { return "allreduce-mpich"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's choice: recursive doubling up to 8 bytes or for user "
           "operators, else reduce_scatter + allgather";
  }

private:
  void place(const ReductionInput &In, RawSteps &R) const override {
    uint32_t Pof2 = floorPow2(In.P);
    if (In.N <= 8 || !In.Commutative || In.N / In.Elem < Pof2) {
      recursiveDoublingAllreduce(R, In.P, In.N);
      return;
    }
    SegmentLayout Lay = SegmentLayout::bitReversed(In.N, In.Elem, Pof2);
    unsigned St = 0;
    NewRanks M = foldToPowerOfTwo(R, 0, In.P, In.N, Fold::EvenToOdd, 0,
                                  std::nullopt, St);
    std::vector<unsigned> Bits = bitOrder(Pof2, /*Doubling=*/true);
    St = halvingReduceScatter(R, St, M, Lay, Bits);
    St = doublingAllgather(R, St, M, Lay, Bits);
    returnToPartners(R, St, M.Rem, /*OddSends=*/true, [&](uint32_t) {
      return Interval{0, In.N};
    });
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllreduceMpich() {
  return std::make_unique<AllreduceMpich>();
}
