//===- executor/AlltoallLayout.cpp - An alltoall in the user's buffers ----===//
///
/// \file
/// One rank's pieces of buffer `all`: its row in the send buffer, its
/// column in the receive buffer, the blocks it relays in scratch.
///
//===----------------------------------------------------------------------===//

#include "executor/AlltoallLayout.h"

#include "ir/Diagnostics.h"
#include "ir/PairMatrix.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <numeric>

using namespace choreo;
using llvm::formatv;

namespace {

/// The relayed bytes cut where a use starts or ends, each atom live from
/// the first step a use touches it to the last, adjacent atoms of the same
/// steps joined: one piece and one area each (the piece's Offset the
/// area's index until the areas are placed).
void layOutRelayed(const IntervalSet &Relayed, llvm::ArrayRef<RangeUse> Uses,
                   std::vector<LaidPiece> &Work,
                   std::vector<ScratchArea> &Areas) {
  std::vector<uint64_t> Cuts;
  for (const Interval &I : Relayed.intervals()) {
    Cuts.push_back(I.Lo);
    Cuts.push_back(I.Hi);
  }
  std::vector<size_t> Order;
  for (size_t J = 0; J < Uses.size(); ++J)
    if (Relayed.intersects(Uses[J].Lo, Uses[J].Hi)) {
      Cuts.push_back(Uses[J].Lo);
      Cuts.push_back(Uses[J].Hi);
      Order.push_back(J);
    }
  llvm::sort(Cuts);
  Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
  // Atom K is [Cuts[K], Cuts[K + 1]); its first and last step, assigned
  // by uses in step order (and reverse), each atom once: a union-find's
  // next unassigned atom.
  size_t N = Cuts.size() - 1;
  std::vector<uint32_t> FirstOf(N, UINT32_MAX), LastOf(N, 0);
  llvm::stable_sort(Order, [&](size_t A, size_t B) {
    return Uses[A].Step < Uses[B].Step;
  });
  auto Sweep = [&](bool Forward) {
    std::vector<size_t> Next(N + 1);
    std::iota(Next.begin(), Next.end(), size_t(0));
    auto Find = [&](size_t K) {
      size_t R = K;
      while (Next[R] != R)
        R = Next[R];
      while (Next[K] != R) {
        size_t X = Next[K];
        Next[K] = R;
        K = X;
      }
      return R;
    };
    for (size_t J = 0; J < Order.size(); ++J) {
      const RangeUse &U = Uses[Order[Forward ? J : Order.size() - 1 - J]];
      size_t K = std::upper_bound(Cuts.begin(), Cuts.end(), U.Lo) -
                 Cuts.begin();
      K = K ? K - 1 : 0;
      for (K = Find(K); K < N && Cuts[K] < U.Hi; K = Find(K + 1)) {
        (Forward ? FirstOf[K] : LastOf[K]) = U.Step;
        Next[K] = K + 1;
      }
    }
  };
  Sweep(true);
  Sweep(false);
  for (size_t K = 0; K < N; ++K) {
    uint64_t Lo = Cuts[K], Hi = Cuts[K + 1];
    if (!Relayed.contains(Lo, Hi))
      continue;
    uint32_t F = FirstOf[K] == UINT32_MAX ? 0 : FirstOf[K], L = LastOf[K];
    if (!Work.empty() && Work.back().R == Region::Scratch &&
        Work.back().Hi == Lo && Areas[Work.back().Offset].First == F &&
        Areas[Work.back().Offset].Last == L) {
      Work.back().Hi = Hi;
      Areas[Work.back().Offset].Bytes += Hi - Lo;
      continue;
    }
    Areas.push_back({Hi - Lo, F, std::max(F, L), 0});
    Work.push_back({Lo, Hi, Region::Scratch, Areas.size() - 1});
  }
}

} // namespace

