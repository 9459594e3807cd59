//===- tests/unit/AlltoallRowColumnTest.cpp - Compact alltoall headers ----===//
///
/// \file
/// The alltoall headers that hold no p x p matrix (docs/format.md): an
/// alltoallv rank's own row and column (RankSizes: sizes.part, row,
/// column, column_at, used), from which a rank builds and proves its part
/// in O(p), and the intergroup alltoall's sizes.block [a, b].
/// - A rank's part built from its row and column is exactly its ops of the
///   whole schedule built from the matrix, over a sweep of matrices
///   (irregular with zeros, empty rows and columns, one skewed rank, all
///   empty, one block) and every rank; the parts prove as the whole does.
/// - Rows and columns that do not fit together (rank s sends r 8 bytes, r
///   expects 16 from s) fail the distributed proof's message agreement,
///   naming the step, both ranks and the blocks.
/// - The header's rules, each naming its JSON path.
/// - sizes.block [a, b] of an intergroup alltoall is the matrix alike
///   (every lookup, every build, whole and per rank).
///
//===----------------------------------------------------------------------===//

#include "generators/Generator.h"
#include "ir/PairMatrix.h"
#include "options/Parse.h"
#include "support/Generate.h"
#include "verifier/DistributedCheck.h"

#include "llvm/Support/FormatVariadic.h"

#include <functional>
#include <optional>
#include <string>

#include <gtest/gtest.h>

using namespace choreo;

namespace {

/// Entry (I, J) of the sweep's matrices 0 to 3 over N ranks, which the
/// intracommunicator and intergroup sweeps share; none for another K.
std::optional<uint64_t> sharedSweepEntry(int K, uint32_t I, uint32_t J,
                                         uint32_t N) {
  switch (K) {
  case 0: // irregular with zeros
    return (I * 3 + J * 5) % 4 * 3;
  case 1: // rank 1's row and rank N-1's column empty
    return I == 1 % N || J == N - 1 ? 0 : 1 + (I + 2 * J) % 3;
  case 2: // one skewed rank
    return I == 0 ? 1000 : 1;
  case 3: // nothing at all
    return 0;
  default:
    return std::nullopt;
  }
}

/// Matrix number K of the sweep at p ranks.
std::vector<uint64_t> rowColumnMatrix(uint32_t P, int K) {
  std::vector<uint64_t> M(size_t(P) * P, 0);
  for (uint32_t I = 0; I < P; ++I)
    for (uint32_t J = 0; J < P; ++J) {
      uint64_t &X = M[size_t(I) * P + J];
      if (auto V = sharedSweepEntry(K, I, J, P))
        X = *V;
      else if (K == 4) // one block
        X = I == P / 2 && J == 0 ? 5 : 0;
      else // alike but the diagonal
        X = I == J ? 0 : 4;
    }
  return M;
}

CallHeader rowColumnPairsHeader(uint32_t P, std::vector<uint64_t> M) {
  CallHeader H;
  H.Kind = Collective::Alltoallv;
  setIntragroup(H, P, {});
  H.Sizes = {{"pairs", std::move(M)}};
  return H;
}

CallHeader rowColumnRankHeader(const CallHeader &Whole, Rank Me) {
  CallHeader H = Whole;
  setRankSizes(H, rankSizesOf(PairMatrix(Whole), Me));
  return H;
}

/// Rank Me's ops of S, step by step: "step: src>dst lo-hi,..." lines.
std::string rowColumnOpsText(const Schedule &S, Rank Me) {
  std::string Out;
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St)
    for (const Op &O : S.Steps.step(St)) {
      if (O.Src != Me && O.Dst != Me)
        continue;
      Out += llvm::formatv("{0}: {1}>{2}", St, O.Src, O.Dst).str();
      for (const Block &B : S.Steps.blocks(O))
        Out += llvm::formatv(" {0}-{1}", B.Lo, B.Hi).str();
      Out += "\n";
    }
  return Out;
}

/// Rank Me's Part, built from its row and column, is the projection of
/// Whole: its header holds, the same steps, Me's ops alike, and nothing
/// but Me's ops. Label names the case in a failure.
void expectPartIsProjection(const Schedule &Part, const Schedule &Whole,
                            Rank Me, const std::string &Label) {
  std::vector<Diagnostic> D = Part.verifyHeader();
  EXPECT_TRUE(D.empty()) << Label << ": "
                         << (D.empty() ? "" : D.front().Message);
  EXPECT_EQ(Part.Steps.numSteps(), Whole.Steps.numSteps()) << Label;
  EXPECT_EQ(rowColumnOpsText(Part, Me), rowColumnOpsText(Whole, Me)) << Label;
  for (unsigned St = 0; St < Part.Steps.numSteps(); ++St)
    for (const Op &O : Part.Steps.step(St))
      EXPECT_TRUE(O.Src == Me || O.Dst == Me) << Label << ", step " << St;
}

OptionValues rowColumnOptions(const Generator &G, const std::string &Args) {
  std::vector<std::string> Words;
  llvm::StringRef Rest(Args);
  while (!Rest.trim().empty()) {
    auto [W, R] = Rest.trim().split(' ');
    Words.push_back(W.str());
    Rest = R;
  }
  auto V = parseOptions(Words, G.options());
  EXPECT_TRUE(bool(V)) << Args;
  if (!V) {
    llvm::consumeError(V.takeError());
    return OptionValues(G.options());
  }
  return *V;
}

} // namespace

