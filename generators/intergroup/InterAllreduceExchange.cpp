//===- generators/intergroup/InterAllreduceExchange.cpp - Intercomm allreduce
//-===//
///
/// \file
/// `inter-allreduce-exchange`: the allreduce MPICH runs on an
/// intercommunicator (MPIR_Allreduce_inter_reduce_exchange_bcast): each
/// group reduces to its first rank with the binomial tree, both at once
/// (rank order kept); the two first ranks exchange their groups' results
/// in one step; each broadcasts what it got in its own group with MPICH's
/// intragroup broadcast, both at once.
///
//===----------------------------------------------------------------------===//

#include "generators/intergroup/InterReduction.h"

using namespace choreo;

namespace {

class InterAllreduceExchange final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-allreduce-exchange"; }
  llvm::StringRef summary() const override {
    return "MPICH's intercommunicator allreduce: reduce in each group, "
           "exchange between the first ranks, broadcast in each group";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterAllreduce};
  }
  bool keepsRankOrder() const override { return true; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto In = readInterInput(V, Collective::InterAllreduce);
    if (!In)
      return In.takeError();
    // Whole: two binomial reduces (p - 1 and q - 1 ops), the exchange, and
    // MPICH's broadcast in each group; a rank's part: the reduce's and the
    // broadcast's (a ring's 2(n - 1) ops at most) and the exchange.
    uint64_t Big = std::max(In->P, In->Q);
    if (auto E = checkOpBudget(id(), Only ? 4 * (Big + 64)
                                          : uint64_t(In->P) + In->Q + 2 +
                                                mpichBcastOps(In->P, In->N) +
                                                mpichBcastOps(In->Q, In->N)))
      return E;
    Rank A0 = 0, B0 = In->P;
    RankSet A = ranksOf(0, In->P), B = ranksOf(In->P, In->P + In->Q);
    if (Only) {
      Rank Me = *Only;
      RankPart Part = groupReducePart(A0, In->P, In->N, Me);
      mergePartAlongside(Part, groupReducePart(B0, In->Q, In->N, Me));
      RankPart X;
      X.Steps.newStep();
      X.Used.push_back(In->N > 0);
      if (In->N && (Me == A0 || Me == B0)) {
        Block ToB, ToA;
        ToB.Hi = ToA.Hi = In->N;
        ToB.Contrib = X.Steps.addContrib(A);
        ToA.Contrib = X.Steps.addContrib(B);
        X.Steps.addOp(A0, B0, ToB);
        X.Steps.addOp(B0, A0, ToA);
      }
      Part.append(std::move(X));
      RankPart Bcast = groupBcastPart(A0, In->P, In->N, Me, &B);
      mergePartAlongside(Bcast, groupBcastPart(B0, In->Q, In->N, Me, &A));
      Part.append(std::move(Bcast));
      return finishInterPart(interSchedule(Collective::InterAllreduce, *In),
                             std::move(Part), Me);
    }
    // Both groups reduce to their first rank at once.
    StepList L = groupReduce(A0, In->P, In->N);
    L.mergeAlongside(groupReduce(B0, In->Q, In->N));
    // The first ranks exchange their groups' results.
    L.newStep();
    if (In->N) {
      Block ToB, ToA;
      ToB.Hi = ToA.Hi = In->N;
      ToB.Contrib = L.addContrib(A);
      ToA.Contrib = L.addContrib(B);
      L.addOp(A0, B0, ToB);
      L.addOp(B0, A0, ToA);
    }
    // Each broadcasts the other group's result in its group, at once.
    StepList Bcast = groupBcast(A0, In->P, In->N, &B);
    Bcast.mergeAlongside(groupBcast(B0, In->Q, In->N, &A));
    L.append(std::move(Bcast));
    return finishInter(interSchedule(Collective::InterAllreduce, *In),
                       std::move(L), Only);
  }

  const std::vector<OptionDecl> Options =
      interOptions(Collective::InterAllreduce);
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterAllreduceExchange() {
  return std::make_unique<InterAllreduceExchange>();
}
