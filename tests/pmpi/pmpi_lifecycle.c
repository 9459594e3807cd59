/*===- tests/pmpi/pmpi_lifecycle.c - Seeded random request lifecycles ----===*/
/*
 * mpiexec -n 3..16 pmpi_lifecycle [-f] [-m] [-n OPS] SEED|FIRST-LAST...:
 * an unmodified MPI application (it links MPICH only) that runs, for each
 * seed, a random sequence of OPS operations (default 80) on four
 * communicators (MPI_COMM_WORLD, a duplicate, a split in reversed rank
 * order, a split by rank parity), a periodic ring (MPI_Cart_create) and
 * short-lived ones (a duplicate or split made, one to three operations on
 * it, freed with their requests outstanding; its persistent requests are
 * started after the free):
 *
 *  - blocking, non-blocking (MPI_I*) and persistent (MPI_*_init) allreduce,
 *    bcast, allgather(v), alltoall(v), reduce_scatter_block, reduce,
 *    barrier, scan, exscan, gather, scatter (which the library serves), and
 *    alltoallw and neighbor_allgather (which it never serves), of random
 *    counts (0 to 12,000 ints), roots and MPI_IN_PLACE;
 *  - point-to-point requests: MPI_Isend/MPI_Irecv pairs on a random shift
 *    of the ring and tag, persistent MPI_Send_init/MPI_Recv_init pairs
 *    (the receive longer than the message; a pair is freed active at
 *    times), persistent requests to and from MPI_PROC_NULL, blocking
 *    MPI_Sendrecv, MPI_Ssend, MPI_Send, MPI_Probe and MPI_Recv, and
 *    receives that nobody sends to, cancelled;
 *  - persistent requests started (MPI_Start or MPI_Startall, one to three at
 *    once, mixing the library's, MPICH's and point-to-point ones) many
 *    times and freed in random order, inactive ones too;
 *  - several requests outstanding at once, completed by random choices (a
 *    second random stream, one per rank) of MPI_Wait, Test, Waitall,
 *    Testall, Waitany, Testany, Waitsome, Testsome and
 *    MPI_Request_get_status on random subsets with MPI_REQUEST_NULL and
 *    inactive persistent requests mixed in, to the end or one call only.
 *
 * Every rank draws the collective sequence from the same stream (MPI's
 * ordering rules hold), so ranks differ only in when and how they complete.
 * Checked on every completion: the values (computed: each element names
 * its start, its sender and its receiver), MPI's completion rules (each
 * active request reported once, never a null or inactive one; Testall's
 * flag 0 changes no request; a completed request's handle
 * MPI_REQUEST_NULL, a persistent one's kept; MPI_UNDEFINED once no
 * request is active; MPI_Request_get_status completes nothing), the
 * statuses MPI defines (a receive's source, tag and count; an
 * MPI_PROC_NULL receive's MPI_PROC_NULL, MPI_ANY_TAG, count 0; a null or
 * inactive request's empty status; a cancelled receive's cancelled), and
 * that a new persistent request's handle is no live request's and a new
 * request's no live persistent one's. Every call must return MPI_SUCCESS
 * (MPI_ERRORS_RETURN). The ranks compare a digest of their operations at
 * each seed's end. LIFECYCLE_TRACE set: every rank prints each operation.
 * alarm() turns a hang into a failure naming the seed, the operation's
 * index and the operation (30 s without progress). Each seed ends with
 * every request completed and every persistent request freed but the
 * MPI_PROC_NULL ones, which live until the job's end; rank 0 prints
 * "pmpi_lifecycle: seed S: passed (N operations)" and, last,
 * "pmpi_lifecycle: passed".
 *
 * MPICH 4.0.2's own bugs the sequence keeps away from (docs/pmpi.md,
 * "The request-lifecycle test"):
 *  - a persistent point-to-point request with peer MPI_PROC_NULL freed
 *    before a persistent collective is made in its request object makes
 *    MPI_Start skip that collective (a hang; fixed in MPICH 4.2.0), so such
 *    requests are freed only at the job's end;
 *  - MPI_Wait (and the other completion calls) on a persistent collective
 *    request never started waits for ever: such requests enter no
 *    completion call (with -m, the library's, of data, do);
 *  - its MPI_Testall, Testany, Testsome, Waitany and Waitsome fail on its
 *    persistent collective requests: without -f such requests are completed
 *    only by MPI_Wait, MPI_Test, MPI_Waitall and MPI_Request_get_status
 *    (with -f, for the library's runs, by every call: the library's
 *    completion calls are right on them);
 *  - its MPI_Gather_init reads the send buffer at the call, not at
 *    MPI_Start, its MPI_Allgather_init returns stale blocks on 4 ranks, its
 *    MPI_Scatter_init fails in MPI_Wait ("Invalid communicator"): those
 *    persistent forms are made only with -m (runs where the library serves
 *    every call of data: CHOREO_MARGIN=off);
 *  - its MPI_Testany leaves the status of "no active request" as it was
 *    when an inactive persistent request is in the array; a started
 *    persistent MPI_PROC_NULL request (which its MPI_Start skips) completes
 *    with an empty status, and its Waitany, Testany, Waitsome and Testsome
 *    take it for inactive: such requests take the other calls;
 *  - (not a bug) a request that completed at once, a short send or a
 *    collective of no data, gets a handle shared by all such requests.
 * Neither does it wait for one of the library's runs inside a blocking
 * call that does not progress them (docs/pmpi.md, "Limits"): every request
 * is completed before a communicator is made.
 */
#include <mpi.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_lifecycle"
#include "pmpi_test_util.h"

#define MAXP 16
#define MAXE 96
#define MAXPS 12
#define NCOMM 6
#define CART 4
#define SHORT 5 /* a communicator made and freed within one operation */
#define SENTINEL (-777777)

/*--- random streams -------------------------------------------------------*/

static uint64_t gstate, lstate; /* global (same on every rank), local */
static uint64_t next64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static int grand(int n) { return (int)(next64(&gstate) % (uint64_t)n); }
static int lrand(int n) { return (int)(next64(&lstate) % (uint64_t)n); }

/*--- where we are, for messages and the alarm -----------------------------*/

static long seed;
static int opi, np, full, mpich_wrong;
static char doing[512];
static uint64_t trail; /* a digest of the operations, compared at the end */

static void on_alarm(int sig) {
  (void)sig;
  char msg[512];
  int n = snprintf(msg, sizeof msg,
                   "pmpi_lifecycle: rank %d: seed %ld op %d (%s): no progress "
                   "in 30 s (a hang)\n",
                   me, seed, opi, doing);
  if (write(2, msg, (size_t)n) < 0)
    _exit(4);
  _exit(3);
}

static void fail(const char *what, long a, long b) {
  if (failures < 20)
    fprintf(stderr,
            "pmpi_lifecycle: rank %d: seed %ld op %d (%s): %s (%ld, %ld)\n",
            me, seed, opi, doing, what, a, b);
  ++failures;
}
#define CHECK(ok, what, a, b)                                                  \
  do {                                                                         \
    if (!(ok))                                                                 \
      fail(what, (long)(a), (long)(b));                                        \
  } while (0)
static void rc_ok(int rc, const char *call) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    char w[MPI_MAX_ERROR_STRING + 64];
    snprintf(w, sizeof w, "%.60s returned %.400s", call, msg);
    fail(w, rc, 0);
  }
}

/*--- communicators --------------------------------------------------------*/

static MPI_Comm comms[NCOMM];
static const char *comm_names[NCOMM] = {
    "MPI_COMM_WORLD", "a duplicate", "reversed", "parity", "ring",
    "a short-lived communicator"};
/* The communicator every operation takes (SHORT within a churn), or -1. */
static int force_ci = -1;
static int pick_ci(void) { return force_ci >= 0 ? force_ci : grand(CART); }

static int cval(int t, int from, int to, int k) {
  return (int)(((unsigned)t * 1009u + (unsigned)from * 131u +
                (unsigned)to * 17u + (unsigned)k * 7u) &
               0xffffu);
}

