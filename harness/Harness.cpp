//===- harness/Harness.cpp - Running a schedule as an MPI job -------------===//
///
/// \file
/// Communicators, patterned buffers, result checks, MPICH's collectives and
/// timing for choreo-run and the executor benchmarks.
///
//===----------------------------------------------------------------------===//

#include "harness/Harness.h"

#include "executor/MpiBinding.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <sched.h>

using namespace choreo;
using namespace choreo::harness;
using llvm::formatv;

namespace {

/// The byte at logical offset X of buffer B: depends on both, so that a
/// byte in the wrong place or from the wrong buffer shows.
char patternByte(BufferId B, uint64_t X) {
  return static_cast<char>((X * 131 + (X >> 8) * 7 + B * 89 + 17) & 0xFF);
}

/// What schedule rank Me holds before the first step, if anything.
std::optional<Holding> initialOf(const Schedule &S, Rank Me) {
  for (const Holding &H : S.spec().initialHoldings(S))
    if (H.R == Me)
      return H;
  return std::nullopt;
}

/// The ranks of the group Me is not in (an intergroup schedule's groups
/// A and B are consecutive ranks, as makeCommunicators requires).
Interval otherGroupRanks(const Schedule &S, Rank Me) {
  for (const Group &G : S.Groups)
    if (!G.Members.empty() && !llvm::is_contained(G.Members, Me))
      return {G.Members.front(), uint64_t(G.Members.back()) + 1};
  return {0, 0};
}

llvm::Error waitYield(MPI_Request &Req) {
  int Done = 0;
  while (!Done) {
    int Rc = MPI_Test(&Req, &Done, MPI_STATUS_IGNORE);
    if (Rc != MPI_SUCCESS)
      return makeDiagError("mpi", "MPI_Test failed");
    if (!Done)
      sched_yield();
  }
  return llvm::Error::success();
}

} // namespace

Communicators::Communicators(Communicators &&O) noexcept
    : Run(O.Run), Local(O.Local), Inter(O.Inter), InA(O.InA) {
  O.Run = O.Local = MPI_COMM_NULL;
}

Communicators::~Communicators() {
  int Finalized = 0;
  MPI_Finalized(&Finalized);
  if (Finalized)
    return;
  if (Run != MPI_COMM_NULL)
    MPI_Comm_free(&Run);
  if (Local != MPI_COMM_NULL)
    MPI_Comm_free(&Local);
}

std::string harness::jobMismatch(const Schedule &S) {
  int Size;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (static_cast<Rank>(Size) == S.NumRanks)
    return "";
  return formatv("the schedule has {0} ranks but the job has {1} processes "
                 "(run it with mpiexec -n {0})",
                 S.NumRanks, Size);
}

llvm::Expected<Communicators> harness::makeCommunicators(const Schedule &S) {
  int Me;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  std::string Mismatch = jobMismatch(S);
  if (!Mismatch.empty())
    return makeDiagError("executor", Mismatch);
  Communicators C;
  const Group *A = S.group("A"), *B = S.group("B");
  if (S.spec().Intergroup && A && B &&
      A->Members.front() < B->Members.front()) {
    C.Inter = true;
    C.InA = llvm::is_contained(A->Members, Rank(Me));
    const Group &Mine = C.InA ? *A : *B, &Theirs = C.InA ? *B : *A;
    int Index = std::find(Mine.Members.begin(), Mine.Members.end(), Rank(Me)) -
                Mine.Members.begin();
    MPI_Comm_split(MPI_COMM_WORLD, C.InA ? 0 : 1, Index, &C.Local);
    MPI_Intercomm_create(C.Local, 0, MPI_COMM_WORLD, Theirs.Members.front(),
                         /*tag=*/77, &C.Run);
  } else {
    MPI_Comm_dup(MPI_COMM_WORLD, &C.Run);
  }
  return C;
}

