//===- verifier/ContribReplay.h - Replay of contributor sets ----*- C++ -*-===//
///
/// \file
/// The one replay of a reduction's contributor sets, shared by the
/// generators (annotateContributors writes on each raw block the set its
/// sender holds) and the explicit checker (which proves exactly-once and
/// operand order over the same state). Every rank holds a partition of its
/// vector into segments, each labelled with an interned contributor set;
/// the ops of a step read the state at the start of the step and their
/// deliveries apply at its end, in the order sent: a combining (`Reduce`)
/// block unites the receiver's set with its own, any other replaces it.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_CONTRIBREPLAY_H
#define CHOREO_VERIFIER_CONTRIBREPLAY_H

#include "ir/StepList.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace choreo {

/// Contributor sets interned by id.
class ContribSets {
public:
  virtual ~ContribSets();
  virtual uint32_t intern(const RankSet &S) = 0;
  virtual const RankSet &get(uint32_t Id) const = 0;
  /// The id of get(A) united with get(B); not cached here.
  virtual uint32_t unite(uint32_t A, uint32_t B);
  /// unite(A, B) for a caller whose reference to A is the only one: a
  /// table may put the union in A's place and return A (ContribTable, for
  /// the unions it appends past its cache).
  virtual uint32_t uniteOwned(uint32_t A, uint32_t B) { return unite(A, B); }

  /// Whether ids A and B name equal sets (~0u, no set, only itself). Ids
  /// are equal for equal sets until a table holds a set it did not look
  /// up (ContribTable's unions in a ring): then the sets are compared.
  bool same(uint32_t A, uint32_t B) const {
    if (A == B)
      return true;
    if (!Fresh || A == ~0u || B == ~0u)
      return false;
    return sameSets(A, B);
  }
  /// Whether neighbouring segments holding A and B may be merged: same(),
  /// or false where deciding it would cost more than the segment saves
  /// (sets named by subtrees of two trees: ContribTable).
  virtual bool mergeable(uint32_t A, uint32_t B) const { return same(A, B); }
  /// Whether A and B have no rank in common.
  virtual bool disjoint(uint32_t A, uint32_t B) const {
    return !get(A).intersects(get(B));
  }

protected:
  /// same() once the ids differ and may name equal sets.
  virtual bool sameSets(uint32_t A, uint32_t B) const {
    return get(A) == get(B);
  }

  /// Whether some set was added without a lookup (ids then not unique).
  bool Fresh = false;
};

/// A table of its own, with a cache of unions (the checker's: in trees the
/// same pairs unite again). Over a base list, the base's sets keep their
/// ids (a block's Contrib is its id here, no set is copied) and the table
/// holds only the sets the base lacks (the unions), after them.
class ContribTable final : public ContribSets {
public:
  ContribTable();
  /// Over Base, which must outlive the table and not change meanwhile.
  /// A base whose sets include names of subtrees (StepList::subtree)
  /// makes the table reason about them by the trees' structure
  /// (docs/distributed-proof.md, "Contributor sets named by a subtree").
  /// With ByStructure (the local check's), a base whose sets include
  /// names of subtrees (StepList::subtree) makes the table decide
  /// equality, disjointness and unions of such sets from the trees'
  /// structure (docs/distributed-proof.md, "Contributor sets named by a
  /// subtree"); without it (the explicit checker's) a name is expanded.
  explicit ContribTable(const StepList &Base, bool ByStructure = false);
  ~ContribTable() override;
  ContribTable(ContribTable &&) noexcept;
  ContribTable &operator=(ContribTable &&) noexcept;
  uint32_t intern(const RankSet &S) override;
  const RankSet &get(uint32_t Id) const override {
    if (Sub && isNamed(Id))
      return expanded(Id);
    return Id < NumBase ? Base->contrib(Id) : Sets[Id - NumBase];
  }
  uint32_t unite(uint32_t A, uint32_t B) override;
  /// A union unite appended past the cache (never looked up, so no
  /// chain holds it) is united in place: a ring rank's check made p - 1
  /// unions, each held by its one segment until the next replaced it, and
  /// kept them all (5 MiB at p = 65,536, a fresh page and an allocation
  /// each).
  uint32_t uniteOwned(uint32_t A, uint32_t B) override;
  bool mergeable(uint32_t A, uint32_t B) const override;
  bool disjoint(uint32_t A, uint32_t B) const override;
  /// How many sets were expanded into ranks (a part checked from the
  /// trees' structure alone expands none: the tests ask).
  size_t expansions() const;

protected:
  bool sameSets(uint32_t A, uint32_t B) const override;

private:
  /// The names' expansions and the reasoning over them (ContribReplay.cpp).
  struct Subtrees;
  std::unique_ptr<Subtrees> Sub;
  bool isNamed(uint32_t Id) const;
  /// The base's id of a name, if it has it.
  std::optional<uint32_t> findName(const SubtreeName &N) const;
  const RankSet &expanded(uint32_t Id) const;

  /// intern; a new set is moved from *Take when given, else copied.
  uint32_t internAs(const RankSet &S, RankSet *Take);

