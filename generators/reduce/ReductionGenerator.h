//===- generators/reduce/ReductionGenerator.h - Reductions ---*- C++ -*-===//
///
/// \file
/// What the reduction generators (seed 004) share: the options they read
/// (generators/blocks/Reduction.h, readReductionInput), the op and block
/// budgets, and
/// making the schedule from raw ops, the declaration of the one collective
/// it builds. Each generator file says its id, its collective, its options
/// and how it places its raw ops; the ring ones, that they do not keep rank
/// order.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_REDUCE_REDUCTIONGENERATOR_H
#define CHOREO_GENERATORS_REDUCE_REDUCTIONGENERATOR_H

#include "generators/Generators.h"
#include "generators/SizeChecks.h"
#include "generators/blocks/Reduction.h"

namespace choreo {

class ReductionGenerator : public Generator {
public:
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  CollectiveSet collectives() const override { return {Kind}; }
  bool keepsRankOrder() const override { return true; }

  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    auto In = readReductionInput(V, Kind);
    if (!In)
      return In.takeError();
    if (auto E = refuse(*In))
      return E;
    // Every rank takes part in at most a few ops per step; the ring ones
    // have p steps.
    uint64_t Steps = 4 * uint64_t(ceilLog2(In->P)) + 8;
    if (ringLike())
      Steps = 3 * uint64_t(In->P);
    uint64_t Ops = uint64_t(In->P) * Steps;
    if (auto E = checkOpBudget(id(), Ops))
      return E;
    if (auto E = checkBlockBudget(id(), satAdd(Ops, extraBlocks(*In))))
      return E;
    RawSteps R;
    place(*In, R);
    return reductionSchedule(Kind, *In, R);
  }

protected:
  /// Options: --p, --bytes, --element-bytes, --op (Op), then --root for a
  /// reduce and --slices for a reduce_scatter.
  ReductionGenerator(Collective Kind, OptionDecl Op) : Kind(Kind) {
    Options = {opt::ranks(), opt::vectorBytes()};
    if (specOf(Kind).Result == ResultRule::OwnSlice)
      Options.push_back(opt::slices());
    Options.push_back(opt::elementBytes());
    Options.push_back(std::move(Op));
    if (specOf(Kind).Rooted)
      Options.push_back(opt::root());
  }
  /// The raw ops of the algorithm for In.
  virtual void place(const ReductionInput &In, RawSteps &R) const = 0;
  /// Inputs the algorithm refuses (beyond the declared options).
  virtual llvm::Error refuse(const ReductionInput &) const {
    return llvm::Error::success();
  }
  /// p steps rather than lg p (for the op budget).
  virtual bool ringLike() const { return false; }
  /// Blocks beyond one per op that the messages carry (for the block
  /// budget): strided segments, several per message.
  virtual uint64_t extraBlocks(const ReductionInput &) const { return 0; }

  Collective Kind;
  std::vector<OptionDecl> Options;
};

} // namespace choreo

#endif
