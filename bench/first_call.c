/*===- bench/first_call.c - The first call of a shape, per rank -----------===*/
/*
 * \file
 * A plain MPI program (MPICH only) that times the first call of each
 * collective shape the drop-in library serves, on every rank, and the
 * second call of the same shape (the cached plan); bench/first_call.sh runs
 * it with LD_PRELOAD=libchoreo-mpi.so:
 *   mpiexec -n P choreo-bench-first-call [SMALL [LARGE]]
 * For each collective (MPI_Bcast from root 0, MPI_Allgather,
 * MPI_Allgatherv with irregular counts, MPI_Reduce to root 0,
 * MPI_Allreduce, MPI_Reduce_scatter with irregular counts,
 * MPI_Reduce_scatter_block, MPI_Allgather and MPI_Allgatherv on an
 * intercommunicator of the lower and upper halves of MPI_COMM_WORLD, and
 * MPI_Alltoallv with irregular counts, zeros among them; and the same
 * started, MPI_Ialltoallv + MPI_Wait, only when FIRST_CALL_CASES names it;
 * MPI_Alltoallv and MPI_Ialltoallv + MPI_Wait on the intercommunicator,
 * the cases inter-alltoallv and inter-ialltoallv, also only when named)
 * and
 * each size (SMALL, default 8, and LARGE, default 65536 bytes: per rank's
 * contribution for the gathers, the message for MPI_Bcast, the vector for
 * MPI_Reduce and MPI_Allreduce, each rank's slice for the reduce-scatters,
 * the base of each block for MPI_Alltoallv: rank i sends rank j
 * SIZE * ((i + 2j) % 3) / 2 bytes;
 * the reductions are MPI_SUM of MPI_INT): a barrier, the first call timed
 * with MPI_Wtime on every rank and its peak resident memory (VmHWM reset
 * through /proc/self/clear_refs before the call, less VmRSS before; the
 * growth of ru_maxrss where that cannot be reset), then a barrier and the
 * second call. Every result of both calls is checked against the value
 * computed locally; a wrong one is printed by its rank, and then every
 * rank exits with 1.
 *
 * Before the cases, one MPI_Allgather of 1 byte per rank on each
 * communicator (the "warm-up" rows) takes the library's one-time costs
 * (its start, the private communicator). The program's own bookkeeping
 * (barriers, gathering the times) uses calls the library does not
 * intercept, waited on with MPI_Test + sched_yield like the library's own
 * waits, so that oversubscribed ranks give up their time slices.
 *
 * FIRST_CALL_CASES=WORD (in the environment) runs only the cases whose
 * name contains WORD (the warm-ups always run): FIRST_CALL_CASES=Alltoallv.
 *
 * FIRST_CALL_SELFTEST=R (in the environment) makes world rank R flip one
 * byte of every result before checking it, so that every check must fail
 * (tests/pmpi/first_call_check.sh: a check that cannot fail tests nothing).
 *
 * Rank 0 prints one line per case to standard output:
 *   CASE BYTES FIRST_MAX FIRST_MEDIAN SECOND_MAX SECOND_MEDIAN RSS_KIB RANK
 * (times in ms over the ranks; RSS_KIB the largest growth, of rank RANK),
 * and before each case "first_call: case CASE BYTES" to standard error,
 * so that the library's CHOREO_VERBOSE lines that follow belong to it.
 */
#include <mpi.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int Me, Np;
static MPI_Comm Inter = MPI_COMM_NULL;
static int Low, Half;    /* this rank's group (lower half), its size */
static int ResetWorks;   /* VmHWM can be reset */
static int Corrupt = -1; /* FIRST_CALL_SELFTEST: the rank whose results
                            are spoilt before the check */

/* Waits for Req giving up the time slice between tests. */
static void waitYield(MPI_Request *Req) {
  int Done = 0;
  for (;;) {
    MPI_Test(Req, &Done, MPI_STATUS_IGNORE);
    if (Done)
      return;
    sched_yield();
  }
}

