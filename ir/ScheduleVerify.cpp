//===- ir/ScheduleVerify.cpp - Structural rules of format v1 --------------===//
///
/// \file
/// Schedule::verify(): the cheap, local rules of schedule-format.md that do
/// not need a replay (groups and sizes match the collective, ranks in range,
/// no self-send, every op carries blocks, blocks lie inside their buffers).
/// Every failure names its JSON pointer; only the first of each kind is kept.
///
//===----------------------------------------------------------------------===//

#include "ir/PairMatrix.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <tuple>

using namespace choreo;
using llvm::formatv;

namespace {

class StructureChecker {
public:
  explicit StructureChecker(const Schedule &S) : S(S) {}

  std::vector<Diagnostic> run() {
    checkHeader();
    if (Diags.empty())
      checkSteps();
    return Diags.take();
  }

  std::vector<Diagnostic> runHeader() {
    checkHeader();
    return Diags.take();
  }

  std::vector<Diagnostic> runOps(llvm::ArrayRef<OpAt> Which,
                                 const std::vector<Buffer> &Bufs) {
    for (OpAt At : Which)
      checkOpAt(At.Step, At.Index, Bufs);
    return Diags.take();
  }

private:
  const Schedule &S;
  DiagnosticList Diags;

  void fail(const char *Kind, std::string Msg) {
    Diags.add(Diagnostic(Kind, std::move(Msg)));
  }

  std::string rankRange(Rank R) const {
    return formatv("rank {0} is out of range (ranks: {1})", R, S.NumRanks);
  }

  void checkHeader() {
    if (S.NumRanks == 0)
      fail("ranks", "/ranks: a schedule needs at least one rank");
    checkGroups();
    checkSizes();
    checkRoot();
    checkTopology();
    checkPorts();
    checkNodes();
    checkOp();
  }

  void checkGroups() {
    const CollectiveSpec &Spec = S.spec();
    llvm::StringRef Coll = Spec.Name;
    if (Spec.Intergroup) {
      if (S.Groups.size() != 2 || !S.group("A") || !S.group("B"))
        return fail("groups",
                    formatv("/groups: {0} needs exactly two groups named A and "
                            "B",
                            Coll));
    } else if (S.Groups.size() != 1 || !S.group("all")) {
      return fail("groups",
                  formatv("/groups: {0} needs one group named \"all\" holding "
                          "every rank",
                          Coll));
    }
    size_t Members = 0;
    for (const Group &G : S.Groups)
      Members += G.Members.size();
    // Checked before anything is allocated per rank.
    if (Members < S.NumRanks)
      return fail("groups",
                  formatv("/ranks: {0} ranks, but the groups hold only {1} "
                          "members; every rank is in exactly one group",
                          S.NumRanks, Members));
    std::vector<int> Owner(S.NumRanks, -1);
    for (size_t GI = 0; GI < S.Groups.size(); ++GI) {
      const Group &G = S.Groups[GI];
      if (G.Members.empty())
        fail("groups", formatv("/groups/{0}: group {0} is empty", G.Name));
      for (size_t I = 0; I < G.Members.size(); ++I) {
        Rank R = G.Members[I];
        if (R >= S.NumRanks) {
          fail("groups",
               formatv("/groups/{0}/{1}: {2}", G.Name, I, rankRange(R)));
          continue;
        }
        if (Owner[R] >= 0) {
          fail("groups", formatv("/groups/{0}/{1}: rank {2} is already in "
                                 "group {3}",
                                 G.Name, I, R, S.Groups[Owner[R]].Name));
          continue;
        }
        Owner[R] = GI;
      }
    }
    for (Rank R = 0; R < S.NumRanks; ++R)
      if (Owner[R] < 0) {
        fail("group-coverage", formatv("/groups: rank {0} is in no group", R));
        break;
      }
  }

