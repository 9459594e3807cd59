//===- generators/AllgatherRing.cpp - Intragroup ring allgather(v) --------===//
///
/// \file
/// `allgather-ring`: the ring allgather over p ranks (allgatherv when counts
/// are given): p - 1 steps, every op between ring neighbours.
///
//===----------------------------------------------------------------------===//

#include "generators/Blocks.h"
#include "generators/Generator.h"
#include "generators/Generators.h"

using namespace choreo;

namespace {

class AllgatherRing final : public Generator {
public:
  llvm::StringRef id() const override { return "allgather-ring"; }
  llvm::StringRef summary() const override {
    return "intragroup ring allgather (allgatherv with --counts): p - 1 steps "
           "between ring neighbours";
  }
  llvm::ArrayRef<const char *> options() const override {
    static const char *Opts[] = {"p", "bytes", "counts", "topology"};
    return Opts;
  }
  llvm::Expected<Schedule> build(const GenParams &P) const override {
    auto N = groupCount(P.P, "p", "number of ranks");
    if (!N)
      return N.takeError();
    bool Irregular = false;
    auto Sizes = memberSizes(P.Bytes, P.Counts, *N, "bytes", "counts",
                             Irregular);
    if (!Sizes)
      return Sizes.takeError();
    auto Topo = topologyOption(P, /*RingOk=*/true);
    if (!Topo)
      return Topo.takeError();
    if (auto E = checkOpBudget(id(), uint64_t(*N) * (*N - 1)))
      return E;
    Schedule S;
    S.Kind = Irregular ? Collective::Allgatherv : Collective::Allgather;
    setIntragroup(S, *N, *Sizes);
    S.Topo = *Topo;
    S.Steps = ringAllgatherv(*Sizes);
    S.Steps.dropEmptySteps();
    return S;
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllgatherRing() {
  return std::make_unique<AllgatherRing>();
}
