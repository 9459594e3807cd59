/* tests/pmpi/pmpi_nonblock.c - non-blocking and persistent collectives.
 *
 * An unmodified MPI program (it links MPICH only) that run-app.sh runs
 * natively and with libchoreo-mpi.so preloaded: every MPI_I* call the
 * library serves (in place where MPI allows, non-zero roots, a
 * non-commutative user operator, a datatype that needs a packed copy),
 * the persistent MPI_*_init forms with MPI_Start and MPI_Startall (one
 * request started 100 times), two outstanding collectives on two
 * communicators and two on one completed in the reverse order, an
 * MPI_Waitall mixing a collective's request with point-to-point requests,
 * MPI_Test, MPI_Testall, MPI_Waitany and MPI_Request_get_status loops, a
 * refused MPI_Cancel and MPI_Request_free, a communicator freed with a
 * collective outstanding, and rank 0 blocking in MPI_Recv from rank 1 while
 * rank 1 waits for an MPI_Iallreduce before it sends (nothing but the
 * library's progress inside MPI_Recv completes it). Each rank writes its
 * results and the statuses it saw to DIR/rankR.bin (compared bit for bit
 * with the native run's); alarm() kills a hung job after 120 s. Rank 0
 * prints "pmpi_nonblock: passed" when every check held on every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_nonblock"
#include "pmpi_test_util.h"

/* A point-to-point status: all of it. A collective's is not saved: MPI
 * leaves its fields undefined, and MPICH's own MPI_Test leaves it as it
 * was (whatever the stack held). */
static void save_p2p_status(const MPI_Status *st) {
  int count = -1, cancelled = -1;
  MPI_Get_count(st, MPI_BYTE, &count);
  MPI_Test_cancelled(st, &cancelled);
  int v[4] = {st->MPI_SOURCE, st->MPI_TAG, count, cancelled};
  save(v, sizeof v);
}
static void save_status(const MPI_Status *st) { (void)st; }
static void wait_save(MPI_Request *r) {
  MPI_Status st;
  MPI_Wait(r, &st);
  save_status(&st);
}
static int val(int test, int r, int k) { return test * 1000003 + r * 7919 + k; }

/* 2x2 integer matrices (the datatype mat) multiplied in order: not
 * commutative. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  int *a = in, *b = inout;
  for (int i = 0; i < 4 * *len; i += 4) {
    int c0 = a[i] * b[i] + a[i + 1] * b[i + 2];
    int c1 = a[i] * b[i + 1] + a[i + 1] * b[i + 3];
    int c2 = a[i + 2] * b[i] + a[i + 3] * b[i + 2];
    int c3 = a[i + 2] * b[i + 1] + a[i + 3] * b[i + 3];
    b[i] = c0, b[i + 1] = c1, b[i + 2] = c2, b[i + 3] = c3;
  }
}
static MPI_Datatype mat;
static MPI_Op matop;

static void iallgather(MPI_Comm c, int test, int n, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int *in = malloc(sizeof(int) * n), *all = malloc(sizeof(int) * n * p);
  for (int k = 0; k < n; ++k)
    in[k] = all[r * n + k] = val(test, r, k);
  MPI_Request q;
  MPI_Iallgather(in_place ? MPI_IN_PLACE : in, n, MPI_INT, all, n, MPI_INT, c,
                 &q);
  wait_save(&q);
  for (int i = 0; i < p; ++i)
    for (int k = 0; k < n; ++k)
      expect_test(all[i * n + k] == val(test, i, k), "iallgather", test);
  save(all, sizeof(int) * n * p);
  free(in), free(all);
}

static void iallgatherv(MPI_Comm c, int test, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int *counts = malloc(sizeof(int) * p), *displs = malloc(sizeof(int) * p);
  int total = 0;
  for (int i = 0; i < p; ++i) {
    counts[i] = (i * 3) % 5 + 1;
    displs[i] = total + 2; /* gaps */
    total += counts[i] + 2;
  }
  int *in = malloc(sizeof(int) * counts[r]), *all = calloc(total, sizeof(int));
  for (int k = 0; k < counts[r]; ++k)
    in[k] = all[displs[r] + k] = val(test, r, k);
  MPI_Request q;
  MPI_Iallgatherv(in_place ? MPI_IN_PLACE : in, counts[r], MPI_INT, all, counts,
                  displs, MPI_INT, c, &q);
  int flag = 0;
  MPI_Status st;
  while (!flag)
    MPI_Test(&q, &flag, &st);
  save_status(&st);
  for (int i = 0; i < p; ++i)
    for (int k = 0; k < counts[i]; ++k)
      expect_test(all[displs[i] + k] == val(test, i, k), "iallgatherv", test);
  save(all, sizeof(int) * total);
  free(counts), free(displs), free(in), free(all);
}

