/*===- tests/trace/nc_reduce_swap.c - A reduce that swaps operands --------===*/
/**
 * \file
 * A binomial-tree reduce with MPI_Reduce's signature for operators that do
 * not commute, with a deliberate bug: at mask 2^k rank r (r mod 2^(k+1) =
 * 0) receives the partial of ranks r + 2^k.. and combines it as received
 * op mine, the upper interval first, where mine op received is right. Rank
 * 0 then sends the result to the root.
 */
/*===----------------------------------------------------------------------===*/

#include <mpi.h>

#include <stdlib.h>
#include <string.h>

int nc_reduce_swap(const void *SendBuf, void *RecvBuf, int Count,
                   MPI_Datatype Type, MPI_Op Op, int Root, MPI_Comm Comm) {
  int P, R, Size, Mask;
  size_t Bytes;
  char *Acc, *Tmp;
  MPI_Comm_size(Comm, &P);
  MPI_Comm_rank(Comm, &R);
  MPI_Type_size(Type, &Size);
  Bytes = (size_t)Count * Size;
  Acc = malloc(Bytes + 1);
  Tmp = malloc(Bytes + 1);
  memcpy(Acc, SendBuf, Bytes);
  for (Mask = 1; Mask < P; Mask *= 2) {
    if (R & Mask) {
      MPI_Send(Acc, Count, Type, R - Mask, 4, Comm);
      break;
    }
    if (R + Mask < P) {
      MPI_Recv(Tmp, Count, Type, R + Mask, 4, Comm, MPI_STATUS_IGNORE);
      /* The bug: the operands swapped; right is
       * MPI_Reduce_local(Acc, Tmp, ...) and then a copy of Tmp into Acc. */
      MPI_Reduce_local(Tmp, Acc, Count, Type, Op);
    }
  }
  if (Root != 0) {
    if (R == 0)
      MPI_Send(Acc, Count, Type, Root, 5, Comm);
    else if (R == Root)
      MPI_Recv(Acc, Count, Type, 0, 5, Comm, MPI_STATUS_IGNORE);
  }
  if (R == Root)
    memcpy(RecvBuf, Acc, Bytes);
  free(Acc);
  free(Tmp);
  return MPI_SUCCESS;
}
