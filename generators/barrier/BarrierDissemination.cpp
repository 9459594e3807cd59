//===- generators/barrier/BarrierDissemination.cpp - k-ary dissemination --===//
///
/// \file
/// `barrier-dissemination`: the k-ary dissemination barrier (--radix k,
/// default 2) for any p: ceil(log_k p) rounds, in each of which every rank
/// tells up to k - 1 others (the schedule's ports are k - 1 sends and
/// receives per step).
///
//===----------------------------------------------------------------------===//

#include "generators/barrier/Barrier.h"

using namespace choreo;

namespace {

class BarrierDissemination final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "barrier-dissemination"; }
  llvm::StringRef summary() const override {
    return "k-ary dissemination barrier (--radix k): ceil(log_k p) rounds of "
           "k - 1 messages per rank, any p";
  }
  CollectiveSet collectives() const override { return {Collective::Barrier}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  /// Radix 2 at p = 2^k and p = 2^k + m (1 <= m < 2^k): every p >= 1.
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"barrier-dissemination", "--radix 2", "p = pow2(k)"},
        {"barrier-dissemination-fold", "--radix 2", "p = pow2(k) + m"}};
    return Ts;
  }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto Radix = readBarrierRadix(V);
    if (!Radix)
      return Radix.takeError();
    uint64_t K = *Radix;
    auto S = buildBarrier(
        id(), V, Only,
        [&](uint32_t P) { return disseminationBarrierOps(P, K); },
        [&](uint32_t P) { return disseminationBarrier(P, K, Only); });
    if (!S)
      return S.takeError();
    S->Port = disseminationPorts(S->NumRanks, K);
    return S;
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), barrierRadix()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeBarrierDissemination() {
  return std::make_unique<BarrierDissemination>();
}
