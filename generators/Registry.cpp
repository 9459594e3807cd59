//===- generators/Registry.cpp - Generators by id -------------------------===//
///
/// \file
/// The registry of generators, the union of the options they declare, and
/// parseGenArgs, which reads command-line options by that union.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

#include "llvm/Support/ErrorHandling.h"

using namespace choreo;

namespace {
std::vector<std::unique_ptr<Generator>> makeAll() {
  std::vector<std::unique_ptr<Generator>> All;
  All.push_back(makeAllgatherRing());
  All.push_back(makeAllgatherBruck());
  All.push_back(makeAllgatherRecdbl());
  All.push_back(makeAllgatherMpich());
  All.push_back(makeGatherBinomial());
  All.push_back(makeBcastBinomial());
  All.push_back(makeBcastScatterAllgather());
  All.push_back(makeBcastFlat());
  All.push_back(makeBcastChain());
  All.push_back(makeBcastPipeline());
  All.push_back(makeBcastBinary());
  All.push_back(makeBcastSplitBinary());
  All.push_back(makeBcastScatterRing());
  All.push_back(makeBcastScatterRd());
  All.push_back(makeBcastMpich());
  All.push_back(makeBcastCirculant());
  All.push_back(makeInterAllgatherRoot());
  All.push_back(makeInterBcastRoot());
  All.push_back(makeInterReduceRoot());
  All.push_back(makeInterReduceKang());
  All.push_back(makeInterAllreduceExchange());
  All.push_back(makeInterAllreduceKang());
  All.push_back(makeInterAllgatherKang());
  All.push_back(makeInterAllgathervRoot());
  All.push_back(makeInterAllgathervKang());
  All.push_back(makeInterAlltoallPairwise());
  All.push_back(makeInterGatherRoot());
  All.push_back(makeInterScatterRoot());
  All.push_back(makeInterBarrierBcast());
  All.push_back(makeHalfAllgatherRoot());
  All.push_back(makeHalfAllgatherKang());
  All.push_back(makeHalfAllgatherRing());
  All.push_back(makeHalfAllgatherIntraRing());
  All.push_back(makeHalfAllgatherRingOpt());
  All.push_back(makeReduceBinaryTree());
  All.push_back(makeReduceHalvingDoubling());
  All.push_back(makeReduceBinaryBlocks());
  All.push_back(makeReduceRing());
  All.push_back(makeReduceMpich());
  All.push_back(makeReduceCirculant());
  All.push_back(makeAllreduceBinaryTree());
  All.push_back(makeAllreduceRecursiveDoubling());
  All.push_back(makeAllreduceHalvingDoubling());
  All.push_back(makeAllreduceBinaryBlocks());
  All.push_back(makeAllreduceRing());
  All.push_back(makeAllreduceMpich());
  All.push_back(makeReduceScatterHalvingDoubling());
  All.push_back(makeReduceScatterRing());
  All.push_back(makeReduceScatterMpich());
  All.push_back(makeAllgathervPipelinedRing());
  All.push_back(makeAllgathervMpichRing());
  All.push_back(makeAlltoallPairwise());
  All.push_back(makeAlltoallBruck());
  All.push_back(makeAlltoallScattered());
  All.push_back(makeAlltoallMpich());
  All.push_back(makeAlltoallvMpich());
  All.push_back(makeBarrierDissemination());
  All.push_back(makeBarrierRecursiveDoubling());
  All.push_back(makeBarrierMpich());
  // After the barriers: its --radix is theirs (help lists the option
  // where it first appears).
  All.push_back(makeInterBarrierDissemination());
  All.push_back(makeScanRecursiveDoubling());
  All.push_back(makeExscanRecursiveDoubling());
  All.push_back(makeScanChain());
  All.push_back(makeExscanChain());
  All.push_back(makeScanMpich());
  All.push_back(makeExscanMpich());
  All.push_back(makeScatterBinomial());
  All.push_back(makeScatterLinear());
  All.push_back(makeScatterMpich());
  All.push_back(makeGatherLinear());
  All.push_back(makeGatherMpich());
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

llvm::ArrayRef<OptionDecl> choreo::allGenOptions() {
  static const std::vector<OptionDecl> All = [] {
    std::vector<llvm::ArrayRef<OptionDecl>> Lists;
    for (const Generator *G : allGenerators())
      Lists.push_back(G->options());
    auto Merged = mergeOptionDecls(Lists);
    // Two generators declaring one name with different kinds is a bug of
    // the declarations (GeneratorOptions.EveryNameHasOneKind), not input.
    if (!Merged)
      llvm::report_fatal_error(Merged.takeError());
    return std::move(*Merged);
  }();
  return All;
}

llvm::Expected<OptionValues>
choreo::parseGenArgs(llvm::ArrayRef<std::string> Args) {
  return parseOptions(Args, allGenOptions());
}