static void ibcast(MPI_Comm c, int test, int n, int root, MPI_Datatype t) {
  int r;
  MPI_Comm_rank(c, &r);
  int ext = t == MPI_INT ? 1 : 2; /* a vector type with holes: every other */
  int *buf = calloc((size_t)n * ext, sizeof(int));
  for (int k = 0; k < n; ++k)
    buf[k * ext] = r == root ? val(test, root, k) : -1;
  MPI_Request q;
  MPI_Ibcast(buf, t == MPI_INT ? n : 1, t, root, c, &q);
  int flag = 0;
  MPI_Status st;
  while (!flag)
    MPI_Request_get_status(q, &flag, &st);
  save_status(&st);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  for (int k = 0; k < n; ++k)
    expect_test(buf[k * ext] == val(test, root, k), "ibcast", test);
  save(buf, sizeof(int) * n * ext);
  free(buf);
}

/* The reductions: sums (commutative) and matrix products (not). */
static void ireductions(MPI_Comm c, int test, int n, int root, int in_place,
                        int noncomm) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  MPI_Datatype t = noncomm ? mat : MPI_INT;
  MPI_Op op = noncomm ? matop : MPI_SUM;
  int w = noncomm ? 4 : 1; /* ints per element */
  size_t ints = (size_t)n * p * w;
  int *in = malloc(sizeof(int) * ints), *res = malloc(sizeof(int) * ints);
  for (size_t k = 0; k < ints; ++k)
    in[k] = noncomm ? val(test, r, (int)k) % 5 + 1 : val(test, r, (int)k);
  MPI_Request q[4];
  /* Allreduce over n * p elements. */
  memcpy(res, in, sizeof(int) * ints);
  MPI_Iallreduce(in_place ? MPI_IN_PLACE : in, res, n * p, t, op, c, &q[0]);
  wait_save(&q[0]);
  save(res, sizeof(int) * ints);
  /* Reduce to root. */
  memcpy(res, in, sizeof(int) * ints);
  MPI_Ireduce(in_place && r == root ? MPI_IN_PLACE : in, res, n * p, t, op,
              root, c, &q[1]);
  wait_save(&q[1]);
  if (r == root)
    save(res, sizeof(int) * ints);
  /* Reduce_scatter_block: n elements each. */
  memcpy(res, in, sizeof(int) * ints);
  MPI_Ireduce_scatter_block(in_place ? MPI_IN_PLACE : in, res, n, t, op, c,
                            &q[2]);
  wait_save(&q[2]);
  save(res, sizeof(int) * n * w);
  /* Reduce_scatter: counts 1..; sum of counts <= n * p. */
  int *counts = malloc(sizeof(int) * p), total = 0;
  for (int i = 0; i < p; ++i)
    total += counts[i] = i % 3 == 1 ? 0 : (i % 2) + n;
  if (total > n * p)
    counts[0] -= total - n * p, total = n * p;
  memcpy(res, in, sizeof(int) * ints);
  MPI_Ireduce_scatter(in_place ? MPI_IN_PLACE : in, res, counts, t, op, c,
                      &q[3]);
  wait_save(&q[3]);
  save(res, sizeof(int) * counts[r] * w);
  free(counts), free(in), free(res);
  (void)total;
}

/* Two outstanding on two communicators and two on one, completed in the
 * reverse order; then one Waitall with point-to-point requests. */
