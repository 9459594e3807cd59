//===- generators/allgatherv/AllgathervRing.cpp - Ring allgathervs --------===//
///
/// \file
/// The pipelined ring of seed 003 with its ring orders and block size,
/// MPICH 4.0's ring allgatherv, and the options of the allgatherv ring
/// generators.
///
//===----------------------------------------------------------------------===//

#include "generators/allgatherv/AllgathervRing.h"
#include "generators/SizeChecks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace choreo;
using llvm::formatv;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

const Option<SizeOrWord> &opt::blockBytes() {
  static const Option<SizeOrWord> O =
      sizeOrWordOption("block-bytes",
                       "block size B: contributions are cut into blocks of "
                       "at most B bytes; auto picks B by seed 003's Section "
                       "2.4 from --alpha and --beta",
                       {"auto"})
          .withDefault("auto");
  return O;
}

const Option<OneOf<bool>> &opt::skipEmpty() {
  static const Option<OneOf<bool>> O =
      choiceOption<bool>("skip-empty",
                         "send each link's non-empty blocks as early as they "
                         "arrive instead of in lock-step rounds (seed 003, "
                         "Section 2.3)",
                         {{"on", true}, {"off", false}})
          .withDefault("on");
  return O;
}

const Option<std::string> &opt::rerank() {
  static const Option<std::string> O =
      wordOption("rerank",
                 "ring order: none (rank order) or equidistant (the "
                 "non-empty contributions spread evenly among the empty "
                 "ones, seed 003 Fig. 3)",
                 {"none", "equidistant"})
          .withDefault("none");
  return O;
}

const Option<double> &opt::alpha() {
  static const Option<double> O =
      realOption("alpha", "start-up time of a message, for --block-bytes auto")
          .withDefault("1e-6");
  return O;
}

const Option<double> &opt::beta() {
  static const Option<double> O =
      realOption("beta", "time per byte, for --block-bytes auto")
          .withDefault("1e-10");
  return O;
}

//===----------------------------------------------------------------------===//
// Ring orders
//===----------------------------------------------------------------------===//

std::vector<Rank> choreo::equidistantOrder(llvm::ArrayRef<uint64_t> Sizes) {
  std::vector<Rank> Full, Empty;
  for (Rank R = 0; R < Sizes.size(); ++R)
    (Sizes[R] ? Full : Empty).push_back(R);
  if (Full.empty() || Empty.empty()) {
    std::vector<Rank> Order(Sizes.size());
    for (Rank R = 0; R < Sizes.size(); ++R)
      Order[R] = R;
    return Order;
  }
  size_t Gap = Empty.size() / Full.size(), Extra = Empty.size() % Full.size();
  std::vector<Rank> Order;
  size_t E = 0;
  for (size_t F = 0; F < Full.size(); ++F) {
    Order.push_back(Full[F]);
    for (size_t K = 0; K < Gap + (F < Extra); ++K)
      Order.push_back(Empty[E++]);
  }
  return Order;
}

std::vector<Rank> choreo::nodeAwareOrder(llvm::ArrayRef<uint32_t> NodeOf,
                                         llvm::ArrayRef<uint64_t> Sizes) {
  uint32_t NumNodes = 0;
  for (uint32_t N : NodeOf)
    NumNodes = std::max(NumNodes, N + 1);
  std::vector<std::vector<Rank>> Empty(NumNodes), Full(NumNodes);
  for (Rank R = 0; R < NodeOf.size(); ++R)
    (Sizes[R] ? Full : Empty)[NodeOf[R]].push_back(R);
  std::vector<Rank> Order;
  for (uint32_t N = 0; N < NumNodes; ++N) {
    llvm::append_range(Order, Empty[N]);
    llvm::append_range(Order, Full[N]);
  }
  return Order;
}

//===----------------------------------------------------------------------===//
// The pipelined ring
//===----------------------------------------------------------------------===//

namespace {
uint64_t blocksOf(uint64_t M, uint64_t B) {
  return M == 0 ? 1 : M / B + (M % B != 0);
}
} // namespace

