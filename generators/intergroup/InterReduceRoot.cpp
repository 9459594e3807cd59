//===- generators/intergroup/InterReduceRoot.cpp - Intercomm reduce -------===//
///
/// \file
/// `inter-reduce-root`: the reduce MPICH runs on an intercommunicator
/// (MPIR_Reduce_inter_local_reduce_remote_send): the group without the root
/// reduces to its first rank with the binomial tree (rank order kept, so
/// any operator), which sends the result to the root. The rest of the
/// root's group takes no part.
///
//===----------------------------------------------------------------------===//

#include "generators/intergroup/InterReduction.h"

using namespace choreo;

namespace {

class InterReduceRoot final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-reduce-root"; }
  llvm::StringRef summary() const override {
    return "MPICH's intercommunicator reduce: a binomial reduce in the other "
           "group to its first rank, which sends the result to the root";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterReduce};
  }
  bool keepsRankOrder() const override { return true; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto In = readInterInput(V, Collective::InterReduce);
    if (!In)
      return In.takeError();
    if (auto E = checkOpBudget(id(), uint64_t(In->otherSize()) + 1))
      return E;
    Rank Base = In->otherBase();
    RankSet Other = ranksOf(Base, Base + In->otherSize());
    if (Only) {
      // The tree's part (O(log q)) and the send to the root.
      RankPart Part = groupReducePart(Base, In->otherSize(), In->N, *Only);
      Block B;
      B.Hi = In->N;
      Part.append(onePart(Base, In->Root, B, *Only, &Other));
      return finishInterPart(interSchedule(Collective::InterReduce, *In),
                             std::move(Part), *Only);
    }
    StepList L = groupReduce(Base, In->otherSize(), In->N);
    addWhole(L, Base, In->Root, In->N, &Other);
    return finishInter(interSchedule(Collective::InterReduce, *In),
                       std::move(L), Only);
  }

  const std::vector<OptionDecl> Options = interOptions(Collective::InterReduce);
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterReduceRoot() {
  return std::make_unique<InterReduceRoot>();
}
