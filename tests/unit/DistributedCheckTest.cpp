//===- tests/unit/DistributedCheckTest.cpp - Split proof vs explicit ------===//
///
/// \file
/// The differential test of the distributed proof (docs/distributed-
/// proof.md): on every schedule of a corpus (every generator over a sweep
/// of p, q, sizes with zeros, roots, operators, with and without nodes)
/// and on thousands of seeded mutations of them (ops dropped, duplicated,
/// re-targeted, moved a step, swapped; byte ranges, contributor sets,
/// combine flags, roots, node layouts, ports and the operator changed), the
/// local checks of every rank, the node checks and the message agreement,
/// simulated in one process, give the explicit checker's verdict and its
/// diagnostics: the same step, rank and block. Where the two may differ
/// (after a send that fails availability, the explicit checker goes on
/// with what the sender held, a rank with what it was told) the weaker
/// property is asserted. Parts held separately (onlyRank) that disagree
/// with one another fail the message agreement at the step they differ.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "options/Parse.h"

#include "support/Generate.h"
#include "support/Mutations.h"
#include "verifier/DistributedCheck.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <random>

using namespace choreo;
using namespace choreo::test;

namespace {

using Corpus = std::vector<std::pair<std::string, Schedule>>;

/// Every generator over a sweep of the options it takes; copies on nodes.
const Corpus &corpus() {
  static const Corpus C = [] {
    Corpus C;
    std::vector<std::string> Args;
    for (int P : {1, 2, 3, 4, 5, 7, 8}) {
      std::string Ps = "--p " + std::to_string(P);
      int Root = P > 2 ? P - 2 : 0;
      // Irregular counts with zeros: 2,0,3,1,0,1,...
      std::string Cs;
      for (int R = 0; R < P; ++R)
        Cs += (R ? "," : "") +
              std::to_string((R * 7 + 2) % 5 == 4 ? 0 : (R * 7 + 2) % 5);
      Args.push_back(Ps); // a barrier
      Args.push_back(Ps + " --radix 3");
      Args.push_back(Ps + " --bytes 3");
      Args.push_back(Ps + " --bytes 0");
      Args.push_back(Ps + " --counts " + Cs);
      Args.push_back(Ps + " --bytes 5 --topology ring");
      Args.push_back(Ps + " --bytes 13 --root " + std::to_string(Root));
      Args.push_back(Ps + " --bytes 40 --segments 3 --root " +
                     std::to_string(Root));
      Args.push_back(Ps + " --bytes 48");
      Args.push_back(Ps + " --bytes 48 --root " + std::to_string(Root));
      Args.push_back(Ps + " --bytes 48 --op noncommutative");
      Args.push_back(Ps + " --bytes 48 --root " + std::to_string(Root) +
                     " --op noncommutative");
      for (int Q : {1, 2, 3}) {
        std::string Qs = Ps + " --q " + std::to_string(Q);
        Args.push_back(Qs + " --bytes-a 3 --bytes-b 5");
        Args.push_back(Qs + " --bytes-a 4");
        Args.push_back(Qs + " --bytes-a 0 --bytes-b 2");
      }
    }
    Args.push_back("--p 6 --bytes 13 --intra bruck");
    Args.push_back("--p 6 --bytes 13 --intra ring --root 4");
    Args.push_back("--p 4 --q 2 --counts-a 1,0,3,2 --counts-b 4,1");
    Args.push_back("--p 5 --bytes 40 --slices 8,0,16,8,8");
    Args.push_back("--p 5 --bytes 40 --slices 8,0,16,8,8 --op "
                   "noncommutative");
    Args.push_back("--p 6 --counts 5,0,9,1,0,3 --block-bytes 4");
    Args.push_back("--p 6 --counts 5,0,9,1,0,3 --pipeline-bytes 4");
    Args.push_back("--p 3 --q 4 --bytes 24 --root 5");
    // The intercommunicator barrier, gather and scatter.
    Args.push_back("--p 3 --q 2");
    Args.push_back("--p 3 --q 2 --bytes-b 5 --root 1");
    Args.push_back("--p 3 --q 2 --counts-a 4,0,9 --root 4");
    Args.push_back("--p 3 --q 4 --bytes 24 --root 1 --op noncommutative");
    Args.push_back("--p 3 --q 4 --bytes 24 --op noncommutative");
    for (const Generator *G : allGenerators()) {
      size_t Before = C.size();
      for (const std::string &A : Args)
        if (std::optional<Schedule> S = tryGenerate(*G, A))
          C.push_back({G->id().str() + " " + A, std::move(*S)});
      EXPECT_GT(C.size(), Before) << G->id().str() << " built nothing";
    }
    // On nodes of two consecutive ranks (most fail the node ports), and
    // of three with two node ports.
    size_t Plain = C.size();
    for (size_t I = 0; I < Plain; ++I) {
      if (C[I].second.NumRanks < 4 || I % 2)
        continue;
      // A copy: the push_backs below may move C's elements.
      const Schedule S = C[I].second;
      for (unsigned Per : {2u, 3u}) {
        Schedule N = S;
        N.Nodes.emplace();
        for (Rank R = 0; R < S.NumRanks; ++R) {
          if (R % Per == 0)
            N.Nodes->emplace_back();
          N.Nodes->back().push_back(R);
        }
        if (Per == 3)
          N.NodePort = NodePorts{2, 2};
        C.push_back(
            {C[I].first + " on nodes of " + std::to_string(Per), std::move(N)});
      }
    }
    return C;
  }();
  return C;
}

std::string describe(const VerifyResult &R) {
  std::string S = std::to_string(int(R.St)) + ":";
  for (const Diagnostic &D : R.Diags) {
    S += " [" + D.Kind + "] " + D.Message;
    for (const std::string &N : D.Notes)
      S += " {" + N + "}";
  }
  return S;
}

const Diagnostic *kind(const VerifyResult &R, llvm::StringRef K) {
  for (const Diagnostic &D : R.Diags)
    if (D.Kind == K)
      return &D;
  return nullptr;
}

/// The step a property diagnostic names ("step 3: ..."), if any.
std::optional<unsigned> stepOf(const Diagnostic *D) {
  unsigned St = 0;
  llvm::StringRef M = D ? llvm::StringRef(D->Message) : "";
  if (!M.consume_front("step ") || M.consumeInteger(10, St))
    return std::nullopt;
  return St;
}

std::string text(const Diagnostic *D) {
  if (!D)
    return "(none)";
  std::string S = D->Message;
  for (const std::string &N : D->Notes)
    S += " {" + N + "}";
  return S;
}

const char *const AllKinds[] = {property::Availability, property::SendPort,
                                property::RecvPort,     property::Duplex,
                                property::Topology,     property::Completeness,
                                property::ExactlyOnce,  property::NodeSendPort,
                                property::NodeRecvPort, property::OperandOrder};

/// The distributed verdict equals the explicit one and names the same
/// step, rank and block; after a send that fails availability (step s0)
/// only what precedes the divergence must agree. Returns whether the full
/// diagnostics were comparable.
bool expectSame(const Schedule &S, const std::string &What) {
  VerifyResult E = checkExplicit(S), D = checkDistributed(S);
  EXPECT_EQ(int(E.St), int(D.St)) << What << "\n explicit:    " << describe(E)
                                  << "\n distributed: " << describe(D);
  std::optional<unsigned> S0 = stepOf(kind(E, property::Availability));
  if (E.St != VerifyResult::Status::Failed || !S0) {
    EXPECT_EQ(describe(E), describe(D)) << What;
    return true;
  }
  for (const char *K : AllKinds) {
    const Diagnostic *A = kind(E, K), *B = kind(D, K);
    if (llvm::StringRef(K) == property::Completeness)
      continue;
    if (llvm::StringRef(K) == property::ExactlyOnce ||
        llvm::StringRef(K) == property::OperandOrder) {
      std::optional<unsigned> SA = stepOf(A), SB = stepOf(B);
      unsigned First = std::min(SA.value_or(~0u), SB.value_or(~0u));
      if (First >= *S0)
        continue;
    }
    EXPECT_EQ(text(A), text(B)) << What << " [" << K << "]";
  }
  return false;
}

/// Draws Count mutations of C's schedules from a generator seeded with
/// Seed: a base at random, one seeded mutation of it (support/Mutations.h);
/// draws whose mutation does not apply are skipped. Fn(What, How, S)
/// returns whether the mutation counts towards Count (a test may skip some
/// after drawing them). Stops at the first test failure; returns how many
/// counted.
template <typename Fn>
unsigned forSeededMutations(const Corpus &C, unsigned Seed, unsigned Count,
                            Fn F) {
  std::mt19937 Rng(Seed);
  unsigned N = 0;
  while (N < Count && !::testing::Test::HasFailure()) {
    const auto &[What, Base] = C[Rng() % C.size()];
    Schedule S;
    std::string How;
    if (!mutate(Base, S, How, Rng))
      continue;
    N += F(What, How, S);
  }
  return N;
}

} // namespace