// Every rank of alltoallv-mpich, alltoall-scattered (batches 1, 3, all)
// and alltoall-pairwise (shifts and XOR partners) builds from its row and
// column exactly its ops of the whole built from the matrix, in the same
// steps; each part's header passes its rules, its local check is clean,
// and the parts together prove what the whole proves. About 0.3 s.
TEST(RankForm, AlltoallvFromRowAndColumnIsTheProjection) {
  struct Case {
    const char *Id;
    std::string Args;
  };
  std::vector<Case> Cases = {{"alltoallv-mpich", ""},
                             {"alltoall-scattered", "--batch 1"},
                             {"alltoall-scattered", "--batch 3"},
                             {"alltoall-scattered", "--batch 0"},
                             {"alltoall-pairwise", ""}};
  unsigned Checked = 0, Proved = 0;
  for (const Case &C : Cases) {
    const Generator *G = findGenerator(C.Id);
    ASSERT_NE(G, nullptr) << C.Id;
    OptionValues Own = rowColumnOptions(*G, C.Args);
    for (uint32_t P : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 13u, 16u})
      for (int K = 0; K < 6; ++K) {
        CallHeader H = rowColumnPairsHeader(P, rowColumnMatrix(P, K));
        auto Whole = G->generateFor(H, 8, Own);
        ASSERT_TRUE(bool(Whole))
            << C.Id << " p " << P << ": " << llvm::toString(Whole.takeError());
        std::vector<Schedule> Parts;
        for (Rank Me = 0; Me < P; ++Me) {
          CallHeader R = rowColumnRankHeader(H, Me);
          auto Part = G->generateFor(R, 8, Own, Me);
          ASSERT_TRUE(bool(Part)) << C.Id << " " << C.Args << " p " << P
                                  << " matrix " << K << " rank " << Me << ": "
                                  << llvm::toString(Part.takeError());
          expectPartIsProjection(*Part, *Whole, Me,
                                 llvm::formatv("{0} {1} p {2} matrix {3} rank {4}",
                                               C.Id, C.Args, P, K, Me)
                                     .str());
          Parts.push_back(std::move(*Part));
          ++Checked;
        }
        VerifyResult D = checkDistributedViews(Parts);
        VerifyResult E = checkExplicit(*Whole);
        EXPECT_EQ(D.St, E.St) << C.Id << " p " << P << " matrix " << K;
        Proved += D.proved();
      }
  }
  EXPECT_EQ(Checked, 5u * 6 * (1 + 2 + 3 + 4 + 5 + 7 + 8 + 13 + 16));
  EXPECT_EQ(Proved, 5u * 6 * 9);
  // Bruck relays other ranks' blocks: from a row and column alone it
  // needs the blocks it relays (sizes.relay), and says so.
  const Generator *Bruck = findGenerator("alltoall-bruck");
  ASSERT_NE(Bruck, nullptr);
  CallHeader H = rowColumnPairsHeader(4, rowColumnMatrix(4, 0));
  auto Refused =
      Bruck->generateFor(rowColumnRankHeader(H, 1), 8, OptionValues(Bruck->options()),
                         Rank(1));
  ASSERT_FALSE(bool(Refused));
  EXPECT_NE(llvm::toString(Refused.takeError())
                .find("--relayed: alltoall-bruck relays blocks of other "
                      "ranks: a rank's part needs the blocks it receives"),
            std::string::npos);
  // A row and column build only their own rank's part.
  const Generator *Mpich = findGenerator("alltoallv-mpich");
  auto Whole = Mpich->generateFor(rowColumnRankHeader(H, 1), 8,
                                  OptionValues(Mpich->options()));
  ASSERT_FALSE(bool(Whole));
  EXPECT_NE(llvm::toString(Whole.takeError()).find("that rank's part only"),
            std::string::npos);
  auto Other = Mpich->generateFor(rowColumnRankHeader(H, 1), 8,
                                  OptionValues(Mpich->options()), Rank(2));
  ASSERT_FALSE(bool(Other));
  EXPECT_NE(llvm::toString(Other.takeError())
                .find("rank 1's row and column build rank 1's part, not rank "
                      "2's"),
            std::string::npos);
}

