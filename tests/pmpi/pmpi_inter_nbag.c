/*===- tests/pmpi/pmpi_inter_nbag.c - Started and persistent inter allgather
 * ===*/
/*
 * mpiexec -n 5|6 pmpi_inter_nbag OUTDIR: an unmodified MPI application (it
 * links MPICH only) calling MPI_Iallgather, MPI_Iallgatherv and
 * MPI_Allgather_init, MPI_Allgatherv_init (and a `_c` form of each) on an
 * intercommunicator of world ranks 0..p-1 (group A) and the rest (B): 3 + 2
 * on 5 ranks, 2 + 4 on 6, 1 + 1 on 2 (no exchange of counts). run-app.sh runs
 * it natively and with LD_PRELOAD=libchoreo-mpi.so; every rank checks its
 * results against the values the call must produce and writes them to
 * OUTDIR/rank<R>.bin, compared bit for bit between the runs.
 *
 *  1. MPI_Iallgather with a different count per group (A's members send 3
 *     ints, B's 5), with arithmetic and MPI_Test between start and wait;
 *     then into a strided receive type (a packed copy kept for the run,
 *     unpacked when it completes);
 *  2. MPI_Iallgatherv with irregular counts (a zero among them) at
 *     displacements in reverse member order;
 *  3. an MPI_Iallgather and an MPI_Iallgatherv on the intercommunicator,
 *     an MPI_Iallreduce on MPI_COMM_WORLD and a ring of point-to-point
 *     requests outstanding at once, completed by one MPI_Waitall in the
 *     reverse order of their starts;
 *  4. persistent MPI_Allgather_init and MPI_Allgatherv_init started together
 *     with MPI_Startall 100 times, new data every start, checked every time
 *     (the allgather only with INTER_NBAG_PERSISTENT_ALLGATHER set, the
 *     library's runs, and not compared with MPICH: MPICH 4.0.2's own
 *     MPI_Allgather_init on an intercommunicator delivers garbage, 738197504
 *     for the first int on 3 + 2 ranks at every start);
 *  5. MPI_Iallgather_c and MPI_Allgatherv_init_c once each.
 * Rank 0 prints "pmpi_inter_nbag: passed" when every check held on every
 * rank; alarm() ends a hang after 120 s.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_inter_nbag"
#include "pmpi_test_util.h"

static volatile double sink;
static void compute(MPI_Request *r) {
  double x = 1;
  int done = 0;
  for (int k = 0; k < 20; ++k) {
    for (int i = 0; i < 20000; ++i)
      x = x * 1.0000001 + 1e-9;
    if (r && !done)
      MPI_Test(r, &done, MPI_STATUS_IGNORE);
  }
  sink = x;
}

static int val(int world, int k, int it) { return world * 1000 + k * 7 + it; }

/* Group sizes and this rank's place: A is world ranks 0..p-1. */
static int p, q, in_a, local, other, other_base;
/* Allgatherv: member m (local rank) of a group sends vcount(m) ints. */
static int vcount(int m) { return (m * 3 + 1) % 4; } /* 1, 0, 3, 2, ... */

/* The other group's blocks: member m's n ints at at[m] of buf. */
static void check_blocks(const char *what, const int *buf, const int *n,
                         const int *at, int it) {
  for (int m = 0; m < other; ++m)
    for (int k = 0; k < n[m]; ++k)
      expect(buf[at[m] + k] == val(other_base + m, k, it), what, m, k);
}

