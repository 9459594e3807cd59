//===- generators/barrier/Barrier.cpp - Barrier algorithms ----------------===//
///
/// \file
/// The dissemination and recursive-doubling barriers and their rank forms.
///
//===----------------------------------------------------------------------===//

#include "generators/barrier/Barrier.h"

#include <algorithm>

using namespace choreo;

namespace {

/// One op of a barrier step: sender, receiver and the ranks it tells of.
struct BarrierOp {
  Rank Src, Dst;
  llvm::SmallVector<Block, 2> Blocks;
};

/// Bytes [Lo, Hi) of buffer `all`, if not empty.
void addRange(llvm::SmallVectorImpl<Block> &Out, uint64_t Lo, uint64_t Hi) {
  if (Lo < Hi)
    Out.push_back(Block{Lo, Hi});
}

/// The Len ranks ending at Last (mod P) as at most two ranges.
llvm::SmallVector<Block, 2> runEndingAt(uint32_t P, uint64_t Last,
                                        uint64_t Len) {
  llvm::SmallVector<Block, 2> Out;
  uint64_t First = (Last + P + 1 - Len) % P;
  if (First + Len <= P) {
    addRange(Out, First, First + Len);
  } else {
    addRange(Out, First, P);
    addRange(Out, 0, First + Len - P);
  }
  return Out;
}

/// Appends Ops to the last step in the whole's order (by sender, then as
/// listed).
void addSorted(StepList &L, std::vector<BarrierOp> &Ops) {
  std::stable_sort(
      Ops.begin(), Ops.end(),
      [](const BarrierOp &A, const BarrierOp &B) { return A.Src < B.Src; });
  for (const BarrierOp &O : Ops)
    L.addOp(O.Src, O.Dst, O.Blocks);
  Ops.clear();
}

} // namespace

const Option<uint64_t> &choreo::barrierRadix() {
  static const Option<uint64_t> O =
      countOption("radix", "the dissemination barrier's k: each round, every "
                           "rank tells k - 1 others (at least 2)")
          .withDefault("2");
  return O;
}

llvm::Expected<uint64_t> choreo::readBarrierRadix(const OptionValues &V) {
  uint64_t K = V.get(barrierRadix());
  if (K < 2)
    return optionError("radix", llvm::Twine("expected at least 2 (every "
                                            "round tells k - 1 ranks), got ") +
                                    llvm::Twine(K));
  return K;
}

Ports choreo::disseminationPorts(uint32_t N, uint64_t K) {
  uint32_t Most = std::min<uint64_t>(K - 1, std::max<uint32_t>(N, 2) - 1);
  return Ports{Most, Most, true};
}

uint64_t choreo::disseminationBarrierOps(uint32_t P, uint64_t K) {
  uint64_t PerRank = 0;
  for (uint64_t D = 1; D < P; D *= K) {
    PerRank += std::min<uint64_t>(K - 1, (P - 1) / D);
    if (D > P / K)
      break;
  }
  return PerRank * P;
}

StepList choreo::disseminationBarrier(uint32_t P, uint64_t K,
                                      std::optional<Rank> Only) {
  StepList L;
  std::vector<BarrierOp> Ops;
  for (uint64_t D = 1; D < P; D *= K) {
    L.newStep();
    // Sender I tells I + M D what it knows: offsets M D .. M D + Len - 1
    // back from the receiver.
    auto Op = [&](uint64_t I, uint64_t M) {
      uint64_t Len = std::min<uint64_t>(D, P - M * D);
      Ops.push_back({Rank(I), Rank((I + M * D) % P), runEndingAt(P, I, Len)});
    };
    for (uint64_t M = 1; M < K && M * D < P; ++M) {
      if (!Only) {
        for (uint64_t I = 0; I < P; ++I)
          Op(I, M);
        continue;
      }
      Op(*Only, M);
      Op((*Only + P - M * D % P) % P, M);
    }
    // Each sender's messages together, as the whole lists them.
    addSorted(L, Ops);
    if (D > P / K)
      break;
  }
  return L;
}

StepList choreo::recursiveDoublingBarrier(uint32_t P,
                                          std::optional<Rank> Only) {
  StepList L;
  if (P < 2)
    return L;
  uint32_t Pof2 = 1;
  while (uint64_t(Pof2) * 2 <= P)
    Pof2 *= 2;
  uint32_t Rem = P - Pof2;
  // The real ranks of new ranks [A, B): the odd rank 2x + 1 stands for
  // itself and 2x below 2 Rem, rank x + Rem above.
  auto RealLo = [&](uint64_t X) { return X < Rem ? 2 * X : X + Rem; };
  auto Mine = [&](Rank S, Rank D) { return !Only || S == *Only || D == *Only; };
  std::vector<BarrierOp> Ops;
  if (Rem) {
    L.newStep();
    for (Rank R = 0; R < 2 * Rem; R += 2)
      if (Mine(R, R + 1))
        Ops.push_back({R, R + 1, {Block{R, uint64_t(R) + 1}}});
    addSorted(L, Ops);
  }
  for (uint64_t Mask = 1; Mask < Pof2; Mask <<= 1) {
    L.newStep();
    auto Op = [&](uint64_t X) {
      uint64_t Lo = X & ~(Mask - 1);
      // New rank X is the odd rank 2X + 1 below 2 Rem.
      auto Real = [&](uint64_t Y) { return Rank(RealLo(Y) + (Y < Rem)); };
      Rank S = Real(X), D = Real(X ^ Mask);
      llvm::SmallVector<Block, 2> Bs;
      addRange(Bs, RealLo(Lo), RealLo(Lo + Mask));
      Ops.push_back({S, D, Bs});
    };
    if (!Only) {
      for (uint64_t X = 0; X < Pof2; ++X)
        Op(X);
    } else if (*Only >= 2 * Rem || *Only % 2) {
      uint64_t X = *Only < 2 * Rem ? *Only / 2 : *Only - Rem;
      Op(X);
      Op(X ^ Mask);
    }
    addSorted(L, Ops);
  }
  if (Rem) {
    L.newStep();
    // Each odd rank below 2 Rem tells the even one everything but itself.
    for (Rank R = 1; R < 2 * Rem; R += 2)
      if (Mine(R, R - 1)) {
        llvm::SmallVector<Block, 2> Bs;
        addRange(Bs, 0, R - 1);
        addRange(Bs, R, P);
        Ops.push_back({R, R - 1, Bs});
      }
    addSorted(L, Ops);
  }
  return L;
}

llvm::Expected<Schedule>
choreo::buildBarrier(llvm::StringRef Id, const OptionValues &V,
                     std::optional<Rank> Only,
                     llvm::function_ref<uint64_t(uint32_t P)> EstimatedOps,
                     llvm::function_ref<StepList(uint32_t P)> Steps) {
  auto N = groupCount(V, opt::ranks());
  if (!N)
    return N.takeError();
  if (Only && *Only >= *N)
    return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                " is not below --p " + llvm::Twine(*N));
  if (auto E = checkOpBudget(Id, Only ? 0 : EstimatedOps(*N)))
    return E;
  Schedule S;
  S.Kind = Collective::Barrier;
  setIntragroup(S, *N, std::vector<uint64_t>(*N, 1));
  S.Steps = Steps(*N);
  return S;
}
