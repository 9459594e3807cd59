//===- generators/Generators.h - Every generator's constructor --*- C++ -*-===//
///
/// \file
/// One constructor per generator file, collected by the registry; with the
/// headers generator files build with (shared options, building blocks).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_GENERATORS_H
#define CHOREO_GENERATORS_GENERATORS_H

#include "generators/CommonOptions.h"
#include "generators/Generator.h"
#include "generators/blocks/Blocks.h"

#include <memory>

namespace choreo {

std::unique_ptr<Generator> makeAllgatherRing();
std::unique_ptr<Generator> makeAllgatherBruck();
std::unique_ptr<Generator> makeAllgatherRecdbl();
std::unique_ptr<Generator> makeAllgatherMpich();
std::unique_ptr<Generator> makeGatherBinomial();
std::unique_ptr<Generator> makeBcastBinomial();
std::unique_ptr<Generator> makeBcastScatterAllgather();
std::unique_ptr<Generator> makeBcastFlat();
std::unique_ptr<Generator> makeBcastChain();
std::unique_ptr<Generator> makeBcastPipeline();
std::unique_ptr<Generator> makeBcastBinary();
std::unique_ptr<Generator> makeBcastSplitBinary();
std::unique_ptr<Generator> makeBcastScatterRing();
std::unique_ptr<Generator> makeBcastScatterRd();
std::unique_ptr<Generator> makeBcastMpich();
std::unique_ptr<Generator> makeBcastCirculant();
std::unique_ptr<Generator> makeInterAllgatherRoot();
std::unique_ptr<Generator> makeInterBcastRoot();
std::unique_ptr<Generator> makeInterReduceRoot();
std::unique_ptr<Generator> makeInterReduceKang();
std::unique_ptr<Generator> makeInterAllreduceExchange();
std::unique_ptr<Generator> makeInterAllreduceKang();
std::unique_ptr<Generator> makeInterAllgatherKang();
std::unique_ptr<Generator> makeInterAllgathervRoot();
std::unique_ptr<Generator> makeInterAllgathervKang();
std::unique_ptr<Generator> makeInterAlltoallPairwise();
std::unique_ptr<Generator> makeInterGatherRoot();
std::unique_ptr<Generator> makeInterScatterRoot();
std::unique_ptr<Generator> makeInterBarrierBcast();
std::unique_ptr<Generator> makeInterBarrierDissemination();
std::unique_ptr<Generator> makeHalfAllgatherRoot();
std::unique_ptr<Generator> makeHalfAllgatherKang();
std::unique_ptr<Generator> makeHalfAllgatherRing();
std::unique_ptr<Generator> makeHalfAllgatherIntraRing();
std::unique_ptr<Generator> makeHalfAllgatherRingOpt();
std::unique_ptr<Generator> makeReduceBinaryTree();
std::unique_ptr<Generator> makeReduceHalvingDoubling();
std::unique_ptr<Generator> makeReduceBinaryBlocks();
std::unique_ptr<Generator> makeReduceRing();
std::unique_ptr<Generator> makeReduceMpich();
std::unique_ptr<Generator> makeReduceCirculant();
std::unique_ptr<Generator> makeAllreduceBinaryTree();
std::unique_ptr<Generator> makeAllreduceRecursiveDoubling();
std::unique_ptr<Generator> makeAllreduceHalvingDoubling();
std::unique_ptr<Generator> makeAllreduceBinaryBlocks();
std::unique_ptr<Generator> makeAllreduceRing();
std::unique_ptr<Generator> makeAllreduceMpich();
std::unique_ptr<Generator> makeReduceScatterHalvingDoubling();
std::unique_ptr<Generator> makeReduceScatterRing();
std::unique_ptr<Generator> makeReduceScatterMpich();
std::unique_ptr<Generator> makeAllgathervPipelinedRing();
std::unique_ptr<Generator> makeAllgathervMpichRing();
std::unique_ptr<Generator> makeAlltoallPairwise();
std::unique_ptr<Generator> makeAlltoallBruck();
std::unique_ptr<Generator> makeAlltoallScattered();
std::unique_ptr<Generator> makeAlltoallMpich();
std::unique_ptr<Generator> makeAlltoallvMpich();
std::unique_ptr<Generator> makeBarrierDissemination();
std::unique_ptr<Generator> makeBarrierRecursiveDoubling();
std::unique_ptr<Generator> makeBarrierMpich();
std::unique_ptr<Generator> makeScanRecursiveDoubling();
std::unique_ptr<Generator> makeExscanRecursiveDoubling();
std::unique_ptr<Generator> makeScanChain();
std::unique_ptr<Generator> makeExscanChain();
std::unique_ptr<Generator> makeScanMpich();
std::unique_ptr<Generator> makeExscanMpich();
std::unique_ptr<Generator> makeScatterBinomial();
std::unique_ptr<Generator> makeScatterLinear();
std::unique_ptr<Generator> makeScatterMpich();
std::unique_ptr<Generator> makeGatherLinear();
std::unique_ptr<Generator> makeGatherMpich();

} // namespace choreo

#endif
