/*===- tests/pmpi/pmpi_large.c - Counts above 2^31 through the _c calls ===*/
/*
 * mpiexec -n 2 pmpi_large: three calls whose counts do not fit an int,
 * each checked value by value on every rank against a pattern (not zeros):
 *  1. MPI_Bcast_c of 2^31 + 4099 bytes (MPI_BYTE) from rank 1;
 *  2. MPI_Allgather_c of 2^31 + 77 bytes from each rank, in place (a
 *     receive buffer of 2 x (2^31 + 77) bytes per rank);
 *  3. MPI_Allreduce_c of 2^31 + 3 elements of MPI_UNSIGNED_CHAR with
 *     MPI_SUM, in place (MPI_SUM is not defined on MPI_BYTE or MPI_CHAR;
 *     MPI_UNSIGNED_CHAR is their one-byte integer).
 * Each buffer is freed before the next call: at most about 4.3 GB per rank
 * of the test's own, plus what the library's plan needs. A rank whose
 * machine has less memory available (MemAvailable) than a call needs for
 * both ranks prints "pmpi_large: skipped" and the job exits 0 without
 * calling. Rank 0 prints each call's time and "pmpi_large: passed".
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, failures;
/* The test's own agreement (memory, failures) runs on a communicator of its
 * own, so that the library's verbose line for MPI_COMM_WORLD is the big
 * call's. */
static MPI_Comm checks;

static unsigned char pattern(int salt, uint64_t i) {
  return (unsigned char)((i * 131 + (i >> 20) * 7 + (uint64_t)salt * 89 + 17) &
                         0xFF);
}

static void expect(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "pmpi_large: rank %d: %s\n", me, what);
    ++failures;
  }
}

/* MemAvailable in bytes (0 when /proc/meminfo does not say). */
static uint64_t available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  unsigned long long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
      break;
  if (f)
    fclose(f);
  return (uint64_t)kb * 1024;
}

/* Whether every rank can hold Need bytes more each (agreed: min). */
static int fits(uint64_t need, const char *what) {
  unsigned long long have = available(), all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, checks);
  if (all >= need * 2 + (need * 2) / 5)
    return 1;
  if (me == 0)
    printf("pmpi_large: skipped %s: %llu bytes available, 2 ranks need %llu\n",
           what, all, (unsigned long long)need * 2);
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (me == 0)
      fprintf(stderr, "usage: mpiexec -n 2 pmpi_large\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_dup(MPI_COMM_WORLD, &checks);
  const MPI_Count Big = ((MPI_Count)1 << 31) + 4099;
  const MPI_Count Each = ((MPI_Count)1 << 31) + 77;
  const MPI_Count Elems = ((MPI_Count)1 << 31) + 3;
  int skipped = 0;
  double t;

  /* 1. MPI_Bcast_c from rank 1. */
  if (fits((uint64_t)Big * 2, "MPI_Bcast_c")) {
    unsigned char *b = malloc((size_t)Big);
    for (MPI_Count i = 0; i < Big; ++i)
      b[i] = me == 1 ? pattern(1, (uint64_t)i) : 0;
    t = MPI_Wtime();
    expect(MPI_Bcast_c(b, Big, MPI_BYTE, 1, MPI_COMM_WORLD) == MPI_SUCCESS,
           "MPI_Bcast_c failed");
    t = MPI_Wtime() - t;
    for (MPI_Count i = 0; i < Big; ++i)
      if (b[i] != pattern(1, (uint64_t)i)) {
        fprintf(stderr, "pmpi_large: rank %d: byte %lld of the broadcast\n", me,
                (long long)i);
        expect(0, "MPI_Bcast_c: a wrong byte");
        break;
      }
    if (me == 0)
      printf("pmpi_large: MPI_Bcast_c of %lld bytes: %.2f s\n", (long long)Big,
             t);
    free(b);
  } else {
    skipped = 1;
  }

  /* 2. MPI_Allgather_c in place, Each bytes from each rank. */
  if (fits((uint64_t)Each * 3, "MPI_Allgather_c")) {
    unsigned char *all = malloc((size_t)Each * 2);
    for (int r = 0; r < 2; ++r)
      for (MPI_Count i = 0; i < Each; ++i)
        all[r * Each + i] = r == me ? pattern(2 + me, (uint64_t)i) : 0;
    t = MPI_Wtime();
    expect(MPI_Allgather_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, Each,
                           MPI_BYTE, MPI_COMM_WORLD) == MPI_SUCCESS,
           "MPI_Allgather_c failed");
    t = MPI_Wtime() - t;
    for (int r = 0; r < 2; ++r)
      for (MPI_Count i = 0; i < Each; ++i)
        if (all[r * Each + i] != pattern(2 + r, (uint64_t)i)) {
          fprintf(stderr, "pmpi_large: rank %d: byte %lld of rank %d's\n", me,
                  (long long)i, r);
          expect(0, "MPI_Allgather_c: a wrong byte");
          r = 2;
          break;
        }
    if (me == 0)
      printf("pmpi_large: MPI_Allgather_c of %lld bytes per rank: %.2f s\n",
             (long long)Each, t);
    free(all);
  } else {
    skipped = 1;
  }

  /* 3. MPI_Allreduce_c of unsigned chars, in place. */
  if (fits((uint64_t)Elems * 2, "MPI_Allreduce_c")) {
    unsigned char *v = malloc((size_t)Elems);
    for (MPI_Count i = 0; i < Elems; ++i)
      v[i] = pattern(4 + me, (uint64_t)i);
    t = MPI_Wtime();
    expect(MPI_Allreduce_c(MPI_IN_PLACE, v, Elems, MPI_UNSIGNED_CHAR, MPI_SUM,
                           MPI_COMM_WORLD) == MPI_SUCCESS,
           "MPI_Allreduce_c failed");
    t = MPI_Wtime() - t;
    for (MPI_Count i = 0; i < Elems; ++i)
      if (v[i] !=
          (unsigned char)(pattern(4, (uint64_t)i) + pattern(5, (uint64_t)i))) {
        fprintf(stderr, "pmpi_large: rank %d: element %lld of the allreduce\n",
                me, (long long)i);
        expect(0, "MPI_Allreduce_c: a wrong sum");
        break;
      }
    if (me == 0)
      printf("pmpi_large: MPI_Allreduce_c of %lld elements: %.2f s\n",
             (long long)Elems, t);
    free(v);
  } else {
    skipped = 1;
  }

  int all = failures;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, checks);
  MPI_Comm_free(&checks);
  if (me == 0)
    printf(all       ? "pmpi_large: FAILED (%d)\n"
           : skipped ? "pmpi_large: passed (some calls skipped)\n"
                     : "pmpi_large: passed\n",
           all);
  MPI_Finalize();
  return all ? 1 : 0;
}
