//===- generators/intergroup/InterAllgathervKang.cpp - Algorithm 2 --------===//
///
/// \file
/// `inter-allgatherv-kang`: Algorithm 2 of seed 000 (intergroup Allgatherv
/// by global byte index), for any counts, zeros included, and any p, q.
///
/// Group A's K_A bytes are cut into q consecutive near-equal segments
/// s_{A,k} (the first K_A mod q one byte longer), segment k owned by b_k;
/// B's K_B bytes into p segments owned by a_k. Every sender sends each piece
/// of its message that falls in a segment to that segment's owner. Order
/// (Section 4.1): a multi-target sender (one with pieces for several
/// receivers) sends in its receivers' rank order; a receiver takes its
/// higher-ranked multi-target sender first, then its exclusive senders in
/// rank order, then its lower-ranked multi-target sender. Steps follow from
/// these orders as early as they allow (scheduleInOrder). Then A allgathers
/// B's segments and B allgathers A's, concurrently (--intra ring | bruck).
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

#include "llvm/ADT/STLExtras.h"

using namespace choreo;

namespace {

class InterAllgathervKang final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-allgatherv-kang"; }
  llvm::StringRef summary() const override {
    return "Kang et al. Algorithm 2: exchange by global byte index in "
           "near-equal segments, ordered sends, then concurrent intragroup "
           "allgathers";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterAllgather, Collective::InterAllgatherv};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  /// With Only, rank Only's exchange ops (their steps from the whole exchange's
  /// orders, O(p + q) arithmetic) and its group's allgather ops.
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto Sizes = intergroupSizes(V);
    if (!Sizes)
      return Sizes.takeError();
    IntraAlgorithm Intra = *intraOf(V); // declared with a default
    uint64_t P = Sizes->A.size(), Q = Sizes->B.size();
    uint64_t Est = 2 * (P + Q) + (Intra == IntraAlgorithm::Ring
                                      ? P * (P - 1) + Q * (Q - 1)
                                      : (P + Q) * (1 + ceilLog2(P + Q)));
    if (Only) // the pieces' places, Me's allgather ops
      Est = 2 * (P + Q) + 2 * intraAllgatherSteps(Intra, std::max(P, Q));
    if (auto E = checkOpBudget(id(), Est))
      return E;

    Schedule S;
    S.Kind = Sizes->Irregular ? Collective::InterAllgatherv
                              : Collective::InterAllgather;
    setIntergroup(S, Sizes->A, Sizes->B);
    const Group &A = S.Groups[0], &B = S.Groups[1];
    std::vector<uint64_t> SegOfA, SegOfB;
    if (Only) {
      if (*Only >= S.NumRanks)
        return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                    " is not in the groups' " +
                                    llvm::Twine(S.NumRanks));
      RankPart Part;
      Part.Steps =
          balancedExchangeRank(A, Sizes->A, B, Sizes->B, SegOfA, SegOfB,
                               SegmentCuts::FirstLonger, *Only);
      Part.Used.assign(Part.Steps.numSteps(), true);
      Part.append(allgathersSideBySideRank(Intra, A, SegOfA, B, SegOfB, *Only));
      S.Steps = std::move(Part).kept();
      return S;
    }
    auto Exchange =
        balancedExchange(S.NumRanks, A, Sizes->A, B, Sizes->B, SegOfA, SegOfB);
    if (!Exchange)
      return Exchange.takeError();
    // Member k of A holds segment k of buffer B; member k of B segment k of
    // buffer A, in rank order: the allgathers need no reordering.
    StepList Final =
        intraAllgatherv(Intra, SegOfA).relabeled(A.Members, {{1, 0}});
    Final.mergeAlongside(
        intraAllgatherv(Intra, SegOfB).relabeled(B.Members, {{0, 0}}));
    StepList L = std::move(*Exchange);
    L.append(std::move(Final));
    L.dropEmptySteps();
    S.Steps = std::move(L);
    return S;
  }

  const std::vector<OptionDecl> Options = {
      opt::groupA(),
      opt::groupB(),
      opt::bytesA(),
      opt::bytesB(),
      opt::countsA(),
      opt::countsB(),
      opt::intra({IntraAlgorithm::Ring, IntraAlgorithm::Bruck})
          .withDefault("ring")};
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterAllgathervKang() {
  return std::make_unique<InterAllgathervKang>();
}