static void barrier(void) {
  MPI_Request Req;
  MPI_Ibarrier(MPI_COMM_WORLD, &Req);
  waitYield(&Req);
}

/* A field of /proc/self/status in KiB, -1 when absent. */
static long statusKiB(const char *Name) {
  FILE *F = fopen("/proc/self/status", "r");
  if (!F)
    return -1;
  char Line[256];
  long V = -1;
  size_t K = strlen(Name);
  while (fgets(Line, sizeof Line, F))
    if (strncmp(Line, Name, K) == 0)
      V = atol(Line + K);
  fclose(F);
  return V;
}

static int resetPeak(void) {
  FILE *F = fopen("/proc/self/clear_refs", "w");
  if (!F)
    return 0;
  int Ok = fputs("5", F) >= 0;
  return fclose(F) == 0 && Ok;
}

static long maxRssKiB(void) {
  struct rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss;
}

/* ---- The cases ---------------------------------------------------------- */

enum Kind {
  Warmup,
  WarmupInter,
  Bcast,
  Allgather,
  Allgatherv,
  Reduce,
  Allreduce,
  ReduceScatter,
  ReduceScatterBlock,
  InterAllgather,
  InterAllgatherv,
  Alltoallv,
  Ialltoallv,
  InterAlltoallv,
  InterIalltoallv,
  NumKinds
};

static const char *const Names[NumKinds] = {"warm-up",
                                            "warm-up-inter",
                                            "MPI_Bcast",
                                            "MPI_Allgather",
                                            "MPI_Allgatherv",
                                            "MPI_Reduce",
                                            "MPI_Allreduce",
                                            "MPI_Reduce_scatter",
                                            "MPI_Reduce_scatter_block",
                                            "inter-MPI_Allgather",
                                            "inter-MPI_Allgatherv",
                                            "MPI_Alltoallv",
                                            "MPI_Ialltoallv",
                                            "inter-alltoallv",
                                            "inter-ialltoallv"};

/* Buffers of the current case, sized by setUp. */
static unsigned char *Send, *Recv;
static int *Counts, *Displs;
static int *SCounts, *SDispls; /* MPI_Alltoallv's send side */
static size_t SendBytes, RecvBytes;

/* Byte J of world rank R's contribution to a gather or broadcast. */
static unsigned char byteOf(int R, size_t J) {
  return (unsigned char)(R * 31 + J * 7 + 1);
}

/* Element J of world rank R's vector of a reduction, and their sum. */
static int intOf(int R, size_t J) {
  return (R + 1) * (int)(J % 7 + 1) + (int)(J % 3);
}
static int sumOf(size_t J) {
  return (int)(J % 7 + 1) * (Np * (Np + 1) / 2) + Np * (int)(J % 3);
}

/* Bytes of world rank R's contribution to MPI_Allgatherv of base size B. */
static int vBytes(int R, long B) { return (int)(B * (1 + R % 3) / 2); }

/* Bytes world rank I sends world rank J in MPI_Alltoallv of base size B. */
static int aBytes(int I, int J, long B) {
  return (int)(B * ((I + 2 * J) % 3) / 2);
}

/* Ints of member I's slice of MPI_Reduce_scatter with slice Block. */
static int slice(int I, int Block) {
  int N = Block * (1 + I % 3) / 2;
  return N < 1 ? 1 : N;
}

