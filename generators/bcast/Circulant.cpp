//===- generators/bcast/Circulant.cpp - Circulant-graph schedules ---------===//
///
/// \file
/// The schedules of Träff's circulant-graph broadcast (arXiv 2312.11236):
/// skips, baseblocks, a rank's receive schedule by the paper's depth-first
/// search over sums of skips and its send schedule from its own sum of
/// skips, each in O(log p) by the rank alone. (MPICH main's iterative
/// rewrite of the search gives wrong schedules from p = 33 on:
/// docs/errata/circulant.md.)
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/Circulant.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace choreo;

CirculantGraph::CirculantGraph(uint32_t P) : P(P) {
  while (P > 1 && (uint64_t(1) << Q) < P)
    ++Q;
  Skip.assign(Q + 1, 0);
  Skip[Q] = P;
  for (uint32_t K = Q; K-- > 0;)
    Skip[K] = (Skip[K + 1] + 1) / 2;
}

uint32_t choreo::circulantBaseblock(const CirculantGraph &G, uint64_t R) {
  if (R == 0)
    return G.Q;
  // Greedily largest skip first: after skip K the rest is below Skip[K]
  // (Skip[K + 1] <= 2 Skip[K]), so the rest reaches 0 by skip 0.
  uint64_t Rest = R;
  for (uint32_t K = G.Q; K-- > 0;)
    if (Rest >= G.Skip[K]) {
      Rest -= G.Skip[K];
      if (Rest == 0)
        return K;
    }
  return G.Q;
}

namespace {

/// The largest skip index in Avail below E, or -1.
int largestBelow(uint64_t Avail, uint32_t E) {
  uint64_t M = Avail & ((uint64_t(1) << E) - 1);
  return M ? int(63 - llvm::countl_zero(M)) : -1;
}

/// The paper's search for a receive schedule (its procedure over "all
/// blocks"): sums of distinct skips, largest skips first, each below the
/// last sum accepted; round K takes the last skip of the first sum that
/// reaches its window (Top - Skip[K + 1], Top - Skip[K]] from below, where
/// Top = R + P (the root is P, so that no sum wraps). A skip gives one
/// round its block and is then dropped from the candidates; R's own
/// baseblock is never a candidate.
class RecvSearch {
public:
  RecvSearch(const CirculantGraph &G, uint64_t R, uint32_t Base,
             llvm::SmallVectorImpl<int32_t> &Out)
      : G(G), Top(R + G.P), Out(Out) {
    // Skips 0..Q (Q: the root), all but the baseblock.
    Avail = ((uint64_t(2) << G.Q) - 1) & ~(uint64_t(1) << Base);
  }
  /// Fills rounds from 0; false if some round got no block.
  bool run() {
    walk(0, 2 * uint64_t(G.P), int(G.Q));
    return K == G.Q;
  }

private:
  /// The window's upper end in round K, and its lower end (exclusive).
  uint64_t high(uint32_t Round) const { return Top - G.Skip[Round]; }
  uint64_t low(uint32_t Round) const {
    return Top - (Round + 1 <= G.Q ? G.Skip[Round + 1] : 0);
  }
  /// Extends Sum by the candidates from E down, each sum below Bound.
  void walk(uint64_t Sum, uint64_t Bound, int E) {
    for (; E >= 0 && K < G.Q; E = largestBelow(Avail, uint32_t(E))) {
      uint64_t Next = Sum + G.Skip[E];
      if (Next > high(K) || Next >= Bound)
        continue;
      // Below the window: first the larger sums that extend this one.
      if (Next <= low(K)) {
        walk(Next, Bound, E);
        if (K == G.Q)
          return;
      }
      if (Sum > low(K))
        return; // this prefix already reaches the round's window
      Bound = Next;
      Out[K++] = E;
      Avail &= ~(uint64_t(1) << E);
    }
  }

  const CirculantGraph &G;
  uint64_t Top, Avail = 0;
  uint32_t K = 0;
  llvm::SmallVectorImpl<int32_t> &Out;
};

} // namespace

