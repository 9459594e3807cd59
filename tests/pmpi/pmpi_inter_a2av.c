/*===- tests/pmpi/pmpi_inter_a2av.c - Intercomm alltoallv from parts ------===*/
/*
 * mpiexec -n 5 pmpi_inter_a2av OUTDIR: an unmodified MPI application calling
 * MPI_Alltoallv, MPI_Alltoallv_init and MPI_Ialltoallv on two
 * intercommunicators (MPI-4 6.8: every rank of one group sends every rank
 * of the other a block, and back); it knows nothing of choreo. World ranks
 * {0, 1} and {2, 3, 4} form the first (p != q), {0} and {1, 2, 3, 4} the
 * second (a group of one). With LD_PRELOAD=libchoreo-mpi.so each call is
 * built and proved from each rank's row and column (docs/pmpi.md,
 * "`MPI_Alltoallv` on an intercommunicator from rows and columns"). Every
 * rank checks its results against the values the call must produce (and
 * that the gaps between its blocks are untouched) and writes its receive
 * buffers to OUTDIR/rank<R>.bin, compared bit for bit with the native run
 * (tests/pmpi/run-app.sh). MPI_IN_PLACE is not allowed on an
 * intercommunicator (MPI-4 6.8), and MPICH 4.0.2 does not catch it (its
 * MPI_Alltoallv waits for ever): only the mismatch run below passes it.
 *
 * On each intercommunicator, twice:
 *  1. counts 0 to 4 ints depending on both ranks, at displacements in
 *     reverse peer order with a gap of 2 ints before each block;
 *  2. the same counts again on fresh values (a kept part);
 *  3. new counts: world rank 1 sends nothing, world rank 4 receives
 *     nothing;
 *  4. every count zero;
 *  5. MPI_Alltoallv_init with the first counts, started twice on new values;
 *  6. MPI_Ialltoallv with the third counts, then MPI_Wait.
 * Rank 0 prints "pmpi_inter_a2av: passed" when every check held.
 *
 * `pmpi_inter_a2av mismatch` (tests/pmpi/inter_alltoallv.sh): on the first
 * intercommunicator B's rank 1 (world 3) expects one int more from A's
 * rank 0 (world 0) than A's rank 0 sends it (erroneous in MPI): the
 * blocking MPI_Alltoallv, then MPI_Ialltoallv's MPI_Wait; then every
 * rank passes MPI_IN_PLACE to MPI_Alltoallv and to MPI_Alltoall (the
 * library must refuse both at once); each prints "rank R: CALL: error:
 * ..." or "rank R: CALL: ok"; then a correct call must work.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMPI_TEST_NAME "pmpi_inter_a2av"
#include "pmpi_test_util.h"

/* The value world rank s sends world rank d, element k, repetition r. */
static int val(int s, int d, int k, int r) {
  return s * 1000003 + d * 1009 + k * 7 + r * 31;
}

/* The ints world rank s sends world rank d under counts kind c. */
static int vcount(int c, int s, int d) {
  switch (c) {
  case 0:
    return (s * 3 + d * 5) % 5;
  case 1:
    return s == 1 || d == 4 ? 0 : 1 + (s + 2 * d) % 4;
  default:
    return 0;
  }
}

/* One side of an intercommunicator. */
struct side {
  MPI_Comm comm;
  int other, other_base; /* the remote group's size, its first world rank */
};

/* Displacements in reverse peer order, 2 ints of gap before each block;
 * returns the buffer's length in ints. */
static int layout(const int *counts, int n, int *displs) {
  int at = 0;
  for (int j = n - 1; j >= 0; --j) {
    at += 2;
    displs[j] = at;
    at += counts[j];
  }
  return at + 2;
}

/* Fills the send buffer of counts kind c, repetition r. */
static void fill(const struct side *x, int c, int r, int *sc, int *sd, int *sb,
                 int *rc, int *rd, int *rlen) {
  for (int j = 0; j < x->other; ++j) {
    sc[j] = vcount(c, me, x->other_base + j);
    rc[j] = vcount(c, x->other_base + j, me);
  }
  int slen = layout(sc, x->other, sd);
  *rlen = layout(rc, x->other, rd);
  for (int i = 0; i < slen; ++i)
    sb[i] = -5;
  for (int j = 0; j < x->other; ++j)
    for (int k = 0; k < sc[j]; ++k)
      sb[sd[j] + k] = val(me, x->other_base + j, k, r);
}

/* Checks the received blocks and the untouched gaps; saves the buffer. */
static void check(const struct side *x, int r, const int *rc, const int *rd,
                  const int *rb, int rlen, const char *what) {
  int *want = malloc(sizeof(int) * (rlen + 1));
  for (int i = 0; i < rlen; ++i)
    want[i] = -7;
  for (int j = 0; j < x->other; ++j)
    for (int k = 0; k < rc[j]; ++k)
      want[rd[j] + k] = val(x->other_base + j, me, k, r);
  for (int i = 0; i < rlen; ++i)
    expect(rb[i] == want[i], what, rb[i], i);
  fwrite(rb, sizeof(int), rlen, out);
  free(want);
}

