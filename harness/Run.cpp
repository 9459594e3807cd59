//===- harness/Run.cpp - choreo-run: a schedule run as an MPI job ---------===//
///
/// \file
/// The run of choreo-run: read and prove, communicators and buffers, the
/// check against the expected bytes and MPICH, and the timed iterations.
///
//===----------------------------------------------------------------------===//

#include "harness/Run.h"

#include "executor/Pipeline.h"
#include "harness/Harness.h"
#include "ir/ExitCodes.h"

#include "llvm/Support/FormatVariadic.h"

#include <new>
#include <optional>
#include <unistd.h>

using namespace choreo;
using namespace choreo::harness;

namespace {

/// Whether rank X may leave the barrier S only after rank L arrived: X's
/// result holds L's byte of "has arrived" (every rank of a barrier; the
/// other group's of an intergroup one).
bool waitsFor(const Schedule &S, const std::vector<Holding> &Initial, Rank X,
              Rank L) {
  if (X == L)
    return false;
  for (const Holding &Own : Initial)
    if (Own.R == L)
      for (const Holding &H : S.spec().results(S, X))
        if (H.Buf == Own.Buf && H.Lo <= Own.Lo && Own.Hi <= H.Hi)
          return true;
  return false;
}

/// A barrier's check, for choreo's plan and MPICH's call alike: one rank
/// at a time (the first, the middle and the last) arrives 50 ms after the
/// others, and every rank that waits for it (waitsFor) must stay in the
/// barrier at least 25 ms (no shared clock needed). A trial that fails is
/// tried again, up to 5 times, so a rank descheduled for more than 25 ms
/// between the trial's MPI_Barrier and its entry does not fail the check:
/// with 5 ranks on 2 cores beside other tests, twice in a row happened (a
/// fresh-clone CI run, 2026-11-27), while a barrier that lets a rank out
/// early does so in every trial.
int checkBarrier(Plan &P, const Communicators &C, RankBuffers &B, Rank Me,
                 RunResult &R) {
  const double Delay = 0.05;
  const Schedule &S = R.S;
  std::vector<Holding> Initial = S.spec().initialHoldings(S);
  std::vector<Rank> Late = {0};
  for (Rank L : {S.NumRanks / 2, S.NumRanks - 1})
    if (L != Late.back())
      Late.push_back(L);
  int Failures = 0;
  for (bool Native : {false, true})
    for (Rank L : Late) {
      int Early = 0;
      double Stayed = 0;
      for (int Try = 0; Try < 5; ++Try) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (Me == L)
          usleep(useconds_t(Delay * 1e6));
        double T0 = MPI_Wtime();
        llvm::Error E =
            Native ? runNative(S, C, Me, B, /*NonBlocking=*/true) : P.execute();
        if (E) {
          llvm::consumeError(std::move(E));
          Stayed = -1;
        } else {
          Stayed = MPI_Wtime() - T0;
        }
        Early = waitsFor(S, Initial, Me, L) && Stayed < Delay / 2;
        MPI_Allreduce(MPI_IN_PLACE, &Early, 1, MPI_INT, MPI_MAX,
                      MPI_COMM_WORLD);
        if (!Early)
          break;
      }
      if (waitsFor(S, Initial, Me, L) && Stayed < Delay / 2) {
        ++Failures;
        if (R.FirstFailure.empty())
          R.FirstFailure = llvm::formatv(
              "{0}rank {1} left the barrier {2:f1} ms after entering, but rank "
              "{3} entered {4:f0} ms after it",
              Native ? ("MPICH " + nativeName(S) + ": ").str()
                     : std::string("choreo: "),
              Me, Stayed * 1e3, L, Delay * 1e3);
      }
    }
  return Failures;
}

