/* pmpi_types.c - collectives whose ranks describe their buffers with
 * different type maps of one signature (tests/pmpi, ctest pmpi.types).
 *
 * An element is two ints, laid out by one of six datatypes: contiguous,
 * vector (stride 2), indexed (ints 0 and 3), permuted (hindexed: the first
 * int at byte 4, the second at 0), resized (extent 16) and plain MPI_INT
 * (two per element). Every rank picks its own send and receive layouts, so
 * layouts differ across ranks, in MPI_Allgather, MPI_Allgatherv (counts with
 * zeros, gaps between members), both in place, MPI_Bcast and the
 * intercommunicator MPI_Allgather; the reductions (one datatype on every
 * rank, as MPI requires) run MPI_Allreduce, MPI_Reduce,
 * MPI_Reduce_scatter_block and MPI_Reduce_scatter with a user sum that reads the ints where the
 * type map puts them. Every result is checked value by value against what
 * MPI's type-map semantics give, and every receive buffer (holes included)
 * is written to DIR/rank<R>.bin for run-app.sh to compare with the native
 * run. Prints "passed" when every check holds. A plain MPI program. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NLAYOUTS = 6, K = 3 };
static MPI_Datatype Types[NLAYOUTS];
static int Off[NLAYOUTS][2];  /* byte offsets of the two ints */
static int Ext[NLAYOUTS];     /* extent of one element */
static int Per[NLAYOUTS];     /* datatype items per element (MPI_INT: 2) */
static const char *Names[NLAYOUTS] = {"contiguous", "vector", "indexed",
                                      "permuted", "resized", "MPI_INT"};
static int Me, Np, Wrong, Checks;
static FILE *Out;

static void layouts(void) {
  MPI_Datatype C2;
  MPI_Type_contiguous(2, MPI_INT, &Types[0]);
  MPI_Type_vector(2, 1, 2, MPI_INT, &Types[1]);
  int Bl[2] = {1, 1}, Ds[2] = {0, 3};
  MPI_Type_indexed(2, Bl, Ds, MPI_INT, &Types[2]);
  MPI_Aint Hd[2] = {4, 0};
  MPI_Type_create_hindexed(2, Bl, Hd, MPI_INT, &Types[3]);
  MPI_Type_contiguous(2, MPI_INT, &C2);
  MPI_Type_create_resized(C2, 0, 16, &Types[4]);
  MPI_Type_free(&C2);
  Types[5] = MPI_INT;
  int O[NLAYOUTS][2] = {{0, 4}, {0, 8}, {0, 12}, {4, 0}, {0, 4}, {0, 4}};
  int E[NLAYOUTS] = {8, 12, 16, 8, 16, 8};
  for (int L = 0; L < NLAYOUTS; ++L) {
    if (L < 5)
      MPI_Type_commit(&Types[L]);
    Off[L][0] = O[L][0];
    Off[L][1] = O[L][1];
    Ext[L] = E[L];
    Per[L] = L == 5 ? 2 : 1;
  }
}

/* The value of int J of element E contributed by rank R in case C. */
static int value(int C, int R, int E, int J) { return C * 100000 + R * 1000 + E * 10 + J; }

static void put(char *Buf, int L, int E, int J, int V) { memcpy(Buf + (size_t)E * Ext[L] + Off[L][J], &V, 4); }
static int get(const char *Buf, int L, int E, int J) {
  int V;
  memcpy(&V, Buf + (size_t)E * Ext[L] + Off[L][J], 4);
  return V;
}

static void expect(const char *What, int Got, int Want) {
  ++Checks;
  if (Got != Want && Wrong++ < 10)
    fprintf(stderr, "types: rank %d: %s: got %d, want %d\n", Me, What, Got, Want);
}

static void dump(const char *Buf, size_t Bytes) { fwrite(Buf, 1, Bytes, Out); }

/* Allgather(v) over Comm (intra or inter), layouts SL and RL of this rank,
 * Counts[i] elements of member i of the group whose data arrives (NULL:
 * allgather, K each), in place or not. */
