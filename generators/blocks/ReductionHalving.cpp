//===- generators/blocks/ReductionHalving.cpp - Halving and doubling ------===//
///
/// \file
/// Recursive vector halving and doubling over new ranks, the tree gather of
/// their segments and binary blocks (seed 004, Secs. 3.5 and 3.6), every
/// rank's ops or one rank's. A message carries the segments of the owners
/// on the other side (SegmentLayout::forEachLike: one range when they are
/// contiguous, the strided ones one by one), and a sender in the
/// reduce-scatter holds the contributions of the new ranks that agree with
/// it on the bits not yet processed: a range of ranks under distance
/// doubling, every 2^k-th new rank under distance halving.
///
//===----------------------------------------------------------------------===//

#include "generators/blocks/Blocks.h"
#include "generators/blocks/Reduction.h"

using namespace choreo;

namespace {

/// The ranks of the new ranks that agree with X outside Free, as a set id:
/// a range when Free is the low bits, else built once per class of X (the
/// whole schedule asks for every class in a step).
class SubcubeSets {
public:
  SubcubeSets(RawSteps &R, const NewRanks &M) : R(R), M(M) {}
  void setFree(uint32_t F) {
    Free = F;
    Classes.clear();
  }
  uint32_t of(uint32_t X) {
    uint32_t Lo = X & ~Free;
    if ((Free & (Free + 1)) == 0)
      return R.ranks(M.firstOf(Lo), M.endOf(Lo | Free));
    auto [It, New] = Classes.try_emplace(Lo, 0);
    if (!New)
      return It->second;
    RankSet S;
    for (uint32_t Sub = 0;; Sub = ((Sub | ~Free) + 1) & Free) {
      S.insert(M.firstOf(Lo | Sub), M.endOf(Lo | Sub));
      if (Sub == Free)
        break;
    }
    It->second = R.contrib(std::move(S));
    return It->second;
  }

private:
  RawSteps &R;
  const NewRanks &M;
  uint32_t Free = 0;
  llvm::DenseMap<uint32_t, uint32_t> Classes;
};

/// Send(X, Y) for every new rank X and Y = X ^ Bit, in the whole's order
/// (by X); for a rank's part, its two ops in that order.
template <class Fn>
void exchange(const RawSteps &R, const NewRanks &M, uint32_t Bit, Fn Send) {
  if (!R.only()) {
    for (uint32_t X = 0; X < M.Size; ++X)
      Send(X, X ^ Bit);
    return;
  }
  std::optional<uint32_t> Me = M.newRankOf(*R.only());
  if (!Me)
    return;
  uint32_t Lo = std::min(*Me, *Me ^ Bit), Hi = std::max(*Me, *Me ^ Bit);
  Send(Lo, Hi);
  Send(Hi, Lo);
}

/// One op from X to Y (new ranks) carrying the segments like Z under Mask.
void sendLike(RawSteps &R, unsigned St, const NewRanks &M,
              const SegmentLayout &Lay, uint32_t X, uint32_t Y, uint32_t Z,
              uint32_t Mask, bool Reduce, uint32_t Contrib) {
  R.begin(St, M.rankOf(X), M.rankOf(Y), Reduce, Contrib);
  Lay.forEachLike(Z, Mask, [&](uint64_t Lo, uint64_t Hi) { R.piece(Lo, Hi); });
  R.end();
}

uint32_t maskUpTo(llvm::ArrayRef<unsigned> Bits, size_t I) {
  uint32_t M = 0;
  for (size_t T = 0; T <= I; ++T)
    M |= 1u << Bits[T];
  return M;
}

} // namespace

unsigned choreo::halvingReduceScatter(RawSteps &R, unsigned First,
                                      const NewRanks &M,
                                      const SegmentLayout &Lay,
                                      llvm::ArrayRef<unsigned> Bits) {
  SubcubeSets Sets(R, M);
  uint32_t Mask = 0;
  for (size_t I = 0; I < Bits.size(); ++I) {
    unsigned St = First + I;
    uint32_t Bit = 1u << Bits[I];
    Mask |= Bit;
    R.keepIf(!Lay.empty(), St);
    exchange(R, M, Bit, [&](uint32_t X, uint32_t Y) {
      sendLike(R, St, M, Lay, X, Y, Y, Mask, /*Reduce=*/true, Sets.of(X));
    });
    Sets.setFree(Mask);
  }
  return First + Bits.size();
}

