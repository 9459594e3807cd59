/*===- trace/driver/TraceDriver.c - One MPI collective call to trace -----===*/
/**
 * \file
 * choreo-trace-driver: a plain MPI program that makes the one collective
 * call `choreo trace` asks for (docs/trace.md), read from the environment
 * `choreo trace` sets: CHOREO_TRACE_CALL (bcast, gather, gatherv, scatter,
 * scatterv, allgather, allgatherv, alltoall, alltoallv, barrier, reduce,
 * allreduce, reduce_scatter, reduce_scatter_block),
 * CHOREO_TRACE_BYTES (a member's bytes, the vector's, or an alltoall's
 * bytes per pair), CHOREO_TRACE_COUNTS (allgatherv, gatherv, scatterv,
 * reduce_scatter: a comma list of bytes, one per rank; alltoallv: p x p,
 * row-major, entry i*p+j the bytes rank i sends rank j),
 * CHOREO_TRACE_ROOT, CHOREO_TRACE_OP (builtin: MPI_SUM on 64-bit words;
 * user: an operator of the program's that does not commute). The preload
 * library fills the buffers and picks the operator it traces with; the
 * driver only gives the call its sizes and the kind of operator.
 */
/*===----------------------------------------------------------------------===*/

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void noop(void *In, void *InOut, int *Len, MPI_Datatype *T) {
  (void)In, (void)InOut, (void)Len, (void)T;
}

static void fail(const char *Msg, const char *Value) {
  int R = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  if (R == 0)
    fprintf(stderr, "choreo-trace-driver: %s%s\n", Msg, Value ? Value : "");
  MPI_Finalize();
  exit(2);
}

static long envNumber(const char *Name, long Default) {
  const char *V = getenv(Name);
  char *End;
  long X;
  if (!V || !*V)
    return Default;
  X = strtol(V, &End, 10);
  if (*End || X < 0)
    fail("not a non-negative number: ", Name);
  return X;
}

/* CHOREO_TRACE_COUNTS, Size counts; returns their sum. */
static long parseCounts(int *Counts, int Size) {
  const char *P = getenv("CHOREO_TRACE_COUNTS");
  long Total = 0;
  int I;
  if (!P)
    fail("this call needs CHOREO_TRACE_COUNTS (--counts)", 0);
  for (I = 0; I < Size; ++I) {
    char *End;
    Counts[I] = (int)strtol(P, &End, 10);
    if (End == P || (I + 1 < Size && *End != ','))
      fail("CHOREO_TRACE_COUNTS does not have the call's counts (one per rank; "
           "alltoallv: p x p): ",
           P);
    P = End + (*End == ',');
    Total += Counts[I];
  }
  if (*P)
    fail("CHOREO_TRACE_COUNTS has more counts than the call takes: ", P);
  return Total;
}

/* MPI_SUM, or an operator of the program's own that does not commute. */
static MPI_Op userOp(const char *Op) {
  MPI_Op TheOp = MPI_SUM;
  if (Op && !strcmp(Op, "user"))
    MPI_Op_create(noop, 0, &TheOp);
  return TheOp;
}

