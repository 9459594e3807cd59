//===- generators/reduce/ReduceCirculant.cpp - Circulant-graph reduce -----===//
///
/// \file
/// `reduce-circulant`: Träff's circulant-graph broadcast (bcast/Circulant.h)
/// run backwards as a reduce (the paper's application to reduction; MPICH
/// main's circ_graph reduce): the vector cut into n blocks on element
/// boundaries, step j the broadcast's step T - 1 - j with every op turned
/// around and combining at its receiver, so each block climbs the spanning
/// tree the broadcast sends it down: n - 1 + ceil(log2 p) steps.
/// Commutative operators only. A rank's part (the rank form) is its
/// broadcast part turned around, each op's contributor set the sender's
/// subtree in its block's tree, named as such (CirculantSubtrees below:
/// O(log p) receive schedules, no table of every rank).
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"
#include "generators/SizeChecks.h"
#include "generators/bcast/Circulant.h"
#include "generators/blocks/Reduction.h"
#include "ir/Digest.h"
#include "ir/SubtreeFamily.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

namespace {

/// The trees the reduce's blocks climb, as a family of subtrees that name
/// the contributor sets of a rank's part (ir/SubtreeFamily.h): the
/// broadcast sends block B of phase entry b (B + x = b mod q, x the rounds
/// left out of the first phase) to the ranks of baseblock b in B's phase
/// and to every other rank in the next (as entry b - q), so the blocks of
/// one entry share a tree: rank r's parent is r - s_k for the round k
/// whose receive entry is b or b - q. The last block is every rank's
/// baseblock of the last phase (any block past it is it): tree q, r's
/// parent r - s_k for its entry >= 0. Its time in tree b is 1 + k for a
/// receipt in B's phase, 1 + q + k in the next (tree q: 1 + k), the
/// root's 0: the broadcast sends only what the sender has, so a parent's
/// time is smaller (which the verifier checks, rank by rank). A rank's
/// children are among r + s_k: those whose round in the tree is k. Each
/// answer is one receive schedule (O(log p)) per rank looked at: no table
/// of every rank.
class CirculantSubtrees final : public SubtreeFamily {
public:
  CirculantSubtrees(uint32_t P, uint32_t Root) : G(P), P(P), Root(Root) {}
  uint32_t numRanks() const override { return P; }
  uint32_t numTrees() const override { return G.Q + 1; }
  uint64_t digest() const override {
    Hasher H;
    H.mix("reduce-circulant trees");
    H.mix(P);
    H.mix(Root);
    return H.digest().H1 ^ H.digest().H2;
  }
  std::string describe() const override {
    return formatv("reduce-circulant's trees (p = {0}, root {1})", P, Root);
  }
  Rank root(uint32_t) const override { return Root; }
  std::optional<Rank> parent(uint32_t T, Rank X) const override {
    uint32_t R = rel(X);
    if (R == 0 || T > G.Q)
      return std::nullopt;
    int32_t K = roundOf(T, R);
    if (K < 0)
      return std::nullopt;
    uint64_t S = G.Skip[K];
    return actual(uint32_t(R >= S ? R - S : R + P - S));
  }
  uint32_t time(uint32_t T, Rank X) const override {
    uint32_t R = rel(X);
    if (R == 0 || T > G.Q)
      return 0;
    int32_t K = roundOf(T, R);
    if (K < 0)
      return ~0u;
    return 1 + uint32_t(K) + (T < G.Q && Recv[K] < 0 ? G.Q : 0);
  }
  void children(uint32_t T, Rank X,
                llvm::SmallVectorImpl<Rank> &Out) const override {
    uint32_t R = rel(X);
    for (uint32_t K = 0; K < G.Q; ++K) {
      uint64_t C = (uint64_t(R) + G.Skip[K]) % P;
      if (C != 0 && roundOf(T, uint32_t(C)) == int32_t(K))
        Out.push_back(actual(uint32_t(C)));
    }
  }

private:
  uint32_t rel(Rank X) const { return (X + P - Root) % P; }
  Rank actual(uint32_t R) const { return Rank((uint64_t(R) + Root) % P); }
  /// The round in which relative rank R (not 0) receives tree T's block,
  /// -1 if none; Recv holds R's receive schedule after.
  int32_t roundOf(uint32_t T, uint32_t R) const {
    if (R != Last) {
      Recv.clear();
      if (!circulantRecvSchedule(G, R, Recv))
        Recv.assign(G.Q, NoBlock);
      Last = R;
    }
    const int32_t Q = int32_t(G.Q);
    for (int32_t K = 0; K < Q; ++K) {
      int32_t E = Recv[K];
      if (E == NoBlock)
        continue;
      if (T == G.Q ? E >= 0 : (E == int32_t(T) || E + Q == int32_t(T)))
        return K;
    }
    return -1;
  }

