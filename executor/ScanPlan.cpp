//===- executor/ScanPlan.cpp - One rank's part of a scan ------------------===//
///
/// \file
/// The rank plan of a scan or exscan (docs/format.md, "Scan and exscan:
/// accumulators"): each accumulator is a working vector in scratch
/// (accumulator a at a * n), a block is sent from its `from` accumulator,
/// received once into the sink and combined into every accumulator of its
/// `acc` with the operand order that keeps the lower rank interval on the
/// left (or stored, into an accumulator that holds nothing yet). The
/// accumulator that ends with the rank's prefix is copied to the receive
/// buffer; exscan's rank 0 leaves it untouched.
///
//===----------------------------------------------------------------------===//

#include "executor/RankPlan.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace choreo;
using llvm::formatv;

namespace {

/// An accumulator's contributor sets as (start, set) runs over [0, n); an
/// empty set: nothing held.
using Runs = std::vector<std::pair<uint64_t, RankSet>>;

size_t splitAt(Runs &R, uint64_t X) {
  auto It =
      std::upper_bound(R.begin(), R.end(), X,
                       [](uint64_t V, const std::pair<uint64_t, RankSet> &E) {
                         return V < E.first;
                       });
  size_t I = It - R.begin() - 1;
  if (R[I].first == X)
    return I;
  R.insert(R.begin() + I + 1, {X, R[I].second});
  return I + 1;
}

class ScanPlanCompiler {
public:
  ScanPlanCompiler(const Schedule &S, Rank Me)
      : S(S), L(S.Steps), Me(Me), N(S.buffers()[0].Length) {}

  RankPlan run() {
    P.Me = Me;
    P.Kind = S.Kind;
    for (const Op &O : L.allOps())
      for (const Block &B : L.blocks(O))
        NumAcc = std::max(
            {NumAcc, B.fromAcc() + 1, unsigned(llvm::bit_width(B.intoMask()))});
    P.ScratchBytes = NumAcc * N;
    P.SendBytes = N;
    P.SendWhat = formatv("the {0}-byte vector", N);
    Result = S.spec().result(S, Me);
    if (Result) {
      P.RecvBytes = N;
      P.RecvWhat = formatv("the {0}-byte result", N).str();
      P.ResultBuffer = "all";
    }
    bool Ex = S.Kind == Collective::Exscan;
    for (unsigned A = 0; A < NumAcc; ++A) {
      bool Own = A == 0 || !Ex;
      Acc.push_back({{0, Own ? RankSet(Me, Me + 1) : RankSet()}});
      if (Own && N)
        P.Prologue.push_back(
            {{Region::Send, 0, N}, {Region::Scratch, A * N, N}});
    }
    for (unsigned St = 0; St < L.numSteps(); ++St)
      compileStep(St);
    if (Result && N)
      P.Epilogue.push_back(
          {{Region::Scratch, resultAcc() * N, N}, {Region::Recv, 0, N}});
    return std::move(P);
  }

private:
  const Schedule &S;
  const StepList &L;
  Rank Me;
  uint64_t N;
  unsigned NumAcc = 1;
  RankPlan P;
  std::optional<Holding> Result;
  std::vector<Runs> Acc;
  struct Update {
    unsigned A;
    uint64_t Lo, Hi;
    RankSet Set;
    bool Reduce;
  };
  std::vector<Update> Updates;

  uint64_t endOf(const Runs &R, size_t I) const {
    return I + 1 < R.size() ? R[I + 1].first : N;
  }

  /// The accumulator holding [0, n) with exactly the wanted prefix (0 if
  /// none: an unproved schedule).
  unsigned resultAcc() const {
    Interval W = S.spec().wantedContributors(S, Me);
    for (unsigned A = 0; A < NumAcc; ++A)
      if (Acc[A].size() == 1 && Acc[A][0].second == RankSet(W.Lo, W.Hi))
        return A;
    return 0;
  }