// Rows and columns that do not fit: rank 1 sends rank 2 8 bytes (its row)
// where rank 2 expects 16 (its column), at p = 4 and 5; rank 3 expects 8
// bytes from rank 0 that rank 0's row does not send; the used offsets of
// one rank differ. Each is refused by the message agreement, naming the
// step, both ranks and both ends' blocks (every rank of a job prints that
// merged text), and each part's header alone passes its rules. About 0.01 s.
TEST(DistributedCheck, AlltoallvRowsAndColumnsThatDisagreeAreRefused) {
  const Generator *G = findGenerator("alltoallv-mpich");
  ASSERT_NE(G, nullptr);
  for (uint32_t P : {4u, 5u}) {
    CallHeader H = rowColumnPairsHeader(P, std::vector<uint64_t>(size_t(P) * P, 8));
    auto Build = [&](const std::function<void(RankSizes &)> &Edit) {
      std::vector<Schedule> Parts;
      for (Rank Me = 0; Me < P; ++Me) {
        RankSizes Rs = rankSizesOf(PairMatrix(H), Me);
        Edit(Rs);
        CallHeader R = H;
        setRankSizes(R, std::move(Rs));
        auto Part =
            G->generateFor(R, 8, OptionValues(G->options()), Me);
        EXPECT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
        if (!Part)
          return Parts;
        EXPECT_TRUE(Part->verifyHeader().empty()) << "rank " << Me;
        Parts.push_back(std::move(*Part));
      }
      return Parts;
    };
    // Consistent: proved.
    std::vector<Schedule> Fine = Build([](RankSizes &) {});
    ASSERT_EQ(Fine.size(), P);
    EXPECT_TRUE(checkDistributedViews(Fine).proved());
    // Rank 2 expects 16 bytes from rank 1.
    std::vector<Schedule> Parts = Build([](RankSizes &Rs) {
      if (Rs.Me == 2)
        Rs.Column[1] = 16;
    });
    ASSERT_EQ(Parts.size(), P);
    VerifyResult R = checkDistributedViews(Parts);
    ASSERT_EQ(R.St, VerifyResult::Status::Failed);
    ASSERT_FALSE(R.Diags.empty());
    const Diagnostic &D = R.Diags.front();
    EXPECT_EQ(D.Kind, "message-agreement");
    // Rank 1 sends block (1, 2) at byte (P + 2) * 8 of all.
    uint64_t Lo = (uint64_t(P) + 2) * 8;
    std::string Sent = llvm::formatv("[{0},{1})", Lo, Lo + 8).str();
    std::string Expected = llvm::formatv("[{0},{1})", Lo, Lo + 16).str();
    EXPECT_NE(D.Message.find("step "), std::string::npos) << D.Message;
    EXPECT_NE(D.Message.find("rank 1"), std::string::npos) << D.Message;
    EXPECT_NE(D.Message.find("rank 2"), std::string::npos) << D.Message;
    EXPECT_NE(D.Message.find(Sent), std::string::npos) << D.Message;
    EXPECT_NE(D.Message.find(Expected), std::string::npos) << D.Message;
    // Rank 3 expects 8 bytes from rank 0, which rank 0 does not send
    // (rank 0's row is 8 bytes shorter, and so is all: the rows after it
    // start 8 bytes earlier in every view).
    std::vector<Schedule> Gap = Build([&](RankSizes &Rs) {
      // Rank 0 sends rank 3 nothing; everyone else keeps the matrix.
      if (Rs.Me == 0)
        Rs.Row[3] = 0;
      Rs.Total -= 8;
      if (Rs.Me != 0)
        Rs.RowAt -= 8;
      for (Rank I = 1; I < Rs.ColumnAt.size(); ++I)
        Rs.ColumnAt[I] -= 8;
    });
    ASSERT_EQ(Gap.size(), P);
    VerifyResult RG = checkDistributedViews(Gap);
    ASSERT_EQ(RG.St, VerifyResult::Status::Failed);
    EXPECT_EQ(RG.Diags.front().Kind, "message-agreement");
    EXPECT_NE(RG.Diags.front().Message.find("rank 0"), std::string::npos)
        << RG.Diags.front().Message;
    // Rank 1's row 8 bytes later than rank 0's ends (its own header fine:
    // its diagonal and the blocks it receives moved with it): the rows
    // are not laid out one after another.
    std::vector<Schedule> Shifted = Build([&](RankSizes &Rs) {
      if (Rs.Me == 1) {
        Rs.RowAt += 8;
        Rs.ColumnAt[1] += 8;
      }
    });
    ASSERT_EQ(Shifted.size(), P);
    VerifyResult RS = checkDistributedViews(Shifted);
    ASSERT_EQ(RS.St, VerifyResult::Status::Failed);
    EXPECT_EQ(RS.Diags.front().Message,
              llvm::formatv("rank 1's row starts at byte {0} of all, but the "
                            "rows before it end at byte {1}",
                            8 * P + 8, 8 * P)
                  .str());
    if (P == 4) { // (at p = 5 rank 0's block to rank 4 moved too)
      EXPECT_NE(RG.Diags.front().Message.find("rank 3"), std::string::npos)
          << RG.Diags.front().Message;
    }
  }
}

// The rules of a rank's row and column, each naming its JSON path.
TEST(AlltoallRowColumn, HeaderRules) {
  CallHeader Whole = rowColumnPairsHeader(3, {1, 2, 3, 4, 0, 6, 7, 8, 9});
  auto Check = [&](const std::function<void(CallHeader &)> &Edit,
                   const std::string &Want) {
    Schedule S;
    S.header() = rowColumnRankHeader(Whole, 1);
    Edit(S);
    std::vector<Diagnostic> D = S.verifyHeader();
    ASSERT_FALSE(D.empty()) << Want;
    EXPECT_NE(D.front().Message.find(Want), std::string::npos)
        << D.front().Message;
  };
  {
    Schedule S;
    S.header() = rowColumnRankHeader(Whole, 1);
    EXPECT_TRUE(S.verifyHeader().empty());
  }
  auto Sizes = [](CallHeader &H, const char *Name) -> std::vector<uint64_t> & {
    for (NamedSizes &NS : H.Sizes)
      if (NS.Name == Name)
        return NS.Values;
    static std::vector<uint64_t> None;
    return None;
  };
  Check([&](CallHeader &H) { Sizes(H, "row").pop_back(); },
        "/sizes/row: 2 entries; 3 ranks need 3");
  Check([&](CallHeader &H) { Sizes(H, "part")[0] = 3; },
        "/sizes/part/0: rank 3 is not below ranks = 3");
  Check([&](CallHeader &H) { Sizes(H, "column")[1] = 5; },
        "/sizes/column/1: rank 1 keeps 0 bytes for itself in its row but 5");
  Check([&](CallHeader &H) { Sizes(H, "column_at")[1] += 1; },
        "/sizes/column_at/1: block (1, 1) starts at byte 10 of all");
  Check([&](CallHeader &H) { Sizes(H, "column_at")[2] = 0; },
        "/sizes/column_at/2: block (2, 1) starts at byte 0, before the end");
  Check([&](CallHeader &H) { Sizes(H, "part")[2] = 10; },
        "ends past its length 10");
  Check([&](CallHeader &H) { Sizes(H, "column_at")[2] = 12; },
        "/sizes/column_at/2: block (2, 1) at byte 12 is inside rank 1's row "
        "[6,16)");
  Check([&](CallHeader &H) { Sizes(H, "used")[2] = 0; },
        "/sizes/used/2: 0, but rank 1 sends or receives a block at offset 2");
  Check([&](CallHeader &H) { Sizes(H, "used")[0] = 4; },
        "/sizes/used/0: 4; an offset's flags are 0 to 3");
  Check([&](CallHeader &H) { H.Sizes.pop_back(); },
        "/sizes/used: missing");
  Check([&](CallHeader &H) { H.Sizes.push_back({"pairs", {1}}); },
        "not two of them");
  Check([&](CallHeader &H) { H.Kind = Collective::Alltoall; },
        "/sizes/row: alltoall sends every rank the same bytes");
  // The agreed part of the header leaves out the rank's own sizes.
  Schedule A, B;
  A.header() = rowColumnRankHeader(Whole, 0);
  B.header() = rowColumnRankHeader(Whole, 2);
  EXPECT_EQ(partHeaderDigest(A), partHeaderDigest(B));
  EXPECT_FALSE(ownSizesDigest(A) == ownSizesDigest(B));
  Sizes(B, "used")[1] ^= 1;
  EXPECT_FALSE(partHeaderDigest(A) == partHeaderDigest(B));
}

