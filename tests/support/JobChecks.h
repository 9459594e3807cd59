//===- tests/support/JobChecks.h - Checks of a test run in a job -*- C++ -*-=//
///
/// \file
/// What the tests that run as one MPI job (tests/mpi/job_*_test.cpp) count
/// their failures with: each rank prints its first five failed checks,
/// named by the test and the rank, and the job sums the counts at the end.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TESTS_SUPPORT_JOBCHECKS_H
#define CHOREO_TESTS_SUPPORT_JOBCHECKS_H

#include <cstdio>
#include <string>

namespace choreo::test {

class JobChecks {
public:
  JobChecks(const char *Test, int Rank) : Test(Test), Rank(Rank) {}

  /// Counts a failure (and prints it, up to five per rank) unless Ok.
  void expect(bool Ok, const std::string &What) {
    if (Ok)
      return;
    ++Failures;
    if (Failures <= 5)
      std::fprintf(stderr, "%s: rank %d: %s\n", Test, Rank, What.c_str());
  }

  unsigned Failures = 0;

private:
  const char *Test;
  int Rank;
};

} // namespace choreo::test

#endif
