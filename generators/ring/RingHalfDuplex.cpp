//===- generators/ring/RingHalfDuplex.cpp - Half-duplex allgather, ring ---===//
///
/// \file
/// `half-allgather-ring`: the half-duplex intergroup allgather of seed 001,
/// Section IV, on the ring 0..p+q-1 (senders a_i = i, receivers b_j = p+j),
/// bidirectional single-port: per step every rank sends at most one message
/// and receives at most one, to and from its ring neighbours only.
///
/// Four message sequences (Definition IV.1): #1 moves the upper messages
/// m_a..m_{p-1} rightwards as a block, #2 the lower messages m_0..m_{a-1}
/// leftwards (through rank 0 into the last receivers), #3 spreads the lower
/// messages to even ranks and moves them rightwards two apart, #4 spreads the
/// upper messages to odd ranks and moves them leftwards two apart. Messages
/// moving in opposite directions two apart never meet on one rank (their
/// ranks differ in parity); a dense block only passes over parked messages.
///
/// - q even, p >= q: Algorithm 1 for p = q, generalised as Section IV.E
///   describes (stages of q/2, p - q/2 and q/2 steps; a = q/2 lower
///   messages); valid for odd p as well.
/// - q even, p < q: Algorithm 3 with #4 of the second stage corrected
///   (docs/errata.md), a = ceil(p/2) lower messages, so odd p works too.
/// - q odd: the schedule for q + 1 receivers with the last (dummy) receiver's
///   role played by its left neighbour, the last real receiver; q = 1 is a
///   single pipeline.
///
/// Steps: p + q/2 for even q (7 for (4, 6), 8 for (6, 4), as Figures 2 and
/// 3), p + (q + 1)/2 for odd q > 1, p for q = 1. The listings below are
/// the paper's loops as runs: per step i of a stage, one run per sequence,
/// j over an interval, sender, receiver and message affine in j (ranks mod
/// p + q where a sequence wraps through rank 0). The whole expands every
/// run; a rank's part (the rank form) solves each run for the at most two j
/// whose sender or receiver is the rank, and keeps a step when some run
/// carries a non-empty message: O(p + q) arithmetic and the rank's ops.
///
/// Each case is also a template (template/builtin/ring-*.choreo, declared
/// by templates() below) that `choreo prove half-allgather-ring` proves for
/// every p and q; TemplateEquivalenceTest compares this listing with them
/// op for op for every p, q <= 40. A change here must be made there too.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"
#include "generators/blocks/Blocks.h"

#include "llvm/ADT/STLExtras.h"

using namespace choreo;

