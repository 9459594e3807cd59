/*===- tests/pmpi/pmpi_bigcount.c - Every `_c` large-count form --------===*/
/*
 * mpiexec -n 5 pmpi_bigcount OUTDIR: calls every MPI-4 `_c` form of the
 * calls libchoreo-mpi.so serves, with small MPI_Count counts and MPI_Aint
 * displacements: the thirteen blocking calls, the seven non-blocking ones
 * (MPI_Iallgather_c, ..., waited on) and their persistent forms
 * (MPI_Allgather_init_c, ..., started twice with new inputs, then freed).
 * Every call has a shape of its own (its count), and the started and the
 * persistent calls run on communicators of their own ("started_c",
 * "persistent_c"), so that the library's verbose output, once per
 * communicator, call and algorithm, names the algorithm of each
 * (tests/pmpi/CMakeLists.txt expects every one). 5 ranks: MPICH 4.0.2's
 * own MPI_Allgather_init returns stale blocks when restarted on 4. Each rank writes every result buffer to
 * OUTDIR/rank<r>.bin, which run-app.sh compares bit for bit with the
 * native run's; rank 0 prints "pmpi_bigcount: passed" when every call
 * returned MPI_SUCCESS on every rank.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P = 5 };

static int me, failures;
static FILE *out;

static void check(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "pmpi_bigcount: rank %d: %s failed (%d)\n", me, what, rc);
    ++failures;
  }
}

static void put(const void *buf, size_t bytes) { fwrite(buf, 1, bytes, out); }

/* Distinct values per rank, call and position. */
static void fill(int *v, size_t n, int salt) {
  for (size_t i = 0; i < n; ++i)
    v[i] = (int)(me * 1000 + salt * 37 + (int)i * 7 + 1);
}