/*--- collectives ----------------------------------------------------------*/

enum {
  C_ALLREDUCE, C_BCAST, C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV,
  C_RSB, C_REDUCE, C_BARRIER, C_SCAN, C_EXSCAN, C_GATHER, C_SCATTER,
  C_ALLTOALLW, C_NEIGHBOR, NCOLL
};
static const char *coll_names[NCOLL] = {
    "allreduce", "bcast",   "allgather", "allgatherv", "alltoall",
    "alltoallv", "reduce_scatter_block", "reduce", "barrier", "scan",
    "exscan",    "gather",  "scatter",   "alltoallw",  "neighbor_allgather"};

typedef struct {
  int coll, n, root, ci, inplace, made, size, rank;
  MPI_Comm comm;
  int *sbuf, *rbuf;
  size_t sints, rints;
  int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
  int sdb[MAXP], rdb[MAXP];
  MPI_Datatype ty[MAXP];
  int left, right; /* the ring's neighbours */
  /* The receive side (bcast: the buffer) every second int: one element of
   * rtype a block of n ints (freed right after the call is made). */
  int strided;
  MPI_Datatype rtype;
  /* The reductions: MPI_SUM, or an operator of the program's (the same
   * sum; freed right after the call is made) when userop. */
  int userop;
  MPI_Op op;
} Coll;

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  for (int k = 0; k < *len; ++k)
    ((int *)inout)[k] += ((int *)in)[k];
}

/* Rbuf's element Idx of the packed result. */
#define RAT(c, idx) ((c)->rbuf[(c)->strided ? 2 * (size_t)(idx) : (size_t)(idx)])

/* Counts of the v forms: fixed by the call's making (op index Made). */
static int vcount(const Coll *c, int from, int to) {
  int m = (from + 2 * to + c->made) % 4;
  return m == 3 ? 0 : m * c->n + (c->n ? 1 : 0);
}

static void coll_setup(Coll *c, int coll, int n, int root, int ci,
                       int inplace, int made) {
  memset(c, 0, sizeof *c);
  c->strided = inplace >> 1 & 1, c->userop = inplace >> 2 & 1, inplace &= 1;
  c->op = MPI_SUM;
  if (c->userop)
    MPI_Op_create(user_sum, 1, &c->op);
  c->coll = coll, c->n = n, c->ci = ci, c->made = made;
  c->comm = comms[ci];
  MPI_Comm_size(c->comm, &c->size);
  MPI_Comm_rank(c->comm, &c->rank);
  c->root = root % c->size;
  c->inplace = inplace;
  int p = c->size, r = c->rank;
  switch (coll) {
  case C_ALLREDUCE:
  case C_SCAN:
  case C_EXSCAN:
  case C_REDUCE:
    c->sints = n, c->rints = n;
    break;
  case C_BCAST:
    c->rints = n;
    break;
  case C_ALLGATHER:
    c->sints = n, c->rints = (size_t)n * p;
    break;
  case C_ALLGATHERV: {
    size_t at = 0;
    for (int i = p - 1; i >= 0; --i) /* reversed displacements */
      c->rc[i] = vcount(c, i, 0), c->rd[i] = (int)at, at += c->rc[i];
    c->rints = at, c->sints = c->rc[r];
    break;
  }
  case C_ALLTOALL:
  case C_ALLTOALLW:
    c->sints = c->rints = (size_t)n * p;
    for (int j = 0; j < p; ++j)
      c->sc[j] = c->rc[j] = n, c->sdb[j] = c->rdb[j] = j * n * 4,
      c->ty[j] = MPI_INT;
    break;
  case C_ALLTOALLV: {
    size_t s = 0, t = 0;
    for (int j = p - 1; j >= 0; --j) {
      c->sc[j] = vcount(c, r, j), c->sd[j] = (int)s, s += c->sc[j];
      c->rc[j] = vcount(c, j, r), c->rd[j] = (int)t, t += c->rc[j];
    }
    c->sints = s, c->rints = t;
    break;
  }
  case C_RSB:
    c->sints = (size_t)n * p, c->rints = n;
    break;
  case C_BARRIER:
    break;
  case C_GATHER:
    c->sints = n, c->rints = (size_t)n * p;
    break;
  case C_SCATTER:
    c->sints = (size_t)n * p, c->rints = n;
    break;
  case C_NEIGHBOR:
    MPI_Cart_shift(c->comm, 0, 1, &c->left, &c->right);
    c->sints = n, c->rints = 2 * (size_t)n;
    break;
  }
  if (c->strided) {
    MPI_Datatype v;
    MPI_Type_vector(n, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * n * sizeof(int)), &c->rtype);
    MPI_Type_commit(&c->rtype);
    MPI_Type_free(&v);
    c->rints *= 2;
  }
  c->sbuf = malloc(sizeof(int) * (c->sints + 1));
  c->rbuf = malloc(sizeof(int) * (c->rints + 1));
}

/* The receive type's handle is freed once the call is made (MPI keeps the
 * type while a request uses it). */
static void coll_made(Coll *c) {
  if (c->strided)
    rc_ok(MPI_Type_free(&c->rtype), "MPI_Type_free");
  if (c->userop)
    rc_ok(MPI_Op_free(&c->op), "MPI_Op_free");
}

static void coll_release(Coll *c) {
  free(c->sbuf), free(c->rbuf);
  c->sbuf = c->rbuf = NULL;
}

/* The buffers before a call (or a start) stamped T. */
static void coll_fill(Coll *c, int t) {
  int p = c->size, r = c->rank, n = c->n;
  for (size_t k = 0; k <= c->rints; ++k)
    c->rbuf[k] = SENTINEL;
  for (size_t k = 0; k <= c->sints; ++k)
    c->sbuf[k] = SENTINEL;
  switch (c->coll) {
  case C_ALLREDUCE:
  case C_SCAN:
  case C_EXSCAN:
  case C_REDUCE:
    for (int k = 0; k < n; ++k)
      (c->inplace ? c->rbuf : c->sbuf)[k] = cval(t, r, 0, k);
    break;
  case C_BCAST:
    if (r == c->root)
      for (int k = 0; k < n; ++k)
        RAT(c, k) = cval(t, r, 0, k);
    break;
  case C_ALLGATHER:
  case C_GATHER:
  case C_NEIGHBOR:
    for (int k = 0; k < n; ++k)
      if (c->inplace)
        RAT(c, (size_t)r * n + k) = cval(t, r, 0, k);
      else
        c->sbuf[k] = cval(t, r, 0, k);
    break;
  case C_ALLGATHERV:
    for (int k = 0; k < c->rc[r]; ++k)
      c->sbuf[k] = cval(t, r, 0, k);
    break;
  case C_ALLTOALL:
  case C_ALLTOALLW:
  case C_RSB:
  case C_SCATTER:
    for (int j = 0; j < p; ++j)
      for (int k = 0; k < n; ++k)
        c->sbuf[(size_t)j * n + k] = cval(t, r, j, k);
    break;
  case C_ALLTOALLV:
    for (int j = 0; j < p; ++j)
      for (int k = 0; k < c->sc[j]; ++k)
        c->sbuf[c->sd[j] + k] = cval(t, r, j, k);
    break;
  }
}

static int sum_of(int t, int to, int k, int lo, int hi) {
  int s = 0;
  for (int i = lo; i < hi; ++i)
    s += cval(t, i, to, k);
  return s;
}

