//===- ir/PairMatrix.cpp - The blocks of an alltoall ----------------------===//
///
/// \file
/// Prefix sums over `sizes.pairs` (or the closed form of `sizes.block`) and
/// the lookups on them.
///
//===----------------------------------------------------------------------===//

#include "ir/PairMatrix.h"

#include <algorithm>
#include <optional>

using namespace choreo;

std::optional<uint64_t> choreo::uniformBlockOf(const CallHeader &H) {
  const std::vector<uint64_t> *B = H.sizes("block");
  if (!B || B->size() != 1)
    return std::nullopt;
  return B->front();
}

void choreo::setUniformBlock(CallHeader &H, uint64_t Bytes) {
  H.Sizes = {{"block", {Bytes}}};
}

void choreo::setInterUniformBlock(CallHeader &H, uint64_t AB, uint64_t BA) {
  H.Sizes = {{"block", {AB, BA}}};
}

uint64_t choreo::alltoallLength(const CallHeader &H) {
  if (const std::vector<uint64_t> *Part = H.sizes("part"))
    return Part->size() == 3 ? (*Part)[2] : 0;
  if (const std::vector<uint64_t> *B = H.sizes("block")) {
    if (H.sizes("pairs"))
      return 0;
    if (B->size() == 1)
      return uint64_t(H.NumRanks) * H.NumRanks * B->front();
    if (B->size() == 2) {
      const Group *GA = H.group("A");
      uint64_t PA = GA ? std::min<uint64_t>(GA->Members.size(), H.NumRanks)
                       : 0;
      return PA * (H.NumRanks - PA) * ((*B)[0] + (*B)[1]);
    }
    return 0;
  }
  uint64_t Sum = 0;
  if (const std::vector<uint64_t> *V = H.sizes("pairs"))
    for (uint64_t X : *V)
      Sum = Sum + X < Sum ? UINT64_MAX : Sum + X;
  return Sum;
}

bool choreo::hasRankSizes(const CallHeader &H) {
  return H.sizes("row") || H.sizes("column") || H.sizes("column_at") ||
         H.sizes("part") || H.sizes("used");
}

bool choreo::isPerRankSizesName(llvm::StringRef Name) {
  return Name == "row" || Name == "column" || Name == "column_at" ||
         Name == "part" || Name == "relay";
}

BruckRelays::BruckRelays(Rank P, uint64_t K) : P(P), K(K) {
  if (K < 2)
    return;
  // (Shifts and masks for a power of two: the lookups of a rank's part
  // at p = 65,536 are a million.)
  if (!(K & (K - 1)))
    LogK = unsigned(63 - __builtin_clzll(K));
  // Bruck's rounds: weights K^d below P (as bruckPattern's).
  for (uint64_t X = 1; X < P; X = X > UINT64_MAX / K ? UINT64_MAX : X * K)
    W.push_back(X);
  Off.push_back(0);
  for (unsigned D = 0; D < W.size(); ++D)
    Off.push_back(Off.back() + P - zeros(D, P));
}

uint64_t BruckRelays::zeros(unsigned D, uint64_t N) const {
  uint64_t Wd = W[D];
  if (Wd > UINT64_MAX / K) // K W past 2^64: N < K W
    return std::min(N, Wd);
  uint64_t Cycle = Wd * K;
  if (LogK) { // Cycle = 2^S, Wd = 2^(S - LogK)
    unsigned S = (D + 1) * LogK;
    return ((N >> S) << (S - LogK)) + std::min(N & (Cycle - 1), Wd);
  }
  return N / Cycle * Wd + std::min(N % Cycle, Wd);
}

