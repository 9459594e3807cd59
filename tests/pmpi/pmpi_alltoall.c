/*===- tests/pmpi/pmpi_alltoall.c - An application calling alltoall(v) ----===*/
/*
 * mpiexec -n N pmpi_alltoall OUTDIR: MPI_Alltoall and MPI_Alltoallv as an
 * application calls them, knowing nothing of choreo. Run with and without
 * LD_PRELOAD=libchoreo-mpi.so; every rank checks every value it receives
 * and writes its receive buffers to OUTDIR/rank<R>.bin, which
 * tests/pmpi/run-app.sh compares bit for bit between the runs.
 *
 *  1. MPI_Alltoall of 1, 13 and 3000 ints, three times on fresh buffers
 *     (a cached plan rebound), and MPI_IN_PLACE;
 *  2. MPI_Alltoallv with irregular counts (zeros among them, a skewed rank
 *     that sends much more), displacements in reverse order with gaps on
 *     both sides (the gaps must stay untouched), MPI_IN_PLACE (a symmetric
 *     matrix), and all counts zero;
 *  3. derived datatypes: the send side a strided vector, the receive side
 *     contiguous ints (one signature, two type maps), and on odd ranks the
 *     other way round;
 *  4. a communicator of the ranks but the last (not a power of two when N
 *     is 5), MPI_COMM_SELF, and MPI_COMM_WORLD's ranks in reverse order
 *     calling 2.'s first MPI_Alltoallv by their new ranks (the same counts
 *     per rank, each process at another rank: its part must be its new
 *     rank's, not the one it kept for MPI_COMM_WORLD).
 *
 * mpiexec -n N pmpi_alltoall mismatch: MPI_Alltoallv where rank 1 expects
 * one int more from rank 0 than rank 0 sends; an erroneous program: with
 * the library every rank's call fails (checked by tests/pmpi/alltoall.sh).
 * mpiexec -n N pmpi_alltoall again: a correct MPI_Alltoallv (its plan
 * cached), then the same with rank 1 expecting one int less from rank 0
 * and its diagonal's 2 ints: every rank's second call fails.
 * mpiexec -n N pmpi_alltoall once: one correct MPI_Alltoallv, each rank
 * printing whether it returned an error (tests/pmpi/alltoall.sh runs it
 * with an environment that differs between the ranks).
 * Rank 0 prints "pmpi_alltoall: passed" when every check held on every
 * rank.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMPI_TEST_NAME "pmpi_alltoall"
#include "pmpi_test_util.h"

/* Element i of what rank `from` sends rank `to` in test `test`. */
static int val(int test, int from, int to, int i) {
  return test * 1000003 + from * 7919 + to * 104729 + i * 31;
}

static void alltoall(MPI_Comm c, int test, int n, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  size_t total = (size_t)n * p;
  int *send = malloc(sizeof(int) * (total + 1));
  int *recv = malloc(sizeof(int) * (total + 1));
  for (int to = 0; to < p; ++to)
    for (int i = 0; i < n; ++i)
      send[to * n + i] = val(test, r, to, i);
  memset(recv, 0xee, sizeof(int) * (total + 1));
  if (in_place)
    memcpy(recv, send, sizeof(int) * total);
  check_rc(MPI_Alltoall(in_place ? MPI_IN_PLACE : send, n, MPI_INT, recv, n,
                        MPI_INT, c),
           "MPI_Alltoall");
  for (int from = 0; from < p; ++from)
    for (int i = 0; i < n; ++i)
      expect(recv[from * n + i] == val(test, from, r, i), "alltoall", test,
             from);
  save(recv, sizeof(int) * total);
  free(send);
  free(recv);
}

/* Ints rank `from` sends rank `to`: irregular with zeros, rank 1 sending
 * much more (skewed); symmetric when `sym`; all zero for test 0. */
static int count(int test, int from, int to, int sym) {
  if (test == 0)
    return 0;
  if (sym && from > to) {
    int t = from;
    from = to;
    to = t;
  }
  if (from == 1 && !sym)
    return 40 + to;
  return (from * 5 + to * 3 + test) % 4;
}

static void alltoallv(MPI_Comm c, int test, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int sc[64], sd[64], rc[64], rd[64], sat = 2, rat = 5;
  for (int s = p - 1; s >= 0; --s) { /* reverse order, gaps of 2 and 5 */
    sc[s] = count(test, r, s, in_place);
    rc[s] = count(test, s, r, in_place);
    sd[s] = sat;
    rd[s] = rat;
    sat += sc[s] + 2;
    rat += rc[s] + 5;
  }
  int *send = malloc(sizeof(int) * (size_t)sat);
  int *recv = malloc(sizeof(int) * (size_t)rat);
  for (int i = 0; i < sat; ++i)
    send[i] = -7;
  for (int i = 0; i < rat; ++i)
    recv[i] = -1;
  for (int to = 0; to < p; ++to)
    for (int i = 0; i < sc[to]; ++i)
      send[sd[to] + i] = val(test, r, to, i);
  if (in_place) /* the data to send, at rdispls */
    for (int to = 0; to < p; ++to)
      for (int i = 0; i < rc[to]; ++i)
        recv[rd[to] + i] = val(test, r, to, i);
  check_rc(MPI_Alltoallv(in_place ? MPI_IN_PLACE : send, sc, sd, MPI_INT, recv,
                         rc, rd, MPI_INT, c),
           "MPI_Alltoallv");
  for (int from = 0; from < p; ++from) {
    for (int i = 0; i < rc[from]; ++i)
      expect(recv[rd[from] + i] == val(test, from, r, i), "alltoallv", test,
             from);
    expect(recv[rd[from] - 1] == -1, "alltoallv gap", test, from);
  }
  save(recv, sizeof(int) * (size_t)rat);
  free(send);
  free(recv);
}

