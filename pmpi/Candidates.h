//===- pmpi/Candidates.h - What auto prices for a call ----------*- C++ -*-===//
///
/// \file
/// The candidates of the library's `auto` for a call: every generator whose
/// declared collective may serve it, and, when the job spans compute nodes,
/// each node-aware form of those that take a nodes layout (`--nodes`,
/// `--node-of`; the broadcasts' hierarchical form whose groups are the
/// nodes, `--groups nodes`). A candidate is a generator with options, as a
/// selection names one (`bcast-binomial:nodes=2,2:groups=nodes`). No MPI
/// here.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_CANDIDATES_H
#define CHOREO_PMPI_CANDIDATES_H

#include "generators/Generator.h"
#include "ir/CallHeader.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo {
namespace pmpi {

struct Candidate {
  const Generator *G = nullptr;
  /// The generator's own options ("--nodes", "2,2", "--groups", "nodes");
  /// empty for the plain form.
  std::vector<std::string> Extra;

  /// "bcast-flat" or "bcast-flat:nodes=2,2:groups=nodes" (parseChoice's
  /// syntax: what CHOREO_BCAST takes to run it).
  std::string text() const;
};

/// The node-aware forms of G for a job whose rank r is on node NodeOf[r]
/// (numbered 0, 1, ... in the order of their first ranks): none with fewer
/// than two nodes or when G takes no layout; `--nodes N1,N2,...` when every
/// node's ranks are consecutive (with `--groups nodes` when G has that
/// hierarchical form: one leader per node), else `--node-of` when G takes
/// it.
std::vector<std::vector<std::string>>
nodeAwareForms(const Generator &G, llvm::ArrayRef<uint32_t> NodeOf);

/// auto's candidates for header H, in the registry's order, each
/// generator's plain form first, then its priced variants
/// (Generator::pricedVariants), then its node-aware forms (NodeOf as
/// above; empty: none).
std::vector<Candidate> candidatesFor(const CallHeader &H,
                                     llvm::ArrayRef<uint32_t> NodeOf);

/// C's option values for H, or none when it cannot take the call or its
/// part would be its whole schedule (Generator::partIsWhole: every rank
/// would build the whole to price it): not a candidate.
std::optional<OptionValues>
candidateOptions(const Candidate &C, const CallHeader &H, uint64_t ElemBytes);

/// The radix of the Bruck round of the sizes that auto's candidates for H
/// (an MPI_Alltoallv's) need for a rank's part: the --radix of the first
/// candidate that relays blocks of other ranks (declares --relayed:
/// `alltoall-bruck`, radix 2 unless a priced variant says otherwise), or
/// 0 when none does. From the registry and H's collective alone, so alike
/// on every rank; a relaying candidate of another radix than the first's
/// finds no relayed sizes of its radix and is not priced
/// (docs/alltoall.md, "Bruck from rows and columns").
uint64_t autoRelayRadix(const CallHeader &H);

} // namespace pmpi
} // namespace choreo

#endif