TEST(DistributedCheck, SameVerdictOnTheCorpus) {
  unsigned Failing = 0;
  for (const auto &[What, S] : corpus()) {
    expectSame(S, What);
    Failing += !checkExplicit(S).proved();
  }
  // The generators' schedules prove; some node layouts fail their ports.
  EXPECT_GT(corpus().size(), 300u);
  EXPECT_GT(Failing, 20u);
}

TEST(DistributedCheck, SameVerdictOnSeededMutations) {
  unsigned Failing = 0, Exact = 0;
  std::map<std::string, unsigned> Kinds, Statuses;
  unsigned Mutations = forSeededMutations(
      corpus(), 2024, 20000,
      [&](const std::string &What, const std::string &How, const Schedule &S) {
        VerifyResult E = checkExplicit(S);
        Failing += !E.proved();
        ++Statuses[std::to_string(int(E.St))];
        for (const Diagnostic &D : E.Diags)
          ++Kinds[D.Kind];
        Exact += expectSame(S, What + ", " + How);
        return true;
      });
  EXPECT_GT(Failing, Mutations / 2);
  // Most failures have no failed send before them: every diagnostic equal.
  EXPECT_GT(Exact, Mutations * 2 / 3);
  std::string Summary;
  for (const auto &[K, N] : Kinds)
    Summary += " " + K + "=" + std::to_string(N);
  std::printf("%u mutations, %u fail, %u with every diagnostic equal;%s\n",
              Mutations, Failing, Exact, Summary.c_str());
  // Every property and the structural rules fail often enough to be
  // compared in earnest.
  for (const char *K : AllKinds)
    EXPECT_GT(Kinds[K], 20u) << K;
  EXPECT_GT(Kinds["rank-range"], 20u);
  EXPECT_GT(Kinds["block-range"] + Kinds["empty-block"], 20u);
  EXPECT_GT(Statuses["2"], 100u);
}

