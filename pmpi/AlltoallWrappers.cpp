//===- pmpi/AlltoallWrappers.cpp - MPI_Alltoall and MPI_Alltoallv ---------===//
///
/// \file
/// The drop-in library's MPI_Alltoall and MPI_Alltoallv on
/// intracommunicators: the call's block sizes (ir/PairMatrix.h) and this
/// rank's buffers, handed to pmpi::run. An MPI_Alltoall's sizes are its one
/// count, alike on every rank: the header's sizes.block, O(1) for any
/// number of ranks. An MPI_Alltoallv's rank knows only its row (sendcounts)
/// and its column (recvcounts): on an intracommunicator (blocking and
/// persistent calls) the header is the rank's own part (sizes.part, row,
/// column, column_at, used: ir/PairMatrix.h RankSizes), completed by O(p)
/// exchanges a rank over choreo's private communicator
/// (Request::ExchangeParts, exchangeRankPart: every call a 16-byte
/// allreduce of the matrix's key; a new matrix, where the rows start, the
/// column's places and the used offsets), any number of ranks.
/// alltoall-bruck's part also needs the blocks it relays: they are learnt
/// in a Bruck round of the sizes (RelayRounds: ceil(log_k p) rounds of
/// point-to-point messages along Bruck's own paths, each block's start
/// and length instead of its bytes; O(p log p) words a rank, never the
/// matrix), any p: for alltoall-bruck agreed without the counts, and,
/// decided by the sizes once they are placed (relayRadixAfter, agreed in
/// the or-allreduce), for auto, whose Bruck candidate is then priced with
/// the others, and for a rule that reads the sizes and picks Bruck; the
/// started call under auto runs it too (StartedPart). An algorithm that needs the whole matrix (none
/// registered now) has it exchanged
/// instead (Request::Exchange: every call a digest of each rank's row and
/// column, 32 bytes a rank; the first time a matrix is seen, the rows
/// themselves; up to 4096 ranks). Either way every rank checks its column
/// against what the others send (recvcounts that do not match fail the
/// call on every rank, naming the rank). MPI_IN_PLACE: the rank's data is first copied out of recvbuf
/// (its blocks at rdispls), then the plan runs as without it. Datatypes
/// whose type map is not their bytes in order go through packed copies,
/// block by block (pmpi/Datatypes.h). On an intercommunicator (MPI-4 6.8:
/// every rank of A sends every rank of B a block and back) the call is an
/// `inter_alltoall` over the merged ranks, A first, each rank's counts and
/// displacements over the other group placed at that group's ranks (zero
/// within its own): MPI_Alltoall's two counts are the header's sizes.block
/// [a, b]; MPI_Alltoallv's rank builds its part from its row and column
/// over the p + q ranks by the same exchanges (exchangeRankPart,
/// StartedPart), its used flags inter-alltoall-pairwise's steps
/// (markInterUsedOffsets), any p + q. What the library does not run goes
/// to PMPI_*: intercommunicators whose groups it cannot place,
/// MPI_Alltoallv over more than 4096 ranks whose algorithm needs the whole
/// matrix (one without a rank form from a row and column), a started
/// MPI_Ialltoallv over more than 256 that needs it. The `_c` (MPI_Count)
/// forms take the same path, and so do the non-blocking and persistent
/// forms (pmpi/Calls.h, Form): packed copies are packed at each start and
/// unpacked when the run completes; MPI_Ialltoallv builds each rank's part
/// from its row and column inside its run (StartedPart: the same exchanges
/// and the distributed proof as point-to-point rounds in the run's slot,
/// advanced without blocking, any p; alltoall-bruck's Bruck round of the
/// sizes too); with an algorithm that needs the
/// whole matrix (none registered now) its matrix travels in its run's
/// first step (rows and column digests, pmpi/StartedCounts.h, up to 256
/// ranks).
/// MPI_Alltoallv_init exchanges as the blocking call does, once. A rank's kept parts (by its own digest) are reused only when
/// every rank kept its own (everyRankHolds: one sum in the key's allreduce).
///
//===----------------------------------------------------------------------===//

#include "executor/Agree.h"
#include "executor/Clock.h"
#include "executor/JobProof.h"
#include "executor/Yielding.h"
#include "generators/Generator.h"
#include "generators/alltoall/AlltoallOptions.h"
#include "ir/PairMatrix.h"
#include "pmpi/Calls.h"
#include "pmpi/Candidates.h"
#include "pmpi/Config.h"
#include "pmpi/Datatypes.h"
#include "pmpi/JobCost.h"
#include "pmpi/PrivateComm.h"
#include "pmpi/Progress.h"
#include "pmpi/Selection.h"
#include "pmpi/Shape.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdio>
#include <cstring>
#include <list>
#include <map>
#include <set>

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

namespace {

/// The most ranks whose alltoallv header (p^2 sizes) the library builds.
constexpr uint64_t MaxRanks = 4096;
/// The most ranks of a started MPI_Alltoallv the library serves: each rank
/// receives the whole matrix in the run's first step.
constexpr uint64_t MaxStartedRanks = 256;

Digest128 digestOf(const std::vector<uint64_t> &V) {
  Hasher H;
  H.mix(V.size());
  for (uint64_t X : V)
    H.mix(X);
  return H.digest();
}

/// The last 8 values computed, by a 128-bit key: the least recently used
/// goes.
template <typename V> class RecentEight {
public:
  using Key = std::pair<uint64_t, uint64_t>;
  /// The value of K, now the most recently used, or null.
  const V *find(const Key &K) {
    auto It = Seen.find(K);
    if (It == Seen.end())
      return nullptr;
    Lru.remove(K);
    Lru.push_back(K);
    return &It->second;
  }
  void put(const Key &K, V Value) {
    if (Seen.size() >= 8) {
      Seen.erase(Lru.front());
      Lru.pop_front();
    }
    Seen[K] = std::move(Value);
    Lru.push_back(K);
  }

private:
  std::map<Key, V> Seen;
  std::list<Key> Lru;
};

/// Matrices seen, by the digest of every rank's row and column digests
/// (which determine the matrix).
RecentEight<std::vector<uint64_t>> &matrices() {
  static RecentEight<std::vector<uint64_t>> C;
  return C;
}

/// MPI_Alltoallv's matrix on every rank of Priv (collective): Row and Col
/// are this rank's sendcounts and recvcounts in bytes. "" and A.SizesA set,
/// or an error alike on every rank.
std::string exchangeMatrix(MPI_Comm Priv, const std::vector<uint64_t> &Row,
                           const std::vector<uint64_t> &Col, MpiArgs &A) {
  int N = 0;
  PMPI_Comm_size(Priv, &N);
  Digest128 HR = digestOf(Row), HC = digestOf(Col);
  uint64_t Mine[4] = {HR.H1, HR.H2, HC.H1, HC.H2};
  std::vector<uint64_t> All(4 * size_t(N));
  if (yielding::allgather(Mine, 4, MPI_UINT64_T, All.data(), 4, MPI_UINT64_T,
                          Priv) != MPI_SUCCESS)
    return "MPI_Alltoallv: exchanging the ranks' counts failed";
  Hasher K;
  for (uint64_t X : All)
    K.mix(X);
  Digest128 D = K.digest();
  std::pair<uint64_t, uint64_t> Key{D.H1, D.H2};
  if (const std::vector<uint64_t> *Seen = matrices().find(Key)) {
    A.SizesA = *Seen;
    return "";
  }
  std::vector<uint64_t> M(size_t(N) * N);
  if (yielding::allgather(Row.data(), N, MPI_UINT64_T, M.data(), N,
                          MPI_UINT64_T, Priv) != MPI_SUCCESS)
    return "MPI_Alltoallv: exchanging the ranks' counts failed";
  // Column J of the rows the ranks send is what rank J said it receives.
  std::vector<uint64_t> Column(N);
  for (int J = 0; J < N; ++J) {
    for (int I = 0; I < N; ++I)
      Column[I] = M[size_t(I) * N + J];
    Digest128 Want = digestOf(Column);
    if (Want.H1 != All[4 * size_t(J) + 2] || Want.H2 != All[4 * size_t(J) + 3])
      return formatv("MPI_Alltoallv: the recvcounts of rank {0} do not match "
                     "what the other ranks' sendcounts send it",
                     J);
  }
  matrices().put(Key, M);
  A.SizesA = std::move(M);
  return "";
}

/// This rank's own digest of an alltoallv: its rank, its process (its
/// MPI_COMM_WORLD rank), the ranks, its row and its column. The sum over
/// the ranks is the matrix's key, which names every row and column and
/// which process holds each (up to a collision of the 128-bit digests):
/// two communicators of the same counts but another order of the processes
/// have different keys (a rank's cached part is its own rank's). After
/// (nonzero): the blocking call decides by the sizes whether the part
/// learns the blocks Bruck relays (relayRadixAfter), so its kept part is
/// kept apart from a started call's and by MPI_IN_PLACE (After - 1), the
/// one thing beside the matrix a rule may read.
Digest128 ownDigestOf(int Me, int N, const std::vector<uint64_t> &Row,
                      const std::vector<uint64_t> &Col, Rank InterA = 0,
                      uint64_t RelayRadix = 0, uint64_t After = 0) {
  int World = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &World);
  Hasher H;
  // A part with the blocks Bruck relays (of its radix) is kept apart from
  // one without.
  if (RelayRadix)
    H.mix(0x52454c4159ull + RelayRadix); // "RELAY"
  if (After)
    H.mix(0x4146544552ull + After); // "AFTER"
  // An intercommunicator's part (its used flags are the intergroup
  // steps') is never an intracommunicator's of the same rows.
  if (InterA)
    H.mix(0x494e544552ull + InterA); // "INTER
  H.mix(uint64_t(Me));
  H.mix(uint64_t(World));
  H.mix(uint64_t(N));
  for (uint64_t X : Row)
    H.mix(X);
  for (uint64_t X : Col)
    H.mix(X);
  return H.digest();
}

