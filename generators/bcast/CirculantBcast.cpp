//===- generators/bcast/CirculantBcast.cpp - The circulant broadcast ------===//
///
/// \file
/// Träff's n-block broadcast on the circulant graph (arXiv 2312.11236) as
/// steps: n - 1 + ceil(log2 p) rounds, relative rank r sending in round k
/// of a phase to r + Skip[k] the block its send schedule names, shifted by
/// the phase; whole (from the receivers' receive schedules) or one rank's
/// part (from its own two schedules, O(log p) arithmetic and O(n + log p)
/// ops).
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/Circulant.h"

#include <algorithm>

using namespace choreo;

namespace {

/// Where a step falls: round K of a phase whose blocks are the schedules'
/// numbers plus Offset. The first X rounds of the first phase are left out
/// so that the last phase ends the broadcast: X = (Q - (n - 1) mod Q) mod Q.
struct Round {
  uint32_t K;
  int64_t Offset;
};

struct Rounds {
  uint32_t Q;
  uint64_t NumBlocks, X;
  Rounds(uint32_t Q, uint64_t NumBlocks)
      : Q(Q), NumBlocks(NumBlocks), X((Q - (NumBlocks - 1) % Q) % Q) {}
  uint64_t steps() const { return NumBlocks - 1 + Q; }
  Round at(uint64_t Step) const {
    uint64_t I = Step + X;
    return {uint32_t(I % Q), int64_t(I / Q * Q) - int64_t(X)};
  }
  /// The block a schedule entry names in round R: -1 for none (no entry,
  /// or a block before the first), the last block for any past it.
  int64_t block(int32_t Entry, const Round &R) const {
    if (Entry == NoBlock)
      return -1;
    int64_t B = Entry + R.Offset;
    if (B < 0)
      return -1;
    return std::min<int64_t>(B, int64_t(NumBlocks) - 1);
  }
};

struct Relative {
  uint32_t N, Root;
  Rank actual(uint64_t Rel) const { return Rank((Rel + Root) % N); }
  uint64_t of(uint32_t Me) const { return (uint64_t(Me) + N - Root) % N; }
};

void addBlock(StepList &L, Rank Src, Rank Dst, llvm::ArrayRef<uint64_t> Cuts,
              int64_t B) {
  llvm::SmallVector<Block, 1> Piece;
  addPiece(Piece, 0, Cuts[B], Cuts[B + 1]);
  addOpIfAny(L, Src, Dst, Piece);
}

bool empty(uint32_t N, llvm::ArrayRef<uint64_t> Cuts) {
  return N < 2 || Cuts.size() < 2 || Cuts.back() == 0;
}

} // namespace

StepList choreo::circulantBcast(uint32_t N, llvm::ArrayRef<uint64_t> Cuts,
                                uint32_t Root) {
  StepList L;
  if (empty(N, Cuts))
    return L;
  CirculantGraph G(N);
  Rounds Rs(G.Q, Cuts.size() - 1);
  // Every rank's receive schedule; what r sends in round k is what
  // r + Skip[k] receives.
  std::vector<llvm::SmallVector<int32_t, 32>> Recv(N);
  for (uint32_t R = 0; R < N; ++R)
    circulantRecvSchedule(G, R, Recv[R]);
  Relative Rel{N, Root};
  uint64_t Steps = Rs.steps();
  L.reserve(Steps * (N - 1), Steps * (N - 1));
  for (uint64_t S = 0; S < Steps; ++S) {
    L.newStep();
    Round Rd = Rs.at(S);
    for (uint64_t R = 0; R < N; ++R) {
      uint64_t T = (R + G.Skip[Rd.K]) % N;
      int64_t B = T == 0 ? -1 : Rs.block(Recv[T][Rd.K], Rd);
      if (B >= 0)
        addBlock(L, Rel.actual(R), Rel.actual(T), Cuts, B);
    }
  }
  return L;
}

RankPart choreo::circulantBcastRank(uint32_t N, llvm::ArrayRef<uint64_t> Cuts,
                                    uint32_t Root, uint32_t Me) {
  if (empty(N, Cuts))
    return {};
  CirculantGraph G(N);
  Rounds Rs(G.Q, Cuts.size() - 1);
  uint64_t Steps = Rs.steps();
  RankPart P;
  P.Used.assign(Steps, true); // the root sends in every round
  if (Me == NoRank) {
    for (uint64_t S = 0; S < Steps; ++S)
      P.Steps.newStep();
    return P;
  }
  Relative Rel{N, Root};
  uint64_t R = Rel.of(Me);
  CirculantSchedule Sched;
  circulantScheduleOf(G, R, Sched);
  P.Steps.reserve(2 * Steps, 2 * Steps);
  for (uint64_t S = 0; S < Steps; ++S) {
    P.Steps.newStep();
    Round Rd = Rs.at(S);
    uint64_t From = (R + N - G.Skip[Rd.K]) % N;
    int64_t In = Rs.block(Sched.Recv[Rd.K], Rd);
    int64_t Out = Rs.block(Sched.Send[Rd.K], Rd);
    // In the whole's order: by the sender's relative rank.
    if (In >= 0 && From < R)
      addBlock(P.Steps, Rel.actual(From), Me, Cuts, In);
    if (Out >= 0)
      addBlock(P.Steps, Me, Rel.actual(R + G.Skip[Rd.K]), Cuts, Out);
    if (In >= 0 && From > R)
      addBlock(P.Steps, Rel.actual(From), Me, Cuts, In);
  }
  return P;
}
