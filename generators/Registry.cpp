//===- generators/Registry.cpp - Generators by id -------------------------===//
///
/// \file
/// The registry of generators and the option helpers they share.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Blocks.h"
#include "generators/Generators.h"

using namespace choreo;

namespace {
std::vector<std::unique_ptr<Generator>> makeAll() {
  std::vector<std::unique_ptr<Generator>> All;
  All.push_back(makeIntraAllgather(IntraAlgorithm::Ring));
  All.push_back(makeIntraAllgather(IntraAlgorithm::Bruck));
  All.push_back(makeIntraAllgather(IntraAlgorithm::RecursiveDoubling));
  All.push_back(makeGatherBinomial());
  All.push_back(makeBcast(/*Scatter=*/false));
  All.push_back(makeBcast(/*Scatter=*/true));
  All.push_back(makeInterAllgatherRoot());
  All.push_back(makeInterAllgatherKang());
  All.push_back(makeInterAllgathervRoot());
  All.push_back(makeInterAllgathervKang());
  All.push_back(makeHalfAllgatherRoot());
  All.push_back(makeHalfAllgatherKang());
  All.push_back(makeHalfAllgatherRing());
  All.push_back(makeHalfAllgatherIntraRing());
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

llvm::Expected<IntraAlgorithm>
choreo::intraOption(const GenParams &P, IntraAlgorithm Default,
                    llvm::ArrayRef<IntraAlgorithm> Allowed) {
  if (!P.Intra)
    return Default;
  std::string Names;
  for (IntraAlgorithm A : Allowed) {
    if (*P.Intra == intraAlgorithmName(A))
      return A;
    Names += (Names.empty() ? "" : ", ") + intraAlgorithmName(A).str();
  }
  return optionError("intra", "'" + *P.Intra + "' is not one of " + Names);
}

llvm::Expected<uint32_t> choreo::rootOption(const GenParams &P, uint32_t N) {
  if (!P.Root)
    return 0;
  if (*P.Root >= N)
    return optionError("root", llvm::Twine("rank ") + llvm::Twine(*P.Root) +
                                   " is not below --p " + llvm::Twine(N));
  return static_cast<uint32_t>(*P.Root);
}
