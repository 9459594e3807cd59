//===- verifier/LocalCheck.cpp - One rank's part of the proof -------------===//
///
/// \file
/// HeaderFacts and checkLocal: the explicit checker's replay restricted to
/// one rank. The rank replays only its own possession (an IntervalSet per
/// buffer, or its contributor segments), counts only its own ports, checks
/// the links of what it sends, and keys every finding by its place in the
/// explicit checker's order of events (verifier/DistributedCheck.h).
///
//===----------------------------------------------------------------------===//

#include "verifier/ContribReplay.h"
#include "verifier/DistributedCheck.h"
#include "verifier/HeldBytes.h"
#include "verifier/Report.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace choreo;

//===----------------------------------------------------------------------===//
// HeaderFacts
//===----------------------------------------------------------------------===//

namespace {

/// What initialHoldings lists for rank R, in its order, computed from the
/// header without listing every rank's (O(p) time, memory for R's
/// holdings only).
std::vector<Holding> initialHoldingsOfRank(const CallHeader &H, Rank R) {
  const CollectiveSpec &Spec = specOf(H.Kind);
  std::vector<Holding> Out;
  switch (Spec.Data) {
  case DataKind::Reduction: {
    // An intergroup reduce: the root's group contributes nothing.
    if (Spec.Intergroup && Spec.Rooted && H.Root)
      for (const Group &G : H.Groups)
        if (llvm::is_contained(G.Members, *H.Root)) {
          if (llvm::is_contained(G.Members, R))
            return Out;
          break;
        }
    Out.push_back({R, 0, 0, Spec.vectorLength(H)});
    return Out;
  }
  case DataKind::Gather: {
    // Per buffer, R's slice of its group's: the sizes of the members
    // before it summed.
    std::vector<Buffer> Bufs = Spec.buffers(H);
    for (BufferId B = 0; B < Bufs.size(); ++B) {
      const Group *G = H.group(Bufs[B].Name);
      const std::vector<uint64_t> *Sz = H.sizes(Bufs[B].Name);
      if (!G || !Sz)
        continue;
      uint64_t Off = 0;
      for (size_t I = 0; I < G->Members.size() && I < Sz->size(); ++I) {
        if (G->Members[I] == R)
          Out.push_back({R, B, Off, Off + (*Sz)[I]});
        Off += (*Sz)[I];
      }
    }
    return Out;
  }
  case DataKind::Alltoall:
    if (!Spec.Intergroup && uniformBlockOf(H)) {
      PairMatrix M(H);
      if (R < M.ranks())
        Out.push_back({R, 0, M.row(R).Lo, M.row(R).Hi});
      return Out;
    }
    break;
  case DataKind::Broadcast:
  case DataKind::Scatter:
    break; // the root's only: the list is short
  }
  for (const Holding &X : Spec.initialHoldings(H))
    if (X.R == R)
      Out.push_back(X);
  return Out;
}

} // namespace

HeaderFacts::HeaderFacts(const CallHeader &H)
    : H(H), Bufs(specOf(H.Kind).buffers(H)) {
  const CollectiveSpec &Spec = specOf(H.Kind);
  Rank P = H.NumRanks;
  if (Spec.Result == ResultRule::Column) {
    // An alltoall's requirements are its columns, in rank order: listed on
    // demand from the matrix (O(1) for sizes.block), rank J's
    // place in the order being J (only a rank that lacks something, whose
    // column is not empty, is ever compared).
    if (!H.sizes("pairs")) { // sizes.block or a rank's part
      Columns.emplace(H);
    } else {
      // The prefix sums only when a second column is asked for (a
      // simulation of every rank).
      Columns.emplace(PairMatrix::uniform(0, 0));
      Matrix = true;
    }
  }
  if (H.Topo.K == Topology::Kind::Ring) {
    RingPos.assign(P, 0);
    for (Rank I = 0; I < P; ++I)
      RingPos[H.Topo.Order.empty() ? I : H.Topo.Order[I]] = I;
  } else if (H.Topo.K == Topology::Kind::Graph) {
    for (auto [U, V] : H.Topo.Edges)
      Edges.push_back(U < V ? uint64_t(U) << 32 | V : uint64_t(V) << 32 | U);
    llvm::sort(Edges);
  }
  if (H.hasNodes())
    NodeOf = H.nodeOfRank();
}

bool HeaderFacts::alone(Rank R) const {
  if (Tables)
    return false;
  if (!Own) {
    Own = R;
    OwnInitial = initialHoldingsOfRank(H, R);
  }
  if (*Own == R)
    return true;
  buildTables();
  return false;
}

