//===- trace/Steps.cpp - Longest paths over the message graph ----------===//
///
/// \file
/// Kahn's order over the predecessor lists; what is left when no message
/// is free lies on or behind a cycle, and one cycle is walked back to name
/// its messages.
///
//===----------------------------------------------------------------------===//

#include "trace/Steps.h"

#include "ir/Diagnostics.h"

#include <algorithm>

using namespace choreo;

llvm::Expected<std::vector<uint32_t>> choreo::trace::longestPathSteps(
    const std::vector<std::vector<uint32_t>> &Preds,
    llvm::function_ref<std::string(uint32_t)> Describe) {
  size_t N = Preds.size();
  std::vector<std::vector<uint32_t>> Succs(N);
  std::vector<uint32_t> Missing(N, 0), Step(N, 0), Ready;
  for (uint32_t M = 0; M < N; ++M) {
    Missing[M] = Preds[M].size();
    for (uint32_t P : Preds[M])
      Succs[P].push_back(M);
    if (!Missing[M])
      Ready.push_back(M);
  }
  size_t Done = 0;
  while (!Ready.empty()) {
    uint32_t M = Ready.back();
    Ready.pop_back();
    ++Done;
    for (uint32_t S : Succs[M]) {
      Step[S] = std::max(Step[S], Step[M] + 1);
      if (--Missing[S] == 0)
        Ready.push_back(S);
    }
  }
  if (Done == N)
    return Step;
  // Walk back through unfinished predecessors until a message repeats.
  uint32_t M = 0;
  while (!Missing[M])
    ++M;
  std::vector<uint32_t> Seen(N, UINT32_MAX), Path;
  while (Seen[M] == UINT32_MAX) {
    Seen[M] = Path.size();
    Path.push_back(M);
    for (uint32_t P : Preds[M])
      if (Missing[P]) {
        M = P;
        break;
      }
  }
  std::vector<std::string> Notes;
  for (size_t I = Seen[M]; I < Path.size(); ++I)
    Notes.push_back("after " + Describe(Path[I]));
  std::reverse(Notes.begin(), Notes.end());
  return makeDiagError(
      "trace-steps",
      "the messages' order has a cycle: no step numbering keeps every "
      "rank's order of sends and of receives (try --ports observed)",
      std::move(Notes));
}
