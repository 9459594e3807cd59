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
/// column's places and the used offsets), any number of ranks. An
/// algorithm that needs the whole matrix (alltoall-bruck) has it exchanged
/// instead (Request::Exchange: every call a digest of each rank's row and
/// column, 32 bytes a rank; the first time a matrix is seen, the rows
/// themselves; up to 4096 ranks). Either way every rank checks its column
/// against what the others send (recvcounts that do not match fail the
/// call on every rank, naming the rank). MPI_IN_PLACE: the rank's data is first copied out of recvbuf
/// (its blocks at rdispls), then the plan runs as without it. Datatypes
/// whose type map is not their bytes in order go through packed copies,
/// block by block (pmpi/Datatypes.h). On an intercommunicator (MPI-4 6.8:
/// every rank of A sends every rank of B a block and back) the call is an
/// `inter_alltoall` over the merged ranks, A first: its (p + q)^2 matrix
/// (zero within a group) exchanged as MPI_Alltoallv's, each rank's counts
/// and displacements over the other group placed at that group's ranks.
/// What the library does not run goes to PMPI_*: intercommunicators whose
/// groups it cannot place, MPI_Alltoallv over more than 4096 ranks where
/// it needs the whole matrix (an intercommunicator's, or an algorithm
/// without a rank form from a row and column; an intercommunicator's
/// MPI_Alltoall is the header's sizes.block [a, b], any size), a started
/// MPI_Ialltoallv over more than 256. The `_c` (MPI_Count) forms take the
/// same path, and so do the non-blocking and persistent forms (pmpi/Calls.h,
/// Form): packed copies are packed at each start and unpacked when the run
/// completes; MPI_Ialltoallv's matrix travels in its run's first step (rows
/// and column digests, pmpi/StartedCounts.h), MPI_Alltoallv_init exchanges
/// as the blocking call does, once.
///
//===----------------------------------------------------------------------===//

#include "executor/Agree.h"
#include "executor/Yielding.h"
#include "ir/PairMatrix.h"
#include "pmpi/Calls.h"
#include "pmpi/Datatypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <list>
#include <map>

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

/// This rank's parts of the matrices seen, by the job's key of the matrix
/// (MpiArgs::MatrixKey).
RecentEight<std::shared_ptr<const RankSizes>> &rankParts() {
  static RecentEight<std::shared_ptr<const RankSizes>> C;
  return C;
}

