//===- generators/ring/RingHalfDuplexOpt.cpp - Ring half-allgather, optimal
//===//
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
#include "generators/blocks/Blocks.h"

#include <tuple>

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

/// A rank's ops of listing(P, Q) and the steps where some op carries a
/// non-empty message, without the other ranks' ops: per message j its four
/// runs of hops (R_j inside A and on, L_j inside A and through rank 0),
/// each an arithmetic run of steps, give rank Me's hops (at most two per
/// run: Me sends, Me receives) and mark the steps (difference arrays over
/// the steps, odd and even ones apart), O(p + q) in all. Ops come sorted as
/// the whole sorts them: by step, then the listing's order.
struct RankListing {
  std::vector<TimedOp> Ops;
  std::vector<bool> Used; // by step, from 1 (Used[0] unused)
};

RankListing rankListing(int64_t P, int64_t Q, int64_t Me,
                        llvm::ArrayRef<uint64_t> Off) {
  const int64_t N = P + Q;
  RankListing Out;
  auto NonEmpty = [&](int64_t J) { return Off[J + 1] > Off[J]; };
  if (P == 1 && Q % 2 == 0) { // the listing is q + 1 ops: filter it
    std::vector<TimedOp> All = listing(P, Q);
    std::stable_sort(
        All.begin(), All.end(),
        [](const TimedOp &X, const TimedOp &Y) { return X.Step < Y.Step; });
    for (const TimedOp &O : All) {
      if (!NonEmpty(O.Msg))
        continue;
      if (Out.Used.size() <= size_t(O.Step))
        Out.Used.resize(O.Step + 1, false);
      Out.Used[O.Step] = true;
      if (floorMod(O.Src, N) == Me || floorMod(O.Dst, N) == Me)
        Out.Ops.push_back(O);
    }
    return Out;
  }
  const int64_t G = (Q + 1) / 2, Last = P + G - 1, Sh = Q % 2;
  const bool Wide = Q % 2 == 0 && Q >= 2 * P;
  // Marks: Run[t] for steps t, t + 1, ...; Odd[k] for steps 2k + 1, Even[k]
  // for steps 2k (difference arrays), Single for moved hops.
  const int64_t Max = 2 * N + 8;
  std::vector<int64_t> Run(Max + 2), Odd(Max + 2), Even(Max + 2);
  auto MarkRun = [&](int64_t T0, int64_t Len) {
    if (Len <= 0)
      return;
    ++Run[T0];
    --Run[T0 + Len];
  };
  auto MarkStride = [&](std::vector<int64_t> &D, int64_t K0, int64_t Len) {
    if (Len <= 0)
      return;
    ++D[K0];
    --D[K0 + Len];
  };
  std::vector<bool> Single(Max + 2, false);
  struct Keyed {
    int64_t T, J, Seg, Pos;
    TimedOp O;
  };
  std::vector<Keyed> Mine;
  auto Hop = [&](int64_t T, int64_t Src, int64_t Dst, int64_t J, int64_t Seg,
                 int64_t Pos) {
    if (floorMod(Src, N) == Me || floorMod(Dst, N) == Me)
      Mine.push_back({T, J, Seg, Pos, {T, Src, Dst, J}});
  };
  for (int64_t J = 0; J < P; ++J) {
    if (!NonEmpty(J))
      continue;
    if (2 * J + G >= P) { // R_j
      const int64_t Dest = std::min(2 * J + G, N - 1);
      const int64_t E1 = std::min(P - 1, Dest);
      auto StepOfR = [&](int64_t R) {
        if (Wide && R % 2 == 0 && (R == 0 || J == R - 1))
          return int64_t(2);
        return 2 * (R - J) + 1;
      };
      // Steps 2(R - J) + 1 for R in [J, E1); only the first two hops (R = 0
      // or R = J + 1) may move to step 2.
      for (int64_t R = J; R < std::min(E1, J + 2); ++R) {
        if (StepOfR(R) == 2)
          Single[2] = true;
        else
          MarkStride(Odd, R - J, 1);
      }
      MarkStride(Odd, 2, E1 - (J + 2));
      for (int64_t R : {Me - 1, Me})
        if (R >= J && R < E1)
          Hop(StepOfR(R), R, R + 1, J, 0, R);
      int64_t T0 = 2 * P - 1 - 2 * J;
      bool Early = Wide && (P - 1) % 2 == 0 && J == P - 2;
      if (P - 1 < Dest) {
        if (Early) {
          Single[2] = true;
          MarkRun(T0 + 1, Dest - P);
        } else {
          MarkRun(T0, Dest - (P - 1));
        }
      }
      for (int64_t S : {Me - 1, Me})
        if (S >= P - 1 && S < Dest)
          Hop(S == P - 1 && Early ? 2 : T0 + (S - (P - 1)), S, S + 1, J, 1, S);
    }
    if (2 * J <= P + G - 2) { // L_j
      const int64_t Lo = std::max(2 * J + G + 1, P) - N;
      auto StepOfL = [&](int64_t R) {
        if (Wide && R % 2 == 0 && J == R)
          return int64_t(3);
        return 2 * (J - R + 1);
      };
      // Steps 2(J - R + 1) for R = J .. 1: even steps 2 .. 2J (k = 1 .. J),
      // the first moved to 3 when J is even and Wide.
      if (J >= 1) {
        if (StepOfL(J) == 3) {
          Single[3] = true;
          MarkStride(Even, 2, J - 1);
        } else {
          MarkStride(Even, 1, J);
        }
      }
      for (int64_t R : {Me, Me + 1})
        if (R >= 1 && R <= J)
          Hop(StepOfL(R), R, R - 1, J, 2, -R);
      int64_t T0 = 2 * J + 1 + Sh;
      int64_t Len = std::min(-Lo, Last - T0 + 1);
      MarkRun(T0, Len);
      for (int64_t S : {Me - N, Me, Me + 1 - N, Me + 1})
        if (S <= 0 && S > Lo && T0 - S <= Last &&
            (floorMod(S, N) == Me || floorMod(S - 1, N) == Me))
          Hop(T0 - S, S, S - 1, J, 3, -S);
    }
  }
  Out.Used.assign(Max + 1, false);
  int64_t R = 0, O = 0, E = 0;
  for (int64_t T = 0; T <= Max; ++T) {
    R += Run[T];
    if (R > 0 || Single[T])
      Out.Used[T] = true;
    if (T % 2 == 1) {
      O += Odd[T / 2];
      if (O > 0)
        Out.Used[T] = true;
    } else {
      E += Even[T / 2];
      if (E > 0)
        Out.Used[T] = true;
    }
  }
  // The same hop can come from two candidates (S = Me and S + 1 - N alike).
  std::sort(Mine.begin(), Mine.end(), [](const Keyed &X, const Keyed &Y) {
    return std::tie(X.T, X.J, X.Seg, X.Pos) < std::tie(Y.T, Y.J, Y.Seg, Y.Pos);
  });
  for (size_t I = 0; I < Mine.size(); ++I)
    if (I == 0 || std::tie(Mine[I].J, Mine[I].Seg, Mine[I].Pos) !=
                      std::tie(Mine[I - 1].J, Mine[I - 1].Seg, Mine[I - 1].Pos))
      Out.Ops.push_back(Mine[I].O);
  return Out;
}

