//===- generators/intergroup/InterReduction.h - Intercomm bcast, reduce -*- C++
//-*-===//
///
/// \file
/// What the intercommunicator broadcast and reduction generators share:
/// their options (--p, --q, --bytes, --root over the p + q ranks, A low;
/// --element-bytes and --op for the reductions), the header of their
/// schedules (groups A and B, sizes.all the vector), a binomial reduce to a
/// group's first rank that keeps rank order, a group's broadcast as MPICH
/// runs it (generators/blocks), with a result's contributor set, and a
/// rank's part of a whole schedule.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_INTERGROUP_INTERREDUCTION_H
#define CHOREO_GENERATORS_INTERGROUP_INTERREDUCTION_H

#include "generators/Generators.h"

namespace choreo {

/// The options of an intercommunicator broadcast or reduction.
struct InterInput {
  uint32_t P = 1, Q = 1;
  uint64_t N = 0, Elem = 1;
  bool Commutative = true;
  Rank Root = 0;
  /// The first rank and the size of the root's group and of the other one.
  Rank rootBase() const { return Root < P ? 0 : P; }
  uint32_t rootSize() const { return Root < P ? P : Q; }
  Rank otherBase() const { return Root < P ? P : 0; }
  uint32_t otherSize() const { return Root < P ? Q : P; }
};

/// The options C's generators take.
std::vector<OptionDecl> interOptions(Collective C);

/// Reads them: groups of 1 to 2^20 ranks, the root below p + q, elements
/// that divide the vector.
llvm::Expected<InterInput> readInterInput(const OptionValues &V, Collective C);

/// The schedule of C for In before its steps.
Schedule interSchedule(Collective C, const InterInput &In);

/// MPICH's binomial reduce (MPIR_Reduce_intra_binomial) over ranks Base ..
/// Base + N - 1 to Base: at mask m, relative rank r with r mod 2m = m
/// combines its subtree [r, r + m) into r - m; rank order is kept (the
/// root is the first rank).
StepList groupReduce(Rank Base, uint32_t N, uint64_t Bytes);

/// MPICH's broadcast of [0, Bytes) (blocks/mpichBcast) over ranks Base ..
/// Base + N - 1 from Base; with Contrib, every block carries that set and
/// replaces what the receiver holds (a reduction's result).
StepList groupBcast(Rank Base, uint32_t N, uint64_t Bytes,
                    const RankSet *Contrib = nullptr);

/// `--reduce-scatter ring|halving`, a group's reduce-scatter in
/// inter-allreduce-kang and inter-reduce-kang (groupReduceScatter).
Option<std::string> groupReduceScatterOption();
/// Whether Opt's value in V asks for halving (the default for a
/// non-commutative operator, else the ring); an error naming the option
/// when the ring is asked for with a non-commutative operator.
llvm::Expected<bool> groupReduceScatterHalving(const OptionValues &V,
                                               const Option<std::string> &Opt,
                                               bool Commutative);

/// A group's reduce-scatter over local ranks 0..G-1 (of an N-byte vector
/// of Elem-byte elements) and where it leaves the pieces: Order lists the
/// members by the byte position of their pieces (the members without a
/// piece last) and Counts their sizes in that order, so that prefix sums
/// of Counts are the pieces' starts. Halving: the fold and recursive
/// vector halving with distance doubling of allreduce-halving-doubling
/// (rank order kept; the folded-out ranks hold no piece); else the
/// pairwise exchange of reduce-scatter-ring (commutative operators only).
/// With Only, rank Only's ops alone in the whole's steps (RawSteps); the
/// pairwise exchange with Only >= G: no ops, the whole's steps alone.
/// Steps holds the ops over ranks Base .. Base + G - 1 (Only and Order
/// stay local), with room for Room more ops of a rank's part (what the
/// caller appends to it). Shared by inter-allreduce-kang and
/// inter-reduce-kang.
struct GroupPieces {
  StepList Steps;
  std::vector<uint32_t> Order;
  std::vector<uint64_t> Counts;
};
GroupPieces groupReduceScatter(uint32_t G, uint64_t N, uint64_t Elem,
                               bool Halving, std::optional<Rank> Only,
                               Rank Base = 0, size_t Room = 0);

/// Ranks [Lo, Hi) as a contributor set.
inline RankSet ranksOf(Rank Lo, Rank Hi) { return RankSet(Lo, Hi); }

/// One op From -> To of [0, Bytes) (with Contrib, replacing) in a new step
/// of L; the step is empty when Bytes is 0.
void addWhole(StepList &L, Rank From, Rank To, uint64_t Bytes,
              const RankSet *Contrib = nullptr);

/// Finishes a schedule: drops empty steps; with Only, keeps rank Only's
/// ops alone in the whole's steps (the whole is O(p + q) ops but for the
/// broadcasts, which are MPICH's).
llvm::Expected<Schedule> finishInter(Schedule S, StepList Whole,
                                     std::optional<Rank> Only);

/// The rank forms of the blocks above and of their composition: rank Me's
/// ops (none when Me is not one of the block's ranks) in the block's own
/// steps, and which steps hold some rank's op (RankPart, blocks/Blocks.h),
/// never the other ranks' ops.

/// Me's index among ranks Base .. Base + N - 1, or NoRank.
inline uint32_t localOf(Rank Me, Rank Base, uint32_t N) {
  return Me >= Base && Me - Base < N ? Me - Base : NoRank;
}
/// groupReduce's: O(log N).
RankPart groupReducePart(Rank Base, uint32_t N, uint64_t Bytes, Rank Me);
/// groupBcast's: mpichBcastRank's on the group's ranks (O(N) arithmetic
/// at most, the scatter + allgather's sizes).
RankPart groupBcastPart(Rank Base, uint32_t N, uint64_t Bytes, Rank Me,
                        const RankSet *Contrib = nullptr);
/// A block's part over local ranks 0..N-1 and buffer 0 as ranks Base ..
/// Base + N - 1 and buffer Buf; with Contrib, every block carries that set
/// and replaces what the receiver holds (as groupBcast).
RankPart onGroupPart(const RankPart &P, Rank Base, BufferId Buf = 0,
                     const RankSet *Contrib = nullptr);
/// One step holding the op From -> To of B (used when B is not empty), Me's
/// when it is an end of it; with Contrib, B carries that set (addWhole's
/// part with B = [0, Bytes)).
RankPart onePart(Rank From, Rank To, const Block &B, Rank Me,
                 const RankSet *Contrib = nullptr);
/// StepList::mergeAlongside for parts: step i holds L's step i, then
/// Other's; used when either's is.
void mergePartAlongside(RankPart &L, const RankPart &Other);
/// finishInter's rank form: rank Only's ops of Part in the steps the whole
/// keeps (an error when Only is not one of the p + q ranks).
llvm::Expected<Schedule> finishInterPart(Schedule S, RankPart Part, Rank Only);

} // namespace choreo

#endif