#define MAXR 8
#define NA 3
#define NB 5

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  alarm(120);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  p = size == 5 ? 3 : size == 2 ? 1 : 2, q = size - p;
  in_a = me < p, local = in_a ? me : me - p;
  other = in_a ? q : p, other_base = in_a ? p : 0;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, local, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? p : 0, 12, &inter);
  open_results(argc > 1 ? argv[1] : ".");
  int mine = in_a ? NA : NB, theirs = in_a ? NB : NA;
  int n[MAXR], at[MAXR], vn[MAXR], vat[MAXR], total = 0;
  for (int m = 0; m < other; ++m)
    n[m] = theirs, at[m] = m * theirs;
  for (int m = other - 1; m >= 0; --m) /* reverse member order */
    vn[m] = vcount(m), vat[m] = total, total += vn[m];

  /* 1. Iallgather, plain and into a strided receive type. */
  for (int rep = 0; rep < 2; ++rep) {
    int s[NB], r[MAXR * NB], rs[2 * MAXR * NB];
    for (int k = 0; k < mine; ++k)
      s[k] = val(me, k, rep);
    memset(r, 0xff, sizeof r);
    for (int i = 0; i < 2 * MAXR * NB; ++i)
      rs[i] = -7;
    MPI_Request rq;
    MPI_Iallgather(s, mine, MPI_INT, r, theirs, MPI_INT, inter, &rq);
    compute(&rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    check_blocks("iallgather", r, n, at, rep);
    save(r, sizeof(int) * other * theirs);
    MPI_Datatype strided, one;
    MPI_Type_vector(theirs, 1, 2, MPI_INT, &strided);
    MPI_Type_create_resized(strided, 0, 2 * theirs * sizeof(int), &one);
    MPI_Type_commit(&one);
    MPI_Iallgather(s, mine, MPI_INT, rs, 1, one, inter, &rq);
    compute(NULL);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int m = 0; m < other; ++m)
      for (int k = 0; k < 2 * theirs; ++k)
        expect(rs[2 * theirs * m + k] ==
                   (k % 2 ? -7 : val(other_base + m, k / 2, rep)),
               "iallgather strided", m, k);
    save(rs, sizeof(int) * 2 * other * theirs);
    MPI_Type_free(&strided);
    MPI_Type_free(&one);
  }

  /* 2. Iallgatherv: irregular counts at reversed displacements. */
  for (int rep = 0; rep < 2; ++rep) {
    int s[4], r[4 * MAXR];
    for (int k = 0; k < vcount(local); ++k)
      s[k] = val(me, k, rep + 10);
    memset(r, 0xff, sizeof r);
    MPI_Request rq;
    MPI_Iallgatherv(s, vcount(local), MPI_INT, r, vn, vat, MPI_INT, inter, &rq);
    compute(&rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    check_blocks("iallgatherv", r, vn, vat, rep + 10);
    save(r, sizeof(int) * total);
  }

  /* 3. Outstanding together, one MPI_Waitall in reverse order. */
  {
    int s[NB], r[MAXR * NB], vs[4], vr[4 * MAXR], ws[8], wr[8];
    int token = me, got = -1;
    for (int k = 0; k < mine; ++k)
      s[k] = val(me, k, 20);
    for (int k = 0; k < vcount(local); ++k)
      vs[k] = val(me, k, 21);
    for (int i = 0; i < 8; ++i)
      ws[i] = me * 8 + i, wr[i] = -1;
    memset(r, 0xff, sizeof r);
    memset(vr, 0xff, sizeof vr);
    MPI_Request rq[5];
    MPI_Irecv(&got, 1, MPI_INT, (me + size - 1) % size, 9, MPI_COMM_WORLD,
              &rq[4]);
    MPI_Iallgather(s, mine, MPI_INT, r, theirs, MPI_INT, inter, &rq[3]);
    MPI_Iallreduce(ws, wr, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]);
    MPI_Iallgatherv(vs, vcount(local), MPI_INT, vr, vn, vat, MPI_INT, inter,
                    &rq[1]);
    MPI_Isend(&token, 1, MPI_INT, (me + 1) % size, 9, MPI_COMM_WORLD, &rq[0]);
    MPI_Status st[5];
    MPI_Waitall(5, rq, st);
    expect(got == (me + size - 1) % size, "ring token", got, me);
    expect(st[4].MPI_SOURCE == (me + size - 1) % size && st[4].MPI_TAG == 9,
           "ring status", st[4].MPI_SOURCE, st[4].MPI_TAG);
    check_blocks("mixed iallgather", r, n, at, 20);
    check_blocks("mixed iallgatherv", vr, vn, vat, 21);
    for (int i = 0; i < 8; ++i)
      expect(wr[i] == size * (size - 1) * 4 + size * i, "mixed iallreduce",
             wr[i], i);
    save(r, sizeof(int) * other * theirs);
    save(vr, sizeof(int) * total);
    save(wr, sizeof wr);
    save(&got, sizeof got);
  }

  /* 4. Persistent calls started together 100 times (the allgather only
   * with INTER_NBAG_PERSISTENT_ALLGATHER set: see the header). */
  {
    int pag = getenv("INTER_NBAG_PERSISTENT_ALLGATHER") != NULL;
    int s[NB], r[MAXR * NB], vs[4], vr[4 * MAXR];
    MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (pag)
      MPI_Allgather_init(s, mine, MPI_INT, r, theirs, MPI_INT, inter,
                         MPI_INFO_NULL, &rq[0]);
    MPI_Allgatherv_init(vs, vcount(local), MPI_INT, vr, vn, vat, MPI_INT, inter,
                        MPI_INFO_NULL, &rq[1]);
    long sum = 0;
    for (int it = 0; it < 100; ++it) {
      for (int k = 0; k < mine; ++k)
        s[k] = val(me, k, 100 + it);
      for (int k = 0; k < vcount(local); ++k)
        vs[k] = val(me, k, 300 + it);
      memset(r, 0xff, sizeof r);
      memset(vr, 0xff, sizeof vr);
      MPI_Startall(2 - !pag, rq + !pag);
      compute(&rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      if (pag)
        check_blocks("persistent allgather", r, n, at, 100 + it);
      check_blocks("persistent allgatherv", vr, vn, vat, 300 + it);
      for (int i = 0; i < total; ++i)
        sum += vr[i];
    }
    save(vr, sizeof(int) * total);
    save(&sum, sizeof sum);
    if (pag)
      MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
  }

  /* 5. The large-count forms. */
  {
    int s[NB], r[MAXR * NB], vs[4], vr[4 * MAXR];
    MPI_Count cn[MAXR];
    MPI_Aint cat[MAXR];
    for (int m = 0; m < other; ++m)
      cn[m] = vn[m], cat[m] = vat[m];
    for (int k = 0; k < mine; ++k)
      s[k] = val(me, k, 500);
    for (int k = 0; k < vcount(local); ++k)
      vs[k] = val(me, k, 501);
    memset(r, 0xff, sizeof r);
    memset(vr, 0xff, sizeof vr);
    MPI_Request rq[2];
    MPI_Iallgather_c(s, mine, MPI_INT, r, theirs, MPI_INT, inter, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Allgatherv_init_c(vs, vcount(local), MPI_INT, vr, cn, cat, MPI_INT,
                          inter, MPI_INFO_NULL, &rq[1]);
    MPI_Start(&rq[1]);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    MPI_Request_free(&rq[1]);
    check_blocks("iallgather_c", r, n, at, 500);
    check_blocks("allgatherv_init_c", vr, vn, vat, 501);
    save(r, sizeof(int) * other * theirs);
    save(vr, sizeof(int) * total);
  }

  fclose(out);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "pmpi_inter_nbag: %d failures\n" : "pmpi_inter_nbag: passed\n",
           all);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return all != 0;
}
