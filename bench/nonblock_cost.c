/* bench/nonblock_cost.c - what the library's non-blocking path costs.
 *
 * A plain MPI program (links MPICH only; run it natively and with
 * libchoreo-mpi.so preloaded): per iteration, in microseconds (the median
 * of 5 repetitions of ITERS iterations, on rank 0):
 *   allreduce   MPI_Allreduce of N doubles
 *   iallreduce  MPI_Iallreduce + MPI_Wait of the same
 *   persistent  MPI_Start + MPI_Wait of MPI_Allreduce_init's request
 *   pingpong    MPI_Send/MPI_Recv of 8 bytes between ranks 0 and 1, round
 *               trip, nothing outstanding (the wrappers' check only)
 *   pingpong+   the same with a persistent collective request active (its
 *               run done, its MPI_Wait after the loop): the library's
 *               MPI_Send and MPI_Recv go through their progress loops
 * usage: nonblock_cost [N [ITERS]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 8, iters = argc > 2 ? atoi(argv[2]) : 2000;
  int me, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  double *in = calloc(n, sizeof(double)), *out = calloc(n, sizeof(double));
  MPI_Request pq;
  MPI_Allreduce_init(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &pq);
  const char *names[5] = {"allreduce", "iallreduce", "persistent", "pingpong",
                          "pingpong+"};
  for (int c = 0; c < 5; ++c) {
    double t[5];
    for (int rep = 0; rep < 5; ++rep) {
      MPI_Request q = MPI_REQUEST_NULL;
      if (c == 4)
        MPI_Start(&pq);
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) {
        int x = i;
        switch (c) {
        case 0:
          MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
          break;
        case 1:
          MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
          MPI_Wait(&q, MPI_STATUS_IGNORE);
          break;
        case 2:
          MPI_Start(&pq);
          MPI_Wait(&pq, MPI_STATUS_IGNORE);
          break;
        default:
          if (me == 0) {
            MPI_Send(&x, 2, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          } else if (me == 1) {
            MPI_Recv(&x, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
          }
        }
      }
      t[rep] = (MPI_Wtime() - t0) / iters * 1e6;
      if (c == 4)
        MPI_Wait(&pq, MPI_STATUS_IGNORE);
    }
    qsort(t, 5, sizeof t[0], cmp);
    if (me == 0)
      printf("%-11s %8.2f us\n", names[c], t[2]);
  }
  MPI_Request_free(&pq);
  free(in), free(out);
  MPI_Finalize();
  return 0;
}
