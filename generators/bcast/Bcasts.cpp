//===- generators/Bcasts.cpp - Intragroup broadcasts ----------------------===//
///
/// \file
/// `bcast-binomial` (MPICH's binomial tree, ceil(log2 p) steps) and
/// `bcast-scatter-allgather` (binomial scatter, then an allgather of the
/// chunks: --intra ring, recdbl or bruck; by default MPICH's choice,
/// recursive doubling below 512 KB on a power of two, else ring). One class
/// serves both: they differ in the building block.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

class Bcast final : public Generator {
public:
  explicit Bcast(bool Scatter) : Scatter(Scatter) {}

  llvm::StringRef id() const override {
    return Scatter ? "bcast-scatter-allgather" : "bcast-binomial";
  }
  llvm::StringRef summary() const override {
    return Scatter ? "van de Geijn broadcast: binomial scatter, then a ring, "
                     "recursive-doubling or Bruck allgather of the chunks"
                   : "MPICH's binomial-tree broadcast from --root: "
                     "ceil(log2 p) steps";
  }
  llvm::ArrayRef<const char *> options() const override {
    static const char *Binomial[] = {"p", "bytes", "root"};
    static const char *WithIntra[] = {"p", "bytes", "root", "intra"};
    if (Scatter)
      return WithIntra;
    return Binomial;
  }
  llvm::Expected<Schedule> build(const GenParams &P) const override {
    auto N = groupCount(P.P, "p", "number of ranks");
    if (!N)
      return N.takeError();
    auto Root = rootOption(P, *N);
    if (!Root)
      return Root.takeError();
    if (!P.Bytes)
      return optionError("bytes", "missing: the vector length to broadcast");
    IntraAlgorithm MpichChoice =
        isPowerOfTwo(*N) && *P.Bytes < 524288
            ? IntraAlgorithm::RecursiveDoubling
            : IntraAlgorithm::Ring;
    auto Intra = intraOption(P, MpichChoice,
                             {IntraAlgorithm::Ring,
                              IntraAlgorithm::RecursiveDoubling,
                              IntraAlgorithm::Bruck});
    if (!Intra)
      return Intra.takeError();
    if (*Intra == IntraAlgorithm::RecursiveDoubling && !isPowerOfTwo(*N))
      return optionError("intra", llvm::Twine("recdbl needs --p a power of "
                                              "two, got ") +
                                      llvm::Twine(*N));
    if (auto E = checkOpBudget(id(), uint64_t(*N) * (*N + 2 * ceilLog2(*N))))
      return E;
    Schedule S;
    S.Kind = Collective::Bcast;
    setIntragroup(S, *N, {*P.Bytes});
    S.Root = *Root;
    S.Steps = Scatter ? scatterAllgatherBcast(*N, *P.Bytes, *Root, *Intra)
                      : binomialBcast(*N, *P.Bytes, *Root);
    S.Steps.dropEmptySteps();
    return S;
  }

private:
  bool Scatter;
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcast(bool Scatter) {
  return std::make_unique<Bcast>(Scatter);
}
