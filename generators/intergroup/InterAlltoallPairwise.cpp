//===- generators/intergroup/InterAlltoallPairwise.cpp - Intercomm a2a ----===//
///
/// \file
/// `inter-alltoall-pairwise`: what MPICH 4.0.2 runs for MPI_Alltoall(v) on
/// an intercommunicator (MPIR_Alltoall_inter_pairwise_exchange and its v
/// form; MPI-4 6.8: every rank of A sends a block to every rank of B and
/// the other way). With m = max(p, q), in step i (0 <= i < m) local rank r
/// of either group sends to remote rank (r + i) mod m and receives from
/// (r - i) mod m, when those are below the remote group's size: m steps,
/// one message out and one in per rank; empty blocks are not sent. Its
/// rank form also builds from one rank's row and column over the p + q
/// ranks (--rank-part, an MPI_Alltoallv's part in a job: ir/PairMatrix.h
/// RankSizes), reading which steps carry bytes from the part's agreed used
/// flags (markInterUsedOffsets) instead of the matrix.
///
//===----------------------------------------------------------------------===//

#include "generators/alltoall/AlltoallOptions.h"
#include "generators/intergroup/InterReduction.h"
#include "ir/PairMatrix.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

namespace {

class InterAlltoallPairwise final : public PartGenerator {
public:
  llvm::StringRef id() const override { return "inter-alltoall-pairwise"; }
  llvm::StringRef summary() const override {
    return "MPICH 4.0's intercommunicator alltoall: max(p, q) pairwise "
           "exchange steps";
  }
  CollectiveSet collectives() const override {
    return {Collective::InterAlltoall};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

private:
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    auto S = header(V, Only.has_value());
    if (!S)
      return S.takeError();
    uint32_t P = S->group("A")->Members.size(),
             Q = S->group("B")->Members.size(), M = std::max(P, Q);
    PairMatrix Pm(*S);
    if (Pm.isRankView() && (!Only || *Only != Pm.viewRank()))
      return optionError(
          "rank-part",
          Only ? formatv("rank {0}'s row and column build rank {0}'s part, "
                         "not rank {1}'s",
                         Pm.viewRank(), *Only)
                     .str()
               : std::string("a rank's row and column build that rank's "
                             "part only (a rank form), not the whole "
                             "schedule"));
    if (Only)
      return finishInterPart(std::move(*S), rankPart(Pm, P, Q, *Only), *Only);
    StepList L;
    auto Send = [&](Rank From, Rank To) {
      if (Interval I = Pm.block(From, To); !I.empty()) {
        Block B;
        B.Lo = I.Lo;
        B.Hi = I.Hi;
        L.addOp(From, To, B);
      }
    };
    for (uint32_t I = 0; I < M; ++I) {
      L.newStep();
      for (uint32_t R = 0; R < P; ++R)
        if (uint32_t Dst = (R + I) % M; Dst < Q)
          Send(R, P + Dst);
      for (uint32_t R = 0; R < Q; ++R)
        if (uint32_t Dst = (R + I) % M; Dst < P)
          Send(P + R, Dst);
    }
    return finishInter(std::move(*S), std::move(L), Only);
  }

  /// The whole's ops of rank Me in its max(p, q) steps: at step i rank r of
  /// A sends to B's (r + i) mod m and receives from B's (r - i) mod m (when
  /// they exist), and B's alike; the whole lists A's sends first. A step is
  /// used when some block between the groups that moves in it has bytes
  /// (one pass over the matrix the header holds; a rank's row and column:
  /// the flags the ranks agreed on, O(max(p, q))).
  static RankPart rankPart(const PairMatrix &Pm, uint32_t P, uint32_t Q,
                           Rank Me) {
    uint32_t M = std::max(P, Q);
    RankPart Part;
    Part.Used.assign(M, false);
    if (Pm.isInterUniform()) {
      // m = max(p, q) is one group's size, so every step pairs some rank of
      // A with some rank of B each way: used iff either way has bytes.
      Part.Used.assign(M, P && Q && (Pm.size(0, P) || Pm.size(P, 0)));
    } else if (Pm.isRankView()) {
      for (uint32_t I = 0; I < M && I < Pm.usedFlags().size(); ++I)
        Part.Used[I] = Pm.usedFlags()[I] & 1;
    } else {
      for (uint32_t R = 0; R < P; ++R)
        for (uint32_t D = 0; D < Q; ++D) {
          if (Pm.size(R, P + D))
            Part.Used[(D + M - R) % M] = true;
          if (Pm.size(P + D, R))
            Part.Used[(R + M - D) % M] = true;
        }
    }
    if (Me >= uint64_t(P) + Q) { // finishInterPart refuses it
      Part.Used.clear();
      return Part;
    }
    auto Send = [&](Rank From, Rank To) {
      if (Interval I = Pm.block(From, To); !I.empty()) {
        Block B;
        B.Lo = I.Lo;
        B.Hi = I.Hi;
        Part.Steps.addOp(From, To, B);
      }
    };
    bool InA = Me < P;
    uint32_t R = InA ? Me : Me - P, Theirs = InA ? Q : P;
    Rank TheirBase = InA ? P : 0;
    for (uint32_t I = 0; I < M; ++I) {
      Part.Steps.newStep();
      uint32_t To = (R + I) % M, From = (R + M - I) % M;
      if (InA) {
        if (To < Theirs)
          Send(Me, TheirBase + To);
        if (From < Theirs)
          Send(TheirBase + From, Me);
      } else {
        if (From < Theirs)
          Send(TheirBase + From, Me);
        if (To < Theirs)
          Send(Me, TheirBase + To);
      }
    }
    return Part;
  }

