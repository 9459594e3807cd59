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
/// 2 ceil(log2(G + 1)) + ceil(log2(p + ceil(r/G))) for p < q. The rank
/// form builds one rank's ops from the blocks' rank forms.
///
//===----------------------------------------------------------------------===//

#include "generators/Generators.h"
#include "generators/blocks/Blocks.h"

using namespace choreo;

namespace {

/// A rank's part of blocks run alongside (merged step by step): the ops of
/// the one block the rank takes part in, and a step used when any block
/// uses it.
struct AlongsidePart {
  RankPart Out;
  void add(const std::vector<bool> &Used) {
    if (Out.Used.size() < Used.size())
      Out.Used.resize(Used.size(), false);
    for (size_t I = 0; I < Used.size(); ++I)
      if (Used[I])
        Out.Used[I] = true;
  }
  /// Me's block, its local ranks renamed by Map.
  template <class MapFn> void addMine(const RankPart &Mine, MapFn Map) {
    add(Mine.Used);
    appendMapped(Out.Steps, Mine.Steps, Map);
  }
  RankPart take() && {
    while (Out.Steps.numSteps() < Out.Used.size())
      Out.Steps.newStep();
    return std::move(Out);
  }
};

class HalfAllgatherKang final : public PartGenerator {
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

private:
  /// With Only, rank Only's ops: its direct send or broadcast group and its
  /// allgather, from the blocks' rank forms; which steps the whole keeps
  /// from every block's used steps (O(p + q) arithmetic).
  llvm::Expected<Schedule> buildPart(const OptionValues &V,
                                     std::optional<Rank> Only) const override {
    IntraAlgorithm Intra = *intraOf(V); // declared with a default
    bool Binomial = V.get(BcastOpt) == "binomial";
    auto Start = startHalfAllgather(V, id(), [&](const IntergroupSizes &Z) {
      const uint64_t N = std::max(Z.A.size(), Z.B.size());
      if (Only) // a broadcast's and an allgather's ops
        return 4 * N + 4 * uint64_t(ceilLog2(N)) + 8;
      return Intra == IntraAlgorithm::Ring ? N * N : 2 * N * (2 + ceilLog2(N));
    });
    if (!Start)
      return Start.takeError();
    auto &[S, Sizes] = *Start;
    const std::vector<uint64_t> &Counts = Sizes.A;
    uint32_t P = Counts.size(), Q = Sizes.B.size();
    const std::vector<Rank> &A = S.Groups[0].Members, &B = S.Groups[1].Members;
    if (Only) {
      if (*Only >= S.NumRanks)
        return optionError("p", llvm::Twine("rank ") + llvm::Twine(*Only) +
                                    " is not in the groups' " +
                                    llvm::Twine(S.NumRanks));
      S.Steps = rankSteps(A, B, Counts, Intra, Binomial, *Only);
      return std::move(S);
    }
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

  /// An allgather's part over N members with Counts (Me local, or NoRank).
  static RankPart allgatherPart(IntraAlgorithm Intra,
                                llvm::ArrayRef<uint64_t> Counts, uint32_t Me) {
    if (Me != NoRank)
      return intraAllgathervPart(Intra, Counts, Me);
    bool Any = llvm::any_of(Counts, [](uint64_t X) { return X > 0; });
    RankPart P;
    P.Used.assign(intraAllgatherSteps(Intra, Counts.size()), Any);
    return P;
  }

  /// The whole's ops of rank Me, in the whole's steps (build's two cases).
  static StepList rankSteps(llvm::ArrayRef<Rank> A, llvm::ArrayRef<Rank> B,
                            llvm::ArrayRef<uint64_t> Counts,
                            IntraAlgorithm Intra, bool Binomial, Rank Me) {
    uint32_t P = A.size(), Q = B.size();
    auto IndexIn = [Me](llvm::ArrayRef<Rank> G) {
      auto It = llvm::find(G, Me);
      return It == G.end() ? NoRank : uint32_t(It - G.begin());
    };
    uint32_t InA = IndexIn(A), InB = IndexIn(B);
    std::vector<uint64_t> Off = prefixSums(Counts);
    RankPart All;
    if (P >= Q) {
      All.Steps.newStep();
      All.Used.push_back(
          llvm::any_of(Counts.take_front(Q), [](uint64_t X) { return X > 0; }));
      uint32_t J = InA != NoRank && InA < Q ? InA : InB;
      if (J != NoRank) {
        llvm::SmallVector<Block, 1> Msg;
        addPiece(Msg, 0, Off[J], Off[J + 1]);
        addOpIfAny(All.Steps, A[J], B[J], Msg);
      }
      // Member j of the allgather: b_j for j < q, a_j beyond.
      uint32_t Member = InB != NoRank ? InB : InA >= Q ? InA : NoRank;
      RankPart G = allgatherPart(Intra, Counts, Member);
      AlongsidePart Ag;
      Ag.addMine(G, [&](Rank X) { return X < Q ? B[X] : A[X]; });
      All.append(std::move(Ag).take());
      return std::move(All).kept();
    }
    // p < q: broadcast group i is a_i and the i-th member of every
    // subgroup; then every subgroup allgathers.
    uint32_t G = Q / P, Gr = NoRank, InSub = NoRank;
    if (InB != NoRank) {
      Gr = std::min(InB / P, G - 1);
      while (subgroupStart(P, Q, Gr) > InB)
        --Gr;
      while (subgroupStart(P, Q, Gr + 1) <= InB)
        ++Gr;
      InSub = InB - subgroupStart(P, Q, Gr);
    }
    AlongsidePart Bc;
    for (uint32_t I = 0; I < P; ++I) {
      // Local 0 is a_i, local g + 1 the i-th member of subgroup g.
      uint32_t Local = InA == I ? 0 : InSub == I ? Gr + 1 : NoRank;
      RankPart One =
          Binomial ? binomialBcastRank(G + 1, Counts[I], 0, Local)
                   : scatterAllgatherBcastRank(G + 1, Counts[I], 0,
                                               IntraAlgorithm::Bruck, Local);
      if (Local == NoRank) {
        Bc.add(One.Used);
        continue;
      }
      BufferMap Shift{0, Off[I]};
      Bc.add(One.Used);
      appendMapped(
          Bc.Out.Steps, One.Steps,
          [&](Rank X) {
            return X == 0 ? A[I] : B[subgroupStart(P, Q, X - 1) + I];
          },
          llvm::ArrayRef<BufferMap>(Shift));
    }
    All.append(std::move(Bc).take());
    AlongsidePart Ag;
    std::vector<uint64_t> C(Counts.begin(), Counts.end());
    for (uint32_t Sub = 0; Sub < G; ++Sub) {
      uint32_t First = subgroupStart(P, Q, Sub),
               End = subgroupStart(P, Q, Sub + 1);
      C.resize(End - First, 0);
      RankPart Part = allgatherPart(Intra, C, Sub == Gr ? InSub : NoRank);
      if (Sub == Gr)
        Ag.addMine(Part, [&](Rank X) { return B[First + X]; });
      else
        Ag.add(Part.Used);
    }
    All.append(std::move(Ag).take());
    return std::move(All).kept();
  }

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
