/* bench/emu/pingpong.c - alpha and beta of the emulated links.
 *
 *   mpiexec -n 2 bench/emu/rank.sh pingpong [BYTES] [ITERATIONS]
 *
 * Ranks 0 and 1 (on two nodes) bounce a message; prints one JSON object with
 * the half round trip of a 1-byte message (alpha, median of ITERATIONS after
 * warm-up) and of a BYTES message, and the per-byte time derived from them:
 * beta = (t(BYTES) - t(1)) / (BYTES - 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return (X > Y) - (X < Y);
}

static double halfRoundTrip(char *Buf, int Bytes, int Iter, int Me) {
  double *T = malloc(sizeof(double) * (size_t)Iter);
  for (int I = -2; I < Iter; ++I) {
    MPI_Barrier(MPI_COMM_WORLD);
    double T0 = MPI_Wtime();
    if (Me == 0) {
      MPI_Send(Buf, Bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(Buf, Bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (Me == 1) {
      MPI_Recv(Buf, Bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(Buf, Bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    if (I >= 0)
      T[I] = (MPI_Wtime() - T0) / 2;
  }
  qsort(T, (size_t)Iter, sizeof(double), cmp);
  double M = T[Iter / 2];
  free(T);
  return M;
}

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Me, N;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  int Bytes = Argc > 1 ? atoi(Argv[1]) : 1 << 20;
  int Iter = Argc > 2 ? atoi(Argv[2]) : 20;
  if (N < 2 || Bytes < 2 || Iter < 1) {
    if (Me == 0)
      fprintf(stderr, "pingpong: needs 2 ranks, BYTES >= 2, ITERATIONS >= 1\n");
    MPI_Finalize();
    return 2;
  }
  char *Buf = calloc((size_t)Bytes, 1);
  double A = halfRoundTrip(Buf, 1, Iter, Me);
  double T = halfRoundTrip(Buf, Bytes, Iter, Me);
  if (Me == 0)
    printf("{\"alpha\": %.6e, \"bytes\": %d, \"time\": %.6e, \"beta\": %.6e}\n",
           A, Bytes, T, (T - A) / (Bytes - 1));
  free(Buf);
  MPI_Finalize();
  return 0;
}
