//===- generators/intergroup/InterReduction.cpp - Intercomm bcast, reduce -===//
///
/// \file
/// The options, header and building blocks of the intercommunicator
/// broadcast and reduction generators.
///
//===----------------------------------------------------------------------===//

#include "generators/intergroup/InterReduction.h"
#include "generators/CommonOptions.h"
#include "generators/blocks/Blocks.h"
#include "generators/blocks/Reduction.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

std::vector<OptionDecl> choreo::interOptions(Collective C) {
  std::vector<OptionDecl> O = {opt::groupA(), opt::groupB(),
                               opt::vectorBytes()};
  if (specOf(C).isReduction()) {
    O.push_back(opt::elementBytes());
    O.push_back(opt::reductionOp());
  }
  if (specOf(C).Rooted)
    O.push_back(opt::root());
  return O;
}

llvm::Expected<InterInput> choreo::readInterInput(const OptionValues &V,
                                                  Collective C) {
  InterInput In;
  auto P = groupCount(V, opt::groupA());
  if (!P)
    return P.takeError();
  auto Q = groupCount(V, opt::groupB());
  if (!Q)
    return Q.takeError();
  In.P = *P;
  In.Q = *Q;
  std::optional<uint64_t> Bytes = V.lookup(opt::vectorBytes());
  if (!Bytes)
    return optionError("bytes", "missing: the vector length n in bytes");
  In.N = *Bytes;
  if (specOf(C).isReduction()) {
    In.Elem = V.get(opt::elementBytes());
    if (In.Elem == 0)
      return optionError("element-bytes", "an element has at least 1 byte");
    if (In.N % In.Elem)
      return optionError("element-bytes",
                         formatv("{0}-byte elements do not divide the "
                                 "{1}-byte vector (--bytes); no block may "
                                 "split an element",
                                 In.Elem, In.N));
    In.Commutative = V.get(opt::reductionOp()) == OperatorKind::Commutative;
  }
  if (specOf(C).Rooted) {
    uint64_t Root = V.get(opt::root());
    if (Root >= uint64_t(In.P) + In.Q)
      return optionError("root",
                         formatv("rank {0} is not below --p + --q = {1} (A is "
                                 "ranks 0..p-1, B p..p+q-1)",
                                 Root, uint64_t(In.P) + In.Q));
    In.Root = Rank(Root);
  }
  return In;
}

Schedule choreo::interSchedule(Collective C, const InterInput &In) {
  Schedule S;
  S.Kind = C;
  setIntergroup(S, std::vector<uint64_t>(In.P, 0),
                std::vector<uint64_t>(In.Q, 0));
  S.Sizes = {{"all", {In.N}}};
  if (specOf(C).Rooted)
    S.Root = In.Root;
  if (specOf(C).isReduction() && !In.Commutative)
    S.ReduceOp = ReductionOp{false};
  return S;
}

StepList choreo::groupReduce(Rank Base, uint32_t N, uint64_t Bytes) {
  StepList L;
  for (uint64_t Mask = 1; Mask < N; Mask <<= 1) {
    L.newStep();
    for (uint64_t Rel = Mask; Rel < N; Rel += 2 * Mask) {
      Block B;
      B.Lo = 0;
      B.Hi = Bytes;
      B.Reduce = true;
      B.Contrib = L.addContrib(
          ranksOf(Base + Rel, Base + std::min<uint64_t>(Rel + Mask, N)));
      if (Bytes)
        L.addOp(Base + Rel, Base + Rel - Mask, B);
    }
  }
  return L;
}

StepList choreo::groupBcast(Rank Base, uint32_t N, uint64_t Bytes,
                            const RankSet *Contrib) {
  std::vector<Rank> Ranks;
  for (uint32_t I = 0; I < N; ++I)
    Ranks.push_back(Base + I);
  StepList Plain = mpichBcast(N, Bytes, 0).relabeled(Ranks);
  if (!Contrib)
    return Plain;
  StepList L;
  uint32_t Set = L.addContrib(*Contrib);
  llvm::SmallVector<Block, 4> Blocks;
  for (unsigned St = 0; St < Plain.numSteps(); ++St) {
    L.newStep();
    for (const Op &O : Plain.step(St)) {
      Blocks.assign(Plain.blocks(O).begin(), Plain.blocks(O).end());
      for (Block &B : Blocks) {
        B.Reduce = false;
        B.Contrib = Set;
      }
      L.addOp(O.Src, O.Dst, Blocks);
    }
  }
  return L;
}

