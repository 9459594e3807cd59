//===- generators/intergroup/InterScatterRoot.cpp - Intercomm scatter -----===//
///
/// \file
/// `inter-scatter-root`: what MPICH 4.0.2 runs for MPI_Scatter(v) on an
/// intercommunicator (MPI-4 6.6: the root passes MPI_ROOT, the rest of its
/// group MPI_PROC_NULL, the other group receives). Its tuning file takes
/// MPIR_Scatter_inter_remote_send_local_scatter below 2048 bytes in all
/// (the root sends everything to the other group's first rank, which
/// scatters it by a binomial tree) and MPIR_Scatter_inter_linear otherwise;
/// the v form is MPIR_Scatterv_allcomm_linear. Members alike take
/// MPI_Scatter's choice, irregular ones the linear scatterv.
///
//===----------------------------------------------------------------------===//

#include "generators/intergroup/InterCollectives.h"
#include "generators/intergroup/InterReduction.h"

using namespace choreo;

namespace {

class InterScatterRoot final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-scatter-root"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's intercommunicator scatter: one message to the other "
           "group and a scatter there below 2048 bytes, else linear";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterScatter};
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
          interRootedSchedule(Collective::InterScatter, *In),
          interRootedShort(*In) ? interRemoteSendLocalScatterPart(*In, *Only)
                                : interLinearScatterPart(*In, *Only),
          *Only);
    StepList L = interRootedShort(*In) ? interRemoteSendLocalScatter(*In)
                                       : interLinearScatter(*In);
    return finishInter(interRootedSchedule(Collective::InterScatter, *In),
                       std::move(L), Only);
  }

  const std::vector<OptionDecl> Options = interRootedOptions();
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterScatterRoot() {
  return std::make_unique<InterScatterRoot>();
}
