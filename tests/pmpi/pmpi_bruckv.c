/* tests/pmpi/pmpi_bruckv.c - MPI_Alltoallv with alltoall-bruck from rows,
 * columns and relayed sizes (issue 24; docs/pmpi.md, "Bruck's alltoallv
 * from rows and columns").
 *
 * An unmodified MPI program (MPICH only), run by bruckv.sh with
 * libchoreo-mpi.so preloaded and CHOREO_ALLTOALLV=alltoall-bruck[:radix=K],
 * on 1 to 64 ranks. alarm() turns a hang into a failure after 30 s.
 * Modes:
 *
 *   check    six matrices (zeros, a skewed row, rank 0's row and the last
 *            rank's column empty, one block, all empty, every block 3
 *            ints), each with send and receive displacements out of order
 *            and with gaps: the blocking MPI_Alltoallv, a started
 *            MPI_Ialltoallv and a persistent MPI_Alltoallv_init started
 *            twice (new data the second time) are each compared bit for bit,
 *            gaps included, with MPICH's own PMPI_Alltoallv of the same
 *            buffers. Rank 0 prints "pmpi_bruckv: passed" when every check
 *            held on every rank.
 *   auto     (bruckv_auto.sh, CHOREO_ALLTOALLV=auto at the margin 0.1)
 *            the same for the matrices of small blocks (0, 1, 2 and 5),
 *            which the model gives to alltoall-bruck, then the one block
 *            blocking only (handed to MPICH by the margin).
 *   mismatch rank 1's recvcounts expect one int more from rank 0 than rank
 *            0 sends: the blocking call returns an error on every rank
 *            ("pmpi_bruckv: rank R: blocking error"), then the started one
 *            ("... started error"); nobody hangs; then a correct call
 *            works ("pmpi_bruckv: rank R: correct call returned").
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_bruckv"
#include "pmpi_test_util.h"

#define TESTS 6

static int np;

/* The ints rank i sends rank j in test t. */
static int cnt(int t, int i, int j) {
  switch (t) {
  case 0: /* irregular with zeros */
    return (i * 3 + j * 5) % 4;
  case 1: /* one skewed row */
    return i == 1 % np ? 40 + j : (i + j) % 2;
  case 2: /* rank 0's row and the last rank's column empty */
    return i == 0 || j == np - 1 ? 0 : 1 + (i + 2 * j) % 3;
  case 3: /* one block */
    return i == np / 2 && j == 0 ? 7 : 0;
  case 4: /* nothing */
    return 0;
  default: /* every block alike */
    return 3;
  }
}

static int val(int t, int round, int from, int to, int k) {
  return t * 1000003 + round * 500009 + from * 7919 + to * 104729 + k;
}

struct call {
  int sc[64], sd[64], rc[64], rd[64], stotal, rtotal;
  int *snd, *rcv, *ref;
};

/* Test t's counts at this rank: send displacements in reverse order with
 * a gap of two ints each, receive displacements with a gap of one. */
static void setup(struct call *c, int t) {
  memset(c, 0, sizeof *c);
  for (int j = np - 1; j >= 0; --j) {
    c->sc[j] = cnt(t, me, j);
    c->sd[j] = c->stotal, c->stotal += c->sc[j] + 2;
  }
  for (int i = 0; i < np; ++i) {
    c->rc[i] = cnt(t, i, me);
    c->rd[i] = c->rtotal, c->rtotal += c->rc[i] + 1;
  }
  c->snd = malloc(sizeof(int) * (c->stotal + 1));
  c->rcv = malloc(sizeof(int) * (c->rtotal + 1));
  c->ref = malloc(sizeof(int) * (c->rtotal + 1));
}

static void fill(struct call *c, int t, int round) {
  for (int k = 0; k <= c->stotal; ++k)
    c->snd[k] = -1 - k;
  for (int j = 0; j < np; ++j)
    for (int k = 0; k < c->sc[j]; ++k)
      c->snd[c->sd[j] + k] = val(t, round, me, j, k);
  for (int k = 0; k <= c->rtotal; ++k)
    c->rcv[k] = c->ref[k] = 0x5a5a5a5a;
}

