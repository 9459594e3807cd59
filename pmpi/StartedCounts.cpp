//===- pmpi/StartedCounts.cpp - Started v forms, counts in the run --------===//
///
/// \file
/// The run of a started MPI_Igatherv, MPI_Iscatterv or MPI_Ialltoallv (on
/// an intracommunicator or an intercommunicator): the counts' exchange
/// posted at the start, then, once it completed, the plan every rank makes
/// alike without a message, started in the slot the call took.
///
//===----------------------------------------------------------------------===//

#include "pmpi/StartedCounts.h"

#include "executor/Clock.h"
#include "pmpi/Config.h"
#include "pmpi/Progress.h"
#include "pmpi/RootSizes.h"
#include "pmpi/Shape.h"
#include "verifier/Verifier.h"

#include "llvm/Support/FormatVariadic.h"

#include <cctype>
#include <cstdio>
#include <list>
#include <map>
#include <set>

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

namespace {

using Key = std::pair<uint64_t, uint64_t>;

/// One shape's plans on a private communicator: this rank's ops of the
/// proved schedule, and one plan per run of it outstanding at once.
struct Entry {
  Schedule Mine;
  struct Instance {
    std::shared_ptr<Plan> P;
    bool Bound = false;
    UserBuffers At;
  };
  std::vector<Instance> Plans;
};

/// A private communicator's started v forms' plans, the oldest shape
/// dropped beyond CHOREO_PLANS_PER_COMM (a running plan lives on in its
/// run). Which shapes it holds changes nothing but the time: every rank
/// makes the same plan whether it finds one here or not.
struct Cache {
  std::map<Key, Entry> Entries;
  std::list<Key> Order;
};

Cache &cacheOf(PrivateComm &P) {
  if (!P.Started)
    P.Started = std::make_shared<Cache>();
  return *static_cast<Cache *>(P.Started.get());
}

bool sameBinding(const UserBuffers &A, const UserBuffers &B) {
  return A.Send == B.Send && A.Recv == B.Recv && A.SendBytes == B.SendBytes &&
         A.RecvBytes == B.RecvBytes && A.RecvDispls == B.RecvDispls &&
         A.SendDispls == B.SendDispls;
}

llvm::Error problem(const std::string &Text) {
  return makeDiagError("choreo-mpi", Text);
}

/// A started call between its start and its plan.
struct Pending {
  PrivateComm *Priv = nullptr;
  std::string CommName;
  uint32_t Slot = 0;
  Choice Ch;
  std::vector<uint32_t> NodeOf;
  MpiArgs Args;
  UserBuffers Buffers;
  /// What this rank says, what every rank said, and how that completes
  /// Args.
  std::vector<uint64_t> Mine, All;
  std::function<std::string(llvm::ArrayRef<uint64_t>, MpiArgs &)> Heard;
  MPI_Request Ex = MPI_REQUEST_NULL;

