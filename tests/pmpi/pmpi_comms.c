/*===- tests/pmpi/pmpi_comms.c - Communicators, operators, disagreement
 * ----===*/
/*
 * mpiexec -n N pmpi_comms MODE: a plain MPI program (MPICH only) that
 * tests/pmpi/comms.sh runs with and without libchoreo-mpi.so. Every rank
 * uses MPI_ERRORS_RETURN and prints one line per check:
 *   "comms: rank R: ok ..." or "comms: rank R: error: <MPI_Error_string>".
 * MODE
 *   dups MAX     MPI_Comm_dup of MPI_COMM_WORLD, each followed by a checked
 *                MPI_Allreduce on the new communicator, until a dup fails or
 *                MAX dups; prints "comms: rank R: ok dups D".
 *   interleave   communicators sharing a group (MPI_COMM_WORLD, dups of it,
 *                a split of every rank in one colour) and one of another
 *                group (odd and even ranks), with collectives interleaved
 *                across them, some freed and new ones made in between;
 *                every result is checked.
 *   exhaust      dups MPI_COMM_WORLD until no context id is left (no
 *                collective on them), then a checked MPI_Allreduce on
 *                MPI_COMM_WORLD; frees the dups and calls it again.
 *   badop        MPI_Allreduce with MPI_SUM on a contiguous type of 2 ints
 *                (an operator MPI does not define on that datatype), then
 *                4 MPI_DOUBLE (the same bytes and element size), the bad
 *                call again, and a checked MPI_Allreduce.
 *   shortsend    MPI_Allgatherv of 4 ints per rank three times; on the
 *                second call rank 1 passes sendcount 3; the third is
 *                checked.
 *   reuse        24 rounds: MPI_Comm_split of MPI_COMM_WORLD into the
 *                first k ranks and the rest (k cycling through 1..N-1),
 *                checked MPI_Allreduce, MPI_Bcast and MPI_Allgather and an
 *                MPI_Barrier on the new communicator (twice each: the
 *                second call finds the first's decision), then
 *                MPI_Comm_free; prints "comms: rank R: ok reuse H" where H
 *                counts the rounds whose handle named a communicator of
 *                another size before (MPICH reuses freed handles: what the
 *                library knew of the old one must not describe the new).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Me, Np, Bad;

static void report(int rc, const char *what) {
  if (rc == MPI_SUCCESS) {
    printf("comms: rank %d: ok %s\n", Me, what);
  } else {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    printf("comms: rank %d: error: %s\n", Me, msg);
  }
  fflush(stdout);
}

/* A checked MPI_Allreduce (sum of rank + Salt over the ranks of Comm). */
static int sumCheck(MPI_Comm Comm, int Salt) {
  int r, n, in[4], out[4];
  MPI_Comm_rank(Comm, &r);
  MPI_Comm_size(Comm, &n);
  for (int i = 0; i < 4; ++i)
    in[i] = r + Salt + i;
  int rc = MPI_Allreduce(in, out, 4, MPI_INT, MPI_SUM, Comm);
  if (rc != MPI_SUCCESS)
    return rc;
  for (int i = 0; i < 4; ++i)
    if (out[i] != n * (n - 1) / 2 + n * (Salt + i)) {
      printf("comms: rank %d: wrong sum %d (salt %d)\n", Me, out[i], Salt);
      ++Bad;
    }
  return MPI_SUCCESS;
}

/* A checked MPI_Allgather of 3 ints per rank. */
static int gatherCheck(MPI_Comm Comm, int Salt) {
  int r, n, in[3], out[3 * 64];
  MPI_Comm_rank(Comm, &r);
  MPI_Comm_size(Comm, &n);
  for (int i = 0; i < 3; ++i)
    in[i] = 1000 * Salt + 10 * r + i;
  int rc = MPI_Allgather(in, 3, MPI_INT, out, 3, MPI_INT, Comm);
  if (rc != MPI_SUCCESS)
    return rc;
  for (int s = 0; s < n; ++s)
    for (int i = 0; i < 3; ++i)
      if (out[3 * s + i] != 1000 * Salt + 10 * s + i) {
        printf("comms: rank %d: wrong gather (salt %d)\n", Me, Salt);
        ++Bad;
      }
  return MPI_SUCCESS;
}