llvm::Expected<AlltoallLayout>
choreo::layOutAlltoall(const CallHeader &H, Rank Me, const IntervalSet &Touched,
                       llvm::ArrayRef<RangeUse> Uses,
                       llvm::ArrayRef<uint64_t> SendDispls,
                       llvm::ArrayRef<uint64_t> RecvDispls,
                       uint64_t ScratchBase) {
  PairMatrix M(H);
  Rank P = M.ranks();
  for (auto [List, What] :
       {std::pair{SendDispls, "send"}, std::pair{RecvDispls, "receive"}})
    if (!List.empty() && List.size() != P)
      return makeDiagError("executor",
                           formatv("{0} {1} displacements for the {2} ranks of "
                                   "the alltoall",
                                   List.size(), What, P));
  AlltoallLayout Out;
  uint64_t SendAt = 0, RecvAt = 0;
  IntervalSet Mine;
  for (Rank J = 0; J < P; ++J) {
    // Block (Me, J): where the user's send buffer has it.
    Interval Row = M.block(Me, J);
    uint64_t S = SendDispls.empty() ? SendAt : SendDispls[J];
    SendAt += Row.size();
    if (Row.size()) {
      Out.Input.push_back({Row.Lo, Row.Hi, Region::Send, S});
      Out.SendExtent = std::max(Out.SendExtent, S + Row.size());
    }
    // Block (J, Me): where the user's receive buffer wants it.
    Interval Col = M.block(J, Me);
    uint64_t R = RecvDispls.empty() ? RecvAt : RecvDispls[J];
    RecvAt += Col.size();
    if (Col.size()) {
      Out.Work.push_back({Col.Lo, Col.Hi, Region::Recv, R});
      Out.RecvExtent = std::max(Out.RecvExtent, R + Col.size());
      Mine.insert(Col.Lo, Col.Hi);
    }
    // The diagonal block works in the receive buffer.
    if (J != Me && Row.size()) {
      Out.Work.push_back({Row.Lo, Row.Hi, Region::Send, S});
      Mine.insert(Row.Lo, Row.Hi);
    }
  }
  // What the rank relays: in scratch, an area per run of bytes first
  // received and last sent in the same steps, reused once sent.
  IntervalSet Relayed = Touched;
  for (const Interval &I : Mine.intervals())
    Relayed.erase(I.Lo, I.Hi);
  if (!Relayed.empty()) {
    size_t First = Out.Work.size();
    layOutRelayed(Relayed, Uses, Out.Work, Out.Areas);
    Out.ScratchBytes = allocateScratch(Out.Areas, ScratchBase);
    for (size_t W = First; W < Out.Work.size(); ++W)
      Out.Work[W].Offset = Out.Areas[Out.Work[W].Offset].Offset;
  }
  llvm::sort(Out.Work, [](const LaidPiece &A, const LaidPiece &B) {
    return A.Lo < B.Lo;
  });
  return Out;
}

std::optional<BlockRect> choreo::blockRect(const Lattice &X, uint64_t S,
                                           uint64_t P) {
  if (!S || !P || X.Elem != S || X.Start % S || !X.Rows || !X.Cols)
    return std::nullopt;
  BlockRect R;
  uint64_t First = X.Start / S;
  R.I0 = First / P;
  R.J0 = First % P;
  R.Rows = X.Rows;
  R.Cols = X.Cols;
  if (X.Rows > 1 && X.RowStride != P * S)
    return std::nullopt;
  if (R.I0 + X.Rows > P)
    return std::nullopt;
  if (X.Cols > 1) {
    if (X.ColStride % S || !X.ColStride)
      return std::nullopt;
    R.Q = X.ColStride / S;
    // Every column within the row (the last below p).
    if (R.Q > P || R.J0 + uint64_t(X.Cols - 1) * R.Q >= P)
      return std::nullopt;
  }
  return R;
}

namespace {

using U128 = unsigned __int128;
using I128 = __int128;

/// The inverse of A modulo N (gcd(A, N) = 1, N >= 1).
uint64_t inverseMod(uint64_t A, uint64_t N) {
  I128 R0 = N, R1 = A % N, T0 = 0, T1 = 1;
  while (R1) {
    I128 Q = R0 / R1;
    I128 R2 = R0 - Q * R1, T2 = T0 - Q * T1;
    R0 = R1, R1 = R2, T0 = T1, T1 = T2;
  }
  I128 T = T0 % I128(N);
  return uint64_t(T < 0 ? T + N : T);
}

/// The destinations of a rectangle: First, First + Q, ... Last.
struct Run {
  uint64_t First, Last, Q;
};

Run runOf(const BlockRect &A) {
  return {A.J0, A.J0 + (A.Cols > 1 ? uint64_t(A.Cols - 1) * A.Q : 0),
          A.Cols > 1 ? A.Q : 0};
}

bool inRun(const Run &R, uint64_t J) {
  return J >= R.First && J <= R.Last && (R.Q ? (J - R.First) % R.Q == 0
                                             : J == R.First);
}

} // namespace

