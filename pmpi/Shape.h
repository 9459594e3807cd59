//===- pmpi/Shape.h - A generator asked to build for a call -----*- C++ -*-===//
///
/// \file
/// What the drop-in library asks a generator for: the schedule of a call's
/// header (ir/CallBinding.h binds an MPI call to its header).
/// generatorArgs turns the header into options by the generator's own
/// declarations (generators/Options.h), so a generator added to the
/// registry is usable here by its id, with no code in pmpi/; buildFor
/// builds and checks that the schedule's header is the call's.
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

/// The options a generator is given for header H, from its declarations:
/// group sizes to its counts `p` (and `q`), the members' bytes to its size
/// option (every member alike) or size-list option, the root to `root`, and
/// Extra ("--intra", "bruck", ...) from the selection. Reductions: the
/// vector length to `bytes`, the slices to `slices` (reduce_scatter),
/// ElemBytes to `element-bytes`, the operator's commutativity to `op`. An
/// error when it declares none of what the call needs.
llvm::Expected<std::vector<std::string>>
generatorArgs(const Generator &G, const CallHeader &H, uint64_t ElemBytes,
              llvm::ArrayRef<std::string> Extra);

/// Builds the schedule of generator Id (with Extra options) for header H
/// and checks that its header is H (headerMismatch). With Only, a generator
/// with a rank form builds rank Only's ops alone (Generator::buildRank);
/// others build all.
llvm::Expected<Schedule> buildFor(llvm::StringRef Id,
                                  llvm::ArrayRef<std::string> Extra,
                                  const CallHeader &H, uint64_t ElemBytes,
                                  std::optional<Rank> Only = {});

} // namespace pmpi
} // namespace choreo

#endif
