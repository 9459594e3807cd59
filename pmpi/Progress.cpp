//===- pmpi/Progress.cpp - Outstanding runs and their requests ------------===//
///
/// \file
/// The registry of outstanding runs, their generalized requests' functions
/// (query, free, cancel, poll, wait) and the persistent requests.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Progress.h"

#include "executor/Yielding.h"
#include "pmpi/Config.h"

#include <cstdio>

#include <list>
#include <map>
#include <sched.h>
#include <vector>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// What a run's generalized request knows of it (its extra_state, freed
/// by the free function once the application freed the request).
struct ReqState {
  bool Done = false;
  int Code = MPI_SUCCESS;
  bool Persistent = false;
};

struct Run {
  /// Null while Pending's exchange is in flight.
  std::shared_ptr<Plan> P;
  PendingPlan Pending;
  PrivateComm *Priv;
  MPI_Comm User;
  std::string What;
  MPI_Request Req;
  ReqState *S;
  /// Packed copies and their unpacking (pmpi/Calls.h).
  std::shared_ptr<void> Keep;
  std::function<bool()> Finish;
  /// The slot its messages' tags derive from (-1: none), and whether the
  /// plan started (a run queued behind an older one of its slot has not).
  int64_t Slot = -1;
  bool Begun = true;
};

std::list<Run> &runs() {
  static std::list<Run> R;
  return R;
}

std::map<MPI_Request, Persistent> &persistents() {
  static std::map<MPI_Request, Persistent> P;
  return P;
}

/// The application's datatypes and operators freed while held
/// (pmpi::deferTypeFree, deferOpFree).
struct FreedHandles {
  std::vector<MPI_Datatype> Types;
  std::vector<MPI_Op> Ops;
};
FreedHandles &deferred() {
  static FreedHandles D;
  return D;
}

/// Frees the deferred handles once nothing holds them (All: now).
void releaseDeferred(bool All) {
  FreedHandles &D = deferred();
  if ((D.Types.empty() && D.Ops.empty()) || (!All && holdsHandles()))
    return;
  for (MPI_Datatype &T : D.Types)
    PMPI_Type_free(&T);
  for (MPI_Op &Op : D.Ops)
    PMPI_Op_free(&Op);
  D.Types.clear();
  D.Ops.clear();
}

/// MPI's status of a completed collective: MPICH's own (count 0, not
/// cancelled; source and tag MPI_UNDEFINED for a non-blocking collective,
/// 0 for a persistent one); MPI_ERROR is the completion call's to set.
int queryFn(void *Extra, MPI_Status *St) {
  auto *S = static_cast<ReqState *>(Extra);
  PMPI_Status_set_elements(St, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(St, 0);
  St->MPI_SOURCE = S->Persistent ? 0 : MPI_UNDEFINED;
  St->MPI_TAG = S->Persistent ? 0 : MPI_UNDEFINED;
  return S->Code;
}

int freeFn(void *Extra) {
  delete static_cast<ReqState *>(Extra);
  return MPI_SUCCESS;
}

/// MPI does not cancel collectives (the MPI_Cancel wrapper says so first).
int cancelFn(void *, int) { return MPI_ERR_REQUEST; }

int pollFn(void *, MPI_Status *) {
  progressAll();
  return MPI_SUCCESS;
}

int waitFn(int N, void **Extra, double, MPI_Status *) {
  for (;;) {
    progressAll();
    bool All = true;
    for (int I = 0; I < N && All; ++I)
      All = static_cast<ReqState *>(Extra[I])->Done;
    if (All)
      return MPI_SUCCESS;
    sched_yield();
  }
}

/// Runs a started plan to its end (or its first error, dropped) when no
/// request can report it: the peers count on this rank's messages.
void finishUnreported(Plan &P) {
  while (true) {
    auto Done = P.progress();
    if (!Done) {
      llvm::consumeError(Done.takeError());
      return;
    }
    if (*Done)
      return;
    sched_yield();
  }
}

} // namespace

bool pmpi::slotHeld(PrivateComm *Priv, uint32_t Slot) {
  for (const Run &X : runs())
    if (X.Priv == Priv && X.Slot == int64_t(Slot))
      return true;
  return false;
}

bool pmpi::planQueued(const Plan *P) {
  for (const Run &X : runs())
    if (!X.Begun && X.P.get() == P)
      return true;
  return false;
}