std::optional<uint64_t> BruckRelays::indexOf(Rank Me, Rank I, Rank J) const {
  if (!P || I >= P || J >= P || Me >= P)
    return std::nullopt;
  uint64_t L = Me >= I ? uint64_t(Me) - I : uint64_t(Me) + P - I,
           B = J >= I ? uint64_t(J) - I : uint64_t(J) + P - I;
  if (!L)
    return std::nullopt;
  // The round in which it arrives: L's highest nonzero digit.
  unsigned D = 0;
  if (LogK == 1) {
    D = unsigned(63 - __builtin_clzll(L));
  } else if (LogK) {
    D = unsigned(63 - __builtin_clzll(L)) / LogK;
  } else {
    while (D + 1 < W.size() && W[D + 1] <= L)
      ++D;
  }
  if (D >= W.size() || low(D, B) != L)
    return std::nullopt;
  return index(D, B);
}

std::vector<uint64_t>
choreo::bruckRelayList(Rank P, uint64_t K, Rank Me,
                       llvm::function_ref<Interval(Rank, Rank)> Block) {
  BruckRelays Br(P, K);
  std::vector<uint64_t> Out;
  Out.reserve(1 + 2 * Br.total());
  Out.push_back(K);
  for (unsigned D = 0; D < Br.rounds(); ++D) {
    uint64_t Wd = Br.weight(D);
    for (uint64_t B = 1; B < P; ++B) {
      if ((B / Wd) % K == 0)
        continue;
      Rank I = Rank((uint64_t(Me) + P - Br.low(D, B)) % P);
      Interval X = Block(I, Rank((uint64_t(I) + B) % P));
      Out.push_back(X.Lo);
      Out.push_back(X.size());
    }
  }
  return Out;
}

void PairMatrix::setRelays(llvm::ArrayRef<uint64_t> L) {
  if (L.empty() || L[0] < 2)
    return;
  BruckRelays Br(P, L[0]);
  if (L.size() != 1 + 2 * Br.total())
    return;
  Relays = std::move(Br);
  RelayList = L.drop_front();
}

Interval PairMatrix::relayBlock(Rank I, Rank J) const {
  if (!Relays.radix())
    return {0, 0};
  std::optional<uint64_t> X = Relays.indexOf(Me, I, J);
  if (!X)
    return {0, 0};
  uint64_t At = RelayList[2 * *X];
  return {At, At + RelayList[2 * *X + 1]};
}

void choreo::setRankSizes(CallHeader &H, RankSizes Rs) {
  H.Sizes.clear();
  H.Sizes.push_back({"part", {Rs.Me, Rs.RowAt, Rs.Total}});
  H.Sizes.push_back({"row", std::move(Rs.Row)});
  H.Sizes.push_back({"column", std::move(Rs.Column)});
  H.Sizes.push_back({"column_at", std::move(Rs.ColumnAt)});
  H.Sizes.push_back({"used", std::move(Rs.Used)});
  if (!Rs.Relay.empty())
    H.Sizes.push_back({"relay", std::move(Rs.Relay)});
}

void choreo::markUsedOffsets(Rank P, Rank Me, llvm::ArrayRef<uint64_t> Row,
                             std::vector<uint64_t> &Used) {
  bool Pow2 = P && !(P & (P - 1));
  for (Rank J = 0; J < P && J < Row.size(); ++J)
    if (Row[J]) {
      Used[(uint64_t(J) + P - Me) % P] |= 1;
      if (Pow2)
        Used[J ^ Me] |= 2;
    }
}

void choreo::markInterUsedOffsets(Rank N, Rank PA, Rank Me,
                                  llvm::ArrayRef<uint64_t> Row,
                                  std::vector<uint64_t> &Used) {
  bool MeA = Me < PA;
  for (Rank J = 0; J < N && J < Row.size(); ++J)
    if (Row[J] && (J < PA) != MeA)
      if (uint64_t St = interStepOf(N, PA, Me, J); St < Used.size())
        Used[St] |= 1;
}

