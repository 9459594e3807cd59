//===- generators/intergroup/InterAllreduceKang.cpp - Intercomm allreduce -===//
///
/// \file
/// `inter-allreduce-kang`: an intercommunicator allreduce built like Kang et
/// al.'s intergroup allgather (seed 000), for every p and q.
///
///  1. Each group reduce-scatters its vector within the group, both at
///     once: A into p pieces of whole elements (--element-bytes), B into q,
///     so that member i of A holds piece i of the fold of A (contributors
///     A) and member j of B piece j of B's. `--reduce-scatter ring`: the
///     pairwise exchange of reduce-scatter-ring (p - 1 steps, commutative
///     operators only); `halving`: the fold and recursive vector halving
///     with distance doubling of allreduce-halving-doubling (lg p' steps,
///     2 more when p is not a power of two; rank order kept, so it is the
///     default for --op noncommutative; the folded-out ranks hold no
///     piece).
///  2. The pieces are exchanged between the groups as Algorithm 2's
///     exchange cuts them: A's vector in B's pieces (segment j of A's bytes
///     goes to B_j, piece by piece from the members of A whose pieces
///     overlap it) and B's in A's pieces. Both cuts are the same cut points,
///     so the exchange is a set of "atoms", the intersections of a piece of
///     A and a piece of B, and the pair that owns an atom swaps it in one
///     step: A_i sends A's result on the atom and receives B's result on
///     it. A rank has one buffer (`all`), and a byte it still has to send
///     must not be overwritten by the other group's result first; the
///     paper's orders for the two directions (blocks/Exchange.cpp, built
///     for two buffers) do not pair up (p = 2, q = 3, n = 6: A_0 would get
///     B's [2,3) in step 0 and send its own [2,3) in step 1), a swap does.
///     Steps: the atoms in byte order, each takes the smallest step its two
///     owners have not used; consecutive atoms share at most one owner, so
///     this needs exactly the largest number of atoms of a rank
///     (about ceil(max(p,q)/min(p,q)) + 1) steps, the least possible.
///  3. Each group allgathers the other group's result over its own pieces
///     (the final intragroup allgathers of inter-allgather-kang, with
///     --intra ring or bruck), both at once.
///
/// Rank form: a rank's ops in the whole's steps, from O(p + q) arithmetic
/// (the atoms) and the building blocks' rank forms.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Reduction.h"
#include "generators/intergroup/InterReduction.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