namespace {

/// One sequence of a listing step: for J in [Lo, Hi), rank SrcC + K J sends
/// message m_{MsgC + J} to its neighbour Src + D (D = +1 or -1). Ranks may
/// be negative or past the end; they are taken mod the ring's size.
struct RingRun {
  int64_t Lo, Hi, SrcC, K, D, MsgC;
  int64_t src(int64_t J) const { return SrcC + K * J; }
};
using RunSteps = std::vector<std::vector<RingRun>>;

/// A run, empty when Hi <= Lo.
RingRun run(int64_t Lo, int64_t Hi, int64_t SrcC, int64_t K, int64_t D,
            int64_t MsgC = 0) {
  return {Lo, std::max(Lo, Hi), SrcC, K, D, MsgC};
}

/// q even, p >= q: Algorithm 1 (p = q), generalised by Section IV.E.
/// g = q/2 lower messages; stages of g, p - g and g steps.
RunSteps sendersFirst(int64_t P, int64_t Q) {
  const int64_t N = P + Q, G = Q / 2;
  RunSteps S;
  for (int64_t I = 0; I < G; ++I) // stage 1: #1, #2, #3
    S.push_back({run(G, P, I, 1, 1), run(0, G, -I, 1, -1),
                 run(0, I, G - I, 2, 1, G - I)});
  for (int64_t I = 0; I < P - G; ++I) // stage 2: #1 (until rank n - 1), #3
    S.push_back(
        {run(G, std::min(P, N - G - I - 1), G + I, 1, 1), run(0, G, I, 2, 1)});
  for (int64_t I = 0; I < G; ++I) // stage 3: #1, #2, #3
    S.push_back({run(G, std::min(P, N - P - I - 1), P + I, 1, 1),
                 run(0, I, N - G - I + 1, 2, -1), run(0, G, P - G + I, 2, 1)});
  return S;
}

/// q even, p < q: Algorithm 3, corrected. a = ceil(p/2) lower messages,
/// b = p - a upper ones, g = q/2; stages of a, g and b steps; Odd = a - b.
RunSteps receiversFirst(int64_t P, int64_t Q) {
  const int64_t N = P + Q, A = (P + 1) / 2, B = P - A, G = Q / 2;
  const int64_t Odd = A - B;
  RunSteps S;
  for (int64_t I = 0; I < A; ++I)               // stage 1
    S.push_back({run(A, P, I, 1, 1),            // #1
                 run(0, A, -I, 1, -1),          // #2
                 run(0, I, A - I, 2, 1, A - I), // #3: m_c spreads to 2c
                 run(A, std::min(P, A + I), 1 - A - I, 2, -1)}); // #4
  for (int64_t I = 0; I < G; ++I)                                // stage 2
    S.push_back({run(A, std::min(P, N - A - I - 1), A + I, 1,
                     1), // #1
                         // #2: until the block parks
                 run(0, I < G - A ? A : 0, N - A - I, 1, -1),
                 run(0, A, I, 2, 1), // #3
                 // #4 (corrected): m_j travels on only if #1 cannot bring
                 // it to the last receivers in time (j <= g - 2), and only
                 // until it reaches rank j + p + g + 1, the first one #1
                 // does not reach.
                 run(std::max(A, I + 2 * A - G + 1), std::min(P, G - 1),
                     1 - 2 * A - I, 2, -1)});
  for (int64_t I = 0; I < B; ++I) // stage 3
    S.push_back({run(A, std::min(P, N - A - G - I - 1), A + G + I, 1, 1),
                 // #2: the parked block unpacks
                 run(0, I + Odd, P + G + 1 - Odd - I, 2, -1),
                 run(0, A, G + I, 2, 1)}); // #3
  return S;
}

/// q = 1: every message moves right to the one receiver, a pipeline.
RunSteps singleReceiver(int64_t P) {
  RunSteps S;
  for (int64_t I = 0; I < P; ++I)
    S.push_back({run(0, P - I, I, 1, 1)});
  return S;
}

/// The listing of (P, Q) as runs on a ring of M ranks; with Dummy (odd
/// q > 1) the ring has q + 1 receivers, the last (rank M - 1) a dummy
/// played by its left neighbour, and an op between the two is dropped.
struct Listing {
  RunSteps Steps;
  int64_t M = 0;
  bool Dummy = false;

