/* tests/pmpi/pmpi_nbv.c - the started v forms: MPI_Igatherv,
 * MPI_Iscatterv, MPI_Ialltoallv.
 *
 * An unmodified MPI program (it links MPICH only) that run-app.sh runs
 * natively and with libchoreo-mpi.so preloaded. With the library their
 * counts travel in the run's first step (docs/pmpi.md, "The v forms"):
 * every call here starts without waiting for the other ranks. Rounds of
 * new shapes (counts with zeros, displacements in reverse order, a root
 * other than 0, MPI_IN_PLACE at the root), a shape repeated with new data
 * (the plan found again) and twice outstanding at once while the last
 * rank starts only after rank 0's starts returned (a start that waited for
 * the other ranks would hang), all three calls and an MPI_Iallreduce
 * outstanding together on two communicators with a point-to-point ring in
 * one MPI_Waitall or completed in reverse order, and the _c forms. Each
 * rank writes its results to DIR/rankR.bin (compared bit for bit with the
 * native run's); alarm() kills a hung job after 60 s. Rank 0 prints
 * "pmpi_nbv: passed" when every check held on every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_nbv"
#include "pmpi_test_util.h"

static int np;

static int val(int test, int from, int to, int k) {
  return test * 1000003 + from * 7919 + to * 104729 + k;
}

/* Member i's count in test t: zeros included. */
static int cnt(int t, int i) { return (3 * i + t) % 4; }

struct gv {
  int counts[64], displs[64], total, root, ip, test;
  int *in, *all;
};

/* An MPI_Igatherv of test t to root, started (not waited for). */
static void gv_start(struct gv *g, int t, int root, int in_place,
                     MPI_Comm comm, MPI_Request *q) {
  g->test = t, g->root = root, g->ip = in_place && me == root, g->total = 0;
  for (int i = np - 1; i >= 0; --i) { /* displacements in reverse order */
    g->counts[i] = cnt(t, i);
    g->displs[i] = g->total, g->total += g->counts[i];
  }
  int mine = g->counts[me];
  g->in = malloc(sizeof(int) * (mine + 1));
  g->all = calloc(g->total + 1, sizeof(int));
  for (int k = 0; k < mine; ++k) {
    g->in[k] = val(t, me, root, k);
    if (g->ip)
      g->all[g->displs[me] + k] = g->in[k];
  }
  MPI_Igatherv(g->ip ? MPI_IN_PLACE : g->in, mine, MPI_INT, g->all, g->counts,
               g->displs, MPI_INT, root, comm, q);
}
static void gv_check(struct gv *g) {
  if (me == g->root) {
    for (int i = 0; i < np; ++i)
      for (int k = 0; k < g->counts[i]; ++k)
        expect_test(g->all[g->displs[i] + k] == val(g->test, i, g->root, k),
                    "gatherv block", g->test);
    save(g->all, sizeof(int) * g->total);
  }
  free(g->in);
  free(g->all);
}

struct sv {
  int counts[64], displs[64], total, root, test;
  int *all, *got;
};
static void sv_start(struct sv *s, int t, int root, MPI_Comm comm,
                     MPI_Request *q) {
  s->test = t, s->root = root, s->total = 0;
  for (int i = np - 1; i >= 0; --i) {
    s->counts[i] = cnt(t + 1, i);
    s->displs[i] = s->total, s->total += s->counts[i];
  }
  s->all = calloc(s->total + 1, sizeof(int));
  s->got = calloc(s->counts[me] + 1, sizeof(int));
  for (int i = 0; i < np && me == root; ++i)
    for (int k = 0; k < s->counts[i]; ++k)
      s->all[s->displs[i] + k] = val(t, root, i, k);
  MPI_Iscatterv(s->all, s->counts, s->displs, MPI_INT, s->got, s->counts[me],
                MPI_INT, root, comm, q);
}
static void sv_check(struct sv *s) {
  for (int k = 0; k < s->counts[me]; ++k)
    expect_test(s->got[k] == val(s->test, s->root, me, k), "scatterv slice",
                s->test);
  save(s->got, sizeof(int) * s->counts[me]);
  free(s->all);
  free(s->got);
}