/* Send side a vector type (every other int), receive side contiguous; on
 * odd ranks the other way round. */
static void typed(MPI_Comm c, int test, int n) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  MPI_Datatype strided, block;
  MPI_Type_vector(n, 1, 2, MPI_INT, &strided);
  MPI_Type_create_resized(strided, 0, sizeof(int) * 2 * n, &block);
  MPI_Type_commit(&block);
  MPI_Type_free(&strided);
  size_t wide = (size_t)2 * n * p, narrow = (size_t)n * p;
  int *a = malloc(sizeof(int) * wide), *b = malloc(sizeof(int) * wide);
  for (size_t i = 0; i < wide; ++i)
    a[i] = b[i] = -3;
  int odd = r % 2;
  int *send = odd ? b : a, *recv = odd ? a : b;
  for (int to = 0; to < p; ++to)
    for (int i = 0; i < n; ++i) {
      if (odd)
        send[to * n + i] = val(test, r, to, i);
      else
        send[2 * (to * n + i)] = val(test, r, to, i);
    }
  check_rc(MPI_Alltoall(send, odd ? n : 1, odd ? MPI_INT : block, recv,
                        odd ? 1 : n, odd ? block : MPI_INT, c),
           "MPI_Alltoall (datatypes)");
  for (int from = 0; from < p; ++from)
    for (int i = 0; i < n; ++i) {
      int got = odd ? recv[2 * (from * n + i)] : recv[from * n + i];
      expect(got == val(test, from, r, i), "typed alltoall", test, from);
      if (odd)
        expect(recv[2 * (from * n + i) + 1] == -3, "typed gap", test, from);
    }
  save(recv, sizeof(int) * (odd ? wide : narrow));
  MPI_Type_free(&block);
  free(a);
  free(b);
}

static int mismatch(int bad) {
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int sc[64], sd[64], rc[64], rd[64];
  for (int s = 0; s < p; ++s) {
    sc[s] = rc[s] = 2;
    sd[s] = rd[s] = 3 * s;
  }
  int send[192] = {0}, recv[192] = {0};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (bad == 2) {
    /* A correct call first, then one where rank 1 expects one int less
     * from rank 0 than it sends (its own row and column otherwise as
     * before). */
    if (MPI_Alltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT,
                      MPI_COMM_WORLD) != MPI_SUCCESS)
      printf("pmpi_alltoall: rank %d: the correct call failed\n", me);
    if (me == 1)
      rc[0] = 1;
  } else if (me == 1 && bad) {
    rc[0] = 3; /* expects one int more than rank 0 sends it */
  }
  int rcode = MPI_Alltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT,
                            MPI_COMM_WORLD);
  if (rcode != MPI_SUCCESS)
    printf("pmpi_alltoall: rank %d: error\n", me);
  else
    printf("pmpi_alltoall: rank %d: returned\n", me);
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc != 2 || p > 64) {
    if (me == 0)
      fprintf(stderr,
              "usage: mpiexec -n N pmpi_alltoall OUTDIR|mismatch|again|once\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (!strcmp(argv[1], "mismatch") || !strcmp(argv[1], "once") ||
      !strcmp(argv[1], "again"))
    return mismatch(!strcmp(argv[1], "mismatch")  ? 1
                    : !strcmp(argv[1], "again") ? 2
                                                : 0);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  open_results(argv[1]);
  for (int rep = 0; rep < 3; ++rep) { /* steady state and rebinding */
    alltoall(MPI_COMM_WORLD, 1, 1, 0);
    alltoall(MPI_COMM_WORLD, 2, 13, 0);
    alltoall(MPI_COMM_WORLD, 3, 3000, 0);
  }
  alltoall(MPI_COMM_WORLD, 4, 13, 1);
  for (int rep = 0; rep < 2; ++rep) {
    alltoallv(MPI_COMM_WORLD, 10, 0);
    alltoallv(MPI_COMM_WORLD, 11, 1);
    alltoallv(MPI_COMM_WORLD, 0, 0);
  }
  typed(MPI_COMM_WORLD, 20, 5);
  MPI_Comm most;
  MPI_Comm_split(MPI_COMM_WORLD, me + 1 < p, me, &most);
  if (me + 1 < p) {
    alltoall(most, 30, 9, 0);
    alltoallv(most, 31, 0);
  }
  MPI_Comm_free(&most);
  alltoall(MPI_COMM_SELF, 40, 5, 0);
  alltoallv(MPI_COMM_SELF, 41, 0);
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &rev);
  MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);
  alltoallv(rev, 10, 0);
  MPI_Comm_free(&rev);
  fclose(out);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "pmpi_alltoall: %d failures\n" : "pmpi_alltoall: passed\n",
           all);
  MPI_Finalize();
  return all != 0;
}
