//===- ir/Collective.cpp - Collective kinds and their meaning -------------===//
///
/// \file
/// Names and classification of the collectives of format v1.
///
//===----------------------------------------------------------------------===//

#include "ir/Collective.h"

#include "llvm/ADT/StringSwitch.h"

using namespace choreo;

llvm::StringRef choreo::collectiveName(Collective C) {
  switch (C) {
  case Collective::Allgather:
    return "allgather";
  case Collective::Allgatherv:
    return "allgatherv";
  case Collective::InterAllgather:
    return "inter_allgather";
  case Collective::InterAllgatherv:
    return "inter_allgatherv";
  case Collective::HalfAllgather:
    return "half_allgather";
  case Collective::Gather:
    return "gather";
  case Collective::Bcast:
    return "bcast";
  case Collective::Reduce:
    return "reduce";
  case Collective::Allreduce:
    return "allreduce";
  case Collective::ReduceScatter:
    return "reduce_scatter";
  }
  return "?";
}

std::optional<Collective> choreo::parseCollective(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<Collective>>(Name)
      .Case("allgather", Collective::Allgather)
      .Case("allgatherv", Collective::Allgatherv)
      .Case("inter_allgather", Collective::InterAllgather)
      .Case("inter_allgatherv", Collective::InterAllgatherv)
      .Case("half_allgather", Collective::HalfAllgather)
      .Case("gather", Collective::Gather)
      .Case("bcast", Collective::Bcast)
      .Case("reduce", Collective::Reduce)
      .Case("allreduce", Collective::Allreduce)
      .Case("reduce_scatter", Collective::ReduceScatter)
      .Default(std::nullopt);
}

bool choreo::isIntergroup(Collective C) {
  return C == Collective::InterAllgather || C == Collective::InterAllgatherv ||
         C == Collective::HalfAllgather;
}

bool choreo::isGatherType(Collective C) {
  return C == Collective::Allgather || C == Collective::Allgatherv ||
         C == Collective::Gather || isIntergroup(C);
}

bool choreo::isReduction(Collective C) {
  return C == Collective::Reduce || C == Collective::Allreduce ||
         C == Collective::ReduceScatter;
}

bool choreo::isRooted(Collective C) {
  return C == Collective::Gather || C == Collective::Bcast ||
         C == Collective::Reduce;
}
