/*===- tests/trace/rd_allreduce_bug.c - Recursive doubling, wrong for odd p =*/
/**
 * \file
 * A recursive-doubling allreduce with MPI_Allreduce's signature, with a
 * deliberate bug that shows only when p is not a power of two. The ranks
 * r >= p' (p' the largest power of two <= p) send their vector to r - p',
 * which combine it in; ranks 0..p'-1 exchange and combine with partner
 * r xor 2^k (the lower rank's partial first); ranks r < p - p' send the
 * result to r + p'. The bug: r + p' combines that result into its own
 * vector instead of copying it, so its own contribution counts twice.
 */
/*===----------------------------------------------------------------------===*/

#include <mpi.h>

#include <stdlib.h>
#include <string.h>

int rd_allreduce_bug(const void *SendBuf, void *RecvBuf, int Count,
                     MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm) {
  int P, R, Size, Pof2 = 1, Rem, Mask;
  size_t Bytes;
  char *Tmp;
  MPI_Comm_size(Comm, &P);
  MPI_Comm_rank(Comm, &R);
  MPI_Type_size(Type, &Size);
  Bytes = (size_t)Count * Size;
  Tmp = malloc(Bytes + 1);
  memcpy(RecvBuf, SendBuf, Bytes);
  while (Pof2 * 2 <= P)
    Pof2 *= 2;
  Rem = P - Pof2;
  if (R >= Pof2) {
    MPI_Send(RecvBuf, Count, Type, R - Pof2, 1, Comm);
  } else {
    if (R < Rem) {
      MPI_Recv(Tmp, Count, Type, R + Pof2, 1, Comm, MPI_STATUS_IGNORE);
      MPI_Reduce_local(RecvBuf, Tmp, Count, Type, Op); /* mine first */
      memcpy(RecvBuf, Tmp, Bytes);
    }
    for (Mask = 1; Mask < Pof2; Mask *= 2) {
      int Partner = R ^ Mask;
      MPI_Sendrecv(RecvBuf, Count, Type, Partner, 2, Tmp, Count, Type, Partner,
                   2, Comm, MPI_STATUS_IGNORE);
      if (Partner < R) {
        MPI_Reduce_local(Tmp, RecvBuf, Count, Type, Op);
      } else {
        MPI_Reduce_local(RecvBuf, Tmp, Count, Type, Op);
        memcpy(RecvBuf, Tmp, Bytes);
      }
    }
  }
  if (R < Rem) {
    MPI_Send(RecvBuf, Count, Type, R + Pof2, 3, Comm);
  } else if (R >= Pof2) {
    MPI_Recv(Tmp, Count, Type, R - Pof2, 3, Comm, MPI_STATUS_IGNORE);
    /* The bug: this should be memcpy(RecvBuf, Tmp, Bytes). */
    MPI_Reduce_local(Tmp, RecvBuf, Count, Type, Op);
  }
  free(Tmp);
  return MPI_SUCCESS;
}