  Listing(int64_t P, int64_t Q) {
    M = P + Q;
    if (Q == 1) {
      Steps = singleReceiver(P);
    } else if (Q % 2 == 0) {
      Steps = P >= Q ? sendersFirst(P, Q) : receiversFirst(P, Q);
    } else {
      M = P + Q + 1;
      Dummy = true;
      Steps = Q + 1 <= P ? sendersFirst(P, Q + 1) : receiversFirst(P, Q + 1);
    }
  }
  /// A listing rank as a real one.
  int64_t real(int64_t R) const {
    R = floorMod(R, M);
    return Dummy && R == M - 1 ? M - 2 : R;
  }
  /// Whether the op of U at J is kept (not between the dummy and the rank
  /// that plays it).
  bool kept(const RingRun &U, int64_t J) const {
    return real(U.src(J)) != real(U.src(J) + U.D);
  }
};

/// The J in [U.Lo, U.Hi) whose sender is V mod M, appended to Out (at most
/// one or two: a run covers fewer ranks than the ring has, twice over for
/// K = 2).
void solveSender(const RingRun &U, int64_t V, int64_t M,
                 std::vector<int64_t> &Out) {
  if (U.Lo >= U.Hi)
    return;
  const int64_t XLo = U.src(U.Lo), XHi = U.src(U.Hi - 1);
  for (int64_t X = XLo + floorMod(V - XLo, M); X <= XHi; X += M)
    if (floorMod(X - U.SrcC, U.K) == 0)
      Out.push_back((X - U.SrcC) / U.K);
}

class RingHalfDuplex final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "half-allgather-ring"; }
  llvm::StringRef summary() const override {
    return "Kang et al. half-duplex allgather on a ring (Algorithms 1 and 3, "
           "corrected): p + q/2 steps, ring links only, any p and q";
  }
  CollectiveSet collectives() const override {
    return {Collective::HalfAllgather};
  }
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"ring-equal", ""},
        {"ring-senders-first", ""},
        {"ring-receivers-first", ""},
        {"ring-single-receiver", ""},
        {"ring-senders-first-odd", ""},
        {"ring-receivers-first-odd", ""},
    };
    return Ts;
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  /// The whole expands every run; with Only, rank Only's ops come from
  /// solving each run for the J that send or receive at Only (O(1) per run,
  /// at most four runs per step), and a step is kept when some run carries
  /// a non-empty message (a prefix count of the non-empty messages, less
  /// the dropped ops of the dummy): O(p + q) in all.
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto Start = startHalfAllgather(V, id(), [&](const IntergroupSizes &Z) {
      return Only ? 4 * uint64_t(Z.A.size() + Z.B.size()) : allRanksSquared(Z);
    });
    if (!Start)
      return Start.takeError();
    auto &[S, Sizes] = *Start;
    const int64_t P = Sizes.A.size(), Q = Sizes.B.size();
    S.Topo = Topology::ring();
    if (Only && *Only >= S.NumRanks)
      return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                  " is not in the groups' " +
                                  llvm::Twine(S.NumRanks));
    const std::vector<uint64_t> Off = prefixSums(Sizes.A);
    const Listing L(P, Q);
    auto Add = [&](StepList &Out, const RingRun &U, int64_t J) {
      const int64_t Src = U.src(J), Msg = U.MsgC + J;
      llvm::SmallVector<Block, 1> Pieces;
      addPiece(Pieces, 0, Off[Msg], Off[Msg + 1]);
      addOpIfAny(Out, L.real(Src), L.real(Src + U.D), Pieces);
    };
    if (!Only) {
      for (const auto &Runs : L.Steps) {
        S.Steps.newStep();
        for (const RingRun &U : Runs)
          for (int64_t J = U.Lo; J < U.Hi; ++J)
            if (L.kept(U, J))
              Add(S.Steps, U, J);
      }
      S.Steps.dropEmptySteps();
      return std::move(S);
    }
    // NonEmpty[k]: the non-empty messages among m_0 .. m_{k-1}.
    std::vector<int64_t> NonEmpty(P + 1, 0);
    for (int64_t J = 0; J < P; ++J)
      NonEmpty[J + 1] = NonEmpty[J] + (Off[J + 1] > Off[J]);
    // The listing ranks that are Only: itself, and the dummy it plays.
    llvm::SmallVector<int64_t, 2> Mine = {int64_t(*Only)};
    if (L.Dummy && int64_t(*Only) == L.M - 2)
      Mine.push_back(L.M - 1);
    RankPart Part;
    std::vector<int64_t> Js;
    for (const auto &Runs : L.Steps) {
      Part.Steps.newStep();
      bool Used = false;
      for (const RingRun &U : Runs) {
        if (U.Lo >= U.Hi)
          continue;
        int64_t Carrying = NonEmpty[U.MsgC + U.Hi] - NonEmpty[U.MsgC + U.Lo];
        if (L.Dummy && Carrying > 0) { // less the dummy's dropped ops
          Js.clear();
          solveSender(U, U.D > 0 ? L.M - 2 : L.M - 1, L.M, Js);
          for (int64_t J : Js)
            Carrying -= Off[U.MsgC + J + 1] > Off[U.MsgC + J];
        }
        Used |= Carrying > 0;
        Js.clear();
        for (int64_t R : Mine) {
          solveSender(U, R, L.M, Js);
          solveSender(U, R - U.D, L.M, Js);
        }
        llvm::sort(Js);
        Js.erase(std::unique(Js.begin(), Js.end()), Js.end());
        for (int64_t J : Js)
          if (L.kept(U, J))
            Add(Part.Steps, U, J);
      }
      Part.Used.push_back(Used);
    }
    S.Steps = std::move(Part).kept();
    return std::move(S);
  }

  const std::vector<OptionDecl> Options = {
      opt::groupA(), opt::groupB(), opt::bytesA(), opt::countsA(),
      opt::ringTopology("half-allgather-ring")};
};

} // namespace

std::unique_ptr<Generator> choreo::makeHalfAllgatherRing() {
  return std::make_unique<RingHalfDuplex>();
}
