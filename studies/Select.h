//===- studies/Select.h - Which algorithm the model picks -------*- C++ -*-===//
///
/// \file
/// `choreo select` (seed 004, Sec. 4 and Fig. 4): for one collective, p
/// ranks (p + q on an intercommunicator) and an n-byte vector (n bytes per
/// member for the gathers and scatters, per block for alltoall, nothing for
/// barrier), every generator of that
/// collective is built and priced under one cost model, fastest first; and
/// the same over a grid of p and n, the winner per cell (the data of a
/// Fig. 4-like map).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_STUDIES_SELECT_H
#define CHOREO_STUDIES_SELECT_H

#include "cost/Model.h"
#include "ir/Collective.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace choreo {

struct SelectSpec {
  Collective Kind = Collective::Allreduce;
  uint32_t P = 2;
  /// Group B's ranks, for an intercommunicator collective (P is group A's).
  uint32_t Q = 0;
  uint64_t Bytes = 8;
  uint64_t ElementBytes = 8;
  CostModel Model;
  bool Lockstep = false;
  /// Reductions: false prices an operator that does not commute (only the
  /// generators that keep rank order build).
  bool Commutative = true;
};

struct SelectEntry {
  std::string Algorithm;
  double Time = 0;
  unsigned Steps = 0;
};

/// The generators that declare Kind (Generator::collectives), in registry
/// order, each followed by its priced variants ("id:name=value:...",
/// Generator::pricedVariants): select builds them for a call's header
/// (Generator::generateFor).
std::vector<std::string> selectCandidates(Collective Kind);

/// Every candidate priced (asynchronous time, or lock step), fastest first
/// (ties by id). Fails when none can be built (the first one's error).
llvm::Expected<std::vector<SelectEntry>> rankAlgorithms(const SelectSpec &S);

struct SelectMap {
  std::vector<uint32_t> Ps;
  std::vector<uint64_t> Sizes;
  std::vector<std::string> Algorithms; ///< the candidates, legend order
  /// Winner[p index][size index]: index into Algorithms.
  std::vector<std::vector<unsigned>> Winner;
};

/// The winner for every p in Ps and n in Sizes (Base gives the collective,
/// element size and model; an intercommunicator collective's q is Base.Q,
/// or p where Base.Q is 0).
llvm::Expected<SelectMap> selectMap(const SelectSpec &Base,
                                    std::vector<uint32_t> Ps,
                                    std::vector<uint64_t> Sizes);

} // namespace choreo

#endif
