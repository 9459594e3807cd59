//===- generators/barrier/BarrierRecursiveDoubling.cpp - Recursive doubling
//===//
///
/// \file
/// `barrier-recursive-doubling`: pairwise exchanges at XOR distance 1, 2,
/// ..., p'/2 over the largest power of two p' <= p, with MPICH's
/// non-power-of-two fill-in (the even ranks below 2(p - p') tell their odd
/// neighbour first and hear from it last): log2 p' steps, plus two when p
/// is not a power of two.
///
//===----------------------------------------------------------------------===//

#include "generators/barrier/Barrier.h"

using namespace choreo;

namespace {

class BarrierRecursiveDoubling final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "barrier-recursive-doubling"; }
  llvm::StringRef summary() const override {
    return "recursive-doubling barrier with MPICH's non-power-of-two fill-in: "
           "log2 p' steps, two more when p is not a power of two";
  }
  CollectiveSet collectives() const override { return {Collective::Barrier}; }
  /// p = 2^k and p = 2^k + m (1 <= m < 2^k): every p >= 1 in one.
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"barrier-recursive-doubling", "", "p = pow2(k)"},
        {"barrier-recursive-doubling-fold", "", "p = pow2(k) + m"}};
    return Ts;
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    return buildBarrier(
        id(), V, Only,
        [](uint32_t P) { return uint64_t(P) * (ceilLog2(P) + 2); },
        [&](uint32_t P) { return recursiveDoublingBarrier(P, Only); });
  }

  const std::vector<OptionDecl> Options = {opt::ranks()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeBarrierRecursiveDoubling() {
  return std::make_unique<BarrierRecursiveDoubling>();
}