  void compileStep(unsigned St) {
    RankPlanStep Step;
    Step.Step = St;
    uint64_t SinkUse = 0;
    for (const Op &O : L.step(St)) {
      if (O.Src != Me && O.Dst != Me)
        continue;
      Transfer T{O.Src == Me ? O.Dst : O.Src, {}, 0, {}};
      for (const Block &B : L.blocks(O)) {
        T.Bytes += B.size();
        P.ReductionOffsets.push_back(B.Lo);
        P.ReductionOffsets.push_back(B.Hi);
        if (O.Src == Me) {
          T.Pieces.push_back(
              {Region::Scratch, B.fromAcc() * N + B.Lo, B.size()});
          continue;
        }
        receive(B, SinkUse, T, Step);
      }
      (O.Src == Me ? Step.Sends : Step.Recvs).push_back(std::move(T));
    }
    for (const Update &U : Updates) {
      Runs &R = Acc[U.A];
      size_t I = splitAt(R, U.Lo);
      if (U.Hi < N)
        splitAt(R, U.Hi);
      for (; I < R.size() && R[I].first < U.Hi; ++I)
        if (U.Reduce)
          R[I].second.insert(U.Set);
        else
          R[I].second = U.Set;
    }
    Updates.clear();
    P.SinkBytes = std::max(P.SinkBytes, SinkUse);
    if (!Step.Recvs.empty() || !Step.Sends.empty())
      P.Steps.push_back(std::move(Step));
  }

  /// Block B into the sink, then into each of its accumulators: a copy of
  /// the sink per extra accumulator first (a right-hand combine computes in
  /// the sink), then the combines or stores.
  void receive(const Block &B, uint64_t &SinkUse, Transfer &T,
               RankPlanStep &Step) {
    uint64_t Len = B.size();
    uint64_t First = SinkUse;
    SinkUse += Len;
    T.Pieces.push_back({Region::Sink, First, Len});
    RankSet In = B.hasContrib() ? L.contrib(B.Contrib) : RankSet();
    std::vector<std::pair<unsigned, uint64_t>> Targets;
    for (unsigned A = 0; A < NumAcc; ++A) {
      if (!(B.intoMask() >> A & 1))
        continue;
      uint64_t At = First;
      if (!Targets.empty()) {
        At = SinkUse;
        SinkUse += Len;
        Step.After.push_back(
            {{Region::Sink, First, Len}, {Region::Sink, At, Len}});
      }
      Targets.push_back({A, At});
    }
    for (auto [A, At] : Targets) {
      Updates.push_back({A, B.Lo, B.Hi, In, B.Reduce});
      Runs &R = Acc[A];
      size_t I = splitAt(R, B.Lo);
      if (B.Hi < N)
        splitAt(R, B.Hi);
      for (; I < R.size() && R[I].first < B.Hi; ++I) {
        uint64_t Lo = R[I].first, Hi = std::min(B.Hi, endOf(R, I));
        LocalAction Act{{Region::Sink, At + (Lo - B.Lo), Hi - Lo},
                        {Region::Scratch, A * N + Lo, Hi - Lo}};
        const RankSet &Have = R[I].second;
        if (B.Reduce && !Have.empty()) {
          Act.Combine = true;
          bool Ordered = In.numIntervals() == 1 && Have.numIntervals() == 1;
          if (Ordered) {
            Interval H = Have.intervals().front(), C = In.intervals().front();
            Act.FromIsRight = H.Hi == C.Lo;
            Ordered = C.Hi == H.Lo || H.Hi == C.Lo;
          }
          if (!Ordered && P.UnorderedCombine.empty())
            P.UnorderedCombine = formatv(
                "step {0}: rank {1} combines all[{2},{3}) with contributors "
                "{4} into its accumulator {5} of {6}, which are not adjacent "
                "rank intervals",
                Step.Step, Me, Lo, Hi, rankSetString(In), A,
                rankSetString(Have));
        }
        Step.After.push_back(Act);
      }
    }
  }
};

} // namespace

RankPlan choreo::compileScanPlan(const Schedule &S, Rank Me) {
  return ScanPlanCompiler(S, Me).run();
}