uint64_t choreo::totalBlocks(llvm::ArrayRef<uint64_t> Sizes, uint64_t B) {
  uint64_t Sum = 0;
  for (uint64_t M : Sizes) {
    uint64_t X = blocksOf(M, B);
    Sum = Sum + X < Sum ? UINT64_MAX : Sum + X;
  }
  return Sum;
}

StepList choreo::pipelinedRingAllgatherv(llvm::ArrayRef<uint64_t> Sizes,
                                         llvm::ArrayRef<Rank> Order, uint64_t B,
                                         bool SkipEmpty) {
  const uint32_t P = Sizes.size();
  StepList L;
  if (P < 2)
    return L;
  std::vector<uint64_t> Displ = prefixSums(Sizes);
  // Per position k: its rank's blocks b_k and first virtual process.
  std::vector<uint64_t> NumB(P), First(P + 1, 0);
  for (uint32_t K = 0; K < P; ++K) {
    NumB[K] = blocksOf(Sizes[Order[K]], B);
    First[K + 1] = First[K] + NumB[K];
  }
  const uint64_t Total = First[P];
  // The bytes of virtual block V (empty for an empty contribution).
  auto BlockRange = [&](uint64_t V) {
    uint32_t K =
        std::upper_bound(First.begin(), First.end(), V) - First.begin() - 1;
    Rank R = Order[K];
    uint64_t J = V - First[K];
    uint64_t Lo = Displ[R] + clippedStart(J, B, Sizes[R]);
    uint64_t Hi = Displ[R] + clippedStart(J + 1, B, Sizes[R]);
    return std::pair(Lo, Hi);
  };
  // Link k (position k to k+1) sends Need[k] = b - b_{k+1} blocks: at its
  // t-th send the block (last_k - t) mod b, own for t < b_k, else the one
  // its rank received as link k-1's (t - b_k)-th send. Step[k][t] is the
  // step of that send, -1 when the block is empty (not sent).
  struct Sent {
    uint32_t Step, Pos;
    uint64_t Lo, Hi;
  };
  std::vector<Sent> Ops;
  std::vector<std::vector<int32_t>> Step(P);
  std::vector<int64_t> Last(P, -1);
  uint64_t MaxNeed = 0;
  for (uint32_t K = 0; K < P; ++K) {
    uint64_t Need = Total - NumB[(K + 1) % P];
    Step[K].assign(Need, -1);
    MaxNeed = std::max(MaxNeed, Need);
  }
  for (uint64_t T = 0; T < MaxNeed; ++T)
    for (uint32_t K = 0; K < P; ++K) {
      if (T >= Step[K].size())
        continue;
      uint64_t LastV = First[K + 1] - 1;
      uint64_t V = (LastV + Total - T % Total) % Total;
      auto [Lo, Hi] = BlockRange(V);
      if (Lo == Hi)
        continue;
      int64_t Arrived = -1; // own block
      if (T >= NumB[K]) {
        Arrived = Step[(K + P - 1) % P][T - NumB[K]];
        assert(Arrived >= 0 && "a non-empty block was never received");
      }
      int64_t S = SkipEmpty ? std::max(Last[K], Arrived) + 1 : int64_t(T);
      Step[K][T] = int32_t(S);
      Last[K] = S;
      Ops.push_back({uint32_t(S), K, Lo, Hi});
    }
  std::stable_sort(Ops.begin(), Ops.end(), [](const Sent &X, const Sent &Y) {
    return std::pair(X.Step, X.Pos) < std::pair(Y.Step, Y.Pos);
  });
  L.reserve(Ops.size(), Ops.size());
  uint32_t Cur = 0;
  L.newStep();
  for (const Sent &O : Ops) {
    while (Cur < O.Step) {
      L.newStep();
      ++Cur;
    }
    Block Bl;
    Bl.Lo = O.Lo;
    Bl.Hi = O.Hi;
    L.addOp(Order[O.Pos], Order[(O.Pos + 1) % P], Bl);
  }
  return L;
}