BlockRect choreo::intersectRects(const BlockRect &A, const BlockRect &B) {
  BlockRect Out;
  uint64_t Lo = std::max(A.I0, B.I0),
           Hi = std::min(A.I0 + A.Rows, B.I0 + B.Rows);
  if (Lo >= Hi)
    return Out;
  Run X = runOf(A), Y = runOf(B);
  uint64_t From = std::max(X.First, Y.First), To = std::min(X.Last, Y.Last);
  if (From > To)
    return Out;
  uint64_t J = 0, Step = 0;
  if (!X.Q || !Y.Q) {
    // One of them is one column: that destination, if the other has it.
    J = !X.Q ? X.First : Y.First;
    if (!inRun(X, J) || !inRun(Y, J))
      return Out;
  } else {
    // J = X.First (mod X.Q) and J = Y.First (mod Y.Q).
    uint64_t G = std::gcd(X.Q, Y.Q);
    I128 Diff = I128(Y.First) - I128(X.First);
    if (Diff % I128(G))
      return Out;
    uint64_t N = Y.Q / G;
    U128 L = U128(X.Q / G) * Y.Q;
    I128 D = (Diff / I128(G)) % I128(N);
    if (D < 0)
      D += N;
    U128 T = N == 1 ? 0 : U128(D) * inverseMod((X.Q / G) % N, N) % N;
    U128 R = (U128(X.First) + U128(X.Q) * T) % L;
    U128 First = U128(From) + (R + L - U128(From) % L) % L;
    if (First > To)
      return Out;
    J = uint64_t(First);
    Step = L > To - J ? 0 : uint64_t(L);
  }
  Out.I0 = Lo;
  Out.Rows = uint32_t(Hi - Lo);
  Out.J0 = J;
  Out.Cols = Step ? uint32_t((To - J) / Step + 1) : 1;
  Out.Q = Out.Cols > 1 ? Step : 0;
  return Out;
}

