//===- executor/Agree.cpp - What every rank of a job agrees on ------------===//
///
/// \file
/// The agreement primitives (executor/Agree.h) over MPI collectives.
///
//===----------------------------------------------------------------------===//

#include "executor/Agree.h"
#include "executor/Yielding.h"

#include "ir/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"

#include <climits>
#include <cstring>
#include <vector>

using namespace choreo;
using llvm::formatv;

std::optional<bool> choreo::inLowGroup(MPI_Comm Inter) {
  MPI_Group Local, Remote, World;
  MPI_Comm_group(Inter, &Local);
  MPI_Comm_remote_group(Inter, &Remote);
  MPI_Comm_group(MPI_COMM_WORLD, &World);
  int Zero = 0, L = MPI_UNDEFINED, R = MPI_UNDEFINED;
  MPI_Group_translate_ranks(Local, 1, &Zero, World, &L);
  MPI_Group_translate_ranks(Remote, 1, &Zero, World, &R);
  MPI_Group_free(&Local);
  MPI_Group_free(&Remote);
  MPI_Group_free(&World);
  if (L == MPI_UNDEFINED || R == MPI_UNDEFINED)
    return std::nullopt;
  return L < R;
}

llvm::Error choreo::agreeOnErrors(MPI_Comm Comm,
                                  const std::string &LocalError) {
  int Me;
  MPI_Comm_rank(Comm, &Me);
  int First = LocalError.empty() ? INT_MAX : Me;
  yielding::allreduce(MPI_IN_PLACE, &First, 1, MPI_INT, MPI_MIN, Comm);
  if (First == INT_MAX)
    return llvm::Error::success();
  return makeDiagError(
      "executor",
      yielding::bcastText(Me == First ? LocalError : "", First, Comm));
}

namespace {

/// Comm itself, or the merge of an intercommunicator's groups (A first),
/// freed with the object.
class Merged {
public:
  explicit Merged(MPI_Comm Comm) : C(Comm) {
    int IsInter = 0;
    MPI_Comm_test_inter(Comm, &IsInter);
    if (!IsInter)
      return;
    std::optional<bool> Low = inLowGroup(Comm);
    MPI_Intercomm_merge(Comm, /*high=*/Low && !*Low, &C);
    Owned = true;
  }
  ~Merged() {
    if (Owned)
      MPI_Comm_free(&C);
  }
  Merged(const Merged &) = delete;
  Merged &operator=(const Merged &) = delete;
  MPI_Comm comm() const { return C; }

private:
  MPI_Comm C;
  bool Owned = false;
};

} // namespace

llvm::Error choreo::agreeAcross(MPI_Comm Comm, const std::string &LocalError) {
  Merged M(Comm);
  return agreeOnErrors(M.comm(), LocalError);
}

llvm::Error choreo::agreeOnFingerprint(MPI_Comm Comm, Digest128 Fp,
                                       llvm::StringRef What) {
  Merged M(Comm);
  int Me;
  MPI_Comm_rank(M.comm(), &Me);
  uint64_t Zero[2] = {Fp.H1, Fp.H2};
  yielding::bcast(Zero, 2, MPI_UINT64_T, 0, M.comm());
  std::string Local;
  if (Fp.H1 != Zero[0] || Fp.H2 != Zero[1])
    Local = formatv("rank {0} was given {1} than rank 0; every rank must "
                    "run the same",
                    Me, What);
  return agreeOnErrors(M.comm(), Local);
}

std::vector<bool> choreo::gatherFlags(MPI_Comm Comm, bool Flag) {
  Merged M(Comm);
  int N;
  MPI_Comm_size(M.comm(), &N);
  char Mine = Flag;
  std::vector<char> All(N, 0);
  yielding::allgather(&Mine, 1, MPI_CHAR, All.data(), 1, MPI_CHAR, M.comm());
  return std::vector<bool>(All.begin(), All.end());
}

std::string choreo::agreeOnKey(MPI_Comm Comm, Digest128 Key,
                               const std::string &Text, llvm::StringRef What) {
  // One word of both lanes: the minimum of it and of its complement over
  // the ranks tells whether every rank holds it.
  uint64_t H = Key.H1 ^ (Key.H2 * 0x9e3779b97f4a7c15ull);
  uint64_t V[2] = {H, ~H};
  yielding::allreduce(MPI_IN_PLACE, V, 2, MPI_UINT64_T, MPI_MIN, Comm);
  if (V[0] == ~V[1])
    return "";
  // Disagreement (rare): gather everyone's text, cut to a fixed width.
  constexpr int W = 200;
  int N;
  MPI_Comm_size(Comm, &N);
  std::vector<char> All(size_t(N) * W, 0), Mine(W, 0);
  std::strncpy(Mine.data(), Text.c_str(), W - 1);
  yielding::allgather(Mine.data(), W, MPI_CHAR, All.data(), W, MPI_CHAR, Comm);
  std::string Msg = formatv("the ranks disagree on {0}:", What);
  std::string Prev;
  int Shown = 0;
  for (int R = 0; R < N; ++R) {
    std::string T(&All[size_t(R) * W]);
    if (R > 0 && T == Prev)
      continue;
    if (++Shown > 6) {
      Msg += "; ...";
      break;
    }
    Msg += formatv("{0} rank {1}: {2}", Shown > 1 ? ";" : "", R, T).str();
    Prev = T;
  }
  return Msg;
}
