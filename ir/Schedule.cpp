//===- ir/Schedule.cpp - A collective-communication schedule --------------===//
///
/// \file
/// Buffers and member segments derived from a schedule's collective, and the
/// printing helpers used by diagnostics and views.
///
//===----------------------------------------------------------------------===//

#include "ir/Schedule.h"

#include "llvm/Support/raw_ostream.h"

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

const Group *Schedule::group(llvm::StringRef Name) const {
  for (const Group &G : Groups)
    if (G.Name == Name)
      return &G;
  return nullptr;
}

const std::vector<uint64_t> *Schedule::sizes(llvm::StringRef Name) const {
  for (const NamedSizes &S : Sizes)
    if (S.Name == Name)
      return &S.Values;
  return nullptr;
}

std::optional<BufferId> Schedule::bufferId(llvm::StringRef Name) const {
  std::vector<Buffer> Bufs = buffers();
  for (size_t I = 0; I < Bufs.size(); ++I)
    if (Bufs[I].Name == Name)
      return static_cast<BufferId>(I);
  return std::nullopt;
}

std::vector<MemberSegment> Schedule::memberSegments() const {
  if (!spec().isGatherType())
    return {};
  return spec().initialHoldings(*this);
}

std::vector<uint32_t> Schedule::nodeOfRank() const {
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

std::string Schedule::nodeRanksString(size_t I) const {
  RankSet Members;
  if (Nodes && I < Nodes->size())
    for (Rank R : (*Nodes)[I])
      Members.insert(R, uint64_t(R) + 1);
  return rankSetString(Members);
}

std::string Schedule::blockString(const Block &B) const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << spec().bufferName(B.Buf);
  OS << '[' << B.Lo << ',' << B.Hi << ')';
  if (B.hasContrib() && B.Contrib < Steps.numContribs())
    OS << " contrib " << rankSetString(Steps.contrib(B.Contrib));
  if (B.Reduce)
    OS << " reduce";
  return S;
}

std::string Schedule::blocksString(llvm::ArrayRef<Block> Bs) const {
  std::string S;
  for (const Block &B : Bs) {
    if (!S.empty())
      S += ' ';
    S += blockString(B);
  }
  return S;
}

void choreo::setIntergroup(Schedule &S, llvm::ArrayRef<uint64_t> SizesA,
                           llvm::ArrayRef<uint64_t> SizesB) {
  Rank P = SizesA.size(), Q = SizesB.size();
  S.NumRanks = P + Q;
  Group A{"A", {}}, B{"B", {}};
  for (Rank I = 0; I < P; ++I)
    A.Members.push_back(I);
  for (Rank J = 0; J < Q; ++J)
    B.Members.push_back(P + J);
  S.Groups = {A, B};
  S.Sizes = {{"A", SizesA.vec()}, {"B", SizesB.vec()}};
}

void choreo::setIntragroup(Schedule &S, Rank N,
                           llvm::ArrayRef<uint64_t> SizesAll) {
  S.NumRanks = N;
  Group All{"all", {}};
  for (Rank I = 0; I < N; ++I)
    All.Members.push_back(I);
  S.Groups = {All};
  S.Sizes = {{"all", SizesAll.vec()}};
}

std::string choreo::jsonText(const nlohmann::ordered_json &V) {
  return V.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::vector<uint64_t> choreo::prefixSums(llvm::ArrayRef<uint64_t> Counts) {
  std::vector<uint64_t> Out(Counts.size() + 1, 0);
  for (size_t I = 0; I < Counts.size(); ++I)
    Out[I + 1] = Out[I] + Counts[I];
  return Out;
}