//===----------------------------------------------------------------------===//
// Parts held separately
//===----------------------------------------------------------------------===//

namespace {

std::vector<Schedule> parts(const Schedule &S) {
  std::vector<Schedule> V;
  for (Rank R = 0; R < S.NumRanks; ++R)
    V.push_back(onlyRank(S, R));
  return V;
}

} // namespace

TEST(DistributedCheck, PartsGiveTheSameVerdict) {
  // onlyRank's parts do not know the whole's op indices: the verdict and
  // the failing kinds are the explicit checker's (which rank a failure
  // names may differ within a step).
  unsigned Compared = 0;
  forSeededMutations(
      corpus(), 77, 600,
      [&](const std::string &What, const std::string &How, const Schedule &S) {
        if (S.NumRanks > 8)
          return false;
        VerifyResult E = checkExplicit(S);
        if (E.St == VerifyResult::Status::Invalid)
          return true;
        ++Compared;
        VerifyResult D = checkDistributedViews(parts(S));
        EXPECT_EQ(int(E.St), int(D.St)) << What << ", " << How << "\n"
                                        << describe(E) << "\n"
                                        << describe(D);
        if (E.St != D.St || kind(E, property::Availability))
          return true;
        for (const char *K : AllKinds)
          EXPECT_EQ(bool(kind(E, K)), bool(kind(D, K))) << What << ", " << How;
        EXPECT_FALSE(kind(D, property::MessageAgreement));
        return true;
      });
  EXPECT_GT(Compared, 400u);
}

TEST(DistributedCheck, AgreementTermsSumToZero) {
  for (const auto &[What, S] : corpus()) {
    if (!S.verify().empty())
      continue;
    HeaderFacts F(S);
    Digest128 Sum;
    for (Rank R = 0; R < S.NumRanks; ++R) {
      LocalResult L = checkLocal(S, R, opsOf(S, R), F);
      Digest128 T = agreementTerm(L);
      Sum.H1 += T.H1;
      Sum.H2 += T.H2;
    }
    EXPECT_EQ(Sum, Digest128()) << What;
  }
}