void HeaderFacts::buildTables() const {
  if (Tables)
    return;
  Tables = true;
  const CollectiveSpec &Spec = specOf(H.Kind);
  Rank P = H.NumRanks;
  // Initial holdings by rank, each rank's in the spec's order.
  std::vector<Holding> Init = Spec.initialHoldings(H);
  InitialBegin.assign(size_t(P) + 1, 0);
  for (const Holding &X : Init)
    if (X.R < P)
      ++InitialBegin[X.R + 1];
  for (Rank R = 0; R < P; ++R)
    InitialBegin[R + 1] += InitialBegin[R];
  Initial.resize(InitialBegin[P]);
  std::vector<uint32_t> Next(InitialBegin.begin(), InitialBegin.end() - 1);
  for (const Holding &X : Init)
    if (X.R < P)
      Initial[Next[X.R]++] = X;
  if (Spec.Result == ResultRule::Column)
    return; // requirementPos(J) is J
  ReqPos.assign(P, NoReq);
  Reqs = Spec.requirements(H);
  for (size_t I = 0; I < Reqs.size(); ++I)
    if (Reqs[I].Lo < Reqs[I].Hi && Reqs[I].R < P && ReqPos[Reqs[I].R] == NoReq)
      ReqPos[Reqs[I].R] = I;
}

llvm::ArrayRef<Holding> HeaderFacts::initialOf(Rank R) const {
  if (alone(R))
    return OwnInitial;
  return llvm::ArrayRef<Holding>(Initial).slice(
      InitialBegin[R], InitialBegin[R + 1] - InitialBegin[R]);
}

size_t HeaderFacts::requirementPos(Rank R) const {
  buildTables(); // merging findings: every rank's
  if (specOf(H.Kind).Result == ResultRule::Column)
    return R;
  return ReqPos[R];
}

std::vector<Holding> HeaderFacts::requirementsOf(Rank R) const {
  if (Matrix && !ColumnsUsed) {
    // A matrix's first column asked for (a job's rank asks once) is summed
    // from the header: O(p) memory, no p^2 prefix sums.
    ColumnsUsed = true;
    return specOf(H.Kind).results(H, R);
  }
  if (Columns) {
    if (Matrix && !Columns->ranks())
      *Columns = PairMatrix(H);
    std::vector<Holding> Out;
    for (Rank I = 0; I < Columns->ranks(); ++I)
      if (Interval X = Columns->block(I, R); X.Lo < X.Hi)
        Out.push_back({R, 0, X.Lo, X.Hi});
    return Out;
  }
  if (alone(R)) {
    // One requirement at most (a valid header lists a rank once).
    std::vector<Holding> Out = specOf(H.Kind).results(H, R);
    llvm::erase_if(Out, [](const Holding &X) { return X.Lo >= X.Hi; });
    return Out;
  }
  if (ReqPos[R] == NoReq)
    return {};
  size_t E = ReqPos[R];
  while (E < Reqs.size() && Reqs[E].R == R)
    ++E;
  return std::vector<Holding>(Reqs.begin() + ReqPos[R], Reqs.begin() + E);
}

bool HeaderFacts::isLink(Rank U, Rank V) const {
  switch (H.Topo.K) {
  case Topology::Kind::Full:
    return true;
  case Topology::Kind::Ring: {
    uint64_t N = H.NumRanks;
    uint64_t D = (RingPos[U] + N - RingPos[V]) % N;
    return D == 1 || D == N - 1;
  }
  case Topology::Kind::Graph: {
    uint64_t Key = U < V ? uint64_t(U) << 32 | V : uint64_t(V) << 32 | U;
    return std::binary_search(Edges.begin(), Edges.end(), Key);
  }
  }
  return false;
}

size_t HeaderFacts::bytes() const {
  return Bufs.capacity() * sizeof(Buffer) +
         OwnInitial.capacity() * sizeof(Holding) +
         Initial.capacity() * sizeof(Holding) + InitialBegin.capacity() * 4 +
         Reqs.capacity() * sizeof(Holding) + ReqPos.capacity() * 4 +
         (Columns && !Columns->isCompact()
              ? (size_t(Columns->ranks()) * Columns->ranks() + 1) * 8
          : Columns && Columns->isRankView() ? (size_t(Columns->ranks()) + 1) * 8
              : 0) +
         RingPos.capacity() * 4 + Edges.capacity() * 8 + NodeOf.capacity() * 4;
}

//===----------------------------------------------------------------------===//
// Places of ops in diagnostics
//===----------------------------------------------------------------------===//

