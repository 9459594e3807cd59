/*===- tests/install/external/user.c - A C user of an installed choreo ---===*/
/**
 * \file
 * mpiexec -n P user-c SCHEDULE: runs an allgather schedule of P ranks with
 * 8 bytes per member through the C API and checks every rank's result;
 * also checks that a missing file is refused with a message naming it.
 * Also calls MPI_Allgather directly on the same data, so that the same
 * program preloaded with libchoreo-mpi.so checks the drop-in library.
 * Prints "user-c: passed" on rank 0 when every rank passed.
 */
#include <choreo.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, p, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 2 || p > 64) {
    if (me == 0)
      fprintf(stderr, "usage: mpiexec -n P<=64 user-c SCHEDULE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  unsigned char mine[8], all[64 * 8], ref[64 * 8];
  for (int i = 0; i < 8; ++i)
    mine[i] = (unsigned char)(me * 8 + i + 1);
  for (int i = 0; i < 8 * p; ++i)
    ref[i] = (unsigned char)(i + 1);

  choreo_buffers b;
  choreo_buffers_init(&b);
  b.sendbuf = mine;
  b.sendbytes = 8;
  b.recvbuf = all;
  b.recvbytes = 8 * (size_t)p;
  choreo_plan plan;
  memset(all, 0, sizeof all);
  if (choreo_plan_create(argv[1], MPI_COMM_WORLD, &b, &plan) != CHOREO_OK) {
    fprintf(stderr, "rank %d: %s\n", me, choreo_last_error());
    bad = 1;
  } else {
    for (int run = 0; run < 3 && !bad; ++run)
      if (choreo_plan_execute(plan) != CHOREO_OK ||
          memcmp(all, ref, 8 * (size_t)p) != 0)
        bad = 1;
    choreo_plan_free(&plan);
  }

  choreo_plan none = NULL;
  if (choreo_plan_create("no-such.json", MPI_COMM_WORLD, &b, &none) ==
          CHOREO_OK ||
      !strstr(choreo_last_error(), "no-such.json"))
    bad = 1;

  memset(all, 0, sizeof all);
  MPI_Allgather(mine, 8, MPI_BYTE, all, 8, MPI_BYTE, MPI_COMM_WORLD);
  if (memcmp(all, ref, 8 * (size_t)p) != 0)
    bad = 1;

  int anybad = 0;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0)
    printf(anybad ? "user-c: FAILED\n" : "user-c: passed\n");
  MPI_Finalize();
  return anybad;
}