TEST(DistributedCheck, OneSidedChangeFailsTheAgreement) {
  // A part changed at one end of a message only: the digests of that
  // message differ, and the failure names its step and both ranks.
  std::mt19937 Rng(5);
  unsigned Checked = 0;
  for (const auto &[What, S] : corpus()) {
    if (S.Steps.numOps() == 0 || S.NumRanks > 8 || Rng() % 3)
      continue;
    std::vector<Schedule> V = parts(S);
    // An op of the whole, and which end's part to change.
    unsigned St = 0;
    size_t I = 0;
    do {
      St = Rng() % S.Steps.numSteps();
    } while (S.Steps.step(St).empty());
    I = Rng() % S.Steps.step(St).size();
    const Op &O = S.Steps.step(St)[I];
    Rank Me = Rng() % 2 ? O.Src : O.Dst;
    Steps Mine = unpack(V[Me]);
    // The same op in Me's part: the k-th op of that pair in step St.
    size_t K = 0;
    for (size_t J = 0; J < I; ++J)
      K += S.Steps.step(St)[J].Src == O.Src && S.Steps.step(St)[J].Dst == O.Dst;
    OpRec *Rec = nullptr;
    for (OpRec &R : Mine[St])
      if (R.Src == O.Src && R.Dst == O.Dst && K-- == 0) {
        Rec = &R;
        break;
      }
    ASSERT_TRUE(Rec);
    std::string How;
    Block &B = Rec->Blocks.back();
    // A lattice block (Bruck's default) is dropped: its span is not its
    // bytes (docs/format.md, "Lattice blocks").
    if (Rng() % 2 || B.Hi - B.Lo < 2 || B.isLattice()) {
      How = "dropped";
      Mine[St].erase(Mine[St].begin() + (Rec - Mine[St].data()));
    } else {
      How = "shrunk";
      B.Hi -= 1;
    }
    pack(V[Me], Mine);
    VerifyResult D = checkDistributedViews(V);
    ASSERT_FALSE(D.Diags.empty()) << What;
    EXPECT_EQ(D.Diags.front().Kind, property::MessageAgreement) << What;
    std::string Want = llvm::formatv("step {0}: rank {1} sends ", St, O.Src);
    EXPECT_EQ(D.Diags.front().Message.rfind(Want, 0), 0u)
        << What << " (" << How << " at rank " << Me
        << "): " << D.Diags.front().Message;
    EXPECT_NE(
        D.Diags.front().Message.find(
            llvm::formatv("to rank {0}, but rank {0} expects", O.Dst).str()),
        std::string::npos)
        << D.Diags.front().Message;
    // And in a job: the terms no longer sum to zero.
    HeaderFacts F(S);
    Digest128 Sum;
    for (Rank R = 0; R < S.NumRanks; ++R) {
      Digest128 T = agreementTerm(checkLocal(V[R], R, opsOf(V[R], R), F,
                                             /*GlobalIndex=*/false));
      Sum.H1 += T.H1;
      Sum.H2 += T.H2;
    }
    EXPECT_NE(Sum, Digest128()) << What;
    ++Checked;
  }
  EXPECT_GT(Checked, 50u);
}

TEST(DistributedCheck, AnotherHeaderFailsTheAgreement) {
  Schedule S = gen("bcast-binomial", "--p 5 --bytes 6 --root 2");
  std::vector<Schedule> V = parts(S);
  V[3].Root = 1;
  VerifyResult D = checkDistributedViews(V);
  ASSERT_EQ(D.Diags.size(), 1u);
  EXPECT_EQ(D.Diags[0].Message, "rank 3 holds another call header or step "
                                "count (3 steps) than rank 0 (3 steps)");
  EXPECT_EQ(D.exitCode(), ExitFailed);
}

