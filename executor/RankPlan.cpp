//===- executor/RankPlan.cpp - One rank's part of a schedule --------------===//
///
/// \file
/// Compiling a rank's plan: where each logical buffer lives on this rank
/// (receive buffer, send buffer, scratch), then one pass over the steps that
/// turns this rank's ops into transfers and local actions.
///
//===----------------------------------------------------------------------===//

#include "executor/RankPlan.h"

#include "executor/AlltoallLayout.h"
#include "ir/PairMatrix.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>

using namespace choreo;
using llvm::formatv;

size_t RankPlan::numTransfers() const {
  size_t N = 0;
  for (const RankPlanStep &S : Steps)
    N += S.Recvs.size() + S.Sends.size();
  return N;
}

size_t RankPlan::numPieces() const {
  size_t N = Prologue.size() + Epilogue.size();
  for (const RankPlanStep &S : Steps) {
    N += S.After.size();
    for (const auto *List : {&S.Recvs, &S.Sends})
      for (const Transfer &T : *List)
        N += T.Pieces.size() + T.Lattice.size();
  }
  return N;
}

size_t RankPlan::memoryBytes() const {
  size_t N = sizeof(RankPlan) + Steps.capacity() * sizeof(RankPlanStep) +
             (Prologue.capacity() + Epilogue.capacity()) * sizeof(LocalAction) +
             ReductionOffsets.capacity() * sizeof(uint64_t) +
             ScratchAreas.capacity() * sizeof(ScratchArea);
  for (const RankPlanStep &S : Steps) {
    N += (S.Recvs.capacity() + S.Sends.capacity()) * sizeof(Transfer) +
         S.After.capacity() * sizeof(LocalAction);
    for (const auto *List : {&S.Recvs, &S.Sends})
      for (const Transfer &T : *List)
        N += T.Pieces.capacity() * sizeof(MemPiece) +
             T.Lattice.capacity() * sizeof(LatticePiece);
  }
  return N;
}

namespace {

/// Rows of Cols elements of N bytes (N a constant: a move, not a call).
template <uint64_t N>
void copyElems(const LatticePiece &X, char *Mem, char *Msg, bool ToMessage) {
  for (uint32_t R = 0; R < X.Rows; ++R) {
    char *M = Mem + int64_t(X.Offset) + int64_t(R) * X.RowStride;
    char *G = Msg + X.At + uint64_t(R) * X.AtRow;
    for (uint32_t C = 0; C < X.Cols; ++C) {
      char *A = M + int64_t(C) * X.ColStride, *B = G + uint64_t(C) * X.AtCol;
      if (ToMessage)
        std::memcpy(B, A, N ? N : X.Elem);
      else
        std::memcpy(A, B, N ? N : X.Elem);
    }
  }
}

} // namespace

void choreo::copyLatticePiece(const LatticePiece &X, char *Mem, char *Msg,
                              bool ToMessage) {
  if (X.Cols == 1 ||
      (X.ColStride == int64_t(X.Elem) && X.AtCol == X.Elem)) {
    // Each row one run in both.
    uint64_t Len = uint64_t(X.Cols) * X.Elem;
    for (uint32_t R = 0; R < X.Rows; ++R) {
      char *M = Mem + int64_t(X.Offset) + int64_t(R) * X.RowStride;
      char *G = Msg + X.At + uint64_t(R) * X.AtRow;
      if (ToMessage)
        std::memcpy(G, M, Len);
      else
        std::memcpy(M, G, Len);
    }
    return;
  }
  switch (X.Elem) {
  case 1:
    return copyElems<1>(X, Mem, Msg, ToMessage);
  case 4:
    return copyElems<4>(X, Mem, Msg, ToMessage);
  case 8:
    return copyElems<8>(X, Mem, Msg, ToMessage);
  case 16:
    return copyElems<16>(X, Mem, Msg, ToMessage);
  default:
    return copyElems<0>(X, Mem, Msg, ToMessage);
  }
}

