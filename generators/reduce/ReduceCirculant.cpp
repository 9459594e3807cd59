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
/// subtree in its block's tree, from every rank's receive schedule
/// (CirculantTrees below: O(p log p) arithmetic, no other rank's ops).
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"
#include "generators/SizeChecks.h"
#include "generators/bcast/Circulant.h"
#include "generators/blocks/Reduction.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

namespace {

/// The trees the reduce's blocks climb: the broadcast sends block B of
/// phase entry b (B + x = b mod q, x the rounds left out of the first
/// phase) to the ranks of baseblock b in B's phase and to every other rank
/// in the next (as entry b - q), so the blocks of one entry share a tree:
/// rank r's parent is r - s_k for the round k whose receive entry is b or
/// b - q. The last block is every rank's baseblock of the last phase (any
/// block past it is it): tree q, r's parent r - s_k for its entry >= 0.
/// Every rank's receive schedule is computed once (O(p log p)), kept as
/// the round of each tree's receipt (a byte each); a tree's parents,
/// children and subtree labels are O(p) each.
class CirculantTrees {
public:
  CirculantTrees(uint32_t P, uint32_t Root)
      : G(P), P(P), Root(Root), Round(size_t(G.Q + 1) * P), Parent(P, P),
        Kids(P) {
    llvm::SmallVector<int32_t, 32> Recv;
    const int32_t Q = G.Q;
    for (uint32_t X = 1; X < P; ++X) {
      circulantRecvSchedule(G, X, Recv);
      for (int32_t K = 0; K < Q; ++K) {
        int32_t E = Recv[K];
        Round[size_t(E < 0 ? E + Q : E) * P + X] = uint8_t(K);
        if (E >= 0)
          Round[size_t(Q) * P + X] = uint8_t(K);
      }
    }
  }
  uint32_t rounds() const { return G.Q; }

  /// Rank Me's subtree in tree T and its children's, as sets of actual
  /// ranks interned in R: Mine the subtree's id, Children (actual rank, id)
  /// in any order.
  void subtrees(uint32_t T, Rank Me, RawSteps &R, uint32_t &Mine,
                llvm::SmallVectorImpl<std::pair<Rank, uint32_t>> &Children) {
    // Children in CSR form by parent (relative ranks): First[x + 1] counts
    // x's children, then is where they end.
    const uint8_t *Rounds = &Round[size_t(T) * P];
    First.assign(P + 1, 0);
    for (uint32_t X = 1; X < P; ++X) {
      uint64_t S = G.Skip[Rounds[X]];
      Parent[X] = uint32_t(X >= S ? X - S : X + P - S);
      ++First[Parent[X] + 1];
    }
    for (uint32_t X = 0; X < P; ++X)
      First[X + 1] += First[X];
    for (uint32_t X = P; X-- > 1;)
      Kids[--First[Parent[X] + 1]] = X;
    // Now First[x] .. First[x + 1] are x's children but for the shift:
    // the decrements left First[x + 1] at x's first child.
    auto Begin = [&](uint32_t X) { return First[X + 1]; };
    auto End = [&](uint32_t X) { return X + 2 <= P ? First[X + 2] : P - 1; };
    // Label Me's subtree by actual rank: child i's subtree i + 1, Me Last.
    uint32_t M = (Me + P - Root) % P;
    uint32_t Last = End(M) - Begin(M) + 1;
    Label.assign(P, 0);
    Label[Me] = Last;
    for (uint32_t I = Begin(M); I < End(M); ++I) {
      Stack.push_back(Kids[I]);
      while (!Stack.empty()) {
        uint32_t X = Stack.back();
        Stack.pop_back();
        Label[X + Root < P ? X + Root : X + Root - P] = I - Begin(M) + 1;
        for (uint32_t J = Begin(X); J < End(X); ++J)
          Stack.push_back(Kids[J]);
      }
    }
    // Runs of actual ranks by label; Sets[0] their union.
    std::vector<RankSet> Sets(Last + 1);
    Rank Start = 0;
    for (Rank A = 1; A <= P; ++A)
      if (A == P || Label[A] != Label[Start]) {
        if (uint32_t L = Label[Start]) {
          Sets[L].insert(Start, A);
          Sets[0].insert(Start, A);
        }
        Start = A;
      }
    Mine = R.contrib(Sets[0]);
    Children.clear();
    for (uint32_t I = Begin(M); I < End(M); ++I)
      Children.push_back(
          {Rank((Kids[I] + Root) % P), R.contrib(Sets[I - Begin(M) + 1])});
  }

private:
  CirculantGraph G;
  uint32_t P, Root;
  /// The round in which rank r receives tree t's block, at t * p + r (the
  /// root's unused).
  std::vector<uint8_t> Round;
  /// One tree's parents, children (CSR) and labels, reused tree by tree.
  std::vector<uint32_t> Parent, First, Kids, Label, Stack;
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
    // A rank's part: a receive and a send per step, and O(p log p) bytes of
    // receive schedules.
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
      CirculantTrees Trees(In.P, In.Root);
      uint32_t Q = Trees.rounds();
      uint64_t NumBlocks = Cuts.size() - 1;
      uint64_t Skipped = (Q - (NumBlocks - 1) % Q) % Q;
      // Per tree, once asked for: Me's subtree and its children's.
      std::vector<std::optional<uint32_t>> Mine(Q + 1);
      std::vector<llvm::SmallVector<std::pair<Rank, uint32_t>, 4>> Children(Q +
                                                                            1);
      auto SetOf = [&](uint32_t Tree, Rank Of) {
        if (!Mine[Tree]) {
          uint32_t Id = 0;
          Trees.subtrees(Tree, Me, R, Id, Children[Tree]);
          Mine[Tree] = Id;
        }
        if (Of == Me)
          return *Mine[Tree];
        for (auto [C, Id] : Children[Tree])
          if (C == Of)
            return Id;
        return R.everyone(); // not a child: the whole would disagree
      };
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
                  SetOf(Tree, O.Dst));
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