void choreo::addWhole(StepList &L, Rank From, Rank To, uint64_t Bytes,
                      const RankSet *Contrib) {
  L.newStep();
  if (!Bytes)
    return;
  Block B;
  B.Hi = Bytes;
  if (Contrib)
    B.Contrib = L.addContrib(*Contrib);
  L.addOp(From, To, B);
}

llvm::Expected<Schedule> choreo::finishInter(Schedule S, StepList Whole,
                                             std::optional<Rank> Only) {
  Whole.dropEmptySteps();
  if (!Only) {
    S.Steps = std::move(Whole);
    return S;
  }
  if (*Only >= S.NumRanks)
    return optionError("p", formatv("rank {0} is not one of the p + q = {1} "
                                    "ranks",
                                    *Only, S.NumRanks));
  StepList Part;
  llvm::SmallVector<Block, 4> Blocks;
  for (unsigned St = 0; St < Whole.numSteps(); ++St) {
    Part.newStep();
    for (const Op &O : Whole.step(St)) {
      if (O.Src != *Only && O.Dst != *Only)
        continue;
      Blocks.assign(Whole.blocks(O).begin(), Whole.blocks(O).end());
      for (Block &B : Blocks)
        if (B.hasContrib())
          B.Contrib = Part.addContrib(Whole.contrib(B.Contrib));
      Part.addOp(O.Src, O.Dst, Blocks);
    }
  }
  S.Steps = std::move(Part);
  return S;
}

RankPart choreo::groupReducePart(Rank Base, uint32_t N, uint64_t Bytes,
                                 Rank Me) {
  // groupReduce: at mask m, relative rank r with r mod 2m = m sends its
  // subtree [r, r + m) to r - m; every step has an op (r = m < N), and one
  // op of Me at most (it sends or it receives).
  RankPart P;
  uint32_t R = localOf(Me, Base, N);
  for (uint64_t Mask = 1; Mask < N; Mask <<= 1) {
    P.Steps.newStep();
    P.Used.push_back(Bytes > 0);
    if (R == NoRank || !Bytes)
      continue;
    uint64_t From = 0;
    if (R % (2 * Mask) == Mask)
      From = R;
    else if (R % (2 * Mask) == 0 && R + Mask < N)
      From = R + Mask;
    else
      continue;
    Block B;
    B.Hi = Bytes;
    B.Reduce = true;
    B.Contrib = P.Steps.addContrib(
        ranksOf(Base + From, Base + std::min<uint64_t>(From + Mask, N)));
    P.Steps.addOp(Base + From, Base + From - Mask, B);
  }
  return P;
}

RankPart choreo::onGroupPart(const RankPart &P, Rank Base, BufferId Buf,
                             const RankSet *Contrib) {
  RankPart Out;
  Out.Used = P.Used;
  Out.Steps.reserve(P.Steps.numOps(), P.Steps.numBlocks());
  uint32_t Set = Block::NoContrib;
  if (Contrib && !P.Steps.empty())
    Set = Out.Steps.addContrib(*Contrib);
  llvm::SmallVector<Block, 4> Blocks;
  for (unsigned St = 0; St < P.Steps.numSteps(); ++St) {
    Out.Steps.newStep();
    for (const Op &O : P.Steps.step(St)) {
      Blocks.assign(P.Steps.blocks(O).begin(), P.Steps.blocks(O).end());
      for (Block &B : Blocks) {
        if (B.Buf == 0)
          B.Buf = Buf;
        if (Contrib) {
          B.Reduce = false;
          B.Contrib = Set;
        } else if (B.hasContrib()) {
          B.Contrib = Out.Steps.addContrib(P.Steps.contrib(B.Contrib));
        }
      }
      Out.Steps.addOp(Base + O.Src, Base + O.Dst, Blocks);
    }
  }
  return Out;
}