  void checkSizes() {
    const CollectiveSpec &Spec = S.spec();
    llvm::StringRef Coll = Spec.Name;
    for (const NamedSizes &NS : S.Sizes) {
      bool Known = S.group(NS.Name) || Spec.knowsSizes(NS.Name);
      if (!Known) {
        std::string Groups;
        for (const Group &G : S.Groups)
          Groups += (Groups.empty() ? "" : ", ") + G.Name;
        fail("sizes", formatv("/sizes/{0}: {1} has no group named {0} and "
                              "takes no sizes of that name (its groups: "
                              "{2})",
                              NS.Name, Coll, Groups));
      }
    }
    if (Spec.sizedPerMember()) {
      for (const Group &G : S.Groups) {
        const std::vector<uint64_t> *V = S.sizes(G.Name);
        if (!V) {
          if (!Spec.contributes(G.Name))
            continue;
          fail("sizes",
               formatv("/sizes: missing the sizes of group {0}", G.Name));
          continue;
        }
        if (V->size() != G.Members.size()) {
          fail("sizes", formatv("/sizes/{0}: {1} entries for the {2} members "
                                "of group {0}",
                                G.Name, V->size(), G.Members.size()));
          continue;
        }
        uint64_t Sum = 0;
        for (size_t I = 0; I < V->size(); ++I) {
          if (!Spec.contributes(G.Name) && Spec.isGatherType() && (*V)[I] != 0)
            fail("sizes", formatv("/sizes/{0}/{1}: in {2} group {0} "
                                  "contributes nothing, got {3}",
                                  G.Name, I, Coll, (*V)[I]));
          if (Spec.NoPayload && (*V)[I] != 1)
            fail("sizes", formatv("/sizes/{0}/{1}: {2} is laid out as one "
                                  "byte per rank (has arrived), got {3}",
                                  G.Name, I, Coll, (*V)[I]));
          if (Sum + (*V)[I] < Sum)
            fail("sizes", formatv("/sizes/{0}/{1}: buffer {0} is longer than "
                                  "2^64 bytes",
                                  G.Name, I));
          Sum += (*V)[I];
        }
      }
      checkRootGroupSizes();
      return;
    }
    if (Spec.Data == DataKind::Alltoall)
      return checkPairs();
    const std::vector<uint64_t> *All = S.sizes("all");
    if (!All || All->size() != 1)
      return fail("sizes", formatv("/sizes/all: {0} needs one entry, the "
                                   "vector length in bytes",
                                   Coll));
    if (Spec.Result == ResultRule::OwnSlice) {
      const std::vector<uint64_t> *Sl = S.sizes("slices");
      if (!Sl || Sl->size() != S.NumRanks)
        return fail("sizes", formatv("/sizes/slices: {0} needs one slice "
                                     "length per rank ({1})",
                                     Coll, S.NumRanks));
      uint64_t Sum = 0;
      bool Overflow = false;
      for (uint64_t X : *Sl) {
        Overflow |= Sum + X < Sum;
        Sum += X;
      }
      if (Overflow || Sum != (*All)[0])
        fail("sizes", formatv("/sizes/slices: slices sum to {0}, not the "
                              "vector length {1}",
                              Sum, (*All)[0]));
    }
  }

  /// An intergroup gather or scatter: the root's group moves nothing (its
  /// other members pass MPI_PROC_NULL), so its sizes are all zero.
  void checkRootGroupSizes() {
    const CollectiveSpec &Spec = S.spec();
    if (!Spec.Intergroup || !Spec.Rooted || !S.Root)
      return;
    for (const Group &G : S.Groups) {
      const std::vector<uint64_t> *V = S.sizes(G.Name);
      if (!V || !llvm::is_contained(G.Members, *S.Root))
        continue;
      for (size_t I = 0; I < V->size(); ++I)
        if ((*V)[I] != 0)
          return fail("sizes",
                      formatv("/sizes/{0}/{1}: in {2} the root's group {0} "
                              "sends and receives nothing, got {3}",
                              G.Name, I, Spec.Name, (*V)[I]));
    }
  }

  /// An intergroup alltoall: ranks of one group exchange nothing.
  void checkInterPairs(const std::vector<uint64_t> &V) {
    std::vector<int> GroupOf(S.NumRanks, -1);
    for (size_t GI = 0; GI < S.Groups.size(); ++GI)
      for (Rank R : S.Groups[GI].Members)
        if (R < S.NumRanks)
          GroupOf[R] = GI;
    uint64_t P = S.NumRanks;
    for (uint64_t K = 0; K < V.size(); ++K)
      if (V[K] && GroupOf[K / P] == GroupOf[K % P])
        return fail("sizes",
                    formatv("/sizes/pairs/{0}: in {1} ranks {2} and {3} are "
                            "of one group and exchange nothing, got {4}",
                            K, S.spec().Name, K / P, K % P, V[K]));
  }

