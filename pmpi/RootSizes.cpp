//===- pmpi/RootSizes.cpp - The v forms' sizes, known at the root ---------===//
///
/// \file
/// One allgather of (own bytes, the root's digest of its counts).
///
//===----------------------------------------------------------------------===//

#include "pmpi/RootSizes.h"

#include "executor/Yielding.h"
#include "ir/Digest.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using namespace choreo::pmpi;

namespace {

uint64_t digestOf(llvm::ArrayRef<uint64_t> V) {
  Hasher H;
  H.mix(uint64_t(V.size()));
  for (uint64_t X : V)
    H.mix(X);
  return H.digest().H1;
}

} // namespace

std::string pmpi::exchangeRootSizes(MPI_Comm Priv, Request &R) {
  int N = 0, Me = 0;
  PMPI_Comm_size(Priv, &N);
  PMPI_Comm_rank(Priv, &Me);
  int Root = int(R.Args.Root);
  uint64_t Mine[2] = {R.LocalBytes,
                      Me == Root ? digestOf(R.Args.SizesA) : uint64_t(0)};
  std::vector<uint64_t> All(2 * size_t(N));
  yielding::allgather(Mine, 2, MPI_UINT64_T, All.data(), 2, MPI_UINT64_T, Priv);
  std::vector<uint64_t> Sizes(N);
  for (int I = 0; I < N; ++I)
    Sizes[I] = All[2 * size_t(I)];
  if (digestOf(Sizes) != All[2 * size_t(Root) + 1]) {
    std::string Sent;
    for (int I = 0; I < N && I < 8; ++I)
      Sent += (I ? "," : "") + std::to_string(Sizes[I]);
    if (N > 8)
      Sent += ",...";
    bool Gather = R.Args.Call == MpiCall::Gatherv;
    return llvm::formatv("{0}: the root's {1} do not match what the members "
                         "{2} (in bytes: [{3}])",
                         bindingOf(R.Args.Call).MpiName,
                         Gather ? "recvcounts" : "sendcounts",
                         Gather ? "send" : "receive", Sent);
  }
  R.Args.SizesA = std::move(Sizes);
  return "";
}
