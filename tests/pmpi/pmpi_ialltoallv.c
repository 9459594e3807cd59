/* tests/pmpi/pmpi_ialltoallv.c - MPI_Ialltoallv and MPI_Alltoallv from rows
 * and columns (issue 24; docs/pmpi.md, "MPI_Alltoallv from rows and
 * columns").
 *
 * An unmodified MPI program (MPICH only), run by ialltoallv.sh natively
 * and with libchoreo-mpi.so preloaded, at least 4 ranks. alarm() turns a
 * hang into a failure after 30 s. Modes:
 *
 *   DIR      every value checked, results written to DIR/rankR.bin (bit
 *            for bit against the native run): started calls of new
 *            matrices with zeros and gaps, the same matrix again (its kept
 *            part) with new data, an all-zero matrix, MPI_IN_PLACE, the
 *            same counts on a communicator of the processes in reversed
 *            order (a kept part is its process's), two calls outstanding
 *            while the last rank starts only after rank 0's start returned
 *            and sent it a message; a persistent MPI_Alltoallv_init whose
 *            MPI_Start must not wait for the other ranks (the same
 *            pattern); and blocking calls on two overlapping
 *            communicators, {0, 1} and {1, 2}, where nine new matrices on
 *            the second evict process 1's kept part of the first but not
 *            process 0's (the ranks must still agree to exchange).
 *   auto DIR six matrices (zeros, 1 to 16384 ints a block, a heavy row),
 *            each started and waited for, then called blocking with the
 *            same counts (tests/pmpi/ialltoallv_auto.sh compares the
 *            picks of CHOREO_ALLTOALLV=auto); then the first one started
 *            twice more (its kept pick). Results to DIR as above.
 *   mismatch rank 1's recvcounts expect one int more from rank 0 than rank
 *            0 sends: every rank's MPI_Wait of the started call returns an
 *            error ("pmpi_ialltoallv: rank R: error"), nobody hangs; then
 *            a correct call works.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_ialltoallv"
#include "pmpi_test_util.h"

static int np;

static int val(int t, int from, int to, int k) {
  return t * 1000003 + from * 7919 + to * 104729 + k;
}
/* auto's matrices (tests 40..45): zeros, scales from 1 to 16384 ints,
 * a heavy row 0 in every other one. */
static const int auto_scale[] = {1, 16, 256, 4096, 16384, 3};
#define AUTO_TESTS 6
/* The ints rank i sends rank j in test t: zeros among them. */
static int cnt(int t, int i, int j) {
  if (t >= 40) {
    int k = t - 40, base = (i * 3 + j * 5 + k) % 4;
    return base * auto_scale[k] * (k % 2 && i == 0 ? 4 : 1);
  }
  if (t == 3)
    return 0;
  if (t >= 20) /* nine matrices, each its own */
    return (i + 2 * j) % 3 + (t - 20) * (i < j);
  return (i + 2 * j + t) % 3 + (t % 2 ? i : 0);
}

struct call {
  int t, n, r; /* test, ranks, this rank */
  int sc[64], sd[64], rc[64], rd[64], stotal, rtotal;
  int *snd, *rcv;
};

/* Counts of test t on a communicator of n where this is rank r:
 * receive displacements in reverse order with a gap of one int each. */
static void setup(struct call *c, int t, int n, int r, int in_place) {
  memset(c, 0, sizeof *c);
  c->t = t, c->n = n, c->r = r;
  for (int j = 0; j < n; ++j) {
    c->sc[j] = cnt(t, r, j);
    c->sd[j] = c->stotal, c->stotal += c->sc[j];
  }
  for (int i = n - 1; i >= 0; --i) {
    c->rc[i] = in_place ? cnt(t, r, i) : cnt(t, i, r);
    c->rd[i] = c->rtotal, c->rtotal += c->rc[i] + 1;
  }
  c->snd = malloc(sizeof(int) * (c->stotal + 1));
  c->rcv = malloc(sizeof(int) * (c->rtotal + 1));
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < c->sc[j]; ++k)
      c->snd[c->sd[j] + k] = val(t, r, j, k);
  for (int k = 0; k <= c->rtotal; ++k)
    c->rcv[k] = -1;
  if (in_place) /* the data to send sits in recvbuf */
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < c->rc[j]; ++k)
        c->rcv[c->rd[j] + k] = val(t, r, j, k);
}
static void check(struct call *c, int in_place) {
  for (int i = 0; i < c->n; ++i) {
    for (int k = 0; k < c->rc[i]; ++k)
      expect_test(c->rcv[c->rd[i] + k] == val(c->t, i, c->r, k),
                  "a wrong value", c->t);
    expect_test(c->rcv[c->rd[i] + c->rc[i]] == -1, "a gap was written", c->t);
  }
  (void)in_place;
  if (out)
    fwrite(c->rcv, sizeof(int), c->rtotal, out);
  free(c->snd);
  free(c->rcv);
}
static void start(struct call *c, int in_place, MPI_Comm comm,
                  MPI_Request *q) {
  int rc = MPI_Ialltoallv(in_place ? MPI_IN_PLACE : c->snd, c->sc, c->sd,
                          MPI_INT, c->rcv, c->rc, c->rd, MPI_INT, comm, q);
  expect_test(rc == MPI_SUCCESS, "MPI_Ialltoallv failed", c->t);
}
static void waitfor(struct call *c, MPI_Request *q) {
  int rc = MPI_Wait(q, MPI_STATUS_IGNORE);
  expect_test(rc == MPI_SUCCESS, "MPI_Wait failed", c->t);
}