RankPart choreo::groupBcastPart(Rank Base, uint32_t N, uint64_t Bytes, Rank Me,
                                const RankSet *Contrib) {
  return onGroupPart(mpichBcastRank(N, Bytes, 0, localOf(Me, Base, N)), Base, 0,
                     Contrib);
}

RankPart choreo::onePart(Rank From, Rank To, const Block &B, Rank Me,
                         const RankSet *Contrib) {
  RankPart P;
  P.Steps.newStep();
  P.Used.push_back(B.size() > 0);
  if (B.size() && (Me == From || Me == To)) {
    Block C = B;
    if (Contrib)
      C.Contrib = P.Steps.addContrib(*Contrib);
    P.Steps.addOp(From, To, C);
  }
  return P;
}

void choreo::mergePartAlongside(RankPart &L, const RankPart &Other) {
  L.Steps.mergeAlongside(Other.Steps);
  if (L.Used.size() < Other.Used.size())
    L.Used.resize(Other.Used.size(), false);
  for (size_t I = 0; I < Other.Used.size(); ++I)
    L.Used[I] = L.Used[I] || Other.Used[I];
}

llvm::Expected<Schedule> choreo::finishInterPart(Schedule S, RankPart Part,
                                                 Rank Only) {
  if (Only >= S.NumRanks)
    return optionError("p", formatv("rank {0} is not one of the p + q = {1} "
                                    "ranks",
                                    Only, S.NumRanks));
  S.Steps = std::move(Part).kept();
  return S;
}

GroupPieces choreo::groupReduceScatter(uint32_t G, uint64_t N, uint64_t Elem,
                                       bool Halving, std::optional<Rank> Only,
                                       Rank Base, size_t Room) {
  GroupPieces Out;
  RawSteps R(G, Only, Base);
  if (Only && *Only < G && Room)
    R.reserve(Room + (Halving ? 2 * size_t(ceilLog2(G)) + 8 : 2 * size_t(G)));
  if (!Halving) {
    std::vector<uint64_t> Cuts = elementCuts(N, Elem, G);
    pairwiseReduceScatter(R, 0, G, Cuts);
    for (uint32_t M = 0; M < G; ++M) {
      Out.Order.push_back(M);
      Out.Counts.push_back(Cuts[M + 1] - Cuts[M]);
    }
  } else {
    uint32_t Pof2 = floorPow2(G);
    SegmentLayout Lay = SegmentLayout::bitReversed(N, Elem, Pof2);
    unsigned St = 0;
    NewRanks M = foldToPowerOfTwo(R, 0, G, N, Fold::Halves, Lay.cut(Pof2 / 2),
                                  std::nullopt, St);
    halvingReduceScatter(R, St, M, Lay, bitOrder(Pof2, /*Doubling=*/true));
    std::vector<char> Has(G, 0);
    for (uint32_t J = 0; J < Pof2; ++J) {
      Rank X = M.rankOf(Lay.owner(J));
      Out.Order.push_back(X);
      Out.Counts.push_back(Lay.cut(J + 1) - Lay.cut(J));
      Has[X] = 1;
    }
    for (uint32_t X = 0; X < G; ++X)
      if (!Has[X]) {
        Out.Order.push_back(X);
        Out.Counts.push_back(0);
      }
  }
  Out.Steps = R.take();
  return Out;
}

Option<std::string> choreo::groupReduceScatterOption() {
  return wordOption("reduce-scatter",
                    "each group's reduce-scatter: ring (pairwise, commutative "
                    "operators) or halving (fold and vector halving with "
                    "distance doubling, rank order kept)",
                    {"ring", "halving"})
      .withDefaultNote("ring, halving for --op noncommutative");
}

llvm::Expected<bool> choreo::groupReduceScatterHalving(
    const OptionValues &V, const Option<std::string> &Opt, bool Commutative) {
  std::string RS = V.lookup(Opt).value_or(Commutative ? "ring" : "halving");
  bool Halving = RS == "halving";
  if (!Halving && !Commutative)
    return optionError(
        "reduce-scatter",
        "the ring (pairwise) reduce-scatter combines across the wrap from "
        "a group's last rank to its first, so it cannot keep rank order "
        "for --op noncommutative; use --reduce-scatter halving (the "
        "default for a noncommutative operator)");
  return Halving;
}
