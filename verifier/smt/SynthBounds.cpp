//===- verifier/smt/SynthBounds.cpp - Steps that always suffice -----------===//
///
/// \file
/// What synthesis knows of an instance before it asks Z3 anything, above
/// the counting lower bounds (Synth.cpp): a schedule of one op per step
/// that always exists, built without Z3, whose steps are an upper bound on
/// the optimum, and the size of the encoding of T steps. A question about
/// as many steps as the bound or more is answered by that schedule, and
/// one whose encoding would not fit in memory is refused before a variable
/// is made (Synth.h).
///
/// The schedule, one op per step (every port, duplex and node-port rule
/// admits one op):
///
/// - gather-type and bcast: each unit goes from its origins along shortest
///   paths to every rank that needs it (a BFS from the origins), each rank
///   on those paths receiving it once, nearest first;
/// - reductions: each unit's partials are combined along a BFS tree into
///   the first rank that needs it (p - 1 ops, children before parents, so
///   the contributor sets are disjoint), then the finished partial
///   replaces the partial of every other rank that needs it, along
///   shortest paths.
///
//===----------------------------------------------------------------------===//

#include "verifier/smt/SynthEncoding.h"

#include "llvm/Support/FormatVariadic.h"

#include <deque>

using namespace choreo;
using namespace choreo::synth;
using llvm::formatv;

namespace {

/// A breadth-first search from a set of ranks: forward along the links
/// (who the sources reach), or backward (who reaches the sources).
struct Bfs {
  /// Parent[r]: the rank r is reached from (forward: it sends to r;
  /// backward: r sends to it); Unreachable for sources and unreached ranks.
  std::vector<unsigned> Parent;
  /// The ranks reached, sources first, nearest first.
  std::vector<Rank> Order;

  Bfs(const Instance &I, const std::vector<bool> &Sources, bool Forward)
      : Parent(I.N, Unreachable) {
    std::vector<bool> Seen = Sources;
    for (Rank R = 0; R < I.N; ++R)
      if (Sources[R])
        Order.push_back(R);
    for (size_t K = 0; K < Order.size(); ++K) {
      Rank A = Order[K];
      for (unsigned L : Forward ? I.Out[A] : I.In[A]) {
        Rank B = Forward ? I.Links[L].second : I.Links[L].first;
        if (!Seen[B]) {
          Seen[B] = true;
          Parent[B] = A;
          Order.push_back(B);
        }
      }
    }
  }

  /// The ranks outside the sources on the paths to Targets, nearest first.
  std::vector<Rank> pathsTo(const std::vector<bool> &Targets) const {
    std::vector<bool> On(Parent.size(), false);
    for (Rank R = 0; R < Parent.size(); ++R)
      for (Rank X = R; Targets[R] && Parent[X] != Unreachable && !On[X];
           X = Parent[X])
        On[X] = true;
    std::vector<Rank> Out;
    for (Rank X : Order)
      if (On[X])
        Out.push_back(X);
    return Out;
  }
};

/// One op of the schedule: unit U from Src to Dst, combined (with the
/// sender's contributor set) or replacing.
struct SeqOp {
  Rank Src, Dst;
  unsigned U;
  bool Reduce = false;
  RankSet Contrib;
};

/// A gather-type unit: from its origins along shortest paths.
void handOn(const Instance &I, unsigned U, const std::vector<bool> &Needs,
            std::vector<SeqOp> &Ops) {
  Bfs F(I, I.Initially[U], /*Forward=*/true);
  for (Rank X : F.pathsTo(Needs))
    Ops.push_back({Rank(F.Parent[X]), X, U});
}

/// A reduction's unit: combined into the first rank that needs it, the
/// result handed on to the others.
void combineAndHandOn(const Instance &I, unsigned U,
                      const std::vector<bool> &Needs, std::vector<SeqOp> &Ops) {
  std::vector<bool> Root(I.N, false);
  for (Rank R = 0; R < I.N; ++R)
    if (Needs[R]) {
      Root[R] = true;
      break;
    }
  Bfs In(I, Root, /*Forward=*/false);
  std::vector<RankSet> Sub(I.N);
  for (Rank R = 0; R < I.N; ++R)
    Sub[R].insert(R, uint64_t(R) + 1);
  for (size_t K = In.Order.size(); K-- > 1;) {
    Rank X = In.Order[K], P = In.Parent[X];
    Ops.push_back({X, P, U, true, Sub[X]});
    Sub[P].insert(Sub[X]);
  }
  Bfs Out(I, Root, /*Forward=*/true);
  for (Rank X : Out.pathsTo(Needs))
    Ops.push_back({Rank(Out.Parent[X]), X, U, false, RankSet(0, I.N)});
}

std::vector<SeqOp> sequentialOps(const Instance &I) {
  std::vector<SeqOp> Ops;
  for (unsigned U = 0; U < I.Units.size(); ++U) {
    std::vector<bool> Needs(I.Needs[U].begin(), I.Needs[U].end());
    if (llvm::none_of(Needs, [](bool B) { return B; }))
      continue;
    if (I.Reduction)
      combineAndHandOn(I, U, Needs, Ops);
    else
      handOn(I, U, Needs, Ops);
  }
  return Ops;
}

} // namespace

std::pair<unsigned, std::string> synth::upperBound(const Instance &I) {
  size_t Ops = sequentialOps(I).size();
  if (Ops == 0)
    return {0, "nothing to move"};
  const char *How = I.Reduction
                        ? "every unit's partials combined along a tree, the "
                          "result handed on along shortest paths"
                        : "every unit handed along shortest paths to the "
                          "ranks that need it";
  return {unsigned(std::min<size_t>(Ops, ~0u)),
          formatv("one op per step: {0}", How).str()};
}

StepList synth::upperBoundSchedule(const Instance &I) {
  StepList L;
  for (const SeqOp &O : sequentialOps(I)) {
    Block B;
    B.Buf = I.Units[O.U].Buf;
    B.Lo = I.Units[O.U].Lo;
    B.Hi = B.Lo + 1;
    if (I.Reduction) {
      B.Reduce = O.Reduce;
      B.Contrib = L.addContrib(O.Contrib);
    }
    L.newStep();
    L.addOp(O.Src, O.Dst, {B});
  }
  return L;
}

uint64_t synth::variablesPerStep(const Instance &I) {
  const uint64_t N = I.N, U = I.Units.size(), L = I.Links.size();
  if (I.Reduction)
    // Two op variables per link and unit, a contributor bit per rank, unit
    // and contributor.
    return 2 * L * U + N * U * N;
  // An op variable per link and unit whose receiver lacks the unit at the
  // start, a holding variable per rank and unit it may receive.
  uint64_t Vars = 0;
  for (unsigned X = 0; X < U; ++X) {
    for (auto [A, B] : I.Links)
      Vars += !I.Initially[X][B];
    for (Rank R = 0; R < N; ++R)
      Vars += !I.Initially[X][R] && !I.In[R].empty();
  }
  return Vars;
}