// sizes.block [a, b] over groups of p and q ranks is the matrix whose
// blocks from A to B are a bytes and from B to A b bytes: every size,
// block, row, column and block lookup alike; inter-alltoall-pairwise
// writes it from --bytes-a and --bytes-b and builds the same steps as from
// the matrix, whole and every rank's part. About 0.05 s.
TEST(AlltoallRowColumn, InterUniformBlockIsTheMatrixAlike) {
  const Generator *G = findGenerator("inter-alltoall-pairwise");
  ASSERT_NE(G, nullptr);
  unsigned Compared = 0;
  for (uint32_t P : {1u, 2u, 3u, 5u})
    for (uint32_t Q : {1u, 2u, 4u})
      for (auto [A, B] : {std::pair<uint64_t, uint64_t>{8, 3}, {0, 5},
                          {7, 0}, {0, 0}, {4, 4}}) {
        uint32_t N = P + Q;
        std::vector<uint64_t> M(size_t(N) * N, 0);
        for (uint32_t I = 0; I < N; ++I)
          for (uint32_t J = 0; J < N; ++J)
            if ((I < P) != (J < P))
              M[size_t(I) * N + J] = I < P ? A : B;
        CallHeader HM, HU;
        HM.Kind = HU.Kind = Collective::InterAlltoall;
        setIntergroup(HM, std::vector<uint64_t>(P, 0),
                      std::vector<uint64_t>(Q, 0));
        setIntergroup(HU, std::vector<uint64_t>(P, 0),
                      std::vector<uint64_t>(Q, 0));
        HM.Sizes = {{"pairs", M}};
        setInterUniformBlock(HU, A, B);
        PairMatrix X(HM), Y(HU);
        ASSERT_TRUE(Y.isInterUniform());
        ASSERT_EQ(Y.ranks(), N);
        EXPECT_EQ(X.total(), Y.total());
        for (Rank I = 0; I < N; ++I) {
          EXPECT_EQ(X.row(I).Lo, Y.row(I).Lo);
          EXPECT_EQ(X.row(I).Hi, Y.row(I).Hi);
          EXPECT_EQ(X.columnBytes(I), Y.columnBytes(I));
          for (Rank J = 0; J < N; ++J) {
            EXPECT_EQ(X.size(I, J), Y.size(I, J));
            EXPECT_EQ(X.block(I, J).Lo, Y.block(I, J).Lo)
                << P << "+" << Q << " " << I << "," << J;
            EXPECT_EQ(X.block(I, J).Hi, Y.block(I, J).Hi);
            if (Y.size(I, J)) {
              EXPECT_EQ(Y.blockAt(Y.block(I, J).Lo), std::pair(I, J));
            }
          }
        }
        Schedule SU;
        SU.header() = HU;
        EXPECT_TRUE(SU.verifyHeader().empty());
        auto WM = G->generateFor(HM, 8, OptionValues(G->options()));
        auto WU = G->generateFor(HU, 8, OptionValues(G->options()));
        ASSERT_TRUE(bool(WM)) << llvm::toString(WM.takeError());
        ASSERT_TRUE(bool(WU)) << llvm::toString(WU.takeError());
        ASSERT_NE(WU->sizes("block"), nullptr);
        EXPECT_EQ(WU->sizes("pairs"), nullptr);
        EXPECT_EQ(WM->Steps.numSteps(), WU->Steps.numSteps());
        for (Rank Me = 0; Me < N; ++Me) {
          EXPECT_EQ(rowColumnOpsText(*WM, Me), rowColumnOpsText(*WU, Me));
          auto Part = G->generateFor(HU, 8, OptionValues(G->options()), Me);
          ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
          EXPECT_EQ(rowColumnOpsText(*Part, Me), rowColumnOpsText(*WU, Me))
              << P << "+" << Q << " rank " << Me;
        }
        EXPECT_EQ(checkDistributed(*WU).St, checkExplicit(*WM).St);
        ++Compared;
      }
  EXPECT_EQ(Compared, 4u * 3 * 5);
  // From the options: --bytes-a 8 --bytes-b 3 writes the block form.
  auto S = test::generateFromArgs(*G, "--p 2 --q 3 --bytes-a 8 --bytes-b 3");
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  ASSERT_NE(S->sizes("block"), nullptr);
  EXPECT_EQ(*S->sizes("block"), (std::vector<uint64_t>{8, 3}));
  EXPECT_TRUE(checkExplicit(*S).proved());
}

// sizes.block of an intergroup alltoall: two entries, not with the matrix,
// groups A = 0..p-1 and B = p..p+q-1, below 2^64 bytes.
TEST(AlltoallRowColumn, InterBlockRules) {
  auto Check = [](const std::function<void(CallHeader &)> &Edit,
                  const std::string &Want) {
    Schedule S;
    S.Kind = Collective::InterAlltoall;
    setIntergroup(S, {0, 0}, {0, 0, 0});
    setInterUniformBlock(S, 8, 3);
    Edit(S);
    std::vector<Diagnostic> D = S.verifyHeader();
    if (Want.empty()) {
      EXPECT_TRUE(D.empty()) << (D.empty() ? "" : D.front().Message);
      return;
    }
    ASSERT_FALSE(D.empty()) << Want;
    EXPECT_NE(D.front().Message.find(Want), std::string::npos)
        << D.front().Message;
  };
  Check([](CallHeader &) {}, "");
  Check([](CallHeader &H) { H.Sizes = {{"block", {8}}}; },
        "/sizes/block: 1 entries; inter_alltoall needs two");
  Check([](CallHeader &H) { H.Sizes.push_back({"pairs", {}}); },
        "not both");
  Check([](CallHeader &H) { std::swap(H.Groups[0], H.Groups[1]); }, "");
  Check(
      [](CallHeader &H) {
        H.Groups[0].Members = {1, 0};
      },
      "/groups/A/0: inter_alltoall's sizes.block needs groups A = 0..p-1");
  Check([](CallHeader &H) { H.Sizes = {{"block", {UINT64_MAX / 4, 1}}}; },
        "is longer than 2^64 bytes");
  Check([](CallHeader &H) { H.Sizes.push_back({"rows", {0, 0, 0, 0, 0}}); },
        "/sizes/rows: inter_alltoall has no group named rows");
  // (A rank's row and column are an intergroup alltoall's too, alone.)
  Check([](CallHeader &H) { H.Sizes.push_back({"row", {0, 0, 0, 0, 0}}); },
        "not two of them");
}

