//===- tests/support/Mutations.h - Seeded mutations of schedules -*- C++ -*-=//
///
/// \file
/// One-token mutations of a schedule (an op dropped, duplicated, moved,
/// re-targeted; a byte range, contributor set or combine flag changed; the
/// root, node layout, ports or operator changed; a lattice block's rows,
/// columns, element size or start changed), seeded: what the
/// differential tests of the distributed proof run, in one process
/// (tests/unit/DistributedCheckTest.cpp) and in a real job
/// (tests/mpi/job_proof_test.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TESTS_SUPPORT_MUTATIONS_H
#define CHOREO_TESTS_SUPPORT_MUTATIONS_H

#include "ir/Schedule.h"

#include <random>
#include <string>
#include <vector>

namespace choreo::test {

struct OpRec {
  Rank Src, Dst;
  std::vector<Block> Blocks;
  std::vector<RankSet> Contribs;
  /// Per block: its lattice (a lattice block's), else an empty one.
  std::vector<Lattice> Lattices;
};
using Steps = std::vector<std::vector<OpRec>>;

/// The steps as plain records, and back (contributor sets interned again).
Steps unpack(const Schedule &S);
void pack(Schedule &S, const Steps &In);

/// One seeded mutation of Base into S (How says which); false when the
/// drawn mutation does not apply to Base.
bool mutate(const Schedule &Base, Schedule &S, std::string &How,
            std::mt19937 &Rng);

} // namespace choreo::test

#endif
