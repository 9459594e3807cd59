//===- ir/IntervalSet.cpp - Sets of half-open integer intervals -----------===//
///
/// \file
/// Sorted-vector implementation of IntervalSet: lookups are binary searches,
/// updates splice the affected runs.
///
//===----------------------------------------------------------------------===//

#include "ir/IntervalSet.h"

#include <algorithm>

using namespace choreo;

namespace {
/// First run whose Hi >= Lo (the first run that touches or follows Lo).
template <typename RunsT> auto firstTouching(RunsT &Runs, uint64_t Lo) {
  return std::lower_bound(
      Runs.begin(), Runs.end(), Lo,
      [](const Interval &R, uint64_t V) { return R.Hi < V; });
}
} // namespace

void IntervalSet::insert(uint64_t Lo, uint64_t Hi) {
  if (Hi <= Lo)
    return;
  // Fast path: appending after the last run (the common order of receipt).
  if (Runs.empty() || Runs.back().Hi < Lo) {
    Runs.push_back({Lo, Hi});
    return;
  }
  auto First = firstTouching(Runs, Lo);
  auto Last = First;
  while (Last != Runs.end() && Last->Lo <= Hi)
    ++Last;
  if (First == Last) {
    Runs.insert(First, {Lo, Hi});
    return;
  }
  uint64_t NewLo = std::min(Lo, First->Lo);
  uint64_t NewHi = std::max(Hi, (Last - 1)->Hi);
  *First = {NewLo, NewHi};
  Runs.erase(First + 1, Last);
}

void IntervalSet::insert(const IntervalSet &Other) {
  if (Other.Runs.empty())
    return;
  // A few runs, or all after ours: one at a time (appends are O(1)).
  if (Other.Runs.size() <= 4 || Runs.empty() ||
      Runs.back().Hi < Other.Runs.front().Lo) {
    for (const Interval &R : Other.Runs)
      insert(R.Lo, R.Hi);
    return;
  }
  // Else one merge of the two sorted lists, O(n + m): splicing run by run
  // moves the runs after each, O(n m) for interleaved sets (the subtrees a
  // circulant reduce unites).
  llvm::SmallVector<Interval, 1> Out;
  Out.reserve(Runs.size() + Other.Runs.size());
  auto Push = [&](const Interval &R) {
    if (!Out.empty() && Out.back().Hi >= R.Lo)
      Out.back().Hi = std::max(Out.back().Hi, R.Hi);
    else
      Out.push_back(R);
  };
  size_t I = 0, J = 0;
  while (I < Runs.size() || J < Other.Runs.size())
    Push(J == Other.Runs.size() ||
                 (I < Runs.size() && Runs[I].Lo <= Other.Runs[J].Lo)
             ? Runs[I++]
             : Other.Runs[J++]);
  Runs = std::move(Out);
}

void IntervalSet::erase(uint64_t Lo, uint64_t Hi) {
  if (Hi <= Lo)
    return;
  llvm::SmallVector<Interval, 1> Out;
  Out.reserve(Runs.size() + 1);
  for (const Interval &R : Runs) {
    if (R.Hi <= Lo || R.Lo >= Hi) {
      Out.push_back(R);
      continue;
    }
    if (R.Lo < Lo)
      Out.push_back({R.Lo, Lo});
    if (R.Hi > Hi)
      Out.push_back({Hi, R.Hi});
  }
  Runs = std::move(Out);
}

bool IntervalSet::contains(uint64_t Lo, uint64_t Hi) const {
  if (Hi <= Lo)
    return true;
  // The run containing Lo is the last run with run.Lo <= Lo.
  auto It =
      std::upper_bound(Runs.begin(), Runs.end(), Lo,
                       [](uint64_t V, const Interval &R) { return V < R.Lo; });
  if (It == Runs.begin())
    return false;
  --It;
  return It->Lo <= Lo && Hi <= It->Hi;
}

bool IntervalSet::intersects(uint64_t Lo, uint64_t Hi) const {
  if (Hi <= Lo)
    return false;
  auto It = firstTouching(Runs, Lo);
  // Skip a run that only touches Lo from the left (its Hi == Lo).
  if (It != Runs.end() && It->Hi == Lo)
    ++It;
  return It != Runs.end() && It->Lo < Hi;
}

bool IntervalSet::intersects(const IntervalSet &Other) const {
  size_t I = 0, J = 0;
  while (I < Runs.size() && J < Other.Runs.size()) {
    const Interval &A = Runs[I], &B = Other.Runs[J];
    if (A.Lo < B.Hi && B.Lo < A.Hi)
      return true;
    if (A.Hi <= B.Hi)
      ++I;
    else
      ++J;
  }
  return false;
}

IntervalSet IntervalSet::missingFrom(uint64_t Lo, uint64_t Hi) const {
  IntervalSet Out;
  uint64_t Cur = Lo;
  for (auto It = firstTouching(Runs, Lo); It != Runs.end() && It->Lo < Hi;
       ++It) {
    if (It->Lo > Cur)
      Out.Runs.push_back({Cur, It->Lo});
    Cur = std::max(Cur, It->Hi);
  }
  if (Cur < Hi)
    Out.Runs.push_back({Cur, Hi});
  return Out;
}

IntervalSet IntervalSet::clippedTo(uint64_t Lo, uint64_t Hi) const {
  IntervalSet Out;
  for (auto It = firstTouching(Runs, Lo); It != Runs.end() && It->Lo < Hi;
       ++It) {
    uint64_t L = std::max(Lo, It->Lo), H = std::min(Hi, It->Hi);
    if (L < H)
      Out.Runs.push_back({L, H});
  }
  return Out;
}

uint64_t IntervalSet::hash() const {
  uint64_t H = 0x9e3779b97f4a7c15ull;
  for (const Interval &I : Runs) {
    H = (H ^ I.Lo) * 0xff51afd7ed558ccdull;
    H = (H ^ I.Hi) * 0xc4ceb9fe1a85ec53ull;
    H ^= H >> 29;
  }
  return H;
}

uint64_t IntervalSet::cardinality() const {
  uint64_t N = 0;
  for (const Interval &R : Runs)
    N += R.size();
  return N;
}

std::string IntervalSet::str(llvm::StringRef Prefix) const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  bool First = true;
  for (const Interval &R : Runs) {
    if (!First)
      OS << ' ';
    First = false;
    OS << Prefix << '[' << R.Lo << ',' << R.Hi << ')';
  }
  return S;
}

std::string choreo::rankSetString(const IntervalSet &Ranks) {
  std::string S = "{";
  bool First = true;
  for (const Interval &R : Ranks.intervals()) {
    if (!First)
      S += ',';
    First = false;
    S += std::to_string(R.Lo);
    if (R.Hi - R.Lo > 1)
      S += "-" + std::to_string(R.Hi - 1);
  }
  return S + "}";
}