namespace {

/// What pipelinedRingAllgathervRank knows of the ring without its ops: per
/// position k its blocks b_k and first virtual process, n_k (b_k, or 0 for
/// an empty contribution), and the first position at or after x (taken
/// cyclically, x < 3p) whose contribution is not empty.
struct RingShape {
  uint32_t P;
  std::vector<uint64_t> NumB, First, N, NextFull;
  uint64_t Total = 0, Full = 0;
  RingShape(llvm::ArrayRef<uint64_t> Sizes, llvm::ArrayRef<Rank> Order,
            uint64_t B)
      : P(Sizes.size()), NumB(P), First(P + 1, 0), N(P), NextFull(3 * P + 1) {
    for (uint32_t K = 0; K < P; ++K) {
      NumB[K] = blocksOf(Sizes[Order[K]], B);
      First[K + 1] = First[K] + NumB[K];
      N[K] = Sizes[Order[K]] ? NumB[K] : 0;
      Full += N[K];
    }
    Total = First[P];
    NextFull[3 * P] = UINT64_MAX;
    for (uint64_t X = 3 * P; X-- > 0;)
      NextFull[X] = N[X % P] ? X : NextFull[X + 1];
  }
  /// Link k's sends (from position k to k + 1), empty ones included.
  uint64_t need(uint32_t K) const { return Total - NumB[(K + 1) % P]; }
  /// Its non-empty sends: every block but position k + 1's.
  uint64_t full(uint32_t K) const { return Full - N[(K + 1) % P]; }

  /// The whole schedule's steps (no step in between is empty). Without
  /// the zero-skip, link k's last non-empty block goes at round need(k) -
  /// 1 - z, z the empty positions from k + 2 on. With it, link k's i-th
  /// non-empty send goes at step i + g_k(i), g_k(i) the most of m - (n_k +
  /// ... + n_{k-m+1}) over the m whose sum is at most i (a block that
  /// passed m positions gains a step at every empty one, loses n - 1 at
  /// every other); for i = full(k) - 1 the admissible m end before the
  /// first non-empty position from k + 2 on, F(k), so with the prefix sums
  /// W of 1 - n_k the gain is W(k + p + 1) less the least W over
  /// [F(k) + 1, k + p + 1]: a sliding minimum (both ends move forward).
  uint64_t steps(bool SkipEmpty) const {
    uint64_t Last = 0;
    bool Any = false;
    if (!SkipEmpty) {
      for (uint32_t K = 0; K < P; ++K)
        if (full(K)) {
          uint64_t Z = NextFull[K + 2] - (K + 2);
          Last = std::max(Last, need(K) - 1 - Z);
          Any = true;
        }
      return Any ? Last + 1 : 0;
    }
    std::vector<int64_t> W(2 * P + 2, 0);
    for (uint64_t X = 0; X + 1 < W.size(); ++X)
      W[X + 1] = W[X] + 1 - int64_t(N[X % P]);
    std::vector<uint64_t> Window; // indices of W, increasing W
    size_t Head = 0;
    uint64_t Right = 0; // W indices below Right have entered
    int64_t Best = 0;
    for (uint32_t K = 0; K < P; ++K) {
      if (!full(K))
        continue;
      uint64_t Lo = NextFull[K + 2] + 1, Hi = uint64_t(K) + P + 1;
      for (; Right <= Hi; ++Right) {
        while (Window.size() > Head && W[Window.back()] >= W[Right])
          Window.pop_back();
        Window.push_back(Right);
        Head = std::min(Head, Window.size() - 1);
      }
      while (Window[Head] < Lo)
        ++Head;
      int64_t Gain = W[Hi] - W[Window[Head]];
      Best = std::max(Best, int64_t(full(K)) - 1 + Gain);
      Any = true;
    }
    return Any ? uint64_t(Best) + 1 : 0;
  }
};

} // namespace