static void run_all(void) {
  struct call a, b;
  MPI_Request q[2];
  /* New matrices, the same one again with new buffers, all zero. */
  for (int t = 1; t <= 4; ++t) {
    int tt = t == 4 ? 1 : t;
    setup(&a, tt, np, me, 0);
    start(&a, 0, MPI_COMM_WORLD, &q[0]);
    waitfor(&a, &q[0]);
    check(&a, 0);
  }
  /* MPI_IN_PLACE: a symmetric matrix (test 6 counts (i + 2j + 6) % 3 are
   * not symmetric: use test 3's zeros and test 8's own). */
  setup(&a, 8, np, me, 1);
  for (int j = 0; j < np; ++j) /* symmetric: i + j */
    a.sc[j] = a.rc[j] = (me + j) % 3;
  a.rtotal = 0;
  for (int i = np - 1; i >= 0; --i)
    a.rd[i] = a.rtotal, a.rtotal += a.rc[i] + 1;
  free(a.rcv);
  a.rcv = malloc(sizeof(int) * (a.rtotal + 1));
  for (int k = 0; k <= a.rtotal; ++k)
    a.rcv[k] = -1;
  for (int j = 0; j < np; ++j)
    for (int k = 0; k < a.rc[j]; ++k)
      a.rcv[a.rd[j] + k] = val(8, me, j, k);
  start(&a, 1, MPI_COMM_WORLD, &q[0]);
  waitfor(&a, &q[0]);
  for (int i = 0; i < np; ++i)
    for (int k = 0; k < a.rc[i]; ++k)
      expect_test(a.rcv[a.rd[i] + k] == val(8, i, me, k),
                  "in place: a wrong value", 8);
  if (out)
    fwrite(a.rcv, sizeof(int), a.rtotal, out);
  free(a.snd);
  free(a.rcv);
  /* The processes in reversed order, the same counts by rank. */
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &rev);
  int rme;
  MPI_Comm_rank(rev, &rme);
  for (int t = 1; t <= 2; ++t) {
    setup(&a, t, np, rme, 0);
    start(&a, 0, rev, &q[0]);
    waitfor(&a, &q[0]);
    check(&a, 0);
  }
  /* Two outstanding; the last rank starts after rank 0's start returned. */
  int token = 0;
  setup(&a, 5, np, me, 0);
  setup(&b, 6, np, me, 0);
  if (me == np - 1)
    MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  start(&a, 0, MPI_COMM_WORLD, &q[0]);
  start(&b, 0, MPI_COMM_WORLD, &q[1]);
  if (me == 0)
    MPI_Send(&token, 1, MPI_INT, np - 1, 7, MPI_COMM_WORLD);
  MPI_Status st[2];
  MPI_Waitall(2, q, st);
  check(&a, 0);
  check(&b, 0);
  /* Persistent: MPI_Start must not wait for the other ranks. */
  setup(&a, 9, np, me, 0);
  MPI_Request p;
  MPI_Alltoallv_init(a.snd, a.sc, a.sd, MPI_INT, a.rcv, a.rc, a.rd, MPI_INT,
                     MPI_COMM_WORLD, MPI_INFO_NULL, &p);
  for (int it = 0; it < 3; ++it) {
    if (me == np - 1)
      MPI_Recv(&token, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Start(&p);
    if (me == 0)
      MPI_Send(&token, 1, MPI_INT, np - 1, 8, MPI_COMM_WORLD);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&p);
  check(&a, 0);
  /* Blocking calls on {0, 1} and {1, 2}: nine new matrices on the second
   * between two calls of one matrix on the first. */
  MPI_Comm c01, c12;
  MPI_Comm_split(MPI_COMM_WORLD, me < 2 ? 0 : MPI_UNDEFINED, me, &c01);
  MPI_Comm_split(MPI_COMM_WORLD, me == 1 || me == 2 ? 0 : MPI_UNDEFINED, me,
                 &c12);
  for (int round = 0; round < 2; ++round) {
    if (c01 != MPI_COMM_NULL) {
      setup(&a, 11, 2, me, 0);
      int rc = MPI_Alltoallv(a.snd, a.sc, a.sd, MPI_INT, a.rcv, a.rc, a.rd,
                             MPI_INT, c01);
      expect_test(rc == MPI_SUCCESS, "MPI_Alltoallv on {0, 1} failed", 11);
      check(&a, 0);
    }
    if (c12 != MPI_COMM_NULL && round == 0)
      for (int t = 20; t < 29; ++t) {
        setup(&a, t, 2, me - 1, 0);
        int rc = MPI_Alltoallv(a.snd, a.sc, a.sd, MPI_INT, a.rcv, a.rc, a.rd,
                               MPI_INT, c12);
        expect_test(rc == MPI_SUCCESS, "MPI_Alltoallv on {1, 2} failed", t);
        check(&a, 0);
      }
  }
  MPI_Comm_free(&rev);
  if (c01 != MPI_COMM_NULL)
    MPI_Comm_free(&c01);
  if (c12 != MPI_COMM_NULL)
    MPI_Comm_free(&c12);
}

