//===- generators/intergroup/InterBcastRoot.cpp - Intercomm broadcast -----===//
///
/// \file
/// `inter-bcast-root`: the broadcast MPICH runs on an intercommunicator
/// (MPIR_Bcast_inter_remote_send_local_bcast): the root sends the vector to
/// the first rank of the other group, which broadcasts it there with the
/// intragroup broadcast MPICH picks for its size and group (blocks/
/// mpichBcast: binomial, or a scatter and an allgather). The rest of the
/// root's group takes no part.
///
//===----------------------------------------------------------------------===//

#include "generators/intergroup/InterReduction.h"

using namespace choreo;

namespace {

class InterBcastRoot final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-bcast-root"; }
  llvm::StringRef summary() const override {
    return "MPICH's intercommunicator bcast: the root sends to the other "
           "group's first rank, which broadcasts it in its group";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterBcast};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto In = readInterInput(V, Collective::InterBcast);
    if (!In)
      return In.takeError();
    // One message to the other group's first rank and MPICH's broadcast
    // there (binomial: q - 1 ops; a scatter and an allgather: up to q^2); a
    // rank's part: the send and the broadcast's (a ring's 2(n - 1) ops at
    // most).
    uint64_t N = In->otherSize();
    if (auto E = checkOpBudget(id(), Only ? 4 * (N + 64)
                                          : 1 + mpichBcastOps(N, In->N)))
      return E;
    if (Only) {
      Block B;
      B.Hi = In->N;
      RankPart Part = onePart(In->Root, In->otherBase(), B, *Only);
      Part.append(groupBcastPart(In->otherBase(), In->otherSize(), In->N,
                                 *Only));
      return finishInterPart(interSchedule(Collective::InterBcast, *In),
                             std::move(Part), *Only);
    }
    StepList L;
    addWhole(L, In->Root, In->otherBase(), In->N);
    L.append(groupBcast(In->otherBase(), In->otherSize(), In->N));
    return finishInter(interSchedule(Collective::InterBcast, *In), std::move(L),
                       Only);
  }

  const std::vector<OptionDecl> Options = interOptions(Collective::InterBcast);
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterBcastRoot() {
  return std::make_unique<InterBcastRoot>();
}
