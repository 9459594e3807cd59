/*===- tests/trace/ring_allgather.c - A hand-written ring allgather -------===*/
/**
 * \file
 * A correct ring allgather written with point-to-point calls, with
 * MPI_Allgather's signature: choreo trace runs it with --impl
 * LIB:ring_allgather. Step i: every rank sends the block it got in step
 * i - 1 (its own first) to its right neighbour and receives from its left.
 */
/*===----------------------------------------------------------------------===*/

#include <mpi.h>

#include <string.h>

int ring_allgather(const void *SendBuf, int SendCount, MPI_Datatype SendType,
                   void *RecvBuf, int RecvCount, MPI_Datatype RecvType,
                   MPI_Comm Comm) {
  int P, R, I, Size;
  char *Out = RecvBuf;
  MPI_Comm_size(Comm, &P);
  MPI_Comm_rank(Comm, &R);
  MPI_Type_size(RecvType, &Size);
  (void)SendType;
  (void)SendCount;
  memcpy(Out + (size_t)R * RecvCount * Size, SendBuf, (size_t)RecvCount * Size);
  for (I = 0; I < P - 1; ++I) {
    int SendBlock = (R - I + P) % P, RecvBlock = (R - I - 1 + P) % P;
    MPI_Sendrecv(Out + (size_t)SendBlock * RecvCount * Size, RecvCount,
                 RecvType, (R + 1) % P, 7,
                 Out + (size_t)RecvBlock * RecvCount * Size, RecvCount,
                 RecvType, (R - 1 + P) % P, 7, Comm, MPI_STATUS_IGNORE);
  }
  return MPI_SUCCESS;
}
