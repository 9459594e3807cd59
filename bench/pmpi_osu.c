/*===- bench/pmpi_osu.c - OSU-style collective latency benchmark ----------===*/
/*
 * A plain MPI program in the manner of the OSU micro-benchmarks
 * (osu_allgather, osu_allgatherv, osu_bcast), run natively and with
 * LD_PRELOAD=libchoreo-mpi.so by bench/pmpi_bench.sh:
 *   mpiexec -n P choreo-bench-pmpi-osu COLL [MIN MAX ITER WARMUP [LOOP]]
 * COLL: allgather, allgatherv (irregular counts: member i sends
 * size * (1 + i % 3) / 2 bytes), bcast (root 0), reduce (root 0),
 * allreduce, reduce_scatter_block (MPI_SUM of ints; size is the whole
 * vector, each rank's block size / P rounded down to whole ints, at least
 * one), alltoall (size bytes to every rank), alltoallv (rank i sends rank j
 * size * (1 + (i + j) % 3) / 2 bytes), gather and scatter (root 0, size
 * bytes per member), scan and exscan (MPI_SUM of ints, size the vector),
 * barrier (size ignored), inter-allgather,
 * inter-allgatherv (an intercommunicator of the lower and upper halves of
 * MPI_COMM_WORLD). For each message size from MIN to MAX bytes (doubling):
 * WARMUP untimed calls, then ITER timed calls, each after a barrier; a
 * call's time is the slowest rank's. Prints size, then min, median and max
 * over the iterations in microseconds. LOOP (default 1) > 1: each
 * iteration is LOOP calls back to back after its barrier, and its time is
 * theirs divided by LOOP (bench/handover.sh: what the library adds to a
 * call, without the barrier's wake-up in every sample).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 2) {
    if (me == 0)
      fprintf(stderr, "usage: choreo-bench-pmpi-osu COLL [MIN MAX ITER "
                      "WARMUP [LOOP]]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *coll = argv[1];
  long min = argc > 2 ? atol(argv[2]) : 8;
  long max = argc > 3 ? atol(argv[3]) : 1 << 20;
  int iter = argc > 4 ? atoi(argv[4]) : 50;
  int warm = argc > 5 ? atoi(argv[5]) : 5;
  int loop = argc > 6 ? atoi(argv[6]) : 1;
  if (loop < 1)
    loop = 1;
  int inter = strncmp(coll, "inter-", 6) == 0;
  const char *kind = inter ? coll + 6 : coll;
  MPI_Comm comm = MPI_COMM_WORLD, local = MPI_COMM_NULL;
  int half = p / 2, low = me < half;
  if (inter) {
    MPI_Comm_split(MPI_COMM_WORLD, low, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 5, &comm);
  }
  int n = p, r = me, remote = p;
  if (inter) {
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    MPI_Comm_remote_size(comm, &remote);
  }
  int members = inter ? remote : n, base = inter && low ? half : 0;
  int a2a = strncmp(kind, "alltoall", 8) == 0 || strcmp(kind, "scatter") == 0;
  size_t sendmax = (size_t)max * 2 * (a2a ? (size_t)p : 1) + 4 * (size_t)p + 1;
  char *send = malloc(sendmax);
  char *recv = malloc((size_t)max * 2 * (size_t)members + 4 * (size_t)p + 1);
  int *scounts = malloc(sizeof(int) * (size_t)p);
  int *sdispls = malloc(sizeof(int) * (size_t)p);
  int *counts = malloc(sizeof(int) * (size_t)members);
  int *displs = malloc(sizeof(int) * (size_t)members);
  double *t = malloc(sizeof(double) * (size_t)iter);
  memset(send, me, sendmax);
  if (me == 0)
    printf("# %s on %d ranks%s: size  min_us  median_us  max_us\n", coll, p,
           inter ? " (intercommunicator of the two halves)" : "");
  for (long size = min; size <= max; size *= 2) {
    int mine = (int)size, ints = (int)(size / 4), block = ints / p;
    if (block < 1)
      block = 1;
    if (strcmp(kind, "allgatherv") == 0) {
      int world_me = me;
      mine = (int)(size * (1 + world_me % 3) / 2);
      int at = 0;
      for (int i = 0; i < members; ++i) {
        counts[i] = (int)(size * (1 + (base + i) % 3) / 2);
        displs[i] = at;
        at += counts[i];
      }
    }
    if (strcmp(kind, "alltoallv") == 0) {
      int sat = 0, rat = 0;
      for (int i = 0; i < p; ++i) {
        scounts[i] = (int)(size * (1 + (me + i) % 3) / 2);
        sdispls[i] = sat;
        sat += scounts[i];
        counts[i] = (int)(size * (1 + (i + me) % 3) / 2);
        displs[i] = rat;
        rat += counts[i];
      }
    }
    for (int k = -warm; k < iter; ++k) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int j = 0; j < loop; ++j) {
        if (strcmp(kind, "allgather") == 0)
          MPI_Allgather(send, mine, MPI_BYTE, recv, mine, MPI_BYTE, comm);
        else if (strcmp(kind, "allgatherv") == 0)
          MPI_Allgatherv(send, mine, MPI_BYTE, recv, counts, displs, MPI_BYTE,
                         comm);
        else if (strcmp(kind, "reduce") == 0)
          MPI_Reduce(send, recv, ints, MPI_INT, MPI_SUM, 0, comm);
        else if (strcmp(kind, "allreduce") == 0)
          MPI_Allreduce(send, recv, ints, MPI_INT, MPI_SUM, comm);
        else if (strcmp(kind, "reduce_scatter_block") == 0)
          MPI_Reduce_scatter_block(send, recv, block, MPI_INT, MPI_SUM, comm);
        else if (strcmp(kind, "alltoall") == 0)
          MPI_Alltoall(send, mine, MPI_BYTE, recv, mine, MPI_BYTE, comm);
        else if (strcmp(kind, "alltoallv") == 0)
          MPI_Alltoallv(send, scounts, sdispls, MPI_BYTE, recv, counts, displs,
                        MPI_BYTE, comm);
        else if (strcmp(kind, "gather") == 0)
          MPI_Gather(send, mine, MPI_BYTE, recv, mine, MPI_BYTE, 0, comm);
        else if (strcmp(kind, "scatter") == 0)
          MPI_Scatter(send, mine, MPI_BYTE, recv, mine, MPI_BYTE, 0, comm);
        else if (strcmp(kind, "scan") == 0)
          MPI_Scan(send, recv, ints, MPI_INT, MPI_SUM, comm);
        else if (strcmp(kind, "exscan") == 0)
          MPI_Exscan(send, recv, ints, MPI_INT, MPI_SUM, comm);
        else if (strcmp(kind, "barrier") == 0)
          MPI_Barrier(comm);
        else
          MPI_Bcast(send, mine, MPI_BYTE, 0, comm);
      }
      double dt = (MPI_Wtime() - t0) / loop;
      if (k >= 0)
        t[k] = dt;
    }
    MPI_Allreduce(MPI_IN_PLACE, t, iter, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qsort(t, (size_t)iter, sizeof(double), cmp_double);
    if (me == 0)
      printf("%ld %.2f %.2f %.2f\n", size, t[0] * 1e6, t[iter / 2] * 1e6,
             t[iter - 1] * 1e6);
    fflush(stdout);
  }
  if (inter) {
    MPI_Comm_free(&comm);
    MPI_Comm_free(&local);
  }
  free(send);
  free(recv);
  free(counts);
  free(displs);
  free(scounts);
  free(sdispls);
  free(t);
  MPI_Finalize();
  return 0;
}
