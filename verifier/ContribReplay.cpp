//===- verifier/ContribReplay.cpp - Replay of contributor sets ------------===//
///
/// \file
/// The contributor tables, the per-rank segment maps with their step
/// semantics, and annotateContributors, the generators' use of them.
///
//===----------------------------------------------------------------------===//

#include "verifier/ContribReplay.h"

#include "llvm/ADT/bit.h"

#include <algorithm>

using namespace choreo;

ContribSets::~ContribSets() = default;

uint32_t ContribSets::unite(uint32_t A, uint32_t B) {
  RankSet U = get(A);
  U.insert(get(B));
  return intern(U);
}

uint32_t ContribTable::intern(const RankSet &S) { return internAs(S, nullptr); }

uint32_t ContribTable::internAs(const RankSet &S, RankSet *Take) {
  // The intervals hashed in place (no text key: a string per set cost a
  // sixth of a ring's local check at p = 65,536).
  if (Base)
    if (std::optional<uint32_t> Known = Base->findContrib(S))
      return *Known;
  uint64_t H = S.hash();
  constexpr uint32_t End = ~0u;
  uint32_t Own = static_cast<uint32_t>(Sets.size());
  auto [It, New] = Heads.try_emplace(H, Own);
  if (!New) {
    for (uint32_t At = It->second; At != End; At = NextSameHash[At])
      if (Sets[At] == S)
        return NumBase + At;
    NextSameHash.push_back(It->second);
    It->second = Own;
  } else {
    NextSameHash.push_back(End);
  }
  if (Take)
    Sets.push_back(std::move(*Take));
  else
    Sets.push_back(S);
  return NumBase + Own;
}

uint32_t ContribTable::unite(uint32_t A, uint32_t B) {
  uint64_t Key = (uint64_t(A) << 32) | B;
  if (CacheUnions) {
    auto It = Unions.find(Key);
    if (It != Unions.end()) {
      ++UnionHits;
      return It->second;
    }
  }
  RankSet U = get(A);
  U.insert(get(B));
  if (!CacheUnions) {
    // Appended without a lookup: ids are no longer unique (same()).
    Fresh = true;
    uint32_t Own = static_cast<uint32_t>(Sets.size());
    Sets.push_back(std::move(U));
    NextSameHash.push_back(~0u);
    return NumBase + Own;
  }
  uint32_t Id = internAs(U, &U);
  Unions[Key] = Id;
  // Past 4096 pairs with hardly a hit (a ring: every union new), stop.
  if (Unions.size() >= 4096 && UnionHits * 16 < Unions.size()) {
    CacheUnions = false;
    Unions = llvm::DenseMap<uint64_t, uint32_t>();
  }
  return Id;
}

void ContribReplay::hold(Rank R, uint64_t N, uint32_t Set) {
  auto &V = Held[R];
  V.clear();
  if (N == 0)
    return;
  V.push_back({0, Set});
  V.push_back({N, None});
}

namespace {

/// The index of the segment holding byte X (V starts at 0, X >= 0).
template <typename SegT>
size_t segmentAt(const std::vector<SegT> &V, uint64_t X) {
  auto It =
      std::upper_bound(V.begin(), V.end(), X,
                       [](uint64_t X, const SegT &S) { return X < S.Lo; });
  return size_t(It - V.begin()) - 1;
}

/// Starts a segment at X (with the set of the one it cuts); its index.
template <typename SegT> size_t split(std::vector<SegT> &V, uint64_t X) {
  size_t K = segmentAt(V, X);
  if (V[K].Lo == X)
    return K;
  V.insert(V.begin() + K + 1, {X, V[K].Set});
  return K + 1;
}

} // namespace

void ContribReplay::forEachHeld(
    Rank R, uint64_t Lo, uint64_t Hi,
    llvm::function_ref<void(uint64_t, uint64_t, uint32_t)> F) const {
  const auto &V = Held[R];
  if (V.empty())
    return;
  for (size_t K = segmentAt(V, Lo); K + 1 < V.size() && V[K].Lo < Hi; ++K) {
    uint64_t A = std::max(Lo, V[K].Lo), Z = std::min(Hi, V[K + 1].Lo);
    if (A < Z && V[K].Set != None)
      F(A, Z, V[K].Set);
  }
}

void ContribReplay::deliver(const Delivery &D, CombineHook OnCombine) {
  auto &V = Held[D.Dst];
  uint64_t Lo = D.B.Lo, Hi = D.B.Hi;
  if (V.empty() || Lo >= Hi)
    return;
  size_t First = split(V, Lo), Last = split(V, Hi);
  for (size_t K = First; K < Last; ++K) {
    // An accumulator not yet written takes what arrives (nothing combines).
    if (!D.B.Reduce || V[K].Set == None) {
      V[K].Set = D.B.Contrib;
      continue;
    }
    if (OnCombine)
      OnCombine(D, V[K].Lo, V[K + 1].Lo, V[K].Set);
    V[K].Set = Sets.unite(V[K].Set, D.B.Contrib);
  }
  // Merge equal neighbours around the range: segments First - 1 .. Last + 1.
  size_t From = First ? First - 1 : 0, To = std::min(Last + 1, V.size() - 1);
  size_t W = From;
  for (size_t K = From + 1; K <= To; ++K)
    if (V[K].Set == None || !Sets.same(V[K].Set, V[W].Set))
      V[++W] = V[K];
  V.erase(V.begin() + W + 1, V.begin() + To + 1);
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

unsigned choreo::accumulatorsOf(const StepList &L) {
  unsigned N = 1;
  for (const Op &O : L.allOps())
    for (const Block &B : L.blocks(O)) {
      if (!B.Acc)
        continue;
      N = std::max(N, B.fromAcc() + 1);
      N = std::max(N, unsigned(llvm::bit_width(B.intoMask())));
    }
  return N;
}
