//===- generators/intergroup/InterBarrierDissemination.cpp ----------------===//
///
/// \file
/// `inter-barrier-dissemination`: an intercommunicator barrier that is not
/// MPICH's. MPI-4 6.3 asks only that a rank leave once every rank of the
/// other group arrived; MPICH's MPIR_Barrier_inter_bcast (inter-barrier-
/// bcast) gets there in max(L(p), L(q)) + L(q) + L(p) + 2 rounds, L(g) =
/// ceil(log2 g): a barrier in each group, then a broadcast each way. Here
/// the p + q ranks run one k-ary dissemination barrier (Hensgen, Finkel and
/// Manber; blocks/disseminationBarrier) as if they were one group: after
/// ceil(log_k (p + q)) rounds every rank knows that every rank arrived, its
/// own group's included — at p = q = 64, 7 rounds against 20. In the
/// format's layout rank x of the p + q knows of a run of consecutive ranks;
/// the run's part below p is of buffer A, the rest of buffer B. The
/// messages carry no payload when run; a rank's part is its own ops of the
/// dissemination (O(log p) of them).
///
//===----------------------------------------------------------------------===//

#include "generators/barrier/Barrier.h"
#include "generators/intergroup/InterReduction.h"

using namespace choreo;

namespace {

/// L's ops with each block [Lo, Hi) of the p + q ranks' one buffer cut into
/// its part of buffer A (ranks below P) and of buffer B.
StepList splitGroups(const StepList &L, uint32_t P) {
  StepList Out;
  Out.reserve(L.numOps(), 2 * L.numBlocks());
  llvm::SmallVector<Block, 4> Pieces;
  for (unsigned S = 0; S < L.numSteps(); ++S) {
    Out.newStep();
    for (const Op &O : L.step(S)) {
      Pieces.clear();
      for (const Block &B : L.blocks(O)) {
        if (B.Lo < P)
          addPiece(Pieces, 0, B.Lo, std::min<uint64_t>(B.Hi, P));
        if (B.Hi > P)
          addPiece(Pieces, 1, std::max<uint64_t>(B.Lo, P) - P, B.Hi - P);
      }
      Out.addOp(O.Src, O.Dst, Pieces);
    }
  }
  return Out;
}

class InterBarrierDissemination final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-barrier-dissemination"; }
  llvm::StringRef summary() const override {
    return "intercommunicator barrier: one k-ary dissemination over both "
           "groups, ceil(log_k (p + q)) rounds";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterBarrier};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto P = groupCount(V, opt::groupA());
    if (!P)
      return P.takeError();
    auto Q = groupCount(V, opt::groupB());
    if (!Q)
      return Q.takeError();
    auto Radix = readBarrierRadix(V);
    if (!Radix)
      return Radix.takeError();
    uint64_t K = *Radix;
    uint32_t N = *P + *Q;
    if (Only && *Only >= N)
      return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                  " is not below p + q = " + llvm::Twine(N));
    if (auto E = checkOpBudget(id(), Only ? 0 : disseminationBarrierOps(N, K)))
      return E;
    Schedule S;
    S.Kind = Collective::InterBarrier;
    setIntergroup(S, std::vector<uint64_t>(*P, 1),
                  std::vector<uint64_t>(*Q, 1));
    S.Steps = splitGroups(disseminationBarrier(N, K, Only), *P);
    S.Port = disseminationPorts(N, K);
    return S;
  }

  const std::vector<OptionDecl> Options = {opt::groupA(), opt::groupB(),
                                           barrierRadix()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterBarrierDissemination() {
  return std::make_unique<InterBarrierDissemination>();
}