int main(int Argc, char **Argv) {
  int Size, Me, I;
  const char *Call, *Op;
  long Bytes, Root;
  char *Send, *Recv;
  MPI_Init(&Argc, &Argv);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  Call = getenv("CHOREO_TRACE_CALL");
  Op = getenv("CHOREO_TRACE_OP");
  Bytes = envNumber("CHOREO_TRACE_BYTES", 8);
  Root = envNumber("CHOREO_TRACE_ROOT", 0);
  if (!Call)
    fail("CHOREO_TRACE_CALL is not set (run me under `choreo trace`)", 0);
  if (Root >= Size)
    fail("CHOREO_TRACE_ROOT is not a rank", 0);
  if (!strcmp(Call, "allgatherv")) {
    int *Counts = calloc(Size, sizeof(int)),
        *Displs = calloc(Size, sizeof(int));
    const char *P = getenv("CHOREO_TRACE_COUNTS");
    long Total = 0;
    if (!P)
      fail("allgatherv needs CHOREO_TRACE_COUNTS", 0);
    for (I = 0; I < Size; ++I) {
      char *End;
      Counts[I] = (int)strtol(P, &End, 10);
      if (End == P || (I + 1 < Size && *End != ','))
        fail("CHOREO_TRACE_COUNTS does not have one count per rank: ", P);
      P = End + (*End == ',');
      Displs[I] = (int)Total;
      Total += Counts[I];
    }
    Send = calloc(Counts[Me] + 1, 1);
    Recv = calloc(Total + 1, 1);
    MPI_Allgatherv(Send, Counts[Me], MPI_BYTE, Recv, Counts, Displs, MPI_BYTE,
                   MPI_COMM_WORLD);
  } else if (!strcmp(Call, "bcast")) {
    Send = calloc(Bytes + 1, 1);
    MPI_Bcast(Send, (int)Bytes, MPI_BYTE, (int)Root, MPI_COMM_WORLD);
  } else if (!strcmp(Call, "gather") || !strcmp(Call, "allgather")) {
    Send = calloc(Bytes + 1, 1);
    Recv = calloc(Bytes * Size + 1, 1);
    if (!strcmp(Call, "gather"))
      MPI_Gather(Send, (int)Bytes, MPI_BYTE, Recv, (int)Bytes, MPI_BYTE,
                 (int)Root, MPI_COMM_WORLD);
    else
      MPI_Allgather(Send, (int)Bytes, MPI_BYTE, Recv, (int)Bytes, MPI_BYTE,
                    MPI_COMM_WORLD);
  } else if (!strcmp(Call, "gatherv") || !strcmp(Call, "scatterv")) {
    int *Counts = calloc(Size, sizeof(int)),
        *Displs = calloc(Size, sizeof(int));
    long Total = parseCounts(Counts, Size);
    for (I = 1; I < Size; ++I)
      Displs[I] = Displs[I - 1] + Counts[I - 1];
    Send = calloc(Total + 1, 1);
    Recv = calloc(Total + 1, 1);
    if (!strcmp(Call, "gatherv"))
      MPI_Gatherv(Send, Counts[Me], MPI_BYTE, Recv, Counts, Displs, MPI_BYTE,
                  (int)Root, MPI_COMM_WORLD);
    else
      MPI_Scatterv(Send, Counts, Displs, MPI_BYTE, Recv, Counts[Me], MPI_BYTE,
                   (int)Root, MPI_COMM_WORLD);
  } else if (!strcmp(Call, "scatter") || !strcmp(Call, "alltoall")) {
    Send = calloc(Bytes * Size + 1, 1);
    Recv = calloc(Bytes * Size + 1, 1);
    if (!strcmp(Call, "scatter"))
      MPI_Scatter(Send, (int)Bytes, MPI_BYTE, Recv, (int)Bytes, MPI_BYTE,
                  (int)Root, MPI_COMM_WORLD);
    else
      MPI_Alltoall(Send, (int)Bytes, MPI_BYTE, Recv, (int)Bytes, MPI_BYTE,
                   MPI_COMM_WORLD);
  } else if (!strcmp(Call, "alltoallv")) {
    int *M = calloc((size_t)Size * Size, sizeof(int));
    int *SC = calloc(Size, sizeof(int)), *SD = calloc(Size, sizeof(int)),
        *RC = calloc(Size, sizeof(int)), *RD = calloc(Size, sizeof(int));
    parseCounts(M, Size * Size);
    for (I = 0; I < Size; ++I) {
      SC[I] = M[Me * Size + I];
      RC[I] = M[I * Size + Me];
      if (I) {
        SD[I] = SD[I - 1] + SC[I - 1];
        RD[I] = RD[I - 1] + RC[I - 1];
      }
    }
    Send = calloc(SD[Size - 1] + SC[Size - 1] + 1, 1);
    Recv = calloc(RD[Size - 1] + RC[Size - 1] + 1, 1);
    MPI_Alltoallv(Send, SC, SD, MPI_BYTE, Recv, RC, RD, MPI_BYTE,
                  MPI_COMM_WORLD);
  } else if (!strcmp(Call, "barrier")) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (!strcmp(Call, "reduce_scatter_block")) {
    int Count = (int)(Bytes / 8 / Size);
    Send = calloc(Bytes / 8 + 1, 8);
    Recv = calloc(Count + 1, 8);
    MPI_Reduce_scatter_block(Send, Recv, Count, MPI_UINT64_T, userOp(Op),
                             MPI_COMM_WORLD);
  } else if (!strcmp(Call, "reduce_scatter")) {
    int *Counts = calloc(Size, sizeof(int));
    long Total = parseCounts(Counts, Size);
    for (I = 0; I < Size; ++I)
      Counts[I] /= 8;
    Send = calloc(Total / 8 + 1, 8);
    Recv = calloc(Counts[Me] + 1, 8);
    MPI_Reduce_scatter(Send, Recv, Counts, MPI_UINT64_T, userOp(Op),
                       MPI_COMM_WORLD);
  } else if (!strcmp(Call, "reduce") || !strcmp(Call, "allreduce")) {
    MPI_Op TheOp = userOp(Op);
    int Count = (int)(Bytes / 8);
    Send = calloc(Count + 1, 8);
    Recv = calloc(Count + 1, 8);
    if (!strcmp(Call, "reduce"))
      MPI_Reduce(Send, Recv, Count, MPI_UINT64_T, TheOp, (int)Root,
                 MPI_COMM_WORLD);
    else
      MPI_Allreduce(Send, Recv, Count, MPI_UINT64_T, TheOp, MPI_COMM_WORLD);
    if (TheOp != MPI_SUM)
      MPI_Op_free(&TheOp);
  } else {
    fail("no such call: ", Call);
  }
  MPI_Finalize();
  return 0;
}