namespace {

/// Rank Me's plan of an alltoall of one block size without displacements
/// whose ops at Me carry rectangles of blocks only (lattice blocks,
/// docs/executor.md "Lattice pieces"): every message's lattices as strided
/// pieces of the send buffer, the receive buffer and one scratch area per
/// rectangle received, O(the rank's lattices) in all. std::nullopt: the
/// schedule is not one (run as byte ranges).
std::optional<RankPlan> compileRectPlan(const Schedule &S, Rank Me,
                                        const RecvLayout &Layout) {
  if (S.spec().Data != DataKind::Alltoall || !Layout.Displs.empty() ||
      !Layout.SendDispls.empty())
    return std::nullopt;
  PairMatrix M(S);
  if (!M.isUniform() || Me >= M.ranks())
    return std::nullopt;
  uint64_t P = M.ranks(), Sz = M.size(0, 0);
  const StepList &L = S.Steps;
  std::vector<StepRect> Received, Sent;
  for (unsigned St = 0; St < L.numSteps(); ++St)
    for (const Op &O : L.step(St)) {
      if (O.Src != Me && O.Dst != Me)
        continue;
      if (O.Src == O.Dst)
        return std::nullopt;
      for (const Block &B : L.blocks(O)) {
        if (B.Buf != 0 || B.Reduce || !L.validLattice(B))
          return std::nullopt;
        std::optional<BlockRect> X = blockRect(L.lattice(B), Sz, P);
        if (!X)
          return std::nullopt;
        (O.Dst == Me ? Received : Sent).push_back({*X, St});
      }
    }
  std::optional<RectLayout> Lay =
      layOutAlltoallRects(P, Sz, Me, Received, Sent, 0);
  if (!Lay)
    return std::nullopt;
  RankPlan RP;
  RP.Me = Me;
  RP.Kind = S.Kind;
  RP.ScratchBytes = Lay->ScratchBytes;
  RP.ScratchAreas = std::move(Lay->Areas);
  RP.SendBytes = RP.RecvBytes = P * Sz;
  RP.SendWhat = "this rank's row (the blocks it sends)";
  RP.RecvWhat = "this rank's column (the blocks it receives)";
  RP.ResultBuffer = S.buffers()[0].Name;
  // The diagonal block: the user's send buffer into the receive buffer.
  RP.Prologue.push_back({{Region::Send, Me * Sz, Sz}, {Region::Recv, Me * Sz, Sz}});
  auto Message = [&](const Op &O, Rank Peer, Transfer &T) {
    T.Peer = Peer;
    for (const Block &B : L.blocks(O)) {
      BlockRect X = *blockRect(L.lattice(B), Sz, P);
      if (!rectPieces(*Lay, X, Sz, T.Bytes, T.Lattice))
        return false;
      T.Bytes += X.count() * Sz;
    }
    return true;
  };
  for (unsigned St = 0; St < L.numSteps(); ++St) {
    RankPlanStep Step;
    Step.Step = St;
    for (const Op &O : L.step(St)) {
      if (O.Src == Me) {
        Step.Sends.emplace_back();
        if (!Message(O, O.Dst, Step.Sends.back()))
          return std::nullopt; // a block it never holds
      }
      if (O.Dst == Me) {
        Step.Recvs.emplace_back();
        if (!Message(O, O.Src, Step.Recvs.back()))
          return std::nullopt;
      }
    }
    if (!Step.Recvs.empty() || !Step.Sends.empty())
      RP.Steps.push_back(std::move(Step));
  }
  return RP;
}

class RankPlanCompiler {
public:
  RankPlanCompiler(const Schedule &S, Rank Me, const RecvLayout &Layout)
      : S(S), L(S.Steps), Me(Me), Layout(Layout), Bufs(S.buffers()),
        NB(Bufs.size()), Spec(S.spec()), Reduction(Spec.isReduction()) {}