TEST(DistributedCheck, ALocalCheckSeesOnlyItsRank) {
  // Rank 0 sends a byte it never holds: only rank 0's check finds it, with
  // the explicit checker's words; rank 1's check is clean but lacks it.
  Schedule S = gen("allgather-ring", "--p 3 --bytes 4");
  Steps St = unpack(S);
  St[0][0].Blocks[0].Hi += 1; // rank 0 sends all[0,5) in step 0
  pack(S, St);
  HeaderFacts F(S);
  LocalResult R0 = checkLocal(S, 0, opsOf(S, 0), F);
  ASSERT_EQ(R0.Findings.size(), 1u);
  EXPECT_EQ(R0.Findings[0].D.Message, firstMessage(checkExplicit(S)));
  LocalResult R2 = checkLocal(S, 2, opsOf(S, 2), F);
  EXPECT_TRUE(R2.Findings.empty());
  EXPECT_FALSE(R2.Lack);
  EXPECT_EQ(R0.Sends.size(), 1u);
  EXPECT_EQ(R0.Expects.size(), 1u);
}

//===----------------------------------------------------------------------===//
// A rank's facts derived alone
//===----------------------------------------------------------------------===//

namespace {

std::string holdingsText(llvm::ArrayRef<Holding> Hs) {
  std::string Out;
  for (const Holding &H : Hs)
    Out += llvm::formatv("{0}:{1}[{2},{3}) ", H.R, H.Buf, H.Lo, H.Hi).str();
  return Out;
}

std::string localText(const LocalResult &L) {
  std::string Out;
  for (const Finding &F : L.Findings)
    Out += llvm::formatv("{0}/{1}/{2}/{3} {4}: {5}\n", F.Key.Step,
                         int(F.Key.Ph), F.Key.Op, F.Key.Sub, F.D.Kind,
                         F.D.Message)
               .str();
  Out += "lack: " + L.Lack.value_or("-") + "\n";
  for (const auto *V : {&L.Sends, &L.Expects})
    for (const PeerDigest &D : *V)
      Out += llvm::formatv("{0}:{1:x}{2:x} ", D.Peer, D.D.H1, D.D.H2).str();
  return Out;
}

/// Rank R's facts from a HeaderFacts of its own (answered from the header
/// alone, no table of every rank) against the shared tables'; and its
/// local check under either.
void expectAloneAsTables(const Schedule &S, const HeaderFacts &Shared,
                         const std::string &What) {
  for (Rank R = 0; R < S.NumRanks; ++R) {
    HeaderFacts Alone(S);
    EXPECT_EQ(holdingsText(Alone.initialOf(R)),
              holdingsText(Shared.initialOf(R)))
        << What << ", rank " << R;
    EXPECT_EQ(holdingsText(Alone.requirementsOf(R)),
              holdingsText(Shared.requirementsOf(R)))
        << What << ", rank " << R;
    std::vector<OpAt> Mine = opsOf(S, R);
    EXPECT_EQ(localText(checkLocal(S, R, Mine, Alone)),
              localText(checkLocal(S, R, Mine, Shared)))
        << What << ", rank " << R;
    EXPECT_FALSE(Alone.hasTables()) << What << ", rank " << R;
  }
}

} // namespace

TEST(DistributedCheck, ARankAloneDerivesWhatTheTablesHold) {
  // A job's rank derives its own holdings and requirement from the header
  // (O(p), no table of every rank): on the corpus and on mutations (roots,
  // nodes, sizes changed), exactly what the tables of every rank say, and
  // the same local check.
  unsigned Compared = 0;
  for (const auto &[What, S] : corpus()) {
    if (!S.verifyHeader().empty())
      continue;
    HeaderFacts Shared(S);
    (void)Shared.requirementPos(0); // the tables
    ASSERT_TRUE(Shared.hasTables());
    expectAloneAsTables(S, Shared, What);
    ++Compared;
    if (HasFailure())
      return;
  }
  forSeededMutations(
      corpus(), 77, 600,
      [&](const std::string &What, const std::string &How, const Schedule &S) {
        if (!S.verifyHeader().empty() || !S.verify().empty())
          return true;
        HeaderFacts Shared(S);
        (void)Shared.requirementPos(0);
        expectAloneAsTables(S, Shared, What + ", " + How);
        ++Compared;
        return true;
      });
  EXPECT_GT(Compared, 500u);
}

