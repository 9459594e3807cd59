//===- ir/PairMatrix.cpp - The blocks of an alltoall ----------------------===//
///
/// \file
/// Prefix sums over `sizes.pairs` (or the closed form of `sizes.block`) and
/// the lookups on them.
///
//===----------------------------------------------------------------------===//

#include "ir/PairMatrix.h"

#include <algorithm>
#include <optional>

using namespace choreo;

std::optional<uint64_t> choreo::uniformBlockOf(const CallHeader &H) {
  const std::vector<uint64_t> *B = H.sizes("block");
  if (!B || B->size() != 1)
    return std::nullopt;
  return B->front();
}

void choreo::setUniformBlock(CallHeader &H, uint64_t Bytes) {
  H.Sizes = {{"block", {Bytes}}};
}

PairMatrix PairMatrix::uniform(Rank P, uint64_t Bytes) {
  PairMatrix M;
  M.P = P;
  M.Uniform = true;
  M.Bytes = Bytes;
  return M;
}

PairMatrix::PairMatrix(const CallHeader &H) {
  const std::vector<uint64_t> *V = H.sizes("pairs");
  std::optional<uint64_t> B = uniformBlockOf(H);
  if (B && !V && H.NumRanks)
    *this = uniform(H.NumRanks, *B);
  else if (V && !H.sizes("block") && H.NumRanks &&
           V->size() == uint64_t(H.NumRanks) * H.NumRanks)
    *this = PairMatrix(H.NumRanks, *V);
}

PairMatrix::PairMatrix(Rank P, llvm::ArrayRef<uint64_t> Pairs)
    : P(P), Pairs(Pairs) {
  if (Pairs.size() != uint64_t(P) * P) {
    this->P = 0;
    this->Pairs = {};
    return;
  }
  Off.resize(Pairs.size() + 1, 0);
  for (size_t K = 0; K < Pairs.size(); ++K)
    Off[K + 1] = Off[K] + Pairs[K];
}

uint64_t PairMatrix::columnBytes(Rank J) const {
  if (Uniform)
    return uint64_t(P) * Bytes;
  uint64_t Sum = 0;
  for (Rank I = 0; I < P; ++I)
    Sum += size(I, J);
  return Sum;
}

std::pair<Rank, Rank> PairMatrix::blockAt(uint64_t X) const {
  size_t K;
  if (Uniform) {
    K = Bytes ? X / Bytes : 0;
    K = std::min<size_t>(K, size_t(P) * P - 1);
  } else {
    K = std::upper_bound(Off.begin(), Off.end(), X) - Off.begin() - 1;
    K = std::min(K, Pairs.size() - 1);
  }
  return {Rank(K / P), Rank(K % P)};
}

bool PairMatrix::offDiagonalEqual() const {
  if (Uniform)
    return true;
  std::optional<uint64_t> First;
  for (Rank I = 0; I < P; ++I)
    for (Rank J = 0; J < P; ++J) {
      if (I == J)
        continue;
      if (!First)
        First = size(I, J);
      else if (size(I, J) != *First)
        return false;
    }
  return true;
}

bool PairMatrix::allEqual() const {
  if (Uniform)
    return true;
  return std::all_of(Pairs.begin(), Pairs.end(),
                     [&](uint64_t X) { return X == Pairs.front(); });
}