/* MPICH's own result of the same buffers into ref, compared with rcv. */
static void compare(struct call *c, const char *what, int t) {
  if (PMPI_Alltoallv(c->snd, c->sc, c->sd, MPI_INT, c->ref, c->rc, c->rd,
                     MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
    expect_test(0, "MPICH's own call failed", t);
  if (memcmp(c->rcv, c->ref, sizeof(int) * (c->rtotal + 1))) {
    char text[128];
    snprintf(text, sizeof text, "%s differs from MPICH's", what);
    expect_test(0, text, t);
  }
}

/* Test t's matrix: the blocking call, then (all) the started and the
 * persistent ones, each compared with MPICH's own call. */
static void check_one(int t, int all) {
  {
    struct call c;
    setup(&c, t);
    fill(&c, t, 0);
    check_rc(MPI_Alltoallv(c.snd, c.sc, c.sd, MPI_INT, c.rcv, c.rc, c.rd,
                           MPI_INT, MPI_COMM_WORLD),
             "MPI_Alltoallv");
    compare(&c, "MPI_Alltoallv", t);
    if (!all) {
      free(c.snd);
      free(c.rcv);
      free(c.ref);
      return;
    }
    fill(&c, t, 1);
    MPI_Request r;
    check_rc(MPI_Ialltoallv(c.snd, c.sc, c.sd, MPI_INT, c.rcv, c.rc, c.rd,
                            MPI_INT, MPI_COMM_WORLD, &r),
             "MPI_Ialltoallv");
    check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait (MPI_Ialltoallv)");
    compare(&c, "MPI_Ialltoallv", t);
    MPI_Request p;
    check_rc(MPI_Alltoallv_init(c.snd, c.sc, c.sd, MPI_INT, c.rcv, c.rc, c.rd,
                                MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &p),
             "MPI_Alltoallv_init");
    for (int round = 2; round < 4; ++round) {
      fill(&c, t, round);
      check_rc(MPI_Start(&p), "MPI_Start");
      check_rc(MPI_Wait(&p, MPI_STATUS_IGNORE), "MPI_Wait (persistent)");
      compare(&c, "MPI_Alltoallv_init", t);
    }
    MPI_Request_free(&p);
    free(c.snd);
    free(c.rcv);
    free(c.ref);
  }
}

static void check(void) {
  for (int t = 0; t < TESTS; ++t)
    check_one(t, 1);
}

/* The matrices of small blocks in every form (auto's model picks Bruck
 * for them), then the one block blocking only (which auto at the margin
 * hands to MPICH). */
static void check_auto(void) {
  static const int small[] = {0, 1, 2, 5};
  for (int k = 0; k < 4; ++k)
    check_one(small[k], 1);
  check_one(3, 0);
}

static void mismatch(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  struct call c;
  setup(&c, 5);
  fill(&c, 5, 0);
  if (me == 1)
    c.rc[0] = 4; /* one int more than rank 0 sends it */
  if (MPI_Alltoallv(c.snd, c.sc, c.sd, MPI_INT, c.rcv, c.rc, c.rd, MPI_INT,
                    MPI_COMM_WORLD) != MPI_SUCCESS)
    printf("pmpi_bruckv: rank %d: blocking error\n", me);
  MPI_Request r;
  int rc = MPI_Ialltoallv(c.snd, c.sc, c.sd, MPI_INT, c.rcv, c.rc, c.rd,
                          MPI_INT, MPI_COMM_WORLD, &r);
  if (rc == MPI_SUCCESS)
    rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS)
    printf("pmpi_bruckv: rank %d: started error\n", me);
  c.rc[0] = cnt(5, 0, me);
  fill(&c, 5, 1);
  if (MPI_Alltoallv(c.snd, c.sc, c.sd, MPI_INT, c.rcv, c.rc, c.rd, MPI_INT,
                    MPI_COMM_WORLD) == MPI_SUCCESS)
    printf("pmpi_bruckv: rank %d: correct call returned\n", me);
  compare(&c, "MPI_Alltoallv after the mismatch", 5);
  free(c.snd);
  free(c.rcv);
  free(c.ref);
}

int main(int argc, char **argv) {
  alarm(30);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc != 2 || np > 64) {
    if (me == 0)
      fprintf(stderr,
              "usage: mpiexec -n 1..64 pmpi_bruckv check|auto|mismatch\n");
    MPI_Finalize();
    return 2;
  }
  if (!strcmp(argv[1], "mismatch"))
    mismatch();
  else if (!strcmp(argv[1], "auto"))
    check_auto();
  else
    check();
  int all = 0;
  PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && !all)
    printf("pmpi_bruckv: passed\n");
  MPI_Finalize();
  return all ? 1 : 0;
}