/// Rank R of the N merged ranks as the user knows it: "rank R" of an
/// intracommunicator (InterA 0), else its rank in its group (A: the first
/// InterA).
std::string a2avRankName(uint64_t R, Rank InterA) {
  if (!InterA)
    return formatv("rank {0}", R);
  return R < InterA ? formatv("rank {0} of group A (low)", R).str()
                    : formatv("rank {0} of group B (high)", R - InterA).str();
}

/// The error of recvcounts that do not match: rank First's column says
/// Said bytes from Sender, whose row sends it Sent.
std::string a2avMismatch(uint64_t First, uint64_t Sender, uint64_t Sent,
                         uint64_t Said, Rank InterA) {
  return formatv("MPI_Alltoallv{0}: the recvcounts of {1} do not match what "
                 "the other {2} sendcounts send it ({3} sends it {4} bytes, "
                 "its recvcounts say {5})",
                 InterA ? " on an intercommunicator" : "",
                 a2avRankName(First, InterA),
                 InterA ? "group's" : "ranks'", a2avRankName(Sender, InterA),
                 Sent, Said);
}

/// What a rank keeps of an alltoallv it took part in, by its own digest
/// (ownDigestOf): the matrix's key then, its part (RankSizes), and, for a
/// started call, its proved ops by algorithm.
struct KeptPart {
  std::pair<uint64_t, uint64_t> Key{0, 0};
  std::shared_ptr<const RankSizes> Part;
  std::map<std::string, std::shared_ptr<const Schedule>> Proved;
};

/// The parts kept, by own digest (the last 8).
RecentEight<KeptPart> &rankParts() {
  static RecentEight<KeptPart> C;
  return C;
}

/// Whether every rank holds what it needs, from the sum over the ranks of
/// what each rank said it holds (Held: the digest it kept, or zero) and
/// the sum of what they said now (the key): every rank said the key iff
/// the sum of the held digests is N times the key (up to a collision).
/// Agreed by every rank alike, whatever each one's cache evicted (a
/// process's cache is shared by its communicators: the ranks of one may
/// have seen different calls since).
bool everyRankHolds(uint64_t N, std::pair<uint64_t, uint64_t> Key,
                    uint64_t HeldH1, uint64_t HeldH2) {
  return HeldH1 == N * Key.first && HeldH2 == N * Key.second;
}

/// The first tag of the blocking call's Bruck round of the sizes on the
/// private communicator (round d: RelayTag + d): below the tags of plans
/// (the top bit) and of started calls' rounds (SlotRounds: the next), and
/// no other blocking exchange sends point to point in that range.
constexpr int RelayTag = 0x0b00;

/// Bruck's round of the sizes (docs/alltoall.md, "Bruck from rows and
/// columns"): the rounds of alltoall-bruck with radix K, each carrying, in
/// place of a block's bytes, where the block starts in buffer all and its
/// length (two words), along the very paths Bruck forwards the blocks.
/// Every rank holds one block per offset b at any time (Bruck's
/// invariant): before round 0 its own row's; in round d it sends those
/// whose offset has digit v != 0 at weight W = K^d to rank + v W and
/// receives the same offsets' from rank - v W. What it receives is
/// BruckRelays' list for its part (RankSizes::Relay): O(p log_K p) words
/// a rank in all, p (K - 1) / K two-word entries a round, never the
/// matrix.
class RelayRounds {
public:
  RelayRounds(const RankSizes &Rs, Rank P, uint64_t K)
      : Br(P, K), P(P), Me(Rs.Me), K(K), Held(2 * size_t(P)),
        Out(std::min<uint64_t>(K, P)), In(std::min<uint64_t>(K, P)) {
    uint64_t At = Rs.RowAt;
    std::vector<uint64_t> Start(P);
    for (Rank J = 0; J < P; ++J) {
      Start[J] = At;
      At += Rs.Row[J];
    }
    for (uint64_t B = 0; B < P; ++B) {
      Rank J = Rank((uint64_t(Me) + B) % P);
      Held[2 * B] = Start[J];
      Held[2 * B + 1] = Rs.Row[J];
    }
    Relay.assign(1 + 2 * Br.total(), 0);
    Relay[0] = K;
  }
  unsigned rounds() const { return Br.rounds(); }
  /// Round D's messages posted on Comm with Tag (Reqs); false on an MPI
  /// error.
  bool post(unsigned D, MPI_Comm Comm, int Tag) {
    uint64_t W = Br.weight(D);
    // (A digit v of an offset below p is below p too: Out has min(K, p).)
    for (std::vector<uint64_t> &X : Out)
      X.clear();
    for (uint64_t B = 1; B < P; ++B)
      if (uint64_t V = (B / W) % K) {
        Out[V].push_back(Held[2 * B]);
        Out[V].push_back(Held[2 * B + 1]);
      }
    Reqs.clear();
    for (uint64_t V = 1; V < K && V * W < P; ++V) {
      In[V].assign(Out[V].size(), 0);
      int From = int((uint64_t(Me) + P - V * W) % P),
          To = int((uint64_t(Me) + V * W) % P);
      Reqs.emplace_back();
      if (PMPI_Irecv(In[V].data(), int(In[V].size()), MPI_UINT64_T, From, Tag,
                     Comm, &Reqs.back()) != MPI_SUCCESS)
        return false;
      Reqs.emplace_back();
      if (PMPI_Isend(Out[V].data(), int(Out[V].size()), MPI_UINT64_T, To, Tag,
                     Comm, &Reqs.back()) != MPI_SUCCESS)
        return false;
    }
    return true;
  }
  /// Takes round D's entries once its requests completed.
  void finish(unsigned D) {
    uint64_t W = Br.weight(D);
    std::vector<size_t> Next(Out.size(), 0);
    for (uint64_t B = 1; B < P; ++B)
      if (uint64_t V = (B / W) % K) {
        size_t &X = Next[V];
        Held[2 * B] = In[V][X];
        Held[2 * B + 1] = In[V][X + 1];
        X += 2;
        uint64_t E = 1 + 2 * Br.index(D, B);
        Relay[E] = Held[2 * B];
        Relay[E + 1] = Held[2 * B + 1];
      }
  }
  std::vector<MPI_Request> Reqs;
  /// The list (the radix, then two words an entry).
  std::vector<uint64_t> Relay;

private:
  BruckRelays Br;
  Rank P, Me;
  uint64_t K;
  std::vector<uint64_t> Held;
  std::vector<std::vector<uint64_t>> Out, In;
};

/// The blocking call's Bruck round of the sizes on Priv (collective over
/// it): "" and Rs.Relay set, or an error text (an MPI error: alike on
/// every rank only in as much as MPI reports it alike).
std::string exchangeRelays(MPI_Comm Priv, RankSizes &Rs, uint64_t K) {
  int N = 0;
  PMPI_Comm_size(Priv, &N);
  RelayRounds X(Rs, Rank(N), K);
  for (unsigned D = 0; D < X.rounds(); ++D) {
    if (!X.post(D, Priv, RelayTag + int(D))) {
      for (MPI_Request &R : X.Reqs)
        if (R != MPI_REQUEST_NULL)
          yielding::wait(R);
      return "MPI_Alltoallv: exchanging the relayed blocks' sizes failed";
    }
    int Rc = MPI_SUCCESS;
    for (MPI_Request &R : X.Reqs)
      if (int E = yielding::wait(R); E != MPI_SUCCESS)
        Rc = E;
    if (Rc != MPI_SUCCESS)
      return "MPI_Alltoallv: exchanging the relayed blocks' sizes failed";
    X.finish(D);
  }
  Rs.Relay = std::move(X.Relay);
  return "";
}

