//===- pmpi/ProgressWrappers.cpp - Completion and point-to-point calls ----===//
///
/// \file
/// While the library has a run outstanding or a persistent request active
/// (pmpi/Progress.h), the calls an application waits in advance the runs:
/// MPI_Wait, Waitall, Waitany, Waitsome become loops of their MPI_Test*
/// forms with progressAll() and sched_yield() between; MPI_Test*,
/// MPI_Request_get_status progress once; the MPI_Test* forms complete
/// requests by MPI's rules one request at a time (pmpi/Completion.h), also
/// while a persistent request of MPICH's is active; the blocking point-to-point
/// and probe calls (MPI_Send, Ssend, Recv, Sendrecv, Probe) become their
/// non-blocking forms waited on the same way. An active persistent
/// collective request stands for its current run's request in every such
/// call. MPI_Start and MPI_Startall start the library's persistent
/// requests (the rest go to MPICH), MPI_Request_free frees them and
/// refuses a started call's request, and MPI_Cancel refuses both kinds of
/// collective request, as MPI says. When
/// nothing is outstanding every call goes to PMPI_* at once.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Completion.h"
#include "pmpi/Progress.h"

#include <sched.h>
#include <vector>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// Whether the call goes to PMPI_* as it is.
bool quiet() { return Guard::active() || !enabled() || !busy(); }

/// Whether a completion call on R[0..N) goes to PMPI_* as it is: also not
/// when one of them is a persistent request of MPICH's that MPI_Start
/// started (pmpi/Completion.h).
bool quietCompletion(int N, const MPI_Request *R) {
  return Guard::active() || !enabled() || (!busy() && !anyKnown(N, R));
}

/// Calls Fn on a copy of Reqs in which every active persistent collective
/// request stands for its current request, and writes back what changed.
template <typename Fn> int substituted(int N, MPI_Request *Reqs, Fn Call) {
  std::vector<MPI_Request> Copy(Reqs, Reqs + N);
  std::vector<Persistent *> Ps(N, nullptr);
  for (int I = 0; I < N; ++I)
    if ((Ps[I] = activePersistent(Reqs[I])))
      Copy[I] = Ps[I]->Current;
  int Rc = Call(Copy.data());
  for (int I = 0; I < N; ++I)
    if (Ps[I])
      Ps[I]->Current = Copy[I]; // MPI_REQUEST_NULL: inactive again
    else
      Reqs[I] = Copy[I];
  return Rc;
}

/// Tests until Done says so, progressing the runs in between.
template <typename TestFn> int waitLoop(TestFn Test) {
  for (;;) {
    progressAll();
    bool Done = false;
    int Rc = Test(Done);
    if (Rc != MPI_SUCCESS || Done)
      return Rc;
    sched_yield();
  }
}

int waitRequest(MPI_Request *R, MPI_Status *St) {
  return waitLoop([&](bool &Done) {
    int Flag = 0;
    int Rc = testOne(R, &Flag, St);
    Done = Flag;
    return Rc;
  });
}

/// A blocking collective of MPICH's that the library never serves: its
/// non-blocking form (Start), waited on with the progress. MPICH's blocking
/// call would not progress the library's runs, and a peer that waits for
/// one of them before it enters the call would wait for ever
/// (tests/pmpi/pmpi_lifecycle.c found it with MPI_Neighbor_allgather).
/// Always, not only while a run is outstanding: MPI does not match a
/// blocking collective with a non-blocking one, and another rank may have
/// nothing outstanding (the same test found that hang with
/// MPI_Alltoallw).
template <typename StartFn> int progressedCall(StartFn Start) {
  MPI_Request R = MPI_REQUEST_NULL;
  int Rc = Start(&R);
  return Rc != MPI_SUCCESS ? Rc : waitRequest(&R, MPI_STATUS_IGNORE);
}

/// Before MPICH's blocking communicator constructors (below).
void beforeConstructor() {
  if (!Guard::active() && enabled())
    finishRunsBeforeBlocking();
}

} // namespace

