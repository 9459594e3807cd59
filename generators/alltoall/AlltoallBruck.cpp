//===- generators/alltoall/AlltoallBruck.cpp - Bruck's alltoall -----------===//
///
/// \file
/// `alltoall-bruck`: Bruck et al.'s store-and-forward alltoall with radix k
/// (--radix, default 2: MPIR_Alltoall_intra_brucks), any p: ceil(log_k p)
/// rounds; in round d every block whose offset j - i has digit v at place
/// d moves v k^d ranks ahead, through ranks that relay it. One step per
/// message, or with --concurrent on one step per round (ports k - 1). MPICH's
/// final local rotation is no message: here a block's bytes are its place
/// in buffer `all`, wherever a rank keeps it. An alltoallv rank's part
/// (--rank-part) needs, beyond its row and column, the blocks it relays
/// (--relayed: where each block it receives starts and its bytes, learnt
/// by a job in a Bruck round of the sizes themselves, docs/alltoall.md):
/// with them it is built in O(p log p), never the matrix.
///
//===----------------------------------------------------------------------===//

#include "generators/alltoall/AlltoallGenerators.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;

namespace {

class AlltoallBruck final : public AlltoallGenerator {
public:
  llvm::StringRef id() const override { return "alltoall-bruck"; }
  llvm::StringRef summary() const override {
    return "Bruck's alltoall, radix k (--radix): ceil(log_k p) rounds, "
           "blocks relayed";
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"alltoall-bruck", "--radix 2 --lattice off", "p = pow2(k)"}};
    return Ts;
  }

private:
  llvm::Expected<std::unique_ptr<AlltoallPattern>>
  pattern(const OptionValues &V, const PairMatrix &M) const override {
    uint64_t K = V.get(opt::radix());
    if (K < 2)
      return optionError("radix", "the radix must be at least 2 (got " +
                                      std::to_string(K) + ")");
    // A rank's part relays blocks of other rows: their sizes must be
    // given, for this radix.
    if (M.isRankView() && M.relayRadix() != K)
      return M.relayRadix()
                 ? optionError("relayed",
                               llvm::formatv("the relayed blocks are radix "
                                             "{0}'s, not --radix {1}'s",
                                             M.relayRadix(), K))
                 : optionError(
                       "relayed",
                       "alltoall-bruck relays blocks of other ranks: a "
                       "rank's part needs the blocks it receives (--relayed, "
                       "with --rank-part; docs/alltoall.md) or the whole "
                       "matrix (--pairs)");
    return bruckPattern(M, K, V.get(opt::concurrent()),
                        V.get(opt::lattice()));
  }

  const std::vector<OptionDecl> Options = {
      opt::ranks(),  opt::pairBytes(),  opt::pairs(), opt::rankPart(),
      opt::relayed(), opt::radix(), opt::concurrent(), opt::lattice()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeAlltoallBruck() {
  return std::make_unique<AlltoallBruck>();
}
