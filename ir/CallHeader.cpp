//===- ir/CallHeader.cpp - What a collective call asks for ----------------===//
///
/// \file
/// Lookups on a call header (groups and sizes by name, nodes) and the
/// standard rank layouts of generated calls.
///
//===----------------------------------------------------------------------===//

#include "ir/CallHeader.h"

#include "ir/IntervalSet.h"

using namespace choreo;

llvm::StringRef Topology::kindName() const {
  switch (K) {
  case Kind::Full:
    return "full";
  case Kind::Ring:
    return "ring";
  case Kind::Graph:
    return "graph";
  }
  return "?";
}

const Group *CallHeader::group(llvm::StringRef Name) const {
  for (const Group &G : Groups)
    if (G.Name == Name)
      return &G;
  return nullptr;
}

const std::vector<uint64_t> *CallHeader::sizes(llvm::StringRef Name) const {
  for (const NamedSizes &S : Sizes)
    if (S.Name == Name)
      return &S.Values;
  return nullptr;
}

std::vector<uint32_t> CallHeader::nodeOfRank() const {
  std::vector<uint32_t> Out;
  if (!Nodes)
    return Out;
  Out.assign(NumRanks, 0);
  for (size_t I = 0; I < Nodes->size(); ++I)
    for (Rank R : (*Nodes)[I])
      if (R < NumRanks)
        Out[R] = I;
  return Out;
}

std::string CallHeader::nodeRanksString(size_t I) const {
  IntervalSet Members;
  if (Nodes && I < Nodes->size())
    for (Rank R : (*Nodes)[I])
      Members.insert(R, uint64_t(R) + 1);
  return rankSetString(Members);
}

void choreo::setIntergroup(CallHeader &H, llvm::ArrayRef<uint64_t> SizesA,
                           llvm::ArrayRef<uint64_t> SizesB) {
  Rank P = SizesA.size(), Q = SizesB.size();
  H.NumRanks = P + Q;
  Group A{"A", {}}, B{"B", {}};
  for (Rank I = 0; I < P; ++I)
    A.Members.push_back(I);
  for (Rank J = 0; J < Q; ++J)
    B.Members.push_back(P + J);
  H.Groups = {A, B};
  H.Sizes = {{"A", SizesA.vec()}, {"B", SizesB.vec()}};
}

void choreo::setIntragroup(CallHeader &H, Rank N,
                           llvm::ArrayRef<uint64_t> SizesAll) {
  H.NumRanks = N;
  Group All{"all", {}};
  for (Rank I = 0; I < N; ++I)
    All.Members.push_back(I);
  H.Groups = {All};
  H.Sizes = {{"all", SizesAll.vec()}};
}
