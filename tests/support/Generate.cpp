//===- tests/support/Generate.cpp - Schedules from argument text ----------===//
///
/// \file
/// Splits the argument text, parses it as `choreo gen` does and generates;
/// the job tests' corpus.
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

std::vector<std::pair<std::string, Schedule>> test::jobCorpus(int N) {
  std::string P = std::to_string(N), A = std::to_string(N - N / 3),
              B = std::to_string(N / 3), Counts;
  for (int R = 0; R < N; ++R)
    Counts += (R ? "," : "") + std::to_string((R * 7) % 5 * 8);
  std::vector<std::string> Args = {
      "--p " + P + " --bytes 48",
      "--p " + P + " --bytes 96 --root " + std::to_string(N - 1),
      "--p " + P + " --counts " + Counts,
      "--p " + P + " --bytes 64 --op noncommutative",
      "--p " + P + " --bytes 80 --element-bytes 8 --root 1",
      "--p " + A + " --q " + B + " --bytes-a 64 --bytes-b 32",
  };
  std::vector<std::pair<std::string, Schedule>> Out;
  for (const Generator *G : allGenerators())
    for (const std::string &X : Args)
      if (auto S = tryGenerate(*G, X); S && S->NumRanks == Rank(N))
        Out.push_back({G->id().str() + " " + X, std::move(*S)});
  return Out;
}
