//===- generators/alltoall/AlltoallPatterns.cpp - Alltoall algorithms -----===//
///
/// \file
/// Pairwise, Bruck and scattered as send patterns, and the one builder of
/// their steps (whole or one rank's).
///
//===----------------------------------------------------------------------===//

#include "generators/alltoall/AlltoallPatterns.h"

#include "generators/SizeChecks.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <tuple>

using namespace choreo;

AlltoallPattern::~AlltoallPattern() = default;

void AlltoallPattern::sendsTo(
    unsigned St, Rank R, Rank Dst,
    std::vector<std::pair<size_t, PairMessage>> &Out) const {
  std::vector<PairMessage> All;
  sendsOf(St, R, All);
  for (size_t I = 0; I < All.size(); ++I)
    if (All[I].Dst == Dst)
      Out.push_back({I, std::move(All[I])});
}

std::vector<bool> choreo::usedOffsets(const PairMatrix &M) {
  Rank P = M.ranks();
  if (M.isUniform())
    return std::vector<bool>(P, M.size(0, 0) != 0);
  std::vector<bool> Used(P, false);
  if (M.isRankView()) {
    for (Rank B = 0; B < P; ++B)
      Used[B] = M.usedFlags()[B] & 1;
    return Used;
  }
  for (Rank I = 0; I < P; ++I)
    for (Rank J = 0; J < P; ++J)
      if (M.size(I, J))
        Used[(J + P - I) % P] = true;
  return Used;
}

namespace {

bool isPowerOfTwo(uint64_t X) { return X && !(X & (X - 1)); }

class Pairwise final : public AlltoallPattern {
public:
  explicit Pairwise(const PairMatrix &M)
      : P(M.ranks()), Xor(isPowerOfTwo(M.ranks())), Used(M.ranks(), false) {
    if (M.isUniform()) {
      Used.assign(P, M.size(0, 0) != 0);
      return;
    }
    if (M.isRankView()) { // the offsets the ranks agreed on
      for (Rank D = 0; D < P; ++D)
        Used[D] = M.usedFlags()[D] & (Xor ? 2 : 1);
      return;
    }
    for (Rank I = 0; I < P; ++I)
      for (Rank J = 0; J < P; ++J)
        if (I != J && M.size(I, J))
          Used[Xor ? (I ^ J) : (J + P - I) % P] = true;
  }
  unsigned numSteps() const override { return P ? P - 1 : 0; }
  bool carries(unsigned St) const override { return Used[St + 1]; }
  void sendersTo(unsigned St, Rank Me,
                 std::vector<Rank> &Out) const override {
    Out.push_back(partner(Me, St + 1, false));
  }
  void sendsOf(unsigned St, Rank R,
               std::vector<PairMessage> &Out) const override {
    Rank To = partner(R, St + 1, true);
    Out.push_back({To, {{R, To}}});
  }
  uint64_t opsBound() const override { return uint64_t(P) * P; }

private:
  Rank P;
  bool Xor;
  std::vector<bool> Used; ///< per distance d (XOR or shift)

