//===- generators/IntraAllgather.cpp - Intragroup allgather(v)s -----------===//
///
/// \file
/// `allgather-ring`, `allgather-bruck`, `allgather-recdbl`: the intragroup
/// allgather building blocks as generators of their own (allgatherv with
/// --counts). One class serves the three: they differ only in the building
/// block and the topology and process counts it admits.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

class IntraAllgather final : public Generator {
public:
  explicit IntraAllgather(IntraAlgorithm A) : Alg(A) {}

  llvm::StringRef id() const override {
    switch (Alg) {
    case IntraAlgorithm::Ring:
      return "allgather-ring";
    case IntraAlgorithm::Bruck:
      return "allgather-bruck";
    case IntraAlgorithm::RecursiveDoubling:
      return "allgather-recdbl";
    }
    return "?";
  }
  llvm::StringRef summary() const override {
    switch (Alg) {
    case IntraAlgorithm::Ring:
      return "intragroup ring allgather (allgatherv with --counts): p - 1 "
             "steps between ring neighbours";
    case IntraAlgorithm::Bruck:
      return "intragroup Bruck allgather(v): ceil(log2 p) steps for any p";
    case IntraAlgorithm::RecursiveDoubling:
      return "intragroup recursive-doubling allgather(v): log2 p pairwise "
             "exchanges, p a power of two";
    }
    return "?";
  }
  llvm::ArrayRef<const char *> options() const override {
    static const char *Opts[] = {"p", "bytes", "counts", "topology"};
    return Opts;
  }

  llvm::Expected<Schedule> build(const GenParams &P) const override {
    auto N = groupCount(P.P, "p", "number of ranks");
    if (!N)
      return N.takeError();
    if (Alg == IntraAlgorithm::RecursiveDoubling && !isPowerOfTwo(*N))
      return optionError("p", llvm::Twine("recursive doubling needs a power "
                                          "of two, got ") +
                                  llvm::Twine(*N));
    bool Irregular = false;
    auto Sizes = memberSizes(P.Bytes, P.Counts, *N, "bytes", "counts",
                             Irregular);
    if (!Sizes)
      return Sizes.takeError();
    auto Topo = topologyOption(P, /*RingOk=*/Alg == IntraAlgorithm::Ring);
    if (!Topo)
      return Topo.takeError();
    uint64_t Est = Alg == IntraAlgorithm::Ring ? uint64_t(*N) * (*N - 1)
                                               : uint64_t(*N) * ceilLog2(*N);
    if (auto E = checkOpBudget(id(), Est))
      return E;
    Schedule S;
    S.Kind = Irregular ? Collective::Allgatherv : Collective::Allgather;
    setIntragroup(S, *N, *Sizes);
    S.Topo = *Topo;
    S.Steps = intraAllgatherv(Alg, *Sizes);
    S.Steps.dropEmptySteps();
    return S;
  }

private:
  IntraAlgorithm Alg;
};

} // namespace

std::unique_ptr<Generator> choreo::makeIntraAllgather(IntraAlgorithm A) {
  return std::make_unique<IntraAllgather>(A);
}
