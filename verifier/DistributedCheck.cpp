//===- verifier/DistributedCheck.cpp - The proof split over ranks ---------===//
///
/// \file
/// The node-port check of a node's lowest rank, and the simulation of a
/// job: every rank's local check, every node's check and the message
/// agreement, merged into the explicit checker's result (per kind the
/// finding with the least event key, in key order; completeness from the
/// first incomplete rank in the spec's order and the count of them).
///
//===----------------------------------------------------------------------===//

#include "verifier/DistributedCheck.h"
#include "verifier/MessageAgreement.h"
#include "verifier/Report.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace choreo;

std::vector<NodePortFailure>
choreo::checkNodePorts(const CallHeader &H, uint32_t Node,
                       llvm::ArrayRef<MemberOffNode> Members) {
  struct Rec {
    OffNodeOp O;
    Rank R;
  };
  std::vector<Rec> Recs;
  for (const MemberOffNode &M : Members)
    for (const OffNodeOp &O : M.Ops)
      Recs.push_back({O, M.R});
  llvm::sort(Recs, [](const Rec &A, const Rec &B) {
    return std::tuple(A.O.Step, A.O.Index, A.R) <
           std::tuple(B.O.Step, B.O.Index, B.R);
  });
  NodePorts NP = H.nodePorts();
  std::vector<NodePortFailure> Out;
  bool SendFailed = false, RecvFailed = false;
  for (size_t K = 0; K < Recs.size();) {
    size_t End = K;
    while (End < Recs.size() && Recs[End].O.Step == Recs[K].O.Step)
      ++End;
    const Rec *FirstSend = nullptr, *FirstRecv = nullptr;
    uint32_t Sends = 0, Recvs = 0;
    for (size_t J = K; J < End; ++J) {
      const Rec &X = Recs[J];
      const Rec *&First = X.O.Send ? FirstSend : FirstRecv;
      uint32_t &Count = X.O.Send ? Sends : Recvs;
      bool &Failed = X.O.Send ? SendFailed : RecvFailed;
      if (!First)
        First = &X;
      if (++Count == (X.O.Send ? NP.Send : NP.Recv) + 1 && !Failed) {
        Failed = true;
        Out.push_back(
            {X.O.Send ? property::NodeSendPort : property::NodeRecvPort, Node,
             X.O.Step, Count, First->R, X.R, First->O, X.O});
      }
    }
    K = End;
  }
  return Out;
}

namespace {

/// One job of p ranks simulated: Parts[r] is rank r's part.
class Simulation {
public:
  Simulation(const Schedule &Head, std::vector<RankPart> Parts,
             bool GlobalIndex)
      : Head(Head), Parts(std::move(Parts)), GlobalIndex(GlobalIndex) {}

  /// Structural failures found outside every rank's part (ops of no rank).
  std::vector<Finding> Orphans;

  VerifyResult run(DistributedStats *Stats) {
    HeaderFacts Facts(Head);
    Results.reserve(Parts.size());
    // An alltoallv rank's part holds its own row and column: its own
    // tables (one rank's at a time, as a job's ranks hold them).
    bool Own = hasRankSizes(Head);
    for (Rank R = 0; R < Parts.size(); ++R) {
      if (Own) {
        HeaderFacts Mine(*Parts[R].S);
        Results.push_back(
            checkLocal(*Parts[R].S, R, Parts[R].Mine, Mine, GlobalIndex));
        continue;
      }
      Results.push_back(
          checkLocal(*Parts[R].S, R, Parts[R].Mine, Facts, GlobalIndex));
    }
    DistributedStats St;
    St.Ranks = Parts.size();
    for (const LocalResult &L : Results)
      if (L.NumOps > St.MaxRankOps) {
        St.MaxRankOps = L.NumOps;
        St.Busiest = L.Me;
      }
    VerifyResult Out = merge(Facts, St);
    if (Stats)
      *Stats = St;
    return Out;
  }

private:
  const Schedule &Head;
  std::vector<RankPart> Parts;
  bool GlobalIndex;
  std::vector<LocalResult> Results;

  VerifyResult merge(const HeaderFacts &Facts, DistributedStats &St) {
    GatheredFindings G;
    G.Structure = Orphans;
    for (LocalResult &L : Results)
      for (Finding &F : L.Structure)
        G.Structure.push_back(std::move(F));
    if (G.Structure.empty()) {
      for (const DigestMismatch &M : compareDigests(Results, St.Digests)) {
        unsigned Step = 0;
        Diagnostic D =
            locateMismatch(Parts[M.Src], Parts[M.Dst], M.Src, M.Dst, Step);
        G.Mismatches.push_back({Step, M.Src, M.Dst, std::move(D)});
      }
      for (LocalResult &L : Results)
        for (Finding &F : L.Findings)
          G.Findings.push_back(std::move(F));
      for (Finding &F : nodeFindings(St))
        G.Findings.push_back(std::move(F));
      for (LocalResult &L : Results)
        if (L.Lack)
          G.Lacks.push_back({L.Me, std::move(*L.Lack)});
    }
    return mergeFindings(Head, Facts, std::move(G));
  }

