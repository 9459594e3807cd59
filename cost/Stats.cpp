//===- cost/Stats.cpp - Counting what a schedule moves --------------------===//
///
/// \file
/// One pass over the ops.
///
//===----------------------------------------------------------------------===//

#include "cost/Stats.h"

using namespace choreo;

ScheduleStats choreo::computeStats(const Schedule &S) {
  ScheduleStats St;
  const StepList &L = S.Steps;
  // A barrier's messages carry knowledge, no payload.
  bool NoPayload = S.spec().NoPayload;
  St.Steps = L.numSteps();
  St.Ops = L.numOps();
  std::vector<uint64_t> Sent(S.NumRanks, 0), Recv(S.NumRanks, 0);
  std::vector<size_t> Messages(S.NumRanks, 0);
  for (unsigned I = 0; I < L.numSteps(); ++I) {
    uint64_t Largest = 0;
    for (const Op &O : L.step(I)) {
      uint64_t Bytes = 0;
      for (const Block &B : L.blocks(O))
        Bytes += NoPayload ? 0 : L.bytes(B);
      Sent[O.Src] += Bytes;
      Recv[O.Dst] += Bytes;
      ++Messages[O.Dst];
      St.BytesMoved += Bytes;
      Largest = std::max(Largest, Bytes);
    }
    St.LockstepBytes += Largest;
  }
  for (Rank R = 0; R < S.NumRanks; ++R) {
    if (Sent[R] > St.MaxSent) {
      St.MaxSent = Sent[R];
      St.MaxSentRank = R;
    }
    if (Recv[R] > St.MaxRecv) {
      St.MaxRecv = Recv[R];
      St.MaxRecvRank = R;
    }
    St.MaxMessagesReceived = std::max(St.MaxMessagesReceived, Messages[R]);
  }
  return St;
}