/// What this rank's part of MPI_Alltoallv's matrix needs, learnt from the
/// other ranks in O(p) a rank, never the matrix (collective over Priv; Row
/// and Col are this rank's sendcounts and recvcounts in bytes). "" and
/// A.Part, A.MatrixKey set, or an error alike on every rank.
///
/// Every call: one allreduce of 16 bytes, the sum over the ranks of each
/// one's digest of (its rank, its process, its row, its column): the
/// matrix's key, the same on every rank, which names every row and column
/// (up to a collision of the 128-bit digests). A key seen before is this rank's part as it
/// was (the counts were checked then). A new one:
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
std::string exchangeRankPart(MPI_Comm Priv, const std::vector<uint64_t> &Row,
                             const std::vector<uint64_t> &Col, MpiArgs &A) {
  int N = 0, Me = 0;
  PMPI_Comm_size(Priv, &N);
  PMPI_Comm_rank(Priv, &Me);
  const char *Failed = "MPI_Alltoallv: exchanging the ranks' counts failed";
  // The process too (its MPI_COMM_WORLD rank), so that a key names which
  // process is which rank: two communicators of the same counts but
  // another order of the processes have different keys (a rank's cached
  // part is its own rank's; every rank must hit or miss alike).
  int World = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &World);
  Hasher H;
  H.mix(uint64_t(Me));
  H.mix(uint64_t(World));
  H.mix(uint64_t(N));
  for (uint64_t X : Row)
    H.mix(X);
  for (uint64_t X : Col)
    H.mix(X);
  Digest128 Mine = H.digest();
  uint64_t Sum[2] = {Mine.H1, Mine.H2};
  if (yielding::allreduce(MPI_IN_PLACE, Sum, 2, MPI_UINT64_T, MPI_SUM, Priv) !=
      MPI_SUCCESS)
    return Failed;
  std::pair<uint64_t, uint64_t> Key{Sum[0], Sum[1]};
  A.MatrixKey = {Sum[0], Sum[1]};
  if (const std::shared_ptr<const RankSizes> *Seen = rankParts().find(Key)) {
    A.Part = *Seen;
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
  std::vector<uint64_t> Used(size_t(N) + 1, 0);
  markUsedOffsets(Rank(N), Rank(Me), Row, Used);
  Used[N] = Bad >= 0;
  if (yielding::allreduce(MPI_IN_PLACE, Used.data(), N + 1, MPI_UINT64_T,
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
    return formatv("MPI_Alltoallv: the recvcounts of rank {0} do not match "
                   "what the other ranks' sendcounts send it (rank {1} sends "
                   "it {2} bytes, its recvcounts say {3})",
                   First, Said[0], Said[1], Said[2]);
  }
  Used.pop_back();
  Rs->Used = std::move(Used);
  rankParts().put(Key, Rs);
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
  if (Inter) {
    std::optional<bool> Low = inLowGroup(Comm);
    if (!Low) {
      noteNative(Comm, Name, "intercommunicator groups outside MPI_COMM_WORLD");
      return Native();
    }
    if (Send.Buf == MPI_IN_PLACE)
      return Native(); // erroneous on an intercommunicator: MPICH says so
    int Local = N;
    PMPI_Comm_remote_size(Comm, &N);
    All = Local + N;
    RemoteBase = *Low ? Local : 0;
  }
  // A started MPI_Alltoallv's matrix travels in its run's first step
  // (pmpi/StartedCounts.h): p + 2 words a rank, p^2 received (p + q on an
  // intercommunicator).
  bool Started = C == MpiCall::Alltoallv && Ln.Do == Mode::Start;
  if (Started && All > int(MaxStartedRanks)) {
    noteNative(Comm, Name,
               "a non-blocking v form over more than 256 ranks (every rank "
               "would receive the whole matrix in its run's first step)");
    return Native();
  }
  // (An intercommunicator's MPI_Alltoall is sizes.block [a, b]: any size;
  // an intracommunicator's blocking or persistent MPI_Alltoallv builds
  // from each rank's row and column unless its algorithm needs the whole
  // matrix: run decides.)
  if (C == MpiCall::Alltoallv && uint64_t(All) > MaxRanks &&
      (Inter || Started)) {
    noteNative(Comm, Name, "more than 4096 ranks (a header of p^2 sizes)");
    return Native();
  }
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
    // The matrix over the All ranks: this rank's row and column where its
    // peers are (zero within its group), exchanged over choreo's private
    // communicator (the merged ranks, A first); B's size in SizesB.
    std::vector<uint64_t> GRow(All, 0), GCol(All, 0);
    for (int J = 0; J < N; ++J) {
      GRow[RemoteBase + J] = Row[J];
      GCol[RemoteBase + J] = Col[J];
    }
    R.Args.Inter = true;
    int Q = RemoteBase ? N : All - N;
    R.Args.SizesB.assign(Q, 0);
    if (Send.Counts && Started) {
      R.Said = GRow;
      Digest128 HC = digestOf(GCol);
      R.Said.push_back(HC.H1);
      R.Said.push_back(HC.H2);
      R.Heard = heardMatrix;
    } else if (Send.Counts) {
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
    R.Said = Row;
    Digest128 HC = digestOf(Col);
    R.Said.push_back(HC.H1);
    R.Said.push_back(HC.H2);
    R.Heard = heardMatrix;
  } else {
    // What each rank's part needs, O(p) a rank (any p); the whole matrix
    // only for an algorithm that needs it (run decides, alike on every
    // rank), up to 4096 ranks.
    R.ExchangeParts = [Row, Col](MPI_Comm Priv, MpiArgs &A) {
      return exchangeRankPart(Priv, Row, Col, A);
    };
    if (uint64_t(All) <= MaxRanks)
      R.Exchange = [Row, Col](MPI_Comm Priv, MpiArgs &A) {
        return exchangeMatrix(Priv, Row, Col, A);
      };
  }
  if (handedOver(Comm, R.Args, R.Exchange || R.ExchangeParts || R.Heard,
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
