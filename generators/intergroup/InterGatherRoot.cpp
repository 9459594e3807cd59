//===- generators/intergroup/InterGatherRoot.cpp - Intercomm gather -------===//
///
/// \file
/// `inter-gather-root`: what MPICH 4.0.2 runs for MPI_Gather(v) on an
/// intercommunicator (MPI-4 6.5: the root passes MPI_ROOT, the rest of its
/// group MPI_PROC_NULL, the other group sends). Its tuning file takes
/// MPIR_Gather_inter_local_gather_remote_send below 2048 bytes in all (a
/// binomial gather to the other group's first rank, which sends everything
/// to the root in one message) and MPIR_Gather_inter_linear otherwise; the
/// v form is MPIR_Gatherv_allcomm_linear. As gather-mpich, members alike
/// take MPI_Gather's choice, irregular ones the linear gatherv.
///
//===----------------------------------------------------------------------===//

#include "generators/intergroup/InterCollectives.h"
#include "generators/intergroup/InterReduction.h"

using namespace choreo;

namespace {

class InterGatherRoot final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-gather-root"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's intercommunicator gather: a gather in the other group "
           "and one message to the root below 2048 bytes, else linear";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterGather};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto In = readInterRooted(V);
    if (!In)
      return In.takeError();
    if (auto E = checkOpBudget(id(), 2 * uint64_t(In->OtherSize) + 2))
      return E;
    if (Only)
      return finishInterPart(
          interRootedSchedule(Collective::InterGather, *In),
          interRootedShort(*In) ? interLocalGatherRemoteSendPart(*In, *Only)
                                : interLinearGatherPart(*In, *Only),
          *Only);
    StepList L = interRootedShort(*In) ? interLocalGatherRemoteSend(*In)
                                       : interLinearGather(*In);
    return finishInter(interRootedSchedule(Collective::InterGather, *In),
                       std::move(L), Only);
  }

  const std::vector<OptionDecl> Options = interRootedOptions();
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterGatherRoot() {
  return std::make_unique<InterGatherRoot>();
}