/* Whether every value is right after the call stamped T. */
static void coll_check(Coll *c, int t) {
  int p = c->size, r = c->rank, n = c->n, bad = 0, at = -1, got = 0, want = 0;
#define EXPECT_AT(idx, w)                                                      \
  do {                                                                         \
    int w_ = (w);                                                              \
    if (RAT(c, idx) != w_ && !bad++)                                           \
      at = (int)(idx), got = RAT(c, idx), want = w_;                           \
  } while (0)
  switch (c->coll) {
  case C_ALLREDUCE:
    for (int k = 0; k < n; ++k)
      EXPECT_AT(k, sum_of(t, 0, k, 0, p));
    break;
  case C_REDUCE:
    if (r == c->root)
      for (int k = 0; k < n; ++k)
        EXPECT_AT(k, sum_of(t, 0, k, 0, p));
    break;
  case C_SCAN:
    for (int k = 0; k < n; ++k)
      EXPECT_AT(k, sum_of(t, 0, k, 0, r + 1));
    break;
  case C_EXSCAN:
    if (r > 0)
      for (int k = 0; k < n; ++k)
        EXPECT_AT(k, sum_of(t, 0, k, 0, r));
    break;
  case C_BCAST:
    for (int k = 0; k < n; ++k)
      EXPECT_AT(k, cval(t, c->root, 0, k));
    break;
  case C_ALLGATHER:
    for (int i = 0; i < p; ++i)
      for (int k = 0; k < n; ++k)
        EXPECT_AT((size_t)i * n + k, cval(t, i, 0, k));
    break;
  case C_GATHER:
    if (r == c->root)
      for (int i = 0; i < p; ++i)
        for (int k = 0; k < n; ++k)
          EXPECT_AT((size_t)i * n + k, cval(t, i, 0, k));
    break;
  case C_ALLGATHERV:
    for (int i = 0; i < p; ++i)
      for (int k = 0; k < c->rc[i]; ++k)
        EXPECT_AT(c->rd[i] + k, cval(t, i, 0, k));
    break;
  case C_ALLTOALL:
  case C_ALLTOALLW:
    for (int j = 0; j < p; ++j)
      for (int k = 0; k < n; ++k)
        EXPECT_AT((size_t)j * n + k, cval(t, j, r, k));
    break;
  case C_ALLTOALLV:
    for (int j = 0; j < p; ++j)
      for (int k = 0; k < c->rc[j]; ++k)
        EXPECT_AT(c->rd[j] + k, cval(t, j, r, k));
    break;
  case C_RSB:
    for (int k = 0; k < n; ++k)
      EXPECT_AT(k, sum_of(t, r, k, 0, p));
    break;
  case C_SCATTER:
    for (int k = 0; k < n; ++k)
      EXPECT_AT(k, cval(t, c->root, r, k));
    break;
  case C_NEIGHBOR:
    for (int k = 0; k < n; ++k) {
      EXPECT_AT(k, cval(t, c->left, 0, k));
      EXPECT_AT((size_t)n + k, cval(t, c->right, 0, k));
    }
    break;
  }
#undef EXPECT_AT
  /* Between a strided type's ints and past the end: never written. */
  for (size_t k = 1; c->strided && k < c->rints; k += 2)
    if (c->rbuf[k] != SENTINEL && !bad++)
      at = (int)k, got = c->rbuf[k], want = SENTINEL;
  if (c->rbuf[c->rints] != SENTINEL && !bad++)
    at = (int)c->rints, got = c->rbuf[c->rints], want = SENTINEL;
  if (bad) {
    char w[160];
    snprintf(w, sizeof w, "%d wrong values; the first at %d is %d, not %d",
             bad, at, got, want);
    fail(w, t, n);
  }
}

/* Mode: 0 blocking, 1 started (MPI_I*), 2 persistent (MPI_*_init). */
static int coll_call(Coll *c, int mode, MPI_Request *q) {
  void *s = c->inplace ? MPI_IN_PLACE : c->sbuf;
  void *rb = c->rbuf;
  int n = c->n, root = c->root;
  /* The receive side: n ints, or one strided element of n. */
  int rn = c->strided ? 1 : n;
  MPI_Datatype rt = c->strided ? c->rtype : MPI_INT;
  MPI_Comm m = c->comm;
  MPI_Info i = MPI_INFO_NULL;
  switch (c->coll) {
#define FORMS(B, I, P)                                                         \
  return mode == 0 ? (B) : mode == 1 ? (I) : (P)
  case C_ALLREDUCE:
    FORMS(MPI_Allreduce(s, rb, n, MPI_INT, c->op, m),
          MPI_Iallreduce(s, rb, n, MPI_INT, c->op, m, q),
          MPI_Allreduce_init(s, rb, n, MPI_INT, c->op, m, i, q));
  case C_REDUCE:
    FORMS(MPI_Reduce(s, rb, n, MPI_INT, c->op, root, m),
          MPI_Ireduce(s, rb, n, MPI_INT, c->op, root, m, q),
          MPI_Reduce_init(s, rb, n, MPI_INT, c->op, root, m, i, q));
  case C_SCAN:
    FORMS(MPI_Scan(s, rb, n, MPI_INT, c->op, m),
          MPI_Iscan(s, rb, n, MPI_INT, c->op, m, q),
          MPI_Scan_init(s, rb, n, MPI_INT, c->op, m, i, q));
  case C_EXSCAN:
    FORMS(MPI_Exscan(s, rb, n, MPI_INT, c->op, m),
          MPI_Iexscan(s, rb, n, MPI_INT, c->op, m, q),
          MPI_Exscan_init(s, rb, n, MPI_INT, c->op, m, i, q));
  case C_BCAST:
    FORMS(MPI_Bcast(rb, rn, rt, root, m), MPI_Ibcast(rb, rn, rt, root, m, q),
          MPI_Bcast_init(rb, rn, rt, root, m, i, q));
  case C_ALLGATHER:
    FORMS(MPI_Allgather(s, n, MPI_INT, rb, rn, rt, m),
          MPI_Iallgather(s, n, MPI_INT, rb, rn, rt, m, q),
          MPI_Allgather_init(s, n, MPI_INT, rb, rn, rt, m, i, q));
  case C_GATHER:
    FORMS(MPI_Gather(s, n, MPI_INT, rb, rn, rt, root, m),
          MPI_Igather(s, n, MPI_INT, rb, rn, rt, root, m, q),
          MPI_Gather_init(s, n, MPI_INT, rb, rn, rt, root, m, i, q));
  case C_SCATTER:
    FORMS(MPI_Scatter(c->sbuf, n, MPI_INT, rb, rn, rt, root, m),
          MPI_Iscatter(c->sbuf, n, MPI_INT, rb, rn, rt, root, m, q),
          MPI_Scatter_init(c->sbuf, n, MPI_INT, rb, rn, rt, root, m, i, q));
  case C_ALLGATHERV: {
    int mine = c->rc[c->rank];
    FORMS(MPI_Allgatherv(c->sbuf, mine, MPI_INT, rb, c->rc, c->rd, MPI_INT, m),
          MPI_Iallgatherv(c->sbuf, mine, MPI_INT, rb, c->rc, c->rd, MPI_INT, m,
                          q),
          MPI_Allgatherv_init(c->sbuf, mine, MPI_INT, rb, c->rc, c->rd,
                              MPI_INT, m, i, q));
  }
  case C_ALLTOALL:
    FORMS(MPI_Alltoall(c->sbuf, n, MPI_INT, rb, rn, rt, m),
          MPI_Ialltoall(c->sbuf, n, MPI_INT, rb, rn, rt, m, q),
          MPI_Alltoall_init(c->sbuf, n, MPI_INT, rb, rn, rt, m, i, q));
  case C_ALLTOALLV:
    FORMS(MPI_Alltoallv(c->sbuf, c->sc, c->sd, MPI_INT, rb, c->rc, c->rd,
                        MPI_INT, m),
          MPI_Ialltoallv(c->sbuf, c->sc, c->sd, MPI_INT, rb, c->rc, c->rd,
                         MPI_INT, m, q),
          MPI_Alltoallv_init(c->sbuf, c->sc, c->sd, MPI_INT, rb, c->rc, c->rd,
                             MPI_INT, m, i, q));
  case C_ALLTOALLW:
    FORMS(MPI_Alltoallw(c->sbuf, c->sc, c->sdb, c->ty, rb, c->rc, c->rdb,
                        c->ty, m),
          MPI_Ialltoallw(c->sbuf, c->sc, c->sdb, c->ty, rb, c->rc, c->rdb,
                         c->ty, m, q),
          MPI_Alltoallw_init(c->sbuf, c->sc, c->sdb, c->ty, rb, c->rc, c->rdb,
                             c->ty, m, i, q));
  case C_RSB:
    FORMS(MPI_Reduce_scatter_block(s, rb, n, MPI_INT, c->op, m),
          MPI_Ireduce_scatter_block(s, rb, n, MPI_INT, c->op, m, q),
          MPI_Reduce_scatter_block_init(s, rb, n, MPI_INT, c->op, m, i, q));
  case C_BARRIER:
    FORMS(MPI_Barrier(m), MPI_Ibarrier(m, q), MPI_Barrier_init(m, i, q));
  case C_NEIGHBOR:
    FORMS(MPI_Neighbor_allgather(c->sbuf, n, MPI_INT, rb, n, MPI_INT, m),
          MPI_Ineighbor_allgather(c->sbuf, n, MPI_INT, rb, n, MPI_INT, m, q),
          MPI_Neighbor_allgather_init(c->sbuf, n, MPI_INT, rb, n, MPI_INT, m,
                                      i, q));
#undef FORMS
  }
  return MPI_ERR_OTHER;
}

