//===- generators/intergroup/InterReduceKang.cpp - Intercomm reduce -------===//
///
/// \file
/// `inter-reduce-kang`: an intercommunicator reduce by reduce-scatter and
/// gather (Rabenseifner's reduce, seed 004), across the groups in the
/// manner of Kang et al.'s intergroup algorithms (seeds 000, 001): the
/// work is spread over the other group's members and every member talks
/// to the other side itself.
///
///  1. The group without the root (g ranks) reduce-scatters its vector
///     among its members, as inter-allreduce-kang's groups do
///     (groupReduceScatter: `--reduce-scatter ring`, g - 1 steps,
///     commutative operators only; `halving`, lg g' steps, 2 more when g
///     is not a power of two, rank order kept, the default for --op
///     noncommutative): each member ends with one piece of whole elements
///     combined over the whole group.
///  2. Each member with a piece sends it straight to the root, one message
///     per step in byte order (the root's receive port takes one message
///     a step): the root receives n bytes in g' messages of about n/g'
///     bytes, where inter-reduce-root's root receives the n bytes the
///     other group's first rank combined over lg g rounds of n bytes each.
///
/// The rest of the root's group takes no part. Rank form: the member's
/// reduce-scatter part (RawSteps) and its one send; the root's g' receives;
/// O(g) arithmetic for the pieces.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Reduction.h"
#include "generators/intergroup/InterReduction.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

namespace {

class InterReduceKang final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-reduce-kang"; }
  llvm::StringRef summary() const override {
    return "reduce-scatter in the group without the root, then every "
           "member sends its piece straight to the root";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterReduce};
  }
  /// With --reduce-scatter halving (the default for --op noncommutative).
  bool keepsRankOrder() const override { return true; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  /// Halving's lg g steps against the ring's g - 1: the short vectors'
  /// form (the ring moves least data when g is not a power of two).
  std::vector<std::vector<std::string>> pricedVariants() const override {
    return {{"--reduce-scatter", "halving"}};
  }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto In = readInterInput(V, Collective::InterReduce);
    if (!In)
      return In.takeError();
    auto HalvingOr =
        groupReduceScatterHalving(V, ReduceScatterOpt, In->Commutative);
    if (!HalvingOr)
      return HalvingOr.takeError();
    bool Halving = *HalvingOr;
    uint64_t All = uint64_t(In->P) + In->Q;
    if (Only && *Only >= All)
      return optionError("p", formatv("rank {0} is not one of the p + q = "
                                      "{1} ranks",
                                      *Only, All));
    uint32_t G = In->otherSize();
    Rank Base = In->otherBase();
    // Ops: the reduce-scatter's (g(g - 1) for the ring, about g lg g for
    // halving) and one per member; a rank's part: a few per step.
    uint64_t Est =
        (Halving ? uint64_t(G) * (ceilLog2(G) + 3) : uint64_t(G) * (G - 1)) + G;
    if (Only)
      Est = 8 * uint64_t(G) + 64;
    if (auto E = checkOpBudget(id(), Est))
      return E;

    // 1. The reduce-scatter in the other group. A rank outside it builds
    // only the steps (local rank 0's part) and keeps none of their ops.
    bool Member = Only && localOf(*Only, Base, G) != NoRank;
    std::optional<Rank> Local;
    if (Only)
      Local = Member ? *Only - Base : 0;
    // Built over the group's ranks (no relabelling of its ops and sets).
    GroupPieces Pieces =
        groupReduceScatter(G, In->N, In->Elem, Halving, Local, Base);
    StepList L;
    if (Only && !Member) {
      for (unsigned St = 0; St < Pieces.Steps.numSteps(); ++St)
        L.newStep();
    } else {
      L = std::move(Pieces.Steps);
    }

    // 2. Every member with a piece sends it to the root, in byte order.
    uint32_t Set = Block::NoContrib;
    uint64_t Lo = 0;
    for (size_t K = 0; K < Pieces.Order.size(); ++K) {
      uint64_t Count = Pieces.Counts[K];
      if (!Count)
        continue;
      Rank From = Base + Pieces.Order[K];
      L.newStep();
      if (!Only || *Only == From || *Only == In->Root) {
        if (Set == Block::NoContrib)
          Set = L.addContrib(ranksOf(Base, Base + G));
        Block B;
        B.Lo = Lo;
        B.Hi = Lo + Count;
        B.Contrib = Set;
        L.addOp(From, In->Root, B);
      }
      Lo += Count;
    }

    Schedule S = interSchedule(Collective::InterReduce, *In);
    S.Steps = std::move(L);
    return S;
  }

  const Option<std::string> ReduceScatterOpt = groupReduceScatterOption();
  const std::vector<OptionDecl> Options = [this] {
    std::vector<OptionDecl> O = interOptions(Collective::InterReduce);
    O.push_back(ReduceScatterOpt);
    return O;
  }();
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterReduceKang() {
  return std::make_unique<InterReduceKang>();
}