namespace {

/// Intergroup matrix number K over groups of p and q ranks (A first),
/// zero within a group.
std::vector<uint64_t> interRowColumnMatrix(uint32_t P, uint32_t Q, int K) {
  uint32_t N = P + Q;
  std::vector<uint64_t> M(size_t(N) * N, 0);
  for (uint32_t I = 0; I < N; ++I)
    for (uint32_t J = 0; J < N; ++J) {
      if ((I < P) == (J < P))
        continue;
      uint64_t &X = M[size_t(I) * N + J];
      if (auto V = sharedSweepEntry(K, I, J, N))
        X = *V;
      else if (K == 4) // one block, B's last rank to A's first
        X = I == N - 1 && J == 0 ? 5 : 0;
      else // A to B 4 bytes, B to A 7
        X = I < P ? 4 : 7;
    }
  return M;
}

CallHeader interRowColumnHeader(uint32_t P, uint32_t Q,
                                std::vector<uint64_t> M) {
  CallHeader H;
  H.Kind = Collective::InterAlltoall;
  setIntergroup(H, std::vector<uint64_t>(P, 0), std::vector<uint64_t>(Q, 0));
  H.Sizes = {{"pairs", std::move(M)}};
  return H;
}

/// Rank Me's part of Whole (an intergroup matrix over groups of P and the
/// rest): its row, column and the intergroup used steps.
CallHeader interRowColumnRankHeader(const CallHeader &Whole, uint32_t P,
                                    Rank Me) {
  CallHeader H = Whole;
  setRankSizes(H, rankSizesOf(PairMatrix(Whole), Me, P));
  return H;
}

} // namespace

// inter-alltoall-pairwise builds every rank's part of an intergroup
// alltoallv from its row and column over the p + q ranks (and the agreed
// used steps, markInterUsedOffsets) exactly as its ops of the whole built
// from the (p + q)^2 matrix, in the same steps, for p, q in {1, 2, 3, 5, 8,
// 16} (p != q, a group of one), six matrices (irregular with zeros, an
// empty row and an empty column, a skewed rank, all zero, one block, the
// two directions' blocks alike); every part's header passes its rules and
// the distributed proof of the parts gives the explicit checker's verdict
// on the whole. About 0.5 s.
TEST(RankForm, InterAlltoallvFromRowAndColumnIsTheProjection) {
  const Generator *G = findGenerator("inter-alltoall-pairwise");
  ASSERT_NE(G, nullptr);
  OptionValues Own(G->options());
  const uint32_t Sizes[] = {1, 2, 3, 5, 8, 16};
  unsigned Checked = 0, Proved = 0, Cases = 0;
  for (uint32_t P : Sizes)
    for (uint32_t Q : Sizes)
      for (int K = 0; K < 6; ++K) {
        CallHeader H = interRowColumnHeader(P, Q, interRowColumnMatrix(P, Q, K));
        auto Whole = G->generateFor(H, 8, Own);
        ASSERT_TRUE(bool(Whole)) << P << "+" << Q << " matrix " << K << ": "
                                 << llvm::toString(Whole.takeError());
        std::vector<Schedule> Parts;
        for (Rank Me = 0; Me < P + Q; ++Me) {
          CallHeader R = interRowColumnRankHeader(H, P, Me);
          auto Part = G->generateFor(R, 8, Own, Me);
          ASSERT_TRUE(bool(Part)) << P << "+" << Q << " matrix " << K
                                  << " rank " << Me << ": "
                                  << llvm::toString(Part.takeError());
          expectPartIsProjection(
              *Part, *Whole, Me,
              llvm::formatv("{0}+{1} matrix {2} rank {3}", P, Q, K, Me).str());
          Parts.push_back(std::move(*Part));
          ++Checked;
        }
        VerifyResult D = checkDistributedViews(Parts);
        VerifyResult E = checkExplicit(*Whole);
        EXPECT_EQ(D.St, E.St) << P << "+" << Q << " matrix " << K << ": "
                              << (D.Diags.empty() ? ""
                                                  : D.Diags.front().Message);
        Proved += D.proved();
        ++Cases;
      }
  EXPECT_EQ(Cases, 6u * 6 * 6);
  EXPECT_EQ(Proved, Cases);
  EXPECT_EQ(Checked, 6u * (2 * 6 * (1 + 2 + 3 + 5 + 8 + 16)));
  // The used flags are the whole's steps: at 2 + 3 with only block (4, 0)
  // (B's rank 2 to A's rank 0: step (0 - 2) mod 3 = 1) one step is left.
  CallHeader One = interRowColumnHeader(2, 3, interRowColumnMatrix(2, 3, 4));
  RankSizes Rs = rankSizesOf(PairMatrix(One), 0, 2);
  EXPECT_EQ(Rs.Used, (std::vector<uint64_t>{0, 1, 0, 0, 0}));
  auto W = G->generateFor(One, 8, Own);
  ASSERT_TRUE(bool(W)) << llvm::toString(W.takeError());
  EXPECT_EQ(W->Steps.numSteps(), 1u);
  // A row and column build only their own rank's part, never the whole.
  CallHeader R1 = interRowColumnRankHeader(One, 2, 1);
  auto NotWhole = G->generateFor(R1, 8, Own);
  ASSERT_FALSE(bool(NotWhole));
  EXPECT_NE(llvm::toString(NotWhole.takeError()).find("that rank's part only"),
            std::string::npos);
  auto Other = G->generateFor(R1, 8, Own, Rank(2));
  ASSERT_FALSE(bool(Other));
  EXPECT_NE(llvm::toString(Other.takeError())
                .find("rank 1's row and column build rank 1's part, not rank "
                      "2's"),
            std::string::npos);
  // --rank-part alone, of 3 + 4 (p + q) entries.
  auto Both = test::generateFromArgs(*G, "--p 1 --q 1 --bytes 4 --rank-part "
                                         "0,0,8,0,4,0,4,0,4,1,0");
  ASSERT_FALSE(bool(Both));
  EXPECT_NE(llvm::toString(Both.takeError()).find("--rank-part"),
            std::string::npos);
  auto Short = G->generateRank(
      rowColumnOptions(*G, "--p 1 --q 1 --rank-part 0,0,8,0,4"), 0);
  ASSERT_FALSE(bool(Short));
  EXPECT_NE(llvm::toString(Short.takeError())
                .find("5 entries; p + q = 2 ranks need 3 + 4 (p + q) = 11"),
            std::string::npos);
  // (One reader for both forms, rankPartOption: a rank not below p + q,
  // and the intracommunicator's count of entries.)
  auto Beyond = G->generateRank(
      rowColumnOptions(*G, "--p 1 --q 1 --rank-part 2,0,8,0,4,0,4,0,4,1,0"),
      0);
  ASSERT_FALSE(bool(Beyond));
  EXPECT_NE(llvm::toString(Beyond.takeError())
                .find("--rank-part: its rank (the first entry) is 2, not "
                      "below p + q = 2"),
            std::string::npos);
  const Generator *Pw = findGenerator("alltoall-pairwise");
  ASSERT_NE(Pw, nullptr);
  auto IntraShort =
      test::generateFromArgs(*Pw, "--p 2 --rank-part 0,0,8,0,4");
  ASSERT_FALSE(bool(IntraShort));
  EXPECT_NE(llvm::toString(IntraShort.takeError())
                .find("--rank-part: 5 entries; --p 2 needs 3 + 4 p = 11 "
                      "(rank below p, row start, length, then row, column, "
                      "column starts and used offsets, p each)"),
            std::string::npos);
  // A rank's part from the options: rank 0 of 1 + 1 sends 4 bytes, gets 4.
  auto Ok = G->generateRank(
      rowColumnOptions(*G, "--p 1 --q 1 --rank-part 0,0,8,0,4,0,4,0,4,1,0"),
      0);
  ASSERT_TRUE(bool(Ok)) << llvm::toString(Ok.takeError());
  EXPECT_EQ(rowColumnOpsText(*Ok, 0), "0: 0>1 0-4\n0: 1>0 4-8\n");
}