/// The radix of the Bruck round of the sizes the blocking call's part
/// needs when it was not agreed without the counts (a named alltoall-bruck
/// was), decided by the call's sizes once this rank's part (Rs) knows the
/// total: the selection of the call with this part (select:
/// CHOREO_ALLTOALLV, a rule, which may read avg_msg_size, total_msg_size
/// and in_place, or CHOREO_DEFAULT) is, on every rank alike, an algorithm
/// that relays (relayRadixOf: the rule's alltoall-bruck), auto (its Bruck
/// candidate's radix, autoRelayRadix, so that auto prices Bruck), or
/// neither (0). The ranks agree on it in the or-allreduce of the used
/// offsets (exchangeRankPart) before any round is sent.
uint64_t relayRadixAfter(const MpiArgs &A, std::shared_ptr<const RankSizes> Rs) {
  const Config &C = config();
  if (!C.Error.empty())
    return 0;
  MpiArgs S = A;
  S.Part = std::move(Rs);
  auto B = bindCall(std::move(S));
  if (!B) {
    llvm::consumeError(B.takeError());
    return 0;
  }
  auto Ch = select(*B, C.Sel);
  if (!Ch) { // (buildEntry's selection says why, on every rank)
    llvm::consumeError(Ch.takeError());
    return 0;
  }
  return Ch->K == Choice::Auto ? autoRelayRadix(B->Header) : relayRadixOf(*Ch);
}

/// What this rank's part of MPI_Alltoallv's matrix needs, learnt from the
/// other ranks in O(p) a rank, never the matrix (collective over Priv; Row
/// and Col are this rank's sendcounts and recvcounts in bytes). "" and
/// A.Part, A.MatrixKey set, or an error alike on every rank.
///
/// Every call: one allreduce (sum) of 32 bytes: each rank's own digest
/// (ownDigestOf; the sum is the matrix's key) and the key it kept with its
/// part for that digest (zero if none): every rank reuses its part iff
/// every rank kept it (everyRankHolds), so that the ranks never split
/// between a cached part and an exchange (a process's cache is shared by
/// its communicators and may have evicted differently on different ranks).
/// A new one:
///  - an allgather of one word a rank, the rows' lengths: where each row
///    starts in buffer all (the sum of the rows before it) and its length;
///  - an alltoall of two words a pair: rank i tells rank j the bytes it
///    sends j and where block (i, j) starts in its row; rank j compares the
///    bytes with its recvcounts (its column) and knows where each block of
///    its column starts (RankSizes::ColumnAt);
///  - an allreduce (bitwise or) of p + 1 words: the used offsets of every
///    row (ir/PairMatrix.h, markUsedOffsets; which steps a generator leaves
///    out) and whether some rank's recvcounts differ from what it is sent;
///    only then the first such rank tells every rank which count differs.
/// InterA > 0: an intercommunicator's, over the merged ranks (Priv), its
/// group A the first InterA: Row and Col over them, zero within this
/// rank's group; the used flags are inter-alltoall-pairwise's steps
/// (markInterUsedOffsets); the rest as on an intracommunicator.
/// RelayRadix > 0 (alltoall-bruck, agreed without the counts): then
/// Bruck's round of the sizes (exchangeRelays, RelayRounds: ceil(log_k p)
/// rounds of point-to-point messages), whose list the part keeps
/// (RankSizes::Relay). RelayRadix 0 on an intracommunicator: the radix is
/// decided by the sizes (relayRadixAfter: a rule that reads them and picks
/// alltoall-bruck, or auto with its Bruck candidate) and agreed in the
/// or-allreduce (the radix and its complement: every rank said the same
/// iff no bit is set in both; ranks that differ run no round, and the
/// selection's agreement, buildEntry, names what each chose).
std::string exchangeRankPart(MPI_Comm Priv, const std::vector<uint64_t> &Row,
                             const std::vector<uint64_t> &Col, MpiArgs &A,
                             Rank InterA = 0, uint64_t RelayRadix = 0) {
  int N = 0, Me = 0;
  PMPI_Comm_size(Priv, &N);
  PMPI_Comm_rank(Priv, &Me);
  const char *Failed = "MPI_Alltoallv: exchanging the ranks' counts failed";
  bool After = !RelayRadix && !InterA;
  Digest128 Mine = ownDigestOf(Me, N, Row, Col, InterA, RelayRadix,
                               After ? 1 + uint64_t(A.InPlace) : 0);
  std::pair<uint64_t, uint64_t> Own{Mine.H1, Mine.H2};
  const KeptPart *Kept = rankParts().find(Own);
  uint64_t Sum[4] = {Mine.H1, Mine.H2, Kept ? Kept->Key.first : 0,
                     Kept ? Kept->Key.second : 0};
  if (yielding::allreduce(MPI_IN_PLACE, Sum, 4, MPI_UINT64_T, MPI_SUM, Priv) !=
      MPI_SUCCESS)
    return Failed;
  std::pair<uint64_t, uint64_t> Key{Sum[0], Sum[1]};
  A.MatrixKey = {Sum[0], Sum[1]};
  if (everyRankHolds(N, Key, Sum[2], Sum[3])) {
    if (!Kept || Kept->Key != Key || !Kept->Part)
      // Only a collision of the digests' sums gets here.
      return "MPI_Alltoallv: the ranks' kept parts disagree (a collision of "
             "128-bit digests)";
    A.Part = Kept->Part;
    return "";
  }
  // The rows' lengths, and per pair the bytes and the block's place in its
  // row: both at once.
  uint64_t RowBytes = 0;
  std::vector<uint64_t> Out(2 * size_t(N)), In(2 * size_t(N)), Lens(N);
  for (int J = 0; J < N; ++J) {
    Out[2 * size_t(J)] = Row[J];
    Out[2 * size_t(J) + 1] = RowBytes;
    RowBytes += Row[J];
  }
  MPI_Request Reqs[2];
  if (PMPI_Iallgather(&RowBytes, 1, MPI_UINT64_T, Lens.data(), 1,
                      MPI_UINT64_T, Priv, &Reqs[0]) != MPI_SUCCESS)
    return Failed;
  if (PMPI_Ialltoall(Out.data(), 2, MPI_UINT64_T, In.data(), 2, MPI_UINT64_T,
                     Priv, &Reqs[1]) != MPI_SUCCESS) {
    yielding::wait(Reqs[0]);
    return Failed;
  }
  int Rc0 = yielding::wait(Reqs[0]), Rc1 = yielding::wait(Reqs[1]);
  if (Rc0 != MPI_SUCCESS || Rc1 != MPI_SUCCESS)
    return Failed;
  auto Rs = std::make_shared<RankSizes>();
  Rs->Me = Rank(Me);
  Rs->Row = Row;
  Rs->Column = Col;
  Rs->ColumnAt.resize(N);
  std::vector<uint64_t> Start(N);
  uint64_t Total = 0;
  for (int I = 0; I < N; ++I) {
    Start[I] = Total;
    Total += Lens[I];
  }
  Rs->RowAt = Start[Me];
  Rs->Total = Total;
  int Bad = -1;
  for (int I = 0; I < N; ++I) {
    Rs->ColumnAt[I] = Start[I] + In[2 * size_t(I) + 1];
    if (Bad < 0 && In[2 * size_t(I)] != Col[I])
      Bad = I;
  }
  // The used offsets, whether some rank's recvcounts differ, and the
  // radix of the Bruck round this rank's selection wants (and its
  // complement): one or-allreduce.
  uint64_t Want = After ? relayRadixAfter(A, Rs) : 0;
  std::vector<uint64_t> Used(size_t(N) + 3, 0);
  if (InterA)
    markInterUsedOffsets(Rank(N), InterA, Rank(Me), Row, Used);
  else
    markUsedOffsets(Rank(N), Rank(Me), Row, Used);
  Used[N] = Bad >= 0;
  Used[N + 1] = Want;
  Used[N + 2] = ~Want;
  if (yielding::allreduce(MPI_IN_PLACE, Used.data(), N + 3, MPI_UINT64_T,
                          MPI_BOR, Priv) != MPI_SUCCESS)
    return Failed;
  if (Used[N]) {
    // The first rank whose recvcounts differ names the count.
    int First = Bad >= 0 ? Me : N;
    yielding::allreduce(MPI_IN_PLACE, &First, 1, MPI_INT, MPI_MIN, Priv);
    uint64_t Said[3] = {0, 0, 0};
    if (First == Me) {
      Said[0] = uint64_t(Bad);
      Said[1] = In[2 * size_t(Bad)];
      Said[2] = Col[Bad];
    }
    yielding::bcast(Said, 3, MPI_UINT64_T, First, Priv);
    return a2avMismatch(uint64_t(First), Said[0], Said[1], Said[2], InterA);
  }
  if (After && !(Used[N + 1] & Used[N + 2]))
    RelayRadix = Used[N + 1];
  Used.resize(N);
  Rs->Used = std::move(Used);
  if (RelayRadix)
    if (std::string Err = exchangeRelays(Priv, *Rs, RelayRadix); !Err.empty())
      return Err;
  KeptPart K;
  K.Key = Key;
  K.Part = Rs;
  rankParts().put(Own, std::move(K));
  A.Part = std::move(Rs);
  return "";
}

/// A started MPI_Alltoallv's matrix from every rank's row and column digest
/// (p + 2 words each, pmpi/StartedCounts.h): "" and A.SizesA set, or an
/// error alike on every rank.
std::string heardMatrix(llvm::ArrayRef<uint64_t> All, MpiArgs &A) {
  size_t N = A.Ranks, W = N + 2;
  std::vector<uint64_t> M(N * N), Column(N);
  for (size_t I = 0; I < N; ++I)
    for (size_t J = 0; J < N; ++J)
      M[I * N + J] = All[I * W + J];
  for (size_t J = 0; J < N; ++J) {
    for (size_t I = 0; I < N; ++I)
      Column[I] = M[I * N + J];
    Digest128 Want = digestOf(Column);
    if (Want.H1 != All[J * W + N] || Want.H2 != All[J * W + N + 1])
      return formatv("MPI_Alltoallv: the recvcounts of rank {0} do not match "
                     "what the other ranks' sendcounts send it",
                     J);
  }
  A.SizesA = std::move(M);
  return "";
}