UserBuffers RankBuffers::user() {
  UserBuffers U;
  U.Send = Send.empty() ? nullptr : Send.data();
  U.SendBytes = Send.size();
  U.Recv = Recv.empty() ? nullptr : Recv.data();
  U.RecvBytes = Recv.size();
  U.ReduceType = ReduceType;
  U.ReduceOp = ReduceOp;
  return U;
}

llvm::Expected<RankBuffers> harness::makeBuffers(const Schedule &S, Rank Me,
                                                 ReduceData D) {
  RankBuffers B;
  const CollectiveSpec &Spec = S.spec();
  if (Spec.NoPayload)
    return B; // a barrier: no buffers
  std::optional<Holding> Result = Spec.result(S, Me);
  // The receive buffer holds exactly the rank's result (an alltoall's
  // column: its blocks in rank order).
  uint64_t ResultBytes = 0;
  for (const Holding &H : Spec.results(S, Me))
    ResultBytes += H.Hi - H.Lo;
  B.Recv.resize(ResultBytes);
  if (Spec.isReduction()) {
    ReduceElements El = reduceElements(D);
    uint64_t N = S.vectorLength();
    if (N % El.Bytes)
      return makeDiagError("executor",
                           formatv("reductions with --op {0} run on {1}: the "
                                   "vector length {2} is not a multiple of "
                                   "{3} bytes",
                                   reduceDataName(D), El.What, N, El.Bytes));
    // Every rank's result (a reduce_scatter slice) in whole elements too.
    for (const Holding &H : Spec.requirements(S))
      if (H.Lo % El.Bytes || H.Hi % El.Bytes)
        return makeDiagError(
            "executor",
            formatv("reductions with --op {0} run on {1}: rank {2}'s result "
                    "{3}[{4},{5}) is not whole {6}-byte elements",
                    reduceDataName(D), El.What, H.R, Spec.bufferName(H.Buf),
                    H.Lo, H.Hi, El.Bytes));
    B.ReduceType = El.Type;
    B.ReduceOp = El.Op;
    B.Data = D;
    B.Send.resize(N);
    fillReduceInput(D, Me, 0, B.Send);
    return B;
  }
  std::optional<Holding> Own = initialOf(S, Me);
  if (!Own)
    return B;
  // The initial data: in the send buffer, or (a broadcast's root) already
  // in the receive buffer.
  std::vector<char> &To = Spec.initialInRecv() ? B.Recv : B.Send;
  uint64_t Base = Spec.initialInRecv() && Result ? Result->Lo : Own->Lo;
  if (!Spec.initialInRecv())
    To.resize(Own->Hi - Own->Lo);
  // An intercommunicator broadcast's root receives nothing: its data is
  // all its buffer holds.
  if (To.size() < Own->Hi - Base)
    To.resize(Own->Hi - Base);
  for (uint64_t X = Own->Lo; X < Own->Hi && X - Base < To.size(); ++X)
    To[X - Base] = patternByte(Own->Buf, X);
  return B;
}

void harness::poison(const Schedule &S, Rank Me, RankBuffers &B) {
  if (S.spec().initialInRecv() && initialOf(S, Me))
    return;
  std::fill(B.Recv.begin(), B.Recv.end(), char(0xEE));
}

