//===- tests/support/Generate.cpp - Schedules from argument text ----------===//
///
/// \file
/// Splits the argument text, parses it as `choreo gen` does and generates.
///
//===----------------------------------------------------------------------===//

#include "support/Generate.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <string>
#include <vector>

using namespace choreo;

llvm::Expected<Schedule> test::generateFromArgs(const Generator &G,
                                                llvm::StringRef Args) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::SplitString(Args, Parts);
  std::vector<std::string> V(Parts.begin(), Parts.end());
  auto P = parseGenArgs(V);
  if (!P)
    return P.takeError();
  return G.generate(*P);
}

std::optional<Schedule> test::tryGenerate(const Generator &G,
                                          llvm::StringRef Args) {
  auto S = generateFromArgs(G, Args);
  if (!S) {
    llvm::consumeError(S.takeError());
    return std::nullopt;
  }
  return std::move(*S);
}