/*--- requests -------------------------------------------------------------*/

/* N: MPI_PROC_NULL; E_CANCEL: a receive that nobody sends to, cancelled. */
enum { E_SEND, E_RECV, E_COLL, E_NSEND, E_NRECV, E_CANCEL };

typedef struct {
  int used, kind, persistent, active, started, ps;
  MPI_Request h;
  int t;                       /* the stamp of the current start */
  int peer, tag, n, extra, ci, myrank; /* point-to-point */
  int *buf;
  Coll c;
  char what[256];
} Ent;

static Ent ents[MAXE];
/* Persistent slots (the same on every rank): up to two entries each. */
typedef struct {
  int used, kind; /* E_COLL, E_SEND (a send-receive pair), E_NSEND */
  Ent *e[2];
} PSlot;
static PSlot ps[MAXPS];
/* The MPI_PROC_NULL requests of earlier seeds, freed at the end. */
static MPI_Request kept[4096];
static int nkept;

/* Whether E's new handle is a live request's (MPICH gives the requests
 * that completed at once, a short send, a collective of no data, one
 * shared handle: not compared among requests that are not persistent). */
static int is_plain_p2p(const Ent *e) { return !e->persistent; }
static int live_handle(const Ent *e) {
  MPI_Request h = e->h;
  for (int i = 0; i < MAXE; ++i)
    if (ents[i].used && &ents[i] != e && ents[i].h == h &&
        !(is_plain_p2p(e) && is_plain_p2p(&ents[i]))) {
      if (failures < 20)
        fprintf(stderr,
                "pmpi_lifecycle: rank %d: the live request (kind %d, "
                "persistent %d, active %d): %s\n",
                me, ents[i].kind, ents[i].persistent, ents[i].active,
                ents[i].what);
      return 1;
    }
  for (int i = 0; i < nkept; ++i)
    if (kept[i] == h)
      return 1;
  return 0;
}

/* A new entry for the request a call is about to make. */
static Ent *ent_new(int kind, int persistent) {
  for (int i = 0; i < MAXE; ++i)
    if (!ents[i].used) {
      Ent *e = &ents[i];
      memset(e, 0, sizeof *e);
      e->used = 1, e->kind = kind, e->persistent = persistent, e->ps = -1;
      e->h = MPI_REQUEST_NULL;
      return e;
    }
  fail("out of request entries", MAXE, 0);
  MPI_Abort(MPI_COMM_WORLD, 2);
  return NULL;
}

/* The call just made E's request. */
static void ent_made(Ent *e, int rc, const char *call) {
  rc_ok(rc, call);
  CHECK(e->h != MPI_REQUEST_NULL, "a new request is MPI_REQUEST_NULL", 0, 0);
  CHECK(!live_handle(e), "a new request's handle is a live request's", 0, 0);
}

static void ent_release(Ent *e) {
  if (e->kind == E_COLL)
    coll_release(&e->c);
  free(e->buf);
  e->buf = NULL;
  e->used = 0;
}

static int is_empty(const MPI_Status *st) {
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
         count == 0;
}

/* E completed with status St (null: ignored) and handle H now. */
static void ent_done(Ent *e, const MPI_Status *st, MPI_Request h) {
  if (e->persistent)
    CHECK(h == e->h, "a completed persistent request's handle changed", 0, 0);
  else
    CHECK(h == MPI_REQUEST_NULL,
          "a completed request's handle is not MPI_REQUEST_NULL", 0, 0);
  int count = -1;
  switch (e->kind) {
  case E_RECV:
    for (int k = 0; k < e->n; ++k)
      if (e->buf[k] != cval(e->t, e->peer, -1, k)) {
        fail("a received value", e->buf[k], cval(e->t, e->peer, -1, k));
        break;
      }
    for (int k = e->n; k < e->n + e->extra; ++k)
      if (e->buf[k] != SENTINEL) {
        fail("a receive wrote past the message", k, e->buf[k]);
        break;
      }
    if (st) {
      MPI_Get_count(st, MPI_INT, &count);
      CHECK(st->MPI_SOURCE == e->peer, "a receive's status MPI_SOURCE",
            st->MPI_SOURCE, e->peer);
      CHECK(st->MPI_TAG == e->tag, "a receive's status MPI_TAG", st->MPI_TAG,
            e->tag);
      CHECK(count == e->n, "a receive's status count", count, e->n);
    }
    break;
  case E_NRECV:
    for (int k = 0; k < e->n; ++k)
      if (e->buf[k] != SENTINEL) {
        fail("a receive from MPI_PROC_NULL wrote", k, e->buf[k]);
        break;
      }
    if (st) {
      MPI_Get_count(st, MPI_INT, &count);
      /* MPICH 4.0.2 gives a persistent one an empty status (header). */
      CHECK((st->MPI_SOURCE == MPI_PROC_NULL ||
             (e->persistent && st->MPI_SOURCE == MPI_ANY_SOURCE)) &&
                st->MPI_TAG == MPI_ANY_TAG && count == 0,
            "an MPI_PROC_NULL receive's status (source, count)",
            st->MPI_SOURCE, count);
    }
    break;
  case E_COLL:
    coll_check(&e->c, e->t);
    break;
  case E_CANCEL:
    if (st) {
      int cancelled = 0;
      MPI_Test_cancelled(st, &cancelled);
      CHECK(cancelled, "a cancelled receive's status not cancelled", 0, 0);
    }
    break;
  }
  if (e->persistent)
    e->active = 0;
  else
    ent_release(e);
}

/*--- completion -----------------------------------------------------------*/

enum { M_WAIT, M_TEST, M_WAITALL, M_TESTALL, M_WAITANY, M_TESTANY,
       M_WAITSOME, M_TESTSOME, M_GETSTATUS, NMETHODS };
static const char *method_names[NMETHODS] = {
    "MPI_Wait",    "MPI_Test",     "MPI_Waitall",  "MPI_Testall",
    "MPI_Waitany", "MPI_Testany",  "MPI_Waitsome", "MPI_Testsome",
    "MPI_Request_get_status"};

/* Whether E may enter a completion call now (see the header). */
static int completable(const Ent *e) {
  return e->used && (e->active || !e->persistent || e->kind != E_COLL ||
                     e->started ||
                     /* -m: the library's, never started (a call of no
                      * data is MPICH's) */
                     (mpich_wrong && e->c.coll != C_ALLTOALLW &&
                      e->c.coll != C_NEIGHBOR &&
                      (e->c.n > 0 || e->c.coll == C_BARRIER)));
}

/* LIFECYCLE_TRACE set: every rank says what it does (to stderr). */
static int tracing;
static void trace(void) {
  if (tracing)
    fprintf(stderr, "pmpi_lifecycle: rank %d: seed %ld op %d: %s\n", me, seed,
            opi, doing);
}