// Intergroup rows and columns that do not fit: B's rank 1 (rank 3 of 2 + 3
// or rank 4 of 3 + 3) expects 16 bytes from A's rank 1 where A's rank 1's
// row sends it 8. The message agreement refuses it naming the step (B's
// rank 1 is A's rank 1's partner in step 0), both ranks and both ends'
// blocks; each part's header alone passes its rules. About 0.01 s.
TEST(DistributedCheck, InterAlltoallvRowsAndColumnsThatDisagreeAreRefused) {
  const Generator *G = findGenerator("inter-alltoall-pairwise");
  ASSERT_NE(G, nullptr);
  for (uint32_t P : {2u, 3u}) {
    uint32_t Q = 3, N = P + Q;
    std::vector<uint64_t> M(size_t(N) * N, 0);
    for (uint32_t I = 0; I < N; ++I)
      for (uint32_t J = 0; J < N; ++J)
        if ((I < P) != (J < P))
          M[size_t(I) * N + J] = 8;
    CallHeader H = interRowColumnHeader(P, Q, M);
    Rank B1 = P + 1;
    std::vector<Schedule> Parts;
    for (Rank Me = 0; Me < N; ++Me) {
      RankSizes Rs = rankSizesOf(PairMatrix(H), Me, P);
      if (Me == B1)
        Rs.Column[1] = 16;
      CallHeader R = H;
      setRankSizes(R, std::move(Rs));
      auto Part = G->generateFor(R, 8, OptionValues(G->options()), Me);
      ASSERT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
      EXPECT_TRUE(Part->verifyHeader().empty()) << "rank " << Me;
      Parts.push_back(std::move(*Part));
    }
    VerifyResult R = checkDistributedViews(Parts);
    ASSERT_EQ(R.St, VerifyResult::Status::Failed);
    ASSERT_FALSE(R.Diags.empty());
    const Diagnostic &D = R.Diags.front();
    EXPECT_EQ(D.Kind, "message-agreement");
    // Block (1, B1) is the second of A's rank 1's row, which starts where
    // A's rank 0's q blocks end.
    uint64_t Lo = uint64_t(Q) * 8 + 8;
    std::string Want = llvm::formatv("step 0: rank 1 sends all[{0},{1}) to "
                                     "rank {2}, but rank {2} expects "
                                     "all[{0},{3})",
                                     Lo, Lo + 8, B1, Lo + 16)
                           .str();
    EXPECT_NE(D.Message.find(Want), std::string::npos) << D.Message;
  }
}

