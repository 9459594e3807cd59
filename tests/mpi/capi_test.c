/*===- tests/mpi/capi_test.c - The C interface in a real MPI job ----------===*/
/*
 * mpiexec -n 8 capi_test KANG.json BRUCK.json: KANG is inter-allgather-kang
 * with p = 6, q = 2 and 1 KiB per member, BRUCK allgather-bruck with p = 8
 * and 100 bytes per rank. Checks, on every rank:
 *  1. a plan on an intercommunicator (A = world 0..5, B = 6..7) runs twice
 *     and leaves every receive buffer with the other group's bytes;
 *  2. a receive buffer too small on one rank (world 7) makes every rank's
 *     choreo_plan_create fail with that rank's message, and nobody hangs;
 *  3. an intercommunicator whose groups do not match the schedule (4 + 4)
 *     is refused on every rank;
 *  4. the Fortran entry point (MPI_Fint communicator) works;
 *  5. MPI_Allgatherv-style receive displacements (members stored in reverse
 *     order, with gaps) on an intracommunicator;
 *  6. on the intercommunicator, a schedule that does not verify (proved on
 *     world rank 0 only) and a file that does not exist are refused on
 *     every rank with the same message, and nobody hangs;
 *  7. (with a third file, an 8-rank recursive-doubling allreduce of 4-byte
 *     ints, whose combines join adjacent rank intervals) the reduction runs
 *     with MPI_SUM, and with a user operator that is not commutative
 *     ("keep the left operand") it is accepted and leaves rank 0's vector
 *     on every rank: the operands in rank order;
 *  8. (with a fourth file, KANG with ranks 6 and 7 exchanged, so that group
 *     B lists its members out of rank order) the plan on the
 *     intercommunicator plays each process's member of its group, reads
 *     the right ops and leaves the same results as check 1;
 *  9. a started run overlapped with computation (choreo_plan_start, then
 *     compute and choreo_plan_test until done) gives BRUCK's result; a
 *     second start while it runs is refused (CHOREO_ERR_ARG); two plans
 *     (BRUCK and KANG) outstanding at once complete in the other order
 *     (choreo_plan_wait on the second, tests on the first); a plan not
 *     running tests done; freeing a running plan waits for its run;
 * 10. (with a fifth file, bcast-flat with p = 8 and 100 bytes) the
 *     flow-control threshold of choreo_plan_create_with: the root's run
 *     waits for receivers 0.3 s late only with it; different thresholds
 *     and a too small options struct are refused on every rank.
 * Rank 0 prints "capi_test: passed" when every check held on every rank.
 */
#include "executor/choreo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { P = 6, Q = 2, K = 1024 };

static char pattern(int buffer, size_t x) {
  return (char)((x * 131 + (x >> 8) * 7 + buffer * 89 + 17) & 0xFF);
}

static int failures = 0;

/* A non-commutative (but associative) operator: keeps the left operand. */
static void first_of_two(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  memcpy(inout, in, (size_t)*len * sizeof(int));
}

static void expect(int ok, int rank, const char *what) {
  if (!ok) {
    fprintf(stderr, "capi_test: rank %d: %s\n", rank, what);
    ++failures;
  }
}