static void set_doing_completion(int method, int m, int all) {
  size_t len = strlen(doing);
  char *p = strchr(doing, '|');
  if (p)
    len = (size_t)(p - doing);
  snprintf(doing + len, sizeof doing - len, "| then %s of %d requests%s",
           method_names[method], m, all ? "" : ", once");
  trace();
}

/* Completes (All: every active one; else as far as one call goes) the
 * entries Es[0..M) (null: MPI_REQUEST_NULL) by Method, checking MPI's
 * rules. */
static void complete_with(Ent **es, int m, int method, int all) {
  MPI_Request r[16], before[16];
  MPI_Status st[16], one;
  int seen[16] = {0}, active[16], left = 0, rc, flag, index, outcount,
      idx[16];
  int inactive_in = 0;
  set_doing_completion(method, m, all);
  for (int i = 0; i < m; ++i) {
    inactive_in |= es[i] && es[i]->persistent;
    r[i] = before[i] = es[i] ? es[i]->h : MPI_REQUEST_NULL;
    active[i] = es[i] && es[i]->active;
    left += active[i];
  }
  alarm(30);
  switch (method) {
  case M_WAIT:
  case M_TEST:
  case M_GETSTATUS: {
    int order[16];
    for (int i = 0; i < m; ++i)
      order[i] = i;
    for (int i = m - 1; i > 0; --i) {
      int j = lrand(i + 1), x = order[i];
      order[i] = order[j], order[j] = x;
    }
    for (int oi = 0; oi < m; ++oi) {
      int i = order[oi];
      memset(&one, 0x5a, sizeof one);
      if (method == M_WAIT) {
        rc = MPI_Wait(&r[i], &one), flag = 1;
        rc_ok(rc, "MPI_Wait");
      } else if (method == M_TEST) {
        do {
          rc = MPI_Test(&r[i], &flag, &one);
          rc_ok(rc, "MPI_Test");
          if (!flag)
            CHECK(r[i] == before[i], "MPI_Test with flag 0 changed the request",
                  i, 0);
        } while (!flag && all && rc == MPI_SUCCESS);
      } else {
        do {
          rc = MPI_Request_get_status(r[i], &flag, &one);
          rc_ok(rc, "MPI_Request_get_status");
        } while (!flag && all && rc == MPI_SUCCESS);
        CHECK(r[i] == before[i], "MPI_Request_get_status changed the request",
              i, 0);
        if (flag && active[i]) {
          /* Complete now: MPI_Test says so at once. */
          MPI_Status again;
          int f2 = 0;
          rc_ok(MPI_Test(&r[i], &f2, &again),
                "MPI_Test after MPI_Request_get_status");
          CHECK(f2, "MPI_Test after MPI_Request_get_status's flag 1: flag 0",
                i, 0);
          if (!f2)
            flag = 0, r[i] = before[i];
        }
      }
      if (rc != MPI_SUCCESS)
        return;
      if (!flag)
        continue;
      if (active[i]) {
        ent_done(es[i], method == M_GETSTATUS && es[i]->kind == E_COLL
                            ? NULL
                            : &one,
                 r[i]);
      } else {
        CHECK(is_empty(&one), "a null or inactive request's status not empty",
              i, one.MPI_SOURCE);
        CHECK(r[i] == before[i], "a null or inactive request's handle changed",
              i, 0);
      }
    }
    break;
  }
  case M_WAITALL:
  case M_TESTALL:
    for (;;) {
      memset(st, 0x5a, sizeof st);
      if (method == M_WAITALL) {
        rc = MPI_Waitall(m, r, st), flag = 1;
        rc_ok(rc, "MPI_Waitall");
      } else {
        rc = MPI_Testall(m, r, &flag, st);
        rc_ok(rc, "MPI_Testall");
      }
      if (rc != MPI_SUCCESS)
        return;
      if (flag)
        break;
      for (int i = 0; i < m; ++i)
        CHECK(r[i] == before[i], "MPI_Testall with flag 0 changed a request", i,
              0);
      if (!all)
        return;
    }
    for (int i = 0; i < m; ++i)
      if (active[i])
        ent_done(es[i], &st[i], r[i]);
      else {
        CHECK(is_empty(&st[i]),
              "a null or inactive request's status not empty", i,
              st[i].MPI_SOURCE);
        CHECK(r[i] == before[i], "a null or inactive request's handle changed",
              i, 0);
      }
    break;
  case M_WAITANY:
  case M_TESTANY:
    for (;;) {
      memset(&one, 0x5a, sizeof one);
      index = -5;
      if (method == M_WAITANY) {
        rc = MPI_Waitany(m, r, &index, &one), flag = 1;
        rc_ok(rc, "MPI_Waitany");
      } else {
        rc = MPI_Testany(m, r, &index, &flag, &one);
        rc_ok(rc, "MPI_Testany");
      }
      if (rc != MPI_SUCCESS)
        return;
      if (flag && index == MPI_UNDEFINED) {
        CHECK(left == 0, "MPI_UNDEFINED while requests are active", left, 0);
        /* MPICH 4.0.2 leaves it unset when a persistent request is in
         * the array (header). */
        CHECK(is_empty(&one) || inactive_in, "the status of no active "
              "request not empty", one.MPI_SOURCE, one.MPI_TAG);
        break;
      }
      if (flag) {
        CHECK(index >= 0 && index < m, "index out of range", index, m);
        if (index < 0 || index >= m)
          return;
        CHECK(active[index] && !seen[index],
              "an index not of an active request, or again", index,
              seen[index]);
        if (!active[index] || seen[index])
          return;
        seen[index] = 1, --left;
        ent_done(es[index], &one, r[index]);
      } else {
        CHECK(index == MPI_UNDEFINED, "MPI_Testany's flag 0 with an index",
              index, 0);
        for (int i = 0; i < m; ++i)
          CHECK(r[i] == before[i] || seen[i],
                "MPI_Testany with flag 0 changed a request", i, 0);
      }
      if (!all)
        break;
    }
    break;
  case M_WAITSOME:
  case M_TESTSOME:
    for (;;) {
      outcount = -5;
      if (method == M_WAITSOME) {
        rc = MPI_Waitsome(m, r, &outcount, idx, st);
        rc_ok(rc, "MPI_Waitsome");
      } else {
        rc = MPI_Testsome(m, r, &outcount, idx, st);
        rc_ok(rc, "MPI_Testsome");
      }
      if (rc != MPI_SUCCESS)
        return;
      if (outcount == MPI_UNDEFINED) {
        CHECK(left == 0, "MPI_UNDEFINED while requests are active", left, 0);
        break;
      }
      CHECK(outcount >= 0 && outcount <= m, "outcount out of range", outcount,
            m);
      if (outcount < 0 || outcount > m)
        return;
      CHECK(method == M_TESTSOME || outcount > 0, "MPI_Waitsome's outcount 0",
            0, 0);
      for (int k = 0; k < outcount; ++k) {
        int i = idx[k];
        CHECK(i >= 0 && i < m && active[i] && !seen[i],
              "an index not of an active request, or again", i, m);
        if (i < 0 || i >= m || !active[i] || seen[i])
          return;
        seen[i] = 1, --left;
        ent_done(es[i], &st[k], r[i]);
      }
      if (!all)
        break;
    }
    break;
  }
  if (all)
    for (int i = 0; i < m; ++i)
      if (es[i] && active[i] && es[i]->used && es[i]->active &&
          method != M_GETSTATUS && method != M_TEST)
        fail("a request was never completed", i, method);
}

/* A method for Es[0..M): without -f, arrays with a persistent collective
 * request take only the calls MPICH 4.0.2 gets right on them. */
static int pick_method(Ent **es, int m) {
  int pcoll = 0, pnull = 0;
  for (int i = 0; i < m; ++i)
    if (es[i] && es[i]->persistent) {
      pcoll |= es[i]->kind == E_COLL;
      pnull |= es[i]->kind == E_NSEND || es[i]->kind == E_NRECV;
    }
  if (pcoll && !full) {
    static const int safe[] = {M_WAIT, M_TEST, M_WAITALL, M_GETSTATUS};
    return safe[lrand(4)];
  }
  if (pnull) {
    static const int safe[] = {M_WAIT, M_TEST, M_WAITALL, M_TESTALL,
                               M_GETSTATUS};
    return safe[lrand(5)];
  }
  return lrand(NMETHODS);
}