namespace {

/// "/steps/S/ops/I" at the start of a text: S, I and the prefix's length.
struct Place {
  unsigned Step = 0;
  size_t Index = 0, Length = 0;
};

std::optional<Place> placeOf(llvm::StringRef Text) {
  llvm::StringRef T = Text;
  Place P;
  if (!T.consume_front("/steps/") || T.consumeInteger(10, P.Step) ||
      !T.consume_front("/ops/") || T.consumeInteger(10, P.Index))
    return std::nullopt;
  P.Length = Text.size() - T.size();
  return P;
}

/// Where a structural failure of an op stands among the explicit checker's
/// checks of that op: src, dst, self-send, blocks, then per block its
/// buffer, range and contributors.
uint64_t structureSub(const Diagnostic &D, llvm::StringRef Rest) {
  if (Rest.starts_with("/src"))
    return 0;
  if (Rest.starts_with("/dst"))
    return 1;
  if (D.Kind == "self-send")
    return 2;
  size_t Block = 0;
  if (!Rest.consume_front("/blocks/") || Rest.consumeInteger(10, Block))
    return 3;
  return 4 + 3 * uint64_t(Block) +
         (D.Kind == "unknown-buffer" ? 0
          : D.Kind == "contrib"      ? 2
                                     : 1);
}

/// A structural failure's "/steps/S/ops/I" named by its step and Me's
/// part: I is an index in that part, not in the whole schedule.
std::string unplaced(const std::string &Text, Rank Me) {
  std::optional<Place> P = placeOf(Text);
  if (!P)
    return Text;
  return llvm::formatv("step {0} (op {1} of rank {2}'s part)", P->Step,
                       P->Index, Me)
             .str() +
         Text.substr(P->Length);
}

//===----------------------------------------------------------------------===//
// The local replay
//===----------------------------------------------------------------------===//

/// Mixes one message into its peer's digest: step, blocks (buffer, range,
/// combine flag, contributor set).
void digestMessage(const StepList &L, unsigned St, const Op &O, Hasher &H) {
  H.mix(St);
  H.mix(O.NumBlocks);
  for (const Block &B : L.blocks(O)) {
    H.mix(B.Buf);
    H.mix(B.Lo);
    H.mix(B.Hi);
    if (L.validLattice(B)) { // the rectangle, as both ends derive it
      const Lattice &X = L.lattice(B);
      H.mix(0x4c415454ull);
      for (uint64_t V : {X.Start, X.Elem, X.RowStride, uint64_t(X.Rows),
                         X.ColStride, uint64_t(X.Cols)})
        H.mix(V);
    }
    bool Contrib = B.hasContrib() && B.Contrib < L.numContribs();
    std::optional<SubtreeName> Name;
    if (Contrib)
      Name = L.subtree(B.Contrib);
    H.mix(uint64_t(B.Reduce) | (Contrib ? 2 : 0) | uint64_t(B.Acc) << 2 |
          uint64_t(Name ? 1 : 0) << 16);
    if (!Contrib)
      continue;
    if (Name) {
      // A set named by a subtree: the name and its family (both ends must
      // mean the same trees; docs/distributed-proof.md).
      H.mix(L.family() ? L.family()->digest() : 0);
      H.mix(Name->Tree);
      H.mix(Name->Of);
      continue;
    }
    const RankSet &C = L.contrib(B.Contrib);
    H.mix(C.numIntervals());
    for (const Interval &X : C.intervals()) {
      H.mix(X.Lo);
      H.mix(X.Hi);
    }
  }
}

/// The digests by peer, in rank order. Peers below P are ordered by a
/// bitmap of P bits (a ring rank has p - 1 peers each way: sorting them
/// took a fifth of its local check), any others by sorting.
std::vector<PeerDigest> sortedDigests(const llvm::DenseMap<uint32_t, Hasher> &M,
                                      uint32_t P) {
  std::vector<PeerDigest> Out;
  Out.reserve(M.size());
  bool InRange = M.size() > 64;
  for (const auto &KV : M)
    InRange = InRange && KV.first < P;
  if (InRange) {
    llvm::BitVector Seen(P);
    for (const auto &KV : M)
      Seen.set(KV.first);
    for (unsigned Peer : Seen.set_bits())
      Out.push_back({Peer, M.find(Peer)->second.digest()});
    return Out;
  }
  for (const auto &[Peer, H] : M)
    Out.push_back({Peer, H.digest()});
  llvm::sort(Out, [](const PeerDigest &A, const PeerDigest &B) {
    return A.Peer < B.Peer;
  });
  return Out;
}

/// A rank's digests by peer: in a map, or, for a rank with many peers (a
/// pairwise exchange's p - 1 each way), one per rank in a vector (a map of
/// p entries missed the cache at every op, and its digests had to be put
/// in rank order).
class PeerHashes {
public:
  /// Room for Peers peers among P ranks.
  void reserve(size_t Peers, uint32_t P) {
    if (Peers >= 64 && Peers * 8 >= P) {
      Dense.assign(P, Hasher());
      Used.resize(P);
    } else {
      Map.reserve(Peers);
    }
  }
  Hasher &operator[](uint32_t Peer) {
    if (Peer < Dense.size()) {
      Used.set(Peer);
      return Dense[Peer];
    }
    return Map[Peer];
  }
  /// The digests in rank order.
  std::vector<PeerDigest> sorted(uint32_t P) const {
    std::vector<PeerDigest> Out;
    Out.reserve((Dense.empty() ? 0 : Used.count()) + Map.size());
    if (!Dense.empty())
      for (unsigned Peer : Used.set_bits())
        Out.push_back({Peer, Dense[Peer].digest()});
    // Any others lie past the vector's (out of range: the structure's
    // rules refuse them first).
    for (PeerDigest &D : sortedDigests(Map, P))
      Out.push_back(D);
    return Out;
  }

private:
  std::vector<Hasher> Dense;
  llvm::BitVector Used;
  llvm::DenseMap<uint32_t, Hasher> Map;
};

class LocalChecker {
public:
  LocalChecker(const Schedule &S, Rank Me, llvm::ArrayRef<OpAt> Mine,
               const HeaderFacts &F, bool GlobalIndex)
      : S(S), L(S.Steps), Me(Me), Mine(Mine), F(F), GlobalIndex(GlobalIndex),
        Reduction(S.spec().isReduction()), Sets(S.Steps, true) {}

