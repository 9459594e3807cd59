//===- generators/alltoall/AlltoallOptions.h - Alltoall options -*- C++ -*-===//
///
/// \file
/// The options of the alltoall generators (--bytes or --pairs, --radix,
/// --concurrent, --batch) and the reader that turns --p and the sizes into
/// an alltoall's header: sizes.pairs, the p x p matrix of the bytes rank i
/// sends rank j (alltoall with --bytes, every block alike; alltoallv with
/// --pairs).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_ALLTOALL_ALLTOALLOPTIONS_H
#define CHOREO_GENERATORS_ALLTOALL_ALLTOALLOPTIONS_H

#include "ir/PairMatrix.h"
#include "ir/Schedule.h"
#include "options/Parse.h"

namespace choreo {
namespace opt {

/// --bytes: the bytes rank i sends every rank j, diagonal included.
const Option<Size> &pairBytes();
/// --pairs: p x p sizes, row-major (entry i * p + j: rank i to rank j).
const Option<SizeList> &pairs();
/// --rank-part: one rank's row and column of an alltoallv (a rank form
/// built without the matrix; docs/alltoall.md): rank, row start, length of
/// all, then p entries each of its row, column, column starts and used
/// offsets (ir/PairMatrix.h, RankSizes).
const Option<SizeList> &rankPart();
/// --relayed: with --rank-part, alltoall-bruck's relayed blocks (the radix,
/// then the start in buffer all and the bytes of each block the rank
/// receives, ir/PairMatrix.h BruckRelays; sizes.relay).
const Option<SizeList> &relayed();
/// --radix k of Bruck's alltoall (default 2).
const Option<uint64_t> &radix();
/// --concurrent on|off (default off): a Bruck round's k - 1 messages in
/// one step.
const Option<OneOf<bool>> &concurrent();
/// --lattice on|off (default on): Bruck's messages as at most eight
/// rectangles of the block matrix each (lattice blocks, docs/format.md),
/// with sizes.block; off, or with sizes.pairs: byte ranges.
const Option<OneOf<bool>> &lattice();
/// --batch: the scattered algorithm's sends and receives in flight
/// (MPIR_CVAR_ALLTOALL_THROTTLE, default 32; 0: every rank at once).
const Option<uint64_t> &batch();

} // namespace opt

/// The most entries of sizes.pairs a generator builds a header with: p up
/// to 4096 (--pairs; --bytes takes any p).
inline constexpr uint64_t MaxPairs = uint64_t(1) << 24;

/// An alltoall's header from --p and --bytes (collective alltoall, the
/// uniform form sizes.block: O(1) whatever p) or --pairs (alltoallv, the
/// matrix sizes.pairs), one group `all`; errors name the option (sizes
/// missing or both given, a matrix of the wrong length, sizes past 2^64
/// bytes, a --pairs matrix of more than MaxPairs entries).
llvm::Expected<Schedule> alltoallHeader(const OptionValues &V);

/// RankSizes as --rank-part's list, and back (std::nullopt: not 3 + 4p
/// entries).
std::vector<uint64_t> rankPartList(const RankSizes &Rs);
std::optional<RankSizes> rankPartOf(llvm::ArrayRef<uint64_t> L, uint64_t P);
/// --rank-part's list L over N ranks as RankSizes, or the option's error:
/// how many entries N ranks need, or the rank that is not below N. Inter:
/// the p + q merged ranks of an intergroup alltoall (whose last entries
/// are its used steps), else the p ranks of an alltoall (used offsets).
/// The one reader of the alltoall generators and inter-alltoall-pairwise.
llvm::Expected<RankSizes> rankPartOption(llvm::ArrayRef<uint64_t> L,
                                         uint64_t N, bool Inter);

} // namespace choreo

#endif
