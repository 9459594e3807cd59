/*===- tests/pmpi/pmpi_preq_reuse.c - MPICH's persistent call after ours -===*/
/*
 * mpiexec -n 3 pmpi_preq_reuse OUTDIR: an unmodified MPI application (it
 * links MPICH only) that, four times, makes, starts, waits for and frees
 * a persistent MPI_Allreduce (the library's persistent request when it is
 * preloaded), then does the same with a persistent MPI_Alltoallw (MPICH's
 * own: the library never serves it), started twice.
 *
 * MPICH 4.0.2's MPI_Start skips a request whose device field for a
 * point-to-point peer reads MPI_PROC_NULL, whatever the request's kind
 * (fixed in MPICH 4.2.0), and a persistent collective request never sets
 * that field: made in a request object that last held a persistent
 * receive from MPI_PROC_NULL, it is never started and MPI_Wait waits for
 * ever. MPICH hands a freed request object to the next request made, so a
 * library whose persistent requests were such receives made every
 * MPI_Alltoallw here hang on every rank. alarm() turns that into a failure
 * after 30 s.
 *
 * Each rank writes its sums and received blocks to OUTDIR/rank<R>.bin
 * (compared bit for bit with the native run's) and checks them itself;
 * rank 0 prints "pmpi_preq_reuse: passed" when every check held on every
 * rank.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMPI_TEST_NAME "pmpi_preq_reuse"
#include "pmpi_test_util.h"

#define ROUNDS 4
#define N 5

int main(int argc, char **argv) {
  alarm(30);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int np = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc != 2 || np > 16) {
    if (me == 0)
      fprintf(stderr, "usage: mpiexec -n 1..16 pmpi_preq_reuse OUTDIR\n");
    MPI_Finalize();
    return 2;
  }
  long long sums[ROUNDS][N];
  int *got = calloc((size_t)ROUNDS * 2 * np, sizeof(int));
  for (int r = 0; r < ROUNDS; ++r) {
    long long in[N];
    for (int k = 0; k < N; ++k)
      in[k] = (long long)(me + 1) * (k + 3) + r;
    MPI_Request p;
    check_rc(MPI_Allreduce_init(in, sums[r], N, MPI_LONG_LONG, MPI_SUM,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &p),
             "MPI_Allreduce_init");
    check_rc(MPI_Start(&p), "MPI_Start (MPI_Allreduce_init)");
    check_rc(MPI_Wait(&p, MPI_STATUS_IGNORE), "MPI_Wait (MPI_Allreduce_init)");
    check_rc(MPI_Request_free(&p), "MPI_Request_free (MPI_Allreduce_init)");
    for (int k = 0; k < N; ++k) {
      long long want = 0;
      for (int i = 0; i < np; ++i)
        want += (long long)(i + 1) * (k + 3) + r;
      expect_test(sums[r][k] == want, "the persistent MPI_Allreduce's sum", r);
    }

    /* One int to every rank: the value names sender, receiver and start. */
    int *snd = malloc(sizeof(int) * np), *rcv = malloc(sizeof(int) * np);
    int *cnt = malloc(sizeof(int) * np), *dsp = malloc(sizeof(int) * np);
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * np);
    for (int j = 0; j < np; ++j)
      cnt[j] = 1, dsp[j] = (int)sizeof(int) * j, ty[j] = MPI_INT;
    check_rc(MPI_Alltoallw_init(snd, cnt, dsp, ty, rcv, cnt, dsp, ty,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &p),
             "MPI_Alltoallw_init");
    for (int s = 0; s < 2; ++s) {
      for (int j = 0; j < np; ++j)
        snd[j] = 1000000 * s + 10000 * r + 100 * me + j, rcv[j] = -1;
      check_rc(MPI_Start(&p), "MPI_Start (MPI_Alltoallw_init)");
      check_rc(MPI_Wait(&p, MPI_STATUS_IGNORE), "MPI_Wait (MPI_Alltoallw_init)");
      for (int i = 0; i < np; ++i) {
        expect_test(rcv[i] == 1000000 * s + 10000 * r + 100 * i + me,
                    "the persistent MPI_Alltoallw's block", r);
        got[(r * 2 + s) * np + i] = rcv[i];
      }
    }
    check_rc(MPI_Request_free(&p), "MPI_Request_free (MPI_Alltoallw_init)");
    free(snd), free(rcv), free(cnt), free(dsp), free(ty);
  }
  open_results(argv[1]);
  save(sums, sizeof sums);
  save(got, sizeof(int) * (size_t)ROUNDS * 2 * np);
  fclose(out);
  free(got);
  int all = 0;
  PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && !all)
    printf("pmpi_preq_reuse: passed\n");
  MPI_Finalize();
  return all ? 1 : 0;
}
