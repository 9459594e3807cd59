/*===- tests/pmpi/pmpi_inter_nb.c - Started and persistent inter calls ----===*/
/*
 * mpiexec -n 5|6 pmpi_inter_nb OUTDIR: an unmodified MPI application (it
 * links MPICH only) calling MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce and
 * MPI_Bcast_init, MPI_Reduce_init, MPI_Allreduce_init on an
 * intercommunicator of world ranks 0..p-1 (group A) and the rest (B): 3 + 2
 * on 5 ranks, 2 + 4 on 6. run-app.sh runs it natively and with
 * LD_PRELOAD=libchoreo-mpi.so; every rank checks its results against the
 * values the call must produce and writes them to OUTDIR/rank<R>.bin,
 * compared bit for bit between the runs.
 *
 *  1. MPI_Ibcast of 1000 ints and of 50 ints through a strided vector type
 *     (a packed copy kept for the run, unpacked when it completes) from a
 *     non-zero root of A and from the last rank of B, with arithmetic
 *     and MPI_Test between start and wait; the strided one blocking too
 *     (MPI_Bcast);
 *  2. MPI_Ireduce and MPI_Iallreduce with MPI_SUM on ints and with a user
 *     operator that does not commute (2 x 2 matrix products mod 2^32, the
 *     other group's matrices in rank order);
 *  3. three calls outstanding at once, two on the intercommunicator and an
 *     MPI_Iallreduce on MPI_COMM_WORLD, with a ring of point-to-point
 *     requests, completed by one MPI_Waitall in the reverse order;
 *  4. persistent MPI_Bcast_init, MPI_Reduce_init, MPI_Allreduce_init
 *     (matrices) started together with MPI_Startall 100 times, new data
 *     every start, checked every time; then freed.
 * Rank 0 prints "pmpi_inter_nb: passed" when every check held on every rank.
 *
 * The broadcasts' roots are rank 0 of their group: MPICH 4.0.2's own
 * MPI_Ibcast and MPI_Bcast_init on an intercommunicator leave the other
 * group's buffers unchanged when the root is another rank (3 + 2 ranks,
 * root 1 or 2 of A; its blocking MPI_Bcast is right), so the native run
 * could not be the reference there. The reductions' roots are not 0.
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_inter_nb"
#include "pmpi_test_util.h"

static void matmul(const uint32_t *a, const uint32_t *b, uint32_t *c) {
  uint32_t r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                   a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
  memcpy(c, r, sizeof r);
}

/* MPI's user function: inout = in op inout (in from the lower ranks). */
static void matop(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  uint32_t *a = in, *b = inout;
  for (int i = 0; i < *len; ++i)
    matmul(a + 4 * i, b + 4 * i, b + 4 * i);
}

static void matrix_of(int rank, int i, uint32_t *m) {
  m[0] = 1 + rank;
  m[1] = 2 * rank + i + 1;
  m[2] = (uint32_t)(i * 3 + 7);
  m[3] = 5 + rank * i;
}

/* The product of the other group's matrices of element i, in rank order. */
static void matrix_want(int other, int other_base, int i, uint32_t *want) {
  uint32_t m[4];
  want[0] = 1, want[1] = 0, want[2] = 0, want[3] = 1;
  for (int k = 0; k < other; ++k) {
    matrix_of(other_base + k, i, m);
    matmul(want, m, want);
  }
}

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