  llvm::Expected<RankPlan> run() {
    if (Me >= S.NumRanks)
      return makeDiagError("executor", formatv("rank {0} is not a rank of the "
                                               "schedule ({1} ranks)",
                                               Me, S.NumRanks));
    if (Spec.usesAccumulators())
      return compileScanPlan(S, Me);
    P.Me = Me;
    P.Kind = S.Kind;
    if (Spec.NoPayload) {
      compileKnowledge();
      return std::move(P);
    }
    findOwnAndTouched();
    if (auto E = place())
      return E;
    addPrologue();
    for (unsigned St = 0; St < L.numSteps(); ++St)
      compileStep(St);
    addEpilogue();
    return std::move(P);
  }

private:
  const Schedule &S;
  const StepList &L;
  Rank Me;
  const RecvLayout &Layout;
  std::vector<Buffer> Bufs;
  size_t NB;
  const CollectiveSpec &Spec;
  bool Reduction;
  RankPlan P;

  /// This rank's contribution (gather-type) or vector (reductions).
  std::vector<IntervalSet> Own, Touched, Received;
  std::vector<uint64_t> OwnLo;
  /// What this rank must end with: the receive buffer holds exactly it.
  std::optional<Holding> Result;

  struct Placement {
    Region R = Region::Scratch;
    uint64_t Base = 0; ///< Send: own start; Scratch: scratch offset - hull lo
    /// A result that is part of the buffer (a scatter's slice): bytes
    /// [WinLo, WinHi) live in the receive buffer from offset 0, the rest in
    /// region R.
    bool Window = false;
    uint64_t WinLo = 0, WinHi = 0;
    bool Displs = false;
    const Group *G = nullptr; ///< Recv with displs: the member segments
    std::vector<uint64_t> SegOff;
    /// An alltoall's buffer: in pieces of several regions (Laid).
    bool Laid = false;
    std::vector<LaidPiece> Pieces;
  };
  std::vector<Placement> Place;

  // Gather-type: bytes held at the start of the current step.
  std::vector<IntervalSet> Held;

  /// Reductions: this rank's contributor sets over [0, n) at the start of
  /// the current step, as (start, set) runs in byte order; the end is n.
  std::vector<std::pair<uint64_t, RankSet>> Mine;
  /// Deliveries of the current step to apply to Mine after it.
  struct MineUpdate {
    uint64_t Lo, Hi;
    RankSet Set;
    bool Reduce;
  };
  std::vector<MineUpdate> MineUpdates;

  /// Splits Mine so that a run starts at X (X < n).
  size_t splitMine(uint64_t X) {
    auto It = std::upper_bound(
        Mine.begin(), Mine.end(), X,
        [](uint64_t V, const std::pair<uint64_t, RankSet> &R) {
          return V < R.first;
        });
    size_t I = It - Mine.begin() - 1;
    if (Mine[I].first == X)
      return I;
    Mine.insert(Mine.begin() + I + 1, {X, Mine[I].second});
    return I + 1;
  }
  uint64_t mineEnd(size_t I) const {
    return I + 1 < Mine.size() ? Mine[I + 1].first : Bufs[0].Length;
  }
  void applyMineUpdates() {
    for (const MineUpdate &U : MineUpdates) {
      if (U.Lo >= U.Hi)
        continue;
      size_t I = splitMine(U.Lo);
      if (U.Hi < Bufs[0].Length)
        splitMine(U.Hi);
      for (; I < Mine.size() && Mine[I].first < U.Hi; ++I) {
        if (U.Reduce)
          Mine[I].second.insert(U.Set);
        else
          Mine[I].second = U.Set;
      }
    }
    MineUpdates.clear();
  }

