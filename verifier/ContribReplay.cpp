//===- verifier/ContribReplay.cpp - Replay of contributor sets ------------===//
///
/// \file
/// The contributor tables, the per-rank segment maps with their step
/// semantics, and annotateContributors, the generators' use of them.
///
//===----------------------------------------------------------------------===//

#include "verifier/ContribReplay.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

#include <map>

#include <algorithm>

using namespace choreo;

ContribSets::~ContribSets() = default;

uint32_t ContribSets::unite(uint32_t A, uint32_t B) {
  RankSet U = get(A);
  U.insert(get(B));
  return intern(U);
}

//===----------------------------------------------------------------------===//
// Sets named by subtrees (docs/distributed-proof.md, "Contributor sets named
// by a subtree")
//===----------------------------------------------------------------------===//

/// A union of one tree's subtrees and at most one rank of its own:
/// {Own} u S(r, Tree) for r in Roots (Own NoRank: none; Roots sorted). The
/// table makes one only from parts it proved disjoint, and keeps it
/// canonical: Own is not a leaf and not every child of Own is in Roots
/// (else S(Own) replaces them). Two such unions of one tree are then equal
/// sets iff they are equal (the maximal subtrees a union contains are its
/// Roots, and Own is the one rank no subtree of it covers).
struct ContribTable::Subtrees {
  static constexpr Rank NoRank = ~0u;
  static constexpr uint32_t AnyTree = ~0u;
  struct Union {
    uint32_t Tree = AnyTree;
    Rank Own = NoRank;
    llvm::SmallVector<Rank, 4> Roots;
  };
  explicit Subtrees(const SubtreeFamily &F) : F(F) {}

  const SubtreeFamily &F;
  /// The table's own unions, by id.
  llvm::DenseMap<uint32_t, Union> Own;
  /// The unions by their canonical key (tree, own, roots).
  std::map<std::vector<uint32_t>, uint32_t> Ids;
  /// Per (tree, rank): its chain of parents to the root (empty: the chain
  /// breaks the family's contract: a time not decreasing, or no parent
  /// before the root) and its children.
  mutable llvm::DenseMap<uint64_t, llvm::SmallVector<Rank, 8>> Chains, Kids;
  mutable llvm::DenseMap<uint32_t, std::unique_ptr<RankSet>> Expanded;
  mutable size_t Expansions = 0;

  static uint64_t key(uint32_t T, Rank X) { return uint64_t(T) << 32 | X; }

  const llvm::SmallVector<Rank, 8> &chain(uint32_t T, Rank X) const {
    auto [It, New] = Chains.try_emplace(key(T, X));
    if (!New)
      return It->second;
    llvm::SmallVector<Rank, 8> C{X};
    Rank At = X;
    bool Ok = true;
    for (uint32_t Hops = 0;; ++Hops) {
      std::optional<Rank> Up = F.parent(T, At);
      if (!Up) {
        Ok = At == F.root(T);
        break;
      }
      if (Hops >= F.numRanks() || *Up >= F.numRanks() ||
          F.time(T, *Up) >= F.time(T, At)) {
        Ok = false;
        break;
      }
      C.push_back(*Up);
      At = *Up;
    }
    if (!Ok)
      C.clear();
    auto &Slot = Chains[key(T, X)];
    Slot = std::move(C);
    return Slot;
  }

  const llvm::SmallVector<Rank, 8> &children(uint32_t T, Rank X) const {
    auto [It, New] = Kids.try_emplace(key(T, X));
    if (New) {
      llvm::SmallVector<Rank, 32> C;
      F.children(T, X, C);
      std::sort(C.begin(), C.end());
      It->second.assign(C.begin(), C.end());
    }
    return It->second;
  }

  /// Whether A lies on B's chain (B in S(A)); none if B's chain breaks.
  std::optional<bool> above(uint32_t T, Rank A, Rank B) const {
    const auto &C = chain(T, B);
    if (C.empty())
      return std::nullopt;
    return llvm::is_contained(C, A);
  }