class RingHalfDuplexOpt final : public PartGenerator {
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

private:
  /// With Only, rank Only's hops from rankListing (O(p + q)).
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
    if (Only) {
      if (*Only >= S.NumRanks)
        return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                    " is not in the groups' " +
                                    llvm::Twine(S.NumRanks));
      const std::vector<uint64_t> Off = prefixSums(Sizes.A);
      RankListing Part = rankListing(P, Q, *Only, Off);
      size_t Next = 0;
      for (size_t T = 0; T < Part.Used.size(); ++T) {
        if (!Part.Used[T])
          continue;
        S.Steps.newStep();
        for (; Next < Part.Ops.size() && Part.Ops[Next].Step <= int64_t(T);
             ++Next) {
          const TimedOp &O = Part.Ops[Next];
          if (O.Step < int64_t(T))
            continue;
          llvm::SmallVector<Block, 1> Msg;
          addPiece(Msg, 0, Off[O.Msg], Off[O.Msg + 1]);
          addOpIfAny(S.Steps, floorMod(O.Src, P + Q), floorMod(O.Dst, P + Q),
                     Msg);
        }
      }
      return std::move(S);
    }
    std::vector<TimedOp> Ops = listing(P, Q);
    std::stable_sort(
        Ops.begin(), Ops.end(),
        [](const TimedOp &X, const TimedOp &Y) { return X.Step < Y.Step; });
    const std::vector<uint64_t> Off = prefixSums(Sizes.A);
    int64_t Step = 0;
    for (const TimedOp &O : Ops) {
      while (Step < O.Step) {
        S.Steps.newStep();
        ++Step;
      }
      llvm::SmallVector<Block, 1> Msg;
      addPiece(Msg, 0, Off[O.Msg], Off[O.Msg + 1]);
      addOpIfAny(S.Steps, floorMod(O.Src, P + Q), floorMod(O.Dst, P + Q), Msg);
    }
    S.Steps.dropEmptySteps();
    return std::move(S);
  }

  const std::vector<OptionDecl> Options = {
      opt::groupA(), opt::groupB(), opt::bytesA(), opt::countsA(),
      opt::ringTopology("half-allgather-ring-opt")};
};

} // namespace

std::unique_ptr<Generator> choreo::makeHalfAllgatherRingOpt() {
  return std::make_unique<RingHalfDuplexOpt>();
}