  /// An alltoall's sizes.pairs: ranks x ranks entries, row-major, summing
  /// to at most 2^64 - 1; alltoall's off the diagonal all alike.
  void checkPairs() {
    const CollectiveSpec &Spec = S.spec();
    llvm::StringRef Coll = Spec.Name;
    if (S.sizes("all"))
      fail("sizes", formatv("/sizes/all: {0} takes its sizes from "
                            "sizes.pairs, the matrix of the bytes rank i "
                            "sends rank j; remove sizes.all",
                            Coll));
    const std::vector<uint64_t> *V = S.sizes("pairs");
    uint64_t Want = uint64_t(S.NumRanks) * S.NumRanks;
    if (hasRankSizes(S))
      return checkRankSizes(V != nullptr || S.sizes("block"));
    if (const std::vector<uint64_t> *B = S.sizes("block");
        B && Spec.Intergroup)
      return checkInterBlock(*B, V != nullptr);
    if (const std::vector<uint64_t> *B = S.sizes("block"))
      return checkBlock(*B, V != nullptr);
    if (!V)
      return fail("sizes", formatv("/sizes/pairs: missing; {0} needs the "
                                   "{1} x {1} matrix, row-major, of the bytes "
                                   "rank i sends rank j (or sizes.block, one "
                                   "size for every block)",
                                   Coll, S.NumRanks));
    if (V->size() != Want)
      return fail("sizes",
                  formatv("/sizes/pairs: {0} entries; {1} needs ranks x ranks "
                          "= {2} ({3} x {3}, row-major: entry i * {3} + j is "
                          "the bytes rank i sends rank j)",
                          V->size(), Coll, Want, S.NumRanks));
    uint64_t Sum = 0;
    for (size_t K = 0; K < V->size(); ++K) {
      if (Sum + (*V)[K] < Sum)
        return fail("sizes", formatv("/sizes/pairs/{0}: buffer all is longer "
                                     "than 2^64 bytes",
                                     K));
      Sum += (*V)[K];
    }
    if (Spec.Intergroup)
      return checkInterPairs(*V);
    if (Spec.Call != MpiCall::Alltoall || S.NumRanks < 2)
      return;
    // Alltoall: every entry off the diagonal is entry (0, 1)'s.
    uint64_t P = S.NumRanks, First = (*V)[1];
    for (uint64_t K = 0; K < V->size(); ++K)
      if (K / P != K % P && (*V)[K] != First)
        return fail("sizes",
                    formatv("/sizes/pairs/{0}: {1} sends every other rank "
                            "the same bytes, but entry ({2}, {3}) is {4} "
                            "where entry (0, 1) is {5}; different sizes are "
                            "an alltoallv",
                            K, Coll, K / P, K % P, (*V)[K], First));
  }

  /// An intergroup alltoall's sizes.block [a, b]: every rank of A sends
  /// every rank of B a bytes and B's send A's b bytes; groups A = 0..p-1
  /// and B = p..p+q-1 (the closed form's layout); the blocks sum to at
  /// most 2^64 - 1.
  void checkInterBlock(const std::vector<uint64_t> &B, bool AlsoPairs) {
    llvm::StringRef Coll = S.spec().Name;
    if (AlsoPairs)
      return fail("sizes", formatv("/sizes/block: {0} takes sizes.block (the "
                                   "blocks between the groups alike) or "
                                   "sizes.pairs (the matrix), not both",
                                   Coll));
    if (B.size() != 2)
      return fail("sizes",
                  formatv("/sizes/block: {0} entries; {1} needs two, the "
                          "bytes every rank of A sends every rank of B and "
                          "the bytes every rank of B sends every rank of A "
                          "(a block within a group is empty)",
                          B.size(), Coll));
    const Group *GA = S.group("A"), *GB = S.group("B");
    if (!GA || !GB)
      return;
    for (size_t I = 0; I < GA->Members.size(); ++I)
      if (GA->Members[I] != I)
        return fail("sizes", formatv("/groups/A/{0}: {1}'s sizes.block needs "
                                     "groups A = 0..p-1 and B = p..p+q-1 in "
                                     "order, got rank {2}; give sizes.pairs",
                                     I, Coll, GA->Members[I]));
    for (size_t I = 0; I < GB->Members.size(); ++I)
      if (GB->Members[I] != GA->Members.size() + I)
        return fail("sizes", formatv("/groups/B/{0}: {1}'s sizes.block needs "
                                     "groups A = 0..p-1 and B = p..p+q-1 in "
                                     "order, got rank {2}; give sizes.pairs",
                                     I, Coll, GB->Members[I]));
    uint64_t Pairs = uint64_t(GA->Members.size()) * GB->Members.size();
    uint64_t Sum = B[0] + B[1];
    if (Sum < B[0] || (Sum && Pairs > UINT64_MAX / Sum))
      fail("sizes", formatv("/sizes/block: buffer all ({0} x {1} blocks each "
                            "way of {2} and {3} bytes) is longer than 2^64 "
                            "bytes",
                            GA->Members.size(), GB->Members.size(), B[0],
                            B[1]));
  }