  /// Step d's peer of R: the receiver of its send (To) or its sender.
  Rank partner(Rank R, Rank D, bool To) const {
    if (Xor)
      return R ^ D;
    return To ? (R + D) % P : (R + P - D) % P;
  }
};

class Bruck final : public AlltoallPattern {
public:
  Bruck(const PairMatrix &M, uint64_t K, bool Concurrent, bool Lattice)
      : P(M.ranks()), K(K), Concurrent(Concurrent),
        Rects(Lattice && M.isUniform()) {
    // Rounds d with weight K^d < p; in each, the digit values v with
    // v K^d < p (some offset below p has that digit).
    for (uint64_t W = 1; W < P; W = satMul(W, K)) {
      Weights.push_back(W);
      uint64_t Values = std::min<uint64_t>(K - 1, (P - 1) / W);
      MaxValues = std::max(MaxValues, Values);
      if (Concurrent)
        Steps.push_back({unsigned(Weights.size() - 1), 0});
      else
        for (uint64_t V = 1; V <= Values; ++V)
          Steps.push_back({unsigned(Weights.size() - 1), V});
    }
    // What a rank sends: in the step of digit value v at weight W, a block
    // for every offset b < p whose digit is v.
    for (const Step &S : Steps)
      for (uint64_t V = 1; V < K && V * Weights[S.D] < P; ++V)
        if (!S.V || S.V == V)
          Sent = satAdd(Sent, withDigit(Weights[S.D], V));
    // A step carries when some used offset b has its digit.
    std::vector<bool> Used = usedOffsets(M);
    Carries.assign(Steps.size(), false);
    for (unsigned S = 0; S < Steps.size(); ++S)
      for (Rank B = 1; B < P && !Carries[S]; ++B)
        if (Used[B]) {
          uint64_t Digit = digit(B, Steps[S].D);
          Carries[S] = Steps[S].V ? Digit == Steps[S].V : Digit != 0;
        }
  }
  unsigned numSteps() const override { return Steps.size(); }
  bool carries(unsigned St) const override { return Carries[St]; }
  void sendersTo(unsigned St, Rank Me,
                 std::vector<Rank> &Out) const override {
    forValues(St, [&](uint64_t V, uint64_t W) {
      Out.push_back(Rank((Me + P - (V * W) % P) % P));
    });
  }
  void sendsOf(unsigned St, Rank R,
               std::vector<PairMessage> &Out) const override {
    forValues(St, [&](uint64_t V, uint64_t W) { sendsOfValue(R, V, W, Out); });
  }
  void sendsTo(unsigned St, Rank R, Rank Dst,
               std::vector<std::pair<size_t, PairMessage>> &Out)
      const override {
    // R sends Dst iff Dst - R is v W for a value v of the step: its
    // message of that value only (the v-th of sendsOf's when concurrent).
    uint64_t W = Weights[Steps[St].D], Dist = (uint64_t(Dst) + P - R) % P;
    if (Dist % W)
      return;
    uint64_t V = Dist / W;
    if (V == 0 || V >= K || (Steps[St].V && Steps[St].V != V))
      return;
    std::vector<PairMessage> One;
    sendsOfValue(R, V, W, One);
    Out.push_back({size_t(Steps[St].V ? 0 : V - 1), std::move(One.front())});
  }
  bool hasRects() const override { return Rects; }
  void rectsOf(unsigned St, Rank R,
               std::vector<RectMessage> &Out) const override {
    forValues(St, [&](uint64_t V, uint64_t W) {
      RectMessage Msg{Rank((R + V * W) % P), {}};
      // sendsOf's blocks (I, J) = (R - Low, R + V W + Mi W K) for
      // Low < W and Mi < NM with b = V W + Mi W K + Low < p: every column
      // Mi but the last has W rows, the last Last rows. Cut where I wraps
      // below 0 and where J wraps past p - 1: at most eight rectangles.
      uint64_t Up = satMul(W, K), First = V * W;
      uint64_t NM = (P - 1 - First) / Up + 1;
      uint64_t Last = std::min<uint64_t>(W, P - First - (NM - 1) * Up);
      auto Add = [&](uint64_t L0, uint64_t L1, uint64_t M0, uint64_t M1) {
        if (L0 >= L1 || M0 >= M1)
          return;
        // I = R - l: rows without wrap (l <= R), then wrapped (l > R).
        uint64_t Split = uint64_t(R) + 1;
        std::pair<uint64_t, uint64_t> Ls[2] = {
            {L0, std::min(L1, Split)}, {std::max(L0, Split), L1}};
        // J = R + V W + m Up: columns before the wrap past p - 1, then after.
        uint64_t Base = uint64_t(R) + First;
        uint64_t Wrap = Base >= P ? 0 : (P - Base + Up - 1) / Up;
        std::pair<uint64_t, uint64_t> Ms[2] = {
            {M0, std::min(M1, Wrap)}, {std::max(M0, Wrap), M1}};
        for (auto [La, Lb] : Ls)
          for (auto [Ma, Mb] : Ms) {
            if (La >= Lb || Ma >= Mb)
              continue;
            PairRect X;
            // Rows I from R - (Lb - 1) to R - La, taken mod p.
            X.I0 = Rank((uint64_t(R) + P - (Lb - 1)) % P);
            X.Rows = uint32_t(Lb - La);
            X.J0 = Rank((Base + Ma * Up) % P);
            X.Cols = uint32_t(Mb - Ma);
            X.JStride = X.Cols > 1 ? Up : P;
            Msg.Rects.push_back(X);
          }
      };
      Add(0, Last, 0, NM);
      Add(Last, W, 0, NM - 1);
      Out.push_back(std::move(Msg));
    });
  }
  bool relays() const override { return true; }
  uint32_t ports() const override {
    return Concurrent ? uint32_t(std::max<uint64_t>(MaxValues, 1)) : 1;
  }
  uint64_t opsBound() const override {
    return satMul(P, satMul(Steps.size(), ports()));
  }
  uint64_t blocksBound() const override {
    if (Rects) // at most eight rectangles a message
      return satMul(8, opsBound());
    // Every block moves once per nonzero digit of its offset.
    return satMul(satMul(P, P), Weights.size());
  }
  uint64_t sentBlocksBound() const override {
    return Rects ? satMul(8, satMul(Steps.size(), ports())) : Sent;
  }

private:
  struct Step {
    unsigned D;
    uint64_t V; ///< 0: every value (concurrent)
  };
  Rank P;
  uint64_t K;
  bool Concurrent;
  bool Rects; ///< messages as rectangles (lattice blocks)
  uint64_t MaxValues = 0;
  uint64_t Sent = 0; ///< blocks a rank sends, empty ones included
  std::vector<uint64_t> Weights;
  std::vector<Step> Steps;
  std::vector<bool> Carries;