static void outstanding(int test) {
  int r, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  int a[64], b[64], c[64], e[64];
  for (int k = 0; k < 64; ++k)
    a[k] = val(test, r, k), b[k] = val(test + 1, r, k);
  MPI_Request q[6];
  MPI_Iallreduce(a, c, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]);
  MPI_Iallreduce(b, e, 64, MPI_INT, MPI_MAX, d, &q[1]);
  wait_save(&q[1]);
  wait_save(&q[0]);
  save(c, sizeof c), save(e, sizeof e);
  /* Same shape twice on one communicator, outstanding together. */
  MPI_Iallreduce(a, c, 64, MPI_INT, MPI_SUM, d, &q[0]);
  MPI_Iallreduce(b, e, 64, MPI_INT, MPI_SUM, d, &q[1]);
  MPI_Status st[6];
  int idx;
  MPI_Waitany(2, q, &idx, &st[0]);
  MPI_Wait(&q[1 - idx], MPI_STATUS_IGNORE);
  save(c, sizeof c), save(e, sizeof e);
  /* A Waitall of a collective and point-to-point requests (a ring). */
  int to = (r + 1) % p, from = (r + p - 1) % p, got[2] = {-1, -1}, sent[2];
  sent[0] = val(test, r, 1), sent[1] = val(test, r, 2);
  MPI_Ibcast(b, 64, MPI_INT, p - 1, d, &q[0]);
  MPI_Irecv(&got[0], 1, MPI_INT, from, 7, MPI_COMM_WORLD, &q[1]);
  MPI_Isend(&sent[0], 1, MPI_INT, to, 7, MPI_COMM_WORLD, &q[2]);
  MPI_Iallgather(&sent[1], 1, MPI_INT, c, 1, MPI_INT, MPI_COMM_WORLD, &q[3]);
  MPI_Irecv(&got[1], 1, MPI_INT, from, 8, d, &q[4]);
  MPI_Isend(&sent[1], 1, MPI_INT, to, 8, d, &q[5]);
  MPI_Waitall(6, q, st);
  save_status(&st[0]), save_status(&st[3]);
  save_p2p_status(&st[1]), save_p2p_status(&st[4]);
  /* (a send's status is undefined) */
  expect_test(got[0] == val(test, from, 1) && got[1] == val(test, from, 2),
              "point-to-point beside collectives", test);
  save(got, sizeof got), save(b, sizeof b), save(c, sizeof(int) * p);
  /* MPI_Cancel of a collective's request is an error. */
  MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Iallreduce(a, c, 64, MPI_INT, MPI_SUM, d, &q[0]);
  int refused = MPI_Cancel(&q[0]) != MPI_SUCCESS;
  expect_test(refused, "MPI_Cancel of a collective request was accepted", test);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  /* So is MPI_Request_free of it (MPI: erroneous); the request stays. */
  MPI_Iallreduce(a, c, 64, MPI_INT, MPI_SUM, d, &q[0]);
  refused = MPI_Request_free(&q[0]) != MPI_SUCCESS;
  expect_test(refused && q[0] != MPI_REQUEST_NULL,
              "MPI_Request_free of a collective request was accepted", test);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  save(c, sizeof c);
  /* The communicator freed with a collective outstanding on it. */
  MPI_Iallreduce(a, c, 64, MPI_INT, MPI_SUM, d, &q[0]);
  MPI_Comm_free(&d);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  save(c, sizeof c);
}

/* Persistent: one request started 100 times (its input changed between
 * starts), the other forms started together by MPI_Startall. */
