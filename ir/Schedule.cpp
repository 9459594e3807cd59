//===- ir/Schedule.cpp - A collective-communication schedule --------------===//
///
/// \file
/// The printing helpers of a schedule's blocks used by diagnostics and views.
///
//===----------------------------------------------------------------------===//

#include "ir/Schedule.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace choreo;

ScheduleParams::ScheduleParams() = default;
ScheduleParams::ScheduleParams(const nlohmann::ordered_json &J)
    : V(std::make_unique<nlohmann::ordered_json>(J)) {}
ScheduleParams::ScheduleParams(const ScheduleParams &Other)
    : V(std::make_unique<nlohmann::ordered_json>(Other.json())) {}
ScheduleParams::ScheduleParams(ScheduleParams &&Other) noexcept = default;
ScheduleParams &ScheduleParams::operator=(const ScheduleParams &Other) {
  if (this != &Other)
    V = std::make_unique<nlohmann::ordered_json>(Other.json());
  return *this;
}
ScheduleParams &
ScheduleParams::operator=(ScheduleParams &&Other) noexcept = default;
ScheduleParams::~ScheduleParams() = default;

// An empty box (default or moved from) reads as the empty object; the
// object is made on the first write.
nlohmann::ordered_json &ScheduleParams::json() {
  if (!V)
    V = std::make_unique<nlohmann::ordered_json>(
        nlohmann::ordered_json::object());
  return *V;
}
const nlohmann::ordered_json &ScheduleParams::json() const {
  static const nlohmann::ordered_json Empty = nlohmann::ordered_json::object();
  return V ? *V : Empty;
}
std::string ScheduleParams::dump() const { return jsonText(json()); }

std::vector<MemberSegment> Schedule::memberSegments() const {
  if (spec().Data == DataKind::Scatter)
    return spec().requirements(*this);
  if (!spec().isGatherType())
    return {};
  return spec().initialHoldings(*this);
}

size_t Schedule::fileOpIndex(unsigned St, size_t Index) const {
  if (FileOpIndex.size() != Steps.numOps())
    return Index;
  return FileOpIndex[Steps.step(St).data() - Steps.allOps().data() + Index];
}

std::string Schedule::blockString(const Block &B) const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << spec().bufferName(B.Buf);
  if (Steps.validLattice(B)) {
    // "all[0,8) rows 4 +64 cols 2 +16": the first element, Rows rows
    // RowStride bytes apart, Cols columns ColStride bytes apart.
    const Lattice &X = Steps.lattice(B);
    OS << '[' << X.Start << ',' << X.Start + X.Elem << ") rows " << X.Rows
       << " +" << X.RowStride << " cols " << X.Cols << " +" << X.ColStride;
    return S;
  }
  OS << '[' << B.Lo << ',' << B.Hi << ')';
  if (B.hasContrib() && B.Contrib < Steps.numContribs()) {
    if (std::optional<SubtreeName> N = Steps.subtree(B.Contrib))
      OS << " contrib subtree of " << N->Of << " in tree " << N->Tree;
    else
      OS << " contrib " << rankSetString(Steps.contrib(B.Contrib));
  }
  if (B.Reduce)
    OS << " reduce";
  if (B.Acc)
    OS << " acc " << B.fromAcc() << "->" << unsigned(B.intoMask());
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

Schedule choreo::onlyRank(const Schedule &S, Rank Me) {
  Schedule Out;
  Out.header() = S.header();
  Out.Algorithm = S.Algorithm;
  Out.Params = S.Params;
  Out.StepsDigest = S.StepsDigest;
  // Contributor sets are interned per list: Me's are interned again in the
  // part's own list (index by index, once each).
  std::vector<uint32_t> ContribMap;
  llvm::SmallVector<Block, 4> Copy;
  for (unsigned I = 0; I < S.Steps.numSteps(); ++I) {
    Out.Steps.newStep();
    for (const Op &O : S.Steps.step(I)) {
      if (O.Src != Me && O.Dst != Me)
        continue;
      Copy.assign(S.Steps.blocks(O).begin(), S.Steps.blocks(O).end());
      for (Block &B : Copy) {
        if (S.Steps.validLattice(B))
          B = Out.Steps.latticeBlock(B.Buf, S.Steps.lattice(B));
        if (!B.hasContrib())
          continue;
        if (ContribMap.size() <= B.Contrib)
          ContribMap.resize(B.Contrib + 1, Block::NoContrib);
        uint32_t &To = ContribMap[B.Contrib];
        if (To == Block::NoContrib)
          To = Out.Steps.copyContrib(S.Steps, B.Contrib);
        B.Contrib = To;
      }
      Out.Steps.addOp(O.Src, O.Dst, Copy);
    }
  }
  return Out;
}

std::string choreo::jsonText(const nlohmann::ordered_json &V) {
  return V.dump(-1, ' ', false,
                nlohmann::ordered_json::error_handler_t::replace);
}

std::vector<uint64_t> choreo::prefixSums(llvm::ArrayRef<uint64_t> Counts) {
  std::vector<uint64_t> Out(Counts.size() + 1, 0);
  for (size_t I = 0; I < Counts.size(); ++I)
    Out[I + 1] = Out[I] + Counts[I];
  return Out;
}
