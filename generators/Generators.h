//===- generators/Generators.h - Constructors of every generator -*- C++ -*-===//
///
/// \file
/// One constructor per generator file, collected by the registry, and the
/// option helpers generators share.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_GENERATORS_H
#define CHOREO_GENERATORS_GENERATORS_H

#include "generators/Generator.h"

#include <memory>

namespace choreo {

std::unique_ptr<Generator> makeAllgatherRing();
std::unique_ptr<Generator> makeInterAllgatherRoot();
std::unique_ptr<Generator> makeInterAllgatherKang();

/// --topology full|ring (default full); ring only where RingOk.
llvm::Expected<Topology> topologyOption(const GenParams &P, bool RingOk);

enum class IntraAlgorithm { Ring, Bruck };
/// --intra ring|bruck (default Default).
llvm::Expected<IntraAlgorithm> intraOption(const GenParams &P,
                                           IntraAlgorithm Default);
/// The intragroup allgather(v) building block IntraAlgorithm names.
StepList intraAllgatherv(IntraAlgorithm A, llvm::ArrayRef<uint64_t> Counts);

} // namespace choreo

#endif
