//===- generators/reduce/ReduceMpich.cpp - MPICH 4.0's reduce -------------===//
///
/// \file
/// `reduce-mpich`: what MPICH 4.0's default selection (its built-in tuning
/// file) runs for MPI_Reduce on one communicator, as a baseline: the
/// binomial tree (MPIR_Reduce_intra_binomial) when n <= 2048 bytes, the
/// operator is not built in (here: --op noncommutative) or there are fewer
/// elements than p'; else MPIR_Reduce_intra_reduce_scatter_gather: the odd
/// ranks of the first 2r send their whole vector to the even ones, recursive
/// halving with distance doubling, and a binomial gather to the root (a
/// root among the removed odd ranks first gets new rank 0's segment).
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class ReduceMpich final : public ReductionGenerator {
public:
  ReduceMpich() : ReductionGenerator(Collective::Reduce, opt::reductionOp()) {}
  llvm::StringRef id() const override { return "reduce-mpich"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's choice: binomial below 2 KB or for user operators, "
           "else reduce_scatter + gather";
  }

private:
  void place(const ReductionInput &In, RawSteps &R) const override {
    uint32_t Pof2 = floorPow2(In.P), Rem = In.P - Pof2;
    if (In.N <= 2048 || !In.Commutative || In.N / In.Elem < Pof2) {
      treeReduce(R, 0, In.P, In.N, In.Root, In.Commutative);
      return;
    }
    SegmentLayout Lay = SegmentLayout::bitReversed(In.N, In.Elem, Pof2);
    unsigned St = 0;
    NewRanks M = foldToPowerOfTwo(R, 0, In.P, In.N, Fold::OddToEven, 0,
                                  std::nullopt, St);
    std::vector<unsigned> Bits = bitOrder(Pof2, /*Doubling=*/true);
    St = halvingReduceScatter(R, St, M, Lay, Bits);
    uint32_t NewRoot = In.Root >= 2 * Rem ? In.Root - Rem : In.Root / 2;
    if (In.Root < 2 * Rem && In.Root % 2) {
      St = handOverSegment(R, St, M, Lay, In.Root);
      M.Zero = In.Root;
      NewRoot = 0;
    }
    treeGatherSegments(R, St, M, Lay, Bits, NewRoot);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceMpich() {
  return std::make_unique<ReduceMpich>();
}