//===----------------------------------------------------------------------===//
// A started MPI_Ialltoallv from rows and columns
//===----------------------------------------------------------------------===//

/// Point-to-point rounds of a started call's own exchanges on the private
/// communicator, in tags of the run's slot that no plan uses: Plan::tagBase
/// sets the top bit of the tag range; these clear it and set the next, then
/// the slot's bits and 7 bits of round. No collective is posted after the
/// call returns (the ranks would post it in different orders among the
/// other collectives on the private communicator); a slot's messages match
/// only each other.
class SlotRounds {
public:
  SlotRounds(MPI_Comm C, uint32_t Slot) : Comm(C) {
    PMPI_Comm_rank(C, &Me);
    PMPI_Comm_size(C, &N);
    int *Ub = nullptr, Flag = 0;
    PMPI_Comm_get_attr(C, MPI_TAG_UB, &Ub, &Flag);
    int TagUb = Plan::usableTagUb(Flag && Ub ? *Ub : 32767);
    int Bits = 0;
    while (Bits < 31 && (int64_t(1) << (Bits + 1)) - 1 <= TagUb)
      ++Bits;
    uint32_t SlotMask = (uint32_t(1) << (Bits - 9)) - 1;
    Base = int((uint32_t(1) << (Bits - 2)) | ((Slot & SlotMask) << 7));
  }
  MPI_Comm Comm;
  int Me = 0, N = 1, Base = 0;
  int tag(int Round) const { return Base | Round; }
};

/// Combines From into Into (commutative and associative).
using RoundsCombine = std::function<void(uint64_t *Into, const uint64_t *From)>;

/// A non-blocking allreduce by recursive doubling over SlotRounds (the
/// ranks past the largest power of two fold into their neighbours first
/// and get the result from them last), with any commutative combination.
/// Rounds Tag0 .. Tag0 + 23.
class RoundsAllreduce {
public:
  std::vector<uint64_t> V;

  /// Posts the first round; false on an MPI error.
  bool start(const SlotRounds &R, int Tag0, std::vector<uint64_t> Init,
             RoundsCombine F) {
    X = &R;
    T0 = Tag0;
    V = std::move(Init);
    Tmp.assign(V.size(), 0);
    Fn = std::move(F);
    P2 = 1;
    while (P2 * 2 <= R.N)
      P2 *= 2;
    Rem = R.N - P2;
    Levels = 0;
    while ((1 << Levels) < P2)
      ++Levels;
    if (R.Me < 2 * Rem)
      NewRank = R.Me % 2 ? R.Me / 2 : -1;
    else
      NewRank = R.Me - Rem;
    Step = 0;
    return post();
  }
  /// Advances without blocking: 1 done (V is the result), 0 in flight, -1
  /// an MPI error.
  int test() {
    for (;;) {
      if (Step > Levels + 1)
        return 1;
      int Done = 0;
      if (PMPI_Testall(2, Reqs, &Done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return -1;
      if (!Done)
        return 0;
      if (Combining)
        Fn(V.data(), Tmp.data());
      if (Result) {
        V = Tmp;
        Result = false;
      }
      ++Step;
      if (!post())
        return -1;
    }
  }

private:
  const SlotRounds *X = nullptr;
  int T0 = 0, P2 = 1, Rem = 0, Levels = 0, NewRank = 0, Step = 0;
  bool Combining = false, Result = false;
  std::vector<uint64_t> Tmp;
  RoundsCombine Fn;
  MPI_Request Reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};

  int real(int NR) const { return NR < Rem ? 2 * NR + 1 : NR + Rem; }
  int count() const { return int(V.size()); }
  /// Posts step Step's messages (none past the last).
  bool post() {
    Reqs[0] = Reqs[1] = MPI_REQUEST_NULL;
    Combining = false;
    int Me = X->Me, Rc = MPI_SUCCESS, Rc2 = MPI_SUCCESS;
    if (Step == 0) {
      if (Me < 2 * Rem && Me % 2 == 0) {
        // Folded: send, and wait for the result at the end.
        Rc = PMPI_Isend(V.data(), count(), MPI_UINT64_T, Me + 1, X->tag(T0),
                        X->Comm, &Reqs[0]);
        // (Into Tmp: V is being sent.)
        Rc2 = PMPI_Irecv(Tmp.data(), count(), MPI_UINT64_T, Me + 1,
                         X->tag(T0 + 23), X->Comm, &Reqs[1]);
        Step = Levels + 1; // (the next test ends it)
        Result = true;
      } else if (Me < 2 * Rem) {
        Rc = PMPI_Irecv(Tmp.data(), count(), MPI_UINT64_T, Me - 1, X->tag(T0),
                        X->Comm, &Reqs[0]);
        Combining = true;
      }
    } else if (Step <= Levels) {
      int Peer = real(NewRank ^ (1 << (Step - 1)));
      Rc = PMPI_Irecv(Tmp.data(), count(), MPI_UINT64_T, Peer,
                      X->tag(T0 + Step), X->Comm, &Reqs[0]);
      Rc2 = PMPI_Isend(V.data(), count(), MPI_UINT64_T, Peer,
                       X->tag(T0 + Step), X->Comm, &Reqs[1]);
      Combining = true;
    } else if (Step == Levels + 1) {
      if (Me < 2 * Rem && Me % 2)
        Rc = PMPI_Isend(V.data(), count(), MPI_UINT64_T, Me - 1,
                        X->tag(T0 + 23), X->Comm, &Reqs[0]);
    }
    return Rc == MPI_SUCCESS && Rc2 == MPI_SUCCESS;
  }
};

/// The key's digest of a proved part for an algorithm: what a rank says it
/// holds (everyRankHolds) for a started call.
Digest128 provedKeyOf(std::pair<uint64_t, uint64_t> Key,
                      const std::string &Algo) {
  Hasher H;
  H.mix(Key.first);
  H.mix(Key.second);
  H.mix(Algo);
  return H.digest();
}

/// A started MPI_Ialltoallv between its start and its plan: every message
/// point to point in the run's slot (SlotRounds), posted without blocking
/// by the progress engine (pmpi/Progress.h):
///  1. at the start (in the call): an allreduce (sum) of 4 words: this
///     rank's own digest and the key of the proved part it kept for it
///     (the blocking call's, exchangeRankPart, with the algorithm in it);
///     every rank kept it: the plan at once;
///  2. a new matrix: an alltoall of three words a pair (the bytes, where
///     the block starts in its row, the row's length);
///  3. an allreduce of p + 4 words: the used offsets (bitwise or) and the
///     first rank whose recvcounts differ, with the count (the lowest
///     rank's); alltoall-bruck, or auto (whose Bruck candidate needs it),
///     then: its Bruck round of the sizes (RelayRounds, stage Relay:
///     round d on the slot's round 74 + d);
///  4. auto only (pmpi/JobCost.h, StagedChoice: chooseInJob's pricing in
///     stages): this rank's part of every candidate built, an allreduce
///     (sum) of 4 words a candidate (missing, nodes, the agreement term),
///     the replay of the priced candidates' ops with timestamps (candidate
///     i on round i: rounds 0 .. 48 are free again once that allreduce
///     completed anywhere, since every rank then has finished the stages
///     before it), an allreduce (max) of one word a candidate (when each
///     rank finished it); then the model's cheapest, or MPICH's own
///     (alltoallv-mpich, run as choreo's schedule) when it is not faster
///     by the margin;
///  5. this rank's part built (the agreed generator's rank form, or auto's
///     pick) and its local proof, then an allreduce of the proof's 18
///     words (executor/JobProof.h, proofWords: the header's agreement, the
///     message agreement, the local checks);
///  6. the plan from this rank's ops, started in the call's slot.
/// Every rank fails alike where any rank's counts or part fail; no rank
/// holds the matrix. Auto's pick is kept as "auto" with the part: a
/// repeated call pays the key's allreduce only.
struct StartedPart {
  PrivateComm *Priv = nullptr;
  std::string CommName;
  uint32_t Slot = 0;
  Choice Ch;
  /// Algo: the kept part's name ("auto" under auto); Ran: what runs, and
  /// Why, why (auto's pick and price).
  std::string Algo, Id, Ran, Why;
  std::vector<std::string> Extra;
  bool Auto = false;
  std::unique_ptr<StagedChoice> Chooser;
  MpiArgs Args;
  UserBuffers Buffers;
  std::vector<uint64_t> Row, Col;
  /// An intercommunicator's: group A's size (the merged ranks' first).
  Rank InterA = 0;
  /// alltoall-bruck's radix (relayRadixOf; under auto its candidate's,
  /// autoRelayRadix): its part needs Bruck's round of the sizes (stage
  /// Relay), else 0.
  uint64_t RelayRadix = 0;
  std::unique_ptr<RelayRounds> Relays;
  unsigned RelayRound = 0;
  std::pair<uint64_t, uint64_t> Own{0, 0}, Key{0, 0};
  std::unique_ptr<SlotRounds> Ex;
  RoundsAllreduce Red;
  std::vector<uint64_t> Out, In;
  std::vector<MPI_Request> Reqs;
  std::shared_ptr<RankSizes> Rs;
  std::optional<Schedule> Part;
  enum class Stage {
    Key,
    Columns,
    Used,
    Relay,
    Price,
    Replay,
    Max,
    Proof
  } At = Stage::Key;
  double T0 = 0;

