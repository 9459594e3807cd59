//===- generators/ring/RingHalfDuplexOpt.cpp - Ring half-allgather, optimal ===//
///
/// \file
/// `half-allgather-ring-opt`: the half-duplex intergroup allgather on the
/// ring 0..p+q-1 (senders a_j = j, receivers b_k = p + k), bidirectional
/// single-port, in T = p + ceil(q/2) - 1 steps: the lower bound of seed 001
/// rounded up, one step fewer than its Algorithms 1 and 3
/// (`half-allgather-ring`); for p = 1 and even q, q/2 + 1 steps, which
/// `choreo synth` proves optimal (docs/ring-opt.md).
///
/// With g = ceil(q/2), message m_j is cut at receiver c_j = 2j + g - p: it
/// reaches b_0..b_{c_j} going right (R_j, to rank 2j + g) and the other
/// receivers going left through rank 0 (L_j, to rank 2j + g + 1), and both
/// copies arrive in the last step. Steps count from 1:
///
/// - inside A, R hops at odd steps (R_j from rank r at step 2(r - j) + 1)
///   and L at even steps (L_j from rank r at step 2(j - r + 1)), so a rank
///   never sends or receives two messages in one step;
/// - R_j leaves A (a_{p-1} -> b_0) at step 2p - 1 - 2j, L_j (a_0 -> b_{q-1})
///   at step 2j + 1 + (q mod 2), and then both move one hop per step: in B
///   the R copies are two ranks apart, the L copies too, and the parity of
///   q keeps an R copy and an L copy from meeting at one rank;
/// - for even q >= 2p, R_0's first hop would leave a_0 at step 1 beside
///   L_0: at every even rank r the R hop of m_{r-1} (of m_0 at rank 0) moves
///   to step 2 and, at even r >= 2, the L hop of m_r from step 2 to step 3.
///
/// The three cases are the templates ring-opt, ring-opt-wide and
/// ring-opt-one-sender (template/builtin/), which `choreo prove
/// half-allgather-ring-opt` proves for every p and q; TemplateEquivalenceTest
/// compares this listing with them op for op. A change here must be made
/// there too.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

/// One op: rank Src sends message m_Msg to rank Dst in step Step (from 1).
/// Ranks may be negative; they are taken mod p + q.
struct TimedOp {
  int64_t Step, Src, Dst, Msg;
};

std::vector<TimedOp> listing(int64_t P, int64_t Q) {
  std::vector<TimedOp> Ops;
  const int64_t N = P + Q;
  if (P == 1 && Q % 2 == 0) { // q/2 + 1 steps: right first, then left
    const int64_t G = Q / 2;
    for (int64_t T = 1; T <= G; ++T)
      Ops.push_back({T, T - 1, T, 0});
    for (int64_t T = 2; T <= G + 1; ++T)
      Ops.push_back({T, 2 - T, 1 - T, 0});
    return Ops;
  }
  const int64_t G = (Q + 1) / 2, Last = P + G - 1, Sh = Q % 2;
  const bool Wide = Q % 2 == 0 && Q >= 2 * P;
  for (int64_t J = 0; J < P; ++J) {
    if (2 * J + G >= P) { // R_j, to rank min(2j + g, n - 1)
      const int64_t Dest = std::min(2 * J + G, N - 1);
      for (int64_t R = J; R < std::min(P - 1, Dest); ++R) {
        int64_t T = 2 * (R - J) + 1;
        if (Wide && R % 2 == 0 && (R == 0 || J == R - 1))
          T = 2;
        Ops.push_back({T, R, R + 1, J});
      }
      for (int64_t S = P - 1, T = 2 * P - 1 - 2 * J; S < Dest; ++S, ++T) {
        // a_{p-1} is an even rank r whose R hop of m_{r-1} moves to step 2.
        bool Early = Wide && S == P - 1 && S % 2 == 0 && J == S - 1;
        Ops.push_back({Early ? 2 : T, S, S + 1, J});
      }
    }
    if (2 * J <= P + G - 2) { // L_j, down to rank max(2j + g + 1, p)
      const int64_t Lo = std::max(2 * J + G + 1, P) - N;
      for (int64_t R = J; R >= 1; --R) {
        int64_t T = 2 * (J - R + 1);
        if (Wide && R % 2 == 0 && J == R)
          T = 3;
        Ops.push_back({T, R, R - 1, J});
      }
      for (int64_t S = 0, T = 2 * J + 1 + Sh; S > Lo && T <= Last; --S, ++T)
        Ops.push_back({T, S, S - 1, J});
    }
  }
  return Ops;
}

class RingHalfDuplexOpt final : public Generator {
public:
  llvm::StringRef id() const override { return "half-allgather-ring-opt"; }
  llvm::StringRef summary() const override {
    return "half-duplex allgather on a ring in p + ceil(q/2) - 1 steps (the "
           "optimum; q/2 + 1 for p = 1, even q), one fewer than Kang et al.";
  }
  CollectiveSet collectives() const override {
    return {Collective::HalfAllgather};
  }
  llvm::ArrayRef<GeneratorTemplate> templates() const override {
    static const GeneratorTemplate Ts[] = {
        {"ring-opt", ""},
        {"ring-opt-wide", ""},
        {"ring-opt-one-sender", ""},
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
    std::vector<TimedOp> Ops = listing(P, Q);
    std::stable_sort(Ops.begin(), Ops.end(),
                     [](const TimedOp &X, const TimedOp &Y) {
                       return X.Step < Y.Step;
                     });
    const std::vector<uint64_t> Off = prefixSums(Sizes.A);
    int64_t Step = 0;
    for (const TimedOp &O : Ops) {
      while (Step < O.Step) {
        S.Steps.newStep();
        ++Step;
      }
      llvm::SmallVector<Block, 1> Msg;
      addPiece(Msg, 0, Off[O.Msg], Off[O.Msg + 1]);
      addOpIfAny(S.Steps, floorMod(O.Src, P + Q), floorMod(O.Dst, P + Q),
                 Msg);
    }
    S.Steps.dropEmptySteps();
    return std::move(S);
  }

private:
  const std::vector<OptionDecl> Options = {
      opt::groupA(), opt::groupB(), opt::bytesA(), opt::countsA(),
      opt::ringTopology("half-allgather-ring-opt")};
};

} // namespace

std::unique_ptr<Generator> choreo::makeHalfAllgatherRingOpt() {
  return std::make_unique<RingHalfDuplexOpt>();
}