  void findOwnAndTouched() {
    Own.assign(NB, IntervalSet());
    Touched.assign(NB, IntervalSet());
    Received.assign(NB, IntervalSet());
    OwnLo.assign(NB, 0);
    for (const Holding &H : Spec.initialHoldings(S))
      if (H.R == Me) {
        Own[H.Buf].insert(H.Lo, H.Hi);
        OwnLo[H.Buf] = H.Lo;
      }
    bool Relays = Spec.Data == DataKind::Alltoall;
    for (unsigned St = 0; St < L.numSteps(); ++St)
      for (const Op &O : L.step(St)) {
        if (O.Src != Me && O.Dst != Me)
          continue;
        for (const Block &B : L.blocks(O)) {
          Touched[B.Buf].insert(B.Lo, B.Hi);
          if (O.Dst == Me)
            Received[B.Buf].insert(B.Lo, B.Hi);
          if (Relays && B.Buf == 0)
            Uses.push_back({B.Lo, B.Hi, St});
        }
      }
    Result = Spec.result(S, Me);
  }

  /// An alltoall: row in the send buffer, column in the receive buffer,
  /// relayed blocks in scratch (executor/AlltoallLayout.h).
  std::optional<AlltoallLayout> Laid;
  /// An alltoall: the bytes of `all` each step sends or receives here.
  std::vector<RangeUse> Uses;

  llvm::Error place() {
    Place.assign(NB, Placement());
    if (Spec.Data == DataKind::Alltoall) {
      auto A = layOutAlltoall(S, Me, Touched[0], Uses, Layout.SendDispls,
                              Layout.Displs, P.ScratchBytes);
      if (!A)
        return A.takeError();
      Uses.clear();
      Uses.shrink_to_fit();
      P.ScratchBytes += A->ScratchBytes;
      P.ScratchAreas = std::move(A->Areas);
      Place[0].Laid = true;
      Place[0].Pieces = A->Work;
      Laid = std::move(*A);
      return llvm::Error::success();
    }
    for (BufferId B = 0; B < NB; ++B) {
      Placement &Pl = Place[B];
      if (Reduction) {
        // The working vector: the receive buffer when the result is the
        // whole vector (allreduce, the reduce root), scratch otherwise.
        bool InRecv = Result && Result->Lo == 0 &&
                      Result->Hi == Bufs[B].Length;
        Pl.R = InRecv ? Region::Recv : Region::Scratch;
        if (!InRecv) {
          Pl.Base = P.ScratchBytes;
          P.ScratchBytes += Bufs[B].Length;
        }
        continue;
      }
      if (Spec.initialInRecv() && !Result && !Own[B].empty()) {
        // An intergroup broadcast's root: its data where the user gave it.
        Pl.R = Region::Recv;
        continue;
      }
      bool Partial = Result && Result->Buf == B &&
                     (Result->Lo != 0 || Result->Hi != Bufs[B].Length);
      if (Partial) {
        Pl.Window = true;
        Pl.WinLo = Result->Lo;
        Pl.WinHi = Result->Hi;
      } else if (Result && Result->Buf == B) {
        Pl.R = Region::Recv;
        if (!Layout.Displs.empty()) {
          Pl.G = S.group(Bufs[B].Name);
          if (!Spec.isGatherType() || !Pl.G)
            return makeDiagError("executor", "receive displacements apply to "
                                             "gather-type collectives only");
          if (Layout.Displs.size() != Pl.G->Members.size())
            return makeDiagError(
                "executor",
                formatv("{0} receive displacements for the {1} members of "
                        "group {2}",
                        Layout.Displs.size(), Pl.G->Members.size(),
                        Bufs[B].Name));
          Pl.Displs = true;
          Pl.SegOff = prefixSums(*S.sizes(Bufs[B].Name));
        }
        continue;
      }
      IntervalSet Sent = Touched[B];
      for (const Interval &I : Received[B].intervals())
        Sent.erase(I.Lo, I.Hi);
      bool OnlyOwn = Received[B].empty();
      for (const Interval &I : Touched[B].intervals())
        OnlyOwn &= Own[B].contains(I.Lo, I.Hi);
      if (OnlyOwn) {
        Pl.R = Region::Send;
        Pl.Base = OwnLo[B];
        continue;
      }
      // Relayed data: scratch over the hull of what the rank touches (but
      // its result window).
      IntervalSet All = Touched[B];
      All.insert(Own[B]);
      if (Pl.Window)
        All.erase(Pl.WinLo, Pl.WinHi);
      if (All.empty())
        continue;
      uint64_t Lo = All.intervals().front().Lo, Hi = All.intervals().back().Hi;
      Pl.R = Region::Scratch;
      Pl.Base = P.ScratchBytes - Lo;
      P.ScratchBytes += Hi - Lo;
    }
    return llvm::Error::success();
  }

