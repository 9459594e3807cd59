//===- generators/reduce/ReduceBinaryTree.cpp - Binary-tree reduce --------===//
///
/// \file
/// `reduce-binary-tree` (seed 004, Sec. 3.3): the classical binomial tree,
/// whole vectors, ceil(lg p) steps to --root. With --op noncommutative the
/// tree is rooted at rank 0 (every combination joins adjacent rank
/// intervals) and one more step sends the result to the root, as MPICH's
/// binomial reduce does.
///
//===----------------------------------------------------------------------===//

#include "generators/reduce/ReductionGenerator.h"

using namespace choreo;

namespace {

class ReduceBinaryTree final : public ReductionGenerator {
public:
  ReduceBinaryTree()
      : ReductionGenerator(Collective::Reduce, opt::reductionOp()) {}
  llvm::StringRef id() const override { return "reduce-binary-tree"; }
  llvm::StringRef summary() const override {
    return "binomial-tree reduce of whole vectors to --root: ceil(lg p) "
           "steps (Rabenseifner Sec. 3.3)";
  }

private:
  void place(const ReductionInput &In, RawSteps &R) const override {
    treeReduce(R, 0, In.P, In.N, In.Root, In.Commutative);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceBinaryTree() {
  return std::make_unique<ReduceBinaryTree>();
}