  LocalResult run() {
    R.Me = Me;
    R.NumOps = Mine.size();
    checkStructure();
    if (R.Structure.empty())
      checkTrees();
    if (!R.Structure.empty())
      return std::move(R);
    initState();
    reservePeers();
    for (size_t K = 0; K < Mine.size();) {
      size_t End = K;
      while (End < Mine.size() && Mine[End].Step == Mine[K].Step)
        ++End;
      runStep(Mine[K].Step, Mine.slice(K, End - K));
      K = End;
    }
    checkCompleteness();
    R.Sends = sorted(SendH);
    R.Own = ownSizesDigest(S);
    R.Expects = sorted(ExpectH);
    return std::move(R);
  }

private:
  const Schedule &S;
  const StepList &L;
  Rank Me;
  llvm::ArrayRef<OpAt> Mine;
  const HeaderFacts &F;
  bool GlobalIndex;
  bool Reduction;
  LocalResult R;

  // Gather-type state: what Me holds, per buffer.
  std::vector<HeldBytes> Held;
  std::vector<std::pair<Interval, uint32_t>> Queries;
  std::vector<char> Ok;
  std::vector<Block> Pending;
  // Reduction state: Me's segments in slot 0; the sets' ids are the
  // list's own (a block's Contrib as it is), the unions after them.
  ContribTable Sets;
  std::optional<ContribReplay> Partial;
  uint32_t EveryRank = 0;
  /// Me's accumulators (scan, exscan): slot a of the replay.
  unsigned NumAcc = 1;

  PeerHashes SendH, ExpectH;

  /// Adds the diagnostic Make() builds unless Me found its kind already
  /// (the first is the least key: Me's ops are visited in key order).
  template <typename MakeT> void add(const char *Kind, EventKey K, MakeT Make) {
    for (const Finding &X : R.Findings)
      if (X.D.Kind == Kind)
        return;
    Diagnostic D = Make();
    if (!GlobalIndex)
      for (std::string &N : D.Notes)
        N = report::stepNote(N);
    R.Findings.push_back({K, std::move(D)});
  }

  /// Room for every peer's digest at once: a pairwise rank has p - 1
  /// peers each way, and growing the maps by doubling took a twentieth of
  /// its check. The peers are counted on a bitmap of p bits (a ring rank
  /// of many ops has two: room for its ops would be wasted).
  void reservePeers() {
    if (Mine.size() <= 64)
      return;
    llvm::BitVector To(S.NumRanks), From(S.NumRanks);
    for (OpAt At : Mine) {
      const Op &O = L.step(At.Step)[At.Index];
      if (O.Src == Me && O.Dst < S.NumRanks)
        To.set(O.Dst);
      else if (O.Src < S.NumRanks)
        From.set(O.Src);
    }
    SendH.reserve(To.count(), S.NumRanks);
    ExpectH.reserve(From.count(), S.NumRanks);
  }

