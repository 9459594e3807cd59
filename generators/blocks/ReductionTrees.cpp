//===- generators/blocks/ReductionTrees.cpp - Trees, folds and rings ------===//
///
/// \file
/// The binomial reduce and broadcast, recursive doubling, the fold to a
/// power of two and the pairwise and ring pieces of seed 004, each emitting
/// every rank's ops or one rank's (RawSteps::only()) with the contributor
/// sets in closed form: a binomial subtree is a cyclic range of ranks, a
/// pairwise sender sends its own contribution, and after a reduction every
/// block carries everyone's.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Reduction.h"

using namespace choreo;

namespace {

/// The set of the Len ranks from Start on, cyclically over P.
uint32_t cyclicRanks(RawSteps &R, uint32_t P, uint64_t Start, uint64_t Len) {
  if (Start + Len <= P)
    return R.ranks(Start, Start + Len);
  RankSet S(Start, P);
  S.insert(0, Start + Len - P);
  return R.contrib(std::move(S));
}

/// Me's position relative to Root over P ranks, or none for every rank.
std::optional<uint64_t> relative(const RawSteps &R, uint32_t P, uint32_t Root) {
  if (!R.only())
    return std::nullopt;
  return (uint64_t(*R.only()) + P - Root) % P;
}

} // namespace

unsigned choreo::treeReduce(RawSteps &R, unsigned First, uint32_t P, uint64_t N,
                            uint32_t Root, bool Commutative) {
  uint32_t TreeRoot = Commutative ? Root : 0;
  std::optional<uint64_t> Me = relative(R, P, TreeRoot);
  unsigned St = First;
  // Relative rank Rel sends its subtree [Rel, Rel + Mask) to Rel - Mask.
  auto Send = [&](uint64_t Rel, uint64_t Mask) {
    R.add(St, (Rel + TreeRoot) % P, (Rel - Mask + TreeRoot) % P, 0, N,
          /*Reduce=*/true,
          cyclicRanks(R, P, (Rel + TreeRoot) % P,
                      std::min<uint64_t>(Mask, P - Rel)));
  };
  for (uint64_t Mask = 1; Mask < P; Mask <<= 1, ++St) {
    R.keepIf(N > 0, St);
    if (!Me) {
      for (uint64_t Rel = Mask; Rel < P; Rel += 2 * Mask)
        Send(Rel, Mask);
    } else if (*Me % (2 * Mask) == Mask) {
      Send(*Me, Mask);
    } else if (*Me % (2 * Mask) == 0 && *Me + Mask < P) {
      Send(*Me + Mask, Mask);
    }
  }
  if (TreeRoot != Root) {
    R.keepIf(N > 0, St);
    R.add(St++, TreeRoot, Root, 0, N, /*Reduce=*/false, R.everyone());
  }
  return St;
}

unsigned choreo::treeBcast(RawSteps &R, unsigned First, uint32_t P, uint64_t N,
                           uint32_t Root) {
  if (P < 2)
    return First;
  std::optional<uint64_t> Me = relative(R, P, Root);
  unsigned St = First;
  auto Send = [&](uint64_t Rel, uint64_t Mask) {
    R.add(St, (Rel + Root) % P, (Rel + Mask + Root) % P, 0, N,
          /*Reduce=*/false, R.everyone());
  };
  for (uint64_t Mask = floorPow2(P - 1); Mask > 0; Mask >>= 1, ++St) {
    R.keepIf(N > 0, St);
    if (!Me) {
      for (uint64_t Rel = 0; Rel + Mask < P; Rel += 2 * Mask)
        Send(Rel, Mask);
    } else if (*Me % (2 * Mask) == 0 && *Me + Mask < P) {
      Send(*Me, Mask);
    } else if (*Me % (2 * Mask) == Mask) {
      Send(*Me - Mask, Mask);
    }
  }
  return St;
}

void choreo::recursiveDoublingAllreduce(RawSteps &R, uint32_t P, uint64_t N) {
  unsigned St = 0;
  NewRanks M =
      foldToPowerOfTwo(R, 0, P, N, Fold::EvenToOdd, 0, std::nullopt, St);
  std::optional<uint32_t> Me;
  if (R.only())
    Me = M.newRankOf(*R.only());
  for (uint32_t Mask = 1; Mask < M.Size; Mask <<= 1, ++St) {
    R.keepIf(N > 0, St);
    // X holds the new ranks that agree with it above Mask.
    auto Send = [&](uint32_t X) {
      uint32_t Lo = X & ~(Mask - 1);
      R.add(St, M.rankOf(X), M.rankOf(X ^ Mask), 0, N, /*Reduce=*/true,
            R.ranks(M.firstOf(Lo), M.endOf(Lo + Mask - 1)));
    };
    if (!R.only()) {
      for (uint32_t X = 0; X < M.Size; ++X)
        Send(X);
    } else if (Me) {
      uint32_t Y = *Me ^ Mask;
      Send(std::min(*Me, Y));
      Send(std::max(*Me, Y));
    }
  }
  returnToPartners(R, St, P - M.Size, /*OddSends=*/true, [&](uint32_t) {
    return Interval{0, N};
  });
}

