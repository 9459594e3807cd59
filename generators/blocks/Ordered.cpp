//===- generators/blocks/Ordered.cpp - Steps from per-rank orders ---------===//
///
/// \file
/// scheduleInOrder: turns ops whose order is prescribed per sender and per
/// receiver (Kang et al.'s Allgatherv exchange) into steps, as early as the
/// two orders allow.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Blocks.h"
#include "ir/Diagnostics.h"

using namespace choreo;

llvm::Expected<StepList>
choreo::scheduleInOrder(llvm::ArrayRef<OrderedOp> Ops,
                        llvm::ArrayRef<std::vector<size_t>> SendOrder,
                        llvm::ArrayRef<std::vector<size_t>> RecvOrder) {
  // Each op depends on its predecessor in its sender's and its receiver's
  // order; Kahn's algorithm gives steps = longest dependency chain.
  size_t N = Ops.size();
  std::vector<std::vector<size_t>> Next(N);
  std::vector<unsigned> Pending(N, 0);
  for (llvm::ArrayRef<std::vector<size_t>> Orders : {SendOrder, RecvOrder})
    for (const std::vector<size_t> &Order : Orders)
      for (size_t I = 1; I < Order.size(); ++I) {
        Next[Order[I - 1]].push_back(Order[I]);
        ++Pending[Order[I]];
      }
  std::vector<unsigned> Step(N, 0);
  std::vector<size_t> Ready;
  for (size_t O = 0; O < N; ++O)
    if (Pending[O] == 0)
      Ready.push_back(O);
  size_t Done = 0;
  unsigned NumSteps = 0;
  while (!Ready.empty()) {
    size_t O = Ready.back();
    Ready.pop_back();
    ++Done;
    NumSteps = std::max(NumSteps, Step[O] + 1);
    for (size_t M : Next[O]) {
      Step[M] = std::max(Step[M], Step[O] + 1);
      if (--Pending[M] == 0)
        Ready.push_back(M);
    }
  }
  if (Done != N)
    return makeDiagError("internal", "scheduleInOrder: the send and receive "
                                     "orders contradict each other (a cycle)");
  std::vector<std::vector<size_t>> ByStep(NumSteps);
  for (size_t O = 0; O < N; ++O)
    ByStep[Step[O]].push_back(O);
  StepList L;
  for (const std::vector<size_t> &S : ByStep) {
    L.newStep();
    for (size_t O : S)
      L.addOp(Ops[O].Src, Ops[O].Dst, Ops[O].Blocks);
  }
  return L;
}
