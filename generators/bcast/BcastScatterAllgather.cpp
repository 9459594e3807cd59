//===- generators/bcast/BcastScatterAllgather.cpp - Van de Geijn ----------===//
///
/// \file
/// `bcast-scatter-allgather`: van de Geijn's broadcast as MPICH runs it, a
/// binomial scatter from --root, then an allgather of the chunks: --intra
/// ring, recdbl or bruck; by default MPICH's choice, recursive doubling
/// below 512 KB on a power of two, else ring.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

class BcastScatterAllgather final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "bcast-scatter-allgather"; }
  llvm::StringRef summary() const override {
    return "van de Geijn broadcast: binomial scatter, then a ring, "
           "recursive-doubling or Bruck allgather of the chunks";
  }
  CollectiveSet collectives() const override { return {Collective::Bcast}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  /// With Only, rank Only's scatter ops and its allgather ops (O(p) arithmetic
  /// for the chunk sizes).
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto N = groupCount(V, opt::ranks());
    if (!N)
      return N.takeError();
    auto Root = rootRank(V, *N);
    if (!Root)
      return Root.takeError();
    auto Bytes = requiredNumber(V, opt::bytes());
    if (!Bytes)
      return Bytes.takeError();
    IntraAlgorithm MpichChoice = isPowerOfTwo(*N) && *Bytes <= 524288
                                     ? IntraAlgorithm::RecursiveDoubling
                                     : IntraAlgorithm::Ring;
    IntraAlgorithm Intra = intraOf(V).value_or(MpichChoice);
    if (Intra == IntraAlgorithm::RecursiveDoubling && !isPowerOfTwo(*N))
      return optionError("intra", llvm::Twine("recdbl needs --p a power of "
                                              "two, got ") +
                                      llvm::Twine(*N));
    // Every op, or Only's: one per scatter step, two per allgather step.
    uint64_t Est = Only ? 3 * uint64_t(*N) + 2 * ceilLog2(*N)
                        : uint64_t(*N) * (*N + 2 * ceilLog2(*N));
    if (auto E = checkOpBudget(id(), Est))
      return E;
    Schedule S;
    S.Kind = Collective::Bcast;
    setIntragroup(S, *N, {*Bytes});
    S.Root = *Root;
    if (Only) {
      if (*Only >= *N)
        return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                    " is not below --p " + llvm::Twine(*N));
      S.Steps =
          scatterAllgatherBcastRank(*N, *Bytes, *Root, Intra, *Only).kept();
      return S;
    }
    S.Steps = scatterAllgatherBcast(*N, *Bytes, *Root, Intra);
    S.Steps.dropEmptySteps();
    return S;
  }

  const std::vector<OptionDecl> Options = {
      opt::ranks(), opt::bytes().withHelp("vector length to broadcast"),
      opt::root(),
      opt::intra({IntraAlgorithm::Ring, IntraAlgorithm::RecursiveDoubling,
                  IntraAlgorithm::Bruck})
          .withDefaultNote("MPICH's choice, recdbl up to 512K when p is a "
                           "power of two, else ring")};
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastScatterAllgather() {
  return std::make_unique<BcastScatterAllgather>();
}
