//===- generators/reduce/ReduceRing.cpp - Ring reduce ---------------------===//
///
/// \file
/// `reduce-ring` (seed 004, Sec. 3.7): the pairwise-exchange
/// reduce-scatter of p near-equal segments, then every rank sends its
/// reduced segment straight to --root, which takes one per step (p - 1
/// steps, ranks after the root first). Commutative operators only.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class ReduceRing final : public ReductionGenerator {
public:
  ReduceRing()
      : ReductionGenerator(Collective::Reduce,
                           opt::commutativeOp("the pairwise reduce-scatter combines across the wrap from rank p-1 to rank 0, so it cannot keep rank order (MPICH restricts it to commutative operators too); use a halving-doubling, binary-tree or binary-blocks algorithm")) {}
  llvm::StringRef id() const override { return "reduce-ring"; }
  llvm::StringRef summary() const override {
    return "pairwise reduce-scatter, then the segments straight to --root: "
           "2(p - 1) steps (Rabenseifner Sec. 3.7)";
  }
  bool keepsRankOrder() const override { return false; }

private:
  bool ringLike(const ReductionInput &) const override { return true; }
  void place(const ReductionInput &In, RawSteps &R) const override {
    std::vector<uint64_t> Cuts = elementCuts(In.N, In.Elem, In.P);
    unsigned St = pairwiseReduceScatter(R, 0, In.P, Cuts);
    // The root takes one segment per step; a rank's part has its own step
    // (and the root's every one), but which steps carry a byte follows
    // from every segment's length.
    for (uint32_t I = 1; I < In.P; ++I) {
      uint32_t From = (uint64_t(In.Root) + I) % In.P;
      R.keepIf(Cuts[From] < Cuts[From + 1], St + I - 1);
      if (R.wants(From, In.Root))
        R.add(St + I - 1, From, In.Root, Cuts[From], Cuts[From + 1],
              /*Reduce=*/false, R.everyone());
    }
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceRing() {
  return std::make_unique<ReduceRing>();
}