extern "C" {

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (quietCompletion(1, request))
    return PMPI_Wait(request, status);
  if (!Guard::active() && !busy()) {
    // Only MPICH's requests: its MPI_Wait is right; the request's
    // activity is noted.
    MPI_Request Before = *request;
    int Rc = PMPI_Wait(request, status);
    noteCompleted(Before, *request);
    return Rc;
  }
  return substituted(1, request,
                     [&](MPI_Request *R) { return waitRequest(R, status); });
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (quietCompletion(1, request))
    return PMPI_Test(request, flag, status);
  if (!busy())
    return testOne(request, flag, status); // MPICH's MPI_Test is right
  progressAll();
  return substituted(1, request,
                     [&](MPI_Request *R) { return testOne(R, flag, status); });
}

/// MPI_Waitall waits for each request in turn (PMPI_Test loops), not with
/// PMPI_Testall, which MPICH 4.0.2 gets wrong (pmpi/Completion.h). An error
/// ends no wait: every request is completed, and the call returns
/// MPI_ERR_IN_STATUS with each status's MPI_ERROR, as MPI_Waitall does.
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (count <= 0 || quietCompletion(count, requests))
    return PMPI_Waitall(count, requests, statuses);
  if (!busy()) {
    // Only MPICH's requests: its MPI_Waitall is right on them (its
    // MPI_Testall is not); the persistent ones are inactive after it.
    std::vector<MPI_Request> Before(requests, requests + count);
    int Rc = PMPI_Waitall(count, requests, statuses);
    for (int I = 0; I < count; ++I)
      noteCompleted(Before[I], requests[I]);
    return Rc;
  }
  return substituted(count, requests, [&](MPI_Request *R) {
    std::vector<int> Codes(count, MPI_SUCCESS);
    int First = MPI_SUCCESS;
    for (int I = 0; I < count; ++I) {
      MPI_Status Own;
      MPI_Status *St = statuses == MPI_STATUSES_IGNORE ? &Own : &statuses[I];
      Codes[I] = waitRequest(&R[I], St);
      if (Codes[I] != MPI_SUCCESS && First == MPI_SUCCESS)
        First = Codes[I];
    }
    if (First == MPI_SUCCESS)
      return MPI_SUCCESS;
    if (statuses == MPI_STATUSES_IGNORE)
      return First;
    for (int I = 0; I < count; ++I)
      statuses[I].MPI_ERROR = Codes[I];
    return MPI_ERR_IN_STATUS;
  });
}

int MPI_Testall(int count, MPI_Request requests[], int *flag,
                MPI_Status statuses[]) {
  if (count <= 0 || quietCompletion(count, requests))
    return PMPI_Testall(count, requests, flag, statuses);
  progressAll();
  return substituted(count, requests, [&](MPI_Request *R) {
    return testAll(count, R, flag, statuses);
  });
}

int MPI_Waitany(int count, MPI_Request requests[], int *index,
                MPI_Status *status) {
  if (count <= 0 || quietCompletion(count, requests))
    return PMPI_Waitany(count, requests, index, status);
  return substituted(count, requests, [&](MPI_Request *R) {
    return waitLoop([&](bool &Done) {
      int Flag = 0;
      int Rc = testAny(count, R, index, &Flag, status);
      Done = Flag;
      return Rc;
    });
  });
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                MPI_Status *status) {
  if (count <= 0 || quietCompletion(count, requests))
    return PMPI_Testany(count, requests, index, flag, status);
  progressAll();
  return substituted(count, requests, [&](MPI_Request *R) {
    return testAny(count, R, index, flag, status);
  });
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount,
                 int indices[], MPI_Status statuses[]) {
  if (incount <= 0 || quietCompletion(incount, requests))
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  return substituted(incount, requests, [&](MPI_Request *R) {
    return waitLoop([&](bool &Done) {
      int Rc = testSome(incount, R, outcount, indices, statuses);
      Done = *outcount != 0; // MPI_UNDEFINED: no active request
      return Rc;
    });
  });
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount,
                 int indices[], MPI_Status statuses[]) {
  if (incount <= 0 || quietCompletion(incount, requests))
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  progressAll();
  return substituted(incount, requests, [&](MPI_Request *R) {
    return testSome(incount, R, outcount, indices, statuses);
  });
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  if (quiet())
    return PMPI_Request_get_status(request, flag, status);
  progressAll();
  if (Persistent *P = activePersistent(request))
    request = P->Current;
  return PMPI_Request_get_status(request, flag, status);
}