unsigned choreo::segmentsToOwners(RawSteps &R, unsigned St, const NewRanks &M,
                                  const SegmentLayout &Lay) {
  // From the new rank holding segment J to new rank J, when they differ.
  auto Send = [&](uint32_t Holder) {
    uint32_t J = Lay.owner(Holder);
    R.add(St, M.rankOf(Holder), M.rankOf(J), Lay.cut(J), Lay.cut(J + 1),
          /*Reduce=*/false, R.everyone());
  };
  bool Any = false;
  for (uint32_t J = 0; J < Lay.size() && !Any; ++J)
    Any = Lay.owner(J) != J && Lay.cut(J) < Lay.cut(J + 1);
  if (!Any)
    return St;
  R.keep(St);
  if (!R.only()) {
    for (uint32_t X = 0; X < Lay.size(); ++X)
      if (Lay.owner(X) != X)
        Send(X);
  } else if (std::optional<uint32_t> Me = M.newRankOf(*R.only());
             Me && Lay.owner(*Me) != *Me) {
    uint32_t Peer = Lay.owner(*Me);
    Send(std::min(*Me, Peer));
    Send(std::max(*Me, Peer));
  }
  return St + 1;
}

unsigned choreo::doublingAllgather(RawSteps &R, unsigned First,
                                   const NewRanks &M, const SegmentLayout &Lay,
                                   llvm::ArrayRef<unsigned> Bits) {
  unsigned St = First;
  for (size_t I = Bits.size(); I-- > 0; ++St) {
    uint32_t Mask = maskUpTo(Bits, I);
    R.keepIf(!Lay.empty(), St);
    exchange(R, M, 1u << Bits[I], [&](uint32_t X, uint32_t Y) {
      sendLike(R, St, M, Lay, X, Y, X, Mask, /*Reduce=*/false, R.everyone());
    });
  }
  return St;
}

unsigned choreo::treeGatherSegments(RawSteps &R, unsigned First,
                                    const NewRanks &M, const SegmentLayout &Lay,
                                    llvm::ArrayRef<unsigned> Bits,
                                    uint32_t NewRoot) {
  std::optional<uint32_t> Me;
  if (R.only())
    Me = M.newRankOf(*R.only());
  unsigned St = First;
  for (size_t I = Bits.size(); I-- > 0; ++St) {
    uint32_t Bit = 1u << Bits[I];
    uint32_t Mask = maskUpTo(Bits, I);
    // Active: agreeing with the root on the bits not yet gathered (the
    // bits after I in the order). Of a pair, the one off the root's bit
    // sends; the step has a byte when some segment off it is non-empty.
    uint32_t Done = 0;
    for (size_t T = I + 1; T < Bits.size(); ++T)
      Done |= 1u << Bits[T];
    R.keepIf(Lay.someLike(NewRoot ^ Bit, Bit), St);
    auto Send = [&](uint32_t X) {
      sendLike(R, St, M, Lay, X, X ^ Bit, X, Mask, /*Reduce=*/false,
               R.everyone());
    };
    if (!R.only()) {
      for (uint32_t X = 0; X < M.Size; ++X)
        if (!((X ^ NewRoot) & Done) && ((X ^ NewRoot) & Bit))
          Send(X);
    } else if (Me && !((*Me ^ NewRoot) & Done)) {
      Send((*Me ^ NewRoot) & Bit ? *Me : *Me ^ Bit);
    }
  }
  return St;
}

unsigned choreo::handOverSegment(RawSteps &R, unsigned St, const NewRanks &M,
                                 const SegmentLayout &Lay, Rank To) {
  uint32_t All = Lay.size() - 1;
  R.begin(St, M.rankOf(0), To, /*Reduce=*/false, R.everyone());
  Lay.forEachLike(0, All, [&](uint64_t Lo, uint64_t Hi) { R.piece(Lo, Hi); });
  R.end();
  R.keepIf(Lay.someLike(0, All), St);
  return St + 1;
}

//===--- Binary blocks ----------------------------------------------------===//

std::vector<BinaryBlock> choreo::binaryBlocks(uint32_t P) {
  std::vector<BinaryBlock> Blocks;
  Rank First = 0;
  for (int B = 31; B >= 0; --B)
    if (P & (1u << B)) {
      Blocks.push_back({First, 1u << B});
      First += 1u << B;
    }
  return Blocks;
}

