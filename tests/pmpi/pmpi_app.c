/*===- tests/pmpi/pmpi_app.c - An unmodified MPI application ---------------===*/
/*
 * mpiexec -n 6 pmpi_app OUTDIR: calls every collective libchoreo-mpi.so
 * intercepts, as an application would, and knows nothing of choreo. Run
 * with and without LD_PRELOAD=libchoreo-mpi.so; every rank checks its
 * results against the values the call must produce and writes them all to
 * OUTDIR/rank<R>.bin, which tests/pmpi/run-app.sh compares bit for bit
 * between the two runs. Needs 6 ranks (the intercommunicator is 4 + 2).
 *
 *  1. MPI_Allgather on MPI_COMM_WORLD: 1, 7 and 1000 ints, MPI_IN_PLACE,
 *     repeated on other buffers (a cached plan rebound);
 *  2. MPI_Allgatherv with irregular counts (a zero among them) and
 *     displacements in reverse order with gaps, also MPI_IN_PLACE;
 *  3. MPI_Bcast of 1 byte, 1000 doubles and 100000 bytes from every root;
 *  4. on an intercommunicator (world 0..3 and 4..5): MPI_Allgather and
 *     MPI_Allgatherv with irregular counts;
 *  5. the reductions: MPI_Reduce (every root), MPI_Allreduce,
 *     MPI_Reduce_scatter (irregular counts) and MPI_Reduce_scatter_block
 *     with MPI_SUM on ints (exact), with and without MPI_IN_PLACE, for
 *     0, 24, 1001 and 20000 ints; MPI_SUM on doubles (within 1e-12,
 *     not saved: the order of additions may differ); MPI_MAXLOC on
 *     MPI_DOUBLE_INT; a non-commutative user operator (2x2 integer matrix
 *     product) by MPI_Allreduce, MPI_Reduce and MPI_Reduce_scatter_block;
 *  6. MPI_COMM_SELF, a communicator of size 1, count 0, and a duplicate
 *     used, freed and made again;
 *  7. a communicator of the odd ranks (3 ranks, not a power of two), with
 *     integer sums and the non-commutative product.
 * Rank 0 prints "pmpi_app: passed" when every check held on every rank.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMPI_TEST_NAME "pmpi_app"
#include "pmpi_test_util.h"

static int val(int test, int rank, int i) {
  return test * 1000003 + rank * 7919 + i * 31 + (i >> 3);
}

static void allgather(MPI_Comm c, int test, int n, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int *send = malloc(sizeof(int) * (n ? n : 1));
  int *recv = malloc(sizeof(int) * (size_t)(n * p + 1));
  for (int i = 0; i < n; ++i)
    send[i] = val(test, r, i);
  memset(recv, 0xee, sizeof(int) * (size_t)(n * p + 1));
  if (in_place)
    memcpy(recv + r * n, send, sizeof(int) * n);
  check_rc(MPI_Allgather(in_place ? MPI_IN_PLACE : send, n, MPI_INT, recv, n,
                         MPI_INT, c),
           "MPI_Allgather");
  for (int s = 0; s < p; ++s)
    for (int i = 0; i < n; ++i)
      expect(recv[s * n + i] == val(test, s, i), "allgather", test, s);
  save(recv, sizeof(int) * (size_t)(n * p));
  free(send);
  free(recv);
}

static void allgatherv(MPI_Comm c, int test, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  /* MPICH 4.0.2's MPI_Allgatherv on one rank ignores displs[0] (it copies
   * to recvbuf): no leading gap there, so that both runs agree. */
  int counts[64], displs[64], at = p == 1 ? 0 : 3;
  for (int s = p - 1; s >= 0; --s) { /* reverse order, gaps of 3 */
    counts[s] = (s * 37 + test) % 11;
    if (s == 1)
      counts[s] = 0;
    displs[s] = at;
    at += counts[s] + 3;
  }
  int *recv = malloc(sizeof(int) * (size_t)at);
  int *send = malloc(sizeof(int) * 16);
  for (int i = 0; i < counts[r]; ++i)
    send[i] = val(test, r, i);
  for (int i = 0; i < at; ++i)
    recv[i] = -1;
  if (in_place)
    memcpy(recv + displs[r], send, sizeof(int) * counts[r]);
  check_rc(MPI_Allgatherv(in_place ? MPI_IN_PLACE : send, counts[r], MPI_INT,
                          recv, counts, displs, MPI_INT, c),
           "MPI_Allgatherv");
  for (int s = 0; s < p; ++s)
    for (int i = 0; i < counts[s]; ++i)
      expect(recv[displs[s] + i] == val(test, s, i), "allgatherv", test, s);
  for (int s = 0; s < p; ++s) /* the gaps stay untouched */
    if (displs[s] > 0)
      expect(recv[displs[s] - 1] == -1, "allgatherv gap", test, s);
  save(recv, sizeof(int) * (size_t)at);
  free(send);
  free(recv);
}