// The rules of an intergroup rank's row and column, each naming its JSON
// path: groups in order, nothing within a group, the used steps as
// inter-alltoall-pairwise's (0 or 1 below max(p, q), 0 after) and its own
// blocks' steps marked.
TEST(AlltoallRowColumn, InterHeaderRules) {
  // 2 + 3: A's ranks send B's 1..6 bytes, B's send A's 2 bytes.
  std::vector<uint64_t> M(25, 0);
  for (uint32_t I = 0; I < 5; ++I)
    for (uint32_t J = 0; J < 5; ++J)
      if ((I < 2) != (J < 2))
        M[I * 5 + J] = I < 2 ? 1 + I * 3 + (J - 2) : 2;
  CallHeader Whole = interRowColumnHeader(2, 3, M);
  auto Sizes = [](CallHeader &H, const char *Name) -> std::vector<uint64_t> & {
    for (NamedSizes &NS : H.Sizes)
      if (NS.Name == Name)
        return NS.Values;
    static std::vector<uint64_t> None;
    return None;
  };
  auto Check = [&](Rank Me, const std::function<void(CallHeader &)> &Edit,
                   const std::string &Want) {
    Schedule S;
    S.header() = interRowColumnRankHeader(Whole, 2, Me);
    Edit(S);
    std::vector<Diagnostic> D = S.verifyHeader();
    if (Want.empty()) {
      EXPECT_TRUE(D.empty()) << (D.empty() ? "" : D.front().Message);
      return;
    }
    ASSERT_FALSE(D.empty()) << Want;
    EXPECT_NE(D.front().Message.find(Want), std::string::npos)
        << D.front().Message;
  };
  for (Rank Me = 0; Me < 5; ++Me)
    Check(Me, [](CallHeader &) {}, "");
  // Rank 1 of A sends B's rank 0 (rank 2) 4 bytes at step (0 - 1) mod 3.
  Check(1, [&](CallHeader &H) { Sizes(H, "used")[2] = 0; },
        "/sizes/used/2: 0, but rank 1 sends rank 2 a block at step 2; want "
        "flags 1");
  Check(
      3,
      [&](CallHeader &H) {
        // Rank 3 (B's 1) receives from rank 0 at step (1 - 0) mod 3 = 1.
        Sizes(H, "used")[1] = 0;
      },
      "/sizes/used/1: 0, but rank 3");
  Check(0, [&](CallHeader &H) { Sizes(H, "used")[0] = 3; },
        "/sizes/used/0: 3; inter_alltoall's flags are 0 or 1 per step below "
        "max(p, q) = 3");
  Check(0, [&](CallHeader &H) { Sizes(H, "used")[4] = 1; },
        "/sizes/used/4: 1; inter_alltoall's flags are 0 or 1");
  Check(
      0,
      [&](CallHeader &H) { Sizes(H, "column")[1] = 4; },
      "/sizes/column/1: in inter_alltoall ranks 0 and 1 are of one group and "
      "exchange nothing, got 4");
  Check(
      0, [&](CallHeader &H) { std::swap(H.Groups[0].Members[0], H.Groups[0].Members[1]); },
      "/groups/A/0: a rank's part of inter_alltoall needs groups A = 0..p-1");
  // The agreed part of the header leaves out the rank's own sizes.
  Schedule A, B;
  A.header() = interRowColumnRankHeader(Whole, 2, 0);
  B.header() = interRowColumnRankHeader(Whole, 2, 4);
  EXPECT_EQ(partHeaderDigest(A), partHeaderDigest(B));
  EXPECT_FALSE(ownSizesDigest(A) == ownSizesDigest(B));
}

namespace {

/// Rank Me's row and column of Whole with the blocks it relays in Bruck's
/// rounds of radix K (sizes.relay), from the whole matrix.
CallHeader bruckRankHeader(const CallHeader &Whole, Rank Me, uint64_t K) {
  PairMatrix M(Whole);
  RankSizes Rs = rankSizesOf(M, Me);
  Rs.Relay = bruckRelayList(M.ranks(), K, Me,
                            [&](Rank I, Rank J) { return M.block(I, J); });
  CallHeader H = Whole;
  setRankSizes(H, std::move(Rs));
  return H;
}

} // namespace

// BruckRelays' order: every block a rank receives in Bruck's rounds has
// one entry, the lookup finds it again, and no other block has one; the
// list's length is the rounds' sum.
TEST(AlltoallRowColumn, BruckRelaysIndexEveryReceivedBlockOnce) {
  for (uint64_t K : {2u, 3u, 5u, 7u})
    for (uint32_t P : {1u, 2u, 3u, 5u, 8u, 9u, 26u, 27u, 28u, 64u, 100u}) {
      BruckRelays Br(P, K);
      for (Rank Me : {Rank(0), Rank(P / 2), Rank(P - 1)}) {
        std::vector<int> Seen(Br.total(), 0);
        uint64_t Found = 0;
        for (Rank I = 0; I < P; ++I)
          for (Rank J = 0; J < P; ++J)
            if (std::optional<uint64_t> X = Br.indexOf(Me, I, J)) {
              ASSERT_LT(*X, Br.total()) << K << " " << P;
              ++Seen[*X];
              ++Found;
            }
        EXPECT_EQ(Found, Br.total()) << "radix " << K << " p " << P;
        for (uint64_t X = 0; X < Br.total(); ++X)
          EXPECT_EQ(Seen[X], 1) << "radix " << K << " p " << P << " entry "
                                << X;
      }
    }
}

// alltoall-bruck's part of every rank, built from its row, its column and
// the blocks it relays (sizes.relay, --relayed), is exactly its ops of the
// whole schedule built from the matrix: p = 1 to 20, 27, 32 and 33,
// radices 2, 3 and 5, one step per message and concurrent, the sweep's six
// matrices (zeros, empty rows and columns, one skewed rank, all empty, one
// block, alike); each part's header passes its rules and the parts prove
// as the whole does. About 1 s.
TEST(RankForm, AlltoallBruckFromRowColumnAndRelaysIsTheProjection) {
  const Generator *G = findGenerator("alltoall-bruck");
  ASSERT_NE(G, nullptr);
  std::vector<uint32_t> Ps;
  for (uint32_t P = 1; P <= 20; ++P)
    Ps.push_back(P);
  for (uint32_t P : {27u, 32u, 33u})
    Ps.push_back(P);
  unsigned Checked = 0;
  for (uint64_t K : {2u, 3u, 5u})
    for (const char *Conc : {"off", "on"}) {
      OptionValues Own = rowColumnOptions(
          *G, llvm::formatv("--radix {0} --concurrent {1}", K, Conc).str());
      for (uint32_t P : Ps)
        for (int Mx = 0; Mx < 6; ++Mx) {
          if (P > 20 && (Mx == 3 || Mx == 5))
            continue;
          CallHeader H = rowColumnPairsHeader(P, rowColumnMatrix(P, Mx));
          auto Whole = G->generateFor(H, 8, Own);
          ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
          std::vector<Schedule> Parts;
          for (Rank Me = 0; Me < P; ++Me) {
            auto Part = G->generateFor(bruckRankHeader(H, Me, K), 8, Own, Me);
            ASSERT_TRUE(bool(Part))
                << "radix " << K << " p " << P << " matrix " << Mx << " rank "
                << Me << ": " << llvm::toString(Part.takeError());
            expectPartIsProjection(
                *Part, *Whole, Me,
                llvm::formatv("radix {0} concurrent {1} p {2} matrix {3} rank {4}",
                              K, Conc, P, Mx, Me)
                    .str());
            Parts.push_back(std::move(*Part));
            ++Checked;
          }
          VerifyResult D = checkDistributedViews(Parts);
          VerifyResult E = checkExplicit(*Whole);
          EXPECT_EQ(D.St, E.St) << "radix " << K << " p " << P << " matrix "
                                << Mx;
          EXPECT_TRUE(D.proved()) << "radix " << K << " p " << P
                                  << " matrix " << Mx;
        }
    }
  EXPECT_GT(Checked, 3000u);
}

