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

#include "generators/Generators.h"
#include "generators/blocks/Blocks.h"

using namespace choreo;

namespace {

class InterAllgatherRoot final : public PartGenerator {
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

private:
  /// With Only, rank Only's ops of its group's gather, the root sends and the
  /// broadcasts; which steps the whole keeps from one rank's part of each
  /// block of the other group (O(p + q) arithmetic).
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
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
    if (Only) // a gather's, two root sends, a broadcast's
      Est = 2 * ceilLog2(std::max(Pn, Qn)) + 2 +
            2 * (std::max(Pn, Qn) + ceilLog2(std::max(Pn, Qn)));
    if (auto E = checkOpBudget(id(), Est))
      return E;

    Schedule S;
    S.Kind = Collective::InterAllgather;
    setIntergroup(S, Sizes->A, Sizes->B);
    S.Topo = topologyOf(V);
    const BufferId BufA = 0, BufB = 1;
    std::vector<Rank> RanksA = S.Groups[0].Members,
                      RanksB = S.Groups[1].Members;
    uint64_t KA = prefixSums(Sizes->A).back(), KB = prefixSums(Sizes->B).back();
    Rank A0 = RanksA[0], B0 = RanksB[0];
    if (Only) {
      if (*Only >= S.NumRanks)
        return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                    " is not in the groups' " +
                                    llvm::Twine(S.NumRanks));
      S.Steps = rankSteps(*Sizes, RanksA, RanksB, KA, KB, *Only);
      return S;
    }

    // Stage 1: both groups gather to their root, concurrently.
    StepList L = binomialGather(Sizes->A, 0).relabeled(RanksA, {{BufA, 0}});
    L.mergeAlongside(
        binomialGather(Sizes->B, 0).relabeled(RanksB, {{BufB, 0}}));
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

  /// The whole's blocks as rank Me sees them, step by step.
  static StepList rankSteps(const IntergroupSizes &Sizes,
                            llvm::ArrayRef<Rank> RanksA,
                            llvm::ArrayRef<Rank> RanksB, uint64_t KA,
                            uint64_t KB, Rank Me) {
    const BufferId BufA = 0, BufB = 1;
    uint32_t Pn = RanksA.size(), Qn = RanksB.size();
    bool InA = Me < Pn;
    uint32_t Local = InA ? Me : Me - Pn;
    auto ToA = [&](Rank R) { return RanksA[R]; };
    auto ToB = [&](Rank R) { return RanksB[R]; };
    // Stage 1: the gathers side by side.
    RankPart GA = binomialGatherRank(Sizes.A, 0, InA ? Local : NoRank),
             GB = binomialGatherRank(Sizes.B, 0, InA ? NoRank : Local);
    RankPart All;
    if (InA)
      appendMapped(All.Steps, GA.Steps, ToA);
    else
      appendMapped(All.Steps, GB.Steps, ToB, {{BufB, 0}});
    for (size_t I = 0; I < std::max(GA.Used.size(), GB.Used.size()); ++I) {
      if (I >= All.Steps.numSteps())
        All.Steps.newStep();
      All.Used.push_back((I < GA.Used.size() && GA.Used[I]) ||
                         (I < GB.Used.size() && GB.Used[I]));
    }
    // Stage 2: a0 -> b0, the broadcast in B; stage 3: b0 -> a0, in A.
    for (int Stage = 0; Stage < 2; ++Stage) {
      bool ToGroupB = Stage == 0;
      uint64_t K = ToGroupB ? KA : KB;
      Rank From = ToGroupB ? RanksA[0] : RanksB[0],
           To = ToGroupB ? RanksB[0] : RanksA[0];
      RankPart Send;
      Send.Steps.newStep();
      Send.Used.push_back(K > 0);
      if (Me == From || Me == To)
        appendRootSend(Send.Steps, From, To, ToGroupB ? BufA : BufB, K,
                       /*NewStep=*/false);
      All.append(std::move(Send));
      bool Mine = ToGroupB != InA;
      uint32_t N = ToGroupB ? Qn : Pn;
      RankPart Bcast = mpichBcastRank(N, K, 0, Mine ? Local : NoRank);
      if (Mine)
        Bcast.Steps.relabel(ToGroupB ? RanksB : RanksA,
                            {{ToGroupB ? BufA : BufB, 0}});
      All.append(std::move(Bcast));
    }
    return std::move(All).kept();
  }

  const std::vector<OptionDecl> Options = {opt::groupA(), opt::groupB(),
                                           opt::bytesA(), opt::bytesB(),
                                           opt::fullTopology()};

  /// Opens a step and adds From -> To of [0, Bytes) of Buf (none when
  /// Bytes is 0); with NewStep false, into the last step.
  static void appendRootSend(StepList &L, Rank From, Rank To, BufferId Buf,
                             uint64_t Bytes, bool NewStep = true) {
    llvm::SmallVector<Block, 1> Piece;
    addPiece(Piece, Buf, 0, Bytes);
    if (NewStep)
      L.newStep();
    addOpIfAny(L, From, To, Piece);
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterAllgatherRoot() {
  return std::make_unique<InterAllgatherRoot>();
}