/* Completes a random subset of this rank's requests (All: to the end). */
static void complete_random(int all) {
  Ent *cand[MAXE], *es[16];
  int nc = 0, m = 0;
  for (int i = 0; i < MAXE; ++i)
    if (completable(&ents[i]))
      cand[nc++] = &ents[i];
  int want = 1 + lrand(8);
  while (m < want && nc > 0) {
    if (lrand(6) == 0) {
      es[m++] = NULL; /* MPI_REQUEST_NULL */
      continue;
    }
    int j = lrand(nc);
    es[m++] = cand[j];
    cand[j] = cand[--nc];
  }
  if (m == 0)
    return;
  complete_with(es, m, pick_method(es, m), all);
}

/* Completes the active entries Es[0..M) to the end, with others mixed in. */
static void complete_these(Ent **want, int nw) {
  Ent *es[16];
  int m = 0;
  for (int i = 0; i < nw; ++i)
    if (want[i]->active)
      es[m++] = want[i];
  if (m == 0)
    return;
  for (int i = 0; i < MAXE && m < 12; ++i)
    if (completable(&ents[i]) && lrand(4) == 0) {
      int dup = 0;
      for (int k = 0; k < m; ++k)
        dup |= es[k] == &ents[i];
      if (!dup)
        es[m++] = &ents[i];
    }
  int method;
  do
    method = pick_method(es, m);
  while (method == M_TEST || method == M_GETSTATUS); /* the loops do it */
  complete_with(es, m, method, 1);
}

/* Completes every active request (the seed's end). */
static void complete_everything(void) {
  Ent *es[16];
  for (;;) {
    int m = 0;
    for (int i = 0; i < MAXE && m < 16; ++i)
      if (ents[i].used && ents[i].active)
        es[m++] = &ents[i];
    if (m == 0)
      return;
    complete_with(es, m, pick_method(es, m) == M_WAIT ? M_WAIT : M_WAITALL,
                  1);
    if (failures)
      return;
  }
}

/*--- operations -----------------------------------------------------------*/

static int pick_count(void) {
  static const int counts[] = {0, 1, 2, 3, 7, 33, 100, 1000, 12000};
  int k = grand(20);
  return k < 2 ? 0 : k < 18 ? counts[1 + grand(6)] : counts[7 + grand(2)];
}

/* A collective of the library's (or MPICH's own) on a communicator that
 * can hold it. */
static void pick_coll(int *coll, int *ci, int *n, int *root, int *inplace,
                      int mode) {
  for (;;) {
    *coll = grand(NCOLL);
    *ci = *coll == C_NEIGHBOR ? CART : pick_ci();
    if (*coll == C_NEIGHBOR && force_ci >= 0)
      continue;
    if (mode == 2 && !mpich_wrong &&
        (*coll == C_GATHER || *coll == C_ALLGATHER || *coll == C_SCATTER))
      continue; /* MPICH 4.0.2's own are wrong (header) */
    break;
  }
  *n = pick_count();
  *root = grand(MAXP);
  *inplace = 0;
  if ((*coll == C_ALLREDUCE || *coll == C_ALLGATHER) && grand(4) == 0)
    *inplace = 1;
  /* Bit 1: a strided receive side (coll_setup). */
  if ((*coll == C_BCAST || *coll == C_ALLGATHER || *coll == C_GATHER ||
       *coll == C_SCATTER || *coll == C_ALLTOALL) &&
      *n > 0 && grand(3) == 0)
    *inplace |= 2;
  /* Bit 2: an operator of the program's (coll_setup). */
  if ((*coll == C_ALLREDUCE || *coll == C_REDUCE || *coll == C_SCAN ||
       *coll == C_EXSCAN || *coll == C_RSB) &&
      grand(4) == 0)
    *inplace |= 4;
}

static void describe(const char *form, const Coll *c) {
  snprintf(doing, sizeof doing, "%s%s on %s, %d ints, root %d%s%s%s", form,
           coll_names[c->coll], comm_names[c->ci], c->n, c->root,
           c->inplace ? ", MPI_IN_PLACE" : "",
           c->strided ? ", a strided receive type (freed)" : "",
           c->userop ? ", an operator of its own (freed)" : "");
}

static void op_blocking(void) {
  int coll, ci, n, root, inplace;
  pick_coll(&coll, &ci, &n, &root, &inplace, 0);
  Coll c;
  coll_setup(&c, coll, n, root, ci, inplace, opi);
  describe("MPI_", &c);
  trace();
  coll_fill(&c, opi);
  rc_ok(coll_call(&c, 0, NULL), doing);
  coll_made(&c);
  coll_check(&c, opi);
  coll_release(&c);
}

static void op_started(void) {
  int coll, ci, n, root, inplace;
  pick_coll(&coll, &ci, &n, &root, &inplace, 1);
  Ent *e = ent_new(E_COLL, 0);
  coll_setup(&e->c, coll, n, root, ci, inplace, opi);
  describe("MPI_I", &e->c);
  trace();
  snprintf(e->what, sizeof e->what, "%.200s", doing);
  e->t = opi;
  coll_fill(&e->c, opi);
  ent_made(e, coll_call(&e->c, 1, &e->h), doing);
  coll_made(&e->c);
  e->active = e->started = 1;
}

static int free_pslot(void) {
  for (int i = 0; i < MAXPS; ++i)
    if (!ps[i].used)
      return i;
  return -1;
}

static void op_init(void) {
  int s = free_pslot();
  if (s < 0)
    return;
  int coll, ci, n, root, inplace;
  pick_coll(&coll, &ci, &n, &root, &inplace, 2);
  Ent *e = ent_new(E_COLL, 1);
  coll_setup(&e->c, coll, n, root, ci, inplace, opi);
  describe("persistent MPI_", &e->c);
  trace();
  snprintf(e->what, sizeof e->what, "%.200s", doing);
  coll_fill(&e->c, opi);
  ent_made(e, coll_call(&e->c, 2, &e->h), doing);
  coll_made(&e->c);
  e->ps = s;
  ps[s].used = 1, ps[s].kind = E_COLL, ps[s].e[0] = e, ps[s].e[1] = NULL;
}

static int rank_in(int ci);
static void p2p_setup(Ent *e, int kind, int ci, int peer, int tag, int n,
                      int extra) {
  e->ci = ci, e->peer = peer, e->tag = tag, e->n = n, e->extra = extra;
  e->myrank = rank_in(ci);
  e->buf = malloc(sizeof(int) * (size_t)(n + extra + 1));
  (void)kind;
}

/* This rank in communicator Ci. */
static int rank_in(int ci) {
  int r;
  MPI_Comm_rank(comms[ci], &r);
  return r;
}