// Bruck's parts whose relayed sizes do not fit: rank 3 believes a block it
// relays is 8 bytes longer than rank 2 sends it (its entry in sizes.relay
// edited), and rank 2's recvcounts expect 16 bytes from rank 1, which
// sends 8 (its column): each fails the message agreement naming the step
// and both ranks. The relayed blocks of another radix, or none, are
// refused naming --relayed; a relay list of the wrong length names
// /sizes/relay. About 0.01 s.
TEST(DistributedCheck, AlltoallBruckRelaysThatDisagreeAreRefused) {
  const Generator *G = findGenerator("alltoall-bruck");
  ASSERT_NE(G, nullptr);
  const uint32_t P = 6;
  CallHeader H = rowColumnPairsHeader(P, std::vector<uint64_t>(P * P, 8));
  OptionValues Own(G->options());
  auto Build = [&](const std::function<void(RankSizes &)> &Edit) {
    std::vector<Schedule> Parts;
    for (Rank Me = 0; Me < P; ++Me) {
      CallHeader R = bruckRankHeader(H, Me, 2);
      RankSizes Rs = rankSizesOf(PairMatrix(H), Me);
      Rs.Relay = *R.sizes("relay");
      Edit(Rs);
      setRankSizes(R, std::move(Rs));
      auto Part = G->generateFor(R, 8, Own, Me);
      EXPECT_TRUE(bool(Part)) << llvm::toString(Part.takeError());
      if (!Part)
        return Parts;
      Parts.push_back(std::move(*Part));
    }
    return Parts;
  };
  std::vector<Schedule> Fine = Build([](RankSizes &) {});
  ASSERT_EQ(Fine.size(), P);
  EXPECT_TRUE(checkDistributedViews(Fine).proved());
  // Rank 3 receives block (2, 5) (offset 3) from rank 2 in round 0 and
  // relays it to rank 5 in round 1: its entry 8 bytes longer.
  BruckRelays Br(P, 2);
  uint64_t Entry = Br.index(0, 3);
  std::vector<Schedule> Long = Build([&](RankSizes &Rs) {
    if (Rs.Me == 3)
      Rs.Relay[1 + 2 * Entry + 1] += 8;
  });
  ASSERT_EQ(Long.size(), P);
  VerifyResult R = checkDistributedViews(Long);
  ASSERT_EQ(R.St, VerifyResult::Status::Failed);
  ASSERT_FALSE(R.Diags.empty());
  EXPECT_EQ(R.Diags.front().Kind, "message-agreement") << R.Diags.front().Message;
  EXPECT_NE(R.Diags.front().Message.find("step "), std::string::npos)
      << R.Diags.front().Message;
  EXPECT_NE(R.Diags.front().Message.find("rank 3"), std::string::npos)
      << R.Diags.front().Message;
  EXPECT_NE(R.Diags.front().Message.find("rank 2"), std::string::npos)
      << R.Diags.front().Message;
  // Rank 2 expects 16 bytes from rank 1 (its column; what it relays is
  // right): refused where block (1, 2) arrives.
  std::vector<Schedule> Column = Build([](RankSizes &Rs) {
    if (Rs.Me == 2)
      Rs.Column[1] = 16;
  });
  ASSERT_EQ(Column.size(), P);
  VerifyResult RC = checkDistributedViews(Column);
  ASSERT_EQ(RC.St, VerifyResult::Status::Failed);
  EXPECT_EQ(RC.Diags.front().Kind, "message-agreement");
  EXPECT_NE(RC.Diags.front().Message.find("rank 2"), std::string::npos)
      << RC.Diags.front().Message;
  // Radix 3's relays asked to build radix 2, and a list cut short.
  auto Other = G->generateFor(bruckRankHeader(H, 1, 3), 8, Own, Rank(1));
  ASSERT_FALSE(bool(Other));
  EXPECT_NE(llvm::toString(Other.takeError())
                .find("--relayed: the relayed blocks are radix 3's, not "
                      "--radix 2's"),
            std::string::npos);
  Schedule S;
  S.header() = bruckRankHeader(H, 1, 2);
  for (NamedSizes &NS : S.Sizes)
    if (NS.Name == "relay")
      NS.Values.pop_back();
  std::vector<Diagnostic> D = S.verifyHeader();
  ASSERT_FALSE(D.empty());
  EXPECT_NE(D.front().Message.find("/sizes/relay: "), std::string::npos)
      << D.front().Message;
  // The generator's own options: --relayed of the wrong length.
  auto Short = test::generateFromArgs(
      *G, "--p 3 --rank-part 0,0,3,1,1,1,1,1,1,0,1,2,1,1,1 --relayed 2,0,1");
  ASSERT_FALSE(bool(Short));
  EXPECT_NE(llvm::toString(Short.takeError()).find("--relayed: 3 entries"),
            std::string::npos);
}