  /// One rank's part of an alltoallv (sizes.part [rank, row start,
  /// length of all], sizes.row, sizes.column, sizes.column_at and
  /// sizes.used, p entries each; docs/format.md): everything the rank can
  /// check alone. That another rank's row agrees with its column is the
  /// message agreement's (docs/distributed-proof.md).
  void checkRankSizes(bool AlsoOthers) {
    const CollectiveSpec &Spec = S.spec();
    llvm::StringRef Coll = Spec.Name;
    uint64_t P = S.NumRanks;
    if (Spec.Call == MpiCall::Alltoall && !Spec.Intergroup)
      return fail("sizes", formatv("/sizes/row: {0} sends every rank the "
                                   "same bytes: give sizes.block; a rank's "
                                   "row and column are an alltoallv's",
                                   Coll));
    if (AlsoOthers)
      return fail("sizes", formatv("/sizes: {0} takes sizes.pairs (the "
                                   "matrix), sizes.block, or one rank's "
                                   "sizes.part, row, column, column_at and "
                                   "used, not two of them",
                                   Coll));
    for (llvm::StringRef Name : {"part", "row", "column", "column_at", "used"})
      if (!S.sizes(Name))
        return fail("sizes", formatv("/sizes/{0}: missing; a rank's part of "
                                     "{1} needs sizes.part, row, column, "
                                     "column_at and used",
                                     Name, Coll));
    const std::vector<uint64_t> &Part = *S.sizes("part");
    if (Part.size() != 3)
      return fail("sizes", formatv("/sizes/part: {0} entries; a rank's part "
                                   "of {1} needs three: its rank, where its "
                                   "row starts in buffer all, and the "
                                   "buffer's length",
                                   Part.size(), Coll));
    for (llvm::StringRef Name : {"row", "column", "column_at", "used"})
      if (S.sizes(Name)->size() != P)
        return fail("sizes", formatv("/sizes/{0}: {1} entries; {2} ranks "
                                     "need {2}",
                                     Name, S.sizes(Name)->size(), P));
    uint64_t Me = Part[0], RowAt = Part[1], Total = Part[2];
    if (Me >= P)
      return fail("sizes", formatv("/sizes/part/0: rank {0} is not below "
                                   "ranks = {1}",
                                   Me, P));
    const std::vector<uint64_t> &Row = *S.sizes("row"),
                                &Col = *S.sizes("column"),
                                &At = *S.sizes("column_at"),
                                &Used = *S.sizes("used");
    uint64_t End = RowAt, Diag = 0;
    for (uint64_t J = 0; J < P; ++J) {
      if (J == Me)
        Diag = End;
      if (End + Row[J] < End || End + Row[J] > Total)
        return fail("sizes", formatv("/sizes/row/{0}: rank {1}'s row, from "
                                     "byte {2} of all, ends past its length "
                                     "{3} (sizes.part)",
                                     J, Me, RowAt, Total));
      End += Row[J];
    }
    if (Row[Me] != Col[Me])
      return fail("sizes", formatv("/sizes/column/{0}: rank {0} keeps {1} "
                                   "bytes for itself in its row but {2} in "
                                   "its column",
                                   Me, Row[Me], Col[Me]));
    if (At[Me] != Diag)
      return fail("sizes", formatv("/sizes/column_at/{0}: block ({0}, {0}) "
                                   "starts at byte {1} of all (its row's), "
                                   "not {2}",
                                   Me, Diag, At[Me]));
    uint64_t Prev = 0;
    for (uint64_t I = 0; I < P; ++I) {
      if (At[I] + Col[I] < At[I] || At[I] + Col[I] > Total)
        return fail("sizes", formatv("/sizes/column_at/{0}: block ({0}, {1}) "
                                     "at byte {2}, {3} bytes, ends past the "
                                     "length of all {4}",
                                     I, Me, At[I], Col[I], Total));
      if (At[I] < Prev)
        return fail("sizes", formatv("/sizes/column_at/{0}: block ({0}, {1}) "
                                     "starts at byte {2}, before the end of "
                                     "block ({3}, {1}) at {4}; the blocks of "
                                     "all are row-major",
                                     I, Me, At[I], I - 1, Prev));
      // Rows before its own end where its row starts, rows after it
      // start where its row ends.
      if ((I < Me && At[I] + Col[I] > RowAt) || (I > Me && At[I] < End))
        return fail("sizes", formatv("/sizes/column_at/{0}: block ({0}, {1}) "
                                     "at byte {2} is inside rank {1}'s row "
                                     "[{3},{4}); the blocks of all are "
                                     "row-major",
                                     I, Me, At[I], RowAt, End));
      Prev = At[I] + Col[I];
    }
    if (const std::vector<uint64_t> *Rl = S.sizes("relay"))
      if (!checkRelay(*Rl, Total))
        return;
    if (Spec.Intergroup)
      return checkInterRankSizes(Me, Row, Col, Used);
    bool Pow2 = !(P & (P - 1));
    for (uint64_t K = 0; K < P; ++K) {
      if (Used[K] > 3)
        return fail("sizes", formatv("/sizes/used/{0}: {1}; an offset's "
                                     "flags are 0 to 3 (1: some block (i, i "
                                     "+ {0} mod p) is not empty, 2: some "
                                     "block (i, i xor {0}))",
                                     K, Used[K]));
      // Its own blocks' offsets must be marked (both ends mark them).
      uint64_t Want = 0;
      if (Row[(Me + K) % P] || Col[(Me + P - K) % P])
        Want |= 1;
      if (Pow2 && (Row[Me ^ K] || Col[Me ^ K]))
        Want |= 2;
      if ((Used[K] & Want) != Want)
        return fail("sizes", formatv("/sizes/used/{0}: {1}, but rank {2} "
                                     "sends or receives a block at offset "
                                     "{0}; want flags {3}",
                                     K, Used[K], Me, Want));
    }
  }

