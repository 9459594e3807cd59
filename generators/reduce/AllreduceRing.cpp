//===- generators/reduce/AllreduceRing.cpp - Ring allreduce ---------------===//
///
/// \file
/// `allreduce-ring` (seed 004, Sec. 3.7): the pairwise-exchange
/// reduce-scatter of p near-equal segments (p - 1 steps), then a ring
/// allgather of the segments (p - 1 steps). Commutative operators only.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class AllreduceRing final : public ReductionGenerator {
public:
  AllreduceRing()
      : ReductionGenerator(Collective::Allreduce,
                           opt::commutativeOp("the pairwise reduce-scatter combines across the wrap from rank p-1 to rank 0, so it cannot keep rank order (MPICH restricts it to commutative operators too); use a halving-doubling, binary-tree or binary-blocks algorithm")) {}
  llvm::StringRef id() const override { return "allreduce-ring"; }
  llvm::StringRef summary() const override {
    return "pairwise reduce-scatter + ring allgather: 2(p - 1) steps "
           "(Rabenseifner Sec. 3.7)";
  }
  bool keepsRankOrder() const override { return false; }
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {{"allreduce-ring", ""}};
    return Ts;
  }

private:
  bool ringLike(const ReductionInput &) const override { return true; }
  void place(const ReductionInput &In, RawSteps &R) const override {
    std::vector<uint64_t> Cuts = elementCuts(In.N, In.Elem, In.P);
    R.reserve(4 * size_t(In.P - 1)); // a rank's part: 2 ops a step
    unsigned St = pairwiseReduceScatter(R, 0, In.P, Cuts);
    ringAllgatherSegments(R, St, In.P, Cuts);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllreduceRing() {
  return std::make_unique<AllreduceRing>();
}
