/* tests/pmpi/pmpi_flow.c - the executor's flow control, seen from a program.
 *
 * An unmodified MPI program (it links MPICH only) on 2 ranks that run-app.sh
 * runs natively and with libchoreo-mpi.so preloaded. Rank 1 enters each
 * timed broadcast LATE seconds after rank 0, and rank 0 measures how long
 * its own call took: an eager send of 1 KiB lets the root return at once;
 * with flow control (CHOREO_FLOW_CONTROL at most 1 KiB, read here as the
 * library reads it) the root's message waits for the receiver's
 * clear-to-send, so the root returns only after rank 1 entered
 * (PMPI_FLOW_EXPECT=wait: expected so whatever CHOREO_FLOW_CONTROL says, for
 * a machine file's flow_control_bytes). Timed: a
 * blocking MPI_Bcast, an MPI_Ibcast waited with MPI_Wait, and a persistent
 * MPI_Bcast_init started twice; then 100 broadcasts and allreduces of
 * 64 KiB with changing data. Each rank writes its results to
 * DIR/rankR.bin (compared bit for bit with the native run's). Rank 0 prints
 * "pmpi_flow: passed" when every check held.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SMALL 1024
#define LATE 0.5

static int failures;

/* Whether the library, as configured, gates a message of SMALL bytes. */
static int gated(void) {
  /* A machine file's flow_control_bytes: the test says what to expect. */
  const char *expect = getenv("PMPI_FLOW_EXPECT");
  if (expect && !strcmp(expect, "wait"))
    return 1;
  const char *v = getenv("CHOREO_FLOW_CONTROL");
  const char *pre = getenv("LD_PRELOAD");
  if (!v || !*v || !strcmp(v, "off") || !pre || !strstr(pre, "choreo"))
    return 0;
  char *end;
  double n = strtod(v, &end);
  if (*end == 'K')
    n *= 1024;
  return n > 0 && n <= SMALL;
}

/* One timed call: rank 1 starts it LATE s after rank 0. */
static void timed(const char *what, int rank, void (*call)(char *), char *buf) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1)
    usleep((useconds_t)(LATE * 1e6));
  double t0 = MPI_Wtime();
  call(buf);
  double dt = MPI_Wtime() - t0;
  if (rank == 0) {
    int want = gated();
    printf("pmpi_flow: the root's %s took %.3f s (receiver %.1f s late; "
           "expected %s)\n",
           what, dt, LATE, want ? "to wait for it" : "not to wait");
    if (want ? dt < LATE * 0.6 : dt > LATE * 0.6) {
      ++failures;
      fprintf(stderr, "pmpi_flow: %s: the root %s\n", what,
              want ? "did not wait for the receiver's clear-to-send"
                   : "waited for the receiver");
    }
  }
}

static void blocking(char *b) { MPI_Bcast(b, SMALL, MPI_CHAR, 0, MPI_COMM_WORLD); }
static void nonblocking(char *b) {
  MPI_Request r;
  MPI_Ibcast(b, SMALL, MPI_CHAR, 0, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}
static MPI_Request persistent;
static void started(char *b) {
  (void)b;
  MPI_Start(&persistent);
  MPI_Wait(&persistent, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || size != 2) {
    if (rank == 0)
      fprintf(stderr, "usage: mpiexec -n 2 pmpi_flow DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%d.bin", argv[1], rank);
  FILE *out = fopen(path, "wb");
  if (!out)
    MPI_Abort(MPI_COMM_WORLD, 2);
  char small[SMALL];
  for (int i = 0; i < SMALL; ++i)
    small[i] = rank == 0 ? (char)(i * 7 + 3) : 0;
  /* First calls build the plans (an agreement, which waits for both). */
  blocking(small);
  nonblocking(small);
  MPI_Bcast_init(small, SMALL, MPI_CHAR, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                 &persistent);
  started(small);
  timed("MPI_Bcast", rank, blocking, small);
  timed("MPI_Ibcast", rank, nonblocking, small);
  timed("MPI_Bcast_init's MPI_Start", rank, started, small);
  timed("MPI_Bcast_init's second MPI_Start", rank, started, small);
  MPI_Request_free(&persistent);
  fwrite(small, 1, SMALL, out);
  for (int i = 0; i < SMALL; ++i)
    if (small[i] != (char)(i * 7 + 3)) {
      ++failures;
      fprintf(stderr, "pmpi_flow: rank %d: byte %d of the broadcast is "
                      "wrong\n", rank, i);
      break;
    }
  /* Larger messages, many times, the data changing every call. */
  enum { N = 16384 };
  int *v = malloc(N * sizeof(int)), *w = malloc(N * sizeof(int));
  for (int it = 0; it < 100; ++it) {
    for (int i = 0; i < N; ++i)
      v[i] = rank == 0 ? it * 31 + i : -1;
    MPI_Bcast(v, N, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(v, w, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; ++i)
      if (v[i] != it * 31 + i || w[i] != 2 * (it * 31 + i)) {
        ++failures;
        fprintf(stderr, "pmpi_flow: rank %d: iteration %d, element %d "
                        "wrong\n", rank, it, i);
        break;
      }
    fwrite(w, sizeof(int), N, out);
  }
  free(v);
  free(w);
  fclose(out);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0)
    printf("pmpi_flow: passed\n");
  MPI_Finalize();
  return all != 0;
}
