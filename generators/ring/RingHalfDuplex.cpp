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
/// 3), p + (q + 1)/2 for odd q > 1, p for q = 1. The loops below are the
/// listings' loops: i over a stage's steps, j over the ops of a sequence,
/// ranks affine in i and j (mod p + q where a sequence wraps through rank 0).
///
/// Each case is also a template (template/builtin/ring-*.choreo, declared
/// by templates() below) that `choreo prove half-allgather-ring` proves for
/// every p and q; TemplateEquivalenceTest compares this listing with them
/// op for op for every p, q <= 40. A change here must be made there too.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

/// One op of a ring listing: rank Src sends message m_Msg to rank Dst.
/// Ranks may be negative or past the end; they are taken mod p + q.
struct RingOp {
  int64_t Src, Dst, Msg;
};
using RingSteps = std::vector<std::vector<RingOp>>;

/// q even, p >= q: Algorithm 1 (p = q), generalised by Section IV.E.
/// g = q/2 lower messages; stages of g, p - g and g steps.
RingSteps sendersFirst(int64_t P, int64_t Q) {
  const int64_t N = P + Q, G = Q / 2;
  RingSteps S;
  for (int64_t I = 0; I < G; ++I) { // stage 1
    auto &Ops = S.emplace_back();
    for (int64_t J = G; J < P; ++J) // #1
      Ops.push_back({J + I, J + I + 1, J});
    for (int64_t J = 0; J < G; ++J) // #2
      Ops.push_back({J - I, J - I - 1, J});
    for (int64_t J = 0; J < I; ++J) // #3
      Ops.push_back({G - I + 2 * J, G - I + 2 * J + 1, G - I + J});
  }
  for (int64_t I = 0; I < P - G; ++I) { // stage 2
    auto &Ops = S.emplace_back();
    for (int64_t J = G; J < P; ++J) // #1
      if (G + J + I + 1 < N)
        Ops.push_back({G + J + I, G + J + I + 1, J});
    for (int64_t J = 0; J < G; ++J) // #3
      Ops.push_back({2 * J + I, 2 * J + I + 1, J});
  }
  for (int64_t I = 0; I < G; ++I) { // stage 3
    auto &Ops = S.emplace_back();
    for (int64_t J = G; J < P; ++J) // #1
      if (P + J + I + 1 < N)
        Ops.push_back({P + J + I, P + J + I + 1, J});
    for (int64_t J = 1; J <= I; ++J) // #2
      Ops.push_back({N - G - I + 2 * J - 1, N - G - I + 2 * J - 2, J - 1});
    for (int64_t J = 0; J < G; ++J) // #3
      Ops.push_back({P - G + I + 2 * J, P - G + I + 2 * J + 1, J});
  }
  return S;
}

/// q even, p < q: Algorithm 3, corrected. a = ceil(p/2) lower messages,
/// b = p - a upper ones, g = q/2; stages of a, g and b steps; Odd = a - b.
RingSteps receiversFirst(int64_t P, int64_t Q) {
  const int64_t N = P + Q, A = (P + 1) / 2, B = P - A, G = Q / 2;
  const int64_t Odd = A - B;
  RingSteps S;
  for (int64_t I = 0; I < A; ++I) { // stage 1
    auto &Ops = S.emplace_back();
    for (int64_t J = A; J < P; ++J) // #1
      Ops.push_back({J + I, J + I + 1, J});
    for (int64_t J = 0; J < A; ++J) // #2
      Ops.push_back({J - I, J - I - 1, J});
    for (int64_t J = 0; J < I; ++J) // #3: m_c spreads from c to 2c
      Ops.push_back({A - I + 2 * J, A - I + 2 * J + 1, A - I + J});
    for (int64_t J = A; J < std::min(P, A + I); ++J) // #4: to 2(c - a) + 1
      Ops.push_back({2 * J - A + 1 - I, 2 * J - A - I, J});
  }
  for (int64_t I = 0; I < G; ++I) { // stage 2
    auto &Ops = S.emplace_back();
    for (int64_t J = A; J < P; ++J) // #1
      if (A + J + I + 1 < N)
        Ops.push_back({A + J + I, A + J + I + 1, J});
    for (int64_t J = 0; J < A; ++J) // #2: until the block parks
      if (I < G - A)
        Ops.push_back({N - A + J - I, N - A + J - I - 1, J});
    for (int64_t J = 0; J < A; ++J) // #3
      Ops.push_back({2 * J + I, 2 * J + I + 1, J});
    // #4 (corrected): m_j travels on only if #1 cannot bring it to the last
    // receivers in time (j <= g - 2), and only until it reaches rank
    // j + p + g + 1, the first one #1 does not reach.
    for (int64_t J = A; J < std::min(P, G - 1); ++J)
      if (I < J - 2 * A + G)
        Ops.push_back({2 * J - 2 * A + 1 - I, 2 * J - 2 * A - I, J});
  }
  for (int64_t I = 0; I < B; ++I) { // stage 3
    auto &Ops = S.emplace_back();
    for (int64_t J = A; J < P; ++J) // #1
      if (A + G + J + I + 1 < N)
        Ops.push_back({A + G + J + I, A + G + J + I + 1, J});
    for (int64_t J = 1 - Odd; J <= I; ++J) // #2: the parked block unpacks
      Ops.push_back({P + G + 2 * J - 1 + Odd - I, P + G + 2 * J - 2 + Odd - I,
                     J - 1 + Odd});
    for (int64_t J = 0; J < A; ++J) // #3
      Ops.push_back({2 * J + G + I, 2 * J + G + I + 1, J});
  }
  return S;
}

