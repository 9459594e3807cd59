//===- ir/StepList.h - Rounds of send operations ----------------*- C++ -*-===//
///
/// \file
/// StepList is the body of a schedule: steps, each a list of ops `src -> dst`
/// carrying blocks (byte ranges of buffers, with contributor sets for
/// reductions). Storage is flat (one array of ops, one of blocks, indices per
/// step) so that a schedule of millions of ops costs tens of bytes per op.
///
/// Generators build StepLists over local ranks and buffers and compose them:
/// `relabeled` maps a block built over a subset of ranks onto real ranks and
/// buffers, `append` runs one list after another, `alongside` merges
/// two lists step by step. Composition never checks ports: the verifier does.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_STEPLIST_H
#define CHOREO_IR_STEPLIST_H

#include "ir/Collective.h"
#include "ir/IntervalSet.h"
#include "ir/SubtreeFamily.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace choreo {

/// A rank set of a reduction block (half-open intervals of ranks).
using RankSet = IntervalSet;

/// A lattice of equal elements (docs/format.md, "Lattice blocks"): Rows
/// rows RowStride bytes apart, each of Cols elements ColStride bytes apart,
/// each element Elem bytes, the first at byte Start; its bytes are its
/// elements' in row-major order. Bruck's alltoall sends a rectangle of the
/// p x p block matrix (blocks (I, J) with I in a range and J in a residue
/// class) as one, instead of p / 2 ranges.
struct Lattice {
  uint64_t Start = 0, Elem = 0, RowStride = 0, ColStride = 0;
  uint32_t Rows = 0, Cols = 0;

  uint64_t count() const { return uint64_t(Rows) * Cols; }
  uint64_t bytes() const { return count() * Elem; }
  /// One past its last byte (Start when empty).
  uint64_t end() const {
    return count() ? Start + uint64_t(Rows - 1) * RowStride +
                         uint64_t(Cols - 1) * ColStride + Elem
                   : Start;
  }
  /// Calls F(Lo) with each element's first byte, row by row.
  template <class Fn> void forEach(Fn F) const {
    for (uint32_t I = 0; I < Rows; ++I)
      for (uint32_t T = 0; T < Cols; ++T)
        F(Start + uint64_t(I) * RowStride + uint64_t(T) * ColStride);
  }
  bool operator==(const Lattice &O) const = default;
};

struct Block {
  static constexpr uint32_t NoContrib = ~0u;
  /// Contrib with this bit set names a lattice of the owning StepList
  /// (Block stays 24 bytes: a lattice block has no contributor set).
  static constexpr uint32_t LatticeBit = 1u << 31;
  /// A plain block's bytes; a lattice block's span (its first byte to one
  /// past its last: StepList::bytes gives its size).
  uint64_t Lo = 0, Hi = 0;
  BufferId Buf = 0;
  /// Combine into the receiver's partial instead of replacing it.
  bool Reduce = false;
  /// Accumulators (scan, exscan; docs/format.md "Accumulators"): the
  /// sender's accumulator read (high nibble) and the mask of the
  /// receiver's accumulators written (low nibble, 0 meaning {0}).
  uint8_t Acc = 0;
  /// Index of the contributor set in the owning StepList, or NoContrib;
  /// or LatticeBit | index of a lattice in the owning StepList.
  uint32_t Contrib = NoContrib;

  /// A plain block's bytes (a lattice block's span).
  uint64_t size() const { return Hi > Lo ? Hi - Lo : 0; }
  bool hasContrib() const { return !(Contrib & LatticeBit); }
  bool isLattice() const {
    return Contrib != NoContrib && (Contrib & LatticeBit);
  }
  uint32_t latticeId() const { return Contrib & ~LatticeBit; }
  static constexpr unsigned MaxAcc = 4;
  unsigned fromAcc() const { return Acc >> 4; }
  unsigned intoMask() const { return (Acc & 15) ? (Acc & 15) : 1; }
  void setAcc(unsigned From, unsigned IntoMask) {
    Acc = uint8_t(From << 4 | (IntoMask == 1 ? 0 : IntoMask));
  }
};

struct Op {
  Rank Src = 0, Dst = 0;
  uint32_t FirstBlock = 0, NumBlocks = 0;
};

/// Where a relabelled building block's buffer lands: buffer To, shifted by
/// Offset bytes.
struct BufferMap {
  BufferId To = 0;
  uint64_t Offset = 0;
};

class StepList {
public:
  StepList() = default;