  llvm::Expected<std::shared_ptr<Plan>> poll();
  /// The whole schedule every rank makes for Call, and what it is.
  llvm::Expected<Schedule> build(const BoundCall &Call, std::string &Algo,
                                 std::string &Detail);
};

llvm::Expected<Schedule> Pending::build(const BoundCall &Call,
                                        std::string &Algo,
                                        std::string &Detail) {
  const Config &C = config();
  std::string Id;
  std::vector<std::string> Extra;
  if (Ch.K == Choice::Algorithm) {
    Id = Ch.Id;
    Extra = Ch.Extra;
    Algo = Ch.Text;
  } else {
    auto A = chooseByModel(Call, C.Sel, NodeOf);
    if (!A)
      return A.takeError();
    if (handedToMpich(A->Time, A->MpichTime, C.Sel.Margin)) {
      // MPICH's own call can no longer be started in order: its algorithm
      // runs as choreo's schedule.
      Id = Algo = A->MpichId;
      Detail = formatv("auto: {0} predicted {1:e3} s, MPICH's own ({2}) "
                       "{3:e3} s: not {4:F0} % faster (CHOREO_MARGIN), so "
                       "the started call runs {2}",
                       A->Id, A->Time, A->MpichId, *A->MpichTime,
                       C.Sel.Margin * 100);
    } else {
      Algo = A->Text.empty() ? A->Id : A->Text;
      Detail = formatv("auto: model time {0:e3} s, best of {1} whole "
                       "schedules",
                       A->Time, A->Candidates);
      return std::move(A->S);
    }
  }
  return buildFor(Id, Extra, Call.Header, Call.ElemBytes);
}

llvm::Expected<std::shared_ptr<Plan>> Pending::poll() {
  if (Ex != MPI_REQUEST_NULL) {
    int Done = 0;
    int Rc = PMPI_Test(&Ex, &Done, MPI_STATUS_IGNORE);
    if (Rc != MPI_SUCCESS)
      return problem("the exchange of the counts failed: " + mpiErrorText(Rc));
    if (!Done)
      return nullptr;
  }
  // Every rank heard the same words: from here on every rank decides
  // alike, and no message is sent before the plan's own.
  if (std::string Err = Heard(All, Args); !Err.empty())
    return problem(Err + " (" + CommName + ")");
  All = {};
  auto B = bindCall(Args);
  if (!B)
    return B.takeError();
  Digest128 D = B->key();
  Key K{D.H1, D.H2};
  Cache &Cc = cacheOf(*Priv);
  auto It = Cc.Entries.find(K);
  if (It == Cc.Entries.end()) {
    double T0 = steadySeconds();
    std::string Algo, Detail;
    auto S = build(*B, Algo, Detail);
    if (!S)
      return problem(formatv("{0} on {1}: {2} ({3}) cannot serve it: {4}",
                             B->describe(), CommName,
                             Algo.empty() ? std::string("auto") : Algo,
                             Ch.Why, llvm::toString(S.takeError())));
    VerifyResult V = checkExplicit(*S);
    if (!V.proved())
      return problem(formatv(
          "{0} on {1}: the schedule of {2} does not verify: {3}",
          B->describe(), CommName, Algo,
          V.Diags.empty() ? std::string() : V.Diags.front().Message));
    double Ms = (steadySeconds() - T0) * 1e3;
    const Config &C = config();
    std::string Line = formatv(
        "{0} on {1}, started: {2} ({3}{4}{5}); the counts exchanged in the "
        "run's first step, the whole schedule ({6} ops) built and proved by "
        "every rank in {7:f2} ms",
        B->describe(), CommName, Algo, Ch.Why, Detail.empty() ? "" : "; ",
        Detail, S->Steps.numOps(), Ms);
    static std::set<std::string> Printed;
    if (C.Verbose && (C.Verbose >= 2 || Priv->Rank == 0) &&
        Printed
            .insert(CommName + "|" + B->mpiName().str() + "|" + Algo + "|" +
                    Ch.Why)
            .second) {
      std::fprintf(stderr, "choreo-mpi: %s\n", Line.c_str());
      std::fflush(stderr);
    }
    if (Cc.Entries.size() >= std::max<size_t>(C.MaxPlans, 1)) {
      Cc.Entries.erase(Cc.Order.front());
      Cc.Order.pop_front();
    }
    It = Cc.Entries.emplace(K, Entry()).first;
    It->second.Mine = onlyRank(*S, Rank(Priv->Rank));
    Cc.Order.push_back(K);
  }
  Entry &E = It->second;
  Entry::Instance *I = nullptr;
  for (Entry::Instance &X : E.Plans)
    if (!X.P->running() && (!I || (X.Bound && sameBinding(X.At, Buffers))))
      I = &X;
  if (!I && E.Plans.empty()) {
    auto P = Plan::createLocal(E.Mine, Priv->Comm, Buffers, Priv->FlowControl);
    if (!P)
      return P.takeError();
    E.Plans.push_back({std::shared_ptr<Plan>(std::move(*P)), true, Buffers});
    I = &E.Plans.back();
  } else if (!I) {
    E.Plans.push_back(
        {std::shared_ptr<Plan>(E.Plans[0].P->sibling()), false, {}});
    I = &E.Plans.back();
  }
  if (!I->Bound || !sameBinding(I->At, Buffers)) {
    if (auto Err = I->P->rebind(E.Mine, Buffers)) {
      I->Bound = false;
      // The peers run the plan: this rank runs its messages empty, so that
      // nobody waits for it (Plan::abandon).
      std::string Text = llvm::toString(std::move(Err));
      if (!E.Plans.empty() && E.Plans[0].Bound)
        llvm::consumeError(I->P->abandon(Slot));
      return problem(Text);
    }
    I->Bound = true;
    I->At = Buffers;
  }
  if (auto Err = I->P->start(Slot))
    return Err;
  return I->P;
}

} // namespace

int pmpi::startWithCounts(PrivateComm *Priv, MPI_Comm User,
                          std::string CommName, uint32_t Slot,
                          const Choice &Ch, std::vector<uint32_t> NodeOf,
                          Request &R) {
  auto Pd = std::make_shared<Pending>();
  Pd->Priv = Priv;
  Pd->CommName = std::move(CommName);
  Pd->Slot = Slot;
  Pd->Ch = Ch;
  Pd->NodeOf = std::move(NodeOf);
  Pd->Args = R.Args;
  Pd->Buffers = R.Buffers;
  int N = 0;
  PMPI_Comm_size(Priv->Comm, &N);
  if (R.RootSizes) {
    Pd->Mine.resize(2);
    rootSizesSaid(R, Priv->Rank, Pd->Mine.data());
    Pd->Heard = [](llvm::ArrayRef<uint64_t> All, MpiArgs &A) {
      std::vector<uint64_t> Sizes;
      std::string Err = rootSizesHeard(A, All, Sizes);
      A.SizesA = std::move(Sizes);
      return Err;
    };
  } else {
    Pd->Mine = R.Said;
    Pd->Heard = R.Heard;
  }
  int K = int(Pd->Mine.size());
  Pd->All.assign(R.SaidMax ? size_t(K) : size_t(K) * size_t(N), 0);
  std::string What = bindingOf(R.Args.Call).MpiName;
  // MPI_Gatherv: MPI_Igatherv.
  What = "MPI_I" + std::string(1, char(std::tolower(What[4]))) + What.substr(5);
  int Rc = R.SaidMax
               ? PMPI_Iallreduce(Pd->Mine.data(), Pd->All.data(), K,
                                 MPI_UINT64_T, MPI_MAX, Priv->Comm, &Pd->Ex)
               : PMPI_Iallgather(Pd->Mine.data(), K, MPI_UINT64_T,
                                 Pd->All.data(), K, MPI_UINT64_T, Priv->Comm,
                                 &Pd->Ex);
  if (Rc != MPI_SUCCESS)
    return failReported(User, What + " on " + Pd->CommName +
                                  ": the exchange of the counts failed: " +
                                  mpiErrorText(Rc));
  return startedPending([Pd] { return Pd->poll(); }, Priv, User,
                        What + " on " + Pd->CommName, R, Slot);
}