  /// Whether the unions (of tree T) have no rank in common.
  std::optional<bool> disjoint(uint32_t T, const Union &X,
                               const Union &Y) const {
    auto Atoms = [](const Union &U) {
      llvm::SmallVector<std::pair<Rank, bool>, 8> A; // (rank, subtree)
      if (U.Own != NoRank)
        A.push_back({U.Own, false});
      for (Rank R : U.Roots)
        A.push_back({R, true});
      return A;
    };
    for (auto [A, ASub] : Atoms(X))
      for (auto [B, BSub] : Atoms(Y)) {
        if (A == B)
          return false;
        // S(A) meets {B} iff A is above B; S(A) meets S(B) iff either is
        // above the other; {A} and {B} never (A != B).
        if (ASub) {
          std::optional<bool> Up = above(T, A, B);
          if (!Up)
            return std::nullopt;
          if (*Up)
            return false;
        }
        if (BSub) {
          std::optional<bool> Up = above(T, B, A);
          if (!Up)
            return std::nullopt;
          if (*Up)
            return false;
        }
      }
    return true;
  }

  /// U made canonical (its parts disjoint).
  void canonical(Union &U) const {
    std::sort(U.Roots.begin(), U.Roots.end());
    if (U.Own == NoRank)
      return;
    const auto &C = children(U.Tree, U.Own);
    bool All = llvm::all_of(C, [&](Rank K) {
      return std::binary_search(U.Roots.begin(), U.Roots.end(), K);
    });
    if (!All)
      return;
    llvm::erase_if(U.Roots, [&](Rank K) {
      return std::binary_search(C.begin(), C.end(), K);
    });
    U.Roots.insert(llvm::upper_bound(U.Roots, U.Own), U.Own);
    U.Own = NoRank;
  }

  /// Whether canonical U is every rank: the root's subtree (every rank
  /// once every rank's chain ends at the root, which the local checks of
  /// all ranks prove together).
  bool isAll(const Union &U) const {
    return U.Own == NoRank && U.Roots.size() == 1 &&
           U.Roots[0] == F.root(U.Tree);
  }

  /// Set Id of table Tb as a union, when the trees decide it: a name, a
  /// union the table made, or a set of one rank (of no tree yet).
  std::optional<Union> view(const ContribTable &Tb, uint32_t Id) const {
    if (Id == ~0u)
      return std::nullopt;
    if (Id < Tb.NumBase) {
      if (std::optional<SubtreeName> N = Tb.Base->subtree(Id))
        return Union{N->Tree, NoRank, {N->Of}};
    } else if (auto It = Own.find(Id); It != Own.end()) {
      return It->second;
    }
    const RankSet &R = Id < Tb.NumBase ? Tb.Base->contrib(Id)
                                       : Tb.Sets[Id - Tb.NumBase];
    if (R.numIntervals() == 1 && R.intervals()[0].size() == 1)
      return Union{AnyTree, Rank(R.intervals()[0].Lo), {}};
    return std::nullopt;
  }

  /// X and Y in one tree (a set of one rank takes the other's), or none.
  std::optional<uint32_t> treeOf(const Union &X, const Union &Y) const {
    if (X.Tree == AnyTree)
      return Y.Tree == AnyTree ? std::nullopt : std::optional(Y.Tree);
    if (Y.Tree != AnyTree && Y.Tree != X.Tree)
      return std::nullopt;
    return X.Tree;
  }

  /// A set of one rank as a canonical union of tree T.
  Union in(uint32_t T, Union U) const {
    U.Tree = T;
    if (U.Own != NoRank && children(T, U.Own).empty()) {
      U.Roots.assign(1, U.Own);
      U.Own = NoRank;
    }
    return U;
  }

  std::vector<uint32_t> keyOf(const Union &U) const {
    std::vector<uint32_t> K{U.Tree, U.Own};
    K.insert(K.end(), U.Roots.begin(), U.Roots.end());
    return K;
  }
};

