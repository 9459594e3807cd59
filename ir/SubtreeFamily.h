//===- ir/SubtreeFamily.h - Contributor sets named by a tree ---*- C++ -*-===//
///
/// \file
/// A family of spanning trees over the ranks 0..P-1, each given by its
/// parent pointers, whose subtrees name contributor sets: "the subtree of
/// rank X in tree T" is the set of ranks Y whose chain of parents in T
/// passes through X (X itself included). A reduction whose blocks climb
/// such trees (reduce-circulant) carries these names in a rank's part
/// instead of listing the ranks: the root's children's subtrees hold all
/// p ranks in each tree, which as lists of intervals cost the root
/// Theta(p log p) to build and check. The verifier proves exactly-once
/// and completeness from the trees' structure (docs/distributed-proof.md,
/// "Contributor sets named by a subtree"); a writer or a whole schedule's
/// digest expands a name into its ranks (expand()), so the format never
/// holds one.
///
/// Contract of an implementation (what the verifier relies on):
/// parent(T, X) and time(T, X) are functions of (T, X); children(T, X)
/// lists exactly the ranks C with parent(T, C) == X. The verifier itself
/// checks, per rank and tree, that a rank other than root(T) has a parent
/// of smaller time and that root(T) has none (so that every chain of
/// parents ends at the root: the root's subtree is every rank).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_SUBTREEFAMILY_H
#define CHOREO_IR_SUBTREEFAMILY_H

#include "ir/Collective.h"
#include "ir/IntervalSet.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace choreo {

class SubtreeFamily {
public:
  virtual ~SubtreeFamily();
  virtual uint32_t numRanks() const = 0;
  virtual uint32_t numTrees() const = 0;
  /// Names the family (its kind and parameters): mixed into the digest of
  /// every message carrying one of its sets, so that two parts agree on a
  /// message only if they mean the same trees.
  virtual uint64_t digest() const = 0;
  /// "reduce-circulant's trees (p = 8, root 3)".
  virtual std::string describe() const = 0;
  /// The root of tree T: the one rank without a parent.
  virtual Rank root(uint32_t T) const = 0;
  /// X's parent in tree T; none for the tree's root.
  virtual std::optional<Rank> parent(uint32_t T, Rank X) const = 0;
  /// A time of X in tree T (when the block reaches X in the broadcast the
  /// tree comes from): the verifier checks that a parent's is smaller.
  virtual uint32_t time(uint32_t T, Rank X) const = 0;
  /// Appends X's children in tree T (any order).
  virtual void children(uint32_t T, Rank X,
                        llvm::SmallVectorImpl<Rank> &Out) const = 0;

  /// The subtree of X in tree T as ranks (a search down the children:
  /// O(size x the cost of children)).
  IntervalSet expand(uint32_t T, Rank X) const;
};

/// A contributor set named by a subtree (StepList::subtree).
struct SubtreeName {
  uint32_t Tree = 0;
  Rank Of = 0;
  friend bool operator==(const SubtreeName &, const SubtreeName &) = default;
};

} // namespace choreo

#endif