RankSizes choreo::rankSizesOf(const PairMatrix &M, Rank Me, Rank InterA) {
  RankSizes Rs;
  Rank P = M.ranks();
  Rs.Me = Me;
  Rs.RowAt = M.row(Me).Lo;
  Rs.Total = M.total();
  Rs.Row.resize(P);
  Rs.Column.resize(P);
  Rs.ColumnAt.resize(P);
  Rs.Used.assign(P, 0);
  for (Rank J = 0; J < P; ++J) {
    Rs.Row[J] = M.size(Me, J);
    Rs.Column[J] = M.size(J, Me);
    Rs.ColumnAt[J] = M.block(J, Me).Lo;
  }
  // Every rank's row marks its offsets (the job's allreduce, done here).
  std::vector<uint64_t> Row(P);
  for (Rank I = 0; I < P; ++I) {
    for (Rank J = 0; J < P; ++J)
      Row[J] = M.size(I, J);
    if (InterA)
      markInterUsedOffsets(P, InterA, I, Row, Rs.Used);
    else
      markUsedOffsets(P, I, Row, Rs.Used);
  }
  return Rs;
}

PairMatrix PairMatrix::uniform(Rank P, uint64_t Bytes) {
  PairMatrix M;
  M.P = P;
  M.F = Form::Uniform;
  M.Bytes = Bytes;
  return M;
}

PairMatrix PairMatrix::interUniform(Rank P, Rank PA, uint64_t AB,
                                    uint64_t BA) {
  PairMatrix M;
  M.P = P;
  M.F = Form::InterUniform;
  M.PA = std::min(PA, P);
  M.Bytes = AB;
  M.BytesBA = BA;
  return M;
}

PairMatrix PairMatrix::rankView(Rank P, const RankSizes &Rs) {
  PairMatrix M;
  if (Rs.Me >= P || Rs.Row.size() != P || Rs.Column.size() != P ||
      Rs.ColumnAt.size() != P || Rs.Used.size() != P)
    return M;
  M.P = P;
  M.F = Form::RankView;
  M.Me = Rs.Me;
  M.RowAt = Rs.RowAt;
  M.Total = Rs.Total;
  M.Row = Rs.Row;
  M.Col = Rs.Column;
  M.ColAt = Rs.ColumnAt;
  M.Used = Rs.Used;
  M.Off.resize(size_t(P) + 1, 0);
  for (Rank J = 0; J < P; ++J)
    M.Off[J + 1] = M.Off[J] + Rs.Row[J];
  M.setRelays(Rs.Relay);
  return M;
}

PairMatrix::PairMatrix(const CallHeader &H) {
  const std::vector<uint64_t> *V = H.sizes("pairs");
  const std::vector<uint64_t> *B = H.sizes("block");
  Rank N = H.NumRanks;
  if (!N)
    return;
  if (hasRankSizes(H)) {
    const std::vector<uint64_t> *Part = H.sizes("part"), *R = H.sizes("row"),
                                *C = H.sizes("column"),
                                *At = H.sizes("column_at"),
                                *U = H.sizes("used");
    if (V || B || !Part || !R || !C || !At || !U || Part->size() != 3 ||
        (*Part)[0] >= N || R->size() != N || C->size() != N ||
        At->size() != N || U->size() != N)
      return;
    P = N;
    F = Form::RankView;
    Me = Rank((*Part)[0]);
    RowAt = (*Part)[1];
    Total = (*Part)[2];
    Row = *R;
    Col = *C;
    ColAt = *At;
    Used = *U;
    Off.resize(size_t(P) + 1, 0);
    for (Rank J = 0; J < P; ++J)
      Off[J + 1] = Off[J] + Row[J];
    if (const std::vector<uint64_t> *Rl = H.sizes("relay"))
      setRelays(*Rl);
    return;
  }
  if (B && !V) {
    if (B->size() == 1) {
      *this = uniform(N, B->front());
    } else if (B->size() == 2) {
      // An intergroup alltoall's, over groups A = 0..p-1, B = p..N-1.
      const Group *GA = H.group("A");
      if (GA && GA->Members.size() <= N)
        *this = interUniform(N, GA->Members.size(), (*B)[0], (*B)[1]);
    }
  } else if (V && !B && V->size() == uint64_t(N) * N) {
    *this = PairMatrix(N, *V);
  }
}