/* auto: each matrix started and waited for, then the same counts
 * blocking (ialltoallv_auto.sh compares the two picks), then the first
 * matrix started again (its kept pick). */
static void run_auto(void) {
  struct call a;
  MPI_Request q;
  for (int t = 40; t < 40 + AUTO_TESTS; ++t) {
    setup(&a, t, np, me, 0);
    start(&a, 0, MPI_COMM_WORLD, &q);
    waitfor(&a, &q);
    check(&a, 0);
    setup(&a, t, np, me, 0);
    int rc = MPI_Alltoallv(a.snd, a.sc, a.sd, MPI_INT, a.rcv, a.rc, a.rd,
                           MPI_INT, MPI_COMM_WORLD);
    expect_test(rc == MPI_SUCCESS, "MPI_Alltoallv failed", t);
    check(&a, 0);
  }
  for (int it = 0; it < 2; ++it) {
    setup(&a, 40, np, me, 0);
    start(&a, 0, MPI_COMM_WORLD, &q);
    waitfor(&a, &q);
    check(&a, 0);
  }
}

static void mismatch(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  struct call a;
  MPI_Request q;
  setup(&a, 1, np, me, 0);
  if (me == 1) {
    a.rc[0] += 1; /* one int more than rank 0 sends */
    a.rtotal = 0;
    for (int i = np - 1; i >= 0; --i)
      a.rd[i] = a.rtotal, a.rtotal += a.rc[i] + 1;
    free(a.rcv);
    a.rcv = malloc(sizeof(int) * (a.rtotal + 1));
  }
  int rc = MPI_Ialltoallv(a.snd, a.sc, a.sd, MPI_INT, a.rcv, a.rc, a.rd,
                          MPI_INT, MPI_COMM_WORLD, &q);
  if (rc == MPI_SUCCESS)
    rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS)
    printf("pmpi_ialltoallv: rank %d: error\n", me);
  fflush(stdout);
  free(a.snd);
  free(a.rcv);
  /* A correct call afterwards. */
  setup(&a, 2, np, me, 0);
  start(&a, 0, MPI_COMM_WORLD, &q);
  waitfor(&a, &q);
  check(&a, 0);
}

int main(int argc, char **argv) {
  alarm(30);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np < 4 || np > 64 || argc < 2) {
    if (me == 0)
      fprintf(stderr,
              "usage: mpiexec -n 4..64 pmpi_ialltoallv DIR|mismatch|auto DIR\n");
    MPI_Finalize();
    return 2;
  }
  int is_auto = !strcmp(argv[1], "auto");
  if (!strcmp(argv[1], "mismatch")) {
    mismatch();
  } else if (is_auto && argc < 3) {
    if (me == 0)
      fprintf(stderr, "usage: pmpi_ialltoallv auto DIR\n");
    MPI_Finalize();
    return 2;
  } else {
    open_results(argv[is_auto ? 2 : 1]);
    if (is_auto)
      run_auto();
    else
      run_all();
    fclose(out);
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && !all)
    printf("pmpi_ialltoallv: passed\n");
  MPI_Finalize();
  return all ? 1 : 0;
}
