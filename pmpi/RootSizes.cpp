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

void pmpi::rootSizesSaid(const Request &R, int Me, uint64_t Mine[2]) {
  Mine[0] = R.LocalBytes;
  Mine[1] = Me == int(R.Args.Root) ? digestOf(R.Args.SizesA) : uint64_t(0);
}

std::string pmpi::rootSizesHeard(const MpiArgs &A,
                                 llvm::ArrayRef<uint64_t> All,
                                 std::vector<uint64_t> &Sizes) {
  size_t N = All.size() / 2;
  Sizes.assign(N, 0);
  for (size_t I = 0; I < N; ++I)
    Sizes[I] = All[2 * I];
  if (digestOf(Sizes) == All[2 * size_t(A.Root) + 1])
    return "";
  std::string Sent;
  for (size_t I = 0; I < N && I < 8; ++I)
    Sent += (I ? "," : "") + std::to_string(Sizes[I]);
  if (N > 8)
    Sent += ",...";
  bool Gather = A.Call == MpiCall::Gatherv;
  return llvm::formatv("{0}: the root's {1} do not match what the members "
                       "{2} (in bytes: [{3}])",
                       bindingOf(A.Call).MpiName,
                       Gather ? "recvcounts" : "sendcounts",
                       Gather ? "send" : "receive", Sent);
}

std::string pmpi::exchangeRootSizes(MPI_Comm Priv, Request &R) {
  int N = 0, Me = 0;
  PMPI_Comm_size(Priv, &N);
  PMPI_Comm_rank(Priv, &Me);
  uint64_t Mine[2];
  rootSizesSaid(R, Me, Mine);
  std::vector<uint64_t> All(2 * size_t(N));
  yielding::allgather(Mine, 2, MPI_UINT64_T, All.data(), 2, MPI_UINT64_T, Priv);
  std::vector<uint64_t> Sizes;
  if (std::string Err = rootSizesHeard(R.Args, All, Sizes); !Err.empty())
    return Err;
  R.Args.SizesA = std::move(Sizes);
  return "";
}
