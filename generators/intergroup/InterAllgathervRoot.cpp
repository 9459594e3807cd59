//===- generators/intergroup/InterAllgathervRoot.cpp - Linear gathervs ----===//
///
/// \file
/// `inter-allgatherv-root`: MPICH's inter-communicator MPI_Allgatherv
/// (MPIR_Allgatherv_inter_remote_gather_local_bcast). Counts differ per
/// member, so there is no local gather: each group gathers the remote
/// group's messages with an inter-communicator gatherv (linear: every remote
/// member sends straight to the root), the low group A first, then B, and
/// then each root broadcasts the gathered buffer inside its own group (the
/// broadcast MPICH picks for the total size), both groups at once.
///
/// Steps follow each rank's program order under single ports: a0 receives
/// b0, b1, ... one per step, then sends its own message to b0; a_i (i > 0)
/// has nothing to do in the first gatherv and sends to b0 at once; b0
/// receives once its own send to a0 is done, lowest rank first. The
/// broadcasts start when both gathervs are complete.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

#include <algorithm>

using namespace choreo;

namespace {

class InterAllgathervRoot final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-allgatherv-root"; }
  llvm::StringRef summary() const override {
    return "MPICH's intercommunicator allgatherv: linear gathervs to a0 then "
           "b0, then a broadcast inside each group (the baseline)";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterAllgatherv};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  /// With Only, rank Only's gatherv ops (the gathervs' steps from the sizes,
  /// O(p + q) arithmetic) and its group's broadcast ops.
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto Sizes = intergroupSizes(V);
    if (!Sizes)
      return Sizes.takeError();
    uint32_t P = Sizes->A.size(), Q = Sizes->B.size();
    // Exactly what is built: one gatherv op per member, then MPICH's
    // broadcast in each group (scatter + ring has n^2 ops).
    uint64_t KA = 0, KB = 0;
    for (uint64_t X : Sizes->A)
      KA += X;
    for (uint64_t X : Sizes->B)
      KB += X;
    uint64_t Est =
        uint64_t(P) + Q + mpichBcastOps(P, KB) + mpichBcastOps(Q, KA);
    if (Only) // a root's gatherv ops, a broadcast's
      Est = uint64_t(P) + Q + 2 * (std::max(P, Q) + ceilLog2(std::max(P, Q)));
    if (auto E = checkOpBudget(id(), Est))
      return E;
    if (Only && *Only >= P + Q)
      return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                  " is not in the groups' " +
                                  llvm::Twine(P + Q));
    Schedule S;
    S.Kind = Collective::InterAllgatherv;
    setIntergroup(S, Sizes->A, Sizes->B);
    const std::vector<Rank> &A = S.Groups[0].Members, &B = S.Groups[1].Members;
    const BufferId BufA = 0, BufB = 1;
    std::vector<uint64_t> OffA = prefixSums(Sizes->A),
                          OffB = prefixSums(Sizes->B);

    // Gatherv to a0: the non-empty messages of B, one per step.
    struct Timed {
      unsigned Step;
      Rank Src, Dst;
      Block B;
    };
    std::vector<Timed> Gathers;
    unsigned GatherSteps = 0;
    // Every gatherv op's step, only Me's kept (with Only).
    auto Keep = [&](Timed T) {
      GatherSteps = std::max(GatherSteps, T.Step + 1);
      if (!Only || T.Src == *Only || T.Dst == *Only)
        Gathers.push_back(T);
    };
    auto Piece = [](BufferId Buf, uint64_t Lo, uint64_t Hi) {
      Block Bl;
      Bl.Buf = Buf;
      Bl.Lo = Lo;
      Bl.Hi = Hi;
      return Bl;
    };
    unsigned A0Busy = 0; // steps a0 spends receiving
    std::optional<unsigned> B0SendStep;
    for (uint32_t J = 0; J < Q; ++J) {
      if (Sizes->B[J] == 0)
        continue;
      if (J == 0)
        B0SendStep = A0Busy;
      Keep({A0Busy++, B[J], A[0], Piece(BufB, OffB[J], OffB[J + 1])});
    }
    // Gatherv to b0: a1, a2, ... as soon as b0 receives; a0 once its own
    // receives are done.
    unsigned Next = B0SendStep ? *B0SendStep + 1 : 0;
    for (uint32_t I = 1; I < P; ++I)
      if (Sizes->A[I])
        Keep({Next++, A[I], B[0], Piece(BufA, OffA[I], OffA[I + 1])});
    if (Sizes->A[0])
      Keep({std::max(Next, A0Busy), A[0], B[0], Piece(BufA, OffA[0], OffA[1])});
    // Steps in order (linear: the gathers sorted by step).
    std::stable_sort(
        Gathers.begin(), Gathers.end(),
        [](const Timed &X, const Timed &Y) { return X.Step < Y.Step; });
    StepList L;
    size_t Cur = 0;
    for (unsigned St = 0; St < GatherSteps; ++St) {
      L.newStep();
      for (; Cur < Gathers.size() && Gathers[Cur].Step == St; ++Cur)
        L.addOp(Gathers[Cur].Src, Gathers[Cur].Dst, {Gathers[Cur].B});
    }
    if (Only) {
      // The gathervs' steps are all used (a0's receives from step 0 on, b0's
      // from one after b0's send, a0's send after both): no gap.
      S.Steps = std::move(L);
      S.Steps.append(rankBcasts(A, B, OffA.back(), OffB.back(), *Only));
      return S;
    }
    // Both roots broadcast what they gathered, concurrently.
    StepList Bcasts = mpichBcast(P, OffB.back(), 0).relabeled(A, {{BufB, 0}});
    Bcasts.mergeAlongside(
        mpichBcast(Q, OffA.back(), 0).relabeled(B, {{BufA, 0}}));
    L.append(std::move(Bcasts));
    L.dropEmptySteps();
    S.Steps = std::move(L);
    return S;
  }

  /// Both broadcasts side by side as Me sees them (buffer B's bytes in A,
  /// buffer A's in B), the steps either uses kept.
  static StepList rankBcasts(llvm::ArrayRef<Rank> A, llvm::ArrayRef<Rank> B,
                             uint64_t KA, uint64_t KB, Rank Me) {
    uint32_t P = A.size(), Q = B.size();
    bool InA = Me < P;
    uint32_t Local = InA ? Me : Me - P;
    RankPart InGroupA = mpichBcastRank(P, KB, 0, InA ? Local : NoRank),
             InGroupB = mpichBcastRank(Q, KA, 0, InA ? NoRank : Local);
    // Me's group's ops on real ranks (buffer B's bytes in A, A's in B).
    RankPart Out = std::move(InA ? InGroupA : InGroupB);
    Out.Steps.relabel(InA ? A : B, {{BufferId(InA ? 1 : 0), 0}});
    const std::vector<bool> &Other = InA ? InGroupB.Used : InGroupA.Used;
    for (size_t I = 0; I < Other.size(); ++I) {
      if (I >= Out.Used.size()) {
        Out.Steps.newStep();
        Out.Used.push_back(false);
      }
      Out.Used[I] = Out.Used[I] || Other[I];
    }
    return std::move(Out).kept();
  }

  const std::vector<OptionDecl> Options = {opt::groupA(),  opt::groupB(),
                                           opt::bytesA(),  opt::bytesB(),
                                           opt::countsA(), opt::countsB()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterAllgathervRoot() {
  return std::make_unique<InterAllgathervRoot>();
}