  static void addPiece(std::vector<MemPiece> &Out, Region R, uint64_t Off,
                       uint64_t Len) {
    if (!Len)
      return;
    if (!Out.empty() && Out.back().R == R &&
        Out.back().Offset + Out.back().Len == Off) {
      Out.back().Len += Len;
      return;
    }
    Out.push_back({R, Off, Len});
  }

  /// Memory pieces of logical bytes [Lo, Hi) of buffer B, merged when
  /// contiguous.
  void mapRange(BufferId B, uint64_t Lo, uint64_t Hi,
                std::vector<MemPiece> &Out) const {
    const Placement &Pl = Place[B];
    if (!Pl.Window || Hi <= Pl.WinLo || Lo >= Pl.WinHi)
      return mapRest(B, Lo, Hi, Out);
    if (Lo < Pl.WinLo)
      mapRest(B, Lo, Pl.WinLo, Out);
    uint64_t A = std::max(Lo, Pl.WinLo), Z = std::min(Hi, Pl.WinHi);
    addPiece(Out, Region::Recv, A - Pl.WinLo, Z - A);
    if (Hi > Pl.WinHi)
      mapRest(B, Pl.WinHi, Hi, Out);
  }

  /// mapRange outside a result window.
  void mapRest(BufferId B, uint64_t Lo, uint64_t Hi,
               std::vector<MemPiece> &Out) const {
    const Placement &Pl = Place[B];
    auto Add = [&Out](Region R, uint64_t Off, uint64_t Len) {
      addPiece(Out, R, Off, Len);
    };
    if (Pl.Laid) {
      auto It = std::upper_bound(
          Pl.Pieces.begin(), Pl.Pieces.end(), Lo,
          [](uint64_t X, const LaidPiece &L) { return X < L.Lo; });
      if (It != Pl.Pieces.begin())
        --It;
      for (; It != Pl.Pieces.end() && It->Lo < Hi; ++It) {
        uint64_t A = std::max(Lo, It->Lo), Z = std::min(Hi, It->Hi);
        if (A < Z)
          Add(It->R, It->Offset + (A - It->Lo), Z - A);
      }
      return;
    }
    switch (Pl.R) {
    case Region::Recv:
      if (!Pl.Displs)
        return Add(Region::Recv, Lo, Hi - Lo);
      for (size_t M = std::upper_bound(Pl.SegOff.begin(), Pl.SegOff.end(), Lo) -
                      Pl.SegOff.begin() - 1;
           M + 1 < Pl.SegOff.size() && Pl.SegOff[M] < Hi; ++M) {
        uint64_t A = std::max(Lo, Pl.SegOff[M]), Z = std::min(Hi, Pl.SegOff[M + 1]);
        if (A < Z)
          Add(Region::Recv, Layout.Displs[M] + (A - Pl.SegOff[M]), Z - A);
      }
      return;
    case Region::Send:
      return Add(Region::Send, Lo - Pl.Base, Hi - Lo);
    case Region::Scratch:
      return Add(Region::Scratch, Pl.Base + Lo, Hi - Lo);
    case Region::Sink:
    case Region::Pack:
      break;
    }
  }

