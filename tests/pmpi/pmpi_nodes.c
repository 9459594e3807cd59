/* pmpi_nodes.c - broadcasts and allgathers for a job on several nodes.
 *
 * mpiexec -n 4 pmpi_nodes OUTDIR: MPI_Bcast (64 KiB from every root, 8
 * bytes from root 0), MPI_Allgather (1000 ints) and MPI_Allgatherv (4096 +
 * 1024 r ints) on MPI_COMM_WORLD and on a duplicate of it, each result
 * checked against the values every rank must hold and written to
 * OUTDIR/rank<r> so that a run with libchoreo-mpi.so preloaded is compared
 * bit for bit with a native one (tests/pmpi/run-app.sh). With
 * CHOREO_NODES=2 the library sees two nodes of two ranks
 * (tests/pmpi/nodes.sh). Rank 0 prints "pmpi_nodes: passed" when every
 * check held on every rank.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMPI_TEST_NAME "pmpi_nodes"
#include "pmpi_test_util.h"

static int val(int test, int rank, int i) {
  return test * 1000003 + rank * 7919 + i * 31;
}

static void bcast(MPI_Comm c, int test, int bytes, int root) {
  unsigned char *buf = malloc((size_t)bytes);
  int r;
  MPI_Comm_rank(c, &r);
  for (int i = 0; i < bytes; ++i)
    buf[i] = r == root ? (unsigned char)(val(test, root, i) & 0xff) : 0;
  expect_one(MPI_Bcast(buf, bytes, MPI_BYTE, root, c) == MPI_SUCCESS,
             "MPI_Bcast", test);
  for (int i = 0; i < bytes; ++i)
    if (buf[i] != (unsigned char)(val(test, root, i) & 0xff)) {
      expect_one(0, "MPI_Bcast: wrong byte", i);
      break;
    }
  fwrite(buf, 1, (size_t)bytes, out);
  free(buf);
}

static void allgather(MPI_Comm c, int test, int n) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int *send = malloc(sizeof(int) * (size_t)n);
  int *recv = malloc(sizeof(int) * (size_t)n * (size_t)p);
  for (int i = 0; i < n; ++i)
    send[i] = val(test, r, i);
  expect_one(MPI_Allgather(send, n, MPI_INT, recv, n, MPI_INT, c) ==
                 MPI_SUCCESS,
             "MPI_Allgather", test);
  for (int q = 0; q < p; ++q)
    for (int i = 0; i < n; ++i)
      if (recv[q * n + i] != val(test, q, i)) {
        expect_one(0, "MPI_Allgather: wrong value from rank", q);
        q = p;
        break;
      }
  fwrite(recv, sizeof(int), (size_t)n * (size_t)p, out);
  free(send);
  free(recv);
}

static void allgatherv(MPI_Comm c, int test) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  int *counts = malloc(sizeof(int) * (size_t)p);
  int *displs = malloc(sizeof(int) * (size_t)p);
  int total = 0;
  for (int q = 0; q < p; ++q) {
    counts[q] = 4096 + 1024 * q;
    displs[q] = total;
    total += counts[q];
  }
  int *send = malloc(sizeof(int) * (size_t)counts[r]);
  int *recv = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < counts[r]; ++i)
    send[i] = val(test, r, i);
  expect_one(MPI_Allgatherv(send, counts[r], MPI_INT, recv, counts, displs,
                            MPI_INT, c) == MPI_SUCCESS,
             "MPI_Allgatherv", test);
  for (int q = 0; q < p; ++q)
    for (int i = 0; i < counts[q]; ++i)
      if (recv[displs[q] + i] != val(test, q, i)) {
        expect_one(0, "MPI_Allgatherv: wrong value from rank", q);
        q = p;
        break;
      }
  fwrite(recv, sizeof(int), (size_t)total, out);
  free(counts);
  free(displs);
  free(send);
  free(recv);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 2) {
    if (me == 0)
      fprintf(stderr, "usage: pmpi_nodes OUTDIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%d", argv[1], me);
  out = fopen(path, "wb");
  if (!out) {
    fprintf(stderr, "pmpi_nodes: cannot write %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* Errors are counted and reported (tests/pmpi/nodes.sh's refusals). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm comms[2] = {MPI_COMM_WORLD, dup};
  for (int k = 0; k < 2; ++k) {
    int test = 100 * k;
    for (int root = 0; root < p; ++root)
      bcast(comms[k], test + root, 64 << 10, root);
    bcast(comms[k], test + 10, 8, 0);
    allgather(comms[k], test + 20, 1000);
    allgatherv(comms[k], test + 30);
    /* Again: the cached plans run. */
    bcast(comms[k], test + 40, 64 << 10, 1);
  }
  MPI_Comm_free(&dup);
  fclose(out);
  /* The tally bypasses the library (PMPI_), which fails every call when
     its configuration is refused. */
  int all = 0;
  PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "pmpi_nodes: FAILED\n" : "pmpi_nodes: passed\n");
  MPI_Finalize();
  return all != 0;
}