/// q = 1: every message moves right to the one receiver, a pipeline.
RingSteps singleReceiver(int64_t P) {
  RingSteps S(P);
  for (int64_t I = 0; I < P; ++I)
    for (int64_t J = 0; J + I < P; ++J)
      S[I].push_back({J + I, J + I + 1, J});
  return S;
}

class RingHalfDuplex final : public Generator {
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

  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    auto Start = startHalfAllgather(V, id(), allRanksSquared);
    if (!Start)
      return Start.takeError();
    auto &[S, Sizes] = *Start;
    const int64_t P = Sizes.A.size(), Q = Sizes.B.size();
    S.Topo = Topology::ring();
    S.Steps = toSteps(listing(P, Q), P, Q, prefixSums(Sizes.A));
    S.Steps.dropEmptySteps();
    return std::move(S);
  }

  /// The ops by step, on the real ranks 0..p+q-1.
  static RingSteps listing(int64_t P, int64_t Q) {
    if (Q == 1)
      return singleReceiver(P);
    if (Q % 2 == 0)
      return P >= Q ? sendersFirst(P, Q) : receiversFirst(P, Q);
    // Odd q: q + 1 receivers, the last one a dummy played by its left
    // neighbour (rank p + q - 1), which then already holds what the dummy
    // would receive from it.
    const int64_t NV = P + Q + 1;
    RingSteps V = Q + 1 <= P ? sendersFirst(P, Q + 1)
                             : receiversFirst(P, Q + 1);
    for (auto &Ops : V) {
      std::vector<RingOp> Kept;
      for (RingOp O : Ops) {
        int64_t Src = floorMod(O.Src, NV), Dst = floorMod(O.Dst, NV);
        Src = Src == NV - 1 ? NV - 2 : Src;
        Dst = Dst == NV - 1 ? NV - 2 : Dst;
        if (Src != Dst)
          Kept.push_back({Src, Dst, O.Msg});
      }
      Ops = std::move(Kept);
    }
    return V;
  }

private:
  const std::vector<OptionDecl> Options = {
      opt::groupA(), opt::groupB(), opt::bytesA(), opt::countsA(),
      opt::ringTopology("half-allgather-ring")};

  static StepList toSteps(const RingSteps &R, int64_t P, int64_t Q,
                          const std::vector<uint64_t> &Off) {
    const int64_t N = P + Q;
    StepList L;
    for (const auto &Ops : R) {
      L.newStep();
      for (const RingOp &O : Ops) {
        llvm::SmallVector<Block, 1> Msg;
        addPiece(Msg, 0, Off[O.Msg], Off[O.Msg + 1]);
        addOpIfAny(L, floorMod(O.Src, N), floorMod(O.Dst, N), Msg);
      }
    }
    return L;
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeHalfAllgatherRing() {
  return std::make_unique<RingHalfDuplex>();
}