  uint64_t recvExtent(BufferId B) const {
    const Placement &Pl = Place[B];
    if (!Pl.Displs)
      return Result ? Result->Hi - Result->Lo : Bufs[B].Length;
    uint64_t End = 0;
    for (size_t M = 0; M + 1 < Pl.SegOff.size(); ++M)
      End = std::max(End, Layout.Displs[M] + (Pl.SegOff[M + 1] - Pl.SegOff[M]));
    return End;
  }

  void addPrologue() {
    Held = Own;
    if (Laid) {
      P.SendBytes = Laid->SendExtent;
      P.SendWhat = "this rank's row (the blocks it sends)";
      P.RecvBytes = Laid->RecvExtent;
      P.RecvWhat = "this rank's column (the blocks it receives)";
      P.ResultBuffer = Bufs[0].Name;
      // Own blocks not worked on where the user gave them (the diagonal
      // block, into the receive buffer).
      for (const LaidPiece &In : Laid->Input) {
        std::vector<MemPiece> To;
        mapRange(0, In.Lo, In.Hi, To);
        uint64_t From = In.Offset;
        for (const MemPiece &T : To) {
          if (T.R != Region::Send || T.Offset != From)
            P.Prologue.push_back({{Region::Send, From, T.Len}, T});
          From += T.Len;
        }
      }
      return;
    }
    if (Reduction) {
      // The whole vector into the working buffer; a rank without one (an
      // intergroup reduce's root group) starts combining nobody.
      uint64_t N = Bufs[0].Length;
      bool HasOwn = !Own[0].empty();
      Mine = {{0, HasOwn ? RankSet(Me, Me + 1) : RankSet()}};
      if (HasOwn) {
        P.SendBytes = N;
        P.SendWhat = formatv("the {0}-byte vector", N);
      }
      std::vector<MemPiece> To;
      if (HasOwn)
        mapRange(0, 0, N, To);
      for (const MemPiece &T : To)
        P.Prologue.push_back({{Region::Send, T.Offset - To[0].Offset, T.Len},
                              T});
      if (Result) {
        P.RecvBytes = recvExtent(0);
        P.RecvWhat = Result->Hi - Result->Lo == N
                         ? formatv("the {0}-byte result", N).str()
                         : std::string("this rank's slice");
        P.ResultBuffer = Bufs[0].Name;
      }
      return;
    }
    if (Result) {
      P.RecvBytes = recvExtent(Result->Buf);
      P.RecvWhat = "buffer " + Bufs[Result->Buf].Name;
      P.ResultBuffer = Bufs[Result->Buf].Name;
    }
    if (Spec.initialInRecv() && !Result && !Own[0].empty()) {
      P.RecvBytes = Own[0].intervals().back().Hi;
      P.RecvWhat = "the root's buffer";
    }
    if (Spec.initialInRecv())
      return; // one buffer: the root's data is already in place
    for (BufferId B = 0; B < NB; ++B) {
      if (Own[B].empty())
        continue;
      const Interval &O = Own[B].intervals().front();
      P.SendBytes = O.size();
      P.SendWhat =
          Spec.isGatherType()
              ? formatv("this rank's contribution to buffer {0}", Bufs[B].Name)
                    .str()
              : formatv("buffer {0}", Bufs[B].Name).str();
      if (Place[B].R == Region::Send) {
        // The part of the rank's own data it keeps (the scatter root's
        // slice) into the receive buffer.
        const Placement &Pl = Place[B];
        uint64_t A = std::max(O.Lo, Pl.WinLo), Z = std::min(O.Hi, Pl.WinHi);
        if (Pl.Window && A < Z)
          P.Prologue.push_back({{Region::Send, A - Pl.Base, Z - A},
                                {Region::Recv, A - Pl.WinLo, Z - A}});
        continue;
      }
      std::vector<MemPiece> To;
      mapRange(B, O.Lo, O.Hi, To);
      uint64_t From = 0;
      for (const MemPiece &T : To) {
        P.Prologue.push_back({{Region::Send, From, T.Len}, T});
        From += T.Len;
      }
    }
  }