static void op_p2p(int persistent) {
  int s = -1;
  if (persistent && (s = free_pslot()) < 0)
    return;
  int ci = pick_ci(), size;
  MPI_Comm_size(comms[ci], &size);
  int shift = grand(size), tag = grand(64), n = pick_count();
  int extra = grand(3), null = persistent && grand(3) == 0;
  int r = rank_in(ci);
  int to = null ? MPI_PROC_NULL : (r + shift) % size;
  int from = null ? MPI_PROC_NULL : (r + size - shift) % size;
  snprintf(doing, sizeof doing, "%s to %d and from %d, tag %d, %d ints on %s",
           persistent ? (null ? "persistent MPI_PROC_NULL send and receive"
                              : "MPI_Send_init and MPI_Recv_init")
                      : "MPI_Isend and MPI_Irecv",
           to, from, tag, n, comm_names[ci]);
  Ent *rv = ent_new(null ? E_NRECV : E_RECV, persistent);
  p2p_setup(rv, rv->kind, ci, from, tag, n, extra);
  Ent *sd = ent_new(null ? E_NSEND : E_SEND, persistent);
  p2p_setup(sd, sd->kind, ci, to, tag, n, 0);
  trace();
  snprintf(rv->what, sizeof rv->what, "%.200s", doing);
  snprintf(sd->what, sizeof sd->what, "%.200s", doing);
  if (!persistent) {
    rv->t = sd->t = opi;
    for (int k = 0; k < n + extra; ++k)
      rv->buf[k] = SENTINEL;
    for (int k = 0; k < n; ++k)
      sd->buf[k] = cval(opi, r, -1, k);
    ent_made(rv, MPI_Irecv(rv->buf, n + extra, MPI_INT, from, tag, comms[ci],
                           &rv->h),
             "MPI_Irecv");
    ent_made(sd, MPI_Isend(sd->buf, n, MPI_INT, to, tag, comms[ci], &sd->h),
             "MPI_Isend");
    rv->active = sd->active = rv->started = sd->started = 1;
    return;
  }
  ent_made(rv, MPI_Recv_init(rv->buf, n + extra, MPI_INT, from, tag,
                             comms[ci], &rv->h),
           "MPI_Recv_init");
  ent_made(sd, MPI_Send_init(sd->buf, n, MPI_INT, to, tag, comms[ci], &sd->h),
           "MPI_Send_init");
  rv->ps = sd->ps = s;
  ps[s].used = 1, ps[s].kind = null ? E_NSEND : E_SEND;
  ps[s].e[0] = rv, ps[s].e[1] = sd;
}

/* The entry's buffers for a start stamped T. */
static void prepare_start(Ent *e, int t) {
  e->t = t;
  switch (e->kind) {
  case E_COLL:
    coll_fill(&e->c, t);
    break;
  case E_SEND:
  case E_NSEND:
    for (int k = 0; k < e->n; ++k)
      e->buf[k] = cval(t, e->myrank, -1, k);
    break;
  default:
    for (int k = 0; k < e->n + e->extra; ++k)
      e->buf[k] = SENTINEL;
  }
}

static void op_start(void) {
  int sl[3], ns = 0, want = 1 + grand(3);
  for (int tries = 0; tries < 12 && ns < want; ++tries) {
    int s = grand(MAXPS), dup = 0;
    for (int k = 0; k < ns; ++k)
      dup |= sl[k] == s;
    if (ps[s].used && !dup)
      sl[ns++] = s;
  }
  if (ns == 0)
    return;
  Ent *es[6];
  int m = 0;
  char *p = doing;
  p += snprintf(doing, sizeof doing, "start of");
  for (int k = 0; k < ns; ++k) {
    for (int j = 0; j < 2; ++j)
      if (ps[sl[k]].e[j])
        es[m++] = ps[sl[k]].e[j];
    p += snprintf(p, sizeof doing - (size_t)(p - doing), " [%s]",
                  ps[sl[k]].e[0]->what);
    if (p - doing >= (long)sizeof doing - 1)
      break;
  }
  trace();
  /* Inactive first: complete those still active here. */
  complete_these(es, m);
  MPI_Request r[6];
  for (int i = 0; i < m; ++i) {
    prepare_start(es[i], opi);
    r[i] = es[i]->h;
  }
  if (lrand(2) == 0) {
    rc_ok(MPI_Startall(m, r), "MPI_Startall");
  } else
    for (int i = 0; i < m; ++i)
      rc_ok(MPI_Start(&r[i]), "MPI_Start");
  for (int i = 0; i < m; ++i) {
    CHECK(r[i] == es[i]->h, "MPI_Start changed the request", i, 0);
    es[i]->active = es[i]->started = 1;
  }
}

/* Blocking point-to-point calls on a ring shift (the library's progress
 * loops while its runs are outstanding): MPI_Sendrecv; MPI_Irecv, MPI_Ssend
 * and MPI_Wait; MPI_Isend, MPI_Probe and MPI_Recv; MPI_Irecv, MPI_Send; and
 * a receive nobody sends to, cancelled (completed later). Tags from 1000:
 * none of the requests' (below 64). */
static void op_blocking_p2p(void) {
  int ci = pick_ci(), size, how = grand(5), n = pick_count();
  MPI_Comm_size(comms[ci], &size);
  int shift = grand(size), tag = 1000 + grand(64), r = rank_in(ci);
  int to = (r + shift) % size, from = (r + size - shift) % size;
  static const char *hows[5] = {"MPI_Sendrecv", "MPI_Irecv, MPI_Ssend",
                                "MPI_Isend, MPI_Probe, MPI_Recv",
                                "MPI_Irecv, MPI_Send",
                                "MPI_Irecv, MPI_Cancel"};
  snprintf(doing, sizeof doing, "%s to %d and from %d, tag %d, %d ints on %s",
           hows[how], to, from, tag, n, comm_names[ci]);
  trace();
  if (how == 4) {
    Ent *e = ent_new(E_CANCEL, 0);
    snprintf(e->what, sizeof e->what, "%.200s", doing);
    e->buf = malloc(sizeof(int) * (size_t)(n + 1));
    e->peer = from, e->tag = 30000, e->ci = ci;
    ent_made(e, MPI_Irecv(e->buf, n, MPI_INT, from, 30000, comms[ci], &e->h),
             "MPI_Irecv");
    rc_ok(MPI_Cancel(&e->h), "MPI_Cancel");
    e->active = e->started = 1;
    return;
  }
  int *out = malloc(sizeof(int) * (size_t)(n + 1));
  int *in = malloc(sizeof(int) * (size_t)(n + 1));
  for (int k = 0; k < n; ++k)
    out[k] = cval(opi, r, -1, k), in[k] = SENTINEL;
  MPI_Status st;
  MPI_Request q = MPI_REQUEST_NULL;
  MPI_Comm m = comms[ci];
  memset(&st, 0x5a, sizeof st);
  switch (how) {
  case 0:
    rc_ok(MPI_Sendrecv(out, n, MPI_INT, to, tag, in, n, MPI_INT, from, tag, m,
                       &st),
          "MPI_Sendrecv");
    break;
  case 1:
  case 3:
    rc_ok(MPI_Irecv(in, n, MPI_INT, from, tag, m, &q), "MPI_Irecv");
    rc_ok(how == 1 ? MPI_Ssend(out, n, MPI_INT, to, tag, m)
                   : MPI_Send(out, n, MPI_INT, to, tag, m),
          how == 1 ? "MPI_Ssend" : "MPI_Send");
    rc_ok(MPI_Wait(&q, &st), "MPI_Wait");
    break;
  case 2: {
    rc_ok(MPI_Isend(out, n, MPI_INT, to, tag, m, &q), "MPI_Isend");
    MPI_Status pst;
    rc_ok(MPI_Probe(from, tag, m, &pst), "MPI_Probe");
    int count = -1;
    MPI_Get_count(&pst, MPI_INT, &count);
    CHECK(pst.MPI_SOURCE == from && pst.MPI_TAG == tag && count == n,
          "MPI_Probe's status (source, count)", pst.MPI_SOURCE, count);
    rc_ok(MPI_Recv(in, n, MPI_INT, from, tag, m, &st), "MPI_Recv");
    rc_ok(MPI_Wait(&q, MPI_STATUS_IGNORE), "MPI_Wait");
    break;
  }
  }
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == from && st.MPI_TAG == tag && count == n,
        "a blocking receive's status (source, count)", st.MPI_SOURCE, count);
  for (int k = 0; k < n; ++k)
    if (in[k] != cval(opi, from, -1, k)) {
      fail("a value received by a blocking call", in[k], cval(opi, from, -1, k));
      break;
    }
  free(out), free(in);
}

static void op_blocking(void);
static void op_started(void);
static void op_init(void);
static void op_p2p(int persistent);

/* A communicator made (a duplicate or a split of one of the four), one to
 * three operations on it (started, persistent, blocking, point-to-point),
 * and MPI_Comm_free while their requests are outstanding: persistent ones
 * are started later, on the freed communicator (MPI keeps it while a
 * request refers to it), and the next communicator made may take its
 * handle. */
