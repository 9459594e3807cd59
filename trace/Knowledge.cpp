//===- trace/Knowledge.cpp - What a barrier's messages tell ------------===//
///
/// \file
/// barrierKnowledge and barrierKnowledgeByStep (trace/Knowledge.h): sets of
/// ranks as bit vectors, each rank's events in its own order.
///
//===----------------------------------------------------------------------===//

#include "trace/Knowledge.h"

#include "llvm/ADT/BitVector.h"

#include <algorithm>

using namespace choreo;
using namespace choreo::trace;

namespace {

/// Bits [0, N) of K as runs of buffer `all` (a barrier's byte per rank).
std::vector<Run> bitRuns(const llvm::BitVector &K) {
  std::vector<Run> Out;
  for (int B = K.find_first(); B >= 0;) {
    int E = K.find_next_unset(B);
    if (E < 0)
      E = K.size();
    Out.push_back({uint64_t(B), uint64_t(E)});
    B = E < int(K.size()) ? K.find_next(E) : -1;
  }
  return Out;
}

} // namespace

std::vector<std::vector<Run>>
choreo::trace::barrierKnowledge(const std::vector<Message> &All,
                                uint32_t Ranks) {
  // Each rank's events in its own order: a send (what it knows goes out
  // with the message) and a completed receive (what the message told it).
  struct Event {
    uint64_t Seq;
    uint32_t M;
    bool Send;
  };
  std::vector<std::vector<Event>> Events(Ranks);
  for (uint32_t M = 0; M < All.size(); ++M) {
    Events[All[M].Src].push_back({All[M].SendSeq, M, true});
    Events[All[M].Dst].push_back({All[M].CompleteSeq, M, false});
  }
  for (auto &E : Events)
    std::sort(E.begin(), E.end(),
              [](const Event &A, const Event &B) { return A.Seq < B.Seq; });
  // Carried[m]: what m's sender knew when it sent m; Before[m]: what m's
  // receiver knew just before m completed. A fixpoint over the ranks'
  // orders (each pass settles at least one more message of every causal
  // chain; real time has no cycle).
  std::vector<llvm::BitVector> Carried(All.size(), llvm::BitVector(Ranks)),
      Before(All.size(), llvm::BitVector(Ranks));
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (uint32_t R = 0; R < Ranks; ++R) {
      llvm::BitVector Know(Ranks);
      Know.set(R);
      for (const Event &E : Events[R]) {
        if (E.Send) {
          if (Carried[E.M] != Know) {
            Carried[E.M] = Know;
            Changed = true;
          }
        } else {
          Before[E.M] = Know;
          Know |= Carried[E.M];
        }
      }
    }
  }
  std::vector<std::vector<Run>> Out(All.size());
  for (uint32_t M = 0; M < All.size(); ++M) {
    llvm::BitVector New = Carried[M];
    New.reset(Before[M]);
    Out[M] = bitRuns(New);
  }
  return Out;
}

std::vector<std::vector<Run>>
choreo::trace::barrierKnowledgeByStep(const std::vector<Message> &All,
                                      uint32_t Ranks,
                                      const std::vector<uint32_t> &Step) {
  std::vector<uint32_t> Order(All.size());
  for (uint32_t M = 0; M < All.size(); ++M)
    Order[M] = M;
  std::stable_sort(Order.begin(), Order.end(),
                   [&](uint32_t A, uint32_t B) { return Step[A] < Step[B]; });
  std::vector<std::vector<uint32_t>> RecvsAt(Ranks);
  for (uint32_t M = 0; M < All.size(); ++M)
    RecvsAt[All[M].Dst].push_back(M);
  std::vector<llvm::BitVector> Carried(All.size(), llvm::BitVector(Ranks));
  std::vector<std::vector<Run>> Out(All.size());
  // Messages in step order: every message of an earlier step is settled.
  for (uint32_t M : Order) {
    const Message &X = All[M];
    llvm::BitVector &K = Carried[M];
    K.set(X.Src);
    for (uint32_t R : RecvsAt[X.Src])
      if (Step[R] < Step[M] && All[R].CompleteSeq < X.SendSeq)
        K |= Carried[R];
    llvm::BitVector Held(Ranks);
    Held.set(X.Dst);
    for (uint32_t R : RecvsAt[X.Dst])
      if (Step[R] < Step[M])
        Held |= Carried[R];
    llvm::BitVector New = K;
    New.reset(Held);
    Out[M] = bitRuns(New);
  }
  return Out;
}