  void checkStructure() {
    for (Diagnostic &D : S.verifyOps(Mine, &F.buffers())) {
      std::optional<Place> P = placeOf(D.Message);
      EventKey K{P ? P->Step : 0, EventKey::Ops, P ? P->Index : 0, 0};
      if (P)
        K.Sub = structureSub(D, llvm::StringRef(D.Message).substr(P->Length));
      if (!GlobalIndex)
        D.Message = unplaced(D.Message, Me);
      R.Structure.push_back({K, std::move(D)});
    }
  }

  /// A part whose sets name subtrees: Me's share of proving that every
  /// tree of the family is a tree rooted at its root (every rank's chain
  /// of parents ends there), which the checks of named sets assume
  /// (docs/distributed-proof.md, "Contributor sets named by a subtree"):
  /// in every tree, Me has no parent if it is the root, else a parent of
  /// smaller time. Every rank of a job with such sets checks this (the
  /// part header's digest holds the family: every rank's part has it), so
  /// together they check every rank.
  void checkTrees() {
    const SubtreeFamily *Fam = L.family();
    if (!Fam)
      return;
    if (Fam->numRanks() != S.NumRanks || Me >= S.NumRanks) {
      R.Structure.push_back(
          {{0, EventKey::Ops, 0, 0},
           Diagnostic("contrib",
                      llvm::formatv("rank {0}'s part names subtrees of {1}, "
                                    "which are not trees of this schedule's "
                                    "{2} ranks",
                                    Me, Fam->describe(), S.NumRanks)
                          .str())});
      return;
    }
    for (uint32_t T = 0; T < Fam->numTrees(); ++T) {
      std::optional<Rank> Up = Fam->parent(T, Me);
      std::string Why;
      if (Me == Fam->root(T)) {
        if (Up)
          Why = llvm::formatv("rank {0} is the root but has parent {1}", Me,
                              *Up)
                    .str();
      } else if (!Up || *Up >= S.NumRanks) {
        Why = llvm::formatv("rank {0} has no parent", Me).str();
      } else if (Fam->time(T, *Up) >= Fam->time(T, Me)) {
        Why = llvm::formatv("rank {0}'s parent {1} is not earlier (time {2}, "
                            "its own {3})",
                            Me, *Up, Fam->time(T, *Up), Fam->time(T, Me))
                  .str();
      }
      if (Why.empty())
        continue;
      Diagnostic D;
      D.Kind = "contrib";
      D.Message = llvm::formatv("rank {0}'s part names subtrees of {1}, but "
                                "in tree {2} {3}: its subtrees are not "
                                "proved to partition the ranks",
                                Me, Fam->describe(), T, Why)
                      .str();
      R.Structure.push_back({{0, EventKey::Ops, 0, 0}, std::move(D)});
      return;
    }
  }

  void initState() {
    if (Reduction) {
      // Every accumulator starts as Me's own (exscan: 0 only; docs/format.md).
      NumAcc = accumulatorsOf(L);
      Partial.emplace(NumAcc, Sets);
      // Me's few slots: a union its one segment holds changes in place.
      Partial->reuseUnions(true);
      for (const Holding &H : F.initialOf(Me))
        for (unsigned A = 0; A < NumAcc; ++A)
          Partial->hold(A, H.Hi,
                        A && S.Kind == Collective::Exscan
                            ? ContribReplay::None
                            : (H.Hi ? Sets.intern(RankSet(Me, Me + 1)) : 0));
      // No vector of its own (an intergroup reduce's root group): [0, n)
      // combining nobody, so that it can receive.
      if (F.initialOf(Me).empty() && S.spec().vectorLength(S))
        for (unsigned A = 0; A < NumAcc; ++A)
          Partial->hold(A, S.spec().vectorLength(S), Sets.intern(RankSet()));
      EveryRank = Sets.intern(S.spec().contributorsOf(S, Me));
      return;
    }
    Held.assign(F.buffers().size(), HeldBytes());
    for (const Holding &H : F.initialOf(Me))
      Held[H.Buf].insert(H.Lo, H.Hi);
  }

