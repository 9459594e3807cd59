//===- generators/blocks/OpCounts.cpp - Ops the building blocks build -----===//
///
/// \file
/// Upper bounds on the ops of the broadcast and gather building blocks,
/// from the same arithmetic as the blocks (Bcast.cpp, Gather.cpp): what the
/// root-gathering baselines check against the op budget before building.
///
//===----------------------------------------------------------------------===//

#include "generators/SizeChecks.h"
#include "generators/blocks/Blocks.h"

using namespace choreo;

uint64_t choreo::binomialGatherOps(uint32_t N) { return N ? N - 1 : 0; }

uint64_t choreo::mpichBcastOps(uint32_t N, uint64_t Bytes) {
  if (N < 2 || Bytes == 0)
    return 0;
  uint64_t Scatter = N - 1;
  // The scatter's chunks: ceil(Bytes / N) bytes each, the non-empty ones
  // are the only members of the allgather that send.
  uint64_t Chunk = ceilDiv(Bytes, N);
  uint64_t NonEmpty = std::min<uint64_t>(N, ceilDiv(Bytes, Chunk));
  switch (mpichBcastChoice(N, Bytes)) {
  case MpichBcast::Binomial:
    return N - 1;
  case MpichBcast::ScatterRecursiveDoubling:
    // Each of log2 N rounds: at most one op per rank.
    return satAdd(Scatter, uint64_t(N) * ceilLog2(N));
  case MpichBcast::ScatterRing:
    // N - 1 rounds, each forwarding every non-empty chunk once.
    return satAdd(Scatter, satMul(NonEmpty, N - 1));
  }
  return UINT64_MAX;
}
