/*===- tests/pmpi/pmpi_completion.c - Completion calls on mixed requests --===*/
/*
 * mpiexec -n 4 pmpi_completion OUTDIR: an unmodified MPI application (it
 * links MPICH only) that completes, with each of MPI_Testall, MPI_Testany,
 * MPI_Testsome, MPI_Waitall, MPI_Waitany and MPI_Waitsome in turn, one
 * array of five requests of every kind at once:
 *
 *   [0] a point-to-point receive (a ring, tag of the round),
 *   [1] an MPI_Iallreduce (the library's request when it is preloaded),
 *   [2] an MPICH persistent collective (MPI_Alltoallw_init, which the
 *       library never serves), started every round,
 *   [3] a point-to-point send,
 *   [4] MPI_REQUEST_NULL.
 *
 * Rank 0 completes its MPI_Alltoallw first and starts its MPI_Iallreduce
 * 100 ms later, so that every other rank sees, for 100 ms, MPICH's
 * persistent request complete beside a pending MPI_Iallreduce (and rank 0
 * an inactive persistent request in its array). Under MPI_ERRORS_RETURN,
 * every call must return MPI_SUCCESS and keep MPI's rules:
 *  - Testall: flag 0 changes no request; flag 1 completes all of them (the
 *    started ones MPI_REQUEST_NULL, the persistent one inactive: its handle
 *    kept), the receive's status its source, tag and count, the null
 *    request's status empty;
 *  - Testany, Waitany: each active request's index exactly once, then
 *    MPI_UNDEFINED (with flag 1) once every request is null or inactive;
 *  - Testsome, Waitsome: each active request's index exactly once over the
 *    calls, then outcount MPI_UNDEFINED;
 * and every value (the sum, the exchanged blocks, the ring's token) right.
 * Last, with nothing of the library's outstanding, MPICH's persistent
 * request completed by MPI_Waitall must be inactive for MPI_Testany
 * (flag 1, MPI_UNDEFINED) and MPI_Testsome (MPI_UNDEFINED).
 *
 * Request [2] is MPICH's persistent request only with
 * COMPLETION_MPICH_PERSISTENT set (the library's runs); otherwise the
 * exchange is a blocking MPI_Alltoallw and [2] is MPI_REQUEST_NULL. MPICH
 * 4.0.2 alone cannot run the persistent form: its MPI_Testall returns
 * MPI_ERR_IN_STATUS whenever one of its persistent collective requests is
 * complete (MPIR_Request_get_error has no case for them), and its
 * MPI_Testany, Testsome, Waitany and Waitsome take an inactive persistent
 * collective request for an active complete one (MPIR_Request_is_active
 * says 1 for them), returning its index for ever.
 * Results and the receive's statuses go to OUTDIR/rank<R>.bin, compared bit
 * for bit with the native run's. Rank 0 prints "pmpi_completion: passed"
 * when every check held on every rank; alarm() ends a hang after 60 s.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_completion"
#include "pmpi_test_util.h"

#define N 8
#define NREQ 5

static void expect_call(int ok, const char *call, const char *what, int a,
                        int b) {
  if (!ok) {
    if (failures < 20)
      fprintf(stderr, "pmpi_completion: rank %d: %s: %s (%d, %d)\n", me, call,
              what, a, b);
    ++failures;
  }
}

static int is_empty(const MPI_Status *st) {
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
         count == 0;
}

enum { TESTALL, TESTANY, TESTSOME, WAITALL, WAITANY, WAITSOME, NCALLS };
static const char *names[NCALLS] = {"MPI_Testall",  "MPI_Testany",
                                    "MPI_Testsome", "MPI_Waitall",
                                    "MPI_Waitany",  "MPI_Waitsome"};

/* A completed request's handle: MPI_REQUEST_NULL, the persistent one
 * kept (inactive). */
static void check_after(const char *call, int i, const MPI_Request *r,
                        MPI_Request persistent) {
  if (i == 2)
    expect_call(r[i] == persistent, call, "persistent handle not kept", i, 0);
  else
    expect_call(r[i] == MPI_REQUEST_NULL, call, "not MPI_REQUEST_NULL", i, 0);
}

