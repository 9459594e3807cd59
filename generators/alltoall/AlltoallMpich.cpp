//===- generators/alltoall/AlltoallMpich.cpp - MPICH 4.0's alltoall(v) ----===//
///
/// \file
/// `alltoall-mpich` and `alltoallv-mpich`: what MPICH 4.0.2's built-in
/// selection (maint/tuning/coll/mpir/generic.json, compiled into
/// libmpich.so.12) runs for MPI_Alltoall and MPI_Alltoallv on an
/// intracommunicator without MPI_IN_PLACE, as baselines. MPI_Alltoall, by
/// the bytes per destination (avg_msg_size: sendcount times the type's
/// size) and p: p <= 8: scattered up to 32768 bytes, else pairwise; p > 8:
/// Bruck (radix 2) up to 256 bytes, scattered up to 32768, else pairwise.
/// (The file says "comm_size<8", but MPIR_Csel_search in 4.0.2's csel.c
/// tests local_size <= 8; the tree's pruning, which tests < 8, stops at the
/// in-place test above it. MPICH's own MPI_Alltoall at p = 8 and 8 bytes
/// runs the scattered algorithm under `choreo trace`, docs/trace.md.)
/// Bruck's blocks are lattice blocks, as `alltoall-bruck`'s by default
/// (a rank's part and plan in O(log p) pieces, docs/format.md "Lattice
/// blocks"). MPI_Alltoallv: scattered. The scattered batch is
/// MPIR_CVAR_ALLTOALL_THROTTLE's default, 32. (With MPI_IN_PLACE MPICH runs
/// its pairwise sendrecv_replace algorithms, not modelled here.)
///
//===----------------------------------------------------------------------===//

#include "generators/alltoall/AlltoallGenerators.h"

using namespace choreo;

namespace {

/// MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE, _MEDIUM_MSG_SIZE, _THROTTLE.
constexpr uint64_t ShortMsg = 256, MediumMsg = 32768, Throttle = 32;

class AlltoallMpich final : public AlltoallGenerator {
public:
  llvm::StringRef id() const override { return "alltoall-mpich"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's MPI_Alltoall: Bruck up to 256 B (p > 8), scattered "
           "up to 32 KB, else pairwise";
  }
  CollectiveSet collectives() const override { return {Collective::Alltoall}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<std::unique_ptr<AlltoallPattern>>
  pattern(const OptionValues &V, const PairMatrix &M) const override {
    uint64_t Block = *V.lookup(opt::pairBytes());
    if (M.ranks() > 8 && Block <= ShortMsg)
      return bruckPattern(M, 2, false, /*Lattice=*/true);
    if (Block <= MediumMsg)
      return scatteredPattern(M, Throttle);
    return pairwisePattern(M);
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::pairBytes()};
};

class AlltoallvMpich final : public AlltoallGenerator {
public:
  llvm::StringRef id() const override { return "alltoallv-mpich"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's MPI_Alltoallv: scattered, 32 messages in flight";
  }
  CollectiveSet collectives() const override { return {Collective::Alltoallv}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<std::unique_ptr<AlltoallPattern>>
  pattern(const OptionValues &, const PairMatrix &M) const override {
    return scatteredPattern(M, Throttle);
  }

  const std::vector<OptionDecl> Options = {opt::ranks(), opt::pairBytes(),
                                           opt::pairs(), opt::rankPart()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeAlltoallMpich() {
  return std::make_unique<AlltoallMpich>();
}

std::unique_ptr<Generator> choreo::makeAlltoallvMpich() {
  return std::make_unique<AlltoallvMpich>();
}