  /// A collective whose messages carry knowledge only (barrier): this
  /// rank's messages with no payload, no buffers.
  void compileKnowledge() {
    for (unsigned St = 0; St < L.numSteps(); ++St) {
      RankPlanStep Step;
      Step.Step = St;
      for (const Op &O : L.step(St)) {
        if (O.Src == Me)
          Step.Sends.push_back({O.Dst, {}, 0, {}});
        if (O.Dst == Me)
          Step.Recvs.push_back({O.Src, {}, 0, {}});
      }
      if (!Step.Recvs.empty() || !Step.Sends.empty())
        P.Steps.push_back(std::move(Step));
    }
  }

  void addEpilogue() {
    if (!Reduction || !Result || Place[0].R == Region::Recv)
      return;
    // A part of the vector (reduce_scatter's slice) out of the scratch
    // working vector.
    std::vector<MemPiece> From;
    mapRange(Result->Buf, Result->Lo, Result->Hi, From);
    uint64_t To = 0;
    for (const MemPiece &F : From) {
      P.Epilogue.push_back({F, {Region::Recv, To, F.Len}});
      To += F.Len;
    }
  }

  void compileStep(unsigned St) {
    llvm::ArrayRef<Op> Ops = L.step(St);
    RankPlanStep Step;
    Step.Step = St;
    uint64_t SinkUse = 0;
    // Bytes this rank reads in the step (its sends), and bytes written by
    // the receives decided so far: a receipt that overlaps either goes
    // through the sink.
    std::vector<IntervalSet> Reading(NB), Writing(NB);
    for (const Op &O : Ops)
      if (O.Src == Me)
        for (const Block &B : L.blocks(O)) {
          Reading[B.Buf].insert(B.Lo, B.Hi);
          if (Reduction) {
            P.ReductionOffsets.push_back(B.Lo);
            P.ReductionOffsets.push_back(B.Hi);
          }
        }
    for (const Op &O : Ops) {
      if (O.Src == Me) {
        Transfer T{O.Dst, {}, 0, {}};
        for (const Block &B : L.blocks(O)) {
          mapRange(B.Buf, B.Lo, B.Hi, T.Pieces);
          T.Bytes += B.size();
        }
        Step.Sends.push_back(std::move(T));
      }
      if (O.Dst != Me)
        continue;
      Transfer T{O.Src, {}, 0, {}};
      for (const Block &B : L.blocks(O)) {
        T.Bytes += B.size();
        if (Reduction) {
          P.ReductionOffsets.push_back(B.Lo);
          P.ReductionOffsets.push_back(B.Hi);
        }
        if (Reduction && B.hasContrib())
          MineUpdates.push_back({B.Lo, B.Hi, ranksForOrder(B.Contrib), B.Reduce});
        bool Conflict = Reading[B.Buf].intersects(B.Lo, B.Hi) ||
                        Writing[B.Buf].intersects(B.Lo, B.Hi) ||
                        (!Reduction && Held[B.Buf].intersects(B.Lo, B.Hi));
        if (!Conflict && !B.Reduce) {
          mapRange(B.Buf, B.Lo, B.Hi, T.Pieces);
        } else {
          receiveViaSink(B, SinkUse, T, Step);
        }
        Writing[B.Buf].insert(B.Lo, B.Hi);
      }
      Step.Recvs.push_back(std::move(T));
    }
    if (!Reduction)
      for (BufferId B = 0; B < NB; ++B)
        Held[B].insert(Writing[B]);
    else
      applyMineUpdates();
    P.SinkBytes = std::max(P.SinkBytes, SinkUse);
    if (!Step.Recvs.empty() || !Step.Sends.empty())
      P.Steps.push_back(std::move(Step));
  }