  void runStep(unsigned St, llvm::ArrayRef<OpAt> Ops) {
    unsigned Sends = 0, Recvs = 0;
    int64_t FirstSend = -1, FirstRecv = -1;
    Pending.clear();
    for (OpAt At : Ops) {
      const Op &O = L.step(St)[At.Index];
      size_t I = At.Index;
      bool Send = O.Src == Me;
      if (Send) {
        if (++Sends > S.Port.Send)
          add(property::SendPort, {St, EventKey::Ops, I, 0},
              [&] { return report::sendPort(S, St, Me, Sends, FirstSend, I); });
        if (FirstSend < 0)
          FirstSend = I;
      } else {
        if (++Recvs > S.Port.Recv)
          add(property::RecvPort, {St, EventKey::Ops, I, 1},
              [&] { return report::recvPort(S, St, Me, Recvs, FirstRecv, I); });
        if (FirstRecv < 0)
          FirstRecv = I;
      }
      if (!S.Port.Duplex && FirstSend >= 0 && FirstRecv >= 0)
        add(property::Duplex, {St, EventKey::Ops, I, Send ? 2u : 3u},
            [&] { return report::duplex(S, St, Me, FirstSend, FirstRecv); });
      if (F.hasNodes() && F.nodeOf(O.Src) != F.nodeOf(O.Dst))
        R.OffNode.push_back({St, uint32_t(I), Send});
      if (Send && !F.isLink(O.Src, O.Dst))
        add(property::Topology, {St, EventKey::Ops, I, 6},
            [&] { return report::topology(S, St, I); });
      digest(St, O, Send ? SendH[O.Dst] : ExpectH[O.Src]);
      llvm::ArrayRef<Block> Bs = L.blocks(O);
      bool Batch = Send && !Reduction && Bs.size() >= 64;
      if (Batch)
        availableEach(Bs);
      for (size_t BI = 0; BI < Bs.size(); ++BI) {
        if (Send) {
          if (!Batch || !Ok[BI])
            checkAvailable({St, EventKey::Ops, I, 7 + BI}, St, I, Bs[BI]);
        } else {
          receive(I, Bs[BI]);
        }
      }
    }
    if (Reduction) {
      uint64_t Seg = 0;
      Partial->endStep(
          [&](const ContribReplay::Delivery &D, uint64_t Lo, uint64_t Hi,
              uint32_t Had) { checkCombine(St, D, Lo, Hi, Had, 2 * Seg++); });
      return;
    }
    for (const Block &B : Pending)
      if (L.validLattice(B))
        Held[B.Buf].insert(L.lattice(B));
      else
        Held[B.Buf].insert(B.Lo, B.Hi);
  }

  void digest(unsigned St, const Op &O, Hasher &H) {
    digestMessage(L, St, O, H);
  }

  void receive(size_t I, const Block &B) {
    if (!Reduction) {
      Pending.push_back(B);
      return;
    }
    for (unsigned A = 0; A < NumAcc; ++A)
      if (B.intoMask() >> A & 1)
        Partial->send(A, B, I);
  }

  /// Ok[k]: whether the rank holds block k of Bs (a message of many blocks,
  /// looked up per buffer in one walk: an alltoall's Bruck message carries
  /// about p / 2 of them).
  void availableEach(llvm::ArrayRef<Block> Bs) {
    Ok.assign(Bs.size(), 0);
    for (BufferId Buf = 0; Buf < Held.size(); ++Buf) {
      Queries.clear();
      for (size_t K = 0; K < Bs.size(); ++K)
        if (Bs[K].Buf == Buf && !Bs[K].isLattice()) // lattices: one by one
          Queries.push_back({{Bs[K].Lo, Bs[K].Hi}, uint32_t(K)});
      if (!Queries.empty())
        Held[Buf].containsEach(Queries, Ok);
    }
  }

  void checkAvailable(EventKey K, unsigned St, size_t I, const Block &B) {
    if (Reduction) {
      uint32_t Want = B.Contrib;
      uint64_t At = B.Lo;
      auto Fail = [&](uint64_t Lo, uint64_t Hi, const RankSet &Had) {
        add(property::Availability, K, [&] {
          return report::partialAvailability(S, St, I, Me, B.Buf, Lo, Hi,
                                             Sets.get(Want), Had);
        });
      };
      Partial->forEachHeld(B.fromAcc(), B.Lo, B.Hi,
                           [&](uint64_t Lo, uint64_t Hi, uint32_t Set) {
                             if (At < Lo) // an accumulator not written there
                               Fail(At, Lo, RankSet());
                             At = Hi;
                             if (!Sets.same(Set, Want))
                               Fail(Lo, Hi, Sets.get(Set));
                           });
      if (At < B.Hi)
        Fail(At, B.Hi, RankSet());
      return;
    }
    HeldBytes &H = Held[B.Buf];
    if (L.validLattice(B)) {
      const Lattice &X = L.lattice(B);
      if (!H.contains(X))
        add(property::Availability, K, [&] {
          return report::availability(S, St, I, B, H.missingFrom(X));
        });
      return;
    }
    if (!H.contains(B.Lo, B.Hi))
      add(property::Availability, K, [&] {
        return report::availability(S, St, I, B, H.missingFrom(B.Lo, B.Hi));
      });
  }

