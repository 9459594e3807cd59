/*===- tests/pmpi/pmpi_inter.c - Intercommunicator bcast and reductions ---===*/
/*
 * mpiexec -n 5|6 pmpi_inter OUTDIR: an unmodified MPI application calling
 * MPI_Bcast, MPI_Reduce and MPI_Allreduce on an intercommunicator, as an
 * application would; it knows nothing of choreo. World ranks 0..p-1 form
 * group A and the rest group B: 3 + 2 on 5 ranks, 2 + 4 on 6. Run with and
 * without LD_PRELOAD=libchoreo-mpi.so (tests/pmpi/run-app.sh): every rank
 * checks its results against the values the call must produce and writes
 * them to OUTDIR/rank<R>.bin, compared bit for bit between the runs.
 *
 *  1. MPI_Bcast of 1000 ints and of 3 doubles from a non-zero root of A
 *     and from the last rank of B (MPI_ROOT, MPI_PROC_NULL, the root's
 *     rank);
 *  2. MPI_Reduce with MPI_SUM on ints and on doubles, and with a user
 *     operator that does not commute (2 x 2 matrix products mod 2^32, the
 *     other group's matrices in rank order), to the same roots;
 *  3. MPI_Allreduce with the same three operators.
 * Each call runs twice (the second with the cached plan).
 * Rank 0 prints "pmpi_inter: passed" when every check held on every rank.
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMPI_TEST_NAME "pmpi_inter"
#include "pmpi_test_util.h"

/* A 2 x 2 matrix of uint32 per element: c = a * b (mod 2^32). */
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

#define N_INT 1000
#define N_DBL 3
#define N_MAT 5

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int p = size == 5 ? 3 : 2, q = size - p;
  int in_a = me < p, local = in_a ? me : me - p;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, local, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? p : 0, 11, &inter);
  open_results(argc > 1 ? argv[1] : ".");
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_UINT32_T, &mat);
  MPI_Type_commit(&mat);
  MPI_Op nc;
  MPI_Op_create(matop, 0, &nc);
  int other = in_a ? q : p, other_base = in_a ? p : 0;

  /* Roots: A's rank 1 (or 0 when A has one rank... it has 2 or 3), B's last. */
  int roots[2][2] = {{0, 1}, {1, q - 1}}; /* {group B?, local rank} */
  for (int rep = 0; rep < 2; ++rep)
    for (int r = 0; r < 2; ++r) {
      int root_in_a = !roots[r][0], root_local = roots[r][1];
      int root_world = root_in_a ? root_local : p + root_local;
      int mine = in_a == root_in_a;
      int root =
          !mine ? root_local : (local == root_local ? MPI_ROOT : MPI_PROC_NULL);
      /* 1. MPI_Bcast. */
      int *ib = malloc(N_INT * sizeof(int));
      double db[N_DBL];
      for (int i = 0; i < N_INT; ++i)
        ib[i] = root == MPI_ROOT ? root_world * 100003 + i * 7 + rep : -1;
      for (int i = 0; i < N_DBL; ++i)
        db[i] = root == MPI_ROOT ? root_world + 0.25 * i + rep : -1.0;
      MPI_Bcast(ib, N_INT, MPI_INT, root, inter);
      MPI_Bcast(db, N_DBL, MPI_DOUBLE, root, inter);
      if (!mine) {
        for (int i = 0; i < N_INT; ++i)
          expect(ib[i] == root_world * 100003 + i * 7 + rep, "bcast int", ib[i],
                 i);
        for (int i = 0; i < N_DBL; ++i)
          expect(db[i] == root_world + 0.25 * i + rep, "bcast double", i, 0);
        save(ib, N_INT * sizeof(int));
        save(db, sizeof db);
      }
      free(ib);
      /* 2. MPI_Reduce: the other group's vectors into the root. */
      int is[N_INT], ir[N_INT];
      double ds[N_DBL], dr[N_DBL];
      uint32_t ms[4 * N_MAT], mr[4 * N_MAT];
      for (int i = 0; i < N_INT; ++i) {
        is[i] = me * 31 + i + rep;
        ir[i] = -1;
      }
      for (int i = 0; i < N_DBL; ++i) {
        ds[i] = me + 0.5 * i;
        dr[i] = -1;
      }
      for (int i = 0; i < N_MAT; ++i)
        matrix_of(me, i + rep, ms + 4 * i);
      memset(mr, 0, sizeof mr);
      MPI_Reduce(is, ir, N_INT, MPI_INT, MPI_SUM, root, inter);
      MPI_Reduce(ds, dr, N_DBL, MPI_DOUBLE, MPI_SUM, root, inter);
      MPI_Reduce(ms, mr, N_MAT, mat, nc, root, inter);
      if (root == MPI_ROOT) {
        for (int i = 0; i < N_INT; ++i) {
          long want = 0;
          for (int k = 0; k < other; ++k)
            want += (other_base + k) * 31 + i + rep;
          expect(ir[i] == want, "reduce int", ir[i], want);
        }
        for (int i = 0; i < N_MAT; ++i) {
          uint32_t want[4] = {1, 0, 0, 1}, m[4];
          for (int k = 0; k < other; ++k) {
            matrix_of(other_base + k, i + rep, m);
            matmul(want, m, want);
          }
          expect(!memcmp(want, mr + 4 * i, sizeof want), "reduce matrix", i, 0);
        }
        save(ir, sizeof ir);
        save(dr, sizeof dr);
        save(mr, sizeof mr);
      }
      /* 3. MPI_Allreduce: each group gets the other group's reduction. */
      MPI_Allreduce(is, ir, N_INT, MPI_INT, MPI_SUM, inter);
      MPI_Allreduce(ds, dr, N_DBL, MPI_DOUBLE, MPI_SUM, inter);
      MPI_Allreduce(ms, mr, N_MAT, mat, nc, inter);
      for (int i = 0; i < N_INT; ++i) {
        long want = 0;
        for (int k = 0; k < other; ++k)
          want += (other_base + k) * 31 + i + rep;
        expect(ir[i] == want, "allreduce int", ir[i], want);
      }
      for (int i = 0; i < N_DBL; ++i) {
        double want = 0;
        for (int k = 0; k < other; ++k)
          want += other_base + k + 0.5 * i;
        expect(dr[i] == want, "allreduce double", i, 0);
      }
      for (int i = 0; i < N_MAT; ++i) {
        uint32_t want[4] = {1, 0, 0, 1}, m[4];
        for (int k = 0; k < other; ++k) {
          matrix_of(other_base + k, i + rep, m);
          matmul(want, m, want);
        }
        expect(!memcmp(want, mr + 4 * i, sizeof want), "allreduce matrix", i,
               0);
      }
      save(ir, sizeof ir);
      save(dr, sizeof dr);
      save(mr, sizeof mr);
    }
  fclose(out);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "pmpi_inter: %d failures\n" : "pmpi_inter: passed\n", all);
  MPI_Op_free(&nc);
  MPI_Type_free(&mat);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return all != 0;
}