bool choreo::circulantRecvSchedule(const CirculantGraph &G, uint64_t R,
                                   llvm::SmallVectorImpl<int32_t> &Recv) {
  const uint32_t Q = G.Q;
  Recv.assign(Q, NoBlock);
  if (R == 0 || Q == 0)
    return true; // the root receives nothing
  uint32_t Base = circulantBaseblock(G, R);
  if (!RecvSearch(G, R, Base, Recv).run())
    return false;
  // The root's skip stands for this phase's block, R's baseblock; any
  // other for a block of the previous phase.
  for (int32_t &E : Recv)
    E = uint32_t(E) == Q ? int32_t(Base) : E - int32_t(Q);
  return true;
}

namespace {

/// The send schedule, counting the entries looked up from the receiver.
bool sendSchedule(const CirculantGraph &G, uint64_t R,
                  llvm::SmallVectorImpl<int32_t> &Send, unsigned &Lookups) {
  const uint32_t Q = G.Q;
  const uint64_t P = G.P;
  Send.assign(Q, NoBlock);
  Lookups = 0;
  if (Q == 0)
    return true;
  if (R == 0) {
    // The root sends block k in round k: Skip[k]'s baseblock is k.
    for (uint32_t K = 0; K < Q; ++K)
      Send[K] = int32_t(K);
    return true;
  }
  const uint32_t Base = circulantBaseblock(G, R);
  bool Ok = true;
  llvm::SmallVector<int32_t, 32> Other;
  auto LookUp = [&](uint32_t K) {
    uint64_t T = (R + G.Skip[K]) % P;
    if (T == 0)
      return; // the root receives nothing
    ++Lookups;
    Ok &= circulantRecvSchedule(G, T, Other);
    Send[K] = Other[K];
  };
  // The paper's rules, from the largest skip down, along R's own sum of
  // skips: Rest is what is left of R, Edge the end of the region R's
  // receivers fall in, Passing the block R passes on. Below a skip of its
  // sum R passes what it passes on to the region (its baseblock at first);
  // at a skip of its sum, the block that skip's region got in the previous
  // phase. Where the receiver sits on the region's boundary the rules leave
  // the block open, and it is the receiver's own receive schedule's.
  // Edge may fall below 0 (then every later rule passes the block on).
  int64_t Rest = int64_t(R), Edge = int64_t(P);
  int32_t Passing = int32_t(Base);
  for (uint32_t K = Q - 1; K >= 1; --K) {
    const int64_t Skip = int64_t(G.Skip[K]), Below = int64_t(G.Skip[K - 1]);
    if (Rest < Skip) {
      if (Rest + Skip < Edge || Edge < Below || (K == 1 && Base > 0))
        Send[K] = Passing;
      else
        LookUp(K);
      Edge = std::min(Edge, Skip);
      continue;
    }
    Passing = int32_t(K) - int32_t(Q);
    Edge -= Skip;
    if (Rest > Skip || Rest <= Edge || K == 1 || Edge < Below)
      Send[K] = Passing;
    else
      LookUp(K);
    Rest -= Skip;
  }
  // Round 0: R + 1 gets R's block of the previous phase.
  Send[0] = int32_t(Base) - int32_t(Q);
  for (uint32_t K = 0; K < Q; ++K)
    if ((R + G.Skip[K]) % P == 0)
      Send[K] = NoBlock;
  return Ok;
}

} // namespace

bool choreo::circulantSendSchedule(const CirculantGraph &G, uint64_t R,
                                   llvm::SmallVectorImpl<int32_t> &Send) {
  unsigned Lookups = 0;
  return sendSchedule(G, R, Send, Lookups);
}

unsigned choreo::circulantSendLookups(const CirculantGraph &G, uint64_t R) {
  llvm::SmallVector<int32_t, 32> Send;
  unsigned Lookups = 0;
  sendSchedule(G, R, Send, Lookups);
  return Lookups;
}

bool choreo::circulantScheduleOf(const CirculantGraph &G, uint64_t R,
                                 CirculantSchedule &S) {
  bool Ok = circulantRecvSchedule(G, R, S.Recv);
  return circulantSendSchedule(G, R, S.Send) && Ok;
}

uint64_t choreo::circulantRounds(uint32_t N, uint64_t Blocks) {
  if (N < 2 || Blocks == 0)
    return 0;
  return Blocks - 1 + CirculantGraph(N).Q;
}