  /// R's message of digit value V at weight W, appended to Out.
  void sendsOfValue(Rank R, uint64_t V, uint64_t W,
                    std::vector<PairMessage> &Out) const {
    PairMessage Msg{Rank((R + V * W) % P), {}};
    // Offsets b = Low + V W + High W K with Low < W, in increasing b:
    // block (R - Low, R - Low + b) has reached R after the lower digits.
    uint64_t Up = satMul(W, K);
    Msg.Blocks.reserve(withDigit(W, V));
    // (R - Low and I + B below 2p: a subtraction, no division.)
    auto Wrap = [&](uint64_t X) { return Rank(X >= P ? X - P : X); };
    for (uint64_t Base = V * W; Base < P; Base = satAdd(Base, Up))
      for (uint64_t Low = 0; Low < W; ++Low) {
        uint64_t B = Base + Low;
        if (B >= P)
          break;
        Rank I = Wrap(uint64_t(R) + P - Low);
        Msg.Blocks.push_back({I, Wrap(uint64_t(I) + B)});
      }
    Out.push_back(std::move(Msg));
  }
  /// How many offsets b < p have digit V at weight W.
  uint64_t withDigit(uint64_t W, uint64_t V) const {
    uint64_t Cycle = satMul(W, K);
    uint64_t Full = P / Cycle, Rest = P % Cycle;
    uint64_t Part = Rest > V * W ? std::min(Rest - V * W, W) : 0;
    return Full * W + Part;
  }
  uint64_t digit(uint64_t B, unsigned D) const {
    return (B / Weights[D]) % K;
  }
  template <class Fn> void forValues(unsigned St, Fn F) const {
    uint64_t W = Weights[Steps[St].D];
    if (Steps[St].V) {
      F(Steps[St].V, W);
      return;
    }
    for (uint64_t V = 1; V < K && V * W < P; ++V)
      F(V, W);
  }
};

class Scattered final : public AlltoallPattern {
public:
  Scattered(const PairMatrix &M, uint64_t Batch)
      : P(M.ranks()), Batch(Batch == 0 || Batch > P ? std::max<Rank>(P, 1)
                                                    : Batch) {
    std::vector<bool> Used = usedOffsets(M);
    for (unsigned S = 0; S < numSteps(); ++S) {
      bool Any = false;
      uint32_t N = 0;
      forDistances(S, [&](Rank D) {
        Any |= bool(Used[(P - D) % P]);
        ++N;
      });
      Carries.push_back(Any);
      Most = std::max(Most, N);
    }
  }
  unsigned numSteps() const override {
    return P ? unsigned((uint64_t(P) + Batch - 1) / Batch) : 0;
  }
  bool carries(unsigned St) const override { return Carries[St]; }
  void sendersTo(unsigned St, Rank Me,
                 std::vector<Rank> &Out) const override {
    forDistances(St, [&](Rank D) { Out.push_back((Me + D) % P); });
  }
  void sendsOf(unsigned St, Rank R,
               std::vector<PairMessage> &Out) const override {
    forDistances(St, [&](Rank D) {
      Rank To = (R + P - D) % P;
      Out.push_back({To, {{R, To}}});
    });
  }
  void sendsTo(unsigned St, Rank R, Rank Dst,
               std::vector<std::pair<size_t, PairMessage>> &Out)
      const override {
    // R sends Dst at distance D = R - Dst, the (D - first)-th distance of
    // the step (distance 0 is no message).
    uint64_t D = (uint64_t(R) + P - Dst) % P,
             First = uint64_t(St) * Batch,
             Last = std::min<uint64_t>(First + Batch, P);
    if (D == 0 || D < First || D >= Last)
      return;
    Out.push_back({size_t(D - First - (First == 0)), {Dst, {{R, Dst}}}});
  }
  uint32_t ports() const override { return std::max<uint32_t>(Most, 1); }
  uint64_t opsBound() const override { return uint64_t(P) * P; }

private:
  Rank P;
  uint64_t Batch;
  uint32_t Most = 0;
  std::vector<bool> Carries;

