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

std::string choreo::rowLabel(const CompareTable &T, size_t Row) {
  return T.Over.empty() ? sizeLabel(T.Sizes[Row])
                        : std::to_string(T.Sizes[Row]);
}

llvm::Expected<OptionValues> choreo::paramsForSize(const OptionValues &Base,
                                                   const Generator &G,
                                                   uint64_t Size) {
  OptionValues P = Base;
  // A message size is a Size (one number) or a SizeList.
  auto ForEachSize = [&](auto Fn) {
    for (OptionEntry &E : P.entries())
      if (E.Given && E.Decl->isMessageSize()) {
        if (uint64_t *X = std::get_if<uint64_t>(&E.Value))
          Fn(*X);
        else if (auto *Xs = std::get_if<std::vector<uint64_t>>(&E.Value))
          for (uint64_t &X : *Xs)
            Fn(X);
      }
  };
  bool Any = false;
  uint64_t Max = 0;
  ForEachSize([&](uint64_t X) {
    Any = true;
    Max = std::max(Max, X);
  });
  if (!Any) {
    // Every member of each group G sizes contributes the message size.
    std::vector<SizedGroup> Done;
    for (const OptionDecl &D : G.options())
      if (D.isMessageSize() && D.Kind == OptionKind::Size &&
          !llvm::is_contained(Done, D.Sizes)) {
        P.set(D, Size);
        Done.push_back(D.Sizes);
      }
    return P;
  }
  if (Max == 0)
    return compareError("the size options give every process 0 bytes; "
                        "nothing to scale to the message sizes");
  ForEachSize([&](uint64_t &X) { X = scaled(X, Size, Max); });
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
  // ALGO:name=value:...: options of this column only (a B sweep compares
  // one generator with several block sizes).
  std::vector<OptionValues> Own;
  for (const std::string &A : Spec.Algorithms) {
    auto [Id, Rest] = llvm::StringRef(A).split(':');
    const Generator *G = findGenerator(Id);
    if (!G)
      return compareError("unknown algorithm '" + Id + "' (see `choreo list`)");
    Gens.push_back(G);
    std::vector<std::string> Args;
    while (!Rest.empty()) {
      auto [Opt, Tail] = Rest.split(':');
      Args.push_back("--" + Opt.str());
      Rest = Tail;
    }
    auto V = parseGenArgs(Args);
    if (!V)
      return compareError(A + ": " + llvm::toString(V.takeError()));
    Own.push_back(std::move(*V));
  }
  CompareTable T;
  T.Algorithms = Spec.Algorithms;
  T.Sizes = Spec.Sizes;
  T.Over = Spec.Over;
  const OptionDecl *OverDecl = nullptr;
  if (!Spec.Over.empty()) {
    for (const OptionDecl &D : allGenOptions())
      if (D.Name == Spec.Over)
        OverDecl = &D;
    if (!OverDecl || OverDecl->isMessageSize())
      return compareError("--over: '" + Spec.Over +
                          "' is not a generator option other than a message "
                          "size");
    if (Spec.Sizes.size() != 1)
      return compareError("--over: give one message size (--sizes S)");
    if (Spec.OverValues.empty())
      return compareError("--over: missing --values");
    T.Sizes = Spec.OverValues;
  }
  for (size_t RowIdx = 0; RowIdx < T.Sizes.size(); ++RowIdx) {
    uint64_t Size = OverDecl ? Spec.Sizes[0] : T.Sizes[RowIdx];
    if (Size == 0)
      return compareError("--sizes: a message size of 0 bytes");
    std::vector<CompareCell> Row;
    for (size_t K = 0; K < Gens.size(); ++K) {
      const Generator *G = Gens[K];
      auto P = paramsForSize(Spec.Base, *G, Size);
      if (!P)
        return P.takeError();
      for (const OptionEntry &E : Own[K].entries())
        P->set(*E.Decl, E.Value);
      if (OverDecl) {
        auto V = parseOptionValue(*OverDecl, std::to_string(T.Sizes[RowIdx]));
        if (!V)
          return V.takeError();
        P->set(*OverDecl, std::move(*V));
      }
      auto CellError = [&](llvm::Error E) {
        return compareError(llvm::formatv("{0} at {1}: {2}", G->id(),
                                          rowLabel(T, RowIdx),
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
