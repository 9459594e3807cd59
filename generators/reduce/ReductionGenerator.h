//===- generators/reduce/ReductionGenerator.h - Reductions ---*- C++ -*-===//
///
/// \file
/// What the reduction generators (seed 004) share: the options they read
/// (generators/blocks/Reduction.h, readReductionInput), the op and block
/// budgets, the rank form (the same raw ops, emitted for one rank: every
/// building block has that mode), and making the schedule from raw ops,
/// the declaration of the one collective it builds. Each generator file
/// says its id, its collective, its options and how it places its raw ops;
/// the ring ones, that they do not keep rank order.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_REDUCE_REDUCTIONGENERATOR_H
#define CHOREO_GENERATORS_REDUCE_REDUCTIONGENERATOR_H

#include "generators/Generators.h"
#include "generators/SizeChecks.h"
#include "generators/blocks/Reduction.h"

namespace choreo {

class ReductionGenerator : public PartGenerator {
public:
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  CollectiveSet collectives() const override { return {Kind}; }
  bool keepsRankOrder() const override { return true; }

  /// Every reduction has a rank form: its building blocks emit one rank's
  /// ops with their contributor sets in closed form.
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildAs(V, Only, /*Replay=*/false);
  }
  /// build, the contributor sets written by the replay of the raw ops
  /// (annotateContributors) instead of the closed forms: what the tests
  /// compare the closed forms with.
  llvm::Expected<Schedule> buildReplayed(const OptionValues &V) const {
    return buildAs(V, std::nullopt, /*Replay=*/true);
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
  virtual bool ringLike(const ReductionInput &) const { return false; }
  /// Blocks beyond one per op that the messages carry (for the block
  /// budget of the whole schedule): strided segments, several per message.
  virtual uint64_t extraBlocks(const ReductionInput &) const { return 0; }

  Collective Kind;
  std::vector<OptionDecl> Options;

private:
  llvm::Expected<Schedule>
  buildAs(const OptionValues &V, std::optional<Rank> Only, bool Replay) const {
    auto In = readReductionInput(V, Kind);
    if (!In)
      return In.takeError();
    if (auto E = refuse(*In))
      return E;
    if (Only && *Only >= In->P)
      return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                  " is not one of the " + llvm::Twine(In->P) +
                                  " ranks");
    // Every rank takes part in at most a few ops per step; the ring ones
    // have p steps. A rank's part: at most a few ops per step, and (binary
    // blocks) up to p / 2 messages from one rank of a small block.
    uint64_t Steps = 4 * uint64_t(ceilLog2(In->P)) + 8;
    if (ringLike(*In))
      Steps = 3 * uint64_t(In->P);
    uint64_t Ops = Only ? 2 * Steps + In->P : uint64_t(In->P) * Steps;
    if (auto E = checkOpBudget(id(), Ops))
      return E;
    uint64_t Blocks =
        Only ? satAdd(Ops, 2 * uint64_t(In->P)) : satAdd(Ops, extraBlocks(*In));
    if (auto E = checkBlockBudget(id(), Blocks))
      return E;
    RawSteps R(In->P, Only);
    R.reserve(Ops);
    place(*In, R);
    return reductionSchedule(Kind, *In, R, Replay);
  }
};

} // namespace choreo

#endif