static void bcast(MPI_Comm c, int test, int bytes, int root) {
  int r;
  MPI_Comm_rank(c, &r);
  unsigned char *buf = malloc((size_t)bytes + 1);
  for (int i = 0; i < bytes; ++i)
    buf[i] = r == root ? (unsigned char)val(test, root, i) : 0;
  check_rc(MPI_Bcast(buf, bytes, MPI_BYTE, root, c), "MPI_Bcast");
  for (int i = 0; i < bytes; ++i)
    expect(buf[i] == (unsigned char)val(test, root, i), "bcast", test, i);
  save(buf, (size_t)bytes);
  free(buf);
}

static void bcast_doubles(MPI_Comm c, int test, int n, int root) {
  int r;
  MPI_Comm_rank(c, &r);
  double *buf = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i)
    buf[i] = r == root ? val(test, root, i) / 3.0 : 0;
  check_rc(MPI_Bcast(buf, n, MPI_DOUBLE, root, c), "MPI_Bcast");
  for (int i = 0; i < n; ++i)
    expect(buf[i] == val(test, root, i) / 3.0, "bcast doubles", test, i);
  save(buf, sizeof(double) * (size_t)n);
  free(buf);
}

/* Intercommunicator of world [0, 4) and [4, 6). */
static void inter(int test) {
  MPI_Comm local, ic;
  int in_a = me < 4;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, me, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? 4 : 0, 99, &ic);
  int r, remote;
  MPI_Comm_rank(ic, &r);
  MPI_Comm_remote_size(ic, &remote);
  /* Allgather: A sends 5 ints each, B 9. */
  int mine = in_a ? 5 : 9, theirs = in_a ? 9 : 5;
  int send[16], recv[64], counts[8], displs[8];
  for (int i = 0; i < mine; ++i)
    send[i] = val(test, me, i);
  check_rc(MPI_Allgather(send, mine, MPI_INT, recv, theirs, MPI_INT, ic),
           "MPI_Allgather (inter)");
  int base = in_a ? 4 : 0;
  for (int s = 0; s < remote; ++s)
    for (int i = 0; i < theirs; ++i)
      expect(recv[s * theirs + i] == val(test, base + s, i), "inter allgather",
             s, i);
  save(recv, sizeof(int) * (size_t)(remote * theirs));
  /* Allgatherv: world rank w sends (w * 3) % 7 ints; displs reversed. */
  int n = (me * 3) % 7, at = 1;
  for (int i = 0; i < n; ++i)
    send[i] = val(test + 1, me, i);
  for (int s = remote - 1; s >= 0; --s) {
    counts[s] = ((base + s) * 3) % 7;
    displs[s] = at;
    at += counts[s] + 1;
  }
  for (int i = 0; i < at; ++i)
    recv[i] = -1;
  check_rc(MPI_Allgatherv(send, n, MPI_INT, recv, counts, displs, MPI_INT, ic),
           "MPI_Allgatherv (inter)");
  for (int s = 0; s < remote; ++s)
    for (int i = 0; i < counts[s]; ++i)
      expect(recv[displs[s] + i] == val(test + 1, base + s, i),
             "inter allgatherv", s, i);
  save(recv, sizeof(int) * (size_t)at);
  MPI_Comm_free(&ic);
  MPI_Comm_free(&local);
}

/* 2x2 integer matrices mod 1009 (one element of MPI type mat_t: 4 ints),
 * multiplied: associative, not commutative. inout = in * inout. */
