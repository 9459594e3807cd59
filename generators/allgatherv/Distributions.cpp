//===- generators/allgatherv/Distributions.cpp - Seed 003's sizes ---------===//
///
/// \file
/// The distributions of seed 003, Section 3, as per-process byte counts.
///
//===----------------------------------------------------------------------===//

#include "generators/allgatherv/Distributions.h"

#include "options/Option.h"
#include "ir/StepList.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace choreo;

namespace {
const llvm::StringRef Names[] = {"regular",  "broadcast",  "spike",
                                 "half-full", "decreasing", "geometric"};

using u128 = unsigned __int128;

llvm::Error tooLarge() {
  return optionError("base", "the sizes add up past 2^64 bytes");
}
} // namespace

llvm::ArrayRef<llvm::StringRef> choreo::distributionNames() { return Names; }

std::optional<Distribution> choreo::distributionByName(llvm::StringRef Name) {
  for (size_t I = 0; I < std::size(Names); ++I)
    if (Names[I] == Name)
      return static_cast<Distribution>(I);
  return std::nullopt;
}

llvm::Expected<std::vector<uint64_t>>
choreo::distributionSizes(Distribution D, uint32_t P, uint64_t C) {
  std::vector<u128> M(P, 0);
  switch (D) {
  case Distribution::Regular: // m_i = c
    for (u128 &X : M)
      X = C;
    break;
  case Distribution::Broadcast: // m_0 = c, the others 0
    M[0] = C;
    break;
  case Distribution::Spike: // m_0 = c/2, m_i = c/(2(p-1)): m = c
    if (P == 1) {
      M[0] = C;
      break;
    }
    M[0] = C - C / 2;
    for (uint32_t I = 1; I < P; ++I)
      M[I] = partStart(C / 2, P - 1, I) - partStart(C / 2, P - 1, I - 1);
    break;
  case Distribution::HalfFull: // m_{2 floor(i/2)} = 2c, m_{2 floor(i/2)+1} = 0
    for (uint32_t I = 0; I < P; I += 2)
      M[I] = u128(2) * C;
    break;
  case Distribution::Decreasing: // m_i = 2c (p-1-i)/(p-1)
    if (P == 1) {
      M[0] = C;
      break;
    }
    for (uint32_t I = 0; I < P; ++I)
      M[I] = u128(2) * C * (P - 1 - I) / (P - 1);
    break;
  case Distribution::Geometric: { // m_{i-1+j} = c p/(i log p), i = 1, 2, 4..
    if (P == 1) {
      M[0] = C;
      break;
    }
    long double Log = std::log2((long double)P);
    for (uint32_t R = 0; R < P; ++R) {
      unsigned K = 0;
      while ((uint64_t(2) << K) <= uint64_t(R) + 1)
        ++K;
      long double V = (long double)C * P / (std::ldexp(1.0L, K) * Log);
      if (V >= 18446744073709551616.0L)
        return tooLarge();
      M[R] = static_cast<u128>(std::floor(V));
    }
    break;
  }
  }
  std::vector<uint64_t> Out(P);
  u128 Sum = 0;
  for (uint32_t I = 0; I < P; ++I) {
    Sum += M[I];
    if (M[I] > UINT64_MAX || Sum > UINT64_MAX)
      return tooLarge();
    Out[I] = static_cast<uint64_t>(M[I]);
  }
  return Out;
}
