//===- generators/intergroup/HalfAllgatherRoot.cpp - Root gathering -------===//
///
/// \file
/// `half-allgather-root`: the root-gathering baseline of seed 001 (Section
/// III.A) for the half-duplex intergroup allgather, where only A's members
/// contribute: a binomial gather to a0, a0 sends m_A to b0, and b0
/// broadcasts it inside B (the broadcast MPICH picks for its size). Its
/// rank form builds one rank's ops from the blocks' rank forms.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"
#include "generators/blocks/Blocks.h"

using namespace choreo;

namespace {

class HalfAllgatherRoot final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "half-allgather-root"; }
  llvm::StringRef summary() const override {
    return "half-duplex root gathering: gather to a0, a0 -> b0, broadcast in "
           "B (the baseline)";
  }
  CollectiveSet collectives() const override {
    return {Collective::HalfAllgather};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  /// With Only, rank Only's ops of the gather in A, the root send and the
  /// broadcast in B; which steps the whole keeps from the blocks' rank
  /// forms (O(p + q) arithmetic).
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    // What is built: the gather, one op a0 -> b0, MPICH's broadcast in B
    // (scatter + ring has q^2 ops, not q log q); a rank's part: a gather's,
    // the send, a broadcast's.
    auto Start = startHalfAllgather(V, id(), [&](const IntergroupSizes &Z) {
      uint64_t KA = prefixSums(Z.A).back();
      if (Only) {
        uint32_t N = std::max(Z.A.size(), Z.B.size());
        return 2 * uint64_t(ceilLog2(N)) + 1 + 2 * (N + ceilLog2(N));
      }
      return binomialGatherOps(Z.A.size()) + 1 + mpichBcastOps(Z.B.size(), KA);
    });
    if (!Start)
      return Start.takeError();
    auto &[S, Sizes] = *Start;
    const uint32_t Q = Sizes.B.size();
    const std::vector<Rank> &A = S.Groups[0].Members, &B = S.Groups[1].Members;
    uint64_t KA = prefixSums(Sizes.A).back();
    if (Only) {
      if (*Only >= S.NumRanks)
        return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                    " is not in the groups' " +
                                    llvm::Twine(S.NumRanks));
      S.Steps = rankSteps(Sizes, A, B, KA, *Only);
      return std::move(S);
    }
    StepList L = binomialGather(Sizes.A, 0).relabeled(A, {{0, 0}});
    llvm::SmallVector<Block, 1> All;
    addPiece(All, 0, 0, KA);
    L.newStep();
    addOpIfAny(L, A[0], B[0], All);
    L.append(mpichBcast(Q, KA, 0).relabeled(B, {{0, 0}}));
    L.dropEmptySteps();
    S.Steps = std::move(L);
    return std::move(S);
  }

  /// The whole's ops of rank Me, step by step: the gather's part (A's
  /// members), the root send, the broadcast's part (B's members).
  static StepList rankSteps(const IntergroupSizes &Sizes,
                            llvm::ArrayRef<Rank> A, llvm::ArrayRef<Rank> B,
                            uint64_t KA, Rank Me) {
    auto IndexIn = [Me](llvm::ArrayRef<Rank> G) {
      auto It = llvm::find(G, Me);
      return It == G.end() ? NoRank : uint32_t(It - G.begin());
    };
    uint32_t InA = IndexIn(A), InB = IndexIn(B);
    RankPart All = binomialGatherRank(Sizes.A, 0, InA);
    if (InA != NoRank)
      All.Steps.relabel(A);
    RankPart Send;
    Send.Steps.newStep();
    Send.Used.push_back(KA > 0);
    if (Me == A[0] || Me == B[0]) {
      llvm::SmallVector<Block, 1> Piece;
      addPiece(Piece, 0, 0, KA);
      addOpIfAny(Send.Steps, A[0], B[0], Piece);
    }
    All.append(std::move(Send));
    RankPart Bcast = mpichBcastRank(B.size(), KA, 0, InB);
    if (InB != NoRank)
      Bcast.Steps.relabel(B);
    All.append(std::move(Bcast));
    return std::move(All).kept();
  }

private:
  const std::vector<OptionDecl> Options = {opt::groupA(), opt::groupB(),
                                           opt::bytesA(), opt::countsA()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeHalfAllgatherRoot() {
  return std::make_unique<HalfAllgatherRoot>();
}