static void *grow(void *P, size_t N) {
  void *Q = realloc(P, N ? N : 1);
  if (!Q) {
    fprintf(stderr, "first_call: rank %d: out of memory (%zu bytes)\n", Me, N);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return Q;
}

/* The remote group's first world rank and size (intercommunicator). */
static int remoteBase(void) { return Low ? Half : 0; }
static int remoteSize(void) { return Low ? Np - Half : Half; }

/* Sizes the buffers of case K with base size B, fills the send buffer and
 * the receive buffer with a sentinel. */
static void setUp(enum Kind K, long B) {
  int Ints = (int)(B / 4) < 1 ? 1 : (int)(B / 4);
  size_t Members = (size_t)Np;
  SendBytes = RecvBytes = (size_t)B;
  switch (K) {
  case Warmup:
  case WarmupInter:
  case Allgather:
  case InterAllgather:
    Members = K == WarmupInter || K == InterAllgather ? (size_t)remoteSize()
                                                      : (size_t)Np;
    RecvBytes = Members * (size_t)B;
    break;
  case Allgatherv:
  case InterAllgatherv:
    Members = K == Allgatherv ? (size_t)Np : (size_t)remoteSize();
    SendBytes = (size_t)vBytes(Me, B);
    break;
  case Bcast:
    SendBytes = 0;
    break;
  case Reduce:
  case Allreduce:
    SendBytes = RecvBytes = (size_t)Ints * sizeof(int);
    break;
  case ReduceScatter:
  case ReduceScatterBlock:
    SendBytes = 0;
    for (int I = 0; I < Np; ++I)
      SendBytes += (size_t)(K == ReduceScatter ? slice(I, Ints) : Ints);
    SendBytes *= sizeof(int);
    RecvBytes =
        (size_t)(K == ReduceScatter ? slice(Me, Ints) : Ints) * sizeof(int);
    break;
  default:
    break;
  }
  Counts = grow(Counts, sizeof(int) * (size_t)Np);
  Displs = grow(Displs, sizeof(int) * (size_t)Np);
  if (K == Allgatherv || K == InterAllgatherv) {
    int Base = K == Allgatherv ? 0 : remoteBase();
    size_t At = 0;
    for (size_t I = 0; I < Members; ++I) {
      Counts[I] = vBytes(Base + (int)I, B);
      Displs[I] = (int)At;
      At += (size_t)Counts[I];
    }
    RecvBytes = At;
  }
  if (K == ReduceScatter)
    for (int I = 0; I < Np; ++I)
      Counts[I] = slice(I, Ints);
  SCounts = grow(SCounts, sizeof(int) * (size_t)Np);
  SDispls = grow(SDispls, sizeof(int) * (size_t)Np);
  if (K == Alltoallv || K == Ialltoallv) {
    size_t SAt = 0, RAt = 0;
    for (int J = 0; J < Np; ++J) {
      SCounts[J] = aBytes(Me, J, B);
      SDispls[J] = (int)SAt;
      SAt += (size_t)SCounts[J];
      Counts[J] = aBytes(J, Me, B);
      Displs[J] = (int)RAt;
      RAt += (size_t)Counts[J];
    }
    SendBytes = SAt;
    RecvBytes = RAt;
  }
  if (K == InterAlltoallv || K == InterIalltoallv) {
    /* World ranks' counts, with the remote group's ranks as peers. */
    size_t SAt = 0, RAt = 0;
    for (int J = 0; J < remoteSize(); ++J) {
      SCounts[J] = aBytes(Me, remoteBase() + J, B);
      SDispls[J] = (int)SAt;
      SAt += (size_t)SCounts[J];
      Counts[J] = aBytes(remoteBase() + J, Me, B);
      Displs[J] = (int)RAt;
      RAt += (size_t)Counts[J];
    }
    SendBytes = SAt;
    RecvBytes = RAt;
  }
  Send = grow(Send, SendBytes);
  Recv = grow(Recv, RecvBytes);
  if (K == Reduce || K == Allreduce || K == ReduceScatter ||
      K == ReduceScatterBlock) {
    int *S = (int *)Send;
    for (size_t J = 0; J < SendBytes / sizeof(int); ++J)
      S[J] = intOf(Me, J);
  } else {
    for (size_t J = 0; J < SendBytes; ++J)
      Send[J] = byteOf(Me, J);
  }
  if (K == Bcast && Me == 0)
    for (size_t J = 0; J < RecvBytes; ++J)
      Recv[J] = byteOf(0, J);
  else
    memset(Recv, 0xEE, RecvBytes);
}

/* Runs case K with base size B once. */
static void call(enum Kind K, long B) {
  int Ints = (int)(RecvBytes / sizeof(int));
  switch (K) {
  case Warmup:
  case Allgather:
    MPI_Allgather(Send, (int)B, MPI_BYTE, Recv, (int)B, MPI_BYTE,
                  MPI_COMM_WORLD);
    break;
  case WarmupInter:
  case InterAllgather:
    MPI_Allgather(Send, (int)B, MPI_BYTE, Recv, (int)B, MPI_BYTE, Inter);
    break;
  case Allgatherv:
    MPI_Allgatherv(Send, (int)SendBytes, MPI_BYTE, Recv, Counts, Displs,
                   MPI_BYTE, MPI_COMM_WORLD);
    break;
  case InterAllgatherv:
    MPI_Allgatherv(Send, (int)SendBytes, MPI_BYTE, Recv, Counts, Displs,
                   MPI_BYTE, Inter);
    break;
  case Bcast:
    MPI_Bcast(Recv, (int)RecvBytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    break;
  case Reduce:
    MPI_Reduce(Send, Recv, Ints, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    break;
  case Allreduce:
    MPI_Allreduce(Send, Recv, Ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    break;
  case ReduceScatter:
    MPI_Reduce_scatter(Send, Recv, Counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    break;
  case ReduceScatterBlock:
    MPI_Reduce_scatter_block(Send, Recv, Ints, MPI_INT, MPI_SUM,
                             MPI_COMM_WORLD);
    break;
  case Alltoallv:
    MPI_Alltoallv(Send, SCounts, SDispls, MPI_BYTE, Recv, Counts, Displs,
                  MPI_BYTE, MPI_COMM_WORLD);
    break;
  case Ialltoallv: {
    MPI_Request R;
    MPI_Ialltoallv(Send, SCounts, SDispls, MPI_BYTE, Recv, Counts, Displs,
                   MPI_BYTE, MPI_COMM_WORLD, &R);
    MPI_Wait(&R, MPI_STATUS_IGNORE);
    break;
  }
  case InterAlltoallv:
    MPI_Alltoallv(Send, SCounts, SDispls, MPI_BYTE, Recv, Counts, Displs,
                  MPI_BYTE, Inter);
    break;
  case InterIalltoallv: {
    MPI_Request R;
    MPI_Ialltoallv(Send, SCounts, SDispls, MPI_BYTE, Recv, Counts, Displs,
                   MPI_BYTE, Inter, &R);
    MPI_Wait(&R, MPI_STATUS_IGNORE);
    break;
  }
  default:
    break;
  }
}

/* Checks the result of case K with base size B against the value computed
 * here; prints the first wrong byte or element. Returns 1 when wrong. */
static int check(enum Kind K, long B, const char *Which) {
  size_t Bad = (size_t)-1;
  long Got = 0, Want = 0;
  if (Me == Corrupt)
    Recv[RecvBytes / 2] ^= 0x40;
  if (K == Reduce || K == Allreduce || K == ReduceScatter ||
      K == ReduceScatterBlock) {
    if (K == Reduce && Me != 0)
      return 0;
    size_t First = 0; /* index of this rank's slice in the vector */
    if (K == ReduceScatter)
      for (int I = 0; I < Me; ++I)
        First += (size_t)Counts[I];
    else if (K == ReduceScatterBlock)
      First = (size_t)Me * (RecvBytes / sizeof(int));
    const int *R = (const int *)Recv;
    for (size_t J = 0; J < RecvBytes / sizeof(int) && Bad == (size_t)-1; ++J)
      if (R[J] != sumOf(First + J)) {
        Bad = J;
        Got = R[J];
        Want = sumOf(First + J);
      }
  } else {
    for (size_t J = 0; J < RecvBytes && Bad == (size_t)-1; ++J) {
      int Src = 0; /* world rank whose byte J is */
      size_t Off = J;
      if (K == Bcast) {
        Src = 0;
      } else if (K == Alltoallv || K == Ialltoallv) {
        /* Block (I, Me) starts in I's send buffer after I's blocks to the
         * ranks before Me. */
        int I = 0;
        while ((size_t)Displs[I] + (size_t)Counts[I] <= J)
          ++I;
        Src = I;
        Off = J - (size_t)Displs[I];
        for (int K2 = 0; K2 < Me; ++K2)
          Off += (size_t)aBytes(I, K2, B);
      } else if (K == InterAlltoallv || K == InterIalltoallv) {
        /* Block (I, Me) starts in I's send buffer after I's blocks to the
         * ranks of this group before Me. */
        int I = 0;
        while ((size_t)Displs[I] + (size_t)Counts[I] <= J)
          ++I;
        Src = remoteBase() + I;
        Off = J - (size_t)Displs[I];
        for (int K2 = Low ? 0 : Half; K2 < Me; ++K2)
          Off += (size_t)aBytes(Src, K2, B);
      } else if (K == Allgatherv || K == InterAllgatherv) {
        int Base = K == Allgatherv ? 0 : remoteBase();
        int I = 0;
        while ((size_t)Displs[I] + (size_t)Counts[I] <= J)
          ++I;
        Src = Base + I;
        Off = J - (size_t)Displs[I];
      } else {
        int Base = K == WarmupInter || K == InterAllgather ? remoteBase() : 0;
        Src = Base + (int)(J / (size_t)B);
        Off = J % (size_t)B;
      }
      if (Recv[J] != byteOf(Src, Off)) {
        Bad = J;
        Got = Recv[J];
        Want = byteOf(Src, Off);
      }
    }
  }
  if (Bad == (size_t)-1)
    return 0;
  fprintf(stderr,
          "first_call: rank %d: %s of %ld bytes, %s call: wrong result at "
          "%s %zu: %ld, expected %ld\n",
          Me, Names[K], B, Which,
          K >= Reduce && K <= ReduceScatterBlock ? "element" : "byte", Bad, Got,
          Want);
  return 1;
}

static int cmpDouble(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

static double median(double *V, int N) {
  qsort(V, (size_t)N, sizeof(double), cmpDouble);
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

/* Times case K with base size B on every rank; rank 0 prints its line.
 * Returns the number of wrong results on this rank. */
static int runCase(enum Kind K, long B) {
  int Wrong = 0;
  if (Me == 0) {
    fprintf(stderr, "first_call: case %s %ld\n", Names[K], B);
    fflush(stderr);
  }
  setUp(K, B);
  long Before = 0;
  if (ResetWorks) {
    resetPeak();
    Before = statusKiB("VmRSS:");
  } else {
    Before = maxRssKiB();
  }
  barrier();
  double T0 = MPI_Wtime();
  call(K, B);
  double First = MPI_Wtime() - T0;
  long Growth = (ResetWorks ? statusKiB("VmHWM:") : maxRssKiB()) - Before;
  Wrong += check(K, B, "first");
  setUp(K, B);
  barrier();
  T0 = MPI_Wtime();
  call(K, B);
  double Second = MPI_Wtime() - T0;
  Wrong += check(K, B, "second");

  double Mine[3] = {First, Second, (double)Growth};
  double *All = Me == 0 ? malloc(sizeof(double) * 3 * (size_t)Np) : NULL;
  MPI_Request Req;
  MPI_Igather(Mine, 3, MPI_DOUBLE, All, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD, &Req);
  waitYield(&Req);
  if (Me == 0) {
    double *F = malloc(sizeof(double) * (size_t)Np);
    double *S = malloc(sizeof(double) * (size_t)Np);
    double Peak = -1;
    int PeakRank = 0;
    for (int R = 0; R < Np; ++R) {
      F[R] = All[3 * R] * 1e3;
      S[R] = All[3 * R + 1] * 1e3;
      if (All[3 * R + 2] > Peak) {
        Peak = All[3 * R + 2];
        PeakRank = R;
      }
    }
    double FMed = median(F, Np), SMed = median(S, Np);
    printf("%s %ld %.3f %.3f %.3f %.3f %.0f %d\n", Names[K], B, F[Np - 1], FMed,
           S[Np - 1], SMed, Peak, PeakRank);
    fflush(stdout);
    free(F);
    free(S);
    free(All);
  }
  return Wrong;
}

static int parseSize(const char *Text, long *Out) {
  char *End = NULL;
  long V = strtol(Text, &End, 10);
  if (!*Text || *End || V < 1 || V > (1L << 24))
    return 0;
  *Out = V;
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &Np);
  long Small = 8, Large = 65536;
  char Problem[256] = "";
  if (argc > 3)
    snprintf(Problem, sizeof Problem, "too many arguments (%d)", argc - 1);
  else if (argc > 1 && !parseSize(argv[1], &Small))
    snprintf(Problem, sizeof Problem,
             "SMALL '%.64s': expected bytes from 1 to 16777216", argv[1]);
  else if (argc > 2 && !parseSize(argv[2], &Large))
    snprintf(Problem, sizeof Problem,
             "LARGE '%.64s': expected bytes from 1 to 16777216", argv[2]);
  else if (Np < 2)
    snprintf(Problem, sizeof Problem,
             "a job of %d rank: the intercommunicator needs 2 or more", Np);
  if (*Problem) {
    /* Every rank sees the same arguments: every rank stops. */
    if (Me == 0)
      fprintf(stderr,
              "first_call: %s (usage: mpiexec -n P choreo-bench-first-call "
              "[SMALL [LARGE]])\n",
              Problem);
    MPI_Finalize();
    return 2;
  }
  if (getenv("FIRST_CALL_SELFTEST"))
    Corrupt = atoi(getenv("FIRST_CALL_SELFTEST"));
  Half = Np / 2;
  Low = Me < Half;
  MPI_Comm Local;
  MPI_Comm_split(MPI_COMM_WORLD, Low, Me, &Local);
  MPI_Intercomm_create(Local, 0, MPI_COMM_WORLD, Low ? Half : 0, 7, &Inter);

  ResetWorks = resetPeak() && statusKiB("VmHWM:") >= 0;
  if (Me == 0) {
    printf("# first_call on %d ranks (intercommunicator %d + %d); peak "
           "memory by %s\n",
           Np, Half, Np - Half,
           ResetWorks ? "VmHWM reset before the call" : "ru_maxrss growth");
    printf("# case bytes first_max_ms first_median_ms second_max_ms "
           "second_median_ms rss_growth_kib rank\n");
    fflush(stdout);
  }
  int Wrong = 0;
  Wrong += runCase(Warmup, 1);
  Wrong += runCase(WarmupInter, 1);
  const char *Only = getenv("FIRST_CALL_CASES");
  for (int K = Bcast; K < NumKinds; ++K) {
    if (Only && *Only && !strstr(Names[K], Only))
      continue;
    /* The started case only when asked for (FIRST_CALL_CASES=Ialltoallv):
     * first_call.sh's tables and first_call_check.sh count the others. */
    if ((K == Ialltoallv || K == InterAlltoallv || K == InterIalltoallv) &&
        !(Only && *Only))
      continue;
    Wrong += runCase((enum Kind)K, Small);
    Wrong += runCase((enum Kind)K, Large);
  }

  /* Every rank learns the total (a call the library does not intercept)
   * and every rank fails when any result was wrong. */
  int Total = 0;
  MPI_Request Req;
  MPI_Ireduce(&Wrong, &Total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &Req);
  waitYield(&Req);
  MPI_Ibcast(&Total, 1, MPI_INT, 0, MPI_COMM_WORLD, &Req);
  waitYield(&Req);
  if (Me == 0) {
    if (Total)
      fprintf(stderr, "first_call: FAILED: %d wrong results (above)\n", Total);
    else
      printf("# first_call: passed (every result checked)\n");
    fflush(stdout);
  }
  MPI_Comm_free(&Inter);
  MPI_Comm_free(&Local);
  free(Send);
  free(Recv);
  free(Counts);
  free(Displs);
  free(SCounts);
  free(SDispls);
  MPI_Finalize();
  return Total ? 1 : 0;
}