int MPI_Request_free(MPI_Request *request) {
  if (Guard::active() || !enabled())
    return PMPI_Request_free(request);
  if (persistentOf(*request))
    return freePersistent(request);
  MPI_Comm User = MPI_COMM_NULL;
  if (!isRunRequest(*request, User)) {
    noteFreed(*request);
    return PMPI_Request_free(request);
  }
  // MPICH refuses its own too (a request of kind "collective").
  return failReported(User, "MPI_Request_free: the request is a "
                            "non-blocking collective operation's, which MPI "
                            "does not allow to free");
}

int MPI_Cancel(MPI_Request *request) {
  if (Guard::active() || !enabled())
    return PMPI_Cancel(request);
  Persistent *P = persistentOf(*request);
  MPI_Comm User = MPI_COMM_NULL;
  if (P)
    User = P->Comm;
  else if (!isRunRequest(*request, User))
    return PMPI_Cancel(request);
  return failReported(User,
                      "MPI_Cancel: the request is a collective operation's, "
                      "which MPI does not allow to cancel");
}

int MPI_Start(MPI_Request *request) {
  Persistent *P =
      Guard::active() || !enabled() ? nullptr : persistentOf(*request);
  if (P)
    return startPersistent(*P);
  int Rc = PMPI_Start(request);
  if (Rc == MPI_SUCCESS && !Guard::active() && enabled())
    noteStarted(*request);
  return Rc;
}

int MPI_Startall(int count, MPI_Request requests[]) {
  if (Guard::active() || !enabled())
    return PMPI_Startall(count, requests);
  for (int I = 0; I < count; ++I) {
    Persistent *P = persistentOf(requests[I]);
    int Rc = P ? startPersistent(*P) : PMPI_Start(&requests[I]);
    if (Rc != MPI_SUCCESS)
      return Rc;
    if (!P)
      noteStarted(requests[I]);
  }
  return MPI_SUCCESS;
}

/// A datatype the library's runs or persistent requests may still use is
/// freed once they are done (pmpi::deferTypeFree): MPI lets them go on with
/// it. A predefined type goes to MPICH, which refuses it.
int MPI_Type_free(MPI_Datatype *datatype) {
  if (Guard::active() || !enabled() || !holdsHandles() || !datatype ||
      *datatype == MPI_DATATYPE_NULL)
    return PMPI_Type_free(datatype);
  int Ints = 0, Addrs = 0, Types = 0, Combiner = MPI_COMBINER_NAMED;
  if (PMPI_Type_get_envelope(*datatype, &Ints, &Addrs, &Types, &Combiner) !=
          MPI_SUCCESS ||
      Combiner == MPI_COMBINER_NAMED)
    return PMPI_Type_free(datatype);
  deferTypeFree(*datatype);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

/// The same for a user-defined operator (MPI_Op_create's).
int MPI_Op_free(MPI_Op *op) {
  if (Guard::active() || !enabled() || !holdsHandles() || !op ||
      *op == MPI_OP_NULL)
    return PMPI_Op_free(op);
  static const MPI_Op Predefined[] = {
      MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,
      MPI_LOR,  MPI_BOR,  MPI_LXOR, MPI_BXOR,   MPI_MAXLOC, MPI_MINLOC,
      MPI_REPLACE, MPI_NO_OP};
  for (MPI_Op P : Predefined)
    if (*op == P)
      return PMPI_Op_free(op);
  deferOpFree(*op);
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm) {
  if (quiet())
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
  MPI_Request R;
  int Rc = PMPI_Isend(buf, count, datatype, dest, tag, comm, &R);
  return Rc != MPI_SUCCESS ? Rc : waitRequest(&R, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm) {
  if (quiet())
    return PMPI_Ssend(buf, count, datatype, dest, tag, comm);
  MPI_Request R;
  int Rc = PMPI_Issend(buf, count, datatype, dest, tag, comm, &R);
  return Rc != MPI_SUCCESS ? Rc : waitRequest(&R, MPI_STATUS_IGNORE);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
             MPI_Comm comm, MPI_Status *status) {
  if (quiet())
    return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
  MPI_Request R;
  int Rc = PMPI_Irecv(buf, count, datatype, source, tag, comm, &R);
  return Rc != MPI_SUCCESS ? Rc : waitRequest(&R, status);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status) {
  if (quiet())
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                         recvcount, recvtype, source, recvtag, comm, status);
  MPI_Request R[2];
  int Rc =
      PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &R[0]);
  if (Rc != MPI_SUCCESS)
    return Rc;
  Rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &R[1]);
  if (Rc != MPI_SUCCESS)
    return Rc;
  MPI_Status St[2];
  Rc = waitLoop([&](bool &Done) {
    int Flag = 0;
    int X = PMPI_Testall(2, R, &Flag, St);
    Done = Flag;
    return X;
  });
  if (status != MPI_STATUS_IGNORE)
    *status = St[0];
  return Rc;
}