  unsigned numSteps() const { return StepBegin.size() - 1; }
  size_t numOps() const { return Ops.size(); }
  size_t numBlocks() const { return Blocks.size(); }
  bool empty() const { return Ops.empty(); }

  llvm::ArrayRef<Op> step(unsigned I) const {
    return llvm::ArrayRef<Op>(Ops).slice(StepBegin[I],
                                         StepBegin[I + 1] - StepBegin[I]);
  }
  llvm::ArrayRef<Op> allOps() const { return Ops; }
  llvm::ArrayRef<Block> blocks(const Op &O) const {
    return llvm::ArrayRef<Block>(Blocks).slice(O.FirstBlock, O.NumBlocks);
  }
  const RankSet &contrib(uint32_t Id) const { return Contribs[Id]; }
  size_t numContribs() const { return Contribs.size(); }

  /// Lattice blocks (docs/format.md, "Lattice blocks"): each lattice
  /// belongs to one block. latticeBlock adds X to the table and returns
  /// the block of buffer Buf that names it.
  Block latticeBlock(BufferId Buf, const Lattice &X);
  size_t numLattices() const { return Lattices.size(); }
  const Lattice &lattice(const Block &B) const {
    return Lattices[B.latticeId()];
  }
  /// Whether B names a lattice of this list (an index out of range is not).
  bool validLattice(const Block &B) const {
    return B.isLattice() && B.latticeId() < Lattices.size();
  }
  /// The bytes B carries: its range's, or its lattice's.
  uint64_t bytes(const Block &B) const {
    return validLattice(B) ? lattice(B).bytes() : B.size();
  }
  /// Calls F(Lo, Hi) for each contiguous range of B in order (one for a
  /// plain block, adjacent elements of a lattice merged).
  template <class Fn> void forEachRange(const Block &B, Fn F) const {
    if (!validLattice(B)) {
      F(B.Lo, B.Hi);
      return;
    }
    const Lattice &X = lattice(B);
    uint64_t Lo = 0, Hi = 0;
    bool Any = false;
    X.forEach([&](uint64_t At) {
      if (Any && At == Hi) {
        Hi += X.Elem;
        return;
      }
      if (Any)
        F(Lo, Hi);
      Lo = At, Hi = At + X.Elem, Any = true;
    });
    if (Any)
      F(Lo, Hi);
  }
  /// Replaces every lattice block by its elements' ranges (adjacent ones
  /// merged), in place: for a consumer that reads byte ranges only.
  void expandLattices();

  /// Opens a new, empty step; addOp appends to the last step.
  void newStep();
  /// Appends an op to the last step (opening one if there is none). Blocks'
  /// Contrib indices refer to this list's contributor table.
  void addOp(Rank Src, Rank Dst, llvm::ArrayRef<Block> OpBlocks);
  /// Interns a contributor set and returns its index: equal sets get one
  /// index (the table holds each set once).
  uint32_t addContrib(const RankSet &S);
  /// The index of the set equal to S, if the table holds one.
  std::optional<uint32_t> findContrib(const RankSet &S) const;

  /// A contributor set named by the subtree of rank Of in tree Tree of the
  /// list's family (setFamily; ir/SubtreeFamily.h), interned apart from
  /// the listed sets (a name and a list of the same ranks get two ids).
  /// Its entry in the table (contrib(Id)) is a stand-in, {Of}: code that
  /// reads the ranks of a set asks subtree(Id) first or calls
  /// contribRanks. Only rank parts hold names (a writer expands them).
  uint32_t addSubtree(uint32_t Tree, Rank Of);
  std::optional<SubtreeName> subtree(uint32_t Id) const {
    if (Id >= SubtreeOf.size() || !SubtreeOf[Id])
      return std::nullopt;
    return SubtreeName{uint32_t(SubtreeOf[Id] >> 32) - 1,
                       Rank(SubtreeOf[Id] & 0xffffffffu)};
  }
  std::optional<uint32_t> findSubtree(const SubtreeName &N) const {
    auto It = SubtreeIds.find((uint64_t(N.Tree) + 1) << 32 | N.Of);
    if (It == SubtreeIds.end())
      return std::nullopt;
    return It->second;
  }
  bool hasSubtrees() const { return !SubtreeIds.empty(); }
  const SubtreeFamily *family() const { return Family.get(); }
  const std::shared_ptr<const SubtreeFamily> &sharedFamily() const {
    return Family;
  }
  void setFamily(std::shared_ptr<const SubtreeFamily> F) {
    Family = std::move(F);
  }
  /// Set Id as ranks: a listed set as it is, a named one expanded.
  RankSet contribRanks(uint32_t Id) const;
  /// Interns From's set Id in this list's table (a name as a name, taking
  /// From's family) and returns its id here.
  uint32_t copyContrib(const StepList &From, uint32_t Id);