namespace {

/// One piece of A and one of B overlapping: A's member A (position I in
/// A's order) and B's member B swap bytes [Lo, Hi) in step Step.
struct Atom {
  uint64_t Lo, Hi;
  uint32_t A, B;
  uint32_t Step;
};

/// The atoms in byte order with their steps: an atom takes the smallest
/// step neither owner has used. Of two consecutive atoms at most one owner
/// is the same (the cut between them is a cut of A's pieces or of B's), so
/// the new atom's other owner is fresh, and the continuing owner's k-th
/// atom (k >= 1; its first took step c0) takes step k - 1 below c0, else
/// k: closed form, O(p + q) time. With Only (A's member Only, or B's
/// member Only - P), only the atoms it owns are kept (a rank's part holds
/// a few, not p + q); Steps counts every atom's.
std::vector<Atom> atoms(const GroupPieces &PA, const GroupPieces &PB,
                        uint64_t N, uint32_t &Steps,
                        std::optional<Rank> Only = std::nullopt,
                        uint64_t P = 0) {
  std::vector<Atom> Out;
  // The ends of pieces I of A and J of B (running sums, no table).
  size_t I = 0, J = 0, PrevI = ~size_t(0), PrevJ = ~size_t(0);
  uint64_t EndA = PA.Counts.empty() ? 0 : PA.Counts[0],
           EndB = PB.Counts.empty() ? 0 : PB.Counts[0];
  uint32_t FirstA = 0, FirstB = 0;
  uint64_t CountA = 0, CountB = 0;
  Steps = 0;
  for (uint64_t Pos = 0; Pos < N;) {
    while (EndA <= Pos)
      EndA += PA.Counts[++I];
    while (EndB <= Pos)
      EndB += PB.Counts[++J];
    uint64_t Hi = std::min(EndA, EndB);
    auto Next = [](uint32_t C0, uint64_t K) {
      return uint32_t(K - 1 < C0 ? K - 1 : K);
    };
    uint32_t Step;
    if (I == PrevI) {
      Step = Next(FirstA, CountA++);
      FirstB = Step;
      CountB = 1;
    } else if (J == PrevJ) {
      Step = Next(FirstB, CountB++);
      FirstA = Step;
      CountA = 1;
    } else {
      Step = FirstA = FirstB = 0;
      CountA = CountB = 1;
    }
    if (!Only || PA.Order[I] == *Only || P + PB.Order[J] == *Only)
      Out.push_back({Pos, Hi, PA.Order[I], PB.Order[J], Step});
    Steps = std::max(Steps, Step + 1);
    PrevI = I;
    PrevJ = J;
    Pos = Hi;
  }
  return Out;
}

/// L's blocks carrying Set and replacing (a result copied on).
StepList withContrib(const StepList &L, const RankSet &Set) {
  StepList Out;
  uint32_t Id = Out.addContrib(Set);
  llvm::SmallVector<Block, 4> Blocks;
  for (unsigned St = 0; St < L.numSteps(); ++St) {
    Out.newStep();
    for (const Op &O : L.step(St)) {
      Blocks.assign(L.blocks(O).begin(), L.blocks(O).end());
      for (Block &B : Blocks) {
        B.Reduce = false;
        B.Contrib = Id;
      }
      Out.addOp(O.Src, O.Dst, Blocks);
    }
  }
  return Out;
}

/// The swaps of atoms As (sorted by step) in ExSteps new steps of L: A's
/// member sends A's result (set IdA of L), B's member B's (IdB).
void appendSwaps(StepList &L, llvm::ArrayRef<Atom> As, uint32_t ExSteps,
                 uint64_t P, uint32_t IdA, uint32_t IdB) {
  size_t K = 0;
  for (uint32_t St = 0; St < ExSteps; ++St) {
    L.newStep();
    for (; K < As.size() && As[K].Step == St; ++K) {
      Block B;
      B.Lo = As[K].Lo;
      B.Hi = As[K].Hi;
      B.Contrib = IdA;
      L.addOp(As[K].A, Rank(P + As[K].B), B);
      B.Contrib = IdB;
      L.addOp(Rank(P + As[K].B), As[K].A, B);
    }
  }
}

class InterAllreduceKang final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-allreduce-kang"; }
  llvm::StringRef summary() const override {
    return "reduce-scatter in each group, swap of the pieces between the "
           "groups by Kang et al.'s cuts, allgather in each group";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterAllreduce};
  }
  /// With --reduce-scatter halving (the default for --op noncommutative).
  bool keepsRankOrder() const override { return true; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  /// Halving's lg p steps and Bruck's ceil(lg p) against the rings' p - 1
  /// each: the short vectors' forms (the rings move least data).
  std::vector<std::vector<std::string>> pricedVariants() const override {
    return {{"--intra", "bruck"},
            {"--reduce-scatter", "halving"},
            {"--reduce-scatter", "halving", "--intra", "bruck"}};
  }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto In = readInterInput(V, Collective::InterAllreduce);
    if (!In)
      return In.takeError();
    auto HalvingOr =
        groupReduceScatterHalving(V, ReduceScatterOpt, In->Commutative);
    if (!HalvingOr)
      return HalvingOr.takeError();
    bool Halving = *HalvingOr;
    IntraAlgorithm Intra = *intraOf(V); // declared with a default
    uint64_t P = In->P, Q = In->Q;
    if (Only && *Only >= P + Q)
      return optionError("p", formatv("rank {0} is not one of the p + q = "
                                      "{1} ranks",
                                      *Only, P + Q));
    // Ops: each group's reduce-scatter and allgather (p(p - 1) each for
    // the rings, about p lg p otherwise) and two per atom (< p + q); a
    // rank's part: a few per step.
    auto Phase = [&](uint64_t G, bool Ring) {
      return Ring ? G * (G - 1) : G * (ceilLog2(G) + 3);
    };
    uint64_t Est = Phase(P, !Halving) + Phase(Q, !Halving) +
                   Phase(P, Intra == IntraAlgorithm::Ring) +
                   Phase(Q, Intra == IntraAlgorithm::Ring) + 2 * (P + Q);
    if (Only)
      Est = 8 * (P + Q) + 64;
    if (auto E = checkOpBudget(id(), Est))
      return E;

    bool InA = Only && *Only < P, InB = Only && *Only >= P;
    RankSet SetA = ranksOf(0, Rank(P)), SetB = ranksOf(Rank(P), Rank(P + Q));

    // 1. Both groups reduce-scatter at once, B's over ranks P .. P + Q - 1
    // as it is built (no relabelling). A rank's part builds its group's
    // ops and only the steps of the other group's: from a rank past its
    // last (no ops: the ring interned p sets for a part it drops), or from
    // its rank 0's part.
    // A rank's list has room for its swaps and allgather from the start
    // (two ops a step; growing it copied the reduce-scatter's ops).
    Rank NoneA = Halving ? 0 : Rank(P), NoneB = Halving ? 0 : Rank(Q);
    auto Room = [&](uint64_t G) {
      return size_t(2 * intraAllgatherSteps(Intra, uint32_t(G)) + 8);
    };
    GroupPieces PA = groupReduceScatter(
        In->P, In->N, In->Elem, Halving,
        Only ? std::optional<Rank>(InA ? *Only : NoneA) : std::nullopt, 0,
        Room(P));
    GroupPieces PB = groupReduceScatter(
        In->Q, In->N, In->Elem, Halving,
        Only ? std::optional<Rank>(InB ? *Only - P : NoneB) : std::nullopt,
        Rank(P), Room(Q));
    StepList L;
    if (Only) {
      // One group's ops, the other's steps only counted.
      unsigned Steps = std::max(PA.Steps.numSteps(), PB.Steps.numSteps());
      L = InA ? std::move(PA.Steps) : std::move(PB.Steps);
      while (L.numSteps() < Steps)
        L.newStep();
    } else {
      L = std::move(PA.Steps);
      StepList B = std::move(PB.Steps); // freed once merged
      L.mergeAlongside(B);
    }

    // 2. The owners of each atom swap it (a rank's part: its own atoms).
    uint32_t ExSteps = 0;
    std::vector<Atom> As = atoms(PA, PB, In->N, ExSteps, Only, P);
    llvm::stable_sort(
        As, [](const Atom &X, const Atom &Y) { return X.Step < Y.Step; });
    // 3. Each group allgathers the other's result over its pieces, both
    // at once (members in the order of their pieces).
    auto Allgather = [&](const GroupPieces &G, Rank Base) {
      std::vector<Rank> Map(G.Order.size());
      for (size_t X = 0; X < G.Order.size(); ++X)
        Map[X] = Base + G.Order[X];
      StepList S = intraAllgatherv(Intra, G.Counts);
      S.dropEmptySteps();
      return S.relabeled(Map);
    };
    if (!Only) {
      StepList Ex;
      uint32_t IdA = Ex.addContrib(SetA), IdB = Ex.addContrib(SetB);
      appendSwaps(Ex, As, ExSteps, P, IdA, IdB);
      L.append(std::move(Ex));
      StepList Final = withContrib(Allgather(PA, 0), SetB);
      Final.mergeAlongside(withContrib(Allgather(PB, Rank(P)), SetA));
      L.append(std::move(Final));
      L.dropEmptySteps();
    } else {
      // A rank's part: its group's allgather (the other's steps counted)
      // appended to the list with the ranks and the set in place: no
      // part of its own, no relabelled copy, no copy with the set. Every
      // step carries every member's piece, none when the vector is empty
      // (the whole drops them).
      const GroupPieces &Own = InA ? PA : PB;
      Rank Base = InA ? 0 : Rank(P);
      uint32_t Me = NoRank;
      for (size_t X = 0; X < Own.Order.size(); ++X)
        if (Base + Own.Order[X] == *Only)
          Me = uint32_t(X);
      uint32_t IdA = L.addContrib(SetA), IdB = L.addContrib(SetB);
      appendSwaps(L, As, ExSteps, P, IdA, IdB);
      if (In->N) {
        unsigned Before = L.numSteps();
        appendIntraAllgathervRank(
            L, Intra, Own.Counts, Me,
            [&](uint32_t X) { return Base + Own.Order[X]; }, InA ? IdB : IdA);
        unsigned Steps = std::max(intraAllgatherSteps(Intra, uint32_t(P)),
                                  intraAllgatherSteps(Intra, uint32_t(Q)));
        while (L.numSteps() < Before + Steps)
          L.newStep();
      }
    }

    Schedule S = interSchedule(Collective::InterAllreduce, *In);
    S.Steps = std::move(L);
    return S;
  }

  const Option<std::string> ReduceScatterOpt = groupReduceScatterOption();
  const std::vector<OptionDecl> Options = [this] {
    std::vector<OptionDecl> O = interOptions(Collective::InterAllreduce);
    O.push_back(ReduceScatterOpt);
    O.push_back(opt::intra({IntraAlgorithm::Ring, IntraAlgorithm::Bruck})
                    .withDefault("ring"));
    return O;
  }();
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterAllreduceKang() {
  return std::make_unique<InterAllreduceKang>();
}