TEST(DistributedCheck, ARankAloneRefusesAWrongContributorSet) {
  // Rank 3's part of a ring allreduce, checked alone as a job's rank does
  // (its own facts, no tables): a block it sends that claims a contributor
  // it does not hold fails availability; a block it receives that claims
  // rank 3 itself fails exactly-once.
  Schedule S = onlyRank(gen("allreduce-ring", "--p 8 --bytes 64"), 3);
  auto Check = [](const Schedule &Part) {
    HeaderFacts F(Part);
    LocalResult L = checkLocal(Part, 3, opsOf(Part, 3), F,
                               /*GlobalIndex=*/false);
    EXPECT_FALSE(F.hasTables());
    std::string Kinds;
    for (const Finding &X : L.Findings)
      Kinds += X.D.Kind + " ";
    return Kinds;
  };
  EXPECT_EQ(Check(S), "");
  for (bool Send : {true, false}) {
    Steps St = unpack(S);
    OpRec *Rec = nullptr;
    for (auto &Step : St)
      for (OpRec &R : Step)
        if (!Rec && (Send ? R.Src == 3 : R.Dst == 3) &&
            R.Contribs.front().numIntervals() && Step.size() > 0 &&
            &Step != &St.front())
          Rec = &R;
    ASSERT_TRUE(Rec);
    RankSet &C = Rec->Contribs.front();
    if (Send) {
      // One contributor more than rank 3 holds: the least one missing.
      for (Rank X = 0; X < 8; ++X) {
        RankSet More = C;
        More.insert(X, X + 1);
        if (!(More == C)) {
          C = More;
          break;
        }
      }
    } else {
      C.insert(3, 4);
    }
    Schedule Bad = S;
    pack(Bad, St);
    EXPECT_EQ(Check(Bad), Send ? "availability " : "exactly-once ")
        << (Send ? "sent" : "received");
  }
}

TEST(DistributedCheck, ARingRankPastTheUnionCacheComparesSets) {
  // A ring rank of p = 4500 unites p - 1 new sets: past 4096 the table
  // stops interning its unions (ContribTable), so the everyone it ends
  // with has another id than the everyone its allgather blocks name.
  // Availability of those sends and its completeness compare the sets:
  // the part is proved, and a send that claims one contributor too few
  // fails availability, a receipt that claims the rank itself
  // exactly-once.
  const Generator *G = findGenerator("allreduce-ring");
  ASSERT_TRUE(G);
  const uint32_t P = 4500;
  const Rank Me = 7;
  auto V = parseOptions({"--p", std::to_string(P), "--bytes",
                         std::to_string(8 * P)},
                        G->options());
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  auto Part = G->buildRank(*V, Me);
  ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
  auto Check = [&](const Schedule &S) {
    HeaderFacts F(S);
    LocalResult L = checkLocal(S, Me, opsOf(S, Me), F, /*GlobalIndex=*/false);
    std::string Kinds;
    for (const Finding &X : L.Findings)
      Kinds += X.D.Kind + " ";
    return Kinds + (L.Lack ? "incomplete" : "");
  };
  EXPECT_EQ(Check(*Part), "");
  // The first allgather send (its own segment, after every union) and the
  // last pairwise receipt.
  for (bool Send : {true, false}) {
    Steps St = unpack(*Part);
    OpRec *Rec = nullptr;
    for (auto &Step : St)
      for (OpRec &R : Step)
        if (Send ? !Rec && R.Src == Me && !R.Blocks.front().Reduce
                 : R.Dst == Me && R.Blocks.front().Reduce)
          Rec = &R;
    ASSERT_TRUE(Rec);
    RankSet &C = Rec->Contribs.front();
    if (Send)
      C.erase((Me + 3) % P, (Me + 4) % P);
    else
      C.insert(Me, Me + 1);
    Schedule Bad = *Part;
    pack(Bad, St);
    EXPECT_EQ(Check(Bad), Send ? "availability " : "exactly-once ")
        << (Send ? "sent" : "received");
  }
}

