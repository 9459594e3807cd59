/*===- tests/pmpi/pmpi_inter_more.c - Intercomm barrier, alltoall, rooted -===*/
/*
 * mpiexec -n 5|6 pmpi_inter_more OUTDIR: an unmodified MPI application
 * calling MPI_Barrier, MPI_Alltoall, MPI_Alltoallv, MPI_Gather(v) and
 * MPI_Scatter(v) on an intercommunicator (MPI-4 6.3, 6.5, 6.6, 6.8); it
 * knows nothing of choreo. World ranks 0..p-1 form group A and the rest
 * group B: 3 + 2 on 5 ranks, 2 + 4 on 6. Run with and without
 * LD_PRELOAD=libchoreo-mpi.so (tests/pmpi/run-app.sh): every rank checks
 * its results against the values the call must produce and writes them to
 * OUTDIR/rank<R>.bin, compared bit for bit between the runs.
 *
 *  1. MPI_Barrier: B's last rank enters 100 ms late and every rank of A
 *     must stay in the call 50 ms at least; then A's first rank, and B's
 *     ranks must wait;
 *  2. MPI_Alltoall: A sends 3 ints to every rank of B, B 5 to every rank
 *     of A (the two sides' counts differ, as MPI allows);
 *  3. MPI_Alltoallv: counts that depend on both ranks, some zero, at
 *     displacements with gaps, in reverse peer order;
 *  4. MPI_Gather and MPI_Gatherv to a non-zero root of A and to B's last
 *     rank (MPI_ROOT, MPI_PROC_NULL, the root's rank), 4 ints a member, and
 *     irregular counts at reversed displacements;
 *  5. MPI_Scatter and MPI_Scatterv from the same roots;
 *  6. MPI_Ibarrier, MPI_Ialltoall, MPI_Igather, MPI_Iscatter outstanding
 *     together, completed by MPI_Waitall.
 * Each blocking call runs twice (the second with the cached plan).
 * Rank 0 prints "pmpi_inter_more: passed" when every check held.
 * `pmpi_inter_more mismatch`: a root whose counts are not the members'.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_inter_more"
#include "pmpi_test_util.h"

/* The value world rank s sends world rank d, element k, repetition r. */
static int val(int s, int d, int k, int r) {
  return s * 1000003 + d * 1009 + k * 7 + r;
}

/* Alltoallv's count from world rank s to world rank d: 0 to 4 ints. */
static int vcount(int s, int d) { return (s * 3 + d * 5) % 5; }

/* `pmpi_inter_more mismatch` (tests/pmpi/inter_robust.sh): the root (A's
 * rank 0) was given counts that are not what B's ranks pass (erroneous in
 * MPI): with the library every rank's MPI_Gatherv and MPI_Scatterv must
 * fail, naming the call; prints "rank R: error: ..." or "rank R: ok". */
