//===- generators/reduce/ReduceScatterRing.cpp - Pairwise reduce-scatter --===//
///
/// \file
/// `reduce-scatter-ring` (seed 004, Sec. 3.7; MPICH's
/// MPIR_Reduce_scatter_intra_pairwise): p - 1 steps; at step i every rank
/// sends the slice of rank + i to it and combines the slice it receives
/// from rank - i into its own. Commutative operators only: rank 0 combines
/// the contribution of rank p - 1 first.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class ReduceScatterRing final : public ReductionGenerator {
public:
  ReduceScatterRing()
      : ReductionGenerator(Collective::ReduceScatter,
                           opt::commutativeOp("the pairwise reduce-scatter combines across the wrap from rank p-1 to rank 0, so it cannot keep rank order (MPICH restricts it to commutative operators too); use a halving-doubling, binary-tree or binary-blocks algorithm")) {}
  llvm::StringRef id() const override { return "reduce-scatter-ring"; }
  llvm::StringRef summary() const override {
    return "pairwise-exchange reduce-scatter: p - 1 steps (Rabenseifner "
           "Sec. 3.7, MPICH's pairwise)";
  }
  bool keepsRankOrder() const override { return false; }
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {{"reduce-scatter-ring", ""}};
    return Ts;
  }

private:
  bool ringLike(const ReductionInput &) const override { return true; }
  void place(const ReductionInput &In, RawSteps &R) const override {
    pairwiseReduceScatter(R, 0, In.P, prefixSums(In.Slices));
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceScatterRing() {
  return std::make_unique<ReduceScatterRing>();
}
