//===- generators/ring/HalfAllgatherIntraRing.cpp - Ring baseline ---------===//
///
/// \file
/// `half-allgather-intraring`: the baseline of seed 001, Section IV, for the
/// half-duplex allgather on a ring: an intragroup ring allgather over all
/// p + q processes in which the receivers contribute nothing, p + q - 1
/// steps. Its rank form is the ring allgather's.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"
#include "generators/blocks/Blocks.h"

using namespace choreo;

namespace {

class HalfAllgatherIntraRing final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "half-allgather-intraring"; }
  llvm::StringRef summary() const override {
    return "baseline for the ring: an intragroup ring allgather over all "
           "p + q processes, p + q - 1 steps";
  }
  CollectiveSet collectives() const override {
    return {Collective::HalfAllgather};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  /// With Only, rank Only's two ops per step of the ring allgather (every
  /// step of it kept unless A sends nothing).
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto Start = startHalfAllgather(V, id(), [&](const IntergroupSizes &Z) {
      const uint64_t N = Z.A.size() + Z.B.size();
      return Only ? 2 * N : N * (N - 1);
    });
    if (!Start)
      return Start.takeError();
    auto &[S, Sizes] = *Start;
    S.Topo = Topology::ring();
    std::vector<uint64_t> Counts = Sizes.A;
    Counts.resize(Sizes.A.size() + Sizes.B.size(), 0);
    if (Only) {
      if (*Only >= S.NumRanks)
        return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                    " is not in the groups' " +
                                    llvm::Twine(S.NumRanks));
      S.Steps =
          std::move(intraAllgathervPart(IntraAlgorithm::Ring, Counts, *Only))
              .kept();
      return std::move(S);
    }
    S.Steps = ringAllgatherv(Counts);
    S.Steps.dropEmptySteps();
    return std::move(S);
  }

private:
  const std::vector<OptionDecl> Options = {
      opt::groupA(), opt::groupB(), opt::bytesA(), opt::countsA(),
      opt::ringTopology("half-allgather-intraring")};
};

} // namespace

std::unique_ptr<Generator> choreo::makeHalfAllgatherIntraRing() {
  return std::make_unique<HalfAllgatherIntraRing>();
}
