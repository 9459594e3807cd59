//===- ir/Digest.h - The one digest of a schedule ----------------*- C++ -*-===//
///
/// \file
/// One digest scheme for everything that must be the same on every rank or
/// names a proved schedule: a 128-bit hash of a call header (every field:
/// collective, groups, sizes, root, topology, ports, nodes, node ports,
/// operator) and of the steps (every step, op and block with its buffer,
/// range, combine flag and contributor set). The reader computes the steps'
/// part while it streams a document (so a rank that keeps only its own ops
/// still knows the whole schedule's digest), StepHasher computes it from a
/// step list, and the two agree. Per-rank digests of a rank's own ops
/// (rankDigests) let a rank that built its part alone check it against the
/// proved whole. The algorithm's name and params are not hashed: they do
/// not change what is proved or run.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_DIGEST_H
#define CHOREO_IR_DIGEST_H

#include "ir/CallHeader.h"
#include "ir/IntervalSet.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace choreo {

class Schedule;
class StepList;

struct Digest128 {
  uint64_t H1 = 0, H2 = 0;
  /// 32 lowercase hex digits: a verdict's name in CHOREO_CACHE_DIR.
  std::string hex() const;
  bool operator==(const Digest128 &O) const = default;
};

/// Two independent 64-bit FNV-1a-style lanes.
class Hasher {
public:
  void mix(uint64_t V) {
    H1 = (H1 ^ V) * 1099511628211ull;
    H2 = (H2 ^ (V + 0x632be59bd9b4e019ull)) * 0x100000001b3ull;
    H2 ^= H2 >> 29;
  }
  void mix(llvm::StringRef S);
  Digest128 digest() const { return {H1, H2}; }

private:
  uint64_t H1 = 1469598103934665603ull, H2 = 0x9ae16a3b2f90404full;
};

/// The steps' part of the digest, fed in document order: step(), then per
/// op op(), then block() per block of the op.
class StepHasher {
public:
  void step() { H.mix(0x5354ull); }
  void op(uint64_t Src, uint64_t Dst) { H.mix(Src << 32 ^ Dst); }
  /// BufName: the block's buffer by name (the reader meets names before it
  /// knows the buffers' ids). Contrib: the block's contributor set, or null.
  void block(llvm::StringRef BufName, uint64_t Lo, uint64_t Hi, bool Reduce,
             const IntervalSet *Contrib, unsigned Acc = 0);
  /// After block(): the lattice a lattice block names (docs/format.md,
  /// "Lattice blocks").
  void lattice(uint64_t Start, uint64_t Elem, uint64_t RowStride,
               uint64_t Rows, uint64_t ColStride, uint64_t Cols);
  Digest128 digest() const { return H.digest(); }

private:
  Hasher H;
  /// The last buffer name and its hash: blocks of one buffer come in runs.
  std::string LastName;
  uint64_t LastHash = 0;
};

/// The digest of every field of a call header.
Digest128 headerDigest(const CallHeader &H);
/// The steps' digest of a step list, buffers named by H's collective.
Digest128 stepsDigest(const CallHeader &H, const StepList &Steps);
/// The schedule's digest: its header and its steps (the steps' digest as
/// read when S was read from a document, so that a rank holding only its
/// own ops has the whole schedule's digest).
Digest128 scheduleDigest(const Schedule &S);

/// What every rank of a job holding one schedule (whole, or only its own
/// ops) can compare: the header, the step count and the steps' digest as
/// read (none for a schedule built in code, whose ranks compare rankDigests
/// against the proved whole instead). An alltoallv rank's own row and
/// column (docs/format.md) are left out, as the distributed proof's
/// partHeaderDigest leaves them out.
Digest128 sharedDigest(const Schedule &S);

/// Per rank, a digest of the ops it sends or receives, step by step (the
/// order of ops within a step does not matter): two words per rank.
std::vector<uint64_t> rankDigests(const Schedule &S);

} // namespace choreo

#endif