static int mismatch(MPI_Comm inter, int in_a, int local, int q) {
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int counts[64], displs[64], buf[256] = {0};
  for (int s = 0; s < q; ++s) {
    counts[s] = s == 1 ? 3 : 2; /* B's rank 1 sends (receives) 2 */
    displs[s] = 4 * s;
  }
  int root = in_a ? (local == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  for (int call = 0; call < 2; ++call) {
    int rc = call == 0 ? MPI_Gatherv(buf, 2, MPI_INT, buf + 8, counts, displs,
                                     MPI_INT, root, inter)
                       : MPI_Scatterv(buf, counts, displs, MPI_INT, buf + 8, 2,
                                      MPI_INT, root, inter);
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
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int p = size == 5 ? 3 : 2, q = size - p;
  int in_a = me < p, local = in_a ? me : me - p;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, local, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? p : 0, 12, &inter);
  if (argc == 2 && strcmp(argv[1], "mismatch") == 0)
    return mismatch(inter, in_a, local, q);
  open_results(argc > 1 ? argv[1] : ".");
  int other = in_a ? q : p, other_base = in_a ? p : 0;

  for (int rep = 0; rep < 2; ++rep) {
    /* 1. MPI_Barrier: a late rank of each group in turn. */
    for (int late = 0; late < 2; ++late) {
      int late_world = late == 0 ? size - 1 : 0;
      int waits = late == 0 ? in_a : !in_a;
      MPI_Barrier(MPI_COMM_WORLD);
      if (me == late_world)
        usleep(100000);
      double t0 = MPI_Wtime();
      MPI_Barrier(inter);
      double stayed = MPI_Wtime() - t0;
      if (waits)
        expect(stayed >= 0.05, "barrier left early (us)", (long)(stayed * 1e6),
               late_world);
    }

    /* 2. MPI_Alltoall: A sends 3 ints a block, B 5. */
    int sc = in_a ? 3 : 5, rc = in_a ? 5 : 3;
    int *sb = malloc(sizeof(int) * sc * other);
    int *rb = malloc(sizeof(int) * rc * other);
    for (int j = 0; j < other; ++j)
      for (int k = 0; k < sc; ++k)
        sb[j * sc + k] = val(me, other_base + j, k, rep);
    for (int i = 0; i < rc * other; ++i)
      rb[i] = -1;
    MPI_Alltoall(sb, sc, MPI_INT, rb, rc, MPI_INT, inter);
    for (int j = 0; j < other; ++j)
      for (int k = 0; k < rc; ++k)
        expect(rb[j * rc + k] == val(other_base + j, me, k, rep), "alltoall",
               rb[j * rc + k], j);
    save(rb, sizeof(int) * rc * other);
    free(sb);
    free(rb);

    /* 3. MPI_Alltoallv: counts 0..4, blocks in reverse peer order with a
     * gap of 2 ints after each. */
    int scnt[8], sdsp[8], rcnt[8], rdsp[8], sat = 0, rat = 0;
    for (int j = other - 1; j >= 0; --j) {
      scnt[j] = vcount(me, other_base + j);
      rcnt[j] = vcount(other_base + j, me);
      sdsp[j] = sat;
      rdsp[j] = rat;
      sat += scnt[j] + 2;
      rat += rcnt[j] + 2;
    }
    int *vs = malloc(sizeof(int) * (sat + 1)),
        *vr = malloc(sizeof(int) * (rat + 1));
    for (int i = 0; i < sat; ++i)
      vs[i] = -7;
    for (int i = 0; i < rat; ++i)
      vr[i] = -1;
    for (int j = 0; j < other; ++j)
      for (int k = 0; k < scnt[j]; ++k)
        vs[sdsp[j] + k] = val(me, other_base + j, k, rep + 10);
    MPI_Alltoallv(vs, scnt, sdsp, MPI_INT, vr, rcnt, rdsp, MPI_INT, inter);
    for (int j = 0; j < other; ++j)
      for (int k = 0; k < rcnt[j]; ++k)
        expect(vr[rdsp[j] + k] == val(other_base + j, me, k, rep + 10),
               "alltoallv", vr[rdsp[j] + k], j);
    save(vr, sizeof(int) * rat);
    free(vs);
    free(vr);

    /* 4, 5. Rooted calls: A's rank 1, then B's last rank. */
    int roots[2][2] = {{1, 1}, {0, q - 1}}; /* {root in A?, local rank} */
    for (int r = 0; r < 2; ++r) {
      int root_in_a = roots[r][0], root_local = roots[r][1];
      int mine = in_a == root_in_a;
      int root =
          !mine ? root_local : (local == root_local ? MPI_ROOT : MPI_PROC_NULL);
      int members = root_in_a ? q : p, mbase = root_in_a ? p : 0;
      int g[64], gs[8], cnt[8], dsp[8], at = 0;
      for (int i = members - 1; i >= 0; --i) {
        cnt[i] = 1 + (mbase + i + rep) % 3;
        dsp[i] = at;
        at += cnt[i] + 1;
      }
      /* MPI_Gather: 4 ints a member. */
      for (int i = 0; i < 64; ++i)
        g[i] = -1;
      for (int k = 0; k < 4; ++k)
        gs[k] = val(me, 0, k, rep + 20 + r);
      MPI_Gather(gs, root == MPI_PROC_NULL || root == MPI_ROOT ? 0 : 4, MPI_INT,
                 g, 4, MPI_INT, root, inter);
      if (root == MPI_ROOT) {
        for (int i = 0; i < members; ++i)
          for (int k = 0; k < 4; ++k)
            expect(g[i * 4 + k] == val(mbase + i, 0, k, rep + 20 + r), "gather",
                   g[i * 4 + k], i);
        save(g, sizeof(int) * 4 * members);
      }
      /* MPI_Gatherv: cnt[i] ints from member i at dsp[i]. */
      for (int i = 0; i < 64; ++i)
        g[i] = -1;
      int own = !mine ? cnt[local] : 0;
      MPI_Gatherv(gs, own, MPI_INT, g, cnt, dsp, MPI_INT, root, inter);
      if (root == MPI_ROOT) {
        for (int i = 0; i < members; ++i)
          for (int k = 0; k < cnt[i]; ++k)
            expect(g[dsp[i] + k] == val(mbase + i, 0, k, rep + 20 + r),
                   "gatherv", g[dsp[i] + k], i);
        save(g, sizeof(int) * at);
      }
      /* MPI_Scatter: 4 ints a member. */
      for (int i = 0; i < 64; ++i)
        g[i] = root == MPI_ROOT ? val(me, i / 4, i % 4, rep + 30 + r) : -1;
      for (int k = 0; k < 4; ++k)
        gs[k] = -1;
      MPI_Scatter(g, 4, MPI_INT, gs, !mine ? 4 : 0, MPI_INT, root, inter);
      if (!mine) {
        int rw = root_in_a ? root_local : p + root_local;
        for (int k = 0; k < 4; ++k)
          expect(gs[k] == val(rw, local, k, rep + 30 + r), "scatter", gs[k], k);
        save(gs, sizeof(int) * 4);
      }
      /* MPI_Scatterv: cnt[i] ints to member i from dsp[i]. */
      for (int k = 0; k < 4; ++k)
        gs[k] = -1;
      MPI_Scatterv(g, cnt, dsp, MPI_INT, gs, own, MPI_INT, root, inter);
      if (!mine) {
        int rw = root_in_a ? root_local : p + root_local;
        for (int k = 0; k < own; ++k) {
          int x = dsp[local] + k;
          expect(gs[k] == val(rw, x / 4, x % 4, rep + 30 + r), "scatterv",
                 gs[k], k);
        }
        save(gs, sizeof(int) * own);
      }
    }
  }
  /* 6. The started forms: MPI_Ibarrier, MPI_Ialltoall, MPI_Igather and
   * MPI_Iscatter (root: B's last rank), completed by MPI_Waitall. */
  {
    MPI_Request rq[4];
    int sc = in_a ? 2 : 3, rc = in_a ? 3 : 2;
    int sb[32], rb[32], g[32], gs[4], ss[32], sr[4];
    int root_local = q - 1, mine = !in_a;
    int root =
        !mine ? root_local : (local == root_local ? MPI_ROOT : MPI_PROC_NULL);
    for (int j = 0; j < other; ++j)
      for (int k = 0; k < sc; ++k)
        sb[j * sc + k] = val(me, other_base + j, k, 40);
    for (int i = 0; i < 32; ++i) {
      rb[i] = g[i] = -1;
      ss[i] = root == MPI_ROOT ? val(me, i / 3, i % 3, 41) : -1;
    }
    for (int k = 0; k < 3; ++k) {
      gs[k] = val(me, 0, k, 42);
      sr[k] = -1;
    }
    MPI_Ibarrier(inter, &rq[0]);
    MPI_Ialltoall(sb, sc, MPI_INT, rb, rc, MPI_INT, inter, &rq[1]);
    MPI_Igather(gs, 3, MPI_INT, g, 3, MPI_INT, root, inter, &rq[2]);
    MPI_Iscatter(ss, 3, MPI_INT, sr, 3, MPI_INT, root, inter, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    for (int j = 0; j < other; ++j)
      for (int k = 0; k < rc; ++k)
        expect(rb[j * rc + k] == val(other_base + j, me, k, 40), "ialltoall",
               rb[j * rc + k], j);
    save(rb, sizeof(int) * rc * other);
    if (root == MPI_ROOT) {
      for (int i = 0; i < p; ++i)
        for (int k = 0; k < 3; ++k)
          expect(g[i * 3 + k] == val(i, 0, k, 42), "igather", g[i * 3 + k], i);
      save(g, sizeof(int) * 3 * p);
    }
    if (!mine) {
      for (int k = 0; k < 3; ++k)
        expect(sr[k] == val(p + root_local, local, k, 41), "iscatter", sr[k],
               k);
      save(sr, sizeof(int) * 3);
    }
  }
  fclose(out);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "pmpi_inter_more: %d failures\n" : "pmpi_inter_more: passed\n",
           all);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return all != 0;
}