static MPI_Datatype mat_t;
static void matmul(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  int *a = in, *b = inout;
  for (int k = 0; k < 4 * *len; k += 4) {
    int c0 = (a[k] * b[k] + a[k + 1] * b[k + 2]) % 1009;
    int c1 = (a[k] * b[k + 1] + a[k + 1] * b[k + 3]) % 1009;
    int c2 = (a[k + 2] * b[k] + a[k + 3] * b[k + 2]) % 1009;
    int c3 = (a[k + 2] * b[k + 1] + a[k + 3] * b[k + 3]) % 1009;
    b[k] = c0, b[k + 1] = c1, b[k + 2] = c2, b[k + 3] = c3;
  }
}

/* Rank s's input of reduction test `test`, element i. */
static int rin(int test, int s, int i) { return val(test, s, i) % 1000 - 300; }

/* Integer sums, exact: MPI_Reduce to Root (MPI_IN_PLACE at the root when
 * in_place), MPI_Allreduce, MPI_Reduce_scatter with irregular counts (a
 * zero among them) and MPI_Reduce_scatter_block, n ints each. */
static void int_sums(MPI_Comm c, int test, int n, int root, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  size_t bytes = sizeof(int) * (size_t)(n ? n : 1);
  int *send = malloc(bytes), *recv = malloc(bytes), *sum = malloc(bytes);
  for (int i = 0; i < n; ++i) {
    send[i] = rin(test, r, i);
    sum[i] = 0;
    for (int s = 0; s < p; ++s)
      sum[i] += rin(test, s, i);
  }
  /* MPI_Reduce */
  memset(recv, 0, bytes);
  if (in_place && r == root)
    memcpy(recv, send, sizeof(int) * (size_t)n);
  check_rc(MPI_Reduce(in_place && r == root ? MPI_IN_PLACE : send, recv, n,
                      MPI_INT, MPI_SUM, root, c),
           "MPI_Reduce");
  if (r == root) {
    for (int i = 0; i < n; ++i)
      expect(recv[i] == sum[i], "reduce", test, i);
    save(recv, sizeof(int) * (size_t)n);
  }
  /* MPI_Allreduce */
  memset(recv, 0, bytes);
  if (in_place)
    memcpy(recv, send, sizeof(int) * (size_t)n);
  check_rc(MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, n, MPI_INT,
                         MPI_SUM, c),
           "MPI_Allreduce");
  for (int i = 0; i < n; ++i)
    expect(recv[i] == sum[i], "allreduce", test, i);
  save(recv, sizeof(int) * (size_t)n);
  /* MPI_Reduce_scatter: rank s gets counts[s] ints, irregular. */
  int *counts = malloc(sizeof(int) * (size_t)p), at = 0, mine = 0;
  for (int s = 0; s < p; ++s) {
    counts[s] = s == p - 1 ? n - at : (n / p) + (s % 2 ? 1 : -1) * (s % 3);
    if (s == 1 || counts[s] < 0)
      counts[s] = 0;
    if (at + counts[s] > n)
      counts[s] = n - at;
    if (s == r)
      mine = at;
    at += counts[s];
  }
  memset(recv, 0, bytes);
  if (in_place)
    memcpy(recv, send, sizeof(int) * (size_t)n);
  check_rc(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : send, recv, counts,
                              MPI_INT, MPI_SUM, c),
           "MPI_Reduce_scatter");
  for (int i = 0; i < counts[r]; ++i)
    expect(recv[i] == sum[mine + i], "reduce_scatter", test, i);
  save(recv, sizeof(int) * (size_t)counts[r]);
  free(counts);
  /* MPI_Reduce_scatter_block: n / p ints each. */
  int blk = n / p;
  memset(recv, 0, bytes);
  if (in_place)
    memcpy(recv, send, sizeof(int) * (size_t)(blk * p));
  check_rc(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : send, recv, blk,
                                    MPI_INT, MPI_SUM, c),
           "MPI_Reduce_scatter_block");
  for (int i = 0; i < blk; ++i)
    expect(recv[i] == sum[r * blk + i], "reduce_scatter_block", test, i);
  save(recv, sizeof(int) * (size_t)blk);
  free(send);
  free(recv);
  free(sum);
}

/* Doubles: the sum depends on the order of the additions, so it is checked
 * within a relative 1e-12 of the exact sum and not compared bit for bit. */