  CirculantGraph G;
  uint32_t P, Root;
  /// The last receive schedule computed (most questions come in runs about
  /// one rank).
  mutable llvm::SmallVector<int32_t, 32> Recv;
  mutable uint32_t Last = 0;
};

class ReduceCirculant final : public PartGenerator {
public:
  ReduceCirculant()
      : Segments(countOption("segments",
                             "reduce-circulant: cut the vector into X "
                             "near-equal runs of whole elements (default: "
                             "runs of about 8K)")) {
    Options = {opt::ranks(),
               opt::vectorBytes(),
               opt::elementBytes(),
               opt::commutativeOp(
                   "a rank combines its children's partial results in the "
                   "order of the circulant graph's rounds, and a block's "
                   "subtrees are not consecutive ranges of ranks, so the "
                   "operands do not come in rank order; use a "
                   "halving-doubling, binary-tree or binary-blocks "
                   "algorithm"),
               opt::root(),
               Segments};
  }
  llvm::StringRef id() const override { return "reduce-circulant"; }
  llvm::StringRef summary() const override {
    return "Traff's circulant-graph broadcast backwards, the vector in n "
           "blocks (--segments): n - 1 + ceil(log2 p) steps, commutative "
           "operators";
  }
  CollectiveSet collectives() const override { return {Collective::Reduce}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

protected:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto In = readReductionInput(V, Collective::Reduce);
    if (!In)
      return In.takeError();
    uint64_t Elems = In->Elem ? In->N / In->Elem : 0;
    uint64_t X = std::max<uint64_t>(1, ceilDiv(In->N, 8192));
    if (auto Given = V.lookup(Segments)) {
      X = *Given;
      if (X == 0)
        return optionError("segments", "at least one segment");
      if (X > std::max<uint64_t>(Elems, 1))
        return optionError(
            "segments",
            formatv("{0} segments of {1} elements of {2} bytes: at most {1} "
                    "(one element each)",
                    X, Elems, In->Elem));
    }
    X = std::min<uint64_t>(X, std::max<uint64_t>(Elems, 1));
    if (Only && *Only >= In->P)
      return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                  " is not below --p " + llvm::Twine(In->P));
    uint64_t Steps = satAdd(X, 32);
    // A rank's part: a receive and a send per step (its sets named by
    // subtree; the p term kept from when it listed them).
    uint64_t Ops = Only ? satAdd(2 * Steps, In->P) : satMul(In->P, Steps);
    if (auto E = checkOpBudget(id(), Ops))
      return E;
    std::vector<uint64_t> Cuts = elementCuts(In->N, In->Elem, X);
    if (Only)
      return buildRank(*In, Cuts, *Only);
    StepList Down = circulantBcast(In->P, Cuts, In->Root);
    RawSteps R(In->P);
    unsigned T = Down.numSteps();
    for (unsigned J = 0; J < T; ++J)
      for (const Op &O : Down.step(T - 1 - J))
        for (const Block &B : Down.blocks(O))
          R.add(J, O.Dst, O.Src, B.Lo, B.Hi, /*Reduce=*/true, R.everyone());
    return reductionSchedule(Collective::Reduce, *In, R, /*Replay=*/true);
  }

private:
  /// Rank Me's ops: its broadcast part turned around (step j the
  /// broadcast's T - 1 - j, every step kept: the root takes part in every
  /// one), each op carrying its sender's subtree in its block's tree.
  Schedule buildRank(const ReductionInput &In, llvm::ArrayRef<uint64_t> Cuts,
                     Rank Me) const {
    RawSteps R(In.P, Me);
    RankPart Down = circulantBcastRank(In.P, Cuts, In.Root, Me);
    unsigned T = Down.Steps.numSteps();
    if (T) {
      auto Trees = std::make_shared<CirculantSubtrees>(In.P, In.Root);
      R.setFamily(Trees);
      uint32_t Q = Trees->numTrees() - 1;
      uint64_t NumBlocks = Cuts.size() - 1;
      uint64_t Skipped = (Q - (NumBlocks - 1) % Q) % Q;
      // Each op carries its sender's subtree in its block's tree, by name.
      R.reserve(2 * size_t(T));
      for (unsigned J = 0; J < T; ++J) {
        R.keep(J);
        for (const Op &O : Down.Steps.step(T - 1 - J))
          for (const Block &B : Down.Steps.blocks(O)) {
            uint64_t Bl = std::upper_bound(Cuts.begin(), Cuts.end(), B.Lo) -
                          Cuts.begin() - 1;
            uint32_t Tree =
                Bl + 1 == NumBlocks ? Q : uint32_t((Bl + Skipped) % Q);
            R.add(J, O.Dst, O.Src, B.Lo, B.Hi, /*Reduce=*/true,
                  R.subtree(Tree, O.Dst));
          }
      }
    }
    return reductionSchedule(Collective::Reduce, In, R);
  }

  Option<uint64_t> Segments;
  std::vector<OptionDecl> Options;
};

} // namespace

std::unique_ptr<Generator> choreo::makeReduceCirculant() {
  return std::make_unique<ReduceCirculant>();
}