  int me() const { return Ex->Me; }
  int ranks() const { return Ex->N; }
  llvm::Error problem(const std::string &Text) const {
    return makeDiagError("choreo-mpi", Text);
  }

  /// Posts step 1 (in the call).
  bool start() {
    T0 = steadySeconds();
    Digest128 Mine = ownDigestOf(me(), ranks(), Row, Col, InterA, RelayRadix);
    Own = {Mine.H1, Mine.H2};
    uint64_t Held[2] = {0, 0};
    if (const KeptPart *K = rankParts().find(Own))
      if (K->Proved.count(Algo)) {
        Digest128 D = provedKeyOf(K->Key, Algo);
        Held[0] = D.H1;
        Held[1] = D.H2;
      }
    return Red.start(*Ex, 0, {Mine.H1, Mine.H2, Held[0], Held[1]},
                     [](uint64_t *A, const uint64_t *B) {
                       for (int I = 0; I < 4; ++I)
                         A[I] += B[I];
                     });
  }

  llvm::Expected<std::shared_ptr<Plan>> poll();
  llvm::Expected<std::shared_ptr<Plan>>
  planOf(std::shared_ptr<const Schedule> Ops);
  /// Step 5's allreduce, of Part's proof words.
  llvm::Error startProof();
  /// Step 5 of a named algorithm: this rank's part built from Rs, and its
  /// proof's allreduce started.
  llvm::Error buildPart();
  /// Auto's choice from the maxima (step 4): Part, Ran and Why set.
  llvm::Error chosen(const BoundCall &B);
  /// Once the part's sizes are complete (the Bruck round's too): auto's
  /// pricing started (step 4), or a named algorithm's part built (step 5).
  llvm::Error priceOrBuild();
};

llvm::Error StartedPart::startProof() {
  ProofWords W = proofWords(*Part, Rank(me()), me());
  if (W.NodesUnsupported)
    W.Max[0] = 1; // (no header here has nodes)
  std::vector<uint64_t> Words;
  Words.insert(Words.end(), W.Min, W.Min + ProofWords::NMin);
  Words.insert(Words.end(), W.Sum, W.Sum + ProofWords::NSum);
  Words.insert(Words.end(), W.Max, W.Max + ProofWords::NMax);
  if (!Red.start(*Ex, 50, std::move(Words),
                 [](uint64_t *A, const uint64_t *B) {
                   int I = 0;
                   for (; I < ProofWords::NMin; ++I)
                     A[I] = std::min(A[I], B[I]);
                   for (; I < ProofWords::NMin + ProofWords::NSum; ++I)
                     A[I] += B[I];
                   for (; I < ProofWords::NMin + ProofWords::NSum +
                                  ProofWords::NMax;
                        ++I)
                     A[I] = std::max(A[I], B[I]);
                 }))
    return problem("the exchange of the counts failed");
  At = Stage::Proof;
  return llvm::Error::success();
}

llvm::Error StartedPart::buildPart() {
  auto B = bindCall(Args);
  if (!B)
    return B.takeError();
  auto S = buildFor(Id, Extra, B->Header, B->ElemBytes, Rank(me()));
  if (!S)
    // (Alike on every rank: the generator refuses the header's shape.)
    return problem(formatv("{0} on {1}: {2} ({3}) cannot serve it: {4}",
                           B->describe(), CommName, Algo, Ch.Why,
                           llvm::toString(S.takeError())));
  Part.emplace(std::move(*S));
  return startProof();
}

llvm::Error StartedPart::chosen(const BoundCall &B) {
  const Config &C = config();
  std::optional<JobChoice> A = Chooser->choose(Red.V);
  Red.V = {};
  if (!A) {
    // (Unreachable while alltoallv-mpich serves every alltoallv.)
    Ran = "alltoallv-mpich";
    Why = Ch.Why + "; auto: no candidate could be priced, MPICH's algorithm "
                   "runs";
    auto S = buildFor(Ran, {}, B.Header, B.ElemBytes, Rank(me()));
    if (!S)
      return S.takeError();
    Part.emplace(std::move(*S));
  } else if (handedToMpich(A->Time, A->MpichTime, C.Sel.Margin)) {
    // MPICH's own call can no longer be started in order: its algorithm
    // runs as choreo's schedule (as the started v forms' whole-schedule
    // path, pmpi/StartedCounts.cpp).
    Ran = A->MpichId;
    Why = formatv("{0}; auto: {1} predicted {2:e3} s, MPICH's own ({3}) "
                  "{4:e3} s: not {5:F0} % faster (CHOREO_MARGIN), so the "
                  "started call runs {3}",
                  Ch.Why, A->Id, A->Time, A->MpichId, *A->MpichTime,
                  C.Sel.Margin * 100);
    Part = A->Text == A->MpichId ? std::move(A->Part)
                                 : Chooser->takePart(A->MpichId);
    if (!Part) // (priced, so built)
      return problem("the part of " + A->MpichId + " is missing");
  } else {
    Ran = A->Text;
    Why = formatv("{0}; auto: model time {1:e3} s, best of {2} priced in the "
                  "run",
                  Ch.Why, A->Time, A->Candidates);
    Part = std::move(A->Part);
  }
  Chooser.reset();
  return llvm::Error::success();
}

llvm::Error StartedPart::priceOrBuild() {
  if (!Auto)
    return buildPart();
  auto B = bindCall(Args);
  if (!B)
    return B.takeError();
  // Every candidate's part, priced in the run (step 4); with the blocks
  // Bruck relays in the part (RelayRadix: autoRelayRadix), alltoall-bruck
  // among them.
  std::vector<uint32_t> NodeOf;
  if (Priv->NodesKnown)
    NodeOf = Priv->NodeOf;
  Chooser = std::make_unique<StagedChoice>(*B, config().Sel, Rank(me()),
                                           NodeOf);
  if (Chooser->size() > 49)
    // (Alike on every rank: the replay has rounds 0 .. 48.)
    return problem(formatv("auto: {0} candidates, more than the 49 a "
                           "started call prices",
                           Chooser->size()));
  if (!Red.start(*Ex, 74, Chooser->sumWords(),
                 [K = Chooser->size()](uint64_t *A, const uint64_t *B) {
                   for (size_t I = 0; I < 4 * K; ++I)
                     A[I] += B[I];
                 }))
    return problem("the exchange of the counts failed");
  At = Stage::Price;
  return llvm::Error::success();
}

llvm::Expected<std::shared_ptr<Plan>>
StartedPart::planOf(std::shared_ptr<const Schedule> Ops) {
  auto P = Plan::createLocal(*Ops, Priv->Comm, Buffers, Priv->FlowControl);
  if (!P)
    return P.takeError();
  std::shared_ptr<Plan> Sp(std::move(*P));
  if (auto Err = Sp->start(Slot))
    return std::move(Err);
  return Sp;
}

llvm::Expected<std::shared_ptr<Plan>> StartedPart::poll() {
  const char *Failed = "the exchange of the counts failed";
  int N = ranks(), Me = me();
  // Each stage: its messages complete, then the next is posted (the
  // replay's are its own).
  if (At == Stage::Replay) {
    // (advanced below)
  } else if (At == Stage::Relay) {
    int Done = 0;
    if (PMPI_Testall(int(Relays->Reqs.size()), Relays->Reqs.data(), &Done,
                     MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      return problem(Failed);
    if (!Done)
      return nullptr;
  } else if (At == Stage::Columns) {
    int Done = 0;
    if (PMPI_Testall(int(Reqs.size()), Reqs.data(), &Done,
                     MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      return problem(Failed);
    if (!Done)
      return nullptr;
  } else if (int T = Red.test(); T < 0) {
    return problem(Failed);
  } else if (T == 0) {
    return nullptr;
  }
  switch (At) {
  case Stage::Key: {
    Key = {Red.V[0], Red.V[1]};
    Digest128 D = provedKeyOf(Key, Algo);
    if (everyRankHolds(N, {D.H1, D.H2}, Red.V[2], Red.V[3])) {
      const KeptPart *K = rankParts().find(Own);
      if (!K || K->Key != Key || !K->Proved.count(Algo))
        return problem("the ranks' kept parts disagree (a collision of "
                       "128-bit digests)");
      return planOf(K->Proved.at(Algo));
    }
    // The rows' lengths, and per pair the bytes and the block's place in
    // its row.
    uint64_t RowBytes = 0;
    for (uint64_t X : Row)
      RowBytes += X;
    Out.assign(3 * size_t(N), 0);
    In.assign(3 * size_t(N), 0);
    uint64_t At = 0;
    for (int J = 0; J < N; ++J) {
      Out[3 * size_t(J)] = Row[J];
      Out[3 * size_t(J) + 1] = At;
      Out[3 * size_t(J) + 2] = RowBytes;
      At += Row[J];
    }
    std::copy(Out.begin() + 3 * size_t(Me), Out.begin() + 3 * size_t(Me) + 3,
              In.begin() + 3 * size_t(Me));
    Reqs.assign(2 * size_t(N - 1), MPI_REQUEST_NULL);
    size_t K = 0;
    for (int J = 0; J < N; ++J)
      if (J != Me &&
          PMPI_Irecv(&In[3 * size_t(J)], 3, MPI_UINT64_T, J, Ex->tag(24),
                     Ex->Comm, &Reqs[K++]) != MPI_SUCCESS)
        return problem(Failed);
    for (int J = 0; J < N; ++J)
      if (J != Me &&
          PMPI_Isend(&Out[3 * size_t(J)], 3, MPI_UINT64_T, J, Ex->tag(24),
                     Ex->Comm, &Reqs[K++]) != MPI_SUCCESS)
        return problem(Failed);
    this->At = Stage::Columns;
    return poll();
  }
  case Stage::Columns: {
    Reqs = {};
    Rs = std::make_shared<RankSizes>();
    Rs->Me = Rank(Me);
    Rs->Row = Row;
    Rs->Column = Col;
    Rs->ColumnAt.resize(N);
    uint64_t Total = 0;
    std::vector<uint64_t> Start(N);
    for (int I = 0; I < N; ++I) {
      Start[I] = Total;
      Total += In[3 * size_t(I) + 2];
    }
    Rs->RowAt = Start[Me];
    Rs->Total = Total;
    // The first rank whose recvcounts differ: (its rank, the sender, the
    // bytes sent, the bytes said), the lowest rank's; none: all ones.
    std::vector<uint64_t> V(size_t(N) + 4, 0);
    V[N] = V[N + 1] = V[N + 2] = V[N + 3] = UINT64_MAX;
    for (int I = 0; I < N; ++I) {
      Rs->ColumnAt[I] = Start[I] + In[3 * size_t(I) + 1];
      if (V[N] == UINT64_MAX && In[3 * size_t(I)] != Col[I]) {
        V[N] = uint64_t(Me);
        V[N + 1] = uint64_t(I);
        V[N + 2] = In[3 * size_t(I)];
        V[N + 3] = Col[I];
      }
    }
    In = Out = {};
    std::vector<uint64_t> Used(size_t(N), 0);
    if (InterA)
      markInterUsedOffsets(Rank(N), InterA, Rank(Me), Row, Used);
    else
      markUsedOffsets(Rank(N), Rank(Me), Row, Used);
    std::copy(Used.begin(), Used.end(), V.begin());
    if (!Red.start(*Ex, 25, std::move(V), [N](uint64_t *A, const uint64_t *B) {
          for (int I = 0; I < N; ++I)
            A[I] |= B[I];
          if (B[N] < A[N])
            std::copy(B + N, B + N + 4, A + N);
        }))
      return problem(Failed);
    At = Stage::Used;
    return poll();
  }
  case Stage::Used: {
    std::vector<uint64_t> &V = Red.V;
    if (V[N] != UINT64_MAX)
      return problem(
          a2avMismatch(V[N], V[N + 1], V[N + 2], V[N + 3], InterA));
    V.resize(N);
    Rs->Used = std::move(V);
    Red.V = {};
    Args.Part = Rs;
    Args.MatrixKey = {Key.first, Key.second};
    if (RelayRadix) {
      // Bruck's round of the sizes (RelayRounds), round d on the slot's
      // round 74 + d (at most 32 rounds). Under auto the pricing's first
      // allreduce (rounds 74 ..) and its maxima (98 ..) follow on some of
      // the same rounds: every rank posts them only once its own Bruck
      // rounds completed, after its messages of those rounds to the same
      // peers, and MPI matches one sender's messages of one tag in order.
      Relays = std::make_unique<RelayRounds>(*Rs, Rank(N), RelayRadix);
      RelayRound = 0;
      if (Relays->rounds() == 0) {
        Rs->Relay = std::move(Relays->Relay);
        Relays.reset();
        if (auto Err = priceOrBuild())
          return std::move(Err);
        return poll();
      }
      if (!Relays->post(0, Ex->Comm, Ex->tag(74)))
        return problem(Failed);
      At = Stage::Relay;
      return poll();
    }
    if (auto Err = priceOrBuild())
      return std::move(Err);
    return poll();
  }
  case Stage::Relay: {
    Relays->finish(RelayRound);
    if (++RelayRound < Relays->rounds()) {
      if (!Relays->post(RelayRound, Ex->Comm, Ex->tag(74 + int(RelayRound))))
        return problem(Failed);
      return poll();
    }
    Rs->Relay = std::move(Relays->Relay);
    Relays.reset();
    if (auto Err = priceOrBuild())
      return std::move(Err);
    return poll();
  }
  case Stage::Price: {
    Chooser->startReplays(Ex->Comm, Red.V, Ex->tag(0));
    Red.V = {};
    At = Stage::Replay;
    return poll();
  }
  case Stage::Replay: {
    if (!Chooser->advance())
      return nullptr;
    if (!Red.start(*Ex, 98, Chooser->maxWords(),
                   [K = Chooser->size()](uint64_t *A, const uint64_t *B) {
                     // (Non-negative doubles order as their bits.)
                     for (size_t I = 0; I < K; ++I)
                       A[I] = std::max(A[I], B[I]);
                   }))
      return problem(Failed);
    At = Stage::Max;
    return poll();
  }
  case Stage::Max: {
    auto B = bindCall(Args);
    if (!B)
      return B.takeError();
    if (auto Err = chosen(*B))
      return problem(formatv("{0} on {1}: auto ({2}) cannot serve it: {3}",
                             B->describe(), CommName, Ch.Why,
                             llvm::toString(std::move(Err))));
    if (auto Err = startProof())
      return std::move(Err);
    return poll();
  }
  case Stage::Proof: {
    ProofWords R;
    const std::vector<uint64_t> &V = Red.V;
    std::copy(V.begin(), V.begin() + ProofWords::NMin, R.Min);
    std::copy(V.begin() + ProofWords::NMin,
              V.begin() + ProofWords::NMin + ProofWords::NSum, R.Sum);
    std::copy(V.begin() + ProofWords::NMin + ProofWords::NSum, V.end(), R.Max);
    std::string Describe = "MPI_Alltoallv";
    if (auto B = bindCall(Args))
      Describe = B->describe();
    else
      llvm::consumeError(B.takeError());
    if (std::string Verdict = proofVerdict(*Part, N, R); !Verdict.empty())
      return problem(formatv("{0} on {1}: the parts of {2} ({3}) do not "
                             "prove: {4}; the call is not run",
                             Describe, CommName, Ran, Why, Verdict));
    auto Ops = std::make_shared<const Schedule>(onlyRank(*Part, Rank(Me)));
    Part.reset();
    double Ms = (steadySeconds() - T0) * 1e3;
    KeptPart K;
    if (const KeptPart *Old = rankParts().find(Own); Old && Old->Key == Key)
      K = *Old;
    K.Key = Key;
    K.Part = Rs;
    K.Proved[Algo] = Ops;
    rankParts().put(Own, std::move(K));
    const Config &C = config();
    static std::set<std::string> Printed;
    if (C.Verbose && (C.Verbose >= 2 || Me == 0) &&
        Printed.insert(CommName + "|" + Ran + "|" + Ch.Why).second) {
      std::string Line = formatv(
          "{0} on {1}, started: {2} ({3}); each rank's part from its row and "
          "column, exchanged and proved in the run by {4} ranks ({5} ops at "
          "most on a rank) in {6:f2} ms",
          Describe, CommName, Ran, Why, N, R.Max[2], Ms);
      std::fprintf(stderr, "choreo-mpi: %s\n", Line.c_str());
      std::fflush(stderr);
    }
    return planOf(Ops);
  }
  }
  return nullptr;
}

/// Starts a started MPI_Ialltoallv's run from its row and column
/// (Request::StartParts; InterA as exchangeRankPart's).
int startFromParts(PrivateComm *Priv, MPI_Comm User, std::string CommName,
                   uint32_t Slot, const Choice &Ch, Request &R,
                   std::vector<uint64_t> Row, std::vector<uint64_t> Col,
                   Rank InterA = 0) {
  auto Sp = std::make_shared<StartedPart>();
  Sp->Priv = Priv;
  Sp->CommName = std::move(CommName);
  Sp->Slot = Slot;
  Sp->Ch = Ch;
  if (Ch.K == Choice::Algorithm) {
    Sp->Id = Ch.Id;
    Sp->Extra = Ch.Extra;
    Sp->Algo = Sp->Ran = Ch.Text;
    Sp->Why = Ch.Why;
  } else if (InterA) {
    // auto on an intercommunicator: MPICH's algorithm, the pairwise
    // exchange (the one generator), runs as choreo's schedule, not priced.
    Sp->Id = Sp->Algo = Sp->Ran = "inter-alltoall-pairwise";
    Sp->Why = Ch.Why + "; auto: a started alltoallv from rows and columns "
                       "is not priced, MPICH's algorithm runs";
  } else {
    // auto: the candidates priced in the run (StagedChoice), the pick kept
    // as "auto" with the part.
    Sp->Auto = true;
    Sp->Algo = "auto";
  }
  Sp->InterA = InterA;
  if (!InterA && Sp->Auto) {
    // auto prices Bruck too: its candidate's part needs the round of the
    // sizes (alike on every rank: from the registry).
    CallHeader H;
    H.Kind = Collective::Alltoallv;
    Sp->RelayRadix = autoRelayRadix(H);
  } else if (!InterA) {
    Sp->RelayRadix = relayRadixOf(Ch);
  }
  Sp->Args = R.Args;
  Sp->Buffers = R.Buffers;
  Sp->Row = std::move(Row);
  Sp->Col = std::move(Col);
  Sp->Ex = std::make_unique<SlotRounds>(Priv->Comm, Slot);
  std::string What = "MPI_Ialltoallv on " + Sp->CommName;
  if (!Sp->start())
    return failReported(User, What + ": the exchange of the counts failed");
  return startedPending([Sp] { return Sp->poll(); }, Priv, User, What, R,
                        Slot);
}

/// One side of the call (send or receive): its buffer, per-rank counts and
/// element displacements (null for MPI_Alltoall: Count each, packed), type.
struct Side {
  const char *Buf;
  CountArray Counts, Displs;
  int64_t Count;
  MPI_Datatype Type;
  int Size = 0;
  MPI_Aint Extent = 0;
  bool Direct = false;

  int64_t count(int J) const { return Counts ? Counts[J] : Count; }
  /// Where block J starts in the user's buffer, in bytes (checked by init).
  uint64_t at(int J) const {
    return uint64_t(Displs ? Displs[J] : int64_t(J) * Count) * Extent;
  }
  /// Reads the type; false for a count or displacement MPI forbids, or
  /// bytes beyond 2^62 (the call goes to MPICH, which says so).
  bool init(int N) {
    Direct = typeInOrder(Type, Size);
    Extent = Direct ? Size : typeExtent(Type);
    uint64_t B = 0;
    if (Extent < 0 || (!Direct && Extent == 0 && Size != 0) ||
        !bytesOf(Count, Size, B) || !bytesOf(int64_t(N) * Count, Extent, B))
      return false;
    for (int J = 0; J < N && Counts; ++J)
      if (!bytesOf(Counts[J], Size, B) ||
          (Displs && !bytesOf(Displs[J], Extent, B)))
        return false;
    return true;
  }
  uint64_t bytes(int J) const { return uint64_t(count(J)) * Size; }
};

int alltoallCall(MpiCall C, Side Send, Side Recv, MPI_Comm Comm,
                 const NativeFn &Native, const Launch &Ln) {
  const char *Name = bindingOf(C).MpiName;
  if (Comm == MPI_COMM_NULL)
    return Native(); // erroneous: let MPICH say so
  int Inter = 0;
  PMPI_Comm_test_inter(Comm, &Inter);
  // N: the ranks this rank exchanges with (an intercommunicator's remote
  // group); the header's ranks are All, A's first on an intercommunicator.
  int N = 0, Me = 0, All = 0, RemoteBase = 0;
  PMPI_Comm_size(Comm, &N);
  PMPI_Comm_rank(Comm, &Me);
  All = N;
  if (Inter && Send.Buf == MPI_IN_PLACE)
    // Erroneous (MPI-4 6.8 defines the in-place form for intracommunicators
    // only), and MPICH 4.0.2 does not catch it: its MPI_Alltoallv waits for
    // ever, its MPI_Alltoall crashes. Every rank that passes it fails at
    // once (no message is sent).
    return failReported(Comm, formatv("{0} on an intercommunicator: "
                                      "MPI_IN_PLACE is not allowed (MPI-4 "
                                      "6.8: the in-place form is an "
                                      "intracommunicator's)",
                                      Name));
  if (Inter) {
    std::optional<bool> Low = inLowGroup(Comm);
    if (!Low) {
      noteNative(Comm, Name, "intercommunicator groups outside MPI_COMM_WORLD");
      return Native();
    }
    int Local = N;
    PMPI_Comm_remote_size(Comm, &N);
    All = Local + N;
    RemoteBase = *Low ? Local : 0;
  }
  // (An intercommunicator's MPI_Alltoall is sizes.block [a, b]: any size;
  // an MPI_Alltoallv, blocking, persistent or started, on an
  // intracommunicator or an intercommunicator, builds from each rank's row
  // and column unless its algorithm needs the whole matrix: run decides,
  // any number of ranks.)
  bool Started = C == MpiCall::Alltoallv && Ln.Do == Mode::Start;
  if (C == MpiCall::Alltoallv) {
    // MPICH's without the counts, decided before (Library.h): before the
    // counts are even read.
    MpiArgs Which;
    Which.Call = C;
    Which.Inter = Inter;
    if (handedOver(Comm, Which, true))
      return Native();
  } else if (!Inter) {
    // MPI_Alltoall handed to MPICH before: found by its block's bytes,
    // before the buffers' types and places are read.
    bool InPlace = Send.Buf == MPI_IN_PLACE;
    const Side &S = InPlace ? Recv : Send;
    int SendSize = 0, RecvSize = 0;
    MpiArgs Which;
    Which.Call = C;
    Which.Ranks = All;
    Which.InPlace = InPlace;
    if (PMPI_Type_size(S.Type, &SendSize) == MPI_SUCCESS &&
        PMPI_Type_size(Recv.Type, &RecvSize) == MPI_SUCCESS &&
        bytesOf(S.Count, SendSize, Which.Bytes) && Which.Bytes &&
        Which.Bytes == uint64_t(Recv.Count) * uint64_t(RecvSize) &&
        handedOver(Comm, Which))
      return Native();
  }
  bool InPlace = Send.Buf == MPI_IN_PLACE;
  if (InPlace) {
    Send = Recv;
    Send.Buf = nullptr;
  }
  if (!Recv.init(N) || !Send.init(N))
    return Native();
  std::vector<uint64_t> Row(N), Col(N);
  for (int J = 0; J < N; ++J) {
    Row[J] = Send.bytes(J);
    Col[J] = Recv.bytes(J);
  }
  Request R;
  R.Args.Call = C;
  R.Args.Ranks = All;
  R.Args.InPlace = InPlace;
  if (Inter) {
    // This rank's row and column over the All ranks where its peers are
    // (zero within its group), the merged ranks of choreo's private
    // communicator, A first; B's size in SizesB. MPI_Alltoallv: each
    // rank's part from them, as on an intracommunicator (the used flags
    // are inter-alltoall-pairwise's steps, InterA); the whole matrix only
    // for an algorithm that needs it (run decides), up to 4096 ranks (a
    // started call: 256).
    std::vector<uint64_t> GRow(All, 0), GCol(All, 0);
    for (int J = 0; J < N; ++J) {
      GRow[RemoteBase + J] = Row[J];
      GCol[RemoteBase + J] = Col[J];
    }
    R.Args.Inter = true;
    int Q = RemoteBase ? N : All - N;
    R.Args.SizesB.assign(Q, 0);
    Rank InterA = Rank(All - Q);
    if (Send.Counts && Started) {
      R.StartParts = [GRow, GCol, InterA](PrivateComm *Priv, MPI_Comm User,
                                          std::string CommName, uint32_t Slot,
                                          const Choice &Ch, Request &Rq) {
        return startFromParts(Priv, User, std::move(CommName), Slot, Ch, Rq,
                              GRow, GCol, InterA);
      };
      if (uint64_t(All) <= MaxStartedRanks) {
        R.Said = GRow;
        Digest128 HC = digestOf(GCol);
        R.Said.push_back(HC.H1);
        R.Said.push_back(HC.H2);
        R.Heard = heardMatrix;
      }
    } else if (Send.Counts) {
      R.ExchangeParts = [GRow, GCol, InterA](MPI_Comm Priv, MpiArgs &A,
                                             uint64_t) {
        // (No intergroup algorithm relays blocks.)
        return exchangeRankPart(Priv, GRow, GCol, A, InterA);
      };
      if (uint64_t(All) <= MaxRanks)
        R.Exchange = [GRow, GCol](MPI_Comm Priv, MpiArgs &A) {
          return exchangeMatrix(Priv, GRow, GCol, A);
        };
    } else {
      // MPI_Alltoall: what A sends each rank of B and back, known to every
      // rank from its own two counts (the call is erroneous otherwise):
      // the header's sizes.block [a, b], O(1) (CallBinding.h).
      uint64_t AB = RemoteBase ? Row[0] : Col[0];
      uint64_t BA = RemoteBase ? Col[0] : Row[0];
      R.Args.SizesA = {AB, BA};
    }
  } else if (!Send.Counts) {
    // MPI_Alltoall: the send and receive signatures match (else the call is
    // erroneous: MPICH says so).
    if (Row[0] != Col[0])
      return Native();
    if (Row[0] == 0)
      return Ln.Do == Mode::Execute ? MPI_SUCCESS : Native();
    R.Args.Bytes = Row[0]; // the header's sizes.block: O(1) for any p
  } else if (Started) {
    // Each rank's part from its row and column, exchanged and proved in the
    // run (StartedPart), any p; the whole matrix in the run's first step
    // only for an algorithm that needs it (run decides, alike on every
    // rank), up to 256 ranks.
    R.StartParts = [Row, Col](PrivateComm *Priv, MPI_Comm User,
                              std::string CommName, uint32_t Slot,
                              const Choice &Ch, Request &Rq) {
      return startFromParts(Priv, User, std::move(CommName), Slot, Ch, Rq,
                            Row, Col);
    };
    if (uint64_t(All) <= MaxStartedRanks) {
      R.Said = Row;
      Digest128 HC = digestOf(Col);
      R.Said.push_back(HC.H1);
      R.Said.push_back(HC.H2);
      R.Heard = heardMatrix;
    }
  } else {
    // What each rank's part needs, O(p) a rank (any p); the whole matrix
    // only for an algorithm that needs it (run decides, alike on every
    // rank), up to 4096 ranks.
    R.ExchangeParts = [Row, Col](MPI_Comm Priv, MpiArgs &A,
                                 uint64_t RelayRadix) {
      return exchangeRankPart(Priv, Row, Col, A, 0, RelayRadix);
    };
    if (uint64_t(All) <= MaxRanks)
      R.Exchange = [Row, Col](MPI_Comm Priv, MpiArgs &A) {
        return exchangeMatrix(Priv, Row, Col, A);
      };
  }
  if (handedOver(Comm, R.Args,
                 R.Exchange || R.ExchangeParts || R.Heard || R.StartParts,
                 Started))
    return Native();
  Guard G;
  // Where each block is in the user's buffers, copied: a started or
  // persistent run packs and unpacks after the call returns.
  std::vector<uint64_t> SendAt(N), RecvAt(N);
  std::vector<int64_t> SendCnt(N), RecvCnt(N);
  uint64_t RowBytes = 0, ColBytes = 0;
  for (int J = 0; J < N; ++J) {
    SendAt[J] = Send.at(J);
    RecvAt[J] = Recv.at(J);
    SendCnt[J] = Send.count(J);
    RecvCnt[J] = Recv.count(J);
    RowBytes += Row[J];
    ColBytes += Col[J];
  }
  auto Pk = std::make_shared<PackedCopies>();
  std::function<bool()> Pack, Unpack;
  // The send side: the user's buffer at its displacements, or the row
  // packed in rank order (a type not in order, or MPI_IN_PLACE's copy out
  // of recvbuf).
  if (InPlace || !Send.Direct) {
    Pk->Send.resize(RowBytes);
    const char *From = InPlace ? Recv.Buf : Send.Buf;
    MPI_Datatype T = Send.Type;
    bool Direct = Send.Direct;
    Pack = [=] {
      uint64_t At = 0;
      for (int J = 0; J < N; At += Row[J], ++J) {
        if (!Row[J])
          continue;
        if (Direct)
          std::memcpy(Pk->Send.data() + At, From + SendAt[J], Row[J]);
        else if (!packInto(From + SendAt[J], SendCnt[J], T,
                           Pk->Send.data() + At, Row[J]))
          return false;
      }
      return true;
    };
    R.Buffers.Send = Pk->Send.data();
    R.Buffers.SendBytes = RowBytes;
  } else {
    R.Buffers.Send = Send.Buf;
    if (Send.Displs && Inter) // one per rank of the header
      R.Buffers.SendDispls.assign(RemoteBase, 0);
    for (int J = 0; J < N; ++J) {
      if (Send.Displs)
        R.Buffers.SendDispls.push_back(SendAt[J]);
      R.Buffers.SendBytes =
          std::max<uint64_t>(R.Buffers.SendBytes, SendAt[J] + Row[J]);
    }
    if (Send.Displs && Inter)
      R.Buffers.SendDispls.resize(All, 0);
  }
  // The receive side: the user's buffer at its displacements, or packed
  // and copied back block by block.
  if (Recv.Direct) {
    R.Buffers.Recv = const_cast<char *>(Recv.Buf);
    if (Recv.Displs && Inter)
      R.Buffers.RecvDispls.assign(RemoteBase, 0);
    for (int J = 0; J < N; ++J) {
      if (Recv.Displs)
        R.Buffers.RecvDispls.push_back(RecvAt[J]);
      R.Buffers.RecvBytes =
          std::max<uint64_t>(R.Buffers.RecvBytes, RecvAt[J] + Col[J]);
    }
    if (Recv.Displs && Inter)
      R.Buffers.RecvDispls.resize(All, 0);
  } else {
    Pk->Recv.resize(ColBytes);
    R.Buffers.Recv = Pk->Recv.data();
    R.Buffers.RecvBytes = ColBytes;
    char *To = const_cast<char *>(Recv.Buf);
    MPI_Datatype T = Recv.Type;
    Unpack = [=] {
      uint64_t At = 0;
      for (int J = 0; J < N; At += Col[J], ++J)
        if (Col[J] && !unpackFrom(Pk->Recv.data() + At, Col[J], To + RecvAt[J],
                                  RecvCnt[J], T))
          return false;
      return true;
    };
  }
  return runPacked(Comm, R, Native, Ln, Pk, Pack, Unpack);
}

/// MPI_Alltoall in its int and `_c` forms (W: MPICH's own, pmpi/Calls.h).
template <class W, class Cnt>
int alltoall(const W &F, const void *sendbuf, Cnt sendcount,
             MPI_Datatype sendtype, void *recvbuf, Cnt recvcount,
             MPI_Datatype recvtype, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    comm);
  };
  if (!intercept())
    return Native();
  return alltoallCall(MpiCall::Alltoall,
                      {static_cast<const char *>(sendbuf), nullptr, nullptr,
                       sendcount, sendtype},
                      {static_cast<const char *>(recvbuf), nullptr, nullptr,
                       recvcount, recvtype},
                      comm, Native,
                      F.launch(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, comm));
}

/// MPI_Alltoallv in its int and `_c` forms.
template <class W, class Cnt, class Dsp>
int alltoallv(const W &F, const void *sendbuf, const Cnt *sendcounts,
              const Dsp *sdispls, MPI_Datatype sendtype, void *recvbuf,
              const Cnt *recvcounts, const Dsp *rdispls, MPI_Datatype recvtype,
              MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                    rdispls, recvtype, comm);
  };
  bool InPlace = sendbuf == MPI_IN_PLACE;
  if (!intercept() || !recvcounts || !rdispls ||
      (!InPlace && (!sendcounts || !sdispls)))
    return Native();
  return alltoallCall(
      MpiCall::Alltoallv,
      {static_cast<const char *>(sendbuf), sendcounts, sdispls, 0, sendtype},
      {static_cast<const char *>(recvbuf), recvcounts, rdispls, 0, recvtype},
      comm, Native,
      F.launch(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
               rdispls, recvtype, comm));
}

} // namespace