  const StepList *Base = nullptr;
  uint32_t NumBase = 0;
  bool ByStructure = false;
  /// Whether unite remembers its pairs: in trees the same pairs unite
  /// again (a circulant reduce's root, every block of a tree), in rings
  /// every union is new, and remembering a ring rank's p unions cost a
  /// fifth of its local check: a cache that seldom hits is dropped. With
  /// it, unite stops interning its unions (the lookups in the base's and
  /// the own table, random accesses into tables of p sets, were a third of
  /// a ring rank's local check): a new union is appended as it is, and
  /// same() compares sets (docs/distributed-proof.md, "Contributor sets").
  bool CacheUnions = true;
  size_t UnionHits = 0;
  std::vector<RankSet> Sets;
  /// Sets by a hash of their intervals: the first id with that hash, and
  /// per id the next one with the same hash (~0u ends a chain; Loose: a
  /// union appended past the cache, in no chain).
  llvm::DenseMap<uint64_t, uint32_t> Heads;
  std::vector<uint32_t> NextSameHash;
  static constexpr uint32_t Loose = ~1u;
  llvm::DenseMap<uint64_t, uint32_t> Unions;
};

/// A StepList's own table, so that the ids the replay holds are the ids
/// the list's blocks carry (one copy of every set). Unions are not cached:
/// in the rings every union is new (a cache of them took 40 MB at
/// p = 1000 and never hit).
class StepListContribs final : public ContribSets {
public:
  explicit StepListContribs(StepList &L) : L(L) {}
  uint32_t intern(const RankSet &S) override { return L.addContrib(S); }
  const RankSet &get(uint32_t Id) const override { return L.contrib(Id); }

private:
  StepList &L;
};

/// Every rank's partial results over one step at a time.
class ContribReplay {
public:
  /// A block on its way to Dst; B.Contrib is an id of the replay's sets and
  /// Op the index of the op in its step (for the caller's reports).
  struct Delivery {
    Rank Dst;
    uint32_t Op;
    Block B;
  };
  /// Sees a segment [Lo, Hi) of D's receiver, holding set Held, before D
  /// combines into it.
  using CombineHook = llvm::function_ref<void(const Delivery &D, uint64_t Lo,
                                              uint64_t Hi, uint32_t Held)>;

  /// The set of bytes held as nothing (an accumulator not yet written).
  static constexpr uint32_t None = ~0u;

  /// P ranks holding nothing yet.
  ContribReplay(uint32_t P, ContribSets &Sets) : Held(P), Sets(Sets) {}

  /// Rank R holds [0, N) with contributors {R} (nothing when N is 0).
  void holdOwn(Rank R, uint64_t N) {
    hold(R, N, N ? Sets.intern(RankSet(R, R + 1)) : 0);
  }
  /// Slot R holds [0, N) with contributor set Set, an id of the sets (a
  /// replay of one rank keeps it in slot 0). Nothing when N is 0.
  void hold(Rank R, uint64_t N, uint32_t Set);

  /// F(Lo, Hi, Set) for each segment rank R holds within [Lo, Hi), clipped
  /// to it, in byte order; bytes R does not hold are skipped.
  void
  forEachHeld(Rank R, uint64_t Lo, uint64_t Hi,
              llvm::function_ref<void(uint64_t, uint64_t, uint32_t)> F) const;

  /// Queues the delivery of B to Dst for the end of the step.
  void send(Rank Dst, const Block &B, uint32_t Op = 0) {
    Pending.push_back({Dst, Op, B});
  }

  /// Applies the step's deliveries in the order sent; OnCombine, when
  /// given, sees every segment a combining delivery meets.
  void endStep(CombineHook OnCombine = {});

  /// Whether a combining delivery may hand the segment's set to
  /// ContribSets::uniteOwned when no other segment of any slot and no
  /// pending delivery holds it (a replay of a few slots, as one rank's
  /// check is: the search is skipped past a few dozen segments).
  void reuseUnions(bool On) { Reuse = On; }

private:
  /// A segment from Lo to the next one's Lo. Per rank, sorted by Lo and
  /// searched by bisection; the last one ends the vector and None marks
  /// bytes not held. (A rank holds a few segments in the rings, up to p'
  /// in halving-doubling: docs/reductions.md has the measurements.)
  struct Seg {
    uint64_t Lo;
    uint32_t Set;
  };
  std::vector<std::vector<Seg>> Held;
  std::vector<Delivery> Pending;
  ContribSets &Sets;
  bool Reuse = false;

  void deliver(const Delivery &D, CombineHook OnCombine);
  /// Whether Set is held by one segment alone and by no pending delivery
  /// (false when that would take a long search).
  bool heldOnce(uint32_t Set) const;
};

/// How many accumulators a rank of L uses (docs/format.md,
/// "Accumulators"): one more than the largest a block names; 1 without.
unsigned accumulatorsOf(const StepList &L);

/// Fills in every block's contributor set by replaying Raw over P ranks
/// each holding [0, N) with contributors {itself}: a block carries the set
/// its sender holds for its bytes (split where that changes), a `Reduce`
/// delivery unites the receiver's set with it, any other replaces it. The
/// result's contributor table holds the replay's sets.
StepList annotateContributors(const StepList &Raw, uint32_t P, uint64_t N);

} // namespace choreo

#endif
