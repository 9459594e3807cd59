//===- generators/alltoall/AlltoallPairwise.cpp - Pairwise exchange -------===//
///
/// \file
/// `alltoall-pairwise`: MPICH's pairwise exchange
/// (MPIR_Alltoall_intra_pairwise), p - 1 steps of one message each way per
/// rank: the XOR partner when p is a power of two, else the rank d ahead
/// (receiving from the rank d behind).
///
//===----------------------------------------------------------------------===//

#include "generators/alltoall/AlltoallGenerators.h"

using namespace choreo;

namespace {

class AlltoallPairwise final : public AlltoallGenerator {
public:
  llvm::StringRef id() const override { return "alltoall-pairwise"; }
  llvm::StringRef summary() const override {
    return "pairwise exchange: p - 1 steps, XOR partners for p a power of "
           "two, else shifts";
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"alltoall-pairwise-xor", "", "p = pow2(k)"},
        {"alltoall-pairwise-shift", "", "p = pow2(k) + m"}};
    return Ts;
  }

private:
  llvm::Expected<std::unique_ptr<AlltoallPattern>>
  pattern(const OptionValues &, const PairMatrix &M) const override {
    return pairwisePattern(M);
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::pairBytes(),
                                           opt::pairs(), opt::rankPart()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeAlltoallPairwise() {
  return std::make_unique<AlltoallPairwise>();
}