namespace {

/// The messages between a larger block Big and the next smaller one Small
/// from step Start: Small's segment J is Big's segments J * Ratio + T,
/// T < Ratio, each one message at step Start + T between Big's owner of
/// it and Small's owner of J (Up: from Small to Big, combined; else the
/// other way, replacing). Every rank's, or one rank's: a member of Small
/// has Ratio of them, a member of Big one. Step Start + T has a byte when
/// Big's segment T has (segments are longest first).
void betweenBlocks(RawSteps &R, unsigned Start, const BinaryBlock &BigB,
                   const BinaryBlock &SmallB, const SegmentLayout &Big,
                   const SegmentLayout &Small, bool Up, uint32_t Contrib) {
  uint32_t Ratio = BigB.Size / SmallB.Size;
  auto Send = [&](uint32_t J, uint32_t T) {
    uint32_t K = J * Ratio + T;
    Rank InBig = BigB.First + Big.owner(K),
         InSmall = SmallB.First + Small.owner(J);
    R.add(Start + T, Up ? InSmall : InBig, Up ? InBig : InSmall, Big.cut(K),
          Big.cut(K + 1), /*Reduce=*/Up, Contrib);
  };
  if (!R.only()) {
    for (uint32_t J = 0; J < SmallB.Size; ++J)
      for (uint32_t T = 0; T < Ratio; ++T)
        Send(J, T);
  } else if (Rank Me = *R.only();
             Me >= SmallB.First && Me - SmallB.First < SmallB.Size) {
    uint32_t J = Small.segmentOf(Me - SmallB.First);
    for (uint32_t T = 0; T < Ratio; ++T)
      Send(J, T);
  } else if (Me >= BigB.First && Me - BigB.First < BigB.Size) {
    uint32_t K = Big.segmentOf(Me - BigB.First);
    Send(K / Ratio, K % Ratio);
  }
  for (uint32_t T = 0; T < Ratio && Big.cut(T) < Big.cut(T + 1); ++T)
    R.keep(Start + T);
}

} // namespace

unsigned choreo::binaryBlocksReduceScatter(RawSteps &R, uint32_t P, uint64_t N,
                                           uint64_t Elem) {
  std::vector<BinaryBlock> Blocks = binaryBlocks(P);
  uint32_t Largest = Blocks.front().Size;
  auto Layout = [&](size_t B) {
    return SegmentLayout::bitReversed(N, Elem, Blocks[B].Size, Largest);
  };
  std::vector<unsigned> Done(Blocks.size());
  for (size_t B = 0; B < Blocks.size(); ++B)
    Done[B] = halvingReduceScatter(
        R, 0, NewRanks::block(Blocks[B].First, Blocks[B].Size), Layout(B),
        bitOrder(Blocks[B].Size, true));
  // From the smallest block up: block B + 1's segments, cut into block B's,
  // to their owners in B, one message per sender and step; they hold the
  // contributions of every block from B + 1 on.
  for (size_t B = Blocks.size() - 1; B-- > 0;) {
    unsigned Start = std::max(Done[B + 1], Done[B]);
    betweenBlocks(R, Start, Blocks[B], Blocks[B + 1], Layout(B), Layout(B + 1),
                  /*Up=*/true, R.ranks(Blocks[B + 1].First, P));
    Done[B] = Start + Blocks[B].Size / Blocks[B + 1].Size;
  }
  return Done.front();
}

void choreo::binaryBlocksAllgather(RawSteps &R, unsigned First, uint32_t P,
                                   uint64_t N, uint64_t Elem) {
  std::vector<BinaryBlock> Blocks = binaryBlocks(P);
  uint32_t Largest = Blocks.front().Size;
  auto Layout = [&](size_t B) {
    return SegmentLayout::bitReversed(N, Elem, Blocks[B].Size, Largest);
  };
  unsigned Ready = First; // block B holds its own segments from here
  for (size_t B = 0; B < Blocks.size(); ++B) {
    SegmentLayout Big = Layout(B);
    if (B + 1 < Blocks.size()) {
      betweenBlocks(R, Ready, Blocks[B], Blocks[B + 1], Big, Layout(B + 1),
                    /*Up=*/false, R.everyone());
      Ready += Blocks[B].Size / Blocks[B + 1].Size;
    }
    doublingAllgather(R, Ready,
                      NewRanks::block(Blocks[B].First, Blocks[B].Size), Big,
                      bitOrder(Blocks[B].Size, true));
  }
}
