//===- generators/allgatherv/AllgathervPipelinedRing.cpp - Seed 003 -------===//
///
/// \file
/// `allgatherv-pipelined-ring`: the pipelined (blocked) ring allgatherv of
/// seed 003 (Traeff et al.): contributions cut into blocks of at most B
/// bytes and pipelined around the ring, with the zero-skip, the equidistant
/// reranking of empty contributions and the node-aware ring of Fig. 1 (the
/// schedule then carries `nodes` and `node_ports` {1, 1}).
///
//===----------------------------------------------------------------------===//

#include "generators/allgatherv/AllgathervRing.h"

#include "generators/SizeChecks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

namespace {

class AllgathervPipelinedRing final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "allgatherv-pipelined-ring"; }
  llvm::StringRef summary() const override {
    return "seed 003's pipelined ring allgatherv: blocks of at most B bytes "
           "around the ring, zero-skip, equidistant or node-aware ring order";
  }
  CollectiveSet collectives() const override {
    return {Collective::Allgatherv};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  /// With Only, rank Only's ops alone, their steps from the block counts (with
  /// the zero-skip, what a block gains at the empty positions it passes:
  /// pipelinedRingAllgathervRank).
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override;
  const std::vector<OptionDecl> Options = {
      opt::ranks(),           opt::bytes(),
      opt::counts(),          opt::base(),
      opt::distribution(),    opt::blockBytes(),
      opt::skipEmpty(),       opt::rerank(),
      opt::nodes(),           opt::nodeOf(),
      opt::alpha(),           opt::beta(),
      opt::ringTopology(id())};
};

llvm::Expected<Schedule>
AllgathervPipelinedRing::buildPart(const OptionValues &V,
                                   std::optional<Rank> Only) const {
  auto N = groupCount(V, opt::ranks());
  if (!N)
    return N.takeError();
  bool Irregular = false;
  auto Sizes = intragroupSizes(V, *N, Irregular);
  if (!Sizes)
    return Sizes.takeError();
  uint64_t B;
  SizeOrWord Block = V.get(opt::blockBytes());
  if (!Block.Bytes) { // auto
    B = autoBlockBytes(*Sizes, V.get(opt::alpha()), V.get(opt::beta())).Bytes;
  } else {
    B = *Block.Bytes;
    if (B == 0)
      return optionError("block-bytes",
                         "the block size must be at least 1 byte");
  }
  auto NodeOf = nodeOfRanks(V, *N);
  if (!NodeOf)
    return NodeOf.takeError();
  bool Equidistant = V.get(opt::rerank()) == "equidistant";
  if (*NodeOf && Equidistant)
    return optionError("rerank",
                       "equidistant moves ranks between nodes; with --nodes "
                       "or --node-of the ring visits each node's ranks "
                       "together (empty contributions first)");
  // Every link sends at most b blocks.
  uint64_t Blocks = totalBlocks(*Sizes, B);
  uint64_t Est = Blocks > UINT64_MAX / *N ? UINT64_MAX : Blocks * *N;
  if (Only) // Me's sends and receives: two per block at most
    Est = satMul(2, Blocks);
  if (auto E = checkOpBudget(id(), Est))
    return E;

  std::vector<Rank> Order;
  if (*NodeOf)
    Order = nodeAwareOrder(**NodeOf, *Sizes);
  else if (Equidistant)
    Order = equidistantOrder(*Sizes);
  else
    for (Rank R = 0; R < *N; ++R)
      Order.push_back(R);

  Schedule S;
  S.Kind = Collective::Allgatherv;
  setIntragroup(S, *N, *Sizes);
  S.Topo = Topology::ring(Order);
  if (*NodeOf) {
    S.Nodes = nodePartition(**NodeOf);
    S.NodePort = NodePorts{1, 1};
  }
  if (Only) {
    if (*Only >= *N)
      return optionError("p",
                         formatv("rank {0} is not below --p {1}", *Only, *N));
    S.Steps = pipelinedRingAllgathervRank(*Sizes, Order, B,
                                          V.get(opt::skipEmpty()), *Only);
    return S;
  }
  S.Steps = pipelinedRingAllgatherv(*Sizes, Order, B, V.get(opt::skipEmpty()));
  S.Steps.dropEmptySteps();
  return S;
}

} // namespace

std::unique_ptr<Generator> choreo::makeAllgathervPipelinedRing() {
  return std::make_unique<AllgathervPipelinedRing>();
}
