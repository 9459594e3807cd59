/*===- tests/pmpi/pmpi_scan.c - MPI_Scan and MPI_Exscan in an app --------===*/
/*
 * mpiexec -n 6 pmpi_scan OUTDIR: an unmodified MPI application calling
 * MPI_Scan and MPI_Exscan as an application would; it knows nothing of
 * choreo. Run with and without LD_PRELOAD=libchoreo-mpi.so
 * (tests/pmpi/run-app.sh): every rank checks its results against the values
 * the call must produce and writes them to OUTDIR/rank<R>.bin, compared bit
 * for bit between the runs.
 *
 *  1. MPI_SUM over MPI_INT and MPI_DOUBLE (halves: exact, so every order of
 *     combining gives the same bits) of 1, 5 and 3000 elements, in and out
 *     of place;
 *  2. a non-commutative user operator (2x2 integer matrix product modulo
 *     1009 over a contiguous type of 4 ints): the prefix products in rank
 *     order;
 *  3. MPI_Exscan: rank 0's receive buffer holds a pattern before the call
 *     and must hold it after (MPI leaves it undefined; neither MPICH nor
 *     choreo writes it), in place too;
 *  4. MPI_COMM_WORLD (6 ranks), a communicator of ranks 0, 2, 4 (3) and
 *     MPI_COMM_SELF, twice (cached plans rebound).
 * Rank 0 prints "pmpi_scan: passed" when every check held on every rank.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMPI_TEST_NAME "pmpi_scan"
#include "pmpi_test_util.h"

static MPI_Datatype mat_t;

static int val(int test, int rank, int i) {
  return (test * 1000003 + rank * 7919 + i * 31) % 1000 - 300;
}

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

/* MPI_Scan or MPI_Exscan (ex) of n ints and n doubles with MPI_SUM. */
static void sums(MPI_Comm c, int test, int n, int ex, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int *si = malloc(sizeof(int) * (size_t)n),
      *ri = malloc(sizeof(int) * (size_t)n);
  double *sd = malloc(sizeof(double) * (size_t)n),
         *rd = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    si[i] = val(test, r, i);
    sd[i] = val(test, r, i) * 0.5; /* exact: any order sums alike */
    ri[i] = in_place ? si[i] : -7;
    rd[i] = in_place ? sd[i] : -7.5;
  }
  int (*call)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm) =
      ex ? MPI_Exscan : MPI_Scan;
  check_rc(call(in_place ? MPI_IN_PLACE : si, ri, n, MPI_INT, MPI_SUM, c),
           ex ? "MPI_Exscan" : "MPI_Scan");
  check_rc(call(in_place ? MPI_IN_PLACE : sd, rd, n, MPI_DOUBLE, MPI_SUM, c),
           ex ? "MPI_Exscan" : "MPI_Scan");
  for (int i = 0; i < n; ++i) {
    int want = 0;
    for (int s = 0; s < r + !ex; ++s)
      want += val(test, s, i);
    if (ex && r == 0)
      want = in_place ? si[i] : -7; /* untouched */
    expect(ri[i] == want, ex ? "exscan sum" : "scan sum", test, i);
  }
  save(ri, sizeof(int) * (size_t)n);
  save(rd, sizeof(double) * (size_t)n);
  free(si);
  free(ri);
  free(sd);
  free(rd);
}

/* The prefix products of the ranks' matrices in rank order. */
static void products(MPI_Comm c, int test, int n, int ex, int in_place) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  MPI_Op op;
  MPI_Op_create(matmul, 0, &op);
  size_t ints = 4 * (size_t)n;
  int *m = malloc(sizeof(int) * ints), *prod = malloc(sizeof(int) * ints);
  int *want = malloc(sizeof(int) * ints), *ms = malloc(sizeof(int) * ints);
  for (size_t k = 0; k < ints; ++k) {
    m[k] = (val(test, r, (int)k) + 300) % 7 + 1;
    want[k] = k % 4 == 0 || k % 4 == 3; /* identities */
    prod[k] = in_place ? m[k] : 5;
  }
  for (int s = r - ex; s >= 0; --s) { /* want = m_s * want */
    for (size_t k = 0; k < ints; ++k)
      ms[k] = (val(test, s, (int)k) + 300) % 7 + 1;
    int l = n;
    matmul(ms, want, &l, NULL);
  }
  if (ex && r == 0)
    for (size_t k = 0; k < ints; ++k)
      want[k] = in_place ? m[k] : 5; /* untouched */
  check_rc((ex ? MPI_Exscan : MPI_Scan)(in_place ? MPI_IN_PLACE : m, prod, n,
                                        mat_t, op, c),
           ex ? "MPI_Exscan (non-commutative)" : "MPI_Scan (non-commutative)");
  for (size_t k = 0; k < ints; ++k)
    expect(prod[k] == want[k], ex ? "exscan product" : "scan product", test,
           (int)k);
  save(prod, sizeof(int) * ints);
  MPI_Op_free(&op);
  free(m);
  free(prod);
  free(want);
  free(ms);
}

static void all(MPI_Comm c, int test) {
  const int sizes[] = {1, 5, 3000};
  for (int ex = 0; ex < 2; ++ex)
    for (int s = 0; s < 3; ++s)
      for (int ip = 0; ip < 2; ++ip) {
        sums(c, test + s, sizes[s], ex, ip);
        products(c, test + s, sizes[s] / 2 + 1, ex, ip);
      }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc != 2 || p != 6) {
    if (me == 0)
      fprintf(stderr, "usage: mpiexec -n 6 pmpi_scan OUTDIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  open_results(argv[1]);
  MPI_Type_contiguous(4, MPI_INT, &mat_t);
  MPI_Type_commit(&mat_t);
  MPI_Comm even;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &even);
  for (int rep = 0; rep < 2; ++rep) {
    all(MPI_COMM_WORLD, 10);
    if (me % 2 == 0)
      all(even, 20);
    all(MPI_COMM_SELF, 30);
  }
  MPI_Comm_free(&even);
  MPI_Type_free(&mat_t);
  fclose(out);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(total ? "pmpi_scan: FAILED\n" : "pmpi_scan: passed\n");
  MPI_Finalize();
  return total != 0;
}