  /// Groups from --p and --q, blocks from --bytes (every block between the
  /// groups alike), --bytes-a and --bytes-b (what each rank of A sends each
  /// rank of B, and back) or --pairs (the (p + q)^2 matrix, zero within a
  /// group), or one rank's row and column (--rank-part, a rank form only);
  /// the blocks summing to less than 2^64 bytes.
  llvm::Expected<Schedule> header(const OptionValues &V, bool Part) const {
    auto P = groupCount(V, opt::groupA());
    if (!P)
      return P.takeError();
    auto Q = groupCount(V, opt::groupB());
    if (!Q)
      return Q.takeError();
    uint64_t N = uint64_t(*P) + *Q;
    // A rank's part: two ops per step at most.
    if (auto E = checkOpBudget(id(), Part ? 2 * uint64_t(std::max(*P, *Q))
                                          : 2 * uint64_t(*P) * *Q))
      return std::move(E);
    std::optional<uint64_t> B = V.lookup(opt::pairBytes()),
                            BA = V.lookup(opt::bytesA()),
                            BB = V.lookup(opt::bytesB());
    std::optional<std::vector<uint64_t>> Pairs = V.lookup(opt::pairs()),
                                          Own = V.lookup(opt::rankPart());
    if (int(bool(B)) + int(bool(Pairs)) + int(BA || BB) + int(bool(Own)) > 1)
      return optionError(Own     ? "rank-part"
                         : Pairs ? "pairs"
                                 : "bytes",
                         "give one of --bytes, --bytes-a with --bytes-b, "
                         "--pairs and --rank-part");
    if (Own) {
      // One rank's row and column over the p + q ranks: O(p + q).
      auto Rs = rankPartOption(*Own, N, /*Inter=*/true);
      if (!Rs)
        return Rs.takeError();
      Schedule S;
      S.Kind = Collective::InterAlltoall;
      setIntergroup(S, std::vector<uint64_t>(*P, 0),
                    std::vector<uint64_t>(*Q, 0));
      setRankSizes(S, std::move(*Rs));
      return S;
    }
    if (B)
      BA = BB = B;
    if (!Pairs && !(BA && BB))
      return optionError(BA || BB ? (BA ? "bytes-b" : "bytes-a") : "bytes",
                         "missing: give --bytes (every block), --bytes-a and "
                         "--bytes-b (what each rank of A sends each rank of "
                         "B, and back), --pairs or --rank-part");
    if (Pairs && N * N > MaxPairs)
      return optionError(
          "q", formatv("p + q = {0}: more than {1} blocks (--pairs; --bytes "
                       "or --bytes-a and --bytes-b take any p + q)",
                       N, MaxPairs));
    if (Pairs && Pairs->size() != N * N)
      return optionError("pairs",
                         formatv("{0} entries; p + q = {1} ranks need {2}",
                                 Pairs->size(), N, N * N));
    Schedule S;
    S.Kind = Collective::InterAlltoall;
    setIntergroup(S, std::vector<uint64_t>(*P, 0),
                  std::vector<uint64_t>(*Q, 0));
    if (!Pairs) {
      // Every block between the groups alike each way: sizes.block
      // [a, b], O(1) (docs/format.md), never the (p + q)^2 matrix.
      uint64_t Each = *BA + *BB, Blocks = uint64_t(*P) * *Q;
      if (Each < *BA || (Each && Blocks > UINT64_MAX / Each))
        return optionError(B ? "bytes" : "bytes-a",
                           "the blocks add up past 2^64 bytes");
      setInterUniformBlock(S, *BA, *BB);
      return S;
    }
    std::vector<uint64_t> Mx(N * N, 0);
    uint64_t Sum = 0;
    for (uint64_t I = 0; I < N; ++I)
      for (uint64_t J = 0; J < N; ++J) {
        bool IA = I < *P, JA = J < *P;
        uint64_t X = Pairs      ? (*Pairs)[I * N + J]
                     : IA == JA ? 0
                     : IA       ? *BA
                                : *BB;
        if (X && IA == JA)
          return optionError("pairs",
                             formatv("entry {0} (rank {1} to rank {2}): ranks "
                                     "of one group exchange nothing",
                                     I * N + J, I, J));
        if (Sum + X < Sum)
          return optionError(Pairs ? "pairs"
                             : B   ? "bytes"
                             : IA  ? "bytes-a"
                                   : "bytes-b",
                             "the blocks add up past 2^64 bytes");
        Sum += X;
        Mx[I * N + J] = X;
      }
    S.Sizes = {{"pairs", std::move(Mx)}};
    return S;
  }

  const std::vector<OptionDecl> Options = {
      opt::groupA(), opt::groupB(), opt::pairBytes(), opt::bytesA(),
      opt::bytesB(), opt::pairs(),  opt::rankPart()};
};

} // namespace

std::unique_ptr<Generator> choreo::makeInterAlltoallPairwise() {
  return std::make_unique<InterAlltoallPairwise>();
}