  /// The distances of step S but 0.
  template <class Fn> void forDistances(unsigned S, Fn F) const {
    uint64_t First = uint64_t(S) * Batch,
             Last = std::min<uint64_t>(First + Batch, P);
    for (uint64_t D = First; D < Last; ++D)
      if (D)
        F(Rank(D));
  }
};

/// Appends the message's non-empty blocks to Out, adjacent ones merged.
void messageBlocks(const PairMatrix &M, const PairMessage &Msg,
                   std::vector<Block> &Out) {
  Out.clear();
  for (const PairBlock &PB : Msg.Blocks) {
    Interval X = M.block(PB.I, PB.J);
    if (!X.size())
      continue;
    if (!Out.empty() && Out.back().Hi == X.Lo) {
      Out.back().Hi = X.Hi;
      continue;
    }
    Out.push_back(Block{X.Lo, X.Hi, 0});
  }
}

/// Appends the message's rectangles to L's lattices and their blocks to
/// Out (the matrix is uniform: block (I, J) is bytes [(I p + J) s, + s)).
void rectBlocks(const PairMatrix &M, const RectMessage &Msg, StepList &L,
                std::vector<Block> &Out) {
  Out.clear();
  uint64_t S = M.size(0, 0), P = M.ranks();
  if (!S)
    return;
  for (const PairRect &X : Msg.Rects) {
    Lattice Y;
    Y.Start = (uint64_t(X.I0) * P + X.J0) * S;
    Y.Elem = S;
    Y.RowStride = P * S;
    Y.Rows = X.Rows;
    Y.ColStride = X.JStride * S;
    Y.Cols = X.Cols;
    Out.push_back(L.latticeBlock(0, Y));
  }
}

/// The senders of step St whose messages a build keeps, in rank order:
/// with Only, Only and the ranks that send to it; else every rank.
void stepSenders(const AlltoallPattern &Pat, unsigned St, uint32_t Ranks,
                 std::optional<Rank> Only, std::vector<Rank> &Senders) {
  Senders.clear();
  if (Only) {
    Pat.sendersTo(St, *Only, Senders);
    Senders.push_back(*Only);
    llvm::sort(Senders);
    Senders.erase(std::unique(Senders.begin(), Senders.end()), Senders.end());
  } else {
    for (Rank R = 0; R < Ranks; ++R)
      Senders.push_back(R);
  }
}

/// Adds step St's messages message-major (every sender's first message,
/// then every sender's second, ...), keeping with Only those Only sends or
/// receives: Fetch(R, Out) lists R's messages, BlocksOf(Msg) fills Blocks.
template <class Message, class FetchFn, class BlocksFn>
void addMessageMajor(llvm::ArrayRef<Rank> Senders, std::optional<Rank> Only,
                     std::vector<std::vector<Message>> &PerSender,
                     StepList &L, std::vector<Block> &Blocks, FetchFn Fetch,
                     BlocksFn BlocksOf) {
  PerSender.resize(Senders.size());
  size_t Most = 0;
  for (size_t K = 0; K < Senders.size(); ++K) {
    PerSender[K].clear();
    Fetch(Senders[K], PerSender[K]);
    Most = std::max(Most, PerSender[K].size());
  }
  for (size_t I = 0; I < Most; ++I)
    for (size_t K = 0; K < Senders.size(); ++K) {
      if (I >= PerSender[K].size())
        continue;
      Rank R = Senders[K];
      const Message &Msg = PerSender[K][I];
      if (Only && R != *Only && Msg.Dst != *Only)
        continue;
      BlocksOf(Msg);
      if (!Blocks.empty())
        L.addOp(R, Msg.Dst, Blocks);
    }
}

/// buildAlltoall for a pattern of rectangles (the same steps, messages and
/// order, blocks as lattices).
StepList buildRects(const PairMatrix &M, const AlltoallPattern &Pat,
                    std::optional<Rank> Only) {
  StepList L;
  if (Only)
    L.reserve(Pat.rankOpsBound(), Pat.rankBlocksBound());
  std::vector<std::vector<RectMessage>> PerSender;
  std::vector<Rank> Senders;
  std::vector<Block> Blocks;
  for (unsigned St = 0; St < Pat.numSteps(); ++St) {
    if (!Pat.carries(St))
      continue;
    L.newStep();
    stepSenders(Pat, St, M.ranks(), Only, Senders);
    // Message-major, as buildAlltoall: every sender's first message, then
    // every sender's second, ...
    addMessageMajor(
        Senders, Only, PerSender, L, Blocks,
        [&](Rank R, std::vector<RectMessage> &Out) {
          Pat.rectsOf(St, R, Out);
        },
        [&](const RectMessage &Msg) { rectBlocks(M, Msg, L, Blocks); });
  }
  return L;
}

} // namespace

