/*===- tests/pmpi/pmpi_rooted.c - Gather, scatter and barrier in an app
 * ----===*/
/*
 * mpiexec -n 5 pmpi_rooted OUTDIR: an unmodified MPI application calling
 * MPI_Gather, MPI_Gatherv, MPI_Scatter, MPI_Scatterv and MPI_Barrier as an
 * application would; it knows nothing of choreo. Run with and without
 * LD_PRELOAD=libchoreo-mpi.so (tests/pmpi/run-app.sh): every rank checks its
 * results against the values the call must produce and writes them to
 * OUTDIR/rank<R>.bin, compared bit for bit between the runs.
 *
 *  1. MPI_Gather and MPI_Scatter of 1, 7 and 1000 ints from every root,
 *     with MPI_IN_PLACE at the root, repeated (cached plans rebound);
 *  2. MPI_Gatherv and MPI_Scatterv with irregular counts (zeros among them)
 *     and displacements in reverse order with gaps, from every root, in
 *     and out of place;
 *  3. the root's buffer of every member as a strided vector type (every
 *     other int) and a member's as a resized type: packed copies;
 *  4. MPI_Barrier: each rank in turn arrives 50 ms late, and every other
 *     rank must stay in the barrier at least 25 ms (a trial is retried once,
 *     so that a rank descheduled before it enters does not fail it);
 *  5. a communicator of the odd ranks (2 ranks) and of ranks 0, 2, 4 (3, not
 *     a power of two), and MPI_COMM_SELF.
 * `pmpi_rooted mismatch` (tests/pmpi/rooted_robust.sh): a root whose counts
 * are not the members'.
 * Rank 0 prints "pmpi_rooted: passed" when every check held on every rank.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_rooted"
#include "pmpi_test_util.h"

static int val(int test, int rank, int i) {
  return test * 1000003 + rank * 7919 + i * 31 + (i >> 3);
}

static void gather(MPI_Comm c, int test, int n, int root, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int *send = malloc(sizeof(int) * (size_t)(n + 1));
  int *recv = malloc(sizeof(int) * (size_t)(n * p + 1));
  for (int i = 0; i < n; ++i)
    send[i] = val(test, r, i);
  for (int i = 0; i < n * p + 1; ++i)
    recv[i] = -1;
  int ip = in_place && r == root;
  if (ip)
    memcpy(recv + r * n, send, sizeof(int) * (size_t)n);
  check_rc(MPI_Gather(ip ? MPI_IN_PLACE : send, n, MPI_INT, recv, n, MPI_INT,
                      root, c),
           "MPI_Gather");
  if (r == root) {
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < n; ++i)
        expect(recv[s * n + i] == val(test, s, i), "gather", test, s);
    expect(recv[n * p] == -1, "gather past the end", test, n);
  } else {
    expect(recv[0] == -1, "gather: a non-root's buffer was written", test, r);
  }
  save(recv, sizeof(int) * (size_t)(n * p + 1));
  free(send);
  free(recv);
}

static void scatter(MPI_Comm c, int test, int n, int root, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int *send = malloc(sizeof(int) * (size_t)(n * p + 1));
  int *recv = malloc(sizeof(int) * (size_t)(n + 1));
  for (int s = 0; s < p; ++s)
    for (int i = 0; i < n; ++i)
      send[s * n + i] = r == root ? val(test, s, i) : -2;
  for (int i = 0; i < n + 1; ++i)
    recv[i] = -1;
  int ip = in_place && r == root;
  check_rc(MPI_Scatter(send, n, MPI_INT, ip ? MPI_IN_PLACE : recv, n, MPI_INT,
                       root, c),
           "MPI_Scatter");
  const int *mine = ip ? send + r * n : recv;
  for (int i = 0; i < n; ++i)
    expect(mine[i] == val(test, r, i), "scatter", test, i);
  expect(recv[n] == -1 && (!ip || recv[0] == -1), "scatter past the end", test,
         n);
  if (r == root) /* the root's send buffer is never written */
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < n; ++i)
        expect(send[s * n + i] == val(test, s, i), "scatter sendbuf", test, s);
  save(recv, sizeof(int) * (size_t)(n + 1));
  save(send, sizeof(int) * (size_t)(n * p));
  free(send);
  free(recv);
}

/* Irregular counts (member 1 has none), displacements in reverse member
 * order with gaps of 2. Returns the buffer length. */
static int layout(int test, int p, int *counts, int *displs) {
  int at = p == 1 ? 0 : 2;
  for (int s = p - 1; s >= 0; --s) {
    counts[s] = s == 1 ? 0 : (s * 37 + test) % 11 + 1;
    displs[s] = at;
    at += counts[s] + 2;
  }
  return at;
}