static void persistent(int test) {
  int r, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int a[16], s[16], acc[16] = {0};
  MPI_Request q;
  MPI_Allreduce_init(a, s, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                     &q);
  for (int it = 0; it < 100; ++it) {
    for (int k = 0; k < 16; ++k)
      a[k] = val(test + it, r, k);
    MPI_Start(&q);
    MPI_Status st;
    if (it % 2)
      MPI_Wait(&q, &st);
    else {
      int flag = 0;
      while (!flag)
        MPI_Test(&q, &flag, &st);
    }
    if (it == 99)
      save_status(&st);
    expect_test(q != MPI_REQUEST_NULL, "a persistent request freed by MPI_Wait",
                test);
    for (int k = 0; k < 16; ++k)
      acc[k] ^= s[k];
  }
  MPI_Request_free(&q);
  save(acc, sizeof acc);
  int n = 3, root = p > 2 ? 2 : 0;
  int *in = malloc(sizeof(int) * n * p), *ag = malloc(sizeof(int) * n * p);
  int *agv = calloc(n * p, sizeof(int)), *bc = malloc(sizeof(int) * n * p);
  int *rd = calloc(n * p, sizeof(int)), *rsb = calloc(n, sizeof(int));
  int *rs = calloc(n * p, sizeof(int)), *counts = malloc(sizeof(int) * p);
  int *displs = malloc(sizeof(int) * p);
  for (int i = 0; i < p; ++i)
    counts[i] = n, displs[i] = (p - 1 - i) * n; /* members reversed */
  MPI_Request qs[6];
  MPI_Allgather_init(in, n, MPI_INT, ag, n, MPI_INT, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &qs[0]);
  MPI_Allgatherv_init(in, n, MPI_INT, agv, counts, displs, MPI_INT,
                      MPI_COMM_WORLD, MPI_INFO_NULL, &qs[1]);
  MPI_Bcast_init(bc, n * p, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                 &qs[2]);
  MPI_Reduce_init(in, rd, n * p, mat == 0 ? MPI_INT : MPI_INT, MPI_SUM, root,
                  MPI_COMM_WORLD, MPI_INFO_NULL, &qs[3]);
  MPI_Reduce_scatter_block_init(in, rsb, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &qs[4]);
  MPI_Reduce_scatter_init(in, rs, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &qs[5]);
  for (int it = 0; it < 3; ++it) {
    for (int k = 0; k < n * p; ++k) {
      in[k] = val(test + 200 + it, r, k);
      bc[k] = r == root ? val(test + 300 + it, r, k) : -1;
    }
    MPI_Startall(6, qs);
    MPI_Status st[6];
    MPI_Waitall(6, qs, st);
    for (int i = 0; i < 6; ++i)
      save_status(&st[i]);
    save(ag, sizeof(int) * n * p), save(agv, sizeof(int) * n * p);
    save(bc, sizeof(int) * n * p), save(rsb, sizeof(int) * n);
    save(rs, sizeof(int) * n);
    if (r == root)
      save(rd, sizeof(int) * n * p);
    for (int k = 0; k < n * p; ++k) {
      expect_test(bc[k] == val(test + 300 + it, root, k), "bcast_init", test);
      expect_test(ag[k] == val(test + 200 + it, k / n, k % n), "allgather_init",
                  test + it);
      expect_test(agv[k] == val(test + 200 + it, p - 1 - k / n, k % n),
                  "allgatherv_init", test + it);
    }
  }
  for (int i = 0; i < 6; ++i)
    MPI_Request_free(&qs[i]);
  free(in), free(ag), free(agv), free(bc), free(rd), free(rsb), free(rs);
  free(counts), free(displs);
}

/* Rank 0 blocks in MPI_Recv from every other rank in turn with an
 * MPI_Iallreduce started; each other rank waits for the allreduce before
 * it sends. On 4 ranks (recursive doubling, halving-doubling) some rank
 * needs what rank 0 sends after its first step, which only progresses
 * inside rank 0's MPI_Recv. (On 5 ranks recursive doubling folds rank 0
 * into rank 1 in its first step: nobody would wait for it.) */
