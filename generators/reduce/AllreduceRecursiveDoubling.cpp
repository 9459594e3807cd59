//===- generators/reduce/AllreduceRecursiveDoubling.cpp - Recursive doubling //
///
/// \file
/// `allreduce-recursive-doubling` (seed 004, Sec. 3.4; MPICH's
/// MPIR_Allreduce_intra_recursive_doubling): pairs at distance 1, 2, 4, ...
/// exchange whole vectors and both combine. For p not a power of two the
/// first 2r ranks (r = p - p') fold pairwise before (even to odd) and the
/// odd ones return the result after: the extra alpha_uni + n beta_uni.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class AllreduceRecursiveDoubling final : public ReductionGenerator {
public:
  AllreduceRecursiveDoubling()
      : ReductionGenerator(Collective::Allreduce, opt::reductionOp()) {}
  llvm::StringRef id() const override {
    return "allreduce-recursive-doubling";
  }
  llvm::StringRef summary() const override {
    return "recursive doubling of whole vectors, lg p' steps (+2 when p is "
           "not a power of two) (Rabenseifner Sec. 3.4)";
  }
  /// p = 2^k, and p = 2^k + m with the fold (1 <= m < 2^k): every p >= 1
  /// in one of the two domains. The templates keep rank order, so they are
  /// the schedules of `--op noncommutative` (with a commutative operator
  /// the generator pairs the same ranks and combines the same intervals).
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"allreduce-recursive-doubling", "--op noncommutative", "p = pow2(k)"},
        {"allreduce-recursive-doubling-fold", "--op noncommutative",
         "p = pow2(k) + m"}};
    return Ts;
  }

private:
  void place(const ReductionInput &In, RawSteps &R) const override {
    recursiveDoublingAllreduce(R, In.P, In.N);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllreduceRecursiveDoubling() {
  return std::make_unique<AllreduceRecursiveDoubling>();
}
