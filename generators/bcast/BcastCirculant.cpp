//===- generators/bcast/BcastCirculant.cpp - Circulant-graph broadcast ----===//
///
/// \file
/// `bcast-circulant`: Träff's round-optimal broadcast on a circulant graph
/// (arXiv 2312.11236; MPICH's circ_graph): the message cut into n blocks
/// (--segments, --segment-bytes, as the pipeline's), n - 1 + ceil(log2 p)
/// steps for any p and root, every rank's part from its own O(log p)
/// schedules (bcast/Circulant.h). With --groups, its hierarchical form.
///
//===----------------------------------------------------------------------===//

#include "generators/bcast/BcastFamily.h"

using namespace choreo;

namespace {

class BcastCirculant final : public BcastFamilyGenerator {
public:
  BcastCirculant() : BcastFamilyGenerator(BcastAlgo::Circulant) {}
  llvm::StringRef summary() const override {
    return "Traff's circulant graph, the message cut into n segments "
           "(--segments, --segment-bytes): n - 1 + ceil(log2 p) steps, "
           "round-optimal for any p";
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeBcastCirculant() {
  return std::make_unique<BcastCirculant>();
}
