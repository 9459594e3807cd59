//===- generators/alltoall/AlltoallGenerators.h - Shared base --*- C++ -*-===//
///
/// \file
/// What the alltoall generators share: the header from --p and --bytes or
/// --pairs, the budgets, and the steps of a send pattern, whole or one
/// rank's (generators/alltoall/AlltoallPatterns.h). Each generator's file
/// says which pattern it builds.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_ALLTOALL_ALLTOALLGENERATORS_H
#define CHOREO_GENERATORS_ALLTOALL_ALLTOALLGENERATORS_H

#include "generators/Generators.h"
#include "generators/alltoall/AlltoallOptions.h"
#include "generators/alltoall/AlltoallPatterns.h"

namespace choreo {

class AlltoallGenerator : public PartGenerator {
public:
  CollectiveSet collectives() const override {
    return {Collective::Alltoall, Collective::Alltoallv};
  }

protected:
  /// The pattern for the call's matrix and this generator's options (an
  /// error naming an option it refuses).
  virtual llvm::Expected<std::unique_ptr<AlltoallPattern>>
  pattern(const OptionValues &V, const PairMatrix &M) const = 0;

  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const final;
};

} // namespace choreo

#endif