struct av {
  int sc[64], sd[64], rc[64], rd[64], st, rt, test;
  int *in, *all;
};
/* Rank i sends rank j (i + 2j + t) % 4 ints: zeros, a skewed matrix. */
static void av_start(struct av *a, int t, MPI_Comm comm, MPI_Request *q) {
  a->test = t, a->st = a->rt = 0;
  for (int j = np - 1; j >= 0; --j) {
    a->sc[j] = (me + 2 * j + t) % 4, a->rc[j] = (j + 2 * me + t) % 4;
    a->sd[j] = a->st, a->st += a->sc[j];
    a->rd[j] = a->rt, a->rt += a->rc[j];
  }
  a->in = malloc(sizeof(int) * (a->st + 1));
  a->all = calloc(a->rt + 1, sizeof(int));
  for (int j = 0; j < np; ++j)
    for (int k = 0; k < a->sc[j]; ++k)
      a->in[a->sd[j] + k] = val(t, me, j, k);
  MPI_Ialltoallv(a->in, a->sc, a->sd, MPI_INT, a->all, a->rc, a->rd, MPI_INT,
                 comm, q);
}
static void av_check(struct av *a) {
  for (int j = 0; j < np; ++j)
    for (int k = 0; k < a->rc[j]; ++k)
      expect_test(a->all[a->rd[j] + k] == val(a->test, j, me, k),
                  "alltoallv block", a->test);
  save(a->all, sizeof(int) * a->rt);
  free(a->in);
  free(a->all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  alarm(60);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc < 2 || np > 64) {
    if (me == 0)
      fprintf(stderr, "usage: pmpi_nbv DIR (at most 64 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  open_results(argv[1]);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Request q[8];
  MPI_Status st[8];

  /* 1. New shapes, one at a time: roots other than 0, in place. */
  for (int t = 0; t < 4; ++t) {
    struct gv g;
    struct sv s;
    struct av a;
    gv_start(&g, t, (t + np - 1) % np, t % 2, MPI_COMM_WORLD, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    gv_check(&g);
    sv_start(&s, t, (t + 1) % np, MPI_COMM_WORLD, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    sv_check(&s);
    av_start(&a, t, MPI_COMM_WORLD, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    av_check(&a);
  }

  /* 2. One shape again with new data, twice outstanding at once (a new
   * shape in round 0): the last rank starts only when rank 0 says its
   * starts returned, so a start that waited for the other ranks would hang
   * (alarm). */
  for (int r = 0; r < 3; ++r) {
    struct gv g1, g2;
    int token = r;
    if (me == np - 1 && np > 1)
      MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    gv_start(&g1, 5, 1 % np, 0, MPI_COMM_WORLD, &q[0]);
    gv_start(&g2, 5, 1 % np, 1, MPI_COMM_WORLD, &q[1]);
    if (me == 0 && np > 1)
      MPI_Send(&token, 1, MPI_INT, np - 1, 5, MPI_COMM_WORLD);
    MPI_Waitall(2, q, st);
    gv_check(&g1);
    gv_check(&g2);
  }

  /* 3. All three and an MPI_Iallreduce on two communicators outstanding,
   * with a point-to-point ring, in one MPI_Waitall; then in reverse. */
  for (int r = 0; r < 2; ++r) {
    struct gv g;
    struct sv s;
    struct av a;
    int x = me + 1, sum = 0, from = -1, to = me;
    gv_start(&g, 7 + r, 2 % np, 1, dup, &q[0]);
    sv_start(&s, 7 + r, np - 1, MPI_COMM_WORLD, &q[1]);
    av_start(&a, 7 + r, dup, &q[2]);
    MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[3]);
    MPI_Irecv(&from, 1, MPI_INT, (me + np - 1) % np, 9, MPI_COMM_WORLD, &q[4]);
    MPI_Isend(&to, 1, MPI_INT, (me + 1) % np, 9, MPI_COMM_WORLD, &q[5]);
    if (r == 0) {
      MPI_Waitall(6, q, st);
    } else {
      for (int i = 5; i >= 0; --i)
        MPI_Wait(&q[i], MPI_STATUS_IGNORE);
    }
    expect_test(sum == np * (np + 1) / 2, "allreduce", 7 + r);
    expect_test(from == (me + np - 1) % np, "ring", 7 + r);
    gv_check(&g);
    sv_check(&s);
    av_check(&a);
  }

  /* 4. The _c forms. */
  {
    MPI_Count counts[64], displs_c[64];
    MPI_Aint displs[64];
    MPI_Count total = 0;
    for (int i = 0; i < np; ++i) {
      counts[i] = cnt(11, i), displs[i] = total, displs_c[i] = total;
      total += counts[i];
    }
    (void)displs_c;
    int mine = (int)counts[me];
    int *in = malloc(sizeof(int) * (mine + 1)),
        *all = calloc(total + 1, sizeof(int));
    for (int k = 0; k < mine; ++k)
      in[k] = val(11, me, 0, k);
    MPI_Igatherv_c(in, mine, MPI_INT, all, counts, displs, MPI_INT, 0,
                   MPI_COMM_WORLD, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    for (int i = 0; i < np && me == 0; ++i)
      for (int k = 0; k < counts[i]; ++k)
        expect_test(all[displs[i] + k] == val(11, i, 0, k), "gatherv_c block",
                    11);
    if (me == 0)
      save(all, sizeof(int) * total);
    int *got = calloc(mine + 1, sizeof(int));
    for (int i = 0; i < np && me == 0; ++i)
      for (int k = 0; k < counts[i]; ++k)
        all[displs[i] + k] = val(12, 0, i, k);
    MPI_Iscatterv_c(all, counts, displs, MPI_INT, got, mine, MPI_INT, 0,
                    MPI_COMM_WORLD, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    for (int k = 0; k < mine; ++k)
      expect_test(got[k] == val(12, 0, me, k), "scatterv_c slice", 12);
    save(got, sizeof(int) * mine);
    free(in);
    free(all);
    free(got);
  }

  fclose(out);
  int bad = 0;
  MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(bad ? "pmpi_nbv: FAILED (%d checks)\n" : "pmpi_nbv: passed\n", bad);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return bad != 0;
}
