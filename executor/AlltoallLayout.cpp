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

using namespace choreo;
using llvm::formatv;

llvm::Expected<AlltoallLayout>
choreo::layOutAlltoall(const CallHeader &H, Rank Me, const IntervalSet &Touched,
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
  // What the rank relays: packed in scratch, one piece per run.
  IntervalSet Relayed = Touched;
  for (const Interval &I : Mine.intervals())
    Relayed.erase(I.Lo, I.Hi);
  for (const Interval &I : Relayed.intervals()) {
    Out.Work.push_back(
        {I.Lo, I.Hi, Region::Scratch, ScratchBase + Out.ScratchBytes});
    Out.ScratchBytes += I.size();
  }
  llvm::sort(Out.Work, [](const LaidPiece &A, const LaidPiece &B) {
    return A.Lo < B.Lo;
  });
  return Out;
}