  void checkCombine(unsigned St, const ContribReplay::Delivery &D, uint64_t Lo,
                    uint64_t Hi, uint32_t Had, uint64_t Sub) {
    if (!Sets.disjoint(D.B.Contrib, Had))
      add(property::ExactlyOnce, {St, EventKey::Deliver, D.Op, Sub}, [&] {
        const RankSet &In = Sets.get(D.B.Contrib), &Old = Sets.get(Had);
        RankSet Twice;
        for (const Interval &X : In.intervals())
          Twice.insert(Old.clippedTo(X.Lo, X.Hi));
        return report::exactlyOnce(S, St, Me, D.B.Buf, Lo, Hi, Twice, Old);
      });
    if (S.commutative())
      return;
    const RankSet &In = Sets.get(D.B.Contrib), &Old = Sets.get(Had);
    if (!report::keepsRankOrder(In, Old))
      add(property::OperandOrder, {St, EventKey::Deliver, D.Op, Sub + 1}, [&] {
        return report::operandOrder(S, St, D.Op, Me, D.B.Buf, Lo, Hi, In, Old);
      });
  }

  /// As the explicit checker's: some accumulator holds Q combined over
  /// the wanted prefix, else what accumulator 0 lacks.
  std::string lackOfPrefix(const Holding &Q) {
    uint32_t Want = EveryRank; // contributorsOf(Me): the prefix
    std::string Lack;
    for (unsigned A = NumAcc; A-- > 0;) {
      uint64_t At = Q.Lo;
      Lack.clear();
      Partial->forEachHeld(
          A, Q.Lo, Q.Hi, [&](uint64_t Lo, uint64_t Hi, uint32_t Set) {
            if (Lack.empty() && At < Lo)
              Lack =
                  report::lackOfContributors(S, Me, Q.Buf, At, Lo, RankSet());
            if (Lack.empty() && !Sets.same(Set, Want))
              Lack = report::lackOfContributors(S, Me, Q.Buf, Lo, Hi,
                                                Sets.get(Set));
            At = Hi;
          });
      if (Lack.empty() && At < Q.Hi)
        Lack = report::lackOfContributors(S, Me, Q.Buf, At, Q.Hi, RankSet());
      if (Lack.empty())
        return Lack;
    }
    return Lack;
  }

  /// The explicit checker's words: the first contributor set short of
  /// everyone, or the bytes of the first buffer Me misses (over all its
  /// requirements: an alltoall's column is several).
  void checkCompleteness() {
    std::string Lack;
    std::optional<BufferId> MissingIn;
    IntervalSet Missing;
    std::vector<std::vector<Interval>> Wanted;
    std::vector<BufferId> BufOrder;
    for (const Holding &Q : F.requirementsOf(Me)) {
      if (Q.Lo >= Q.Hi)
        continue;
      if (Reduction && S.spec().usesAccumulators()) {
        Lack = lackOfPrefix(Q);
        continue;
      }
      if (Reduction) {
        Partial->forEachHeld(0, Q.Lo, Q.Hi,
                             [&](uint64_t Lo, uint64_t Hi, uint32_t Set) {
                               if (!Sets.same(Set, EveryRank) && Lack.empty())
                                 Lack = report::lackOfContributors(
                                     S, Me, Q.Buf, Lo, Hi, Sets.get(Set));
                             });
        continue;
      }
      // Gathered per buffer (in the order buffers first appear), then
      // looked up per buffer in one walk: an alltoall's column is p blocks.
      if (Wanted.size() <= Q.Buf)
        Wanted.resize(Q.Buf + 1);
      if (Wanted[Q.Buf].empty())
        BufOrder.push_back(Q.Buf);
      Wanted[Q.Buf].push_back({Q.Lo, Q.Hi});
    }
    // The first buffer that misses something, every byte it misses.
    for (BufferId B : BufOrder) {
      // Held lattices (Bruck's): the wanted ranges as lattices of one
      // column (an alltoall's column is p equal ranges p blocks apart),
      // decided on the lattices; the exact walk only when one is not held.
      if (Held[B].hasLattices() && heldAsLattices(Held[B], Wanted[B]))
        continue;
      Missing = Held[B].missingFromEach(Wanted[B]);
      if (!Missing.empty()) {
        MissingIn = B;
        break;
      }
    }
    if (MissingIn)
      Lack = report::lackOfBytes(S, *MissingIn, Missing);
    if (!Lack.empty())
      R.Lack = std::move(Lack);
  }