NewRanks choreo::foldToPowerOfTwo(RawSteps &R, unsigned First, uint32_t P,
                                  uint64_t N, Fold F, uint64_t Half,
                                  std::optional<uint32_t> KeepOdd,
                                  unsigned &Next) {
  NewRanks M;
  M.Size = floorPow2(P);
  M.Rem = P - M.Size;
  M.OddStays = F == Fold::EvenToOdd;
  M.KeepOdd = KeepOdd;
  Next = First;
  if (M.Rem == 0)
    return M;
  auto Pair = [&](uint32_t I) {
    Rank Even = 2 * I, Odd = 2 * I + 1;
    switch (F) {
    case Fold::EvenToOdd:
      R.add(First, Even, Odd, 0, N, true, R.ranks(Even, Even + 1));
      break;
    case Fold::OddToEven:
      R.add(First, Odd, Even, 0, N, true, R.ranks(Odd, Odd + 1));
      break;
    case Fold::Halves:
      R.add(First, Even, Odd, Half, N, true, R.ranks(Even, Even + 1));
      R.add(First, Odd, Even, 0, Half, true, R.ranks(Odd, Odd + 1));
      if (KeepOdd && *KeepOdd == I)
        R.add(First + 1, Even, Odd, 0, Half, false, R.ranks(Even, Odd + 1));
      else
        R.add(First + 1, Odd, Even, Half, N, false, R.ranks(Even, Odd + 1));
      break;
    }
  };
  if (!R.only()) {
    for (uint32_t I = 0; I < M.Rem; ++I)
      Pair(I);
  } else if (*R.only() < 2 * M.Rem) {
    Pair(*R.only() / 2);
  }
  R.keepIf(N > 0, First);
  if (F == Fold::Halves) {
    // The second step: the odd rank's upper half back, or the even rank's
    // lower half to a staying odd root.
    bool KeepsOdd = KeepOdd && *KeepOdd < M.Rem;
    bool Others = !KeepsOdd || M.Rem > 1;
    R.keepIf((Others && Half < N) || (KeepsOdd && Half > 0), First + 1);
  }
  Next = First + (F == Fold::Halves ? 2 : 1);
  return M;
}

void choreo::returnToPartners(RawSteps &R, unsigned St, uint32_t Rem,
                              bool OddSends,
                              llvm::function_ref<Interval(uint32_t)> Range) {
  auto Send = [&](uint32_t I) {
    Interval Iv = Range(I);
    Rank Even = 2 * I, Odd = 2 * I + 1;
    R.add(St, OddSends ? Odd : Even, OddSends ? Even : Odd, Iv.Lo, Iv.Hi,
          /*Reduce=*/false, R.everyone());
  };
  if (!R.only()) {
    for (uint32_t I = 0; I < Rem; ++I)
      Send(I);
  } else if (*R.only() < 2 * Rem) {
    Send(*R.only() / 2);
  }
  for (uint32_t I = 0; I < Rem; ++I)
    if (!Range(I).empty()) {
      R.keep(St);
      break;
    }
}

unsigned choreo::pairwiseReduceScatter(RawSteps &R, unsigned First, uint32_t P,
                                       llvm::ArrayRef<uint64_t> Cuts) {
  bool Any = Cuts.front() < Cuts.back();
  // A rank's part: its own set once (a lookup per step was a tenth of a
  // ring rank's build); a rank at or past P has no ops, only the steps.
  std::optional<Rank> Me = R.only();
  uint32_t MeSet = Me && *Me < P ? R.ranks(*Me, *Me + 1) : Block::NoContrib;
  if (Me && *Me < P && Any)
    R.reserve(2 * size_t(P - 1));
  for (uint32_t I = 1; I < P; ++I) {
    unsigned St = First + I - 1;
    R.keepIf(Any, St);
    auto Send = [&](uint32_t X) {
      uint32_t To = (uint64_t(X) + I) % P;
      if (Cuts[To] >= Cuts[To + 1] || !R.wants(X, To))
        return;
      R.add(St, X, To, Cuts[To], Cuts[To + 1], /*Reduce=*/true,
            Me && X == *Me ? MeSet : R.ranks(X, X + 1));
    };
    if (!Me) {
      for (uint32_t X = 0; X < P; ++X)
        Send(X);
      continue;
    }
    if (*Me >= P)
      continue;
    Rank From = (uint64_t(*Me) + P - I) % P;
    Send(std::min(*Me, From));
    if (From != *Me)
      Send(std::max(*Me, From));
  }
  return First + (P > 1 ? P - 1 : 0);
}

unsigned choreo::ringAllgatherSegments(RawSteps &R, unsigned First, uint32_t P,
                                       llvm::ArrayRef<uint64_t> Cuts) {
  bool Any = Cuts.front() < Cuts.back();
  if (R.only() && *R.only() < P && Any)
    R.reserve(2 * size_t(P - 1));
  for (uint32_t S = 0; S + 1 < P; ++S) {
    unsigned St = First + S;
    R.keepIf(Any, St);
    auto Send = [&](uint32_t X) {
      uint32_t Seg = (uint64_t(X) + P - S) % P;
      R.add(St, X, (uint64_t(X) + 1) % P, Cuts[Seg], Cuts[Seg + 1],
            /*Reduce=*/false, R.everyone());
    };
    if (!R.only()) {
      for (uint32_t X = 0; X < P; ++X)
        Send(X);
      continue;
    }
    Rank Me = *R.only(), Left = (uint64_t(Me) + P - 1) % P;
    Send(std::min(Me, Left));
    if (Left != Me)
      Send(std::max(Me, Left));
  }
  return First + (P > 1 ? P - 1 : 0);
}
