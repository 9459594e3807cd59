//===- generators/reduce/AllreduceBinaryTree.cpp - Tree reduce + bcast ----===//
///
/// \file
/// `allreduce-binary-tree` (seed 004, Sec. 3.3): a binomial-tree reduce to
/// rank 0 followed by a binomial broadcast of the result, ceil(lg p) steps
/// each. Rooted at rank 0, the reduce keeps rank order.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class AllreduceBinaryTree final : public ReductionGenerator {
public:
  AllreduceBinaryTree()
      : ReductionGenerator(Collective::Allreduce, opt::reductionOp()) {}
  llvm::StringRef id() const override { return "allreduce-binary-tree"; }
  llvm::StringRef summary() const override {
    return "binomial-tree reduce to rank 0, then binomial broadcast: "
           "2 ceil(lg p) steps (Rabenseifner Sec. 3.3)";
  }

private:
  void place(const ReductionInput &In, RawSteps &R) const override {
    unsigned Next = treeReduce(R, 0, In.P, In.N, 0, /*Commutative=*/false);
    treeBcast(R, Next, In.P, In.N, 0);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllreduceBinaryTree() {
  return std::make_unique<AllreduceBinaryTree>();
}