  /// Whether H holds every range of Qs, shown run by run of equal ranges
  /// at a constant stride (each a lattice of one column); false: not
  /// shown.
  static bool heldAsLattices(HeldBytes &H, const std::vector<Interval> &Qs) {
    for (size_t I = 0, E = 0; I < Qs.size(); I = E) {
      uint64_t Size = Qs[I].size(), Stride = 0;
      E = I + 1;
      if (E < Qs.size() && Qs[E].size() == Size && Qs[E].Lo >= Qs[I].Lo + Size)
        Stride = Qs[E].Lo - Qs[I].Lo;
      while (Stride && E < Qs.size() && Qs[E].size() == Size &&
             Qs[E].Lo == Qs[E - 1].Lo + Stride)
        ++E;
      if (!Size)
        continue;
      Lattice X;
      X.Start = Qs[I].Lo;
      X.Elem = X.ColStride = Size;
      X.RowStride = Stride ? Stride : Size;
      X.Rows = uint32_t(E - I);
      X.Cols = 1;
      if (!H.contains(X))
        return false;
    }
    return true;
  }

  std::vector<PeerDigest> sorted(const PeerHashes &M) const {
    return M.sorted(S.NumRanks);
  }
};

} // namespace

Digest128 choreo::ownSizesDigest(const CallHeader &H) {
  if (!hasRankSizes(H))
    return {};
  Hasher Hs;
  for (const NamedSizes &NS : H.Sizes)
    if (isPerRankSizesName(NS.Name)) {
      Hs.mix(NS.Name.size());
      for (char C : NS.Name)
        Hs.mix(uint64_t(uint8_t(C)));
      Hs.mix(NS.Values.size());
      for (uint64_t X : NS.Values)
        Hs.mix(X);
    }
  return Hs.digest();
}

Digest128 choreo::partHeaderDigest(const Schedule &Part) {
  Hasher H;
  Digest128 D;
  if (hasRankSizes(Part)) {
    // An alltoallv rank's row and column are its own: the ranks share the
    // rest (the length of all, the used offsets). That one rank's row
    // agrees with another's column is the message agreement's.
    CallHeader Shared = Part;
    llvm::erase_if(Shared.Sizes, [](const NamedSizes &NS) {
      return isPerRankSizesName(NS.Name);
    });
    Shared.Sizes.push_back({"length", {alltoallLength(Part)}});
    D = headerDigest(Shared);
  } else {
    D = headerDigest(Part);
  }
  H.mix(D.H1);
  H.mix(D.H2);
  H.mix(Part.Steps.numSteps());
  // A part whose sets may name subtrees: every rank must mean the same
  // trees, and so run the same tree check (docs/distributed-proof.md,
  // "Contributor sets named by a subtree").
  if (const SubtreeFamily *F = Part.Steps.family()) {
    H.mix(0x7375627472656573ull); // "subtrees"
    H.mix(F->digest());
  }
  return H.digest();
}

std::vector<OpAt> choreo::opsOf(const Schedule &S, Rank Me) {
  // Counted first: a ring rank's part is 262,140 ops at p = 65,536, and
  // growing the list by doubling touched twice its 2 MiB.
  size_t N = 0;
  for (const Op &O : S.Steps.allOps())
    N += O.Src == Me || O.Dst == Me;
  std::vector<OpAt> Out;
  Out.reserve(N);
  for (unsigned St = 0; St < S.Steps.numSteps(); ++St) {
    llvm::ArrayRef<Op> Ops = S.Steps.step(St);
    for (size_t I = 0; I < Ops.size(); ++I)
      if (Ops[I].Src == Me || Ops[I].Dst == Me)
        Out.push_back({St, uint32_t(I)});
  }
  return Out;
}

LocalResult choreo::messageDigests(const Schedule &S, Rank Me,
                                   llvm::ArrayRef<OpAt> Mine) {
  LocalResult R;
  R.Me = Me;
  R.NumOps = Mine.size();
  llvm::DenseMap<uint32_t, Hasher> SendH, ExpectH;
  for (OpAt At : Mine) {
    const Op &O = S.Steps.step(At.Step)[At.Index];
    digestMessage(S.Steps, At.Step, O,
                  O.Src == Me ? SendH[O.Dst] : ExpectH[O.Src]);
  }
  R.Sends = sortedDigests(SendH, S.NumRanks);
  R.Own = ownSizesDigest(S);
  R.Expects = sortedDigests(ExpectH, S.NumRanks);
  return R;
}

LocalResult choreo::checkLocal(const Schedule &S, Rank Me,
                               llvm::ArrayRef<OpAt> Mine,
                               const HeaderFacts &Facts, bool GlobalIndex) {
  return LocalChecker(S, Me, Mine, Facts, GlobalIndex).run();
}