static void gather(int C, MPI_Comm Comm, int SL, int RL, int V, int InPlace) {
  int Inter, N, R, Members;
  MPI_Comm_test_inter(Comm, &Inter);
  MPI_Comm_size(Comm, &N);
  MPI_Comm_rank(Comm, &R);
  Members = N;
  if (Inter)
    MPI_Comm_remote_size(Comm, &Members);
  int *Counts = malloc(sizeof(int) * Members), *Displs = malloc(sizeof(int) * Members);
  int End = 0;
  for (int I = 0; I < Members; ++I) {
    Counts[I] = V ? I % 3 : K;
    Displs[I] = V ? End + 1 : End; /* a gap of one element before each */
    End = Displs[I] + Counts[I];
  }
  int Mine = V ? (Inter ? (R + 1) % 3 : R % 3) : K; /* inter: both groups differ */
  if (Inter && V) {
    /* The remote group's counts must be what each remote member sends. */
    for (int I = 0; I < Members; ++I)
      Counts[I] = (I + 1) % 3;
    End = 0;
    for (int I = 0; I < Members; ++I) {
      Displs[I] = End + 1;
      End = Displs[I] + Counts[I];
    }
  }
  size_t RecvBytes = (size_t)End * Ext[RL] + 16;
  char *Recv = malloc(RecvBytes), *Send = calloc((size_t)Mine * Ext[SL] + 16, 1);
  memset(Recv, 0xEE, RecvBytes);
  int Group = 0;
  if (Inter) { /* which side: the low group has world rank 0 */
    MPI_Group G, W;
    int Zero = 0, T;
    MPI_Comm_group(Comm, &G);
    MPI_Comm_group(MPI_COMM_WORLD, &W);
    MPI_Group_translate_ranks(W, 1, &Zero, G, &T);
    Group = T == MPI_UNDEFINED; /* 1: this rank is in the high group */
    MPI_Group_free(&G);
    MPI_Group_free(&W);
  }
  int Src = Group * 100 + R;
  for (int E = 0; E < Mine; ++E)
    for (int J = 0; J < 2; ++J) {
      put(Send, SL, E, J, value(C, Src, E, J));
      if (InPlace)
        put(Recv, RL, Displs[R] + E, J, value(C, Src, E, J));
    }
  int Rc;
  if (V) {
    int *CI = malloc(sizeof(int) * Members), *DI = malloc(sizeof(int) * Members);
    for (int I = 0; I < Members; ++I) {
      CI[I] = Counts[I] * Per[RL];
      DI[I] = Displs[I] * Per[RL];
    }
    memset(Recv, 0xEE, RecvBytes);
    if (InPlace)
      for (int E = 0; E < Mine; ++E)
        for (int J = 0; J < 2; ++J)
          put(Recv, RL, Displs[R] + E, J, value(C, Src, E, J));
    Rc = MPI_Allgatherv(InPlace ? MPI_IN_PLACE : Send, Mine * Per[SL], Types[SL], Recv, CI, DI, Types[RL], Comm);
    free(CI);
    free(DI);
  } else {
    Rc = MPI_Allgather(InPlace ? MPI_IN_PLACE : Send, K * Per[SL], Types[SL], Recv, K * Per[RL], Types[RL], Comm);
  }
  char What[160];
  snprintf(What, sizeof What, "case %d %s%s%s send %s recv %s", C, Inter ? "inter " : "",
           V ? "allgatherv" : "allgather", InPlace ? " in place" : "", Names[SL], Names[RL]);
  expect(What, Rc, MPI_SUCCESS);
  int Other = Inter ? 1 - Group : 0;
  for (int I = 0; I < Members; ++I)
    for (int E = 0; E < Counts[I]; ++E)
      for (int J = 0; J < 2; ++J)
        expect(What, get(Recv, RL, Displs[I] + E, J), value(C, Other * 100 + I, E, J));
  dump(Recv, RecvBytes);
  free(Recv);
  free(Send);
  free(Counts);
  free(Displs);
}