  /// sizes.relay (alltoall-bruck's rank part, ir/PairMatrix.h
  /// BruckRelays): a radix of at least 2, then a start and a length in
  /// buffer all (of Total bytes) for each block the rank receives.
  bool checkRelay(const std::vector<uint64_t> &Rl, uint64_t Total) {
    if (S.spec().Intergroup) {
      fail("sizes", "/sizes/relay: an intergroup alltoall relays no blocks");
      return false;
    }
    if (Rl.empty() || Rl[0] < 2) {
      fail("sizes", formatv("/sizes/relay/0: radix {0}; Bruck's radix is at "
                            "least 2",
                            Rl.empty() ? 0 : Rl[0]));
      return false;
    }
    BruckRelays Br(S.NumRanks, Rl[0]);
    if (Rl.size() != 1 + 2 * Br.total()) {
      fail("sizes", formatv("/sizes/relay: {0} entries; radix {1} over {2} "
                            "ranks relays {3} blocks to a rank: 1 + 2 x {3} "
                            "(the radix, then each block's start and bytes)",
                            Rl.size(), Rl[0], S.NumRanks, Br.total()));
      return false;
    }
    for (size_t K = 1; K + 1 < Rl.size(); K += 2)
      if (Rl[K] + Rl[K + 1] < Rl[K] || Rl[K] + Rl[K + 1] > Total) {
        fail("sizes", formatv("/sizes/relay/{0}: a relayed block at byte {1}, "
                              "{2} bytes, ends past the length of all {3}",
                              K, Rl[K], Rl[K + 1], Total));
        return false;
      }
    return true;
  }

  /// An intergroup alltoall's rank part (docs/alltoall.md): groups A =
  /// 0..p-1 and B = p..p+q-1 in order, nothing within the rank's group,
  /// and `used` as inter-alltoall-pairwise's steps: entry i < m = max(p,
  /// q) is 0 or 1 (some block from a local rank r to remote rank (r + i)
  /// mod m is not empty), every later entry 0; the steps of the rank's own
  /// blocks marked.
  void checkInterRankSizes(uint64_t Me, const std::vector<uint64_t> &Row,
                           const std::vector<uint64_t> &Col,
                           const std::vector<uint64_t> &Used) {
    llvm::StringRef Coll = S.spec().Name;
    const Group *GA = S.group("A"), *GB = S.group("B");
    if (!GA || !GB)
      return;
    uint64_t P = S.NumRanks, PA = GA->Members.size();
    for (size_t I = 0; I < GA->Members.size(); ++I)
      if (GA->Members[I] != I)
        return fail("sizes", formatv("/groups/A/{0}: a rank's part of {1} "
                                     "needs groups A = 0..p-1 and B = "
                                     "p..p+q-1 in order, got rank {2}",
                                     I, Coll, GA->Members[I]));
    for (size_t I = 0; I < GB->Members.size(); ++I)
      if (GB->Members[I] != PA + I)
        return fail("sizes", formatv("/groups/B/{0}: a rank's part of {1} "
                                     "needs groups A = 0..p-1 and B = "
                                     "p..p+q-1 in order, got rank {2}",
                                     I, Coll, GB->Members[I]));
    if (PA + GB->Members.size() != P)
      return;
    bool MeA = Me < PA;
    for (uint64_t J = 0; J < P; ++J)
      if ((J < PA) == MeA && (Row[J] || Col[J]))
        return fail("sizes", formatv("/sizes/{0}/{1}: in {2} ranks {3} and "
                                     "{1} are of one group and exchange "
                                     "nothing, got {4}",
                                     Row[J] ? "row" : "column", J, Coll, Me,
                                     Row[J] ? Row[J] : Col[J]));
    uint64_t M = std::max<uint64_t>(PA, P - PA);
    for (uint64_t K = 0; K < P; ++K)
      if (Used[K] > (K < M ? 1u : 0u))
        return fail("sizes", formatv("/sizes/used/{0}: {1}; {2}'s flags are "
                                     "0 or 1 per step below max(p, q) = {3} "
                                     "(1: some block from a local rank r to "
                                     "remote rank (r + step) mod {3} is not "
                                     "empty), 0 from there on",
                                     K, Used[K], Coll, M));
    for (uint64_t J = 0; J < P; ++J) {
      if ((J < PA) == MeA)
        continue;
      struct End {
        uint64_t Bytes, K;
        const char *Verb;
      } Ends[2] = {
          {Row[J], interStepOf(Rank(P), Rank(PA), Rank(Me), Rank(J)), "sends"},
          {Col[J], interStepOf(Rank(P), Rank(PA), Rank(J), Rank(Me)),
           "receives from"}};
      for (const End &E : Ends)
        if (E.Bytes && !(Used[E.K] & 1))
          return fail("sizes", formatv("/sizes/used/{0}: 0, but rank {1} "
                                       "{2} rank {3} a block at step {0}; "
                                       "want flags 1",
                                       E.K, Me, E.Verb, J));
    }
  }