/// The check: choreo's result, then MPICH's, against the expected bytes;
/// counts the failures over every rank.
llvm::Error checkRun(Plan &P, const Communicators &C, RankBuffers &B, Rank Me,
                     RunResult &R) {
  const Schedule &S = R.S;
  int Failures = 0;
  if (S.spec().NoPayload) {
    Failures = checkBarrier(P, C, B, Me, R);
    MPI_Allreduce(MPI_IN_PLACE, &Failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    R.Failures = Failures;
    return llvm::Error::success();
  }
  poison(S, Me, B);
  if (auto E = P.execute())
    return E;
  if (auto Bad = checkResult(S, Me, B.Recv, B.Data)) {
    ++Failures;
    R.FirstFailure = "choreo: " + *Bad;
  }
  std::vector<char> Choreo = B.Recv;
  poison(S, Me, B);
  // MPICH 4.0.2's MPI_Ibcast on an intercommunicator delivers nothing
  // from a root other than rank 0 of its group; its MPI_Bcast is right.
  bool NonBlocking = !(C.Inter && S.spec().Data == DataKind::Broadcast);
  if (auto E = runNative(S, C, Me, B, NonBlocking))
    return E;
  if (auto Bad = checkResult(S, Me, B.Recv, B.Data)) {
    ++Failures;
    if (R.FirstFailure.empty())
      R.FirstFailure = ("MPICH " + nativeName(S) + ": " + *Bad).str();
  }
  // Exact reductions: choreo's result and MPICH's, bit for bit (padding
  // aside).
  if (S.spec().isReduction() && reduceIsExact(B.Data))
    for (size_t X = 0; X < Choreo.size() && X < B.Recv.size(); ++X)
      if (reduceByteIsData(B.Data, X) && Choreo[X] != B.Recv[X]) {
        ++Failures;
        if (R.FirstFailure.empty())
          R.FirstFailure =
              ("rank " + llvm::Twine(Me) + ": byte " + llvm::Twine(X) +
               " of choreo's result differs from MPICH " + nativeName(S) + "'s")
                  .str();
        break;
      }
  MPI_Allreduce(MPI_IN_PLACE, &Failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  R.Failures = Failures;
  return llvm::Error::success();
}

} // namespace

llvm::Expected<RunResult> harness::runJob(const RunOptions &O) {
  int Me;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  if (O.Iterations == 0)
    return makeDiagError("executor", "a run needs at least one iteration");
  // Options that differ between ranks (mpiexec's `:` runs several command
  // lines) would hang the first collective they change: agreed first.
  Hasher Opts;
  for (uint64_t V :
       {uint64_t(O.Iterations), uint64_t(O.Warmup), uint64_t(O.Check),
        uint64_t(O.Native), uint64_t(O.Json), uint64_t(O.Wait), uint64_t(O.Op),
        O.FlowControlBytes})
    Opts.mix(V);
  if (auto E = agreeOnFingerprint(MPI_COMM_WORLD, Opts.digest(),
                                  "other options (--iterations, --warmup, "
                                  "--check, --native, --json, --wait, --op, "
                                  "--flow-control)"))
    return E;
  auto S = readProvedSchedule(O.File, MPI_COMM_WORLD);
  if (!S)
    return S.takeError();
  if (auto E = agreeOnErrors(MPI_COMM_WORLD, jobMismatch(*S)))
    return E;
  RunResult R;
  R.S = std::move(*S);
  auto C = makeCommunicators(R.S);
  if (!C)
    return C.takeError();
  R.Inter = C->Inter;
  // A rank that cannot allocate its buffers refuses with the others.
  std::optional<llvm::Expected<RankBuffers>> MaybeB;
  std::string BufErr;
  try {
    MaybeB.emplace(makeBuffers(R.S, Me, O.Op));
    if (!*MaybeB)
      BufErr = llvm::toString(MaybeB->takeError());
  } catch (const std::bad_alloc &) {
    uint64_t Res = 0;
    for (const Holding &H : R.S.spec().results(R.S, Me))
      Res += H.Hi - H.Lo;
    BufErr = llvm::formatv("rank {0}: out of memory allocating its buffers "
                           "(its result alone is {1} bytes)",
                           Me, Res);
  }
  if (auto E = agreeOnErrors(MPI_COMM_WORLD, BufErr))
    return E;
  llvm::Expected<RankBuffers> &B = *MaybeB;
  PlanOptions PO;
  PO.Wait = O.Wait;
  PO.Verify = false; // proved above, once
  PO.FlowControlBytes = O.FlowControlBytes;
  auto P = Plan::create(R.S, C->Run, B->user(), PO);
  if (!P)
    return P.takeError();

  if (O.Check)
    if (auto E = checkRun(**P, *C, *B, Me, R))
      return E;
  R.SharedClock = sharedClock(MPI_COMM_WORLD);
  auto Times = timeIterations(
      MPI_COMM_WORLD, O.Warmup, O.Iterations, [&] { return (*P)->execute(); },
      R.SharedClock ? &R.Makespans : nullptr);
  if (!Times)
    return Times.takeError();
  R.Times = std::move(*Times);
  if (O.Native) {
    for (bool NB : {false, true}) {
      auto T = timeIterations(
          MPI_COMM_WORLD, O.Warmup, O.Iterations,
          [&] { return runNative(R.S, *C, Me, *B, NB); },
          R.SharedClock
              ? &(NB ? R.NativeNonBlockingMakespans : R.NativeBlockingMakespans)
              : nullptr);
      if (!T)
        return T.takeError();
      (NB ? R.NativeNonBlocking : R.NativeBlocking) = std::move(*T);
    }
  }
  return R;
}

int harness::runSchedule(const RunOptions &O) {
  int Me;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  auto R = runJob(O);
  freeReduceElements();
  if (!R) {
    // Every rank refuses with the same message, printed once.
    std::string Msg = llvm::toString(R.takeError());
    if (Me == 0)
      llvm::errs() << "choreo-run: error: " << Msg << '\n';
    return ExitInvalid;
  }
  if (!R->FirstFailure.empty())
    llvm::errs() << "choreo-run: check failed: " << R->FirstFailure << '\n';
  if (Me == 0) {
    printRunReport(O, *R, llvm::outs());
    llvm::outs().flush();
  }
  return R->Failures ? ExitFailed : ExitOk;
}