  void reserve(size_t NumOps, size_t NumBlocks);

  /// Appends Next's steps after this list's steps.
  void append(const StepList &Next);
  void append(StepList &&Next);
  /// Merges Other into this list step by step: step i holds this list's
  /// step i, then Other's step i.
  void mergeAlongside(const StepList &Other);
  /// Renames rank r to RankMap[r] and maps buffer b by Buffers[b] (missing
  /// entries: same buffer, no offset), in place.
  void relabel(llvm::ArrayRef<Rank> RankMap,
               llvm::ArrayRef<BufferMap> Buffers = {});
  /// A relabelled copy (relabel on a temporary moves instead of copying).
  StepList relabeled(llvm::ArrayRef<Rank> RankMap,
                     llvm::ArrayRef<BufferMap> Buffers = {}) const &;
  StepList relabeled(llvm::ArrayRef<Rank> RankMap,
                     llvm::ArrayRef<BufferMap> Buffers = {}) &&;
  /// Renames every block's buffer b to Map[b], in place.
  void remapBuffers(llvm::ArrayRef<BufferId> Map);
  /// Removes steps without ops.
  void dropEmptySteps();
  /// Removes steps without ops except step s with Keep[s] (s <
  /// Keep.size()): a rank's part keeps the steps where the whole has an op.
  void dropEmptySteps(const std::vector<bool> &Keep);
  /// Removes every step, op, block and lattice; the contributor sets stay
  /// (with their ids): the ops rebuilt over the same table.
  void clearOps();

private:
  std::vector<uint32_t> StepBegin{0};
  std::vector<Op> Ops;
  std::vector<Block> Blocks;
  std::vector<RankSet> Contribs;
  std::vector<Lattice> Lattices;
  /// The sets by IntervalSet::hash: the last index with that hash, and per
  /// index the one before it in its chain (NoContrib ends a chain): of the
  /// same hash, or of the same Lo for a set in OneHead's chains.
  /// No key of its own per set: a ring rank's part interns one set per op.
  llvm::DenseMap<uint64_t, uint32_t> ContribHeads;
  std::vector<uint32_t> ContribSameHash;
  /// Sets of one interval [Lo, Hi) by Lo, once the table holds OneFrom
  /// sets: a ring rank's p sets are one interval each, met in order of Lo,
  /// and hashing put each in a random place of a table of p entries (most
  /// of the time of interning them). Per Lo below OneLimit the last such
  /// index and how many are chained (up to OneChain; the others hashed).
  static constexpr uint32_t OneFrom = 256, OneChain = 8, OneLimit = 1u << 21;
  bool OneOn = false;
  std::vector<uint32_t> OneHead;
  std::vector<uint8_t> OneCount;
  /// Per id, once a name exists: 0 for a listed set, else
  /// (Tree + 1) << 32 | Of; the names' ids by that key; their family.
  std::vector<uint64_t> SubtreeOf;
  llvm::DenseMap<uint64_t, uint32_t> SubtreeIds;
  std::shared_ptr<const SubtreeFamily> Family;
  /// Puts set Id (already in Contribs) in its chain.
  void indexContrib(uint32_t Id);
};

StepList alongside(StepList A, const StepList &B);

/// Appends Block{Buf, Lo, Hi} to Out unless it is empty, merging it into the
/// previous block when they are contiguous.
void addPiece(llvm::SmallVectorImpl<Block> &Out, BufferId Buf, uint64_t Lo,
              uint64_t Hi);

/// Adds an op when Pieces is not empty.
void addOpIfAny(StepList &L, Rank Src, Rank Dst,
                llvm::ArrayRef<Block> Pieces);

/// Start of part I when K bytes (or ranks) are cut into N consecutive
/// near-equal parts, the first K mod N of them one longer: the segments of
/// Kang et al.'s Algorithms 1 and 2.
inline uint64_t partStart(uint64_t K, uint64_t N, uint64_t I) {
  return I * (K / N) + std::min(I, K % N);
}

/// Start of part I when K bytes are cut at floor(I K / N): near-equal parts
/// (lengths floor(K/N) or ceil(K/N)) placed where real-valued cuts fall.
inline uint64_t proportionalStart(uint64_t K, uint64_t N, uint64_t I) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(I) * K / N);
}


} // namespace choreo

#endif
