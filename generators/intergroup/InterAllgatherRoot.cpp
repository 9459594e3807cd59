//===- generators/intergroup/InterAllgatherRoot.cpp - Root gathering ------===//
///
/// \file
/// `inter-allgather-root`: the root-gathering algorithm MPICH runs for an
/// inter-communicator MPI_Allgather (seed 000, Section 3.1, Eq. 2;
/// MPIR_Allgather_inter_local_gather_remote_bcast). Both groups gather to
/// their root with a binomial tree, at the same time; root a0 sends m_A to
/// root b0, which broadcasts it inside B; then b0 sends m_B to a0, which
/// broadcasts it inside A. Each broadcast is the one MPICH picks for its
/// size and group (seed 002, Section 4.1).
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Blocks.h"
#include "generators/Generators.h"

using namespace choreo;

namespace {

class InterAllgatherRoot final : public Generator {
public:
  llvm::StringRef id() const override { return "inter-allgather-root"; }
  llvm::StringRef summary() const override {
    return "MPICH's intercommunicator allgather: gather to the roots, root "
           "exchange, broadcast in B, then in A (the baseline)";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterAllgather};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    // MPI_Allgather: every member of a group contributes alike (the
    // options take no counts).
    auto Sizes = intergroupSizes(V);
    if (!Sizes)
      return Sizes.takeError();
    uint32_t Pn = Sizes->A.size(), Qn = Sizes->B.size();
    // What is built: both gathers, two root sends, MPICH's broadcast in
    // each group (scatter + ring has n^2 ops, not n log n).
    uint64_t BytesA = 0, BytesB = 0;
    for (uint64_t X : Sizes->A)
      BytesA += X;
    for (uint64_t X : Sizes->B)
      BytesB += X;
    uint64_t Est = binomialGatherOps(Pn) + binomialGatherOps(Qn) + 2 +
                   mpichBcastOps(Qn, BytesA) + mpichBcastOps(Pn, BytesB);
    if (auto E = checkOpBudget(id(), Est))
      return E;

    Schedule S;
    S.Kind = Collective::InterAllgather;
    setIntergroup(S, Sizes->A, Sizes->B);
    S.Topo = topologyOf(V);
    const BufferId BufA = 0, BufB = 1;
    std::vector<Rank> RanksA = S.Groups[0].Members, RanksB = S.Groups[1].Members;
    uint64_t KA = prefixSums(Sizes->A).back(), KB = prefixSums(Sizes->B).back();
    Rank A0 = RanksA[0], B0 = RanksB[0];

    // Stage 1: both groups gather to their root, concurrently.
    StepList L = binomialGather(Sizes->A, 0).relabeled(RanksA, {{BufA, 0}});
    L.mergeAlongside(binomialGather(Sizes->B, 0).relabeled(RanksB, {{BufB, 0}}));
    // Stage 2: a0 sends m_A to b0, which broadcasts it inside B.
    appendRootSend(L, A0, B0, BufA, KA);
    L.append(mpichBcast(Qn, KA, 0).relabeled(RanksB, {{BufA, 0}}));
    // Stage 3: b0 sends m_B to a0, which broadcasts it inside A.
    appendRootSend(L, B0, A0, BufB, KB);
    L.append(mpichBcast(Pn, KB, 0).relabeled(RanksA, {{BufB, 0}}));
    L.dropEmptySteps();
    S.Steps = std::move(L);
    return S;
  }

private:
  const std::vector<OptionDecl> Options = {opt::groupA(), opt::groupB(),
                                           opt::bytesA(), opt::bytesB(),
                                           opt::fullTopology()};

  static void appendRootSend(StepList &L, Rank From, Rank To, BufferId Buf,
                             uint64_t Bytes) {
    llvm::SmallVector<Block, 1> Piece;
    addPiece(Piece, Buf, 0, Bytes);
    L.newStep();
    addOpIfAny(L, From, To, Piece);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterAllgatherRoot() {
  return std::make_unique<InterAllgatherRoot>();
}
