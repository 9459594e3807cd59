//===- trace/Compare.cpp - Op-for-op comparison of schedules -----------===//
///
/// \file
/// Ops as canonical strings ("3 -> 5  all[0,946)"), sorted per step, and
/// the symmetric difference of the two sides step by step.
///
//===----------------------------------------------------------------------===//

#include "trace/Compare.h"
#include "trace/Retime.h"

#include "ir/CollectiveSpec.h"
#include "ir/PairMatrix.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace choreo;
using namespace choreo::trace;
using llvm::formatv;

namespace {

/// One op: "src -> dst  blocks", blocks merged and sorted.
std::string opString(const Schedule &S, const Op &O) {
  struct Piece {
    BufferId Buf;
    uint64_t Lo, Hi;
    bool Reduce;
    std::string Set;
  };
  std::vector<Piece> Ps;
  for (const Block &B : S.Steps.blocks(O))
    S.Steps.forEachRange(B, [&](uint64_t Lo, uint64_t Hi) { // lattices: each run
      Ps.push_back(
          {B.Buf, Lo, Hi, B.Reduce,
           B.hasContrib() ? rankSetString(S.Steps.contrib(B.Contrib)) : ""});
    });
  std::sort(Ps.begin(), Ps.end(), [](const Piece &A, const Piece &B) {
    return std::tie(A.Buf, A.Lo) < std::tie(B.Buf, B.Lo);
  });
  std::vector<Piece> Merged;
  for (const Piece &P : Ps)
    if (!Merged.empty() && Merged.back().Buf == P.Buf &&
        Merged.back().Hi == P.Lo && Merged.back().Reduce == P.Reduce &&
        Merged.back().Set == P.Set)
      Merged.back().Hi = P.Hi;
    else
      Merged.push_back(P);
  std::string Out = formatv("{0} -> {1} ", O.Src, O.Dst).str();
  for (const Piece &P : Merged) {
    Out += formatv(" {0}[{1},{2})", S.spec().bufferName(P.Buf), P.Lo, P.Hi);
    if (!P.Set.empty())
      Out += (P.Reduce ? " +" : " =") + P.Set;
  }
  return Out;
}

std::vector<std::vector<std::string>> canonical(const Schedule &S) {
  std::vector<std::vector<std::string>> Out;
  for (unsigned I = 0; I < S.Steps.numSteps(); ++I) {
    std::vector<std::string> Ops;
    for (const Op &O : S.Steps.step(I))
      Ops.push_back(opString(S, O));
    std::sort(Ops.begin(), Ops.end());
    Out.push_back(std::move(Ops));
  }
  return Out;
}

std::string callDifference(const Schedule &A, const Schedule &B) {
  if (A.Kind != B.Kind)
    return formatv("the collectives differ ({0}, {1})", collectiveName(A.Kind),
                   collectiveName(B.Kind));
  if (A.NumRanks != B.NumRanks)
    return formatv("the rank counts differ ({0}, {1})", A.NumRanks, B.NumRanks);
  if (specOf(A.Kind).Data == DataKind::Alltoall) {
    // The same blocks in either form (sizes.block, or a matrix of entries
    // alike: a trace records the matrix, --bytes builds the block).
    PairMatrix MA(A), MB(B);
    for (Rank I = 0; I < MA.ranks(); ++I)
      for (Rank J = 0; J < MA.ranks(); ++J)
        if (MA.size(I, J) != MB.size(I, J))
          return formatv("the sizes differ (block ({0}, {1}): {2} and {3} "
                         "bytes)",
                         I, J, MA.size(I, J), MB.size(I, J));
  } else if (A.Sizes.size() != B.Sizes.size() ||
             !std::equal(A.Sizes.begin(), A.Sizes.end(), B.Sizes.begin(),
                         [](const NamedSizes &X, const NamedSizes &Y) {
                           return X.Name == Y.Name && X.Values == Y.Values;
                         })) {
    return "the sizes differ";
  }
  if (A.Root != B.Root)
    return "the roots differ";
  if (A.commutative() != B.commutative())
    return "one operator commutes, the other does not";
  return "";
}

} // namespace

Comparison choreo::trace::compareSchedules(const Schedule &A,
                                           llvm::StringRef NameA,
                                           const Schedule &B,
                                           llvm::StringRef NameB,
                                           size_t MaxDifferences) {
  Comparison C;
  std::string Why = callDifference(A, B);
  if (!Why.empty()) {
    C.Lines.push_back(
        formatv("{0} and {1} are not the same call: {2}", NameA, NameB, Why));
    return C;
  }
  C.SameCall = true;
  auto CA = canonical(A), CB = canonical(B);
  std::multiset<std::string> AllA, AllB;
  for (auto &S : CA)
    AllA.insert(S.begin(), S.end());
  for (auto &S : CB)
    AllB.insert(S.begin(), S.end());
  C.Equal = CA == CB;
  C.SameMessages = AllA == AllB;
  std::string Counts =
      formatv("{0}: {1} steps, {2} ops; {3}: {4} steps, {5} ops", NameA,
              CA.size(), AllA.size(), NameB, CB.size(), AllB.size());
  if (C.Equal) {
    C.Lines.push_back("equal op for op (" + Counts + ")");
    return C;
  }
  auto RA = canonical(retimeAsap(A)), RB = canonical(retimeAsap(B));
  C.EqualAsap = RA == RB;
  C.Lines.push_back((C.EqualAsap
                         ? "equal once both are retimed as soon as possible ("
                     : C.SameMessages ? "the same messages in other steps ("
                                      : "different messages (") +
                    Counts + ")");
  size_t Shown = 0;
  for (size_t I = 0; I < std::max(CA.size(), CB.size()); ++I) {
    std::vector<std::string> OnlyA, OnlyB;
    static const std::vector<std::string> None;
    const auto &XA = I < CA.size() ? CA[I] : None;
    const auto &XB = I < CB.size() ? CB[I] : None;
    std::set_difference(XA.begin(), XA.end(), XB.begin(), XB.end(),
                        std::back_inserter(OnlyA));
    std::set_difference(XB.begin(), XB.end(), XA.begin(), XA.end(),
                        std::back_inserter(OnlyB));
    for (const std::string &Op : OnlyA)
      if (Shown++ < MaxDifferences)
        C.Lines.push_back(formatv("step {0}: only in {1}: {2}", I, NameA, Op));
    for (const std::string &Op : OnlyB)
      if (Shown++ < MaxDifferences)
        C.Lines.push_back(formatv("step {0}: only in {1}: {2}", I, NameB, Op));
  }
  if (Shown > MaxDifferences)
    C.Lines.push_back(
        formatv("... and {0} more differences", Shown - MaxDifferences));
  return C;
}