int pmpi::startedRun(std::shared_ptr<Plan> P, PrivateComm *Priv, MPI_Comm User,
                     std::string What, const Request &R, uint32_t Slot) {
  bool Now = !slotHeld(Priv, Slot);
  if (Now) {
    if (auto Err = P->start(Slot))
      return failReported(User, What + ": " + llvm::toString(std::move(Err)));
  } else {
    static bool Said = false;
    if (!Said && config().Verbose) {
      Said = true;
      std::fprintf(stderr,
                   "choreo-mpi: %s: queued until an outstanding run of its "
                   "tag slot completes (more runs outstanding on the "
                   "communicator than its tag window holds; docs/pmpi.md, "
                   "\"Tags\")\n",
                   What.c_str());
    }
  }
  auto *S = new ReqState();
  S->Persistent = R.Persistent;
  int Rc =
      MPIX_Grequest_start(queryFn, freeFn, cancelFn, pollFn, waitFn, S, R.Out);
  if (Rc != MPI_SUCCESS) {
    delete S;
    // The run must still complete, or the peers wait: started here once
    // no outstanding run holds its slot.
    if (!Now) {
      while (slotHeld(Priv, Slot)) {
        progressAll();
        sched_yield();
      }
      if (auto Err = P->start(Slot))
        llvm::consumeError(std::move(Err));
    }
    finishUnreported(*P);
    return failReported(
        User, What + ": MPIX_Grequest_start failed: " + mpiErrorText(Rc));
  }
  ++Priv->Users;
  // The runtime's own collectives (a first call's agreement) progress the
  // runs while they wait.
  yielding::setIdle(progressAll);
  runs().push_back({std::move(P), nullptr, Priv, User, std::move(What), *R.Out,
                    S, R.Keep, R.Finish, int64_t(Slot), Now});
  return MPI_SUCCESS;
}

int pmpi::startedPending(PendingPlan Poll, PrivateComm *Priv, MPI_Comm User,
                         std::string What, const Request &R, int64_t Slot) {
  auto *S = new ReqState();
  S->Persistent = R.Persistent;
  int Rc =
      MPIX_Grequest_start(queryFn, freeFn, cancelFn, pollFn, waitFn, S, R.Out);
  if (Rc != MPI_SUCCESS) {
    delete S;
    // The exchange is under way and the peers count on this rank's plan:
    // it must still run.
    std::shared_ptr<Plan> P;
    while (!P) {
      auto X = Poll();
      if (!X) {
        llvm::consumeError(X.takeError());
        break;
      }
      P = std::move(*X);
      sched_yield();
    }
    if (P)
      finishUnreported(*P);
    return failReported(
        User, What + ": MPIX_Grequest_start failed: " + mpiErrorText(Rc));
  }
  ++Priv->Users;
  yielding::setIdle(progressAll);
  runs().push_back({nullptr, std::move(Poll), Priv, User, std::move(What),
                    *R.Out, S, R.Keep, R.Finish, Slot, true});
  return MPI_SUCCESS;
}

namespace {
/// Whether progressAll is on the stack (it does not nest).
bool InProgressAll = false;
} // namespace

void pmpi::progressAll() {
  bool &Inside = InProgressAll;
  std::list<Run> &Rs = runs();
  if (Inside || Rs.empty())
    return;
  Inside = true;
  Guard G;
  for (auto It = Rs.begin(); It != Rs.end();) {
    if (!It->Begun) {
      // Queued behind an older run of its slot: started once none is left.
      bool Held = false;
      for (auto Old = Rs.begin(); Old != It && !Held; ++Old)
        Held = Old->Priv == It->Priv && Old->Slot == It->Slot;
      if (Held) {
        ++It;
        continue;
      }
      It->Begun = true;
      if (auto Err = It->P->start(uint32_t(It->Slot))) {
        It->S->Code = failReported(MPI_COMM_NULL,
                                   It->What + ": " +
                                       llvm::toString(std::move(Err)));
        It->S->Done = true;
        MPI_Request Req = It->Req;
        releasePrivate(It->Priv);
        It = Rs.erase(It);
        PMPI_Grequest_complete(Req);
        continue;
      }
    }
    if (!It->P) {
      auto X = It->Pending();
      if (X && !*X) {
        ++It;
        continue;
      }
      if (X) {
        It->P = std::move(*X);
        It->Pending = nullptr;
      } else {
        It->S->Code = failReported(MPI_COMM_NULL,
                                   It->What + ": " +
                                       llvm::toString(X.takeError()));
        It->S->Done = true;
        MPI_Request Req = It->Req;
        releasePrivate(It->Priv);
        It = Rs.erase(It);
        PMPI_Grequest_complete(Req);
        continue;
      }
    }
    auto Done = It->P->progress();
    if (Done && !*Done) {
      ++It;
      continue;
    }
    if (!Done)
      // The communicator may be freed by now: the error goes to the
      // completion call, through the request.
      It->S->Code = failReported(
          MPI_COMM_NULL, It->What + ": " + llvm::toString(Done.takeError()));
    else if (It->Finish && !It->Finish())
      It->S->Code =
          failReported(MPI_COMM_NULL, It->What + ": the result does not unpack "
                                                 "into the receive datatype");
    It->S->Done = true;
    MPI_Request Req = It->Req;
    releasePrivate(It->Priv);
    It = Rs.erase(It);
    PMPI_Grequest_complete(Req);
  }
  if (Rs.empty())
    releaseDeferred(false);
  Inside = false;
}

