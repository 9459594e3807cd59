//===- generators/allgather/AllgatherMpich.cpp - MPICH's allgather(v) -----===//
///
/// \file
/// `allgather-mpich`: what MPICH 4.0.2's default selection runs for
/// MPI_Allgather and MPI_Allgatherv on an intracommunicator (its compiled-in
/// tuning tree, the one `choreo tune` writes for MPICH): on a power of two
/// recursive doubling while the gathered total is below 524288 bytes
/// (MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE), else the ring; otherwise Bruck
/// below 81920 bytes (MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE), else the ring.
/// The ring is MPIR_Allgather(v)_intra_ring as it runs, an allgatherv's in
/// 32 KiB pieces once its largest contribution exceeds them
/// (allgatherv-mpich-ring). The library's `auto` prices it as MPICH's own
/// call: where choreo's best is not faster by the margin, the call goes to
/// MPICH (docs/pmpi.md).
///
//===----------------------------------------------------------------------===//

#include "generators/SizeChecks.h"
#include "generators/allgather/IntraAllgather.h"
#include "generators/allgatherv/AllgathervRing.h"

#include "llvm/ADT/STLExtras.h"

using namespace choreo;

namespace {

/// MPICH's thresholds (bytes of the gathered total).
constexpr uint64_t LongMsgBytes = 524288, ShortMsgBytes = 81920;
/// MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE.
constexpr uint64_t PipelineBytes = 32768;

/// The ring's pieces: an allgatherv's, none for MPI_Allgather.
uint64_t ringPieces(bool Irregular) { return Irregular ? PipelineBytes : 0; }

class AllgatherMpich final : public Generator {
public:
  llvm::StringRef id() const override { return "allgather-mpich"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's choice: recursive doubling on powers of two below "
           "512 KiB in all, Bruck below 80 KiB, else the ring (32 KiB pieces "
           "for allgatherv)";
  }
  CollectiveSet collectives() const override {
    return {Collective::Allgather, Collective::Allgatherv};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    return buildPart(V, std::nullopt);
  }
  bool hasRankForm() const override { return true; }
  llvm::Expected<Schedule> buildRank(const OptionValues &V,
                                     Rank Me) const override {
    return buildPart(V, Me);
  }

private:
  struct Choice {
    uint32_t N = 0;
    std::vector<uint64_t> Sizes;
    bool Irregular = false;
    /// The ring (MPIR_Allgather(v)_intra_ring), else Alg.
    bool Ring = false;
    IntraAlgorithm Alg = IntraAlgorithm::Ring;
    uint64_t Pieces = 0;
  };

  llvm::Expected<Choice> choose(const OptionValues &V) const {
    Choice C;
    auto N = groupCount(V, opt::ranks());
    if (!N)
      return N.takeError();
    C.N = *N;
    auto Sizes = intragroupSizes(V, C.N, C.Irregular);
    if (!Sizes)
      return Sizes.takeError();
    C.Sizes = std::move(*Sizes);
    uint64_t Total = 0;
    for (uint64_t X : C.Sizes)
      Total = satAdd(Total, X);
    if (isPowerOfTwo(C.N) && Total < LongMsgBytes)
      C.Alg = IntraAlgorithm::RecursiveDoubling;
    else if (!isPowerOfTwo(C.N) && Total < ShortMsgBytes)
      C.Alg = IntraAlgorithm::Bruck;
    else
      C.Ring = true;
    C.Pieces = ringPieces(C.Irregular);
    return C;
  }

  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const {
    auto C = choose(V);
    if (!C)
      return C.takeError();
    if (!C->Ring)
      return buildIntraAllgather(id(), C->Alg, V, Only);
    return buildMpichRing(id(),
                          C->Irregular ? Collective::Allgatherv
                                       : Collective::Allgather,
                          C->Sizes, C->Pieces, Only);
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::bytes(),
                                           opt::counts(), opt::base(),
                                           opt::distribution()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeAllgatherMpich() {
  return std::make_unique<AllgatherMpich>();
}
