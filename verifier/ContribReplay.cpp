//===- verifier/ContribReplay.cpp - Replay of contributor sets ------------===//
///
/// \file
/// The contributor tables, the per-rank segment maps with their step
/// semantics, and annotateContributors, the generators' use of them.
///
//===----------------------------------------------------------------------===//

#include "verifier/ContribReplay.h"

using namespace choreo;

ContribSets::~ContribSets() = default;

uint32_t ContribSets::unite(uint32_t A, uint32_t B) {
  RankSet U = get(A);
  U.insert(get(B));
  return intern(U);
}

uint32_t ContribTable::intern(const RankSet &S) {
  auto [It, New] = Index.try_emplace(S.str(), Sets.size());
  if (New)
    Sets.push_back(S);
  return It->second;
}

uint32_t ContribTable::unite(uint32_t A, uint32_t B) {
  uint64_t Key = (uint64_t(A) << 32) | B;
  auto It = Unions.find(Key);
  if (It != Unions.end())
    return It->second;
  uint32_t Id = ContribSets::unite(A, B);
  Unions[Key] = Id;
  return Id;
}

void ContribReplay::holdOwn(Rank R, uint64_t N) {
  auto &M = Held[R];
  M.clear();
  if (N == 0)
    return;
  M[0] = Sets.intern(RankSet(R, R + 1));
  M[N] = None;
}

void ContribReplay::forEachHeld(
    Rank R, uint64_t Lo, uint64_t Hi,
    llvm::function_ref<void(uint64_t, uint64_t, uint32_t)> F) const {
  const auto &M = Held[R];
  auto It = M.upper_bound(Lo);
  if (It == M.begin())
    return; // nothing held (keys start at 0)
  for (--It; It != M.end() && It->first < Hi;) {
    auto Next = std::next(It);
    if (Next == M.end())
      break;
    uint64_t A = std::max(Lo, It->first), Z = std::min(Hi, Next->first);
    if (A < Z && It->second != None)
      F(A, Z, It->second);
    It = Next;
  }
}

namespace {

/// Starts a segment at X (with the set of the one it cuts).
void split(std::map<uint64_t, uint32_t> &M, uint64_t X) {
  auto It = M.upper_bound(X);
  if (It == M.begin())
    return;
  --It;
  if (It->first != X)
    M[X] = It->second;
}

} // namespace

void ContribReplay::deliver(const Delivery &D, CombineHook OnCombine) {
  auto &M = Held[D.Dst];
  uint64_t Lo = D.B.Lo, Hi = D.B.Hi;
  if (M.empty() || Lo >= Hi)
    return;
  split(M, Lo);
  split(M, Hi);
  for (auto It = M.find(Lo); It != M.end() && It->first < Hi; ++It) {
    if (It->second == None)
      continue;
    if (!D.B.Reduce) {
      It->second = D.B.Contrib;
      continue;
    }
    if (OnCombine)
      OnCombine(D, It->first, std::next(It)->first, It->second);
    It->second = Sets.unite(It->second, D.B.Contrib);
  }
  // Merge equal neighbours around the range.
  auto It = M.find(Lo);
  if (It != M.begin())
    --It;
  while (It != M.end()) {
    auto Next = std::next(It);
    if (Next == M.end() || It->first > Hi)
      break;
    if (Next->second == It->second && Next->second != None)
      M.erase(Next);
    else
      It = Next;
  }
}

void ContribReplay::endStep(CombineHook OnCombine) {
  for (const Delivery &D : Pending)
    deliver(D, OnCombine);
  Pending.clear();
}

StepList choreo::annotateContributors(const StepList &Raw, uint32_t P,
                                      uint64_t N) {
  StepList Out;
  if (N == 0 || P == 0)
    return Out;
  StepListContribs Sets(Out);
  ContribReplay State(P, Sets);
  for (Rank R = 0; R < P; ++R)
    State.holdOwn(R, N);
  llvm::SmallVector<Block, 4> Blocks;
  for (unsigned St = 0; St < Raw.numSteps(); ++St) {
    Out.newStep();
    for (const Op &O : Raw.step(St)) {
      Blocks.clear();
      for (const Block &B : Raw.blocks(O))
        State.forEachHeld(O.Src, B.Lo, B.Hi,
                          [&](uint64_t Lo, uint64_t Hi, uint32_t Set) {
                            Block C = B;
                            C.Lo = Lo;
                            C.Hi = Hi;
                            C.Contrib = Set;
                            Blocks.push_back(C);
                            State.send(O.Dst, C);
                          });
      Out.addOp(O.Src, O.Dst, Blocks);
    }
    State.endStep();
  }
  return Out;
}
