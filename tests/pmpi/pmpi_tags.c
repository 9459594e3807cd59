/* tests/pmpi/pmpi_tags.c - many started collectives outstanding at once on
 * one communicator (and on a duplicate that shares the library's private
 * communicator): more than the tag space holds at MPI's least MPI_TAG_UB
 * (32767: a window of 64 runs a communicator, docs/pmpi.md "Tags"), with
 * different counts, roots and collectives, so that two runs sharing tags
 * would take each other's messages (wrong bytes, or a truncation error).
 * One rank stops for a while after its first calls, so that the others
 * run ahead. Every result is
 * checked on every rank and saved, compared bit for bit with the native
 * run's (tests/pmpi/run-app.sh); rank 0 prints "pmpi_tags: passed".
 *
 *   pmpi_tags DIR
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_tags"
#include "pmpi_test_util.h"

enum { N = 160, MOST = 64 };

static int val(int i, int r, int k) { return i * 1009 + r * 131 + k; }

/* 65 broadcasts outstanding on MPI_COMM_WORLD: the first from rank 1,
 * which starts its calls 0.3 s late, the last (a window later: the same
 * tags at the least bound) from rank p - 1 and of another count. Without
 * the queue, rank p - 1 would send the last one's second step while the
 * first still waits for rank 1, and a rank that posted the first one's
 * receive from p - 1 would take it. */
static void overtake(int p) {
  enum { K = 65 };
  static int buf[K][16];
  MPI_Request r[K];
  /* The three shapes once first: a first call agrees on its plan (every
   * rank in it), a later one starts at once. */
  MPI_Bcast(buf[0], 8, MPI_INT, 1, MPI_COMM_WORLD);
  MPI_Bcast(buf[0], 8, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(buf[0], 4, MPI_INT, p - 1, MPI_COMM_WORLD);
  if (me == 1)
    usleep(300 * 1000);
  for (int i = 0; i < K; ++i) {
    int root = i == 0 ? 1 : i == K - 1 ? p - 1 : 0;
    int count = i == K - 1 ? 4 : 8;
    for (int k = 0; k < 16; ++k)
      buf[i][k] = me == root ? val(i + 7000, root, k) : -1;
    check_rc(MPI_Ibcast(buf[i], count, MPI_INT, root, MPI_COMM_WORLD, &r[i]),
             "MPI_Ibcast");
  }
  for (int i = K - 1; i >= 0; --i)
    check_rc(MPI_Wait(&r[i], MPI_STATUS_IGNORE), "MPI_Wait");
  for (int i = 0; i < K; ++i) {
    int root = i == 0 ? 1 : i == K - 1 ? p - 1 : 0;
    int count = i == K - 1 ? 4 : 8;
    for (int k = 0; k < count; ++k)
      expect(buf[i][k] == val(i + 7000, root, k), "overtaken broadcast", i, k);
    save(buf[i], sizeof buf[i]);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 2) {
    if (me == 0)
      fprintf(stderr, "usage: pmpi_tags DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  open_results(argv[1]);
  alarm(120); /* a run that took another's messages may wait for ever */
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  static int send[2 * N][MOST], recv[2 * N][MOST * 8];
  MPI_Request req[2 * N];
  /* Operation i on communicator i % 2: an allreduce, a broadcast from a
   * rank that changes, or an allgather, of a count that changes. Rank 1
   * stops for 0.3 s after its first 40 (without progressing them): the
   * others' runs that need it wait, the rest run ahead. */
  for (int i = 0; i < 2 * N; ++i) {
    if (me == 1 && i == 40)
      usleep(300 * 1000);
    MPI_Comm c = i % 2 ? dup : MPI_COMM_WORLD;
    int count = 1 + (i * 7) % (MOST / 2);
    memset(recv[i], 0, sizeof recv[i]);
    for (int k = 0; k < MOST; ++k)
      send[i][k] = val(i, me, k);
    int rc = MPI_SUCCESS;
    switch (i % 3) {
    case 0:
      rc = MPI_Iallreduce(send[i], recv[i], count, MPI_INT, MPI_SUM, c, &req[i]);
      break;
    case 1:
      if (me == i % p)
        memcpy(recv[i], send[i], sizeof(int) * count);
      rc = MPI_Ibcast(recv[i], count, MPI_INT, i % p, c, &req[i]);
      break;
    case 2:
      count = 1 + i % 8;
      rc = MPI_Iallgather(send[i], count, MPI_INT, recv[i], count, MPI_INT, c,
                          &req[i]);
      break;
    }
    check_rc(rc, "starting a collective");
  }
  /* Completed in the other order. */
  for (int i = 2 * N - 1; i >= 0; --i)
    check_rc(MPI_Wait(&req[i], MPI_STATUS_IGNORE), "MPI_Wait");
  for (int i = 0; i < 2 * N; ++i) {
    int count = 1 + (i * 7) % (MOST / 2);
    switch (i % 3) {
    case 0:
      for (int k = 0; k < count; ++k) {
        long want = 0;
        for (int r = 0; r < p; ++r)
          want += val(i, r, k);
        expect(recv[i][k] == want, "allreduce", i, k);
      }
      break;
    case 1:
      for (int k = 0; k < count; ++k)
        expect(recv[i][k] == val(i, i % p, k), "broadcast", i, k);
      break;
    case 2:
      count = 1 + i % 8;
      for (int r = 0; r < p; ++r)
        for (int k = 0; k < count; ++k)
          expect(recv[i][r * count + k] == val(i, r, k), "allgather", i, k);
      break;
    }
    save(recv[i], sizeof recv[i]);
  }
  overtake(p);
  MPI_Comm_free(&dup);
  fclose(out);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(total ? "pmpi_tags: FAILED (%d failures)\n" : "pmpi_tags: passed\n",
           total);
  MPI_Finalize();
  return total != 0;
}