StepList choreo::pipelinedRingAllgathervRank(llvm::ArrayRef<uint64_t> Sizes,
                                             llvm::ArrayRef<Rank> Order,
                                             uint64_t B, bool SkipEmpty,
                                             Rank Me) {
  const uint32_t P = Sizes.size();
  StepList L;
  if (P < 2)
    return L;
  RingShape R(Sizes, Order, B);
  uint64_t Steps = R.steps(SkipEmpty);
  if (Steps == 0)
    return L;
  std::vector<uint64_t> Displ = prefixSums(Sizes);
  uint32_t K = 0;
  while (Order[K] != Me)
    ++K;
  uint32_t In = (K + P - 1) % P;
  // Link's non-empty sends with their steps: round T without the
  // zero-skip, i + g(i) with it (g grown as i grows).
  struct Sent {
    uint64_t Step;
    uint32_t Link;
    uint64_t Lo, Hi;
  };
  // Walk(Link): its non-empty sends in order (their steps increase). The
  // virtual block V goes down by one per send, so its position is walked
  // down alongside.
  auto Walk = [&](uint32_t Link) {
    std::vector<Sent> Out;
    Out.reserve(R.full(Link));
    uint64_t I = 0, M = 0, Sum = 0;
    int64_t Gain = 0;
    uint64_t V = R.First[Link + 1] - 1;
    uint32_t At = Link;
    for (uint64_t T = 0; T < R.need(Link); ++T) {
      if (T > 0) {
        V = V == 0 ? R.Total - 1 : V - 1;
        while (R.First[At] > V || R.First[At + 1] <= V)
          At = At == 0 ? P - 1 : At - 1;
      }
      Rank Of = Order[At];
      if (Sizes[Of] == 0)
        continue;
      while (M + 1 < P && Sum + R.N[(Link + P - M) % P] <= I) {
        Sum += R.N[(Link + P - M) % P];
        ++M;
        Gain = std::max(Gain, int64_t(M) - int64_t(Sum));
      }
      uint64_t J = V - R.First[At];
      Out.push_back({SkipEmpty ? I + uint64_t(Gain) : T, Link,
                     Displ[Of] + clippedStart(J, B, Sizes[Of]),
                     Displ[Of] + clippedStart(J + 1, B, Sizes[Of])});
      ++I;
    }
    return Out;
  };
  // The whole orders a step's ops by position: merge the two links'.
  std::vector<Sent> First = Walk(std::min(K, In)),
                    Second = Walk(std::max(K, In));
  L.reserve(First.size() + Second.size(), First.size() + Second.size());
  size_t A = 0, C = 0;
  auto Add = [&](const Sent &X) {
    Block Bl;
    Bl.Lo = X.Lo;
    Bl.Hi = X.Hi;
    L.addOp(Order[X.Link], Order[(X.Link + 1) % P], Bl);
  };
  for (uint64_t S = 0; S < Steps; ++S) {
    L.newStep();
    for (; A < First.size() && First[A].Step == S; ++A)
      Add(First[A]);
    for (; C < Second.size() && Second[C].Step == S; ++C)
      Add(Second[C]);
  }
  return L;
}

uint64_t choreo::zeroSkipRounds(llvm::ArrayRef<uint64_t> Sizes,
                                llvm::ArrayRef<Rank> Order, uint64_t B) {
  const size_t P = Sizes.size();
  uint64_t SumCeil = 0, MaxZ = 0, NonEmpty = 0;
  for (size_t K = 0; K < P; ++K) {
    uint64_t M = Sizes[Order[K]];
    if (!M)
      continue;
    ++NonEmpty;
    SumCeil += blocksOf(M, B);
    uint64_t Z = 0;
    while (Z + 1 < P && Sizes[Order[(K + P - 1 - Z) % P]] == 0)
      ++Z;
    MaxZ = std::max(MaxZ, Z);
  }
  if (NonEmpty == 0 || P < 2)
    return 0;
  return SumCeil - 1 + MaxZ;
}

//===----------------------------------------------------------------------===//
// Block size (Section 2.4)
//===----------------------------------------------------------------------===//