static void bcast(int C, int L, int Root) {
  size_t Bytes = (size_t)K * Ext[L];
  char *Buf = malloc(Bytes);
  memset(Buf, 0xEE, Bytes);
  if (Me == Root)
    for (int E = 0; E < K; ++E)
      for (int J = 0; J < 2; ++J)
        put(Buf, L, E, J, value(C, Root, E, J));
  char What[96];
  snprintf(What, sizeof What, "case %d bcast root %d layout %s", C, Root, Names[L]);
  expect(What, MPI_Bcast(Buf, K * Per[L], Types[L], Root, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int E = 0; E < K; ++E)
    for (int J = 0; J < 2; ++J)
      expect(What, get(Buf, L, E, J), value(C, Root, E, J));
  dump(Buf, Bytes);
  free(Buf);
}

/* A sum of the two ints of each element, read where the type map of the
 * call's datatype puts them. */
static void sum(void *In, void *InOut, int *Len, MPI_Datatype *T) {
  int L = 0;
  while (L < NLAYOUTS && Types[L] != *T)
    ++L;
  if (L == 5) { /* MPI_INT: the call may be cut between two ints */
    for (int I = 0; I < *Len; ++I)
      ((int *)InOut)[I] += ((int *)In)[I];
    return;
  }
  for (int E = 0; E < *Len / Per[L]; ++E)
    for (int J = 0; J < 2; ++J)
      put(InOut, L, E, J, get(In, L, E, J) + get(InOut, L, E, J));
}

static void reductions(int C, int L, MPI_Op Op) {
  int N = Np * K; /* elements: K per rank for the scatter */
  size_t Bytes = (size_t)N * Ext[L];
  char *Send = malloc(Bytes), *Recv = malloc(Bytes);
  memset(Send, 0xEE, Bytes);
  for (int E = 0; E < N; ++E)
    for (int J = 0; J < 2; ++J)
      put(Send, L, E, J, value(C, Me, E, J));
  int *Slices = malloc(sizeof(int) * Np);
  for (int R = 0; R < Np; ++R)
    Slices[R] = K * Per[L];
  for (int Which = 0; Which < 4; ++Which) {
    memset(Recv, 0xEE, Bytes);
    char What[96];
    snprintf(What, sizeof What, "case %d %s layout %s", C,
             Which == 0 ? "allreduce" : Which == 1 ? "reduce root 1" : Which == 2 ? "reduce_scatter_block" : "reduce_scatter", Names[L]);
    int Rc = Which == 0 ? MPI_Allreduce(Send, Recv, N * Per[L], Types[L], Op, MPI_COMM_WORLD)
           : Which == 1 ? MPI_Reduce(Send, Recv, N * Per[L], Types[L], Op, 1 % Np, MPI_COMM_WORLD)
           : Which == 2 ? MPI_Reduce_scatter_block(Send, Recv, K * Per[L], Types[L], Op, MPI_COMM_WORLD)
                        : MPI_Reduce_scatter(Send, Recv, Slices, Types[L], Op, MPI_COMM_WORLD);
    expect(What, Rc, MPI_SUCCESS);
    int Has = Which != 1 || Me == 1 % Np, Count = Which >= 2 ? K : N, First = Which >= 2 ? Me * K : 0;
    for (int E = 0; Has && E < Count; ++E)
      for (int J = 0; J < 2; ++J) {
        long Want = 0;
        for (int R = 0; R < Np; ++R)
          Want += value(C, R, First + E, J);
        expect(What, get(Recv, L, E, J), (int)Want);
      }
    dump(Recv, Bytes);
  }
  free(Slices);
  free(Send);
  free(Recv);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &Np);
  if (argc < 2) {
    if (Me == 0)
      fprintf(stderr, "usage: pmpi_types OUTDIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char Path[4096];
  snprintf(Path, sizeof Path, "%s/rank%d.bin", argv[1], Me);
  Out = fopen(Path, "wb");
  if (!Out) {
    perror(Path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  layouts();
  int C = 0;
  /* Every rank its own layouts, shifted so that each layout meets others. */
  for (int Shift = 0; Shift < NLAYOUTS; ++Shift) {
    int SL = (Me + Shift) % NLAYOUTS, RL = (Me + 2 * Shift + 1) % NLAYOUTS;
    for (int V = 0; V < 2; ++V)
      for (int InPlace = 0; InPlace < 2; ++InPlace)
        gather(++C, MPI_COMM_WORLD, SL, RL, V, InPlace);
    bcast(++C, (Me + Shift) % NLAYOUTS, Shift % Np);
  }
  if (Np >= 2) {
    MPI_Comm Half, Inter;
    int Low = Me < Np / 2;
    MPI_Comm_split(MPI_COMM_WORLD, Low, Me, &Half);
    MPI_Intercomm_create(Half, 0, MPI_COMM_WORLD, Low ? Np / 2 : 0, 7, &Inter);
    for (int Shift = 0; Shift < NLAYOUTS; ++Shift)
      for (int V = 0; V < 2; ++V)
        gather(++C, Inter, (Me + Shift) % NLAYOUTS, (Me + Shift + 3) % NLAYOUTS, V, 0);
    MPI_Comm_free(&Inter);
    MPI_Comm_free(&Half);
  }
  MPI_Op Op;
  MPI_Op_create(sum, 1, &Op);
  for (int L = 0; L < NLAYOUTS; ++L)
    reductions(++C, L, Op);
  MPI_Op_free(&Op);
  fclose(Out);
  int All = 0;
  MPI_Allreduce(&Wrong, &All, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Me == 0)
    printf("types: %d cases, %d checks on rank 0, %d wrong in all: %s\n", C, Checks, All,
           All ? "FAILED" : "passed");
  for (int L = 0; L < 5; ++L)
    MPI_Type_free(&Types[L]);
  MPI_Finalize();
  return All ? 1 : 0;
}