/* An intercommunicator of world ranks [0, split) and [split, size). */
static MPI_Comm make_inter(int split, MPI_Comm *local) {
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int in_a = me < split;
  MPI_Comm_split(MPI_COMM_WORLD, in_a ? 0 : 1, me, local);
  MPI_Comm inter;
  MPI_Intercomm_create(*local, 0, MPI_COMM_WORLD, in_a ? split : 0, 5, &inter);
  return inter;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || argc > 6 || size != P + Q) {
    if (me == 0)
      fprintf(stderr, "usage: mpiexec -n 8 capi_test KANG.json BRUCK.json "
                      "[ALLREDUCE.json [KANG-B-PERMUTED.json [FLAT.json]]]\n");
    MPI_Finalize();
    return 2;
  }
  const char *file = argv[1];
  int in_a = me < P;
  /* This rank's contribution: member me of A (buffer 0) or me - P of B. */
  char send[K];
  size_t base = in_a ? (size_t)me * K : (size_t)(me - P) * K;
  for (size_t x = 0; x < K; ++x)
    send[x] = pattern(in_a ? 0 : 1, base + x);
  size_t recv_len = in_a ? (size_t)Q * K : (size_t)P * K;
  char *recv = malloc(recv_len);

  MPI_Comm local;
  MPI_Comm inter = make_inter(P, &local);

  /* 1. Runs, twice. */
  choreo_buffers b;
  choreo_buffers_init(&b);
  b.sendbuf = send;
  b.sendbytes = K;
  b.recvbuf = recv;
  b.recvbytes = recv_len;
  choreo_plan plan = NULL;
  int rc = choreo_plan_create(file, inter, &b, &plan);
  expect(rc == CHOREO_OK, me, choreo_last_error());
  for (int run = 0; run < 2 && rc == CHOREO_OK; ++run) {
    memset(recv, 0xEE, recv_len);
    expect(choreo_plan_execute(plan) == CHOREO_OK, me, choreo_last_error());
    for (size_t x = 0; x < recv_len; ++x)
      if (recv[x] != pattern(in_a ? 1 : 0, x)) {
        expect(0, me, "wrong byte in the receive buffer");
        break;
      }
  }
  choreo_plan_free(&plan);
  expect(plan == NULL, me, "choreo_plan_free did not clear the handle");

  /* 2. One rank's receive buffer is too small: every rank refuses. */
  b.recvbytes = me == 7 ? 100 : recv_len;
  rc = choreo_plan_create(file, inter, &b, &plan);
  expect(rc == CHOREO_ERR_PLAN, me, "a too small buffer was accepted");
  expect(strstr(choreo_last_error(),
                "rank 7: the receive buffer holds 100 bytes but buffer A "
                "needs 6144") != NULL,
         me, choreo_last_error());
  b.recvbytes = recv_len;

  /* 3. Groups of 4 + 4 for a 6 + 2 schedule: refused everywhere. */
  MPI_Comm local44;
  MPI_Comm inter44 = make_inter(4, &local44);
  rc = choreo_plan_create(file, inter44, &b, &plan);
  expect(rc == CHOREO_ERR_PLAN, me, "mismatched groups were accepted");
  expect(strstr(choreo_last_error(),
                "the intercommunicator's groups have 4 (A, the low group) "
                "and 4 (B) ranks but the schedule's have 6 and 2") != NULL,
         me, choreo_last_error());

  /* 4. The Fortran entry point. */
  rc = choreo_plan_create_f(file, MPI_Comm_c2f(inter), send, K, recv,
                            (long long)recv_len, &plan);
  expect(rc == CHOREO_OK, me, choreo_last_error());
  if (rc == CHOREO_OK) {
    memset(recv, 0xEE, recv_len);
    expect(choreo_plan_execute(plan) == CHOREO_OK, me, choreo_last_error());
    expect(recv[recv_len - 1] == pattern(in_a ? 1 : 0, recv_len - 1), me,
           "the Fortran entry point's plan gave a wrong result");
  }
  choreo_plan_free(&plan);

  /* 5. Reversed members with 28-byte gaps: member i at (7 - i) * 128. */
  {
    enum { N = 8, C = 100, STRIDE = 128 };
    char mine[C], *all = malloc(N * STRIDE);
    size_t displs[N];
    for (int i = 0; i < N; ++i)
      displs[i] = (size_t)(N - 1 - i) * STRIDE;
    for (size_t x = 0; x < C; ++x)
      mine[x] = pattern(0, (size_t)me * C + x);
    choreo_buffers v;
    choreo_buffers_init(&v);
    v.sendbuf = mine;
    v.sendbytes = C;
    v.recvbuf = all;
    v.recvbytes = N * STRIDE;
    v.recv_displs = displs;
    v.n_recv_displs = N;
    rc = choreo_plan_create(argv[2], MPI_COMM_WORLD, &v, &plan);
    expect(rc == CHOREO_OK, me, choreo_last_error());
    if (rc == CHOREO_OK) {
      memset(all, 0xEE, N * STRIDE);
      expect(choreo_plan_execute(plan) == CHOREO_OK, me, choreo_last_error());
      for (int i = 0; i < N; ++i) {
        for (size_t x = 0; x < C; ++x)
          if (all[displs[i] + x] != pattern(0, (size_t)i * C + x)) {
            expect(0, me, "wrong byte with displacements");
            i = N;
            break;
          }
        if (i < N)
          for (size_t x = C; x < STRIDE; ++x)
            if (all[displs[i] + x] != (char)0xEE) {
              expect(0, me, "a gap between members was written");
              i = N;
              break;
            }
      }
    }
    choreo_plan_free(&plan);
    free(all);
  }

  /* 6. Refusals agreed over the intercommunicator's two groups. */
  {
    const char *bad = "capi-unproved.json";
    if (me == 0) {
      FILE *f = fopen(bad, "w");
      fprintf(f, "{\"format\": \"choreo-schedule\", \"version\": 1, "
                 "\"collective\": \"inter_allgather\", \"ranks\": 8, "
                 "\"groups\": {\"A\": [0, 1, 2, 3, 4, 5], \"B\": [6, 7]}, "
                 "\"sizes\": {\"A\": [1024, 1024, 1024, 1024, 1024, 1024], "
                 "\"B\": [1024, 1024]}, \"steps\": []}\n");
      fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    rc = choreo_plan_create(bad, inter, &b, &plan);
    expect(rc == CHOREO_ERR_PLAN, me, "an unproved schedule was accepted");
    expect(strstr(choreo_last_error(),
                  "the schedule does not verify; it is not run:\n"
                  "error: with no steps: rank 0 lacks B[0,2048)") != NULL,
           me, choreo_last_error());
    expect(plan == NULL, me, "a refused plan left a handle");
    rc = choreo_plan_create("capi-does-not-exist.json", inter, &b, &plan);
    expect(rc == CHOREO_ERR_PLAN, me, "a missing file was accepted");
    expect(strstr(choreo_last_error(),
                  "cannot open capi-does-not-exist.json") != NULL,
           me, choreo_last_error());
  }

  /* 7. Reductions: MPI_SUM, and a non-commutative operator in rank order. */
  if (argc >= 4) {
    int n = 16, vec[16], res[16];
    for (int i = 0; i < n; ++i)
      vec[i] = (me + 1) * 100 + i;
    choreo_buffers r;
    choreo_buffers_init(&r);
    r.sendbuf = vec;
    r.sendbytes = sizeof vec;
    r.recvbuf = res;
    r.recvbytes = sizeof res;
    r.reduce_type = MPI_INT;
    r.reduce_op = MPI_SUM;
    rc = choreo_plan_create(argv[3], MPI_COMM_WORLD, &r, &plan);
    expect(rc == CHOREO_OK, me, choreo_last_error());
    if (rc == CHOREO_OK) {
      expect(choreo_plan_execute(plan) == CHOREO_OK, me, choreo_last_error());
      for (int i = 0; i < n; ++i)
        if (res[i] != 100 * (P + Q) * (P + Q + 1) / 2 + (P + Q) * i) {
          expect(0, me, "wrong allreduce result");
          break;
        }
    }
    choreo_plan_free(&plan);
    MPI_Op noncomm;
    MPI_Op_create(first_of_two, /*commute=*/0, &noncomm);
    r.reduce_op = noncomm;
    rc = choreo_plan_create(argv[3], MPI_COMM_WORLD, &r, &plan);
    expect(rc == CHOREO_OK, me, choreo_last_error());
    if (rc == CHOREO_OK) {
      expect(choreo_plan_execute(plan) == CHOREO_OK, me, choreo_last_error());
      for (int i = 0; i < n; ++i)
        if (res[i] != 100 + i) {
          expect(0, me, "a non-commutative allreduce combined out of rank "
                        "order (not rank 0's vector)");
          break;
        }
    }
    choreo_plan_free(&plan);
    MPI_Op_free(&noncomm);
  }

  /* 8. Group B out of rank order on the intercommunicator. */
  if (argc >= 5) {
    rc = choreo_plan_create(argv[4], inter, &b, &plan);
    expect(rc == CHOREO_OK, me, choreo_last_error());
    if (rc == CHOREO_OK) {
      memset(recv, 0xEE, recv_len);
      expect(choreo_plan_execute(plan) == CHOREO_OK, me, choreo_last_error());
      for (size_t x = 0; x < recv_len; ++x)
        if (recv[x] != pattern(in_a ? 1 : 0, x)) {
          expect(0, me, "wrong byte with group B out of rank order");
          break;
        }
    }
    choreo_plan_free(&plan);
  }

  /* 9. Start, compute, test until done. */
  {
    enum { N = 8, C = 100 };
    char mine[C], all[N * C];
    for (size_t x = 0; x < C; ++x)
      mine[x] = pattern(2, (size_t)me * C + x);
    choreo_buffers v;
    choreo_buffers_init(&v);
    v.sendbuf = mine;
    v.sendbytes = C;
    v.recvbuf = all;
    v.recvbytes = sizeof all;
    choreo_plan bruck = NULL, kang = NULL;
    rc = choreo_plan_create(argv[2], MPI_COMM_WORLD, &v, &bruck);
    expect(rc == CHOREO_OK, me, choreo_last_error());
    int rc2 = choreo_plan_create(file, inter, &b, &kang);
    expect(rc2 == CHOREO_OK, me, choreo_last_error());
    if (rc == CHOREO_OK && rc2 == CHOREO_OK) {
      int done = 0;
      expect(choreo_plan_test(bruck, &done) == CHOREO_OK && done == 1, me,
             "a plan not running did not test done");
      for (int run = 0; run < 3; ++run) {
        memset(all, 0xEE, sizeof all);
        expect(choreo_plan_start(bruck) == CHOREO_OK, me, choreo_last_error());
        if (run == 0) {
          expect(choreo_plan_start(bruck) == CHOREO_ERR_ARG, me,
                 "a second start of a running plan was accepted");
          expect(strstr(choreo_last_error(), "already running") != NULL, me,
                 choreo_last_error());
        }
        /* Compute while the messages travel. */
        volatile double acc = 0;
        long tests = 0;
        done = 0;
        while (!done) {
          for (int i = 0; i < 1000; ++i)
            acc += i * 0.5;
          expect(choreo_plan_test(bruck, &done) == CHOREO_OK, me,
                 choreo_last_error());
          ++tests;
        }
        if (me == 0 && run == 0)
          printf("capi_test: a started run took %ld tests\n", tests);
        for (size_t x = 0; x < sizeof all; ++x)
          if (all[x] != pattern(2, x)) {
            expect(0, me, "wrong byte after start and tests");
            break;
          }
      }
      /* Two outstanding; the second waited for first. */
      memset(all, 0xEE, sizeof all);
      memset(recv, 0xEE, recv_len);
      expect(choreo_plan_start(bruck) == CHOREO_OK, me, choreo_last_error());
      expect(choreo_plan_start(kang) == CHOREO_OK, me, choreo_last_error());
      expect(choreo_plan_wait(kang) == CHOREO_OK, me, choreo_last_error());
      int done2 = 0;
      while (!done2)
        expect(choreo_plan_test(bruck, &done2) == CHOREO_OK, me,
               choreo_last_error());
      for (size_t x = 0; x < recv_len; ++x)
        if (recv[x] != pattern(in_a ? 1 : 0, x)) {
          expect(0, me, "wrong byte of the second outstanding plan");
          break;
        }
      for (size_t x = 0; x < sizeof all; ++x)
        if (all[x] != pattern(2, x)) {
          expect(0, me, "wrong byte of the first outstanding plan");
          break;
        }
      expect(choreo_plan_wait(kang) == CHOREO_OK, me,
             "waiting for a plan not running failed");
      /* Freed while running: the run completes first. */
      memset(all, 0xEE, sizeof all);
      expect(choreo_plan_start(bruck) == CHOREO_OK, me, choreo_last_error());
    }
    choreo_plan_free(&bruck);
    choreo_plan_free(&kang);
    for (size_t x = 0; x < sizeof all && rc == CHOREO_OK; ++x)
      if (all[x] != pattern(2, x)) {
        expect(0, me, "freeing a running plan did not complete its run");
        break;
      }
    expect(choreo_plan_start(NULL) == CHOREO_ERR_ARG, me,
           "a null plan was started");
  }

  /* 10. The flow-control threshold (choreo_plan_options): FLAT's root
   * (world 0) only sends, 100 bytes to each rank in turn. Every other rank
   * enters the run 0.3 s late. Without flow control the root's eager sends
   * complete at once; with a threshold of 1 byte its first send waits for
   * world 1's clear-to-send, so its run takes the 0.3 s. The result is the
   * root's bytes either way. Ranks given different thresholds, and options
   * whose struct_size is too small, are refused on every rank. */
  if (argc == 6) {
    char vec[100];
    choreo_buffers f;
    choreo_buffers_init(&f);
    f.recvbuf = vec;
    f.recvbytes = sizeof vec;
    choreo_plan_options o;
    choreo_plan_options_init(&o);
    expect(o.struct_size == sizeof o && o.flow_control_bytes == 0, me,
           "choreo_plan_options_init did not set the defaults");
    for (int gated = 0; gated < 2; ++gated) {
      o.flow_control_bytes = gated ? 1 : 0;
      for (size_t x = 0; x < sizeof vec; ++x)
        vec[x] = me == 0 ? pattern(3, x) : 0;
      rc = choreo_plan_create_with(argv[5], MPI_COMM_WORLD, &f, &o, &plan);
      expect(rc == CHOREO_OK, me, choreo_last_error());
      if (rc != CHOREO_OK)
        continue;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (me != 0) {
        while (MPI_Wtime() - t0 < 0.3)
          usleep(1000);
      }
      expect(choreo_plan_execute(plan) == CHOREO_OK, me, choreo_last_error());
      double took = MPI_Wtime() - t0;
      if (me == 0 && gated)
        expect(took >= 0.25, me,
               "with flow control the root did not wait for its receivers");
      if (me == 0 && !gated)
        expect(took < 0.15, me, "without flow control the root waited");
      for (size_t x = 0; x < sizeof vec; ++x)
        if (vec[x] != pattern(3, x)) {
          expect(0, me, "wrong broadcast result");
          break;
        }
      choreo_plan_free(&plan);
    }
    o.flow_control_bytes = me == 3 ? 64 : 1;
    rc = choreo_plan_create_with(argv[5], MPI_COMM_WORLD, &f, &o, &plan);
    expect(rc == CHOREO_ERR_PLAN, me, "different thresholds were accepted");
    expect(strstr(choreo_last_error(),
                  "different flow-control thresholds") != NULL,
           me, choreo_last_error());
    expect(plan == NULL, me, "a refused plan left a handle");
    o.struct_size = sizeof(size_t);
    rc = choreo_plan_create_with(argv[5], MPI_COMM_WORLD, &f, &o, &plan);
    expect(rc == CHOREO_ERR_ARG &&
               strstr(choreo_last_error(), "options.struct_size") != NULL,
           me, "a too small options.struct_size was accepted");
    /* NULL options: the defaults. */
    rc = choreo_plan_create_with(argv[5], MPI_COMM_WORLD, &f, NULL, &plan);
    expect(rc == CHOREO_OK, me, choreo_last_error());
    choreo_plan_free(&plan);
  }

  int all = failures;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "capi_test: FAILED (%d)\n" : "capi_test: passed\n", all);
  MPI_Comm_free(&inter44);
  MPI_Comm_free(&local44);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  free(recv);
  MPI_Finalize();
  return all ? 1 : 0;
}