std::optional<RectLayout>
choreo::layOutAlltoallRects(uint64_t P, uint64_t S, Rank Me,
                            llvm::ArrayRef<StepRect> Received,
                            llvm::ArrayRef<StepRect> Sent,
                            uint64_t ScratchBase) {
  RectLayout Out;
  auto Rect = [](uint64_t I0, uint64_t Rows, uint64_t J0, uint64_t Cols,
                 uint64_t Q) {
    BlockRect X;
    X.I0 = I0, X.Rows = uint32_t(Rows), X.J0 = J0, X.Cols = uint32_t(Cols);
    X.Q = Cols > 1 ? Q : 0;
    return X;
  };
  // Its row but the diagonal block: the send buffer, block (Me, J) at J s.
  if (Me > 0)
    Out.Work.push_back({Rect(Me, 1, 0, Me, 1), Region::Send, 0, 0,
                        int64_t(S)});
  if (Me + 1 < P)
    Out.Work.push_back({Rect(Me, 1, Me + 1, P - Me - 1, 1), Region::Send,
                        (Me + 1) * S, 0, int64_t(S)});
  // Its column: the receive buffer, block (I, Me) at I s.
  Out.Work.push_back(
      {Rect(0, P, Me, 1, 0), Region::Recv, 0, int64_t(S), 0});
  BlockRect Row = Rect(Me, 1, 0, P, 1);
  for (size_t K = 0; K < Received.size(); ++K) {
    if (intersectRects(Received[K].X, Row).Rows)
      return std::nullopt; // a block of its own row received
    for (size_t L = 0; L < K; ++L)
      if (intersectRects(Received[K].X, Received[L].X).Rows)
        return std::nullopt; // a block received twice
  }
  // Every other block received: in scratch, its blocks row by row; the
  // column Me of it (if any) lives in the receive buffer. The scratch
  // pieces' offsets are relative to their area's until it is placed.
  std::vector<uint32_t> AreaOf(Out.Work.size(), UINT32_MAX);
  auto AddArea = [&](uint64_t Bytes, uint32_t First, uint32_t Last) {
    Out.Areas.push_back({Bytes, First, std::max(First, Last), 0});
    return uint32_t(Out.Areas.size() - 1);
  };
  std::vector<std::pair<BlockRect, uint32_t>> Parts;
  for (const StepRect &R : Received) {
    const BlockRect &X = R.X;
    Run C = runOf(X);
    bool HasMine = inRun(C, Me);
    if (HasMine && X.Cols == 1)
      continue;
    // The parts of X each send takes: an area each when they are disjoint
    // and cover X but its column Me (each then free after its own send);
    // else one area until X's last send.
    Parts.clear();
    bool Exact = true;
    uint64_t Covered = HasMine ? X.Rows : 0;
    uint32_t Last = R.Step;
    for (const StepRect &Y : Sent) {
      BlockRect Z = intersectRects(X, Y.X);
      if (!Z.Rows)
        continue;
      Last = std::max(Last, Y.Step);
      if (!Exact)
        continue;
      if ((HasMine && inRun(runOf(Z), Me)) || Parts.size() >= 256) {
        Exact = false;
        continue;
      }
      for (const auto &Q : Parts)
        if (intersectRects(Q.first, Z).Rows)
          Exact = false; // a block sent twice: X lives until the last
      Covered += Z.count();
      Parts.push_back({Z, Y.Step});
    }
    if (Exact && Covered == X.count()) {
      for (const auto &[Z, Step] : Parts) {
        AreaOf.push_back(AddArea(Z.count() * S, R.Step, Step));
        Out.Work.push_back({Z, Region::Scratch, 0,
                            int64_t(uint64_t(Z.Cols) * S), int64_t(S)});
      }
      continue;
    }
    uint32_t Area = AddArea(X.count() * S, R.Step, Last);
    uint64_t Cut = HasMine ? (Me - X.J0) / X.Q : X.Cols;
    auto Add = [&](uint64_t C0, uint64_t C1) {
      if (C0 >= C1)
        return;
      AreaOf.push_back(Area);
      Out.Work.push_back({Rect(X.I0, X.Rows, X.J0 + C0 * X.Q, C1 - C0, X.Q),
                          Region::Scratch, C0 * S,
                          int64_t(uint64_t(X.Cols) * S), int64_t(S)});
    };
    Add(0, Cut);
    if (HasMine)
      Add(Cut + 1, X.Cols);
  }
  Out.ScratchBytes = allocateScratch(Out.Areas, ScratchBase);
  for (size_t W = 0; W < Out.Work.size(); ++W)
    if (AreaOf[W] != UINT32_MAX)
      Out.Work[W].Offset += Out.Areas[AreaOf[W]].Offset;
  return Out;
}

bool choreo::rectPieces(const RectLayout &L, const BlockRect &Y, uint64_t S,
                        uint64_t At, std::vector<LatticePiece> &Out) {
  uint64_t Found = 0;
  for (const LaidRect &W : L.Work) {
    BlockRect Z = intersectRects(Y, W.X);
    if (!Z.Rows)
      continue;
    Found += Z.count();
    LatticePiece X;
    X.R = W.R;
    uint64_t CW = W.X.Q ? (Z.J0 - W.X.J0) / W.X.Q : 0;
    X.Offset = uint64_t(int64_t(W.Offset) +
                        int64_t(Z.I0 - W.X.I0) * W.RowStride +
                        int64_t(CW) * W.ColStride);
    X.RowStride = Z.Rows > 1 ? W.RowStride : 0;
    X.ColStride = Z.Cols > 1 ? int64_t(Z.Q / W.X.Q) * W.ColStride : 0;
    uint64_t CY = Y.Q ? (Z.J0 - Y.J0) / Y.Q : 0;
    X.At = At + ((Z.I0 - Y.I0) * Y.Cols + CY) * S;
    X.AtRow = Z.Rows > 1 ? uint64_t(Y.Cols) * S : 0;
    X.AtCol = Z.Cols > 1 ? (Z.Q / Y.Q) * S : 0;
    X.Rows = Z.Rows;
    X.Cols = Z.Cols;
    X.Elem = S;
    Out.push_back(X);
  }
  return Found == Y.count();
}
