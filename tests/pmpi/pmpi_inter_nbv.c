/*===- tests/pmpi/pmpi_inter_nbv.c - Started intercomm v forms ------------===*/
/*
 * mpiexec -n 5|6 pmpi_inter_nbv OUTDIR: an unmodified MPI application
 * calling MPI_Igatherv, MPI_Iscatterv and MPI_Ialltoallv on an
 * intercommunicator (MPI-4 6.12); it knows nothing of choreo. World ranks
 * 0..p-1 form group A and the rest group B: 3 + 2 on 5 ranks, 2 + 4 on 6.
 * Run with and without LD_PRELOAD=libchoreo-mpi.so (tests/pmpi/run-app.sh):
 * every rank checks its results against the values the call must produce
 * and writes them to OUTDIR/rank<R>.bin, compared bit for bit between the
 * runs.
 *
 * Twice over (the second time with new counts, then the same shapes
 * again), for a root that is A's rank 1 and one that is B's last rank
 * (MPI_ROOT, MPI_PROC_NULL, the root's rank): MPI_Igatherv and
 * MPI_Iscatterv of 0 to 2 ints a member at reversed displacements with
 * gaps, and MPI_Ialltoallv of 0 to 4 ints a pair in reverse peer order,
 * the three outstanding together with a point-to-point exchange on
 * MPI_COMM_WORLD, completed by one MPI_Waitall. After the first round
 * (whose starts may agree with the other ranks, as a communicator's first
 * call of a kind does), world rank 0 makes its three starts before the
 * last world rank makes any (it waits for rank 0's message, sent after
 * rank 0's starts returned): a start that waited for the other ranks would
 * hang. The last round takes the _c forms.
 * Rank 0 prints "pmpi_inter_nbv: passed" when every check held.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMPI_TEST_NAME "pmpi_inter_nbv"
#include "pmpi_test_util.h"

/* The value world rank s sends world rank d, element k, round r. */
static int val(int s, int d, int k, int r) {
  return s * 1000003 + d * 1009 + k * 7 + r;
}

/* Alltoallv's count from world rank s to world rank d: 0 to 4 ints. */
static int vcount(int s, int d, int r) { return (s * 3 + d * 5 + r) % 5; }

/* `pmpi_inter_nbv mismatch` (tests/pmpi/inter_robust.sh): the root (A's
 * rank 0) of a started MPI_Igatherv and MPI_Iscatterv was given counts that
 * are not what B's ranks pass (erroneous in MPI): with the library every
 * rank's request must complete with an error naming the call (from
 * MPI_Wait); prints "rank R: error: ..." or "rank R: ok" per call. */