/* The blocking calls; Base makes each call's shape its own. */
static void blocking(void) {
  int send[64], recv[256];
  MPI_Count counts[P];
  MPI_Aint displs[P];
  MPI_Count at = 0;
  /* Allgather_c: 3 ints each. */
  fill(send, 3, 1);
  memset(recv, 0, sizeof recv);
  check(MPI_Allgather_c(send, 3, MPI_INT, recv, 3, MPI_INT, MPI_COMM_WORLD),
        "MPI_Allgather_c");
  put(recv, 3 * P * sizeof(int));
  /* Allgatherv_c: r + 1 ints, a gap of 2 between members. */
  for (int r = 0; r < P; ++r) {
    counts[r] = r + 1;
    displs[r] = at;
    at += counts[r] + 2;
  }
  fill(send, (size_t)me + 1, 2);
  memset(recv, 0, sizeof recv);
  check(MPI_Allgatherv_c(send, me + 1, MPI_INT, recv, counts, displs, MPI_INT,
                         MPI_COMM_WORLD),
        "MPI_Allgatherv_c");
  put(recv, (size_t)at * sizeof(int));
  /* Bcast_c: 5 ints from root 1. */
  fill(recv, 5, me == 1 ? 3 : 99);
  check(MPI_Bcast_c(recv, 5, MPI_INT, 1, MPI_COMM_WORLD), "MPI_Bcast_c");
  put(recv, 5 * sizeof(int));
  /* Reduce_c: 7 ints to root 2. */
  fill(send, 7, 4);
  memset(recv, 0, sizeof recv);
  check(MPI_Reduce_c(send, recv, 7, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD),
        "MPI_Reduce_c");
  put(recv, 7 * sizeof(int));
  /* Allreduce_c: 9 ints, in place. */
  fill(recv, 9, 5);
  check(
      MPI_Allreduce_c(MPI_IN_PLACE, recv, 9, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
      "MPI_Allreduce_c");
  put(recv, 9 * sizeof(int));
  /* Reduce_scatter_c: r + 2 ints to rank r. */
  MPI_Count total = 0;
  for (int r = 0; r < P; ++r)
    total += counts[r] = r + 2;
  fill(send, (size_t)total, 6);
  memset(recv, 0, sizeof recv);
  check(MPI_Reduce_scatter_c(send, recv, counts, MPI_INT, MPI_SUM,
                             MPI_COMM_WORLD),
        "MPI_Reduce_scatter_c");
  put(recv, (size_t)(me + 2) * sizeof(int));
  /* Reduce_scatter_block_c: 4 ints each. */
  fill(send, 4 * P, 7);
  memset(recv, 0, sizeof recv);
  check(MPI_Reduce_scatter_block_c(send, recv, 4, MPI_INT, MPI_SUM,
                                   MPI_COMM_WORLD),
        "MPI_Reduce_scatter_block_c");
  put(recv, 4 * sizeof(int));
  /* Alltoall_c: 2 ints per pair. */
  fill(send, 2 * P, 8);
  memset(recv, 0, sizeof recv);
  check(MPI_Alltoall_c(send, 2, MPI_INT, recv, 2, MPI_INT, MPI_COMM_WORLD),
        "MPI_Alltoall_c");
  put(recv, 2 * P * sizeof(int));
  /* Alltoallv_c: (i + j) % 3 + 1 ints from i to j. */
  MPI_Count scounts[P], rcounts[P];
  MPI_Aint sdispls[P], rdispls[P];
  MPI_Aint s = 0, r2 = 0;
  for (int j = 0; j < P; ++j) {
    scounts[j] = (me + j) % 3 + 1;
    rcounts[j] = (j + me) % 3 + 1;
    sdispls[j] = s;
    rdispls[j] = r2 + 1;
    s += scounts[j];
    r2 += rcounts[j] + 1;
  }
  fill(send, (size_t)s, 9);
  memset(recv, 0, sizeof recv);
  check(MPI_Alltoallv_c(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls,
                        MPI_INT, MPI_COMM_WORLD),
        "MPI_Alltoallv_c");
  put(recv, (size_t)r2 * sizeof(int));
  /* Gather_c: 6 ints to root 3. */
  fill(send, 6, 10);
  memset(recv, 0, sizeof recv);
  check(MPI_Gather_c(send, 6, MPI_INT, recv, 6, MPI_INT, 3, MPI_COMM_WORLD),
        "MPI_Gather_c");
  put(recv, 6 * P * sizeof(int));
  /* Gatherv_c: r + 3 ints to root 0, members in reverse order. */
  at = 0;
  for (int r = P - 1; r >= 0; --r) {
    counts[r] = r + 3;
    displs[r] = at;
    at += counts[r];
  }
  fill(send, (size_t)me + 3, 11);
  memset(recv, 0, sizeof recv);
  check(MPI_Gatherv_c(send, me + 3, MPI_INT, recv, counts, displs, MPI_INT, 0,
                      MPI_COMM_WORLD),
        "MPI_Gatherv_c");
  put(recv, (size_t)at * sizeof(int));
  /* Scatter_c: 5 ints from root 1... */
  fill(send, 5 * P, 12);
  memset(recv, 0, sizeof recv);
  check(MPI_Scatter_c(send, 5, MPI_INT, recv, 5, MPI_INT, 1, MPI_COMM_WORLD),
        "MPI_Scatter_c");
  put(recv, 5 * sizeof(int));
  /* Scatterv_c: r + 4 ints from root 2. */
  at = 0;
  for (int r = 0; r < P; ++r) {
    counts[r] = r + 4;
    displs[r] = at;
    at += counts[r];
  }
  fill(send, (size_t)at, 13);
  memset(recv, 0, sizeof recv);
  check(MPI_Scatterv_c(send, counts, displs, MPI_INT, recv, me + 4, MPI_INT, 2,
                       MPI_COMM_WORLD),
        "MPI_Scatterv_c");
  put(recv, (size_t)(me + 4) * sizeof(int));
}

/* One non-blocking call (Rounds 1) or persistent call (Rounds 2: started
 * twice, new inputs each time) of each served form. */
typedef struct {
  int send[512], recv[512];
} Bufs;

static void started(int persistent) {
  static Bufs b[7];
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_name(comm, persistent ? "persistent_c" : "started_c");
  MPI_Request req[7];
  MPI_Count counts[P], blocks[P];
  MPI_Aint displs[P];
  MPI_Count at = 0, total = 0;
  int k = persistent ? 40 : 20; /* each call's own count */
  for (int r = 0; r < P; ++r) {
    counts[r] = r + 1 + k;
    displs[r] = at;
    at += counts[r] + 1;
    total += blocks[r] = r + 2 + k;
  }
  for (int round = 0; round < (persistent ? 2 : 1); ++round) {
    int salt = 100 * (persistent + 1) + round * 10;
    fill(b[0].send, (size_t)k + 1, salt);
    fill(b[1].send, (size_t)counts[me], salt + 1);
    fill(b[2].recv, (size_t)k + 3, me == 3 ? salt + 2 : 99);
    fill(b[3].send, (size_t)k + 4, salt + 3);
    fill(b[4].send, (size_t)k + 5, salt + 4);
    fill(b[5].send, (size_t)total, salt + 5);
    fill(b[6].send, (size_t)(k + 6) * P, salt + 6);
    for (int c = 0; c < 7; ++c)
      if (c != 2)
        memset(b[c].recv, 0, sizeof b[c].recv);
    if (!persistent) {
      check(MPI_Iallgather_c(b[0].send, k + 1, MPI_INT, b[0].recv, k + 1,
                             MPI_INT, comm, &req[0]),
            "MPI_Iallgather_c");
      check(MPI_Iallgatherv_c(b[1].send, counts[me], MPI_INT, b[1].recv, counts,
                              displs, MPI_INT, comm, &req[1]),
            "MPI_Iallgatherv_c");
      check(MPI_Ibcast_c(b[2].recv, k + 3, MPI_INT, 3, comm, &req[2]),
            "MPI_Ibcast_c");
      check(MPI_Ireduce_c(b[3].send, b[3].recv, k + 4, MPI_INT, MPI_SUM, 1,
                          comm, &req[3]),
            "MPI_Ireduce_c");
      check(MPI_Iallreduce_c(b[4].send, b[4].recv, k + 5, MPI_INT, MPI_SUM,
                             comm, &req[4]),
            "MPI_Iallreduce_c");
      check(MPI_Ireduce_scatter_c(b[5].send, b[5].recv, blocks, MPI_INT,
                                  MPI_SUM, comm, &req[5]),
            "MPI_Ireduce_scatter_c");
      check(MPI_Ireduce_scatter_block_c(b[6].send, b[6].recv, k + 6, MPI_INT,
                                        MPI_SUM, comm, &req[6]),
            "MPI_Ireduce_scatter_block_c");
    } else {
      if (round == 0) {
        MPI_Info i = MPI_INFO_NULL;
        check(MPI_Allgather_init_c(b[0].send, k + 1, MPI_INT, b[0].recv, k + 1,
                                   MPI_INT, comm, i, &req[0]),
              "MPI_Allgather_init_c");
        check(MPI_Allgatherv_init_c(b[1].send, counts[me], MPI_INT, b[1].recv,
                                    counts, displs, MPI_INT, comm, i,
                                    &req[1]),
              "MPI_Allgatherv_init_c");
        check(MPI_Bcast_init_c(b[2].recv, k + 3, MPI_INT, 3, comm, i,
                               &req[2]),
              "MPI_Bcast_init_c");
        check(MPI_Reduce_init_c(b[3].send, b[3].recv, k + 4, MPI_INT, MPI_SUM,
                                1, comm, i, &req[3]),
              "MPI_Reduce_init_c");
        check(MPI_Allreduce_init_c(b[4].send, b[4].recv, k + 5, MPI_INT,
                                   MPI_SUM, comm, i, &req[4]),
              "MPI_Allreduce_init_c");
        check(MPI_Reduce_scatter_init_c(b[5].send, b[5].recv, blocks, MPI_INT,
                                        MPI_SUM, comm, i, &req[5]),
              "MPI_Reduce_scatter_init_c");
        check(MPI_Reduce_scatter_block_init_c(b[6].send, b[6].recv, k + 6,
                                              MPI_INT, MPI_SUM, comm,
                                              i, &req[6]),
              "MPI_Reduce_scatter_block_init_c");
      }
      check(MPI_Startall(7, req), "MPI_Startall");
    }
    check(MPI_Waitall(7, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
    put(b[0].recv, (size_t)(k + 1) * P * sizeof(int));
    put(b[1].recv, (size_t)at * sizeof(int));
    put(b[2].recv, (size_t)(k + 3) * sizeof(int));
    put(b[3].recv, (size_t)(k + 4) * sizeof(int));
    put(b[4].recv, (size_t)(k + 5) * sizeof(int));
    put(b[5].recv, (size_t)blocks[me] * sizeof(int));
    put(b[6].recv, (size_t)(k + 6) * sizeof(int));
  }
  if (persistent)
    for (int c = 0; c < 7; ++c)
      check(MPI_Request_free(&req[c]), "MPI_Request_free");
  MPI_Comm_free(&comm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 2 || size != P) {
    if (me == 0)
      fprintf(stderr, "usage: mpiexec -n %d pmpi_bigcount OUTDIR\n", P);
    MPI_Finalize();
    return 2;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%d.bin", argv[1], me);
  out = fopen(path, "wb");
  if (!out) {
    fprintf(stderr, "pmpi_bigcount: cannot write %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  blocking();
  started(0);
  started(1);
  fclose(out);
  int all = failures;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "pmpi_bigcount: FAILED (%d)\n" : "pmpi_bigcount: passed\n",
           all);
  MPI_Finalize();
  return all ? 1 : 0;
}
