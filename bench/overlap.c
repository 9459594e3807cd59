/*===- bench/overlap.c - OSU-style overlap of non-blocking collectives ----===*/
/*
 * A plain MPI program (links MPICH only; run natively and with
 * LD_PRELOAD=libchoreo-mpi.so, by bench/emu/overlap.sh on the emulated
 * cluster) in the manner of the OSU micro-benchmarks' non-blocking tests
 * (osu_iallreduce, osu_ibcast, osu_iallgather, osu_iallgatherv):
 *
 *   mpiexec -n P choreo-bench-overlap COLL [MIN MAX ITER TESTS]
 *
 * COLL: iallreduce (MPI_SUM of floats), ibcast (root 0), iallgather,
 * iallgatherv (member i gives size * (1 + i % 3) / 2 bytes). Sizes from MIN
 * to MAX bytes (doubling; the vector for iallreduce and ibcast, one
 * member's block for iallgather(v)). For each size, ITER timed iterations
 * (after one untimed) of each of:
 *
 *   coll     MPI_I<coll> + MPI_Wait, nothing between: t_coll
 *   compute  a fixed amount of arithmetic, calibrated to last t_coll with
 *            every rank computing at once: t_compute
 *   both     MPI_I<coll>, the compute, MPI_Wait: t_both
 *   tested   the same, the compute cut into TESTS pieces with an MPI_Test
 *            of the request after each (OSU's -t): t_tested
 *
 * An iteration starts after an MPI_Barrier; its time is the slowest rank's
 * (MPI_MAX); a row's time is the median over the iterations. Overlap is
 * OSU's: 100 * (1 - (t_both - t_compute) / t_coll), clamped to 0..100 (the
 * share of the collective's time that the compute hid). One JSON object a
 * line on rank 0's stdout (times in seconds); errors on stderr, exit 2.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double Sink;

/* Units of arithmetic that no compiler removes (the result goes to Sink). */
static void work(long units) {
  double x = 1.0, y = 0.5;
  for (long i = 0; i < units; ++i)
    for (int k = 0; k < 64; ++k) {
      x = x * 1.0000001 + y;
      y = y * 0.9999999 - 1e-9;
    }
  Sink = x + y;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

enum Coll { Allreduce, Bcast, Allgather, Allgatherv };

struct Job {
  enum Coll c;
  long size;
  char *send, *recv;
  int *counts, *displs;
};

static void start(const struct Job *j, MPI_Request *r) {
  switch (j->c) {
  case Allreduce:
    MPI_Iallreduce(j->send, j->recv, (int)(j->size / 4), MPI_FLOAT, MPI_SUM,
                   MPI_COMM_WORLD, r);
    break;
  case Bcast:
    MPI_Ibcast(j->recv, (int)j->size, MPI_BYTE, 0, MPI_COMM_WORLD, r);
    break;
  case Allgather:
    MPI_Iallgather(j->send, (int)j->size, MPI_BYTE, j->recv, (int)j->size,
                   MPI_BYTE, MPI_COMM_WORLD, r);
    break;
  case Allgatherv: {
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Iallgatherv(j->send, j->counts[me], MPI_BYTE, j->recv, j->counts,
                    j->displs, MPI_BYTE, MPI_COMM_WORLD, r);
    break;
  }
  }
}

/* One iteration of a mode (0 coll, 1 compute, 2 both, 3 tested): the
 * slowest rank's time. */
static double once(const struct Job *j, int mode, long units, int tests) {
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (mode != 1)
    start(j, &r);
  if (mode == 1 || mode == 2)
    work(units);
  if (mode == 3) {
    int done = 0;
    for (int k = 0; k < tests; ++k) {
      work(units / tests + (k < units % tests));
      if (!done)
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    }
  }
  if (mode != 1)
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  double t = MPI_Wtime() - t0, worst = 0;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static double median(const struct Job *j, int mode, long units, int tests,
                     int iters, double *t) {
  once(j, mode, units, tests); /* untimed */
  for (int i = 0; i < iters; ++i)
    t[i] = once(j, mode, units, tests);
  qsort(t, (size_t)iters, sizeof t[0], cmp);
  return iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
}

/* Units of work per second with every rank computing at once (the
 * slowest rank's rate). */
static double rate(void) {
  long units = 1000;
  for (;;) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    work(units);
    double t = MPI_Wtime() - t0, worst = 0;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (worst > 0.2)
      return (double)units / worst;
    units *= 4;
  }
}

static double overlap(double both, double compute, double coll) {
  double o = 100.0 * (1.0 - (both - compute) / coll);
  return o < 0 ? 0 : o > 100 ? 100 : o;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const char *names[] = {"iallreduce", "ibcast", "iallgather", "iallgatherv"};
  int c = -1;
  for (int k = 0; k < 4 && argc > 1; ++k)
    if (!strcmp(argv[1], names[k]))
      c = k;
  long min = argc > 2 ? atol(argv[2]) : 65536;
  long max = argc > 3 ? atol(argv[3]) : 4194304;
  int iters = argc > 4 ? atoi(argv[4]) : 10;
  int tests = argc > 5 ? atoi(argv[5]) : 100;
  if (c < 0 || min < 4 || max < min || max > (1L << 30) || iters < 1 ||
      tests < 1) {
    if (me == 0)
      fprintf(stderr,
              "usage: choreo-bench-overlap iallreduce|ibcast|iallgather|"
              "iallgatherv [MIN MAX ITER TESTS] (4 <= MIN <= MAX <= 2^30 "
              "bytes, ITER >= 1, TESTS >= 1); got '%s'\n",
              argc > 1 ? argv[1] : "");
    MPI_Finalize();
    return 2;
  }
  struct Job j = {(enum Coll)c, 0, NULL, NULL, NULL, NULL};
  size_t blocks = c >= Allgather ? (size_t)p * 2 : 1;
  j.send = malloc((size_t)max * 2);
  j.recv = malloc((size_t)max * blocks);
  j.counts = malloc(sizeof(int) * (size_t)p);
  j.displs = malloc(sizeof(int) * (size_t)p);
  double *t = malloc(sizeof(double) * (size_t)iters);
  if (!j.send || !j.recv || !j.counts || !j.displs || !t) {
    fprintf(stderr,
            "choreo-bench-overlap: rank %d: out of memory for %ld "
            "bytes\n",
            me, max);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  memset(j.send, 1, (size_t)max * 2);
  memset(j.recv, 0, (size_t)max * blocks);
  double perSec = rate();
  for (long size = min; size <= max; size *= 2) {
    j.size = size;
    for (int i = 0, at = 0; i < p; ++i) {
      j.counts[i] = c == Allgatherv ? (int)(size * (1 + i % 3) / 2) : (int)size;
      j.displs[i] = at;
      at += j.counts[i];
    }
    double coll = median(&j, 0, 0, tests, iters, t);
    long units = (long)(coll * perSec + 0.5);
    double compute = median(&j, 1, units, tests, iters, t);
    double both = median(&j, 2, units, tests, iters, t);
    double tested = median(&j, 3, units, tests, iters, t);
    if (me == 0) {
      printf("{\"coll\": \"%s\", \"ranks\": %d, \"bytes\": %ld, \"t_coll\": "
             "%.6f, \"t_compute\": %.6f, \"t_both\": %.6f, \"t_tested\": "
             "%.6f, \"tests\": %d, \"overlap\": %.1f, \"overlap_tested\": "
             "%.1f}\n",
             names[c], p, size, coll, compute, both, tested, tests,
             overlap(both, compute, coll), overlap(tested, compute, coll));
      fflush(stdout);
    }
  }
  free(j.send), free(j.recv), free(j.counts), free(j.displs), free(t);
  MPI_Finalize();
  return 0;
}