static int mismatch(MPI_Comm inter, int in_a, int local, int q) {
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int counts[64], displs[64], buf[256] = {0};
  for (int s = 0; s < q; ++s) {
    counts[s] = s == 1 ? 3 : 2; /* B's rank 1 sends (receives) 2 */
    displs[s] = 4 * s;
  }
  int root = in_a ? (local == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  for (int call = 0; call < 2; ++call) {
    MPI_Request req;
    int rc = call == 0 ? MPI_Igatherv(buf, 2, MPI_INT, buf + 8, counts,
                                      displs, MPI_INT, root, inter, &req)
                       : MPI_Iscatterv(buf, counts, displs, MPI_INT, buf + 8,
                                       2, MPI_INT, root, inter, &req);
    if (rc == MPI_SUCCESS)
      rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
      MPI_Error_string(rc, msg, &len);
    printf(rc == MPI_SUCCESS ? "rank %d: ok\n" : "rank %d: error: %s\n", me,
           msg);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int p = size == 5 ? 3 : 2, q = size - p;
  int in_a = me < p, local = in_a ? me : me - p;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, local, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? p : 0, 12, &inter);
  if (argc == 2 && strcmp(argv[1], "mismatch") == 0)
    return mismatch(inter, in_a, local, q);
  open_results(argc > 1 ? argv[1] : ".");
  int other = in_a ? q : p, other_base = in_a ? p : 0;
  int roots[2][2] = {{1, 1}, {0, q - 1}}; /* {root in A?, local rank} */
  for (int round = 0; round < 4; ++round) {
    int rep = round % 2; /* rounds 2, 3: the shapes of rounds 0, 1 */
    int use_c = round == 3;
    for (int r = 0; r < 2; ++r) {
      int root_in_a = roots[r][0], root_local = roots[r][1];
      int mine = in_a == root_in_a;
      int root =
          !mine ? root_local : (local == root_local ? MPI_ROOT : MPI_PROC_NULL);
      int rw = root_in_a ? root_local : p + root_local;
      int members = root_in_a ? q : p, mbase = root_in_a ? p : 0;
      int cnt[8], dsp[8], at = 0;
      MPI_Count ccnt[8], cdsp[8];
      for (int i = members - 1; i >= 0; --i) {
        cnt[i] = (mbase + i + rep + r) % 3;
        dsp[i] = at;
        at += cnt[i] + 1;
      }
      for (int i = 0; i < members; ++i) {
        ccnt[i] = cnt[i];
        cdsp[i] = dsp[i];
      }
      int own = !mine ? cnt[local] : 0;
      /* MPI_Igatherv: cnt[i] ints from member i at dsp[i]. */
      int g[64], gs[4];
      for (int i = 0; i < 64; ++i)
        g[i] = -1;
      for (int k = 0; k < 4; ++k)
        gs[k] = val(me, 0, k, round + 20 + r);
      /* MPI_Iscatterv: cnt[i] ints to member i from dsp[i]. */
      int s[64], sr[4];
      for (int i = 0; i < 64; ++i)
        s[i] = root == MPI_ROOT ? val(me, i / 4, i % 4, round + 30 + r) : -1;
      for (int k = 0; k < 4; ++k)
        sr[k] = -1;
      /* MPI_Ialltoallv: blocks in reverse peer order, a gap after each. */
      int scnt[8], sdsp[8], rcnt[8], rdsp[8], sat = 0, rat = 0;
      MPI_Count cscnt[8], csdsp[8], crcnt[8], crdsp[8];
      for (int j = other - 1; j >= 0; --j) {
        scnt[j] = vcount(me, other_base + j, rep);
        rcnt[j] = vcount(other_base + j, me, rep);
        sdsp[j] = sat;
        rdsp[j] = rat;
        sat += scnt[j] + 2;
        rat += rcnt[j] + 2;
      }
      for (int j = 0; j < other; ++j) {
        cscnt[j] = scnt[j];
        csdsp[j] = sdsp[j];
        crcnt[j] = rcnt[j];
        crdsp[j] = rdsp[j];
      }
      int vs[64], vr[64];
      for (int i = 0; i < 64; ++i)
        vs[i] = vr[i] = -1;
      for (int j = 0; j < other; ++j)
        for (int k = 0; k < scnt[j]; ++k)
          vs[sdsp[j] + k] = val(me, other_base + j, k, round + 10);
      /* From the second round on (the communicator's first call of each
       * kind may agree with the other ranks, as a first call does), the
       * last world rank starts only after world rank 0's starts. */
      int token = round * 10 + r, got = token, gate = round > 0;
      if (gate && me == size - 1)
        MPI_Recv(&got, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Request req[5];
      if (use_c) {
        MPI_Igatherv_c(gs, own, MPI_INT, g, ccnt, cdsp, MPI_INT, root, inter,
                       &req[0]);
        MPI_Iscatterv_c(s, ccnt, cdsp, MPI_INT, sr, own, MPI_INT, root, inter,
                        &req[1]);
        MPI_Ialltoallv_c(vs, cscnt, csdsp, MPI_INT, vr, crcnt, crdsp, MPI_INT,
                         inter, &req[2]);
      } else {
        MPI_Igatherv(gs, own, MPI_INT, g, cnt, dsp, MPI_INT, root, inter,
                     &req[0]);
        MPI_Iscatterv(s, cnt, dsp, MPI_INT, sr, own, MPI_INT, root, inter,
                      &req[1]);
        MPI_Ialltoallv(vs, scnt, sdsp, MPI_INT, vr, rcnt, rdsp, MPI_INT, inter,
                       &req[2]);
      }
      int ring = -1, next = (me + 1) % size, prev = (me + size - 1) % size;
      MPI_Irecv(&ring, 1, MPI_INT, prev, 78, MPI_COMM_WORLD, &req[3]);
      MPI_Isend(&me, 1, MPI_INT, next, 78, MPI_COMM_WORLD, &req[4]);
      if (gate && me == 0)
        MPI_Send(&token, 1, MPI_INT, size - 1, 77, MPI_COMM_WORLD);
      MPI_Waitall(5, req, MPI_STATUSES_IGNORE);
      if (me == size - 1)
        expect(got == token, "token", got, token);
      expect(ring == prev, "ring", ring, prev);
      if (root == MPI_ROOT) {
        for (int i = 0; i < members; ++i)
          for (int k = 0; k < cnt[i]; ++k)
            expect(g[dsp[i] + k] == val(mbase + i, 0, k, round + 20 + r),
                   "igatherv", g[dsp[i] + k], i);
        save(g, sizeof(int) * at);
      }
      if (!mine) {
        for (int k = 0; k < own; ++k) {
          int x = dsp[local] + k;
          expect(sr[k] == val(rw, x / 4, x % 4, round + 30 + r), "iscatterv",
                 sr[k], k);
        }
        save(sr, sizeof(int) * own);
      }
      for (int j = 0; j < other; ++j)
        for (int k = 0; k < rcnt[j]; ++k)
          expect(vr[rdsp[j] + k] == val(other_base + j, me, k, round + 10),
                 "ialltoallv", vr[rdsp[j] + k], j);
      save(vr, sizeof(int) * rat);
    }
  }
  fclose(out);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf(all ? "pmpi_inter_nbv: %d failures\n" : "pmpi_inter_nbv: passed\n",
           all);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return all != 0;
}
