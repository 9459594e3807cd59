//===- generators/alltoall/AlltoallScattered.cpp - Scattered alltoall -----===//
///
/// \file
/// `alltoall-scattered`: MPICH's scattered alltoall(v)
/// (MPIR_Alltoall_intra_scattered, MPIR_Alltoallv_intra_scattered): each
/// rank posts --batch receives (from r + d) and sends (to r - d) at once and
/// waits for them, ceil(p / batch) steps; the batch is
/// MPIR_CVAR_ALLTOALL_THROTTLE (default 32; 0: all at once). The header's
/// ports are the batch.
///
//===----------------------------------------------------------------------===//

#include "generators/alltoall/AlltoallGenerators.h"

using namespace choreo;

namespace {

class AlltoallScattered final : public AlltoallGenerator {
public:
  llvm::StringRef id() const override { return "alltoall-scattered"; }
  llvm::StringRef summary() const override {
    return "MPICH's scattered alltoall: --batch messages in flight per step";
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {{"alltoall-linear", "--batch 1"}};
    return Ts;
  }

private:
  llvm::Expected<std::unique_ptr<AlltoallPattern>>
  pattern(const OptionValues &V, const PairMatrix &M) const override {
    return scatteredPattern(M, V.get(opt::batch()));
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::pairBytes(),
                                           opt::pairs(), opt::batch(),
                                           opt::rankPart()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeAlltoallScattered() {
  return std::make_unique<AlltoallScattered>();
}
