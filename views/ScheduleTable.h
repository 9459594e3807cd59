//===- views/ScheduleTable.h - Step-by-step text view --------------*- C++ -*-===//
///
/// \file
/// `choreo show`: a schedule as a table of who sends which block to whom in
/// each step, with blocks named by the messages they carry (m_A3 is member 3
/// of A's contribution, m_B0[0,3) a segment of it), like the papers' figures.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VIEWS_SCHEDULETABLE_H
#define CHOREO_VIEWS_SCHEDULETABLE_H

#include "ir/Schedule.h"

#include "llvm/Support/raw_ostream.h"

namespace choreo {

void printScheduleTable(const Schedule &S, llvm::raw_ostream &OS);

/// The messages a block of a gather-type collective carries: "m_A3",
/// "m_B0[0,3)", "m_A0..m_A2"; an alltoall's blocks (i, j): "b(1,2)",
/// "b(1,2..4)", "b(1,2)[0,3)"; empty for other collectives.
std::string messageNames(const Schedule &S, const Block &B);

} // namespace choreo

#endif
