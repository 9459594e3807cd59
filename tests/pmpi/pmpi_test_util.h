/* tests/pmpi/pmpi_test_util.h - the scaffolding the tests/pmpi C programs
 * share.
 *
 * A program defines PMPI_TEST_NAME, its name in messages ("pmpi_alltoall"),
 * and includes this header once, after <mpi.h>. It gets:
 *
 *   me, failures, out      this rank (the program sets it), the checks that
 *                          failed on it, and its results file (each
 *                          program's runs compare these bit for bit with
 *                          the native run's);
 *   open_results(dir)      opens DIR/rankR.bin (R: me) as out (or says
 *                          why not and aborts the job with 2);
 *   save(p, n)             writes n bytes to out;
 *   expect(ok, what, a, b) counts a failed check and prints the first ten:
 *                          "NAME: rank R: WHAT (A, B)";
 *   expect_one(ok, what, a) the same with one value: "NAME: rank R: WHAT (A)";
 *   expect_test(ok, what, t) counts a failed check of test t and prints
 *                          every one: "rank R test T: WHAT";
 *   check_rc(rc, what)     counts an MPI call that did not return
 *                          MPI_SUCCESS: "NAME: rank R: WHAT returned <its
 *                          MPI_Error_string>".
 *
 * What a program does not use costs nothing (static inline).
 */
#ifndef CHOREO_TESTS_PMPI_TEST_UTIL_H
#define CHOREO_TESTS_PMPI_TEST_UTIL_H

#include <mpi.h>
#include <stdio.h>

#ifndef PMPI_TEST_NAME
#error "define PMPI_TEST_NAME before including pmpi_test_util.h"
#endif

static int me __attribute__((unused)) = 0;
static int failures __attribute__((unused)) = 0;
static FILE *out __attribute__((unused)) = NULL;

static inline FILE *open_results(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%d.bin", dir, me);
  out = fopen(path, "wb");
  if (!out) {
    perror(path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return out;
}

static inline void save(const void *p, size_t n) { fwrite(p, 1, n, out); }

static inline void expect(int ok, const char *what, long a, long b) {
  if (!ok) {
    if (failures < 10)
      fprintf(stderr, PMPI_TEST_NAME ": rank %d: %s (%ld, %ld)\n", me, what, a,
              b);
    ++failures;
  }
}

static inline void expect_one(int ok, const char *what, long a) {
  if (!ok) {
    if (failures < 10)
      fprintf(stderr, PMPI_TEST_NAME ": rank %d: %s (%ld)\n", me, what, a);
    ++failures;
  }
}

static inline void expect_test(int ok, const char *what, int test) {
  if (!ok) {
    ++failures;
    fprintf(stderr, "rank %d test %d: %s\n", me, test, what);
  }
}

static inline void check_rc(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, PMPI_TEST_NAME ": rank %d: %s returned %s\n", me, what,
            msg);
    ++failures;
  }
}

#endif