static void double_sums(MPI_Comm c, int test, int n) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  double *send = malloc(sizeof(double) * (size_t)n);
  double *recv = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i)
    send[i] = rin(test, r, i) / 3.0;
  check_rc(MPI_Allreduce(send, recv, n, MPI_DOUBLE, MPI_SUM, c),
           "MPI_Allreduce (double)");
  for (int i = 0; i < n; ++i) {
    double want = 0;
    for (int s = 0; s < p; ++s)
      want += rin(test, s, i) / 3.0;
    double err = recv[i] - want, tol = 1e-12 * (want < 0 ? -want : want) + 1e-12;
    expect(err <= tol && -err <= tol, "allreduce double", test, i);
  }
  free(send);
  free(recv);
}

/* MPI_MAXLOC on MPI_DOUBLE_INT (padded: a pair type handled by extent). */
static void maxloc(MPI_Comm c, int test, int n, int root) {
  struct { double v; int i; } *send, *recv;
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  send = malloc(sizeof *send * (size_t)n);
  recv = malloc(sizeof *recv * (size_t)n);
  for (int i = 0; i < n; ++i) {
    send[i].v = (rin(test, r, i) % 17) / 4.0; /* ties: the lowest rank wins */
    send[i].i = r;
  }
  for (int all = 0; all < 2; ++all) {
    memset(recv, 0, sizeof *recv * (size_t)n);
    if (all)
      check_rc(MPI_Allreduce(send, recv, n, MPI_DOUBLE_INT, MPI_MAXLOC, c),
               "MPI_Allreduce (MAXLOC)");
    else
      check_rc(MPI_Reduce(send, recv, n, MPI_DOUBLE_INT, MPI_MAXLOC, root, c),
               "MPI_Reduce (MAXLOC)");
    if (!all && r != root)
      continue;
    for (int i = 0; i < n; ++i) {
      double best = 0;
      int at = -1;
      for (int s = 0; s < p; ++s) {
        double v = (rin(test, s, i) % 17) / 4.0;
        if (at < 0 || v > best)
          best = v, at = s;
      }
      expect(recv[i].v == best && recv[i].i == at, "maxloc", test, i);
      save(&recv[i].v, sizeof(double));
      save(&recv[i].i, sizeof(int));
    }
  }
  free(send);
  free(recv);
}

/* Non-commutative: the product of the ranks' matrices in rank order, by
 * MPI_Allreduce, MPI_Reduce (to root) and MPI_Reduce_scatter_block. */
static void noncommutative(MPI_Comm c, int test, int n, int root) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  MPI_Op op;
  MPI_Op_create(matmul, 0, &op);
  size_t ints = 4 * (size_t)n * (size_t)p;
  int *m = malloc(sizeof(int) * ints), *prod = malloc(sizeof(int) * ints);
  int *want = malloc(sizeof(int) * ints);
  for (size_t k = 0; k < ints; ++k) {
    m[k] = (val(test, r, (int)k) % 7) + 1;
    want[k] = k % 4 == 0 || k % 4 == 3; /* identities */
  }
  for (int s = p - 1; s >= 0; --s) { /* want = m_s * want */
    int *ms = malloc(sizeof(int) * ints);
    for (size_t k = 0; k < ints; ++k)
      ms[k] = (val(test, s, (int)k) % 7) + 1;
    int l = n * p;
    matmul(ms, want, &l, NULL);
    free(ms);
  }
  memset(prod, 0, sizeof(int) * ints);
  check_rc(MPI_Allreduce(m, prod, n, mat_t, op, c),
           "MPI_Allreduce (non-commutative)");
  for (int k = 0; k < 4 * n; ++k)
    expect(prod[k] == want[k], "non-commutative allreduce", test, k);
  save(prod, sizeof(int) * 4 * (size_t)n);
  memset(prod, 0, sizeof(int) * ints);
  check_rc(MPI_Reduce(m, prod, n, mat_t, op, root, c),
           "MPI_Reduce (non-commutative)");
  if (r == root) {
    for (int k = 0; k < 4 * n; ++k)
      expect(prod[k] == want[k], "non-commutative reduce", test, k);
    save(prod, sizeof(int) * 4 * (size_t)n);
  }
  memset(prod, 0, sizeof(int) * ints);
  check_rc(MPI_Reduce_scatter_block(m, prod, n, mat_t, op, c),
           "MPI_Reduce_scatter_block (non-commutative)");
  for (int k = 0; k < 4 * n; ++k)
    expect(prod[k] == want[4 * n * r + k], "non-commutative reduce_scatter",
           test, k);
  save(prod, sizeof(int) * 4 * (size_t)n);
  MPI_Op_free(&op);
  free(m);
  free(prod);
  free(want);
}

