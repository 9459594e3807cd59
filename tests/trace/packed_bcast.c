/*===- tests/trace/packed_bcast.c - A broadcast that packs a header -------===*/
/**
 * \file
 * A flat broadcast with MPI_Bcast's signature that sends each rank a
 * packed message: an 8-byte length header, then the data. Its messages
 * are not made of the call's content tags, so choreo trace refuses it and
 * says where (docs/trace.md, "Refusals").
 */
/*===----------------------------------------------------------------------===*/

#include <mpi.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int packed_bcast(void *Buf, int Count, MPI_Datatype Type, int Root,
                 MPI_Comm Comm) {
  int P, R, Size, I;
  size_t Bytes;
  char *Msg;
  uint64_t Len;
  MPI_Comm_size(Comm, &P);
  MPI_Comm_rank(Comm, &R);
  MPI_Type_size(Type, &Size);
  Bytes = (size_t)Count * Size;
  Len = Bytes;
  Msg = malloc(Bytes + 8);
  if (R == Root) {
    memcpy(Msg, &Len, 8);
    memcpy(Msg + 8, Buf, Bytes);
    for (I = 0; I < P; ++I)
      if (I != Root)
        MPI_Send(Msg, (int)(Bytes + 8), MPI_BYTE, I, 6, Comm);
  } else {
    MPI_Recv(Msg, (int)(Bytes + 8), MPI_BYTE, Root, 6, Comm, MPI_STATUS_IGNORE);
    memcpy(Buf, Msg + 8, Bytes);
  }
  free(Msg);
  return MPI_SUCCESS;
}
