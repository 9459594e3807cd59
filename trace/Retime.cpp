//===- trace/Retime.cpp - As-soon-as-possible steps --------------------===//
///
/// \file
/// retimeAsap (trace/Retime.h): one pass over the ops in step order, each
/// rank's deliveries kept with their new steps.
///
//===----------------------------------------------------------------------===//

#include "trace/Retime.h"

#include <algorithm>
#include <map>

using namespace choreo;
using namespace choreo::trace;

namespace {

struct Delivery {
  BufferId Buf;
  uint64_t Lo, Hi;
  const RankSet *Set;
  uint32_t Step;
};

bool subset(const RankSet &A, const RankSet &B) {
  for (const Interval &I : A.intervals())
    if (!B.contains(I.Lo, I.Hi))
      return false;
  return true;
}

} // namespace

Schedule choreo::trace::retimeAsap(const Schedule &S) {
  if (S.Steps.numLattices()) { // lattice blocks: retimed as their ranges
    Schedule E = S;
    E.Steps.expandLattices();
    return retimeAsap(E);
  }
  bool Reduction = S.spec().isReduction();
  std::vector<std::map<BufferId, IntervalSet>> Initial(S.NumRanks);
  if (!Reduction)
    for (const Holding &H : S.spec().initialHoldings(S.header()))
      Initial[H.R][H.Buf].insert(H.Lo, H.Hi);
  std::vector<std::vector<Delivery>> Got(S.NumRanks);
  std::vector<int64_t> LastSend(S.NumRanks, -1), LastRecv(S.NumRanks, -1);
  struct Placed {
    uint32_t Step, Index;
    Op O;
  };
  std::vector<Placed> Ops;
  for (unsigned I = 0; I < S.Steps.numSteps(); ++I) {
    std::vector<std::pair<Rank, Delivery>> Arriving;
    for (const Op &O : S.Steps.step(I)) {
      int64_t Ready = 0;
      for (const Block &B : S.Steps.blocks(O))
        for (const Delivery &D : Got[O.Src]) {
          if (D.Buf != B.Buf || D.Hi <= B.Lo || B.Hi <= D.Lo)
            continue;
          bool Needed =
              Reduction
                  ? B.hasContrib() && subset(*D.Set, S.Steps.contrib(B.Contrib))
                  : !Initial[O.Src][B.Buf].contains(std::max(B.Lo, D.Lo),
                                                    std::min(B.Hi, D.Hi));
          if (Needed)
            Ready = std::max<int64_t>(Ready, D.Step + 1);
        }
      int64_t Step =
          std::max({Ready, LastSend[O.Src] + 1, LastRecv[O.Dst] + 1});
      LastSend[O.Src] = Step;
      LastRecv[O.Dst] = Step;
      Ops.push_back({uint32_t(Step), uint32_t(Ops.size()), O});
      for (const Block &B : S.Steps.blocks(O))
        Arriving.push_back(
            {O.Dst,
             {B.Buf, B.Lo, B.Hi,
              B.hasContrib() ? &S.Steps.contrib(B.Contrib) : nullptr,
              uint32_t(Step)}});
    }
    for (auto &[R, D] : Arriving)
      Got[R].push_back(D);
  }
  std::stable_sort(
      Ops.begin(), Ops.end(),
      [](const Placed &A, const Placed &B) { return A.Step < B.Step; });
  Schedule Out;
  Out.header() = S.header();
  Out.Algorithm = S.Algorithm;
  Out.Params = S.Params;
  uint32_t Last = UINT32_MAX;
  for (const Placed &P : Ops) {
    while (Last == UINT32_MAX || Last < P.Step) {
      Out.Steps.newStep();
      Last = Last == UINT32_MAX ? 0 : Last + 1;
    }
    llvm::SmallVector<Block, 4> Blocks;
    for (const Block &B : S.Steps.blocks(P.O)) {
      Block C = B;
      if (B.hasContrib())
        C.Contrib = Out.Steps.addContrib(S.Steps.contrib(B.Contrib));
      Blocks.push_back(C);
    }
    Out.Steps.addOp(P.O.Src, P.O.Dst, Blocks);
  }
  Out.Steps.dropEmptySteps();
  return Out;
}