/* A checked MPI_Bcast of 5 ints from the last rank. */
static int bcastCheck(MPI_Comm Comm, int Salt) {
  int r, n, v[5];
  MPI_Comm_rank(Comm, &r);
  MPI_Comm_size(Comm, &n);
  for (int i = 0; i < 5; ++i)
    v[i] = r == n - 1 ? Salt * 7 + i : -1;
  int rc = MPI_Bcast(v, 5, MPI_INT, n - 1, Comm);
  if (rc != MPI_SUCCESS)
    return rc;
  for (int i = 0; i < 5; ++i)
    if (v[i] != Salt * 7 + i) {
      printf("comms: rank %d: wrong bcast (salt %d)\n", Me, Salt);
      ++Bad;
    }
  return MPI_SUCCESS;
}

static int dups(int Max) {
  int d = 0, rc = MPI_SUCCESS;
  MPI_Comm *c = malloc(sizeof(MPI_Comm) * (size_t)Max);
  for (; d < Max; ++d) {
    if (MPI_Comm_dup(MPI_COMM_WORLD, &c[d]) != MPI_SUCCESS)
      break;
    if ((rc = sumCheck(c[d], d)) != MPI_SUCCESS)
      break;
  }
  char what[64];
  snprintf(what, sizeof what, "dups %d", d);
  report(rc, what);
  for (int i = 0; i < d; ++i)
    MPI_Comm_free(&c[i]);
  free(c);
  return rc;
}

static int interleave(void) {
  enum { N = 6 };
  MPI_Comm c[N], parity;
  int rc = MPI_SUCCESS;
  c[0] = MPI_COMM_WORLD;
  for (int i = 1; i < N - 1; ++i)
    MPI_Comm_dup(MPI_COMM_WORLD, &c[i]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, Me, &c[N - 1]); /* the same group */
  MPI_Comm_split(MPI_COMM_WORLD, Me % 2, Me, &parity);
  for (int round = 0; round < 4 && rc == MPI_SUCCESS; ++round) {
    for (int i = 0; i < N && rc == MPI_SUCCESS; ++i) {
      int k = (i * 5 + round) % N; /* a different order every round */
      int salt = 100 * round + k;
      if ((rc = sumCheck(c[k], salt)) == MPI_SUCCESS &&
          (rc = gatherCheck(parity, salt)) == MPI_SUCCESS &&
          (rc = gatherCheck(c[k], salt + 1)) == MPI_SUCCESS)
        rc = bcastCheck(c[(k + 1) % N], salt);
    }
    /* Free one communicator of the group and make a new one. */
    if (rc == MPI_SUCCESS) {
      int k = 1 + round % (N - 1);
      if (c[k] != MPI_COMM_WORLD)
        MPI_Comm_free(&c[k]);
      MPI_Comm_dup(MPI_COMM_WORLD, &c[k]);
    }
  }
  /* Free every communicator of the group but MPI_COMM_WORLD, then use it. */
  for (int i = 1; i < N; ++i)
    MPI_Comm_free(&c[i]);
  if (rc == MPI_SUCCESS)
    rc = sumCheck(MPI_COMM_WORLD, 9);
  if (rc == MPI_SUCCESS)
    rc = gatherCheck(parity, 9);
  MPI_Comm_free(&parity);
  report(rc == MPI_SUCCESS && Bad ? MPI_ERR_OTHER : rc, "interleave");
  return rc;
}

static int exhaust(void) {
  enum { Max = 8192 };
  static MPI_Comm c[Max];
  int d = 0;
  while (d < Max && MPI_Comm_dup(MPI_COMM_WORLD, &c[d]) == MPI_SUCCESS)
    ++d;
  int rc = sumCheck(MPI_COMM_WORLD, 3);
  char what[64];
  snprintf(what, sizeof what, "after %d dups", d);
  report(rc == MPI_SUCCESS && Bad ? MPI_ERR_OTHER : rc, what);
  for (int i = 0; i < d; ++i)
    MPI_Comm_free(&c[i]);
  rc = sumCheck(MPI_COMM_WORLD, 4);
  report(rc == MPI_SUCCESS && Bad ? MPI_ERR_OTHER : rc, "after freeing them");
  return rc;
}

static int badop(void) {
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
  double din[4] = {1, 2, 3, 4}, dout[4];
  /* The first call of its size, then one of the same size and element size
   * (MPI_DOUBLE: the library has a plan for it), then the bad one again. */
  int rc = MPI_Allreduce(in, out, 4, pair, MPI_SUM, MPI_COMM_WORLD);
  report(rc, "badop");
  rc = MPI_Allreduce(din, dout, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS && dout[3] != 4.0 * Np)
    ++Bad;
  report(rc == MPI_SUCCESS && Bad ? MPI_ERR_OTHER : rc, "doubles");
  rc = MPI_Allreduce(in, out, 4, pair, MPI_SUM, MPI_COMM_WORLD);
  report(rc, "badop again");
  MPI_Type_free(&pair);
  /* The next call still works. */
  rc = sumCheck(MPI_COMM_WORLD, 5);
  report(rc == MPI_SUCCESS && Bad ? MPI_ERR_OTHER : rc, "after badop");
  return rc;
}

