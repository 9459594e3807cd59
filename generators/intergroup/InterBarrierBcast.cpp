//===- generators/intergroup/InterBarrierBcast.cpp - Intercomm barrier ----===//
///
/// \file
/// `inter-barrier-bcast`: what MPICH 4.0.2 runs for MPI_Barrier on an
/// intercommunicator (MPIR_Barrier_inter_bcast; MPI-4 6.3: a rank leaves
/// once every rank of the other group arrived). Each group runs its own
/// barrier (MPICH's dissemination, blocks of its buffer: "has arrived"),
/// then A's first rank tells B's first rank, which broadcasts it in B by
/// MPICH's binomial tree, and then the same from B to A: in the format's
/// layout, every rank of A ends knowing all of buffer B and every rank of
/// B all of buffer A. The messages carry no payload when run.
///
//===----------------------------------------------------------------------===//

#include "generators/barrier/Barrier.h"
#include "generators/intergroup/InterReduction.h"

#include <numeric>

using namespace choreo;

namespace {

/// Ranks Base..Base+N-1 and buffer Buf for a block's local ranks and
/// buffer 0.
StepList onGroup(StepList L, Rank Base, uint32_t N, BufferId Buf) {
  std::vector<Rank> Ranks(N);
  std::iota(Ranks.begin(), Ranks.end(), Base);
  BufferMap To;
  To.To = Buf;
  return std::move(L).relabeled(Ranks, {To});
}

/// The dissemination barrier's part over ranks Base .. Base + N - 1 (buffer
/// Buf): Me's ops, every round used (each has N ops); Me's none when it is
/// not in the group.
RankPart barrierPart(uint32_t N, Rank Base, BufferId Buf, Rank Me) {
  uint32_t Local = localOf(Me, Base, N);
  RankPart P;
  StepList L = disseminationBarrier(N, 2, Local == NoRank ? 0 : Local);
  P.Used.assign(L.numSteps(), true);
  if (Local == NoRank) {
    for (unsigned S = 0; S < L.numSteps(); ++S)
      P.Steps.newStep();
    return P;
  }
  P.Steps = std::move(L);
  return onGroupPart(P, Base, Buf);
}

class InterBarrierBcast final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-barrier-bcast"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's intercommunicator barrier: a barrier in each group, "
           "then a broadcast from A to B and one from B to A";
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
    if (auto E = checkOpBudget(id(), Only ? 0
                                          : disseminationBarrierOps(*P, 2) +
                                                disseminationBarrierOps(*Q, 2) +
                                                uint64_t(*P) + *Q))
      return E;
    Schedule S;
    S.Kind = Collective::InterBarrier;
    setIntergroup(S, std::vector<uint64_t>(*P, 1),
                  std::vector<uint64_t>(*Q, 1));
    if (Only) {
      // Each group's barrier (O(log n) ops of Me), the two sends and the two
      // binomial broadcasts' parts.
      Rank Me = *Only;
      RankPart Part = barrierPart(*P, 0, 0, Me);
      mergePartAlongside(Part, barrierPart(*Q, *P, 1, Me));
      Block ToB;
      ToB.Hi = *P;
      Part.append(onePart(0, *P, ToB, Me));
      Part.append(onGroupPart(
          binomialBcastRank(*Q, *P, 0, localOf(Me, *P, *Q)), *P, 0));
      Block ToA;
      ToA.Buf = 1;
      ToA.Hi = *Q;
      Part.append(onePart(*P, 0, ToA, Me));
      Part.append(onGroupPart(
          binomialBcastRank(*P, *Q, 0, localOf(Me, 0, *P)), 0, 1));
      return finishInterPart(std::move(S), std::move(Part), Me);
    }
    // Buffer A is 0, B is 1; B's ranks start at p.
    StepList L = onGroup(disseminationBarrier(*P, 2), 0, *P, 0);
    L.mergeAlongside(onGroup(disseminationBarrier(*Q, 2), *P, *Q, 1));
    addWhole(L, 0, *P, *P); // buffer A, [0, p)
    L.append(onGroup(binomialBcast(*Q, *P, 0), *P, *Q, 0));
    L.newStep();
    Block B;
    B.Buf = 1;
    B.Hi = *Q;
    L.addOp(*P, 0, B);
    L.append(onGroup(binomialBcast(*P, *Q, 0), 0, *P, 1));
    return finishInter(std::move(S), std::move(L), Only);
  }

  const std::vector<OptionDecl> Options = {opt::groupA(), opt::groupB()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterBarrierBcast() {
  return std::make_unique<InterBarrierBcast>();
}