AutoBlock choreo::autoBlockBytes(llvm::ArrayRef<uint64_t> Sizes, double Alpha,
                                 double Beta) {
  const uint64_t P = Sizes.size();
  uint64_t Max = 0, Z = 0;
  long double M = 0;
  for (uint64_t X : Sizes) {
    Max = std::max(Max, X);
    Z += X == 0;
    M += X;
  }
  auto Clamp = [&](long double B, BlockRule Rule) {
    if (!(B >= 1)) // also NaN
      B = 1;
    if (B > (long double)Max)
      B = Max;
    return AutoBlock{std::max<uint64_t>(1, uint64_t(std::llround(B))), Rule};
  };
  if (llvm::all_equal(Sizes))
    return {std::max<uint64_t>(Max, 1), BlockRule::Regular};
  if (Beta == 0)
    return Clamp(Max, Z + 1 == P ? BlockRule::Pipeline : BlockRule::Eq2);
  if (Z + 1 == P) {
    // (m/B + p - 2)(alpha + beta B) is least at B = sqrt(m alpha/(beta (p-2))).
    if (P <= 2)
      return Clamp(Max, BlockRule::Pipeline);
    return Clamp(std::sqrt(M * Alpha / (Beta * (P - 2))), BlockRule::Pipeline);
  }
  // Eq. 2 with the rounds of the zero-skip, m/B + (p - z)/2 - 1 + z'
  // (the paper prints (p + z)/2: docs/errata.md, E-003-1).
  long double K = (long double)(P - Z) / 2 - 1 + (long double)(Z / (P - Z));
  if (K <= 0)
    return Clamp(Max, BlockRule::Eq2);
  return Clamp(std::sqrt(M * Alpha / (Beta * K)), BlockRule::Eq2);
}

//===----------------------------------------------------------------------===//
// MPICH's ring
//===----------------------------------------------------------------------===//

namespace {

/// MPICH's loop over contributions in pieces (mpichRingAllgatherv): the
/// slots of Sizes (max(1, ceil(size / Chunk)) a contribution), the fewest
/// of one, and the chunk.
struct MpichRingSlots {
  uint64_t Chunk = 0, Slots = 0, Fewest = UINT64_MAX;
  MpichRingSlots(llvm::ArrayRef<uint64_t> Sizes, uint64_t PipelineBytes) {
    uint64_t Max = *std::max_element(Sizes.begin(), Sizes.end());
    Chunk = PipelineBytes > 0 && Max > PipelineBytes ? PipelineBytes : Max;
    for (uint64_t X : Sizes) {
      uint64_t W = std::max<uint64_t>(1, ceilDiv(X, Chunk));
      Slots += W;
      Fewest = std::min(Fewest, W);
    }
  }
  /// The whole's steps: every slot of the longest loop.
  uint64_t steps() const { return Slots - Fewest; }
};

/// One side (sends or receives) of a rank's MPICH loop: the contribution
/// it is at, the offset in it, and the bytes left. An empty contribution
/// takes one slot with nothing in it, as in MPICH's loop.
struct MpichRingWalk {
  uint32_t Idx = 0;
  uint64_t Off = 0, Left = 0;
  /// This slot's piece [Lo, Hi) (empty when nothing moves), and on to the
  /// next slot.
  std::pair<uint64_t, uint64_t> next(llvm::ArrayRef<uint64_t> Sizes,
                                     llvm::ArrayRef<uint64_t> Displ,
                                     uint64_t Chunk) {
    const uint32_t P = Sizes.size();
    uint64_t Now = Left ? std::min(Chunk, Sizes[Idx] - Off) : 0;
    uint64_t Lo = Displ[Idx] + Off;
    Left -= Now;
    Off += Now;
    if (Off == Sizes[Idx]) {
      Off = 0;
      Idx = (Idx + P - 1) % P;
    }
    return {Lo, Lo + Now};
  }
};

void addMpichRingOp(StepList &L, Rank Src, Rank Dst,
                    std::pair<uint64_t, uint64_t> Piece) {
  if (Piece.first == Piece.second)
    return;
  Block Bl;
  Bl.Lo = Piece.first;
  Bl.Hi = Piece.second;
  L.addOp(Src, Dst, Bl);
}

} // namespace

