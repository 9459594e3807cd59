//===- ir/SubtreeFamily.cpp - Contributor sets named by a tree ------------===//

#include "ir/SubtreeFamily.h"

#include <algorithm>
#include <vector>

using namespace choreo;

SubtreeFamily::~SubtreeFamily() = default;

IntervalSet SubtreeFamily::expand(uint32_t T, Rank X) const {
  std::vector<Rank> Found{X}, Stack{X};
  llvm::SmallVector<Rank, 32> Kids;
  // The walk stops after numRanks() ranks: a family whose children cycle
  // would otherwise not end (the verifier refuses such a tree anyway).
  while (!Stack.empty() && Found.size() <= numRanks()) {
    Rank Y = Stack.back();
    Stack.pop_back();
    Kids.clear();
    children(T, Y, Kids);
    for (Rank C : Kids) {
      Found.push_back(C);
      Stack.push_back(C);
    }
  }
  std::sort(Found.begin(), Found.end());
  IntervalSet Out;
  for (size_t I = 0; I < Found.size();) {
    size_t J = I + 1;
    while (J < Found.size() && Found[J] <= Found[J - 1] + 1)
      ++J;
    Out.insert(Found[I], uint64_t(Found[J - 1]) + 1);
    I = J;
  }
  return Out;
}
