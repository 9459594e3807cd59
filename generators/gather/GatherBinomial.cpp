//===- generators/GatherBinomial.cpp - Binomial gather --------------------===//
///
/// \file
/// `gather-binomial`: MPICH's binomial-tree gather (MPIR_Gather_intra_binomial)
/// to --root (default 0), ceil(log2 p) steps; counts give a gatherv.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

class GatherBinomial final : public Generator {
public:
  llvm::StringRef id() const override { return "gather-binomial"; }
  llvm::StringRef summary() const override {
    return "MPICH's binomial-tree gather to --root: ceil(log2 p) steps";
  }
  llvm::ArrayRef<const char *> options() const override {
    static const char *Opts[] = {"p", "bytes", "counts", "root"};
    return Opts;
  }
  llvm::Expected<Schedule> build(const GenParams &P) const override {
    auto N = groupCount(P.P, "p", "number of ranks");
    if (!N)
      return N.takeError();
    auto Root = rootOption(P, *N);
    if (!Root)
      return Root.takeError();
    bool Irregular = false;
    auto Sizes = memberSizes(P.Bytes, P.Counts, *N, "bytes", "counts",
                             Irregular);
    if (!Sizes)
      return Sizes.takeError();
    Schedule S;
    S.Kind = Collective::Gather;
    setIntragroup(S, *N, *Sizes);
    S.Root = *Root;
    S.Steps = binomialGather(*Sizes, *Root);
    S.Steps.dropEmptySteps();
    return S;
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeGatherBinomial() {
  return std::make_unique<GatherBinomial>();
}