#define N_INT 1000
#define N_VEC 50
#define N_MAT 5

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  alarm(120);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int p = size == 5 ? 3 : 2, q = size - p;
  int in_a = me < p, local = in_a ? me : me - p;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, local, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? p : 0, 11, &inter);
  open_results(argc > 1 ? argv[1] : ".");
  MPI_Datatype mat, strided;
  MPI_Type_contiguous(4, MPI_UINT32_T, &mat);
  MPI_Type_commit(&mat);
  MPI_Type_vector(N_VEC, 1, 2, MPI_INT, &strided); /* every other int */
  MPI_Type_commit(&strided);
  MPI_Op nc;
  MPI_Op_create(matop, 0, &nc);
  int other = in_a ? q : p, other_base = in_a ? p : 0;
  int roots[2][2] = {{0, 1}, {1, q - 1}}; /* {group B?, local rank} */

  /* 1 and 2: each started call waited for after some arithmetic. */
  for (int rep = 0; rep < 2; ++rep)
    for (int r = 0; r < 2; ++r) {
      int root_in_a = !roots[r][0], root_local = roots[r][1];
      int root_world = root_in_a ? root_local : p + root_local;
      int mine = in_a == root_in_a;
      int root =
          !mine ? root_local : (local == root_local ? MPI_ROOT : MPI_PROC_NULL);
      /* The broadcasts' root: rank 0 of the same group (MPICH's own
       * MPI_Ibcast on an intercommunicator delivers nothing from another
       * root: see the header). */
      int bworld = root_in_a ? 0 : p;
      int broot = !mine ? 0 : (local == 0 ? MPI_ROOT : MPI_PROC_NULL);
      int ib[N_INT], vb[2 * N_VEC];
      for (int i = 0; i < N_INT; ++i)
        ib[i] = broot == MPI_ROOT ? bworld * 100003 + i * 7 + rep : -1;
      for (int i = 0; i < 2 * N_VEC; ++i)
        vb[i] = broot == MPI_ROOT ? bworld * 1000 + i + rep : -7;
      MPI_Request rq[2];
      MPI_Ibcast(ib, N_INT, MPI_INT, broot, inter, &rq[0]);
      MPI_Ibcast(vb, 1, strided, broot, inter, &rq[1]);
      compute(&rq[0]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      /* The blocking form of the strided broadcast too: with MPICH's
       * broadcast named (CHOREO_BCAST_INTER=native), the packed copy must
       * not be unpacked over MPICH's result. */
      int wb[2 * N_VEC];
      for (int i = 0; i < 2 * N_VEC; ++i)
        wb[i] = root == MPI_ROOT ? root_world * 1000 + i + rep : -7;
      MPI_Bcast(wb, 1, strided, root, inter);
      if (!mine) {
        for (int i = 0; i < 2 * N_VEC; ++i)
          expect(wb[i] == (i % 2 ? -7 : root_world * 1000 + i + rep),
                 "bcast strided", wb[i], i);
        save(wb, sizeof wb);
        for (int i = 0; i < N_INT; ++i)
          expect(ib[i] == bworld * 100003 + i * 7 + rep, "ibcast int", ib[i],
                 i);
        for (int i = 0; i < 2 * N_VEC; ++i)
          expect(vb[i] == (i % 2 ? -7 : bworld * 1000 + i + rep),
                 "ibcast strided", vb[i], i);
        save(ib, sizeof ib);
        save(vb, sizeof vb);
      }
      int is[N_INT], ir[N_INT];
      uint32_t ms[4 * N_MAT], mr[4 * N_MAT];
      for (int i = 0; i < N_INT; ++i)
        is[i] = me * 31 + i + rep, ir[i] = -1;
      for (int i = 0; i < N_MAT; ++i)
        matrix_of(me, i + rep, ms + 4 * i);
      memset(mr, 0, sizeof mr);
      MPI_Ireduce(is, ir, N_INT, MPI_INT, MPI_SUM, root, inter, &rq[0]);
      MPI_Ireduce(ms, mr, N_MAT, mat, nc, root, inter, &rq[1]);
      compute(&rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      if (root == MPI_ROOT) {
        for (int i = 0; i < N_INT; ++i) {
          long want = 0;
          for (int k = 0; k < other; ++k)
            want += (other_base + k) * 31 + i + rep;
          expect(ir[i] == want, "ireduce int", ir[i], want);
        }
        for (int i = 0; i < N_MAT; ++i) {
          uint32_t want[4];
          matrix_want(other, other_base, i + rep, want);
          expect(!memcmp(want, mr + 4 * i, sizeof want), "ireduce matrix", i,
                 0);
        }
        save(ir, sizeof ir);
        save(mr, sizeof mr);
      }
      MPI_Iallreduce(is, ir, N_INT, MPI_INT, MPI_SUM, inter, &rq[0]);
      MPI_Iallreduce(ms, mr, N_MAT, mat, nc, inter, &rq[1]);
      compute(NULL);
      MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
      MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
      for (int i = 0; i < N_INT; ++i) {
        long want = 0;
        for (int k = 0; k < other; ++k)
          want += (other_base + k) * 31 + i + rep;
        expect(ir[i] == want, "iallreduce int", ir[i], want);
      }
      for (int i = 0; i < N_MAT; ++i) {
        uint32_t want[4];
        matrix_want(other, other_base, i + rep, want);
        expect(!memcmp(want, mr + 4 * i, sizeof want), "iallreduce matrix", i,
               0);
      }
      save(ir, sizeof ir);
      save(mr, sizeof mr);
    }

  /* 3. Three collectives and a point-to-point ring outstanding at once,
   * completed by one MPI_Waitall in the reverse order of their starts. */
  {
    int bb[N_INT], as[N_INT], ar[N_INT], ws[8], wr[8], token = me, got = -1;
    int root = in_a ? (local == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    for (int i = 0; i < N_INT; ++i) {
      bb[i] = root == MPI_ROOT ? 5 * i + 3 : 0;
      as[i] = me + i;
      ar[i] = -1;
    }
    for (int i = 0; i < 8; ++i)
      ws[i] = me * 8 + i, wr[i] = -1;
    MPI_Request rq[5];
    MPI_Irecv(&got, 1, MPI_INT, (me + size - 1) % size, 9, MPI_COMM_WORLD,
              &rq[4]);
    MPI_Ibcast(bb, N_INT, MPI_INT, root, inter, &rq[3]);
    MPI_Iallreduce(ws, wr, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]);
    MPI_Iallreduce(as, ar, N_INT, MPI_INT, MPI_SUM, inter, &rq[1]);
    MPI_Isend(&token, 1, MPI_INT, (me + 1) % size, 9, MPI_COMM_WORLD, &rq[0]);
    MPI_Status st[5];
    MPI_Waitall(5, rq, st);
    expect(got == (me + size - 1) % size, "ring token", got, me);
    expect(st[4].MPI_SOURCE == (me + size - 1) % size && st[4].MPI_TAG == 9,
           "ring status", st[4].MPI_SOURCE, st[4].MPI_TAG);
    for (int i = 0; i < N_INT; ++i) {
      if (!in_a)
        expect(bb[i] == 5 * i + 3, "mixed ibcast", bb[i], i);
      long want = 0;
      for (int k = 0; k < other; ++k)
        want += other_base + k + i;
      expect(ar[i] == want, "mixed iallreduce inter", ar[i], want);
    }
    for (int i = 0; i < 8; ++i)
      expect(wr[i] == size * (size - 1) * 4 + size * i, "mixed iallreduce",
             wr[i], i);
    save(bb, sizeof bb);
    save(ar, sizeof ar);
    save(wr, sizeof wr);
    save(&got, sizeof got);
  }

  /* 4. Persistent calls started together 100 times. */
  {
    int root = in_a ? q - 1 : (local == q - 1 ? MPI_ROOT : MPI_PROC_NULL);
    int broot = in_a ? 0 : (local == 0 ? MPI_ROOT : MPI_PROC_NULL);
    int root_world = p;
    int bb[N_INT], rs[N_INT], rr[N_INT];
    uint32_t ms[4 * N_MAT], mr[4 * N_MAT];
    MPI_Request rq[3];
    MPI_Bcast_init(bb, N_INT, MPI_INT, broot, inter, MPI_INFO_NULL, &rq[0]);
    MPI_Reduce_init(rs, rr, N_INT, MPI_INT, MPI_SUM, root, inter, MPI_INFO_NULL,
                    &rq[1]);
    MPI_Allreduce_init(ms, mr, N_MAT, mat, nc, inter, MPI_INFO_NULL, &rq[2]);
    long sum = 0;
    for (int it = 0; it < 100; ++it) {
      for (int i = 0; i < N_INT; ++i) {
        bb[i] = broot == MPI_ROOT ? root_world * 7 + i + it : -1;
        rs[i] = me + i * it;
        rr[i] = -1;
      }
      for (int i = 0; i < N_MAT; ++i)
        matrix_of(me, i + it, ms + 4 * i);
      MPI_Startall(3, rq);
      compute(&rq[2]);
      MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
      for (int i = 0; i < N_INT; ++i) {
        if (in_a)
          expect(bb[i] == root_world * 7 + i + it, "persistent bcast", bb[i],
                 it);
        if (root == MPI_ROOT) {
          long want = 0;
          for (int k = 0; k < other; ++k)
            want += other_base + k + i * it;
          expect(rr[i] == want, "persistent reduce", rr[i], it);
        }
        sum += bb[i] + rr[i];
      }
      for (int i = 0; i < N_MAT; ++i) {
        uint32_t want[4];
        matrix_want(other, other_base, i + it, want);
        expect(!memcmp(want, mr + 4 * i, sizeof want), "persistent allreduce",
               i, it);
      }
      save(mr, sizeof mr);
    }
    save(&sum, sizeof sum);
    for (int k = 0; k < 3; ++k)
      MPI_Request_free(&rq[k]);
  }

  fclose(out);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "pmpi_inter_nb: %d failures\n" : "pmpi_inter_nb: passed\n",
           all);
  MPI_Op_free(&nc);
  MPI_Type_free(&mat);
  MPI_Type_free(&strided);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return all != 0;
}