static void check_recv_status(const char *call, const MPI_Status *st, int from,
                              int tag) {
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  expect_call(st->MPI_SOURCE == from && st->MPI_TAG == tag && count == 1, call,
              "receive status", st->MPI_SOURCE, st->MPI_TAG);
  int v[3] = {st->MPI_SOURCE, st->MPI_TAG, count};
  save(v, sizeof v);
}

/* Completes r[0..NREQ) with CALL; Active[i]: whether r[i] is active. */
static void complete(int call, MPI_Request *r, const int *active,
                     MPI_Request persistent, int from, int tag) {
  const char *name = names[call];
  MPI_Request before[NREQ];
  memcpy(before, r, sizeof before);
  int seen[NREQ] = {0}, rc, flag = 0, index, outcount, indices[NREQ];
  MPI_Status st[NREQ], one;
  long calls = 0;
  switch (call) {
  case TESTALL:
  case WAITALL:
    for (;;) {
      ++calls;
      memset(st, 0x5a, sizeof st);
      if (call == TESTALL)
        rc = MPI_Testall(NREQ, r, &flag, st);
      else
        rc = MPI_Waitall(NREQ, r, st), flag = 1;
      expect_call(rc == MPI_SUCCESS, name, "error", rc, (int)calls);
      if (rc != MPI_SUCCESS)
        return;
      if (flag)
        break;
      for (int i = 0; i < NREQ; ++i)
        expect_call(r[i] == before[i], name, "flag 0 changed a request", i, 0);
    }
    for (int i = 0; i < NREQ; ++i)
      check_after(name, i, r, persistent);
    check_recv_status(name, &st[0], from, tag);
    expect_call(is_empty(&st[4]), name, "null request's status not empty", 4,
                0);
    if (!active[2])
      expect_call(is_empty(&st[2]), name, "inactive request's status not empty",
                  2, 0);
    return;
  case TESTANY:
  case WAITANY:
    for (;;) {
      ++calls;
      if (call == TESTANY)
        rc = MPI_Testany(NREQ, r, &index, &flag, &one);
      else
        rc = MPI_Waitany(NREQ, r, &index, &one), flag = 1;
      expect_call(rc == MPI_SUCCESS, name, "error", rc, (int)calls);
      if (rc != MPI_SUCCESS)
        return;
      if (!flag)
        continue;
      if (index == MPI_UNDEFINED) {
        expect_call(is_empty(&one), name, "status of no request not empty", 0,
                    0);
        break;
      }
      expect_call(index >= 0 && index < NREQ && active[index] && !seen[index],
                  name, "index", index,
                  index >= 0 && index < NREQ ? seen[index] : -1);
      if (index < 0 || index >= NREQ)
        return;
      seen[index] = 1;
      check_after(name, index, r, persistent);
      if (index == 0)
        check_recv_status(name, &one, from, tag);
    }
    break;
  case TESTSOME:
  case WAITSOME:
    for (;;) {
      ++calls;
      if (call == TESTSOME)
        rc = MPI_Testsome(NREQ, r, &outcount, indices, st);
      else
        rc = MPI_Waitsome(NREQ, r, &outcount, indices, st);
      expect_call(rc == MPI_SUCCESS, name, "error", rc, (int)calls);
      if (rc != MPI_SUCCESS)
        return;
      if (outcount == MPI_UNDEFINED)
        break;
      expect_call(outcount >= 0 && outcount <= NREQ, name, "outcount", outcount,
                  0);
      expect_call(call == TESTSOME || outcount > 0, name, "outcount 0", 0, 0);
      for (int k = 0; k < outcount && k < NREQ; ++k) {
        int i = indices[k];
        expect_call(i >= 0 && i < NREQ && active[i] && !seen[i], name, "index",
                    i, i >= 0 && i < NREQ ? seen[i] : -1);
        if (i < 0 || i >= NREQ)
          return;
        seen[i] = 1;
        check_after(name, i, r, persistent);
        if (i == 0)
          check_recv_status(name, &st[k], from, tag);
      }
    }
    break;
  }
  for (int i = 0; i < NREQ; ++i)
    expect_call(seen[i] == active[i], name, "request never completed", i,
                seen[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  alarm(60);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  open_results(argc > 1 ? argv[1] : ".");
  int to = (me + 1) % size, from = (me + size - 1) % size;

  /* MPICH's persistent alltoallw: one int to and from every rank. */
  int wsend[64], wrecv[64], counts[64], displs[64];
  MPI_Datatype types[64];
  for (int k = 0; k < size; ++k)
    counts[k] = 1, displs[k] = k * (int)sizeof(int), types[k] = MPI_INT;
  MPI_Request persistent = MPI_REQUEST_NULL;
  int mpich_persistent = getenv("COMPLETION_MPICH_PERSISTENT") != NULL;
  if (mpich_persistent)
    MPI_Alltoallw_init(wsend, counts, displs, types, wrecv, counts, displs,
                       types, MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);

  /* The MPI_Iallreduce's shape once first, so that the rounds' calls find
   * its plan cached (a first call would wait for rank 0 inside it). */
  int in[N], sum[N];
  for (int k = 0; k < N; ++k)
    in[k] = k;
  MPI_Request warm;
  MPI_Iallreduce(in, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &warm);
  MPI_Wait(&warm, MPI_STATUS_IGNORE);

  for (int call = 0; call < NCALLS; ++call)
    for (int rep = 0; rep < 2; ++rep) {
      int round = call * 2 + rep, tag = 100 + round, token = me * 1000 + round;
      int got = -1;
      for (int k = 0; k < size; ++k)
        wsend[k] = me * 10000 + k * 100 + round, wrecv[k] = -1;
      for (int k = 0; k < N; ++k)
        in[k] = me * 37 + k * round + 1, sum[k] = -1;
      MPI_Request r[NREQ];
      int active[NREQ] = {1, 1, 1, 1, 0};
      r[2] = MPI_REQUEST_NULL;
      if (!mpich_persistent) {
        /* The same exchange, blocking (MPICH 4.0.2 alone fails: header). */
        MPI_Alltoallw(wsend, counts, displs, types, wrecv, counts, displs,
                      types, MPI_COMM_WORLD);
        active[2] = 0;
      } else {
        r[2] = persistent;
        MPI_Start(&r[2]);
      }
      if (me == 0 && mpich_persistent) {
        /* MPICH's request completes, and then nothing of the library's
         * starts on rank 0 for 100 ms. */
        MPI_Wait(&r[2], MPI_STATUS_IGNORE);
        active[2] = 0;
      }
      if (me == 0)
        usleep(100000);
      MPI_Iallreduce(in, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
      MPI_Irecv(&got, 1, MPI_INT, from, tag, MPI_COMM_WORLD, &r[0]);
      MPI_Isend(&token, 1, MPI_INT, to, tag, MPI_COMM_WORLD, &r[3]);
      r[4] = MPI_REQUEST_NULL;
      complete(call, r, active, persistent, from, tag);
      expect_call(got == from * 1000 + round, names[call], "token", got, round);
      for (int k = 0; k < N; ++k) {
        int want = 0;
        for (int j = 0; j < size; ++j)
          want += j * 37 + k * round + 1;
        expect_call(sum[k] == want, names[call], "sum", sum[k], want);
      }
      for (int k = 0; k < size; ++k)
        expect_call(wrecv[k] == k * 10000 + me * 100 + round, names[call],
                    "alltoallw", wrecv[k], k);
      save(&got, sizeof got);
      save(sum, sizeof sum);
      save(wrecv, sizeof(int) * size);
    }

  if (mpich_persistent) {
    /* Nothing of the library's outstanding: MPICH's MPI_Waitall completes
     * the persistent request, which is inactive for MPI_Testany after it
     * (flag 1, MPI_UNDEFINED) and for MPI_Testsome (MPI_UNDEFINED). */
    MPI_Request r[2] = {persistent, MPI_REQUEST_NULL};
    MPI_Start(&r[0]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    int index = -2, flag = 0, outcount = -2, indices[2];
    MPI_Status st, sts[2];
    expect_call(MPI_Testany(2, r, &index, &flag, &st) == MPI_SUCCESS && flag &&
                    index == MPI_UNDEFINED,
                "MPI_Testany", "after MPI_Waitall", index, flag);
    expect_call(MPI_Testsome(2, r, &outcount, indices, sts) == MPI_SUCCESS &&
                    outcount == MPI_UNDEFINED,
                "MPI_Testsome", "after MPI_Waitall", outcount, 0);
    MPI_Request_free(&persistent);
  }
  fclose(out);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "pmpi_completion: %d failures\n" : "pmpi_completion: passed\n",
           all);
  MPI_Finalize();
  return all != 0;
}
