//===- views/SelectChart.h - The fastest algorithm as a map -----*- C++ -*-===//
///
/// \file
/// Renders a SelectMap (studies/Select.h) as an SVG map like seed 004's
/// Fig. 4: message size across (log scale), number of processes up, each
/// cell coloured by the algorithm the model predicts fastest.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VIEWS_SELECTCHART_H
#define CHOREO_VIEWS_SELECTCHART_H

#include "studies/Select.h"

#include "llvm/Support/raw_ostream.h"

namespace choreo {

void writeSelectSvg(const SelectMap &M, llvm::StringRef Title,
                    llvm::raw_ostream &OS);

} // namespace choreo

#endif