ContribTable::ContribTable(const StepList &Base, bool ByStructure)
    : Base(&Base), NumBase(Base.numContribs()), ByStructure(ByStructure) {
  if (Base.hasSubtrees() && Base.family()) {
    Sub = std::make_unique<Subtrees>(*Base.family());
    Fresh = true; // a name and a list of the same ranks have two ids
  }
}
ContribTable::ContribTable() = default;
ContribTable::~ContribTable() = default;
ContribTable::ContribTable(ContribTable &&) noexcept = default;
ContribTable &ContribTable::operator=(ContribTable &&) noexcept = default;

bool ContribTable::isNamed(uint32_t Id) const {
  if (Id == ~0u)
    return false;
  return Id < NumBase ? Base->subtree(Id).has_value() : Sub->Own.count(Id);
}

std::optional<uint32_t> ContribTable::findName(const SubtreeName &N) const {
  return Base ? Base->findSubtree(N) : std::nullopt;
}

size_t ContribTable::expansions() const { return Sub ? Sub->Expansions : 0; }

const RankSet &ContribTable::expanded(uint32_t Id) const {
  auto [It, New] = Sub->Expanded.try_emplace(Id);
  if (!New)
    return *It->second;
  ++Sub->Expansions;
  RankSet R;
  if (Id < NumBase) {
    SubtreeName N = *Base->subtree(Id);
    R = Sub->F.expand(N.Tree, N.Of);
  } else {
    const Subtrees::Union &U = Sub->Own.find(Id)->second;
    if (U.Own != Subtrees::NoRank)
      R.insert(U.Own, uint64_t(U.Own) + 1);
    for (Rank X : U.Roots)
      R.insert(Sub->F.expand(U.Tree, X));
  }
  // The map may have grown meanwhile: look the slot up again.
  auto &Slot = Sub->Expanded[Id];
  Slot = std::make_unique<RankSet>(std::move(R));
  return *Slot;
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

bool ContribTable::sameSets(uint32_t A, uint32_t B) const {
  if (Sub && ByStructure && (isNamed(A) || isNamed(B))) {
    std::optional<Subtrees::Union> X = Sub->view(*this, A),
                                   Y = Sub->view(*this, B);
    auto All = [&](uint32_t Id, const std::optional<Subtrees::Union> &U) {
      if (U)
        return U->Tree != Subtrees::AnyTree && Sub->isAll(*U);
      return !isNamed(Id) && get(Id) == RankSet(0, Sub->F.numRanks());
    };
    // Every rank is the root's subtree and nothing else (a union that
    // holds the root holds it as Own, short of a child, or as S(root)).
    bool AllA = All(A, X), AllB = All(B, Y);
    if (AllA || AllB)
      return AllA && AllB;
    if (X && Y)
      if (std::optional<uint32_t> T = Sub->treeOf(*X, *Y)) {
        Subtrees::Union U = Sub->in(*T, *X), V = Sub->in(*T, *Y);
        return U.Own == V.Own && U.Roots == V.Roots;
      }
  }
  return get(A) == get(B);
}

bool ContribTable::mergeable(uint32_t A, uint32_t B) const {
  if (A == B)
    return true;
  if (Sub && ByStructure && (isNamed(A) || isNamed(B))) {
    // Sets of two trees are compared only when cheap (both every rank, or
    // one of them): merging is a saving, not a verdict.
    std::optional<Subtrees::Union> X = Sub->view(*this, A),
                                   Y = Sub->view(*this, B);
    if (!X || !Y)
      return false;
    bool AllA = X->Tree != Subtrees::AnyTree && Sub->isAll(*X);
    bool AllB = Y->Tree != Subtrees::AnyTree && Sub->isAll(*Y);
    if (AllA || AllB)
      return AllA && AllB;
    if (!Sub->treeOf(*X, *Y))
      return false;
  }
  return same(A, B);
}

bool ContribTable::disjoint(uint32_t A, uint32_t B) const {
  if (Sub && ByStructure && (isNamed(A) || isNamed(B))) {
    std::optional<Subtrees::Union> X = Sub->view(*this, A),
                                   Y = Sub->view(*this, B);
    if (X && Y)
      if (std::optional<uint32_t> T = Sub->treeOf(*X, *Y))
        if (std::optional<bool> D = Sub->disjoint(*T, *X, *Y))
          return *D;
  }
  return ContribSets::disjoint(A, B);
}

uint32_t ContribTable::unite(uint32_t A, uint32_t B) {
  if (Sub && ByStructure && (isNamed(A) || isNamed(B))) {
    std::optional<Subtrees::Union> X = Sub->view(*this, A),
                                   Y = Sub->view(*this, B);
    std::optional<uint32_t> T;
    if (X && Y)
      T = Sub->treeOf(*X, *Y);
    if (T && !(X->Own != Subtrees::NoRank && Y->Own != Subtrees::NoRank)) {
      std::optional<bool> D = Sub->disjoint(*T, *X, *Y);
      if (D && *D) {
        Subtrees::Union U;
        U.Tree = *T;
        U.Own = X->Own != Subtrees::NoRank ? X->Own : Y->Own;
        U.Roots = X->Roots;
        U.Roots.append(Y->Roots.begin(), Y->Roots.end());
        Sub->canonical(U);
        if (U.Own == Subtrees::NoRank && U.Roots.size() == 1 &&
            U.Roots[0] < Sub->F.numRanks())
          if (std::optional<uint32_t> Name =
                  findName(SubtreeName{U.Tree, U.Roots[0]}))
            return *Name;
        auto [It, New] = Sub->Ids.try_emplace(Sub->keyOf(U), 0);
        if (!New)
          return It->second;
        uint32_t Id = NumBase + uint32_t(Sets.size());
        Sets.emplace_back(); // its ranks are expanded only when asked for
        NextSameHash.push_back(~0u);
        It->second = Id;
        Sub->Own.try_emplace(Id, std::move(U));
        return Id;
      }
    }
  }
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
    NextSameHash.push_back(Loose);
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

uint32_t ContribTable::uniteOwned(uint32_t A, uint32_t B) {
  // Only a union in no chain (a lookup never finds it) may change: ids of
  // such sets are compared as sets anyway (Fresh).
  if (!CacheUnions && !Sub && A != B && A != ~0u && B != ~0u &&
      A >= NumBase && A - NumBase < Sets.size() &&
      NextSameHash[A - NumBase] == Loose) {
    Sets[A - NumBase].insert(get(B)); // B is another set: no aliasing
    return A;
  }
  return unite(A, B);
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
    V[K].Set = Reuse && heldOnce(V[K].Set)
                   ? Sets.uniteOwned(V[K].Set, D.B.Contrib)
                   : Sets.unite(V[K].Set, D.B.Contrib);
  }
  // Merge equal neighbours around the range: segments First - 1 .. Last + 1.
  size_t From = First ? First - 1 : 0, To = std::min(Last + 1, V.size() - 1);
  size_t W = From;
  for (size_t K = From + 1; K <= To; ++K)
    if (V[K].Set == None || V[W].Set == None ||
        !Sets.mergeable(V[K].Set, V[W].Set))
      V[++W] = V[K];
  V.erase(V.begin() + W + 1, V.begin() + To + 1);
}

bool ContribReplay::heldOnce(uint32_t Set) const {
  constexpr size_t Limit = 64;
  size_t Seen = 0, Held1 = 0;
  for (const auto &V : Held) {
    Seen += V.size();
    if (Seen > Limit)
      return false;
    for (const Seg &S : V)
      Held1 += S.Set == Set;
  }
  if (Held1 != 1 || Pending.size() > Limit)
    return false;
  for (const Delivery &D : Pending)
    if (D.B.Contrib == Set)
      return false;
  return true;
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
