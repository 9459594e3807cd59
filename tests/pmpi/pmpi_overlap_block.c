/*===- tests/pmpi/pmpi_overlap_block.c - Runs across blocking calls ------===*/
/*
 * mpiexec -n 4 pmpi_overlap_block OUTDIR: an unmodified MPI application (it
 * links MPICH only) in which rank 0 starts an MPI_Iallreduce and then
 * makes a blocking call before waiting for it, while every other rank
 * waits for its MPI_Iallreduce first and makes the blocking call after:
 *
 *   1. MPI_Barrier (the library hands it to MPICH: CHOREO_BARRIER=native),
 *   2. MPI_Comm_dup (MPICH's; the library never serves constructors),
 *   3. MPI_Comm_split,
 *   4. MPI_Alltoallw (MPICH's; the library never serves it),
 *
 * then a second MPI_Iallreduce outstanding across MPI_Bcast (handed over)
 * on every rank. Legal MPI: every rank starts the collectives in the same
 * order, and MPICH alone progresses rank 0's MPI_Iallreduce inside its
 * blocking call. With the library preloaded and its MPI_Iallreduce its own
 * run, MPICH's blocking call (CHOREO_NATIVE_WAIT=block: MPICH's blocking
 * form) advanced none of the library's runs, so the other ranks waited for
 * rank 0's part of the MPI_Iallreduce for ever; the library now finishes a
 * rank's runs before MPICH's blocking call (pmpi/Progress.h,
 * finishRunsBeforeBlocking). alarm() turns a hang into a failure after
 * 30 s.
 *
 * Each rank writes its sums to OUTDIR/rank<R>.bin (compared bit for bit
 * with the native run's) and checks them itself; rank 0 prints
 * "pmpi_overlap_block: passed" when every check held on every rank.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_overlap_block"
#include "pmpi_test_util.h"

#define N 6
#define CASES 5

static int np;

static void blocking(int c, MPI_Comm *made) {
  switch (c) {
  case 0:
    check_rc(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    break;
  case 1:
    check_rc(MPI_Comm_dup(MPI_COMM_WORLD, made), "MPI_Comm_dup");
    break;
  case 2:
    check_rc(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, made),
             "MPI_Comm_split");
    break;
  case 3: {
    int *snd = malloc(sizeof(int) * np), *rcv = malloc(sizeof(int) * np);
    int *cnt = malloc(sizeof(int) * np), *dsp = malloc(sizeof(int) * np);
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * np);
    for (int j = 0; j < np; ++j)
      snd[j] = 100 * me + j, rcv[j] = -1, cnt[j] = 1,
      dsp[j] = (int)sizeof(int) * j, ty[j] = MPI_INT;
    check_rc(MPI_Alltoallw(snd, cnt, dsp, ty, rcv, cnt, dsp, ty,
                           MPI_COMM_WORLD),
             "MPI_Alltoallw");
    for (int i = 0; i < np; ++i)
      expect_test(rcv[i] == 100 * i + me, "MPI_Alltoallw's block", c);
    free(snd), free(rcv), free(cnt), free(dsp), free(ty);
    break;
  }
  default: {
    int v = me == 1 % np ? 4242 : 0;
    check_rc(MPI_Bcast(&v, 1, MPI_INT, 1 % np, MPI_COMM_WORLD), "MPI_Bcast");
    expect_test(v == 4242, "MPI_Bcast's value", c);
  }
  }
}

int main(int argc, char **argv) {
  alarm(30);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc != 2) {
    if (me == 0)
      fprintf(stderr, "usage: mpiexec -n N pmpi_overlap_block OUTDIR\n");
    MPI_Finalize();
    return 2;
  }
  long long sums[CASES][N];
  for (int c = 0; c < CASES; ++c) {
    long long in[N];
    for (int k = 0; k < N; ++k)
      in[k] = (long long)(me + 1) * (k + 1) + c;
    MPI_Request r;
    MPI_Comm made = MPI_COMM_NULL;
    check_rc(MPI_Iallreduce(in, sums[c], N, MPI_LONG_LONG, MPI_SUM,
                            MPI_COMM_WORLD, &r),
             "MPI_Iallreduce");
    /* The last case: every rank's call outstanding across the blocking one. */
    if (me == 0 || c == CASES - 1) {
      blocking(c, &made);
      check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    } else {
      check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
      blocking(c, &made);
    }
    for (int k = 0; k < N; ++k) {
      long long want = 0;
      for (int i = 0; i < np; ++i)
        want += (long long)(i + 1) * (k + 1) + c;
      expect_test(sums[c][k] == want, "the MPI_Iallreduce's sum", c);
    }
    if (made != MPI_COMM_NULL) {
      int n = 0;
      MPI_Comm_size(made, &n);
      expect_test(n == (c == 2 ? np / 2 + (np % 2 && me % 2 == 0) : np),
                  "the new communicator's size", c);
      MPI_Comm_free(&made);
    }
  }
  open_results(argv[1]);
  save(sums, sizeof sums);
  fclose(out);
  int all = 0;
  PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && !all)
    printf("pmpi_overlap_block: passed\n");
  MPI_Finalize();
  return all ? 1 : 0;
}
