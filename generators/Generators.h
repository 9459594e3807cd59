//===- generators/Generators.h - Constructors of every generator -*- C++ -*-===//
///
/// \file
/// One constructor per generator file, collected by the registry, and the
/// option helpers generators share.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_GENERATORS_H
#define CHOREO_GENERATORS_GENERATORS_H

#include "generators/blocks/Blocks.h"
#include "generators/Generator.h"

#include <memory>

namespace choreo {

std::unique_ptr<Generator> makeIntraAllgather(IntraAlgorithm A);
std::unique_ptr<Generator> makeGatherBinomial();
/// bcast-binomial, or bcast-scatter-allgather when Scatter.
std::unique_ptr<Generator> makeBcast(bool Scatter);
std::unique_ptr<Generator> makeInterAllgatherRoot();
std::unique_ptr<Generator> makeInterAllgatherKang();
std::unique_ptr<Generator> makeInterAllgathervRoot();
std::unique_ptr<Generator> makeInterAllgathervKang();
std::unique_ptr<Generator> makeHalfAllgatherRoot();
std::unique_ptr<Generator> makeHalfAllgatherKang();
std::unique_ptr<Generator> makeHalfAllgatherRing();
std::unique_ptr<Generator> makeHalfAllgatherIntraRing();

/// --topology full|ring (default full); ring only where RingOk.
llvm::Expected<Topology> topologyOption(const GenParams &P, bool RingOk);

/// --root, default 0, below N.
llvm::Expected<uint32_t> rootOption(const GenParams &P, uint32_t N);

/// --intra ring|bruck|recdbl (default Default); only the algorithms in
/// Allowed are accepted.
llvm::Expected<IntraAlgorithm>
intraOption(const GenParams &P, IntraAlgorithm Default,
            llvm::ArrayRef<IntraAlgorithm> Allowed = {IntraAlgorithm::Ring,
                                                      IntraAlgorithm::Bruck});

} // namespace choreo

#endif