  std::vector<Finding> nodeFindings(DistributedStats &St) {
    std::vector<Finding> Out;
    if (!Head.Nodes)
      return Out;
    const auto &Nodes = *Head.Nodes;
    for (uint32_t N = 0; N < Nodes.size(); ++N) {
      std::vector<MemberOffNode> Members;
      for (Rank R : Nodes[N])
        Members.push_back({R, Results[R].OffNode});
      ++St.NodeChecks;
      for (const NodePortFailure &F : checkNodePorts(Head, N, Members))
        Out.push_back(render(F));
    }
    return Out;
  }

  Finding render(const NodePortFailure &F) {
    bool Send = llvm::StringRef(F.Kind) == property::NodeSendPort;
    const Schedule &A = *Parts[F.FirstRank].S, &B = *Parts[F.AtRank].S;
    Diagnostic D = Send ? report::nodeSendPort(A, F.Step, F.Node, F.Count,
                                               F.First.Index, F.First.Index)
                        : report::nodeRecvPort(A, F.Step, F.Node, F.Count,
                                               F.First.Index, F.First.Index);
    D.Notes.back() = report::opNote(B, F.Step, F.At.Index);
    if (!GlobalIndex)
      for (std::string &N : D.Notes)
        N = report::stepNote(N);
    return {{F.Step, EventKey::Ops, F.At.Index, Send ? 4u : 5u}, std::move(D)};
  }

};

/// Per kind the finding with the least key, in key order.
std::vector<Diagnostic> firstOfEachKind(std::vector<Finding> All) {
  std::stable_sort(
      All.begin(), All.end(),
      [](const Finding &A, const Finding &B) { return A.Key < B.Key; });
  llvm::StringSet<> Seen;
  std::vector<Diagnostic> Out;
  for (Finding &F : All)
    if (Seen.insert(F.D.Kind).second)
      Out.push_back(std::move(F.D));
  return Out;
}

VerifyResult invalid(std::vector<Diagnostic> Diags) {
  VerifyResult R;
  R.St = VerifyResult::Status::Invalid;
  R.Diags = std::move(Diags);
  return R;
}

} // namespace

VerifyResult choreo::mergeFindings(const Schedule &Head,
                                   const HeaderFacts &Facts,
                                   GatheredFindings G) {
  VerifyResult Out;
  if (!G.Structure.empty()) {
    Out.St = VerifyResult::Status::Invalid;
    Out.Diags = firstOfEachKind(std::move(G.Structure));
    return Out;
  }
  std::vector<Finding> All = std::move(G.Findings);
  // The first disagreeing pair by step, sender and receiver; before every
  // other finding: the parts that disagree do not make one schedule.
  if (!G.Mismatches.empty()) {
    auto First = std::min_element(
        G.Mismatches.begin(), G.Mismatches.end(),
        [](const PairMismatch &A, const PairMismatch &B) {
          return std::tuple(A.Step, A.Src, A.Dst) <
                 std::tuple(B.Step, B.Src, B.Dst);
        });
    Finding F{EventKey(), std::move(First->D)};
    if (G.Mismatches.size() > 1)
      F.D.Notes.push_back(llvm::formatv("{0} more pairs of ranks disagree",
                                        G.Mismatches.size() - 1));
    All.push_back(std::move(F));
  }
  // Completeness: the first incomplete rank in the spec's order, and how
  // many there are.
  if (!G.Lacks.empty()) {
    auto First = std::min_element(
        G.Lacks.begin(), G.Lacks.end(), [&](const auto &A, const auto &B) {
          return Facts.requirementPos(A.first) < Facts.requirementPos(B.first);
        });
    All.push_back(
        Finding{{Head.Steps.numSteps(), EventKey::End, 0, 0},
                report::completeness(Head, First->first, First->second,
                                     G.Lacks.size())});
  }
  Out.Diags = firstOfEachKind(std::move(All));
  Out.St = Out.Diags.empty() ? VerifyResult::Status::Proved
                             : VerifyResult::Status::Failed;
  return Out;
}