static void gatherv(MPI_Comm c, int test, int root, int in_place) {
  int r, p, counts[64], displs[64];
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int len = layout(test, p, counts, displs);
  int *send = malloc(sizeof(int) * 16), *recv = malloc(sizeof(int) * len);
  for (int i = 0; i < counts[r]; ++i)
    send[i] = val(test, r, i);
  for (int i = 0; i < len; ++i)
    recv[i] = -1;
  int ip = in_place && r == root;
  if (ip)
    memcpy(recv + displs[r], send, sizeof(int) * (size_t)counts[r]);
  /* recvcounts and displs only at the root, as MPI allows. */
  check_rc(MPI_Gatherv(ip ? MPI_IN_PLACE : send, counts[r], MPI_INT, recv,
                       r == root ? counts : NULL, r == root ? displs : NULL,
                       MPI_INT, root, c),
           "MPI_Gatherv");
  if (r == root) {
    for (int s = 0; s < p; ++s) {
      for (int i = 0; i < counts[s]; ++i)
        expect(recv[displs[s] + i] == val(test, s, i), "gatherv", test, s);
      if (displs[s] > 0)
        expect(recv[displs[s] - 1] == -1, "gatherv gap", test, s);
    }
  }
  save(recv, sizeof(int) * (size_t)len);
  free(send);
  free(recv);
}

static void scatterv(MPI_Comm c, int test, int root, int in_place) {
  int r, p, counts[64], displs[64];
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int len = layout(test, p, counts, displs);
  int *send = malloc(sizeof(int) * len), *recv = malloc(sizeof(int) * 16);
  for (int i = 0; i < len; ++i)
    send[i] = -3;
  if (r == root)
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < counts[s]; ++i)
        send[displs[s] + i] = val(test, s, i);
  for (int i = 0; i < 16; ++i)
    recv[i] = -1;
  int ip = in_place && r == root;
  check_rc(MPI_Scatterv(send, r == root ? counts : NULL,
                        r == root ? displs : NULL, MPI_INT,
                        ip ? MPI_IN_PLACE : recv, counts[r], MPI_INT, root, c),
           "MPI_Scatterv");
  const int *mine = ip ? send + displs[r] : recv;
  for (int i = 0; i < counts[r]; ++i)
    expect(mine[i] == val(test, r, i), "scatterv", test, i);
  expect(recv[counts[r]] == -1, "scatterv past the end", test, r);
  save(recv, sizeof(int) * 16);
  free(send);
  free(recv);
}

/* The root's buffer of every member as every other int (a vector type of
 * n ints, stride 2, resized to 2n ints); a member's own data as a resized
 * type of one int with extent 2 ints: both through packed copies. */
static void strided(MPI_Comm c, int test, int n, int root) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  MPI_Datatype vec, vecr, one;
  MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * n * sizeof(int)), &vecr);
  MPI_Type_commit(&vecr);
  MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)(2 * sizeof(int)), &one);
  MPI_Type_commit(&one);
  int *all = malloc(sizeof(int) * (size_t)(2 * n * p));
  int *mine = malloc(sizeof(int) * (size_t)(2 * n));
  /* Gather: members send n ints of type `one` (every other int). */
  for (int i = 0; i < 2 * n; ++i)
    mine[i] = i % 2 ? -4 : val(test, r, i / 2);
  for (int i = 0; i < 2 * n * p; ++i)
    all[i] = -1;
  check_rc(MPI_Gather(mine, n, one, all, 1, vecr, root, c),
           "MPI_Gather (types)");
  if (r == root)
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < 2 * n; ++i)
        expect(all[2 * n * s + i] == (i % 2 ? -1 : val(test, s, i / 2)),
               "gather (types)", s, i);
  save(all, sizeof(int) * (size_t)(2 * n * p));
  /* Scatter it back, shifted by one test. */
  for (int s = 0; s < p; ++s)
    for (int i = 0; i < 2 * n; ++i)
      all[2 * n * s + i] = i % 2 ? -5 : val(test + 1, s, i / 2);
  for (int i = 0; i < 2 * n; ++i)
    mine[i] = -1;
  check_rc(MPI_Scatter(all, 1, vecr, mine, n, one, root, c),
           "MPI_Scatter (types)");
  for (int i = 0; i < 2 * n; ++i)
    expect(mine[i] == (i % 2 ? -1 : val(test + 1, r, i / 2)), "scatter (types)",
           r, i);
  save(mine, sizeof(int) * (size_t)(2 * n));
  MPI_Type_free(&vec);
  MPI_Type_free(&vecr);
  MPI_Type_free(&one);
  free(all);
  free(mine);
}