PairMatrix::PairMatrix(Rank P, llvm::ArrayRef<uint64_t> Pairs)
    : P(P), Pairs(Pairs) {
  if (Pairs.size() != uint64_t(P) * P) {
    this->P = 0;
    this->Pairs = {};
    return;
  }
  Off.resize(Pairs.size() + 1, 0);
  for (size_t K = 0; K < Pairs.size(); ++K)
    Off[K + 1] = Off[K] + Pairs[K];
}

uint64_t PairMatrix::columnBytes(Rank J) const {
  if (F == Form::Uniform)
    return uint64_t(P) * Bytes;
  if (F == Form::InterUniform)
    return J < PA ? uint64_t(P - PA) * BytesBA : uint64_t(PA) * Bytes;
  if (F == Form::RankView && J != Me)
    return 0;
  uint64_t Sum = 0;
  for (Rank I = 0; I < P; ++I)
    Sum += size(I, J);
  return Sum;
}

std::pair<Rank, Rank> PairMatrix::blockAt(uint64_t X) const {
  size_t K;
  if (F == Form::InterUniform) {
    uint64_t Q = P - PA, ARows = uint64_t(PA) * Q * Bytes;
    if (X < ARows) {
      Rank I = Rank(X / (Q * Bytes));
      return {I, Rank(PA + (X - uint64_t(I) * Q * Bytes) / Bytes)};
    }
    uint64_t Y = X - ARows, RowLen = uint64_t(PA) * BytesBA;
    if (!RowLen)
      return {Rank(P - 1), Rank(P - 1)};
    Rank I = Rank(std::min<uint64_t>(PA + Y / RowLen, P - 1));
    return {I, Rank(std::min<uint64_t>((Y % RowLen) / BytesBA, PA - 1))};
  }
  if (F == Form::RankView) {
    // Its row, then its column (block (i, Me) starts are in order of i).
    if (X >= RowAt && X < RowAt + Off[P]) {
      size_t J = std::upper_bound(Off.begin(), Off.end(), X - RowAt) -
                 Off.begin() - 1;
      return {Me, Rank(std::min<size_t>(J, P - 1))};
    }
    size_t I = std::upper_bound(ColAt.begin(), ColAt.end(), X) -
               ColAt.begin();
    return {Rank(I ? I - 1 : 0), Me};
  }
  if (F == Form::Uniform) {
    K = Bytes ? X / Bytes : 0;
    K = std::min<size_t>(K, size_t(P) * P - 1);
  } else {
    K = std::upper_bound(Off.begin(), Off.end(), X) - Off.begin() - 1;
    K = std::min(K, Pairs.size() - 1);
  }
  return {Rank(K / P), Rank(K % P)};
}

bool PairMatrix::offDiagonalEqual() const {
  if (F == Form::Uniform)
    return true;
  if (F == Form::InterUniform) // zeros within a group, then AB and BA
    return P <= 1 ||
           (Bytes == 0 && BytesBA == 0) ||
           (PA <= 1 && P - PA <= 1 && Bytes == BytesBA);
  if (F == Form::RankView)
    return false;
  std::optional<uint64_t> First;
  for (Rank I = 0; I < P; ++I)
    for (Rank J = 0; J < P; ++J) {
      if (I == J)
        continue;
      if (!First)
        First = size(I, J);
      else if (size(I, J) != *First)
        return false;
    }
  return true;
}

bool PairMatrix::allEqual() const {
  if (F == Form::Uniform)
    return true;
  if (F == Form::InterUniform)
    return Bytes == 0 && BytesBA == 0;
  if (F == Form::RankView)
    return false;
  return std::all_of(Pairs.begin(), Pairs.end(),
                     [&](uint64_t X) { return X == Pairs.front(); });
}
