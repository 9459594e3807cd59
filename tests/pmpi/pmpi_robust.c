/*===- tests/pmpi/pmpi_robust.c - Calls that must fail cleanly
 * -------------===*/
/*
 * mpiexec -n N pmpi_robust MODE: one collective on MPI_COMM_WORLD (with
 * MPI_ERRORS_RETURN) that the ranks do not agree on, or that the
 * environment makes impossible; every rank prints what its call returned:
 *   "robust: rank R: ok" or "robust: rank R: error: <MPI_Error_string>".
 * MODE allgather: every rank calls MPI_Allgather of 4 ints (the environment
 *   differs between ranks); counts: rank 0 passes 5 ints, the others 4
 *   (MPI_Allgatherv with counts that differ between the ranks);
 * allreduce: MPI_Allreduce of 4 ints (MPI_SUM), checked; reduce-counts:
 *   MPI_Reduce where rank 0 passes 5 ints, the others 4; op: MPI_Allreduce
 *   where rank 0's operator does not commute (a user op) and the others'
 *   (MPI_SUM) does; noncomm: MPI_Allreduce with a non-commutative user
 *   operator on every rank; bcast: MPI_Bcast of 2 ints from rank 0,
 *   checked (the environment may differ between ranks).
 * tests/pmpi/robust.sh checks that every rank reports the same error and
 * that nobody hangs.
 */
#include <mpi.h>

/* Non-commutative (first wins): inout = in. */
static void first(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  for (int i = 0; i < *len; ++i)
    ((int *)inout)[i] = ((int *)in)[i];
}

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
  } else if (argc > 1 && strcmp(argv[1], "allreduce") == 0) {
    rc = MPI_Allreduce(send, recv, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && recv[3] != p * (p - 1) / 2)
      rc = MPI_ERR_OTHER; /* a wrong answer */
  } else if (argc > 1 && strcmp(argv[1], "bcast") == 0) {
    /* Eight bytes from rank 0: the margin hands it to MPICH. */
    int v[2] = {me == 0 ? 7 : -1, me == 0 ? 11 : -1};
    rc = MPI_Bcast(v, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && (v[0] != 7 || v[1] != 11))
      rc = MPI_ERR_OTHER; /* a wrong answer */
  } else if (argc > 1 && strcmp(argv[1], "reduce-counts") == 0) {
    rc = MPI_Reduce(send, recv, me == 0 ? 5 : 4, MPI_INT, MPI_SUM, 0,
                    MPI_COMM_WORLD);
  } else if (argc > 1 &&
             (strcmp(argv[1], "op") == 0 || strcmp(argv[1], "noncomm") == 0)) {
    MPI_Op op;
    MPI_Op_create(first, 0, &op);
    int mine = strcmp(argv[1], "noncomm") == 0 || me == 0;
    rc = MPI_Allreduce(send, recv, 4, MPI_INT, mine ? op : MPI_SUM,
                       MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && strcmp(argv[1], "noncomm") == 0 && recv[0] != 0)
      rc = MPI_ERR_OTHER; /* rank 0's vector is the product */
    MPI_Op_free(&op);
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