  /// An alltoall's sizes.block: one entry n, every block (the diagonal
  /// too) n bytes; the p x p blocks sum to at most 2^64 - 1.
  void checkBlock(const std::vector<uint64_t> &B, bool AlsoPairs) {
    llvm::StringRef Coll = S.spec().Name;
    if (AlsoPairs)
      return fail("sizes", formatv("/sizes/block: {0} takes sizes.block (every "
                                   "block alike) or sizes.pairs (the matrix), "
                                   "not both",
                                   Coll));
    if (B.size() != 1)
      return fail("sizes", formatv("/sizes/block: {0} entries; {1} needs one, "
                                   "the bytes every rank sends every rank "
                                   "(itself too)",
                                   B.size(), Coll));
    uint64_t Blocks = uint64_t(S.NumRanks) * S.NumRanks;
    if (B[0] && Blocks > UINT64_MAX / B[0])
      fail("sizes", formatv("/sizes/block/0: buffer all ({1} x {1} blocks of "
                            "{0} bytes) is longer than 2^64 bytes",
                            B[0], S.NumRanks));
  }

  void checkRoot() {
    llvm::StringRef Coll = S.spec().Name;
    if (S.spec().Rooted) {
      if (!S.Root)
        fail("root", formatv("/root: {0} needs a root rank", Coll));
      else if (*S.Root >= S.NumRanks)
        fail("root", formatv("/root: {0}", rankRange(*S.Root)));
    } else if (S.Root) {
      fail("root", formatv("/root: {0} takes no root (got {1}); use null", Coll,
                           *S.Root));
    }
  }

  void checkTopology() {
    const Topology &T = S.Topo;
    if (T.K == Topology::Kind::Ring && !T.Order.empty()) {
      if (T.Order.size() != S.NumRanks)
        return fail("topology",
                    formatv("/topology/order: {0} entries for {1} ranks; a "
                            "ring passes through every rank once",
                            T.Order.size(), S.NumRanks));
      std::vector<bool> Seen(S.NumRanks, false);
      for (size_t I = 0; I < T.Order.size(); ++I) {
        Rank R = T.Order[I];
        if (R >= S.NumRanks)
          return fail("topology",
                      formatv("/topology/order/{0}: {1}", I, rankRange(R)));
        if (Seen[R])
          return fail("topology", formatv("/topology/order/{0}: rank {1} "
                                          "appears twice in the ring",
                                          I, R));
        Seen[R] = true;
      }
    }
    if (T.K == Topology::Kind::Graph) {
      for (size_t I = 0; I < T.Edges.size(); ++I) {
        auto [U, V] = T.Edges[I];
        if (U >= S.NumRanks || V >= S.NumRanks)
          return fail("topology", formatv("/topology/edges/{0}: {1}", I,
                                          rankRange(U >= S.NumRanks ? U : V)));
        if (U == V)
          return fail("topology", formatv("/topology/edges/{0}: a link from "
                                          "rank {1} to itself",
                                          I, U));
      }
    }
  }

  void checkPorts() {
    if (S.Port.Send == 0)
      fail("ports", "/ports/send: must be at least 1");
    if (S.Port.Recv == 0)
      fail("ports", "/ports/recv: must be at least 1");
  }