static void run_side(const struct side *x, int rep) {
  int sc[8], sd[8], rc[8], rd[8], sb[64], rb[64], rlen;
  /* 1-4: blocking. */
  const int kinds[4] = {0, 0, 1, 2};
  for (int t = 0; t < 4; ++t) {
    int r = rep * 10 + t;
    fill(x, kinds[t], r, sc, sd, sb, rc, rd, &rlen);
    for (int i = 0; i < 64; ++i)
      rb[i] = -7;
    MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, x->comm);
    check(x, r, rc, rd, rb, rlen, "MPI_Alltoallv");
  }
  /* 5: persistent, started twice on new values. */
  MPI_Request req;
  fill(x, 0, 0, sc, sd, sb, rc, rd, &rlen);
  MPI_Alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, x->comm,
                     MPI_INFO_NULL, &req);
  for (int s = 0; s < 2; ++s) {
    int r = rep * 10 + 5 + s;
    fill(x, 0, r, sc, sd, sb, rc, rd, &rlen);
    for (int i = 0; i < 64; ++i)
      rb[i] = -7;
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(x, r, rc, rd, rb, rlen, "MPI_Alltoallv_init");
  }
  MPI_Request_free(&req);
  /* 6: started. */
  int r = rep * 10 + 8;
  fill(x, 1, r, sc, sd, sb, rc, rd, &rlen);
  for (int i = 0; i < 64; ++i)
    rb[i] = -7;
  MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, x->comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  check(x, r, rc, rd, rb, rlen, "MPI_Ialltoallv");
}

/* The intercommunicator of world ranks [0, split) and [split, size). */
static struct side make_side(int split, int size) {
  struct side x;
  int in_a = me < split, local = in_a ? me : me - split;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, local, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? split : 0, 12 + split,
                       &x.comm);
  MPI_Comm_free(&half);
  x.other = in_a ? size - split : split;
  x.other_base = in_a ? split : 0;
  return x;
}

static void report(int rc, const char *what) {
  char msg[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (rc != MPI_SUCCESS)
    MPI_Error_string(rc, msg, &len);
  if (rc == MPI_SUCCESS)
    printf("rank %d: %s: ok\n", me, what);
  else
    printf("rank %d: %s: error: %s\n", me, what, msg);
  fflush(stdout);
}

/* B's rank 1 (world 3) expects one int more from A's rank 0 (world 0). */
static int mismatch(struct side *x) {
  MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN);
  /* (A started call's request error is raised where MPICH raises a
   * generalized request's.) */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int sc[8], sd[8], rc[8], rd[8], sb[64], rb[64], rlen;
  for (int call = 0; call < 2; ++call) {
    fill(x, 1, call, sc, sd, sb, rc, rd, &rlen);
    if (me == 3)
      rc[0] += 1;
    int rc_ = MPI_SUCCESS;
    if (call == 0) {
      rc_ = MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, x->comm);
    } else {
      MPI_Request req = MPI_REQUEST_NULL;
      rc_ = MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, x->comm,
                           &req);
      if (rc_ == MPI_SUCCESS)
        rc_ = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    report(rc_, call == 0 ? "MPI_Alltoallv" : "MPI_Ialltoallv");
  }
  /* MPI_IN_PLACE: erroneous on an intercommunicator. */
  for (int j = 0; j < x->other; ++j) {
    rc[j] = 1;
    rd[j] = j;
  }
  report(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, rb, rc, rd, MPI_INT,
                       x->comm),
         "in-place MPI_Alltoallv");
  report(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, rb, 1, MPI_INT, x->comm),
         "in-place MPI_Alltoall");
  /* A correct call afterwards. */
  fill(x, 1, 7, sc, sd, sb, rc, rd, &rlen);
  for (int i = 0; i < 64; ++i)
    rb[i] = -7;
  int rc_ = MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, x->comm);
  expect(rc_ == MPI_SUCCESS, "the correct call after it failed", rc_, 0);
  int want_ok = 1;
  for (int j = 0; j < x->other; ++j)
    for (int k = 0; k < rc[j]; ++k)
      want_ok &= rb[rd[j] + k] == val(x->other_base + j, me, k, 7);
  expect(want_ok, "the correct call's values", 0, 0);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && all == 0)
    printf("pmpi_inter_a2av: passed\n");
  MPI_Comm_free(&x->comm);
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 5) {
    if (me == 0)
      fprintf(stderr, "pmpi_inter_a2av: run it on 5 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  struct side x = make_side(2, size), y = make_side(1, size);
  if (argc == 2 && strcmp(argv[1], "mismatch") == 0) {
    MPI_Comm_free(&y.comm);
    return mismatch(&x);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%d.bin", argc > 1 ? argv[1] : ".", me);
  out = fopen(path, "wb");
  if (!out) {
    perror(path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int rep = 0; rep < 2; ++rep) {
    run_side(&x, rep);
    run_side(&y, rep);
  }
  fclose(out);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && all == 0)
    printf("pmpi_inter_a2av: passed\n");
  MPI_Comm_free(&x.comm);
  MPI_Comm_free(&y.comm);
  MPI_Finalize();
  return all != 0;
}
