//===- generators/Registry.cpp - Generators by id -------------------------===//
///
/// \file
/// The registry of generators and the option helpers they share.
///
//===----------------------------------------------------------------------===//

#include "generators/Blocks.h"
#include "generators/Generators.h"

using namespace choreo;

namespace {
std::vector<std::unique_ptr<Generator>> makeAll() {
  std::vector<std::unique_ptr<Generator>> All;
  All.push_back(makeAllgatherRing());
  All.push_back(makeInterAllgatherRoot());
  All.push_back(makeInterAllgatherKang());
  return All;
}
} // namespace

llvm::ArrayRef<const Generator *> choreo::allGenerators() {
  static const std::vector<std::unique_ptr<Generator>> Owned = makeAll();
  static const std::vector<const Generator *> Ptrs = [] {
    std::vector<const Generator *> V;
    for (const auto &G : Owned)
      V.push_back(G.get());
    return V;
  }();
  return Ptrs;
}

const Generator *choreo::findGenerator(llvm::StringRef Id) {
  for (const Generator *G : allGenerators())
    if (G->id() == Id)
      return G;
  return nullptr;
}

llvm::Expected<Topology> choreo::topologyOption(const GenParams &P,
                                                bool RingOk) {
  if (!P.Topology || *P.Topology == "full")
    return Topology::full();
  if (*P.Topology == "ring") {
    if (!RingOk)
      return optionError("topology", "this algorithm needs links the ring "
                                     "does not have; use --topology full");
    return Topology::ring();
  }
  return optionError("topology", "'" + *P.Topology +
                                     "' is not a topology (full or ring)");
}

llvm::Expected<IntraAlgorithm> choreo::intraOption(const GenParams &P,
                                                   IntraAlgorithm Default) {
  if (!P.Intra)
    return Default;
  if (*P.Intra == "ring")
    return IntraAlgorithm::Ring;
  if (*P.Intra == "bruck")
    return IntraAlgorithm::Bruck;
  return optionError("intra", "'" + *P.Intra +
                                  "' is not an intragroup allgather (ring or "
                                  "bruck)");
}

StepList choreo::intraAllgatherv(IntraAlgorithm A,
                                 llvm::ArrayRef<uint64_t> Counts) {
  return A == IntraAlgorithm::Ring ? ringAllgatherv(Counts)
                                   : bruckAllgatherv(Counts);
}
