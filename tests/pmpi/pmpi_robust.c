/*===- tests/pmpi/pmpi_robust.c - Calls that must fail cleanly -------------===*/
/*
 * mpiexec -n N pmpi_robust MODE: one collective on MPI_COMM_WORLD (with
 * MPI_ERRORS_RETURN) that the ranks do not agree on, or that the
 * environment makes impossible; every rank prints what its call returned:
 *   "robust: rank R: ok" or "robust: rank R: error: <MPI_Error_string>".
 * MODE allgather: every rank calls MPI_Allgather of 4 ints (the environment
 *   differs between ranks); counts: rank 0 passes 5 ints, the others 4
 *   (MPI_Allgatherv with counts that differ between the ranks).
 * tests/pmpi/robust.sh checks that every rank reports the same error and
 * that nobody hangs.
 */
#include <mpi.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int send[8] = {me, me, me, me, me}, recv[64], counts[8], displs[8];
  int rc;
  if (argc > 1 && strcmp(argv[1], "counts") == 0) {
    for (int s = 0; s < p; ++s) {
      counts[s] = (s == 0 || me == 0) ? 5 : 4; /* rank 0 thinks all send 5 */
      displs[s] = s * 5;
    }
    rc = MPI_Allgatherv(send, counts[me], MPI_INT, recv, counts, displs,
                        MPI_INT, MPI_COMM_WORLD);
  } else {
    rc = MPI_Allgather(send, 4, MPI_INT, recv, 4, MPI_INT, MPI_COMM_WORLD);
  }
  if (rc == MPI_SUCCESS) {
    printf("robust: rank %d: ok\n", me);
  } else {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    printf("robust: rank %d: error: %s\n", me, msg);
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