void pmpi::drainRuns() {
  finishRunsBeforeBlocking();
  // MPI_Finalize: no persistent request of the library starts again.
  releaseDeferred(true);
}

void pmpi::finishRunsBeforeBlocking() {
  // Inside progressAll nothing would advance them: never wait there.
  while (!runs().empty() && !InProgressAll) {
    progressAll();
    sched_yield();
  }
}

bool pmpi::holdsHandles() { return !runs().empty() || !persistents().empty(); }

void pmpi::deferTypeFree(MPI_Datatype T) { deferred().Types.push_back(T); }

void pmpi::deferOpFree(MPI_Op Op) { deferred().Ops.push_back(Op); }

bool pmpi::busy() {
  if (!runs().empty())
    return true;
  for (const auto &[H, P] : persistents())
    if (P.Current != MPI_REQUEST_NULL)
      return true;
  return false;
}

bool pmpi::isRunRequest(MPI_Request R, MPI_Comm &User) {
  for (const Run &X : runs())
    if (X.Req == R) {
      User = X.User;
      return true;
    }
  return false;
}

int pmpi::makePersistent(MPI_Comm Comm, Request Call,
                         std::function<int(MPI_Request *)> Native,
                         MPI_Request *Out) {
  // Never started (MPI_Start and MPI_Startall start the run instead), so
  // it matches nothing. Not from MPI_PROC_NULL: MPICH 4.0.2 reuses a freed
  // request's object for the next request, and its MPI_Start skips any
  // request whose object last held a persistent point-to-point request
  // with peer MPI_PROC_NULL, MPICH's own persistent collectives included
  // (fixed in 4.2.0; docs/pmpi.md, "MPICH's persistent requests and
  // MPI_PROC_NULL").
  int Rc = PMPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                          Comm, Out);
  if (Rc != MPI_SUCCESS)
    return Rc;
  Persistent &P = persistents()[*Out];
  P.Comm = Comm;
  P.Call = std::move(Call);
  P.Native = std::move(Native);
  return MPI_SUCCESS;
}

Persistent *pmpi::persistentOf(MPI_Request H) {
  auto &Ps = persistents();
  if (Ps.empty() || H == MPI_REQUEST_NULL)
    return nullptr;
  auto It = Ps.find(H);
  return It == Ps.end() ? nullptr : &It->second;
}

Persistent *pmpi::activePersistent(MPI_Request H) {
  Persistent *P = persistentOf(H);
  // Inactive: never started, or its current request completed.
  return P && P->Current != MPI_REQUEST_NULL ? P : nullptr;
}

int pmpi::startPersistent(Persistent &P) {
  if (P.Current != MPI_REQUEST_NULL)
    return failReported(P.Comm, "MPI_Start: the persistent collective "
                                "request is already active");
  if (P.Call.BeforeStart && !P.Call.BeforeStart())
    return failReported(P.Comm, "MPI_Start: the send buffer does not pack "
                                "by its datatype");
  Request R = P.Call;
  R.Do = Mode::Start;
  R.Persistent = true;
  R.Out = &P.Current;
  int Rc = MPI_SUCCESS;
  switch (run(P.Comm, R, Rc)) {
  case Outcome::Ran:
    break;
  case Outcome::Failed:
    return Rc;
  case Outcome::Native:
    Rc = P.Native(&P.Current);
    break;
  }
  return Rc;
}

int pmpi::freePersistent(MPI_Request *H) {
  auto &Ps = persistents();
  auto It = Ps.find(*H);
  if (It == Ps.end())
    return PMPI_Request_free(H);
  if (It->second.Current != MPI_REQUEST_NULL) {
    // Its run goes on and completes the request on its own.
    PMPI_Request_free(&It->second.Current);
  }
  Ps.erase(It);
  int Rc = PMPI_Request_free(H);
  releaseDeferred(false);
  return Rc;
}
