//===- generators/allgather/IntraAllgather.h - Allgather(v)s ----*- C++ -*-===//
///
/// \file
/// What `allgather-ring`, `allgather-bruck` and `allgather-recdbl` share: an
/// intragroup allgather (allgatherv with --counts) of one building block on
/// --p ranks. Each generator, in a file of its own, declares the options and
/// topologies its algorithm admits.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_ALLGATHER_INTRAALLGATHER_H
#define CHOREO_GENERATORS_ALLGATHER_INTRAALLGATHER_H

#include "generators/Generators.h"

namespace choreo {

/// The allgather(v) of Alg over --p ranks with --bytes or --counts, on
/// --topology; Id names the generator in errors.
llvm::Expected<Schedule> buildIntraAllgather(llvm::StringRef Id,
                                             IntraAlgorithm Alg,
                                             const OptionValues &V,
                                             std::optional<Rank> Only = {});

} // namespace choreo

#endif