  /// `nodes` is a partition of the ranks, `node_ports` needs it and allows
  /// at least one message each way. Works on the listed members only (no
  /// array of `ranks` entries: a header may claim 2^32 ranks).
  void checkNodes() {
    if (S.NodePort) {
      if (!S.Nodes)
        fail("node-ports", "/node_ports: node ports need \"nodes\", the "
                           "partition of the ranks into compute nodes");
      if (S.NodePort->Send == 0)
        fail("node-ports", "/node_ports/send: must be at least 1");
      if (S.NodePort->Recv == 0)
        fail("node-ports", "/node_ports/recv: must be at least 1");
    }
    if (!S.Nodes)
      return;
    const std::vector<std::vector<Rank>> &Nodes = *S.Nodes;
    // (rank, node, index) of every in-range member, in document order.
    std::vector<std::tuple<Rank, size_t, size_t>> Members;
    for (size_t N = 0; N < Nodes.size(); ++N) {
      if (Nodes[N].empty())
        fail("nodes", formatv("/nodes/{0}: node {0} is empty; a node holds at "
                              "least one rank",
                              N));
      for (size_t I = 0; I < Nodes[N].size(); ++I) {
        Rank R = Nodes[N][I];
        if (R >= S.NumRanks)
          fail("nodes", formatv("/nodes/{0}/{1}: {2}", N, I, rankRange(R)));
        else
          Members.emplace_back(R, N, I);
      }
    }
    // A rank listed again: the first repetition in document order.
    std::stable_sort(Members.begin(), Members.end(),
                     [](const auto &A, const auto &B) {
                       return std::get<0>(A) < std::get<0>(B);
                     });
    // Each run of equal ranks lists its first node first.
    std::optional<std::tuple<size_t, size_t, size_t>> Twice; // node, index,
                                                             // first node
    for (size_t G = 0, K = 0; G < Members.size(); G = K) {
      for (K = G + 1; K < Members.size() &&
                      std::get<0>(Members[K]) == std::get<0>(Members[G]);
           ++K)
        ;
      if (K == G + 1)
        continue;
      auto [R, N, I] = Members[G + 1];
      if (!Twice ||
          std::pair(N, I) < std::pair(std::get<0>(*Twice), std::get<1>(*Twice)))
        Twice = {N, I, std::get<1>(Members[G])};
    }
    if (Twice) {
      auto [N, I, First] = *Twice;
      fail("nodes", formatv("/nodes/{0}/{1}: rank {2} is already in node {3}; "
                            "every rank is in exactly one node",
                            N, I, Nodes[N][I], First));
    }
    // The smallest rank in no node.
    Rank Next = 0;
    for (const auto &M : Members) {
      if (std::get<0>(M) > Next)
        break;
      Next = std::get<0>(M) + 1;
    }
    if (Next < S.NumRanks)
      fail("nodes", formatv("/nodes: rank {0} is in no node; every rank is in "
                            "exactly one node",
                            Next));
  }

  void checkOp() {
    if (S.ReduceOp && !S.spec().isReduction())
      fail("op", formatv("/op: only reductions ({0}) take an operator; {1} "
                         "has none",
                         collectiveNames([](const CollectiveSpec &C) {
                           return C.isReduction();
                         }),
                         collectiveName(S.Kind)));
  }

  void checkSteps() {
    std::vector<Buffer> Bufs = S.buffers();
    const StepList &L = S.Steps;
    for (unsigned St = 0; St < L.numSteps(); ++St)
      for (size_t OI = 0; OI < L.step(St).size(); ++OI)
        checkOpAt(St, OI, Bufs);
  }

  void checkOpAt(unsigned St, size_t OI, const std::vector<Buffer> &Bufs) {
    bool Reduction = S.spec().isReduction();
    const StepList &L = S.Steps;
    const Op &O = L.step(St)[OI];
    // Paths are built only for failures: this sees every op.
    auto Path = [&] {
      return formatv("/steps/{0}/ops/{1}", St, S.fileOpIndex(St, OI)).str();
    };
    if (O.Src >= S.NumRanks)
      fail("rank-range", formatv("{0}/src: {1}", Path(), rankRange(O.Src)));
    if (O.Dst >= S.NumRanks)
      fail("rank-range", formatv("{0}/dst: {1}", Path(), rankRange(O.Dst)));
    if (O.Src == O.Dst)
      fail("self-send",
           formatv("{0}: rank {1} sends to itself", Path(), O.Src));
    if (O.NumBlocks == 0)
      fail("no-blocks", formatv("{0}/blocks: the op carries no blocks; "
                                "every op carries at least one",
                                Path()));
    llvm::ArrayRef<Block> Bs = L.blocks(O);
    for (size_t BI = 0; BI < Bs.size(); ++BI)
      if (!blockIsValid(Bs[BI], Bufs, Reduction))
        reportBlock(Bs[BI], formatv("{0}/blocks/{1}", Path(), BI), Bufs,
                    Reduction);
  }

  /// The fast test of every rule reportBlock explains.
  bool blockIsValid(const Block &B, const std::vector<Buffer> &Bufs,
                    bool Reduction) const {
    if (B.Buf >= Bufs.size() || B.Lo >= B.Hi || B.Hi > Bufs[B.Buf].Length)
      return false;
    if (B.Acc && !S.spec().usesAccumulators())
      return false;
    if (B.isLattice() && !latticeProblem(B).empty())
      return false;
    if (!Reduction)
      return !B.hasContrib() && !B.Reduce;
    if (!B.hasContrib() || B.Contrib >= S.Steps.numContribs())
      return false;
    if (std::optional<SubtreeName> N = S.Steps.subtree(B.Contrib))
      return namedIsValid(*N);
    const RankSet &C = S.Steps.contrib(B.Contrib);
    return !C.empty() && C.intervals().back().Hi <= S.NumRanks;
  }

  /// A set named by a subtree: of a family over these ranks, a tree it has.
  bool namedIsValid(const SubtreeName &N) const {
    const SubtreeFamily *F = S.Steps.family();
    return F && F->numRanks() == S.NumRanks && N.Tree < F->numTrees() &&
           N.Of < S.NumRanks;
  }