static void reductions(MPI_Comm c, int test) {
  int p;
  MPI_Comm_size(c, &p);
  const int sizes[] = {0, 24, 1001, 20000};
  for (int k = 0; k < 4; ++k) {
    int_sums(c, test + k, sizes[k], k % p, 0);
    /* MPICH 4.0.2's MPI_Reduce with MPI_IN_PLACE at a root other than 0
     * crashes above 2048 bytes (docs/pmpi.md): in place, larger vectors go
     * to root 0 so that the native run passes. */
    int_sums(c, test + 10 + k, sizes[k], sizes[k] <= 24 ? (p - 1 + k) % p : 0,
             1);
  }
  int_sums(c, test, 24, 0, 0); /* a cached plan, other buffers */
  double_sums(c, test + 20, 1000);
  maxloc(c, test + 21, 37, p / 2);
  noncommutative(c, test + 22, 1, p - 1);
  noncommutative(c, test + 23, 5, 0);
}

static void small_and_freed(void) {
  allgather(MPI_COMM_SELF, 60, 5, 0);
  bcast(MPI_COMM_SELF, 61, 100, 0);
  int_sums(MPI_COMM_SELF, 160, 7, 0, 1);
  MPI_Comm one;
  MPI_Comm_split(MPI_COMM_WORLD, me, 0, &one); /* size 1 */
  allgather(one, 62, 3, 1);
  allgatherv(one, 63, 0);
  int_sums(one, 161, 7, 0, 0);
  noncommutative(one, 162, 2, 0);
  MPI_Comm_free(&one);
  /* count 0 */
  allgather(MPI_COMM_WORLD, 64, 0, 0);
  bcast(MPI_COMM_WORLD, 65, 0, 1);
  /* A duplicate used, freed, and made again. */
  for (int round = 0; round < 2; ++round) {
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    allgather(d, 66 + round, 4, 0);
    bcast(d, 68 + round, 300, 5);
    MPI_Comm_free(&d);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc != 2 || p != 6) {
    if (me == 0)
      fprintf(stderr, "usage: mpiexec -n 6 pmpi_app OUTDIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  open_results(argv[1]);
  for (int rep = 0; rep < 3; ++rep) { /* steady state and rebinding */
    allgather(MPI_COMM_WORLD, 1, 1, 0);
    allgather(MPI_COMM_WORLD, 2, 7, 0);
    allgather(MPI_COMM_WORLD, 3, 1000, 0);
    allgather(MPI_COMM_WORLD, 4, 7, 1);
  }
  allgatherv(MPI_COMM_WORLD, 10, 0);
  allgatherv(MPI_COMM_WORLD, 11, 1);
  allgatherv(MPI_COMM_WORLD, 10, 0);
  for (int root = 0; root < p; ++root) {
    bcast(MPI_COMM_WORLD, 20 + root, 1, root);
    bcast(MPI_COMM_WORLD, 30 + root, 100000, root);
  }
  bcast_doubles(MPI_COMM_WORLD, 40, 1000, 3);
  inter(50);
  inter(52);
  MPI_Type_contiguous(4, MPI_INT, &mat_t);
  MPI_Type_commit(&mat_t);
  reductions(MPI_COMM_WORLD, 100);
  small_and_freed();
  MPI_Comm odd;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &odd);
  allgather(odd, 80, 33, 0);
  allgatherv(odd, 81, 0);
  bcast(odd, 82, 5000, 2);
  int_sums(odd, 200, 24, 2, 1);
  int_sums(odd, 201, 1001, 1, 0);
  noncommutative(odd, 202, 3, 1);
  MPI_Comm_free(&odd);
  fclose(out);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(total ? "pmpi_app: FAILED (%d failures)\n" : "pmpi_app: passed\n",
           total);
  MPI_Finalize();
  return total ? 1 : 0;
}
