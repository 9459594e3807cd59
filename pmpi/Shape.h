//===- pmpi/Shape.h - A generator asked to build for a call -----*- C++ -*-===//
///
/// \file
/// What the drop-in library asks a generator for: the schedule of a call's
/// header (ir/CallBinding.h binds an MPI call to its header), with the
/// algorithm's own options as the selection names them
/// (`CHOREO_ALLGATHER="allgather-ring --segment 8K"`). The generator takes
/// the header's fields by its own declarations (Generator::generateFor,
/// generators/CallOptions.h), so a generator added to the registry is
/// usable here by its id, with no code in pmpi/.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_SHAPE_H
#define CHOREO_PMPI_SHAPE_H

#include "generators/Generator.h"
#include "ir/CallBinding.h"
#include "ir/Schedule.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo {
namespace pmpi {

/// Builds the schedule of generator Id for header H (Generator::generateFor)
/// with Extra, the algorithm's own options as the selection wrote them
/// ("--intra", "bruck"); errors name the generator and the call. With Only,
/// a generator with a rank form builds rank Only's ops alone.
llvm::Expected<Schedule> buildFor(llvm::StringRef Id,
                                  llvm::ArrayRef<std::string> Extra,
                                  const CallHeader &H, uint64_t ElemBytes,
                                  std::optional<Rank> Only = {});

} // namespace pmpi
} // namespace choreo

#endif