  /// What is wrong with lattice block B (docs/format.md, "Lattice
  /// blocks"), or empty: elements, rows and columns that exist and do not
  /// overlap, and the span the block records.
  std::string latticeProblem(const Block &B) const {
    if (!S.Steps.validLattice(B))
      return "names no lattice";
    const Lattice &X = S.Steps.lattice(B);
    if (!X.Elem || !X.Rows || !X.Cols)
      return formatv("a lattice needs elements of at least one byte, rows "
                     "and columns (elem {0}, rows {1}, cols {2})",
                     X.Elem, X.Rows, X.Cols);
    using U = unsigned __int128;
    U RowSpan = U(X.Cols - 1) * X.ColStride + X.Elem;
    if (X.Cols > 1 && X.ColStride < X.Elem)
      return formatv("columns overlap: the column stride {0} is below the "
                     "element's {1} bytes",
                     X.ColStride, X.Elem);
    if (X.Rows > 1 && U(X.RowStride) < RowSpan)
      return formatv("rows overlap: the row stride {0} is below a row's "
                     "span of {1} bytes",
                     X.RowStride, uint64_t(RowSpan));
    if (U(X.Start) + U(X.Rows - 1) * X.RowStride + RowSpan > U(~uint64_t(0)))
      return "the lattice's last byte is past 2^64";
    if (B.Lo != X.Start || B.Hi != X.end())
      return formatv("the block's span [{0},{1}) is not its lattice's "
                     "[{2},{3})",
                     B.Lo, B.Hi, X.Start, X.end());
    return "";
  }

  void reportBlock(const Block &B, const std::string &Path,
                   const std::vector<Buffer> &Bufs, bool Reduction) {
    if (B.Buf >= Bufs.size()) {
      std::vector<std::string> Names;
      for (const Buffer &Bf : Bufs)
        Names.push_back(Bf.Name);
      return fail("unknown-buffer",
                  formatv("{0}/buf: unknown buffer (this collective has: {1})",
                          Path, llvm::join(Names, ", ")));
    }
    const Buffer &Buf = Bufs[B.Buf];
    if (B.isLattice()) {
      // The lattice's own rules, then its last byte inside the buffer.
      if (std::string Why = latticeProblem(B); !Why.empty())
        fail("lattice", formatv("{0}/lattice: {1}", Path, Why));
      else if (B.Hi > Buf.Length)
        fail("block-range",
             formatv("{0}/lattice: its last byte, {1}, is past the end of "
                     "buffer {2} (length {3})",
                     Path, B.Hi - 1, Buf.Name, Buf.Length));
    } else if (B.Lo >= B.Hi)
      fail("empty-block", formatv("{0}: empty block {1}[{2},{3}); a block "
                                  "needs lo < hi",
                                  Path, Buf.Name, B.Lo, B.Hi));
    else if (B.Hi > Buf.Length)
      fail("block-range", formatv("{0}/hi: {1} is past the end of buffer {2} "
                                  "(length {3})",
                                  Path, B.Hi, Buf.Name, Buf.Length));
    if (B.Acc && !S.spec().usesAccumulators())
      fail("acc", formatv("{0}: only scan and exscan blocks name "
                          "accumulators (\"from\", \"acc\")",
                          Path));
    if (!Reduction) {
      if (B.hasContrib())
        fail("contrib", formatv("{0}/contrib: only reduction blocks carry "
                                "contributors",
                                Path));
      if (B.Reduce)
        fail("contrib",
             formatv("{0}/reduce: only reduction blocks combine", Path));
      return;
    }
    if (!B.hasContrib() || B.Contrib >= S.Steps.numContribs())
      return fail("contrib", formatv("{0}: a reduction block needs "
                                     "\"contrib\", the ranks combined in it",
                                     Path));
    if (std::optional<SubtreeName> N = S.Steps.subtree(B.Contrib)) {
      if (!namedIsValid(*N))
        fail("contrib",
             formatv("{0}/contrib: the subtree of rank {1} in tree {2} names "
                     "no tree of this schedule's {3} ranks",
                     Path, N->Of, N->Tree, S.NumRanks));
      return;
    }
    const RankSet &C = S.Steps.contrib(B.Contrib);
    if (C.empty())
      fail("contrib",
           formatv("{0}/contrib: the contributor set is empty", Path));
    else if (C.intervals().back().Hi > S.NumRanks)
      fail("contrib", formatv("{0}/contrib: {1}", Path,
                              rankRange(C.intervals().back().Hi - 1)));
  }
};

} // namespace

std::vector<Diagnostic> Schedule::verify() const {
  return StructureChecker(*this).run();
}

std::vector<Diagnostic> Schedule::verifyHeader() const {
  return StructureChecker(*this).runHeader();
}

std::vector<Diagnostic>
Schedule::verifyOps(llvm::ArrayRef<OpAt> Which,
                    const std::vector<Buffer> *Bufs) const {
  if (Bufs)
    return StructureChecker(*this).runOps(Which, *Bufs);
  return StructureChecker(*this).runOps(Which, buffers());
}
