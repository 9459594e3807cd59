/* bench/emu/pingpong.c - alpha and beta of the emulated links.
 *
 *   mpiexec -n 2 bench/emu/rank.sh pingpong [BYTES[,BYTES...]] [ITERATIONS] [GAP_US]
 *
 * Ranks 0 and 1 (on two nodes) bounce a message; prints one JSON object with
 * the half round trip of a 1-byte message (alpha, median of ITERATIONS after
 * warm-up) and of a BYTES message, and the per-byte time derived from them:
 * beta = (t(BYTES) - t(1)) / (BYTES - 1). With several sizes (a comma list),
 * "bytes", "time" and "beta" are the last size's, and "sizes" lists every
 * size's {"bytes", "time", "min", "beta"} ("min": the fastest round trip,
 * "alpha_min" the 1-byte one's: what the port allows when both ranks had a
 * core; the median also counts waits for one). GAP_US (default 0): rank 0 sleeps that
 * many microseconds before each round trip, so that the ports' token buckets
 * are full when the message starts (the time of a message after an idle
 * port, docs/emulation.md "A port without a burst").
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return (X > Y) - (X < Y);
}

static void sleepMicros(long Us) {
  struct timespec Ts = {Us / 1000000, (Us % 1000000) * 1000};
  while (nanosleep(&Ts, &Ts) != 0) {
  }
}

/* The median half round trip; *Min gets the fastest (what the port allows
 * when the ranks had the cores: the median also counts waits for a core). */
static double halfRoundTrip(char *Buf, int Bytes, int Iter, int Me, long Gap, double *Min) {
  double *T = malloc(sizeof(double) * (size_t)Iter);
  for (int I = -2; I < Iter; ++I) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (Me == 0 && Gap > 0)
      sleepMicros(Gap);
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
  if (Min)
    *Min = T[0];
  free(T);
  return M;
}

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Me, N;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  enum { MaxSizes = 64 };
  int Sizes[MaxSizes], NSizes = 0, Bad = 0;
  const char *List = Argc > 1 ? Argv[1] : "1048576";
  for (const char *P = List; *P && !Bad;) {
    char *End;
    long V = strtol(P, &End, 10);
    if (End == P || V < 2 || V > (1L << 30) || NSizes == MaxSizes || (*End && *End != ','))
      Bad = 1;
    else
      Sizes[NSizes++] = (int)V;
    P = *End == ',' ? End + 1 : End;
  }
  int Iter = Argc > 2 ? atoi(Argv[2]) : 20;
  long Gap = Argc > 3 ? atol(Argv[3]) : 0;
  if (N < 2 || Bad || NSizes == 0 || Iter < 1 || Gap < 0) {
    if (Me == 0)
      fprintf(stderr, "pingpong: needs 2 ranks, BYTES >= 2 (a comma list of at most %d sizes up to 1 GiB), "
                      "ITERATIONS >= 1, GAP_US >= 0; got '%s'\n", MaxSizes, List);
    MPI_Finalize();
    return 2;
  }
  int Max = 0;
  for (int I = 0; I < NSizes; ++I)
    Max = Sizes[I] > Max ? Sizes[I] : Max;
  char *Buf = calloc((size_t)Max, 1);
  double AMin, A = halfRoundTrip(Buf, 1, Iter, Me, Gap, &AMin);
  double T[MaxSizes], TMin[MaxSizes];
  for (int I = 0; I < NSizes; ++I)
    T[I] = halfRoundTrip(Buf, Sizes[I], Iter, Me, Gap, &TMin[I]);
  if (Me == 0) {
    int L = NSizes - 1;
    printf("{\"alpha\": %.6e, \"alpha_min\": %.6e, \"bytes\": %d, \"time\": %.6e, \"beta\": %.6e, "
           "\"gap_us\": %ld, \"sizes\": [",
           A, AMin, Sizes[L], T[L], (T[L] - A) / (Sizes[L] - 1), Gap);
    for (int I = 0; I < NSizes; ++I)
      printf("%s{\"bytes\": %d, \"time\": %.6e, \"min\": %.6e, \"beta\": %.6e}", I ? ", " : "", Sizes[I],
             T[I], TMin[I], (T[I] - A) / (Sizes[I] - 1));
    printf("]}\n");
  }
  free(Buf);
  MPI_Finalize();
  return 0;
}
