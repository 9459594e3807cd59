//===- cost/StepProfile.cpp - Lock-step time of composed blocks -----------===//
///
/// \file
/// A block's step profile, and the lock-step time of profiles alongside.
///
//===----------------------------------------------------------------------===//

#include "cost/StepProfile.h"

#include <algorithm>

using namespace choreo;

StepProfile choreo::stepProfile(const StepList &L) {
  StepProfile Max(L.numSteps(), -1);
  for (unsigned S = 0; S < L.numSteps(); ++S)
    for (const Op &O : L.step(S)) {
      uint64_t Bytes = 0;
      for (const Block &B : L.blocks(O))
        Bytes += L.bytes(B);
      Max[S] = std::max(Max[S], int64_t(Bytes));
    }
  return Max;
}

double choreo::alongsideLockstepTime(llvm::ArrayRef<const StepProfile *> Blocks,
                                     const CostModel &M) {
  size_t Steps = 0;
  for (const StepProfile *B : Blocks)
    Steps = std::max(Steps, B->size());
  double T = 0;
  for (size_t S = 0; S < Steps; ++S) {
    int64_t Max = -1;
    for (const StepProfile *B : Blocks)
      if (S < B->size())
        Max = std::max(Max, (*B)[S]);
    if (Max >= 0)
      T += M.StepStartup + M.transfer(uint64_t(Max), /*Bidirectional=*/true);
  }
  return T;
}