static void op_churn(void) {
  int base = grand(CART), how = grand(2), key = grand(3);
  snprintf(doing, sizeof doing, "%s of %s", how ? "MPI_Comm_split" : "MPI_Comm_dup",
           comm_names[base]);
  trace();
  /* Every request completed first: MPICH's blocking communicator
   * constructors do not progress the library's runs, and a peer that waits
   * for one before it makes the communicator would wait for ever
   * (docs/pmpi.md, "Limits"). */
  complete_everything();
  int r = rank_in(base);
  rc_ok(how ? MPI_Comm_split(comms[base], 0, key == 0 ? r : key == 1 ? -r : 0,
                             &comms[SHORT])
            : MPI_Comm_dup(comms[base], &comms[SHORT]),
        doing);
  MPI_Comm_set_errhandler(comms[SHORT], MPI_ERRORS_RETURN);
  force_ci = SHORT;
  for (int k = 1 + grand(3); k > 0; --k) {
    int what = grand(4);
    if (what == 0)
      op_started();
    else if (what == 1)
      op_init();
    else if (what == 2)
      op_blocking();
    else
      op_p2p(grand(2));
  }
  force_ci = -1;
  snprintf(doing, sizeof doing, "MPI_Comm_free of a short-lived communicator");
  trace();
  rc_ok(MPI_Comm_free(&comms[SHORT]), "MPI_Comm_free");
}

static void op_free(void) {
  int s = grand(MAXPS);
  if (!ps[s].used || ps[s].kind == E_NSEND)
    return; /* MPI_PROC_NULL requests live to the end (header) */
  Ent *es[2] = {NULL, NULL};
  int m = 0;
  for (int j = 0; j < 2; ++j)
    if (ps[s].e[j])
      es[m++] = ps[s].e[j];
  /* A point-to-point pair is freed active at times (MPI lets it complete
   * on its own; its buffers are then left alone, never freed). */
  int active_free = ps[s].kind == E_SEND && grand(3) == 0;
  snprintf(doing, sizeof doing, "MPI_Request_free%s of [%.200s]",
           active_free ? " (active or not)" : "", es[0]->what);
  trace();
  if (!active_free)
    complete_these(es, m);
  for (int i = 0; i < m; ++i) {
    MPI_Request h = es[i]->h;
    rc_ok(MPI_Request_free(&h), "MPI_Request_free");
    CHECK(h == MPI_REQUEST_NULL, "MPI_Request_free left the handle", i, 0);
    if (active_free && es[i]->active)
      es[i]->buf = NULL; /* MPI may still write or read it */
    ent_release(es[i]);
  }
  ps[s].used = 0;
}

/* The seed's end: every request completed, the persistent ones freed but
 * the MPI_PROC_NULL ones (kept to the job's end). */
static void end_seed(void) {
  snprintf(doing, sizeof doing, "the seed's end");
  complete_everything();
  for (int s = 0; s < MAXPS; ++s) {
    if (!ps[s].used)
      continue;
    for (int j = 0; j < 2; ++j) {
      Ent *e = ps[s].e[j];
      if (!e)
        continue;
      if (ps[s].kind == E_NSEND && nkept < 4096) {
        kept[nkept++] = e->h;
      } else {
        MPI_Request h = e->h;
        rc_ok(MPI_Request_free(&h), "MPI_Request_free");
      }
      ent_release(e);
    }
    ps[s].used = 0;
  }
  for (int i = 0; i < MAXE; ++i)
    if (ents[i].used) {
      fail("a request left at the seed's end", i, ents[i].kind);
      ent_release(&ents[i]);
    }
}

static int run_seed(long s, int ops) {
  seed = s;
  gstate = (uint64_t)s * 0x2545f4914f6cdd1dULL + 1;
  lstate = ((uint64_t)s << 8 | (uint64_t)me) * 0x9e3779b97f4a7c15ULL + 7;
  trail = 0;
  int before = failures;
  for (opi = 0; opi < ops; ++opi) {
    alarm(30);
    snprintf(doing, sizeof doing, "a completion");
    if (lrand(3) == 0)
      complete_random(lrand(2));
    int live = 0;
    for (int i = 0; i < MAXE; ++i)
      live += ents[i].used && !ents[i].persistent;
    if (live > 30)
      complete_everything();
    int k = grand(100);
    trail = trail * 31 + (uint64_t)k;
    if (k < 18)
      op_blocking();
    else if (k < 42)
      op_started();
    else if (k < 52)
      op_init();
    else if (k < 72)
      op_start();
    else if (k < 78)
      op_free();
    else if (k < 86)
      op_p2p(0);
    else if (k < 91)
      op_p2p(1);
    else if (k < 96)
      op_blocking_p2p();
    else
      op_churn();
  }
  alarm(30);
  end_seed();
  /* Every rank ran the same operations (and its failures, one sum). */
  uint64_t mine[2] = {trail, ~trail}, all[2];
  PMPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_BAND, MPI_COMM_WORLD);
  if (all[0] != trail || all[1] != ~trail)
    fail("the ranks ran different operations", 0, 0);
  int f = failures - before, allf = 0;
  PMPI_Allreduce(&f, &allf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(allf ? "pmpi_lifecycle: seed %ld: %d failures\n"
                : "pmpi_lifecycle: seed %ld: passed (%d operations)\n",
           s, allf ? allf : ops);
  fflush(stdout);
  return allf;
}

static void usage(void) {
  if (me == 0)
    fprintf(stderr,
            "usage: mpiexec -n 3..16 pmpi_lifecycle [-f] [-m] [-n OPS] "
            "SEED|FIRST-LAST...\n"
            "  -f      every completion call on persistent collective "
            "requests (with the library only)\n"
            "  -m      MPICH 4.0.2's wrong persistent forms too, never-started "
            "ones in completion calls\n"
            "          (with the library serving every call: "
            "CHOREO_MARGIN=off)\n"
            "  -n OPS  operations a seed (80)\n"
            "  LIFECYCLE_TRACE=1: every rank prints each operation\n");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  signal(SIGALRM, on_alarm);
  tracing = getenv("LIFECYCLE_TRACE") != NULL;
  int ops = 80, a = 1;
  for (; a < argc && argv[a][0] == '-'; ++a) {
    if (!strcmp(argv[a], "-f"))
      full = 1;
    else if (!strcmp(argv[a], "-m"))
      mpich_wrong = 1;
    else if (!strcmp(argv[a], "-n") && a + 1 < argc)
      ops = atoi(argv[++a]);
    else
      break;
  }
  if (a >= argc || np < 1 || np > MAXP || ops < 1) {
    usage();
    MPI_Finalize();
    return 2;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  comms[0] = MPI_COMM_WORLD;
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &comms[2]);
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &comms[3]);
  int dims = np, periods = 1;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &comms[4]);
  for (int i = 1; i < SHORT; ++i)
    MPI_Comm_set_errhandler(comms[i], MPI_ERRORS_RETURN);
  int bad = 0;
  for (; a < argc; ++a) {
    long first, last;
    char *end;
    first = strtol(argv[a], &end, 10);
    last = first;
    if (*end == '-')
      last = strtol(end + 1, &end, 10);
    if (*end || last < first) {
      usage();
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long s = first; s <= last; ++s)
      bad += run_seed(s, ops) != 0;
  }
  alarm(30);
  snprintf(doing, sizeof doing, "the job's end");
  for (int i = 0; i < nkept; ++i)
    rc_ok(MPI_Request_free(&kept[i]), "MPI_Request_free (MPI_PROC_NULL)");
  for (int i = 1; i < SHORT; ++i)
    MPI_Comm_free(&comms[i]);
  if (me == 0)
    printf(bad ? "pmpi_lifecycle: %d seeds failed\n" : "pmpi_lifecycle: passed\n",
           bad);
  MPI_Finalize();
  return bad != 0;
}