VerifyResult choreo::checkDistributed(const Schedule &Whole,
                                      DistributedStats *Stats) {
  std::vector<Diagnostic> Head = Whole.verifyHeader();
  if (!Head.empty())
    return invalid(std::move(Head));
  // One pass over the ops: each to the parts of its ends.
  std::vector<RankPart> Parts(Whole.NumRanks);
  std::vector<OpAt> Orphans;
  for (RankPart &P : Parts)
    P.S = &Whole;
  for (unsigned St = 0; St < Whole.Steps.numSteps(); ++St) {
    llvm::ArrayRef<Op> Ops = Whole.Steps.step(St);
    for (uint32_t I = 0; I < Ops.size(); ++I) {
      Rank A = Ops[I].Src, B = Ops[I].Dst;
      if (A < Whole.NumRanks)
        Parts[A].Mine.push_back({St, I});
      if (B < Whole.NumRanks && B != A)
        Parts[B].Mine.push_back({St, I});
      if (A >= Whole.NumRanks && B >= Whole.NumRanks)
        Orphans.push_back({St, I});
    }
  }
  Simulation Sim(Whole, std::move(Parts), /*GlobalIndex=*/true);
  // An op none of whose ends is a rank is in no rank's part: the reader of
  // the whole file reports it, as the explicit checker does.
  for (Diagnostic &D : Whole.verifyOps(Orphans)) {
    EventKey K{0, EventKey::Ops, 0, 0};
    llvm::StringRef T = D.Message;
    if (T.consume_front("/steps/") && !T.consumeInteger(10, K.Step) &&
        T.consume_front("/ops/"))
      (void)T.consumeInteger(10, K.Op);
    Sim.Orphans.push_back({K, std::move(D)});
  }
  return Sim.run(Stats);
}

VerifyResult choreo::checkDistributedViews(llvm::ArrayRef<Schedule> Views,
                                           DistributedStats *Stats) {
  if (Views.empty())
    return invalid({Diagnostic("ranks", "/ranks: a schedule needs at least "
                                        "one rank")});
  // Every rank's header and step count must be rank 0's (one allreduce).
  Digest128 Zero = partHeaderDigest(Views[0]);
  for (Rank R = 1; R < Views.size(); ++R)
    if (!(partHeaderDigest(Views[R]) == Zero)) {
      VerifyResult Out;
      Out.St = VerifyResult::Status::Failed;
      Out.Diags.push_back(Diagnostic(
          property::MessageAgreement,
          llvm::formatv("rank {0} holds another call header or step count "
                        "({1} steps) than rank 0 ({2} steps)",
                        R, Views[R].Steps.numSteps(),
                        Views[0].Steps.numSteps()),
          {"every rank must hold the same header and step numbering"}));
      return Out;
    }
  std::vector<Diagnostic> Head = Views[0].verifyHeader();
  if (!Head.empty())
    return invalid(std::move(Head));
  // Parts with their own rows and columns: each rank's own header rules,
  // and each must be its own rank's (the first rank that fails names it).
  if (hasRankSizes(Views[0]))
    for (Rank R = 0; R < Views.size(); ++R) {
      std::vector<Diagnostic> Own = R ? Views[R].verifyHeader()
                                      : std::vector<Diagnostic>();
      if (Own.empty() && PairMatrix(Views[R]).viewRank() != R)
        Own.push_back(Diagnostic(
            "sizes", llvm::formatv("/sizes/part/0: rank {0} holds the row and "
                                   "column of rank {1}",
                                   R, PairMatrix(Views[R]).viewRank())));
      if (!Own.empty()) {
        for (Diagnostic &D : Own)
          D.Notes.push_back(llvm::formatv("in rank {0}'s part", R));
        return invalid(std::move(Own));
      }
    }
  // ... and their rows laid out one after another (a job's exclusive scan
  // of the row lengths): rank r's row starts where rank r - 1's ends, and
  // the last ends at the length of all.
  if (hasRankSizes(Views[0]) && Views.size() == Views[0].NumRanks) {
    uint64_t At = 0;
    for (Rank R = 0; R <= Views.size(); ++R) {
      uint64_t Total = alltoallLength(Views[0]);
      Interval Row = R < Views.size() ? PairMatrix(Views[R]).row(R)
                                      : Interval{Total, Total};
      if (Row.Lo != At) {
        VerifyResult Out;
        Out.St = VerifyResult::Status::Failed;
        Out.Diags.push_back(Diagnostic(
            property::MessageAgreement,
            R < Views.size()
                ? llvm::formatv("rank {0}'s row starts at byte {1} of all, "
                                "but the rows before it end at byte {2}",
                                R, Row.Lo, At)
                      .str()
                : llvm::formatv("the ranks' rows end at byte {0} of all, "
                                "but all has {1} bytes",
                                At, Total)
                      .str(),
            {"the blocks of all are every rank's row, in rank order"}));
        return Out;
      }
      At = Row.Hi;
    }
  }
  if (Views.size() != Views[0].NumRanks)
    return invalid(
        {Diagnostic(property::MessageAgreement,
                    llvm::formatv("{0} parts for the {1} ranks of the schedule",
                                  Views.size(), Views[0].NumRanks))});
  std::vector<RankPart> Parts(Views.size());
  for (Rank R = 0; R < Views.size(); ++R) {
    Parts[R].S = &Views[R];
    Parts[R].Mine = opsOf(Views[R], R);
  }
  return Simulation(Views[0], std::move(Parts), /*GlobalIndex=*/false)
      .run(Stats);
}