StepList choreo::mpichRingAllgatherv(llvm::ArrayRef<uint64_t> Sizes,
                                     uint64_t PipelineBytes) {
  const uint32_t P = Sizes.size();
  StepList L;
  std::vector<uint64_t> Displ = prefixSums(Sizes);
  const uint64_t Total = Displ[P];
  if (Total == 0 || P < 2)
    return L;
  MpichRingSlots Slots(Sizes, PipelineBytes);
  // Rank R's sends: contributions R, R - 1, ..., all but R + 1's. Step k
  // holds every rank's k-th send (in rank order), which is its right
  // neighbour's k-th receive.
  std::vector<MpichRingWalk> Send(P);
  for (uint32_t R = 0; R < P; ++R)
    Send[R] = {R, 0, Total - Sizes[(R + 1) % P]};
  for (uint64_t K = 0; K < Slots.steps(); ++K) {
    L.newStep();
    for (uint32_t R = 0; R < P; ++R)
      addMpichRingOp(L, R, (R + 1) % P, Send[R].next(Sizes, Displ, Slots.Chunk));
  }
  return L;
}

StepList choreo::mpichRingAllgathervRank(llvm::ArrayRef<uint64_t> Sizes,
                                         uint64_t PipelineBytes, Rank Me) {
  const uint32_t P = Sizes.size();
  std::vector<uint64_t> Displ = prefixSums(Sizes);
  StepList L;
  const uint64_t Total = Displ[P];
  if (Total == 0 || P < 2)
    return L;
  MpichRingSlots Slots(Sizes, PipelineBytes);
  Rank Left = (Me + P - 1) % P, Right = (Me + 1) % P;
  // Me's sends walk Me, Me - 1, ... (all but Right's); its receives walk
  // Left, Left - 1, ... (all but its own): Left's sends, slot for slot.
  MpichRingWalk Send{Me, 0, Total - Sizes[Right]};
  MpichRingWalk Recv{Left, 0, Total - Sizes[Me]};
  L.reserve(2 * Slots.steps(), 2 * Slots.steps());
  // The whole's order in a step: by sender.
  for (uint64_t K = 0; K < Slots.steps(); ++K) {
    L.newStep();
    auto In = Recv.next(Sizes, Displ, Slots.Chunk);
    auto Out = Send.next(Sizes, Displ, Slots.Chunk);
    if (Left < Me)
      addMpichRingOp(L, Left, Me, In);
    addMpichRingOp(L, Me, Right, Out);
    if (Left > Me)
      addMpichRingOp(L, Left, Me, In);
  }
  return L;
}

llvm::Expected<Schedule> choreo::buildMpichRing(llvm::StringRef Id,
                                                Collective Kind,
                                                llvm::ArrayRef<uint64_t> Sizes,
                                                uint64_t PipelineBytes,
                                                std::optional<Rank> Only) {
  uint64_t N = Sizes.size(), Max = 0, Total = 0;
  for (uint64_t X : Sizes) {
    Max = std::max(Max, X);
    Total += X;
  }
  bool Pieces = PipelineBytes && Max > PipelineBytes;
  uint64_t Chunk = Pieces ? PipelineBytes : std::max<uint64_t>(Max, 1);
  // Each link carries every contribution but one, in pieces of Chunk; a
  // rank's part has two ops per step: p - 1 steps, or one per slot.
  uint64_t Est = satMul(satAdd(Total / Chunk, N), N);
  if (Only)
    Est = Pieces ? satMul(2, satAdd(Total / Chunk, N)) : 2 * N;
  if (auto E = checkOpBudget(Id, Est))
    return E;
  Schedule S;
  S.Kind = Kind;
  setIntragroup(S, Rank(N), Sizes);
  S.Topo = Topology::ring();
  if (Only) {
    if (*Only >= N)
      return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                  " is not below --p " + llvm::Twine(N));
    S.Steps = mpichRingAllgathervRank(Sizes, PipelineBytes, *Only);
    return S;
  }
  S.Steps = mpichRingAllgatherv(Sizes, PipelineBytes);
  return S;
}
