//===- generators/intergroup/HalfAllgatherRoot.cpp - Root gathering -------===//
///
/// \file
/// `half-allgather-root`: the root-gathering baseline of seed 001 (Section
/// III.A) for the half-duplex intergroup allgather, where only A's members
/// contribute: a binomial gather to a0, a0 sends m_A to b0, and b0
/// broadcasts it inside B (the broadcast MPICH picks for its size).
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

class HalfAllgatherRoot final : public Generator {
public:
  llvm::StringRef id() const override { return "half-allgather-root"; }
  llvm::StringRef summary() const override {
    return "half-duplex root gathering: gather to a0, a0 -> b0, broadcast in "
           "B (the baseline)";
  }
  CollectiveSet collectives() const override {
    return {Collective::HalfAllgather};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    // What is built: the gather, one op a0 -> b0, MPICH's broadcast in B
    // (scatter + ring has q^2 ops, not q log q).
    auto Start = startHalfAllgather(V, id(), [](const IntergroupSizes &Z) {
      return binomialGatherOps(Z.A.size()) + 1 +
             mpichBcastOps(Z.B.size(), prefixSums(Z.A).back());
    });
    if (!Start)
      return Start.takeError();
    auto &[S, Sizes] = *Start;
    const uint32_t Q = Sizes.B.size();
    const std::vector<Rank> &A = S.Groups[0].Members, &B = S.Groups[1].Members;
    uint64_t KA = prefixSums(Sizes.A).back();
    StepList L = binomialGather(Sizes.A, 0).relabeled(A, {{0, 0}});
    llvm::SmallVector<Block, 1> All;
    addPiece(All, 0, 0, KA);
    L.newStep();
    addOpIfAny(L, A[0], B[0], All);
    L.append(mpichBcast(Q, KA, 0).relabeled(B, {{0, 0}}));
    L.dropEmptySteps();
    S.Steps = std::move(L);
    return std::move(S);
  }

private:
  const std::vector<OptionDecl> Options = {opt::groupA(), opt::groupB(),
                                           opt::bytesA(), opt::countsA()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeHalfAllgatherRoot() {
  return std::make_unique<HalfAllgatherRoot>();
}