std::unique_ptr<AlltoallPattern> choreo::pairwisePattern(const PairMatrix &M) {
  return std::make_unique<Pairwise>(M);
}

std::unique_ptr<AlltoallPattern>
choreo::bruckPattern(const PairMatrix &M, uint64_t Radix, bool Concurrent,
                     bool Lattice) {
  return std::make_unique<Bruck>(M, Radix, Concurrent, Lattice);
}

std::unique_ptr<AlltoallPattern> choreo::scatteredPattern(const PairMatrix &M,
                                                          uint64_t Batch) {
  return std::make_unique<Scattered>(M, Batch);
}

StepList choreo::buildAlltoall(const PairMatrix &M, const AlltoallPattern &Pat,
                               std::optional<Rank> Only) {
  if (Pat.hasRects())
    return buildRects(M, Pat, Only);
  StepList L;
  // Room for the ops and blocks at once (a rank's Bruck part is about
  // p log p blocks: growing it by doubling would hold twice that).
  if (Only)
    L.reserve(Pat.rankOpsBound(), Pat.rankBlocksBound());
  else
    L.reserve(std::min<uint64_t>(Pat.opsBound(), BuildLimit),
              std::min<uint64_t>(satMul(M.ranks(), Pat.sentBlocksBound()),
                                 BuildLimit));
  std::vector<std::vector<PairMessage>> PerSender;
  std::vector<std::pair<size_t, PairMessage>> Mine;
  std::vector<std::tuple<size_t, size_t, size_t>> Order;
  std::vector<Rank> Senders;
  std::vector<Block> Blocks;
  for (unsigned St = 0; St < Pat.numSteps(); ++St) {
    if (!Pat.carries(St))
      continue;
    L.newStep();
    stepSenders(Pat, St, M.ranks(), Only, Senders);
    // Message-major: every sender's first message, then every sender's
    // second, ... (the order a batch's messages travel in when a rank has
    // fewer ports than messages: the cost model prices channels in list
    // order, docs/cost.md).
    if (Only) {
      // Only's own messages and its senders' to it, in that order: by
      // message index, then sender.
      Mine.clear();
      for (size_t K = 0; K < Senders.size(); ++K) {
        size_t From = Mine.size();
        if (Senders[K] == *Only) {
          PerSender.resize(1);
          PerSender[0].clear();
          Pat.sendsOf(St, *Only, PerSender[0]);
          for (size_t I = 0; I < PerSender[0].size(); ++I)
            Mine.push_back({I, std::move(PerSender[0][I])});
        } else {
          Pat.sendsTo(St, Senders[K], *Only, Mine);
        }
        for (size_t I = From; I < Mine.size(); ++I)
          Order.push_back({Mine[I].first, K, I});
      }
      llvm::sort(Order);
      for (auto [I, K, At] : Order) {
        messageBlocks(M, Mine[At].second, Blocks);
        if (!Blocks.empty())
          L.addOp(Senders[K], Mine[At].second.Dst, Blocks);
      }
      Order.clear();
      continue;
    }
    addMessageMajor(
        Senders, Only, PerSender, L, Blocks,
        [&](Rank R, std::vector<PairMessage> &Out) {
          Pat.sendsOf(St, R, Out);
        },
        [&](const PairMessage &Msg) { messageBlocks(M, Msg, Blocks); });
  }
  return L;
}