static void blocked_in_recv(MPI_Comm world, int test) {
  int r, p;
  MPI_Comm_rank(world, &r);
  MPI_Comm_size(world, &p);
  int a[32], s[32], x[64];
  for (int k = 0; k < 32; ++k)
    a[k] = val(test, r, k);
  MPI_Request q;
  MPI_Iallreduce(a, s, 32, MPI_INT, MPI_SUM, world, &q);
  MPI_Status st;
  if (r == 0) {
    for (int i = 1; i < p; ++i) {
      MPI_Recv(&x[i], 1, MPI_INT, i, 3, world, &st);
      save_p2p_status(&st);
    }
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 1; i < p; ++i)
      expect_test(x[i] == s[i], "the value a rank sent after the allreduce",
                  test);
  } else {
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Send(&s[r], 1, MPI_INT, 0, 3, world);
  }
  save(s, sizeof s);
  /* The same with MPI_Probe and MPI_Sendrecv as the blocking calls. */
  MPI_Iallreduce(a, s, 32, MPI_INT, MPI_MAX, world, &q);
  if (r == 0) {
    for (int i = 1; i < p; ++i) {
      MPI_Probe(i, 4, world, &st);
      save_p2p_status(&st);
      MPI_Recv(&x[i], 1, MPI_INT, i, 4, world, &st);
    }
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 1; i < p; ++i)
      expect_test(x[i] == s[i], "the value a rank sent after the allreduce",
                  test);
  } else {
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    int y = -1;
    MPI_Sendrecv(&s[r], 1, MPI_INT, 0, 4, &y, 0, MPI_INT, MPI_PROC_NULL, 0,
                 world, &st);
  }
  save(s, sizeof s);
  /* Rank 0 makes the first call of a new shape (collective inside the
   * call: the library builds its plan there) while the others wait for
   * the allreduce it started before; they start it late, so that rank 0
   * enters the new call with its first step still in flight. */
  int b[7];
  for (int k = 0; k < 7; ++k)
    b[k] = r == 0 ? val(test + 1, 0, k) : -1;
  MPI_Request q2;
  if (r != 0)
    usleep(300000);
  MPI_Iallreduce(a, s, 32, MPI_INT, MPI_SUM, world, &q);
  if (r == 0) {
    MPI_Ibcast(b, 7, MPI_INT, 0, world, &q2);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ibcast(b, 7, MPI_INT, 0, world, &q2);
  }
  MPI_Wait(&q2, MPI_STATUS_IGNORE);
  for (int k = 0; k < 7; ++k)
    expect_test(b[k] == val(test + 1, 0, k), "ibcast after a started allreduce",
                test);
  save(s, sizeof s), save(b, sizeof b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  alarm(120);
  int p;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 2) {
    if (me == 0)
      fprintf(stderr, "usage: pmpi_nonblock DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  open_results(argv[1]);
  MPI_Type_contiguous(4, MPI_INT, &mat);
  MPI_Type_commit(&mat);
  MPI_Op_create(matmul, 0, &matop);
  MPI_Datatype every_other;
  MPI_Type_vector(40, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);

  iallgather(MPI_COMM_WORLD, 1, 5, 0);
  iallgather(MPI_COMM_WORLD, 2, 3, 1);
  iallgatherv(MPI_COMM_WORLD, 3, 0);
  iallgatherv(MPI_COMM_WORLD, 4, 1);
  ibcast(MPI_COMM_WORLD, 5, 1000, p - 1, MPI_INT);
  ibcast(MPI_COMM_WORLD, 6, 40, 1 % p, every_other);
  ireductions(MPI_COMM_WORLD, 7, 6, p - 1, 0, 0);
  ireductions(MPI_COMM_WORLD, 8, 6, 1 % p, 1, 0);
  ireductions(MPI_COMM_WORLD, 9, 2, p - 1, 0, 1);
  ireductions(MPI_COMM_WORLD, 10, 2, 1 % p, 1, 1);
  outstanding(20);
  persistent(30);
  MPI_Comm four;
  MPI_Comm_split(MPI_COMM_WORLD, me < 4, me, &four);
  if (me < 4)
    blocked_in_recv(four, 40);
  MPI_Comm_free(&four);

  fclose(out);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(total ? "pmpi_nonblock: FAILED (%d failures)\n"
                 : "pmpi_nonblock: passed\n",
           total);
  MPI_Op_free(&matop);
  MPI_Type_free(&mat);
  MPI_Type_free(&every_other);
  MPI_Finalize();
  return total != 0;
}
