//===- ir/Collective.cpp - Collective kinds and their meaning -------------===//
///
/// \file
/// Names of the collectives of format v1, from their specs.
///
//===----------------------------------------------------------------------===//

#include "ir/Collective.h"
#include "ir/CollectiveSpec.h"

using namespace choreo;

llvm::StringRef choreo::collectiveName(Collective C) {
  return specOf(C).Name;
}

std::optional<Collective> choreo::parseCollective(llvm::StringRef Name) {
  for (const CollectiveSpec &S : allCollectiveSpecs())
    if (Name == S.Name)
      return S.Kind;
  return std::nullopt;
}
