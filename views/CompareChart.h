//===- views/CompareChart.h - The comparison study as an SVG chart -*- C++ -*-//
///
/// \file
/// Renders a CompareTable (studies/Compare.h) as an SVG image.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VIEWS_COMPARECHART_H
#define CHOREO_VIEWS_COMPARECHART_H

#include "studies/Compare.h"

#include "llvm/Support/raw_ostream.h"

namespace choreo {

/// Two panels: predicted time against message size (log-log), and the
/// first algorithm's time over each other's (the speed-up of each over the
/// first).
void writeCompareSvg(const CompareTable &T, bool Lockstep,
                     const CostModel &M, llvm::raw_ostream &OS);

} // namespace choreo

#endif
