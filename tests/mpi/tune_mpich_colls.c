/* tests/mpi/tune_mpich_colls.c - every MPI collective, for a tuning file.
 *
 * Calls each blocking and non-blocking collective on an intracommunicator
 * (several message sizes, MPI_IN_PLACE, a user-defined and a
 * non-commutative operator), on an intercommunicator (the two halves of
 * the job) and the neighbourhood collectives on a periodic ring, checking
 * the sums of the reductions and the data of the gathers. MPICH looks
 * every one of them up in its selection tree: run under
 * MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE it shows that the tree covers
 * every collective (MPICH asserts on a missing one). Prints "tune colls:
 * ok" on rank 0; exits 1 on a wrong result. At least 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Failures = 0;
static int Me;

static void check(int Cond, const char *What, int Bytes) {
  if (!Cond) {
    fprintf(stderr, "rank %d: %s (%d bytes): wrong result\n", Me, What, Bytes);
    ++Failures;
  }
}

static void userSum(void *In, void *InOut, int *Len, MPI_Datatype *T) {
  (void)T;
  for (int I = 0; I < *Len; ++I)
    ((double *)InOut)[I] += ((double *)In)[I];
}

/* Every collective on Comm (intra: scan, exscan and the operators too). */
static void allCollectives(MPI_Comm Comm, int Inter, int N) {
  int P, R, Remote;
  MPI_Comm_size(Comm, &P);
  MPI_Comm_rank(Comm, &R);
  Remote = P;
  if (Inter)
    MPI_Comm_remote_size(Comm, &Remote);
  int Big = P > Remote ? P : Remote;
  size_t Cap = (size_t)N * Big + 64;
  double *A = calloc(Cap, sizeof(double)), *B = calloc(Cap, sizeof(double));
  int *Counts = malloc(Big * sizeof(int)), *Displs = malloc(Big * sizeof(int));
  MPI_Datatype *Types = malloc(Big * sizeof(MPI_Datatype));
  for (int I = 0; I < Big; ++I) {
    Counts[I] = N;
    Displs[I] = I * N;
    Types[I] = MPI_DOUBLE;
  }
  int Bytes = N * 8;
  for (size_t I = 0; I < Cap; ++I)
    A[I] = 1.0;
  /* Intercommunicator roots: rank 0 of the first group sends. */
  int Low = 1;
  if (Inter) {
    int Flag;
    MPI_Comm_test_inter(Comm, &Flag);
    int World;
    MPI_Comm_rank(MPI_COMM_WORLD, &World);
    int Wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &Wsize);
    Low = World < Wsize / 2;
  }
  int Root = Inter ? (Low ? (R == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0) : 0;
  MPI_Request Q;

  MPI_Barrier(Comm);
  MPI_Ibarrier(Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Bcast(A, N, MPI_DOUBLE, Root, Comm);
  MPI_Ibcast(A, N, MPI_DOUBLE, Root, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);

  MPI_Allreduce(A, B, N, MPI_DOUBLE, MPI_SUM, Comm);
  check(B[N - 1] == Remote, "MPI_Allreduce", Bytes);
  MPI_Iallreduce(A, B, N, MPI_DOUBLE, MPI_SUM, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  check(B[0] == Remote, "MPI_Iallreduce", Bytes);
  MPI_Reduce(A, B, N, MPI_DOUBLE, MPI_SUM, Root, Comm);
  MPI_Ireduce(A, B, N, MPI_DOUBLE, MPI_SUM, Root, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Reduce_scatter_block(A, B, N, MPI_DOUBLE, MPI_SUM, Comm);
  MPI_Ireduce_scatter_block(A, B, N, MPI_DOUBLE, MPI_SUM, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Reduce_scatter(A, B, Counts, MPI_DOUBLE, MPI_SUM, Comm);
  MPI_Ireduce_scatter(A, B, Counts, MPI_DOUBLE, MPI_SUM, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);

  MPI_Allgather(A, N, MPI_DOUBLE, B, N, MPI_DOUBLE, Comm);
  MPI_Iallgather(A, N, MPI_DOUBLE, B, N, MPI_DOUBLE, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Allgatherv(A, N, MPI_DOUBLE, B, Counts, Displs, MPI_DOUBLE, Comm);
  MPI_Iallgatherv(A, N, MPI_DOUBLE, B, Counts, Displs, MPI_DOUBLE, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Gather(A, N, MPI_DOUBLE, B, N, MPI_DOUBLE, Root, Comm);
  MPI_Igather(A, N, MPI_DOUBLE, B, N, MPI_DOUBLE, Root, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Gatherv(A, N, MPI_DOUBLE, B, Counts, Displs, MPI_DOUBLE, Root, Comm);
  MPI_Igatherv(A, N, MPI_DOUBLE, B, Counts, Displs, MPI_DOUBLE, Root, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Scatter(A, N, MPI_DOUBLE, B, N, MPI_DOUBLE, Root, Comm);
  MPI_Iscatter(A, N, MPI_DOUBLE, B, N, MPI_DOUBLE, Root, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Scatterv(A, Counts, Displs, MPI_DOUBLE, B, N, MPI_DOUBLE, Root, Comm);
  MPI_Iscatterv(A, Counts, Displs, MPI_DOUBLE, B, N, MPI_DOUBLE, Root, Comm,
                &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);

  MPI_Alltoall(A, N, MPI_DOUBLE, B, N, MPI_DOUBLE, Comm);
  MPI_Ialltoall(A, N, MPI_DOUBLE, B, N, MPI_DOUBLE, Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Alltoallv(A, Counts, Displs, MPI_DOUBLE, B, Counts, Displs, MPI_DOUBLE,
                Comm);
  MPI_Ialltoallv(A, Counts, Displs, MPI_DOUBLE, B, Counts, Displs, MPI_DOUBLE,
                 Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  int *ByteDispls = malloc(Big * sizeof(int));
  for (int I = 0; I < Big; ++I)
    ByteDispls[I] = Displs[I] * 8;
  MPI_Alltoallw(A, Counts, ByteDispls, Types, B, Counts, ByteDispls, Types,
                Comm);
  MPI_Ialltoallw(A, Counts, ByteDispls, Types, B, Counts, ByteDispls, Types,
                 Comm, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);

  if (!Inter) {
    /* The intracommunicator's own: scans, in-place alltoalls, a
     * user-defined (commutative) and a non-commutative operator. */
    MPI_Scan(A, B, N, MPI_DOUBLE, MPI_SUM, Comm);
    check(B[0] == R + 1, "MPI_Scan", Bytes);
    MPI_Iscan(A, B, N, MPI_DOUBLE, MPI_SUM, Comm, &Q);
    MPI_Wait(&Q, MPI_STATUS_IGNORE);
    MPI_Exscan(A, B, N, MPI_DOUBLE, MPI_SUM, Comm);
    MPI_Iexscan(A, B, N, MPI_DOUBLE, MPI_SUM, Comm, &Q);
    MPI_Wait(&Q, MPI_STATUS_IGNORE);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, B, N, MPI_DOUBLE, Comm);
    MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, B, N, MPI_DOUBLE, Comm,
                  &Q);
    MPI_Wait(&Q, MPI_STATUS_IGNORE);
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, B, Counts,
                  Displs, MPI_DOUBLE, Comm);
    MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, B, Counts, ByteDispls, Types,
                  Comm);
    MPI_Op Commuting, Ordered;
    MPI_Op_create(userSum, 1, &Commuting);
    MPI_Op_create(userSum, 0, &Ordered);
    MPI_Allreduce(A, B, N, MPI_DOUBLE, Commuting, Comm);
    check(B[N - 1] == P, "MPI_Allreduce (user operator)", Bytes);
    MPI_Reduce(A, B, N, MPI_DOUBLE, Ordered, 0, Comm);
    check(R != 0 || B[0] == P, "MPI_Reduce (non-commutative)", Bytes);
    MPI_Reduce_scatter_block(A, B, N, MPI_DOUBLE, Ordered, Comm);
    check(B[0] == P, "MPI_Reduce_scatter_block (non-commutative)", Bytes);
    MPI_Reduce_scatter(A, B, Counts, MPI_DOUBLE, Ordered, Comm);
    MPI_Op_free(&Commuting);
    MPI_Op_free(&Ordered);
  }
  free(ByteDispls);
  free(A);
  free(B);
  free(Counts);
  free(Displs);
  free(Types);
}

static void neighbourhood(void) {
  int P, Periodic = 1, Dims[1];
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  Dims[0] = P;
  MPI_Comm Ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, Dims, &Periodic, 0, &Ring);
  double A[4] = {1, 1, 1, 1}, B[4];
  int C[2] = {2, 2}, D[2] = {0, 2};
  MPI_Datatype T[2] = {MPI_DOUBLE, MPI_DOUBLE};
  MPI_Request Q;
  MPI_Neighbor_allgather(A, 2, MPI_DOUBLE, B, 2, MPI_DOUBLE, Ring);
  MPI_Ineighbor_allgather(A, 2, MPI_DOUBLE, B, 2, MPI_DOUBLE, Ring, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Neighbor_allgatherv(A, 2, MPI_DOUBLE, B, C, D, MPI_DOUBLE, Ring);
  MPI_Ineighbor_allgatherv(A, 2, MPI_DOUBLE, B, C, D, MPI_DOUBLE, Ring, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Neighbor_alltoall(A, 2, MPI_DOUBLE, B, 2, MPI_DOUBLE, Ring);
  MPI_Ineighbor_alltoall(A, 2, MPI_DOUBLE, B, 2, MPI_DOUBLE, Ring, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Neighbor_alltoallv(A, C, D, MPI_DOUBLE, B, C, D, MPI_DOUBLE, Ring);
  MPI_Ineighbor_alltoallv(A, C, D, MPI_DOUBLE, B, C, D, MPI_DOUBLE, Ring, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Aint AD[2] = {0, 16};
  MPI_Neighbor_alltoallw(A, C, AD, T, B, C, AD, T, Ring);
  MPI_Ineighbor_alltoallw(A, C, AD, T, B, C, AD, T, Ring, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  MPI_Comm_free(&Ring);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P < 2 || P % 2) {
    /* The intercommunicator's halves must be equal: its reduce_scatter
     * calls take one count per member. */
    if (Me == 0)
      fprintf(stderr, "tune colls: needs an even number of ranks\n");
    MPI_Finalize();
    return 2;
  }
  /* 8 B to 1 MiB a member: every tuned size branch of a small grid. */
  for (int N = 1; N <= 131072; N *= 16)
    allCollectives(MPI_COMM_WORLD, 0, N);
  MPI_Comm Half, Inter;
  int Low = Me < P / 2;
  MPI_Comm_split(MPI_COMM_WORLD, Low, Me, &Half);
  MPI_Intercomm_create(Half, 0, MPI_COMM_WORLD, Low ? P / 2 : 0, 7, &Inter);
  for (int N = 1; N <= 4096; N *= 64)
    allCollectives(Inter, 1, N);
  MPI_Comm_free(&Inter);
  MPI_Comm_free(&Half);
  neighbourhood();
  int All = 0;
  MPI_Allreduce(&Failures, &All, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Me == 0)
    printf(All ? "tune colls: %d failures\n" : "tune colls: ok\n", All);
  MPI_Finalize();
  return All ? 1 : 0;
}