// MPICH's blocking communicator constructors advance none of the library's
// runs: each rank finishes its own first (pmpi/Progress.h,
// finishRunsBeforeBlocking), so a peer that waits for one of them before
// its constructor cannot wait for ever.
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  beforeConstructor();
  return PMPI_Comm_dup(comm, newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
  beforeConstructor();
  return PMPI_Comm_dup_with_info(comm, info, newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  beforeConstructor();
  return PMPI_Comm_split(comm, color, key, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm) {
  beforeConstructor();
  return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  beforeConstructor();
  return PMPI_Comm_create(comm, group, newcomm);
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
                         MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm *newintercomm) {
  beforeConstructor();
  return PMPI_Intercomm_create(local_comm, local_leader, peer_comm,
                               remote_leader, tag, newintercomm);
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  beforeConstructor();
  return PMPI_Intercomm_merge(intercomm, high, newintracomm);
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                    const int periods[], int reorder, MPI_Comm *comm_cart) {
  beforeConstructor();
  return PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                  const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm comm) {
  if (Guard::active() || !enabled())
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                          recvcounts, rdispls, recvtypes, comm);
  return progressedCall([&](MPI_Request *R) {
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                           recvcounts, rdispls, recvtypes, comm, R);
  });
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  if (Guard::active() || !enabled())
    return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, comm);
  return progressedCall([&](MPI_Request *R) {
    return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, comm, R);
  });
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm) {
  if (Guard::active() || !enabled())
    return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcounts, displs, recvtype, comm);
  return progressedCall([&](MPI_Request *R) {
    return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcounts, displs, recvtype, comm, R);
  });
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) {
  if (Guard::active() || !enabled())
    return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, recvtype, comm);
  return progressedCall([&](MPI_Request *R) {
    return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, comm, R);
  });
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                           const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm) {
  if (Guard::active() || !enabled())
    return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype,
                                   recvbuf, recvcounts, rdispls, recvtype,
                                   comm);
  return progressedCall([&](MPI_Request *R) {
    return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype,
                                    recvbuf, recvcounts, rdispls, recvtype,
                                    comm, R);
  });
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                           const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf,
                           const int recvcounts[], const MPI_Aint rdispls[],
                           const MPI_Datatype recvtypes[], MPI_Comm comm) {
  if (Guard::active() || !enabled())
    return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes,
                                   recvbuf, recvcounts, rdispls, recvtypes,
                                   comm);
  return progressedCall([&](MPI_Request *R) {
    return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes,
                                    recvbuf, recvcounts, rdispls, recvtypes,
                                    comm, R);
  });
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  if (quiet())
    return PMPI_Probe(source, tag, comm, status);
  return waitLoop([&](bool &Done) {
    int Flag = 0;
    int Rc = PMPI_Iprobe(source, tag, comm, &Flag, status);
    Done = Flag;
    return Rc;
  });
}

} // extern "C"
