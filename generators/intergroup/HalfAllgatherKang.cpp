//===- generators/intergroup/HalfAllgatherKang.cpp - Half duplex, full ----===//
///
/// \file
/// `half-allgather-kang`: the half-duplex intergroup allgather of seed 001,
/// Section III (fully connected), for every p, q >= 1. Only A's members
/// contribute; every member of B must end with all of m_A.
///
/// - p = q: a_j sends m_j to b_j; then B allgathers.
/// - p > q: a_j sends m_j to b_j for j < q; then b_0..b_{q-1} and
///   a_q..a_{p-1} allgather together (p members, member j holding m_j).
/// - p < q: B is cut into G = floor(q/p) subgroups of consecutive members,
///   each of p members plus its share of the r = q mod p left over (spread
///   over the subgroups, at most ceil(r/G) per subgroup, so no allgather
///   grows by more than that). Broadcast group i is a_i and the i-th member
///   of every subgroup; each a_i broadcasts m_i in its group (a scatter
///   followed by an allgather of the pieces, the multiple-message broadcast
///   cost 2 log(G + 1) t_s + 2 k t_w; --bcast binomial for a binomial tree).
///   Then every subgroup allgathers; its left-over members contribute
///   nothing and only receive.
///
/// The allgathers are Bruck's by default (the log p start-ups of the paper's
/// counts; --intra ring). Steps: 1 + ceil(log2 p) for p >= q, and
/// 2 ceil(log2(G + 1)) + ceil(log2(p + ceil(r/G))) for p < q.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"

using namespace choreo;

namespace {

class HalfAllgatherKang final : public Generator {
public:
  llvm::StringRef id() const override { return "half-allgather-kang"; }
  llvm::StringRef summary() const override {
    return "Kang et al. half-duplex allgather, fully connected: direct sends "
           "or broadcast groups, then allgathers (1 + log p steps for p >= q)";
  }
  CollectiveSet collectives() const override {
    return {Collective::HalfAllgather};
  }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }

  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    IntraAlgorithm Intra = *intraOf(V); // declared with a default
    bool Binomial = V.get(BcastOpt) == "binomial";
    auto Start = startHalfAllgather(V, id(), [&](const IntergroupSizes &Z) {
      const uint64_t N = std::max(Z.A.size(), Z.B.size());
      return Intra == IntraAlgorithm::Ring ? N * N
                                           : 2 * N * (2 + ceilLog2(N));
    });
    if (!Start)
      return Start.takeError();
    auto &[S, Sizes] = *Start;
    const std::vector<uint64_t> &Counts = Sizes.A;
    uint32_t P = Counts.size(), Q = Sizes.B.size();
    const std::vector<Rank> &A = S.Groups[0].Members, &B = S.Groups[1].Members;
    StepList L;
    if (P >= Q) {
      // a_j -> b_j for j < q, then an allgather over p members: member j is
      // b_j for j < q and a_j beyond (the senders that joined the receivers).
      std::vector<uint64_t> Off = prefixSums(Counts);
      L.newStep();
      for (uint32_t J = 0; J < Q; ++J) {
        llvm::SmallVector<Block, 1> Msg;
        addPiece(Msg, 0, Off[J], Off[J + 1]);
        addOpIfAny(L, A[J], B[J], Msg);
      }
      std::vector<Rank> Members(P);
      for (uint32_t J = 0; J < P; ++J)
        Members[J] = J < Q ? B[J] : A[J];
      L.append(intraAllgatherv(Intra, Counts).relabeled(Members));
    } else {
      L = broadcastGroups(A, B, Counts, Binomial);
      L.append(subgroupAllgathers(B, Counts, Intra));
    }
    L.dropEmptySteps();
    S.Steps = std::move(L);
    return std::move(S);
  }

private:
  const Option<std::string> BcastOpt =
      wordOption("bcast", "broadcast inside the broadcast groups when p < q",
                 {"binomial", "scatter-allgather"})
          .withDefault("scatter-allgather");
  const std::vector<OptionDecl> Options = {
      opt::groupA(),
      opt::groupB(),
      opt::bytesA(),
      opt::countsA(),
      opt::intra({IntraAlgorithm::Ring, IntraAlgorithm::Bruck})
          .withDefault("bruck"),
      BcastOpt};

  /// p < q: index in B of the first member of subgroup Gr (Gr <= G): p
  /// members each, and the q mod p left over spread from the first.
  static uint32_t subgroupStart(uint32_t P, uint32_t Q, uint32_t Gr) {
    uint32_t G = Q / P;
    return Gr * P + partStart(Q % P, G, Gr);
  }

  /// p < q: a_i broadcasts m_i to the i-th member of each subgroup.
  static StepList broadcastGroups(const std::vector<Rank> &A,
                                  const std::vector<Rank> &B,
                                  llvm::ArrayRef<uint64_t> Counts,
                                  bool Binomial) {
    uint32_t P = A.size(), Q = B.size(), G = Q / P;
    std::vector<uint64_t> Off = prefixSums(Counts);
    StepList L;
    for (uint32_t I = 0; I < P; ++I) {
      // Local rank 0 is the root a_i, local g + 1 the i-th member of
      // subgroup g.
      std::vector<Rank> Members{A[I]};
      for (uint32_t Gr = 0; Gr < G; ++Gr)
        Members.push_back(B[subgroupStart(P, Q, Gr) + I]);
      StepList One = Binomial ? binomialBcast(G + 1, Counts[I], 0)
                              : scatterAllgatherBcast(G + 1, Counts[I], 0,
                                                      IntraAlgorithm::Bruck);
      L.mergeAlongside(std::move(One).relabeled(Members, {{0, Off[I]}}));
    }
    return L;
  }

  /// p < q: every subgroup allgathers m_0..m_{p-1}; its left-over members
  /// contribute nothing.
  static StepList subgroupAllgathers(const std::vector<Rank> &B,
                                     llvm::ArrayRef<uint64_t> Counts,
                                     IntraAlgorithm Intra) {
    uint32_t P = Counts.size(), Q = B.size(), G = Q / P;
    StepList L;
    for (uint32_t Gr = 0; Gr < G; ++Gr) {
      uint32_t First = subgroupStart(P, Q, Gr),
               End = subgroupStart(P, Q, Gr + 1);
      std::vector<Rank> Members(B.begin() + First, B.begin() + End);
      std::vector<uint64_t> C(Counts.begin(), Counts.end());
      C.resize(Members.size(), 0);
      L.mergeAlongside(intraAllgatherv(Intra, C).relabeled(Members));
    }
    return L;
  }
};

} // namespace

std::unique_ptr<Generator> choreo::makeHalfAllgatherKang() {
  return std::make_unique<HalfAllgatherKang>();
}