  /// A block's contributors for the operand order: a set named by a
  /// subtree (a rank part of reduce-circulant, commutative operators only)
  /// as no ranks, which never counts as ordered.
  RankSet ranksForOrder(uint32_t Id) const {
    return L.subtree(Id) ? RankSet() : L.contrib(Id);
  }

  /// Receives block B into the sink and adds the copies (of the bytes not
  /// yet held) or combines that follow the step.
  void receiveViaSink(const Block &B, uint64_t &SinkUse, Transfer &T,
                      RankPlanStep &Step) {
    uint64_t SinkOff = SinkUse;
    SinkUse += B.size();
    T.Pieces.push_back({Region::Sink, SinkOff, B.size()});
    if (Reduction && B.Reduce) {
      combineViaSink(B, SinkOff, Step);
      return;
    }
    IntervalSet Wanted(B.Lo, B.Hi);
    if (!Reduction)
      Wanted = Held[B.Buf].missingFrom(B.Lo, B.Hi);
    for (const Interval &W : Wanted.intervals()) {
      std::vector<MemPiece> To;
      mapRange(B.Buf, W.Lo, W.Hi, To);
      uint64_t From = SinkOff + (W.Lo - B.Lo);
      for (const MemPiece &Piece : To) {
        Step.After.push_back(
            {{Region::Sink, From, Piece.Len}, Piece, B.Reduce});
        From += Piece.Len;
      }
    }
  }

  /// The combines of reduction block B received at SinkOff, one per run of
  /// this rank's contributor sets, each with the operand order that keeps
  /// the lower rank interval on the left.
  void combineViaSink(const Block &B, uint64_t SinkOff, RankPlanStep &Step) {
    RankSet In = B.hasContrib() ? ranksForOrder(B.Contrib) : RankSet();
    size_t I = splitMine(B.Lo);
    if (B.Hi < Bufs[0].Length)
      splitMine(B.Hi);
    for (; I < Mine.size() && Mine[I].first < B.Hi; ++I) {
      uint64_t Lo = Mine[I].first, Hi = std::min(B.Hi, mineEnd(I));
      const RankSet &Have = Mine[I].second;
      bool Right = false;
      bool Ordered = In.numIntervals() == 1 && Have.numIntervals() == 1;
      if (Ordered) {
        Interval A = Have.intervals().front(), C = In.intervals().front();
        if (C.Hi == A.Lo)
          Right = false; // received lower: received op mine
        else if (A.Hi == C.Lo)
          Right = true; // received upper: mine op received
        else
          Ordered = false;
      }
      if (!Ordered && P.UnorderedCombine.empty())
        P.UnorderedCombine = formatv(
            "step {0}: rank {1} combines {2}[{3},{4}) with contributors {5} "
            "into its partial of {6}, which are not adjacent rank intervals",
            Step.Step, Me, Bufs[0].Name, Lo, Hi, rankSetString(In),
            rankSetString(Have));
      std::vector<MemPiece> To;
      mapRange(B.Buf, Lo, Hi, To);
      uint64_t From = SinkOff + (Lo - B.Lo);
      for (const MemPiece &Piece : To) {
        LocalAction A{{Region::Sink, From, Piece.Len}, Piece, true, Right};
        Step.After.push_back(A);
        From += Piece.Len;
      }
    }
  }
};

} // namespace

llvm::Expected<RankPlan> choreo::compileRankPlan(const Schedule &S, Rank Me,
                                                 const RecvLayout &Layout) {
  if (S.Steps.numLattices()) {
    // Lattice blocks (docs/format.md): an alltoall's rectangles as strided
    // pieces (docs/executor.md, "Lattice pieces"); anything else as its
    // elements' ranges.
    if (Me < S.NumRanks && !S.spec().usesAccumulators())
      if (std::optional<RankPlan> R = compileRectPlan(S, Me, Layout))
        return std::move(*R);
    Schedule E = S;
    E.Steps.expandLattices();
    return RankPlanCompiler(E, Me, Layout).run();
  }
  return RankPlanCompiler(S, Me, Layout).run();
}