/* Each rank in turn arrives 50 ms late: nobody may leave before it. */
static void barrier(MPI_Comm c, int test) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int passed = 0;
  for (int late = 0; late < p; ++late) {
    int early = 1;
    double stayed = 0;
    for (int try = 0; try < 2 && early; ++try) {
      PMPI_Barrier(c); /* start together, outside the library */
      if (r == late)
        usleep(50000);
      double t0 = MPI_Wtime();
      check_rc(MPI_Barrier(c), "MPI_Barrier");
      stayed = MPI_Wtime() - t0;
      int mine = r != late && stayed < 0.025;
      MPI_Allreduce(&mine, &early, 1, MPI_INT, MPI_MAX, c);
    }
    expect(r == late || stayed >= 0.025, "left the barrier early", late,
           (int)(stayed * 1e3));
    passed += !early;
  }
  for (int i = 0; i < 20; ++i) /* steady state */
    check_rc(MPI_Barrier(c), "MPI_Barrier");
  int rec[2] = {test, passed};
  save(rec, sizeof rec);
}

/* `pmpi_rooted mismatch`: the root's counts are not what the members pass
 * (erroneous in MPI): with the library every rank's call must fail, naming
 * the call (MPI_Gatherv, MPI_Scatterv, then MPI_Igatherv and MPI_Iscatterv,
 * whose MPI_Wait fails); prints "rank R: error: ..." or "rank R: ok" per
 * call. */
static int mismatch(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int p, counts[64], displs[64], buf[256] = {0};
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  for (int s = 0; s < p; ++s) {
    counts[s] = s == 1 ? 3 : 2; /* rank 1 sends (receives) 2 */
    displs[s] = 4 * s;
  }
  for (int call = 0; call < 4; ++call) {
    MPI_Request q = MPI_REQUEST_NULL;
    int rc = call == 0 ? MPI_Gatherv(buf, 2, MPI_INT, buf + 8, counts, displs,
                                     MPI_INT, 0, MPI_COMM_WORLD)
             : call == 1
                 ? MPI_Scatterv(buf, counts, displs, MPI_INT, buf + 8, 2,
                                MPI_INT, 0, MPI_COMM_WORLD)
             /* the started forms: the error comes with the request */
             : call == 2 ? MPI_Igatherv(buf, 2, MPI_INT, buf + 8, counts,
                                        displs, MPI_INT, 0, MPI_COMM_WORLD, &q)
                         : MPI_Iscatterv(buf, counts, displs, MPI_INT, buf + 8,
                                         2, MPI_INT, 0, MPI_COMM_WORLD, &q);
    if (rc == MPI_SUCCESS && q != MPI_REQUEST_NULL)
      rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
      MPI_Error_string(rc, msg, &len);
    printf(rc == MPI_SUCCESS ? "rank %d: ok\n" : "rank %d: error: %s\n", me,
           msg);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc == 2 && strcmp(argv[1], "mismatch") == 0)
    return mismatch();
  if (argc != 2 || p != 5) {
    if (me == 0)
      fprintf(stderr, "usage: mpiexec -n 5 pmpi_rooted OUTDIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  open_results(argv[1]);
  for (int rep = 0; rep < 2; ++rep) /* steady state and rebinding */
    for (int root = 0; root < p; ++root) {
      gather(MPI_COMM_WORLD, 1, 1, root, 0);
      gather(MPI_COMM_WORLD, 2, 7, root, rep);
      gather(MPI_COMM_WORLD, 3, 1000, root, 1);
      scatter(MPI_COMM_WORLD, 4, 1, root, 0);
      scatter(MPI_COMM_WORLD, 5, 7, root, rep);
      scatter(MPI_COMM_WORLD, 6, 1000, root, 1);
      gatherv(MPI_COMM_WORLD, 7 + root, root, rep);
      scatterv(MPI_COMM_WORLD, 17 + root, root, rep);
    }
  strided(MPI_COMM_WORLD, 30, 5, 3);
  strided(MPI_COMM_WORLD, 32, 1, 0);
  barrier(MPI_COMM_WORLD, 40);
  MPI_Comm odd, even;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &odd);
  if (me % 2 == 0) {
    even = odd; /* ranks 0, 2, 4 */
    gatherv(even, 50, 2, 0);
    scatterv(even, 51, 1, 1);
    gather(even, 52, 9, 1, 0);
    scatter(even, 53, 9, 2, 0);
    barrier(even, 54);
  } else {
    gather(odd, 60, 3, 1, 0);
    scatterv(odd, 61, 0, 0);
    barrier(odd, 62);
  }
  MPI_Comm_free(&odd);
  gather(MPI_COMM_SELF, 70, 4, 0, 0);
  scatterv(MPI_COMM_SELF, 71, 0, 1);
  check_rc(MPI_Barrier(MPI_COMM_SELF), "MPI_Barrier (self)");
  fclose(out);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(total ? "pmpi_rooted: FAILED (%d failures)\n"
                 : "pmpi_rooted: passed\n",
           total);
  MPI_Finalize();
  return total ? 1 : 0;
}