static int shortsend(void) {
  int send[4], recv[4 * 64], counts[64], displs[64];
  for (int s = 0; s < Np; ++s) {
    counts[s] = 4;
    displs[s] = 4 * s;
  }
  for (int i = 0; i < 4; ++i)
    send[i] = Me * 10 + i;
  int rc = MPI_Allgatherv(send, 4, MPI_INT, recv, counts, displs, MPI_INT,
                          MPI_COMM_WORLD);
  report(rc, "first allgatherv");
  rc = MPI_Allgatherv(send, Me == 1 ? 3 : 4, MPI_INT, recv, counts, displs,
                      MPI_INT, MPI_COMM_WORLD);
  report(rc, "second allgatherv");
  /* The plan serves the right call again, with nothing left over. */
  for (int i = 0; i < 4; ++i)
    send[i] = Me * 100 + i;
  rc = MPI_Allgatherv(send, 4, MPI_INT, recv, counts, displs, MPI_INT,
                      MPI_COMM_WORLD);
  for (int s = 0; rc == MPI_SUCCESS && s < Np; ++s)
    for (int i = 0; i < 4; ++i)
      if (recv[4 * s + i] != s * 100 + i)
        rc = MPI_ERR_OTHER;
  report(rc, "third allgatherv");
  return rc;
}

/* Checked small calls on Comm (size n, rank r), handed to MPICH under the
 * margin: a stale size or rank would describe them wrongly. */
static void smallCalls(MPI_Comm Comm, int Salt) {
  int r, n;
  MPI_Comm_rank(Comm, &r);
  MPI_Comm_size(Comm, &n);
  int rc = sumCheck(Comm, Salt);
  if (rc != MPI_SUCCESS) {
    report(rc, "reuse allreduce");
    ++Bad;
  }
  int b[2] = {r == 0 ? Salt : -1, r == 0 ? Salt + 1 : -1};
  rc = MPI_Bcast(b, 2, MPI_INT, 0, Comm);
  if (rc != MPI_SUCCESS || b[0] != Salt || b[1] != Salt + 1) {
    printf("comms: rank %d: wrong broadcast %d %d (salt %d, rc %d)\n", Me,
           b[0], b[1], Salt, rc);
    ++Bad;
  }
  int *all = malloc(sizeof(int) * (size_t)n);
  int mine = 1000 * Salt + r;
  rc = MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, Comm);
  for (int i = 0; i < n && rc == MPI_SUCCESS; ++i)
    if (all[i] != 1000 * Salt + i) {
      printf("comms: rank %d: wrong allgather [%d] %d (salt %d)\n", Me, i,
             all[i], Salt);
      ++Bad;
      break;
    }
  if (rc != MPI_SUCCESS) {
    report(rc, "reuse allgather");
    ++Bad;
  }
  free(all);
  rc = MPI_Barrier(Comm);
  if (rc != MPI_SUCCESS) {
    report(rc, "reuse barrier");
    ++Bad;
  }
}

static void reuse(void) {
  enum { Rounds = 24 };
  MPI_Comm seen[Rounds];
  int seenSize[Rounds], reused = 0;
  for (int i = 0; i < Rounds; ++i) {
    int k = Np > 1 ? 1 + i % (Np - 1) : 1;
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, Me < k, Me, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int n;
    MPI_Comm_size(c, &n);
    for (int j = 0; j < i; ++j)
      if (seen[j] == c && seenSize[j] != n) {
        ++reused;
        break;
      }
    seen[i] = c;
    seenSize[i] = n;
    smallCalls(c, i);
    smallCalls(c, i + 100);
    MPI_Comm_free(&c);
  }
  char what[64];
  snprintf(what, sizeof what, "reuse %d", reused);
  report(Bad ? MPI_ERR_OTHER : MPI_SUCCESS, what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &Np);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "dups") == 0)
    dups(argc > 2 ? atoi(argv[2]) : 4096);
  else if (strcmp(mode, "interleave") == 0)
    interleave();
  else if (strcmp(mode, "exhaust") == 0)
    exhaust();
  else if (strcmp(mode, "badop") == 0)
    badop();
  else if (strcmp(mode, "shortsend") == 0)
    shortsend();
  else if (strcmp(mode, "reuse") == 0)
    reuse();
  else if (Me == 0)
    fprintf(stderr, "pmpi_comms: unknown mode '%s'\n", mode);
  MPI_Finalize();
  return 0;
}
