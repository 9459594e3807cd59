//===- studies/Compare.cpp - Algorithms side by side over message sizes ---===//
///
/// \file
/// The comparison study: every algorithm generated at every message size and
/// evaluated under one cost model (its chart is views/CompareChart.cpp).
///
//===----------------------------------------------------------------------===//

#include "studies/Compare.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace choreo;

namespace {

llvm::Error compareError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg.str());
}

uint64_t scaled(uint64_t V, uint64_t Size, uint64_t Max) {
  if (V == 0)
    return 0;
  unsigned __int128 X = (unsigned __int128)V * Size;
  uint64_t R = uint64_t((X + Max / 2) / Max);
  return std::max<uint64_t>(R, 1);
}

} // namespace

std::string choreo::sizeLabel(uint64_t Bytes) {
  const char *Suffix[] = {"", "K", "M", "G", "T"};
  unsigned I = 0;
  while (I < 4 && Bytes >= 1024 && Bytes % 1024 == 0) {
    Bytes /= 1024;
    ++I;
  }
  return std::to_string(Bytes) + Suffix[I];
}

llvm::Expected<GenParams> choreo::paramsForSize(const GenParams &Base,
                                                const Generator &G,
                                                uint64_t Size) {
  GenParams P = Base;
  std::optional<uint64_t> *Scalars[] = {&P.Bytes, &P.BytesA, &P.BytesB};
  std::optional<std::vector<uint64_t>> *Lists[] = {&P.Counts, &P.CountsA,
                                                   &P.CountsB};
  bool Any = false;
  uint64_t Max = 0;
  for (auto *V : Scalars)
    if (*V) {
      Any = true;
      Max = std::max(Max, **V);
    }
  for (auto *V : Lists)
    if (*V) {
      Any = true;
      for (uint64_t X : **V)
        Max = std::max(Max, X);
    }
  if (!Any) {
    const char *Names[] = {"bytes", "bytes-a", "bytes-b"};
    for (unsigned I = 0; I < 3; ++I)
      if (llvm::is_contained(G.options(), llvm::StringRef(Names[I]))) {
        *Scalars[I] = Size;
        P.Given.push_back(Names[I]);
      }
    return P;
  }
  if (Max == 0)
    return compareError("the size options give every process 0 bytes; "
                        "nothing to scale to the message sizes");
  for (auto *V : Scalars)
    if (*V)
      **V = scaled(**V, Size, Max);
  for (auto *V : Lists)
    if (*V)
      for (uint64_t &X : **V)
        X = scaled(X, Size, Max);
  return P;
}

llvm::Expected<CompareTable>
choreo::compareAlgorithms(const CompareSpec &Spec) {
  if (Spec.Algorithms.empty())
    return compareError("no algorithm to compare (see `choreo list`)");
  if (Spec.Sizes.empty())
    return compareError("--sizes: no message size");
  if (auto E = Spec.Model.check())
    return E;
  std::vector<const Generator *> Gens;
  for (const std::string &A : Spec.Algorithms) {
    const Generator *G = findGenerator(A);
    if (!G)
      return compareError("unknown algorithm '" + A + "' (see `choreo list`)");
    Gens.push_back(G);
  }
  CompareTable T;
  T.Algorithms = Spec.Algorithms;
  T.Sizes = Spec.Sizes;
  for (uint64_t Size : Spec.Sizes) {
    if (Size == 0)
      return compareError("--sizes: a message size of 0 bytes");
    std::vector<CompareCell> Row;
    for (const Generator *G : Gens) {
      auto P = paramsForSize(Spec.Base, *G, Size);
      if (!P)
        return P.takeError();
      auto CellError = [&](llvm::Error E) {
        return compareError(llvm::formatv("{0} at {1}: {2}", G->id(),
                                          sizeLabel(Size),
                                          llvm::toString(std::move(E))));
      };
      auto S = G->generate(*P);
      if (!S)
        return CellError(S.takeError());
      CostResult R = evaluateCost(*S, Spec.Model);
      if (auto E = checkFinite(R, Spec.Model))
        return CellError(std::move(E));
      Row.push_back({R.Async, R.Lockstep, S->Steps.numSteps()});
    }
    T.Cells.push_back(std::move(Row));
  }
  return T;
}