std::optional<std::string> harness::checkResult(const Schedule &S, Rank Me,
                                                llvm::ArrayRef<char> Recv,
                                                ReduceData D) {
  std::vector<Buffer> Bufs = S.buffers();
  std::optional<Holding> Result = S.spec().result(S, Me);
  if (S.spec().NoPayload)
    return std::nullopt;
  // The fold over ranks 0..k-1 (every rank, or a scan's prefix), or on an
  // intercommunicator over the other group's ranks.
  if (Result && S.spec().isReduction()) {
    Interval W = S.spec().wantedContributors(S, Me);
    if (S.spec().Intergroup)
      W = otherGroupRanks(S, Me);
    return checkReduceResult(D, Rank(W.Lo), Rank(W.Hi),
                             Result->Lo / reduceElements(D).Bytes, Recv, Me);
  }
  // The receive buffer: the rank's result ranges one after another. Whose
  // byte: the member whose segment it is (a gather's contribution, a
  // scatter's slice), or the rank that held it first (an alltoall's row).
  std::vector<Holding> Owners = S.memberSegments();
  if (Owners.empty())
    Owners = S.spec().initialHoldings(S);
  uint64_t X = 0;
  for (const Holding &Res : S.spec().results(S, Me))
    for (uint64_t L = Res.Lo; L < Res.Hi && X < Recv.size(); ++L, ++X) {
      char Want = patternByte(Res.Buf, L);
      if (Recv[X] == Want)
        continue;
      std::string Whose;
      for (const Holding &M : Owners)
        if (M.Buf == Res.Buf && M.Lo <= L && L < M.Hi)
          Whose = formatv(", rank {0}'s byte {1}", M.R, L - M.Lo);
      return formatv("rank {0}: byte {1} of the receive buffer (buffer {2}{3}) "
                     "is 0x{4:x-2}, expected 0x{5:x-2}",
                     Me, X, Bufs[Res.Buf].Name, Whose, uint8_t(Recv[X]),
                     uint8_t(Want))
          .str();
    }
  return std::nullopt;
}

llvm::StringRef harness::nativeName(const Schedule &S) {
  return bindingOf(nativeCall(S)).MpiName;
}

llvm::Error harness::runNative(const Schedule &S, const Communicators &C,
                               Rank Me, RankBuffers &B, bool NonBlocking) {
  MPI_Request Req = MPI_REQUEST_NULL;
  MPI_Request *R = NonBlocking ? &Req : nullptr;
  if (auto E = callNative(S, C.Run, Me, B.user(), R))
    return E;
  if (NonBlocking)
    return waitYield(Req);
  return llvm::Error::success();
}

llvm::Expected<std::vector<double>>
harness::timeIterations(MPI_Comm Comm, unsigned Warmup, unsigned Iterations,
                        const std::function<llvm::Error()> &Fn,
                        std::vector<double> *Makespan) {
  std::vector<double> Times, Starts, Ends;
  for (unsigned I = 0; I < Warmup + Iterations; ++I) {
    MPI_Request Req;
    MPI_Ibarrier(Comm, &Req);
    if (auto E = waitYield(Req))
      return E;
    double T0 = MPI_Wtime();
    if (auto E = Fn())
      return E;
    double T1 = MPI_Wtime();
    if (I >= Warmup) {
      Times.push_back(T1 - T0);
      Starts.push_back(T0);
      Ends.push_back(T1);
    }
  }
  if (!Times.empty()) {
    MPI_Allreduce(MPI_IN_PLACE, Times.data(), Times.size(), MPI_DOUBLE, MPI_MAX,
                  Comm);
    if (Makespan) {
      MPI_Allreduce(MPI_IN_PLACE, Starts.data(), Starts.size(), MPI_DOUBLE,
                    MPI_MIN, Comm);
      MPI_Allreduce(MPI_IN_PLACE, Ends.data(), Ends.size(), MPI_DOUBLE, MPI_MAX,
                    Comm);
      Makespan->clear();
      for (size_t I = 0; I < Ends.size(); ++I)
        Makespan->push_back(Ends[I] - Starts[I]);
    }
  }
  return Times;
}

bool harness::sharedClock(MPI_Comm Comm) {
  char Name[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int Len = 0;
  MPI_Get_processor_name(Name, &Len);
  // FNV-1a of the name; equal minimum and maximum over the ranks means one
  // name (a collision would need two hosts in one job hashing alike).
  uint64_t H = 1469598103934665603ull;
  for (int I = 0; I < Len; ++I)
    H = (H ^ static_cast<unsigned char>(Name[I])) * 1099511628211ull;
  uint64_t MinMax[2] = {H, ~H};
  MPI_Allreduce(MPI_IN_PLACE, MinMax, 2, MPI_UINT64_T, MPI_MIN, Comm);
  return MinMax[0] == H && ~MinMax[1] == H;
}

double harness::median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}