TEST(DistributedCheck, AWholeRingPastTheUnionCacheGivesTheSameVerdict) {
  // The explicit checker of an 80-rank ring unites 6,320 new sets: past
  // 4096 it stops interning them too. Proved alike, and the last block
  // sent claiming one contributor too few (the allgather's) or one too
  // many (the pairwise exchange's, a sender alone) fails alike.
  for (const char *Id : {"allreduce-ring", "reduce-scatter-ring"}) {
    Schedule S = gen(Id, "--p 80 --bytes 640");
    EXPECT_TRUE(expectSame(S, Id));
    EXPECT_EQ(int(checkExplicit(S).St), int(VerifyResult::Status::Proved))
        << Id;
    Steps St = unpack(S);
    // The last op of the last step: after every union of its sender.
    RankSet &C = St.back().back().Contribs.front();
    Rank X = C.intervals().front().Lo;
    if (C.cardinality() == 1)
      C.insert((X + 1) % 80, (X + 1) % 80 + 1);
    else
      C.erase(X, X + 1);
    Schedule Bad = S;
    pack(Bad, St);
    expectSame(Bad, std::string(Id) + " mutated"); // a send fails first
    EXPECT_EQ(int(checkExplicit(Bad).St), int(VerifyResult::Status::Failed))
        << Id;
  }
}

//===----------------------------------------------------------------------===//
// Lattice blocks (alltoall-bruck --lattice on)
//===----------------------------------------------------------------------===//

namespace {

/// alltoall-bruck --lattice on at every p up to 20, radices 2, 3 and 5,
/// a round's messages at once or one a step, blocks of 1 and 3 bytes.
const Corpus &latticeCorpus() {
  static const Corpus C = [] {
    Corpus C;
    const Generator *G = findGenerator("alltoall-bruck");
    EXPECT_TRUE(G);
    if (!G)
      return C;
    for (int P = 1; P <= 20; ++P)
      for (const char *K : {"2", "3", "5"})
        for (const char *Conc : {"off", "on"})
          for (const char *B : {"1", "3"}) {
            std::string A = "--p " + std::to_string(P) + " --bytes " + B +
                            " --radix " + K + " --concurrent " + Conc +
                            " --lattice on";
            auto S = generateFromArgs(*G, A);
            EXPECT_TRUE(bool(S)) << A;
            if (!S) {
              llvm::consumeError(S.takeError());
              continue;
            }
            C.push_back({"alltoall-bruck " + A, std::move(*S)});
          }
    return C;
  }();
  return C;
}

} // namespace

// Bruck's rectangles prove under both checkers, whole and as parts held
// separately; on seeded mutations (a lattice's rows, columns, element
// size, column stride or start changed, and every other mutation) the
// distributed verdict and diagnostics are the explicit checker's.
TEST(DistributedCheck, LatticeBlocksGiveTheSameVerdict) {
  const Corpus &C = latticeCorpus();
  ASSERT_EQ(C.size(), 20u * 3 * 2 * 2);
  unsigned Lattices = 0;
  for (const auto &[What, S] : C) {
    EXPECT_TRUE(checkExplicit(S).proved()) << What;
    expectSame(S, What);
    EXPECT_TRUE(checkDistributedViews(parts(S)).proved()) << What;
    Lattices += S.Steps.numLattices();
  }
  EXPECT_GT(Lattices, 10000u);
  unsigned Nth = 0, Failing = 0, Views = 0;
  std::map<std::string, unsigned> Kinds, Hows;
  unsigned Mutations = forSeededMutations(
      C, 24, 4000,
      [&](const std::string &What, const std::string &How, const Schedule &S) {
        ++Nth;
        ++Hows[How];
        VerifyResult E = checkExplicit(S);
        Failing += !E.proved();
        for (const Diagnostic &D : E.Diags)
          ++Kinds[D.Kind];
        expectSame(S, What + ", " + How);
        if (Nth % 8 == 0 && E.St != VerifyResult::Status::Invalid) {
          ++Views;
          VerifyResult D = checkDistributedViews(parts(S));
          EXPECT_EQ(int(E.St), int(D.St)) << What << ", " << How << "\n"
                                          << describe(E) << "\n"
                                          << describe(D);
        }
        return true;
      });
  EXPECT_GT(Failing, Mutations / 3);
  EXPECT_GT(Views, 300u);
  for (const char *K : {property::Availability, property::Completeness,
                        property::SendPort, property::RecvPort})
    EXPECT_GT(Kinds[K], 20u) << K;
  EXPECT_GT(Kinds["lattice"], 20u);
  for (const char *H :
       {"change a lattice's rows", "change a lattice's columns",
        "change a lattice's element size", "change a lattice's column stride",
        "shift a lattice"})
    EXPECT_GT(Hows[H], 50u) << H;
}
