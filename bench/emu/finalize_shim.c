/* bench/emu/finalize_shim.c - MPI_Finalize for the emulated cluster.
 *
 * MPICH 4.0.2 with UCX 1.13 over TCP only hangs in most jobs in MPI_Finalize:
 * one rank spins closing its UCX endpoints while the others wait in PMI's
 * finalize barrier. Preloaded by bench/emu/rank.sh, this MPI_Finalize ends
 * the job without the UCX teardown:
 *   1. PMPI_Barrier on MPI_COMM_WORLD: every rank is done communicating;
 *   2. the PMI-1 finalize handshake with hydra on the inherited PMI_FD
 *      ("cmd=finalize" -> "cmd=finalize_ack"), so mpiexec sees a clean end;
 *   3. it returns MPI_SUCCESS, the program runs on, and its exit status is
 *      passed to hydra through _exit (no library destructors, so no UCX
 *      teardown), so a rank that fails after MPI_Finalize still fails the job.
 * MPI_Finalized answers true afterwards.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int Finalized = 0;

static int pmiFinalize(void) {
  const char *Fd = getenv("PMI_FD");
  if (!Fd)
    return -1;
  int F = atoi(Fd);
  const char Cmd[] = "cmd=finalize\n";
  if (write(F, Cmd, sizeof Cmd - 1) != (ssize_t)(sizeof Cmd - 1))
    return -1;
  char Buf[256];
  size_t Got = 0;
  while (Got + 1 < sizeof Buf) {
    ssize_t N = read(F, Buf + Got, 1);
    if (N <= 0)
      return -1;
    Got += (size_t)N;
    if (Buf[Got - 1] == '\n')
      break;
  }
  Buf[Got] = 0;
  return strstr(Buf, "finalize_ack") ? 0 : -1;
}

static void exitWithoutTeardown(int Status, void *Arg) {
  (void)Arg;
  fflush(NULL);
  _exit(Status);
}

int MPI_Finalize(void) {
  if (getenv("CHOREO_EMU_REAL_FINALIZE"))
    return PMPI_Finalize();
  PMPI_Barrier(MPI_COMM_WORLD);
  if (pmiFinalize() != 0) {
    fprintf(stderr, "finalize_shim: PMI finalize handshake failed; "
                    "falling back to PMPI_Finalize\n");
    return PMPI_Finalize();
  }
  Finalized = 1;
  on_exit(exitWithoutTeardown, NULL);
  return MPI_SUCCESS;
}

int MPI_Finalized(int *Flag) {
  if (Finalized) {
    *Flag = 1;
    return MPI_SUCCESS;
  }
  return PMPI_Finalized(Flag);
}