extern "C" {

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Comm comm) {
  return alltoall(blocking(PMPI_Alltoall, PMPI_Ialltoall), sendbuf, sendcount,
                  sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall(blocking(PMPI_Alltoall_c, PMPI_Ialltoall_c), sendbuf,
                  sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv(blocking(PMPI_Alltoallv, PMPI_Ialltoallv), sendbuf,
                   sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm);
}
int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                    const MPI_Aint sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype,
                    MPI_Comm comm) {
  return alltoallv(blocking(PMPI_Alltoallv_c, PMPI_Ialltoallv_c), sendbuf,
                   sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm);
}

// The non-blocking and persistent forms (pmpi/Calls.h, Form).

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm, MPI_Request *request) {
  return alltoall(started(PMPI_Ialltoall, request), sendbuf, sendcount,
                  sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return alltoall(persistent(PMPI_Alltoall_init, PMPI_Ialltoall, info, request),
                  sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  comm);
}

int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request) {
  return alltoall(started(PMPI_Ialltoall_c, request), sendbuf, sendcount,
                  sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return alltoall(
      persistent(PMPI_Alltoall_init_c, PMPI_Ialltoall_c, info, request),
      sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  return alltoallv(started(PMPI_Ialltoallv, request), sendbuf, sendcounts,
                   sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                   comm);
}
int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[],
                       const int sdispls[], MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return alltoallv(
      persistent(PMPI_Alltoallv_init, PMPI_Ialltoallv, info, request), sendbuf,
      sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
      comm);
}

int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                     const MPI_Aint sdispls[], MPI_Datatype sendtype,
                     void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request) {
  return alltoallv(started(PMPI_Ialltoallv_c, request), sendbuf, sendcounts,
                   sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                   comm);
}
int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const MPI_Count recvcounts[],
                         const MPI_Aint rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return alltoallv(
      persistent(PMPI_Alltoallv_init_c, PMPI_Ialltoallv_c, info, request),
      sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
      recvtype, comm);
}

} // extern "C"
