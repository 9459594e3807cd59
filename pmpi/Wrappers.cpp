//===- pmpi/Wrappers.cpp - The MPI_* functions libchoreo-mpi.so defines ---===//
///
/// \file
/// MPI_Allgather, MPI_Allgatherv (intra- and intercommunicators), MPI_Bcast,
/// MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter and
/// MPI_Reduce_scatter_block (intracommunicators) describe the call (its
/// arguments in bytes, ir/CallBinding.h, and this rank's buffers) and
/// hand it to pmpi::run. Allgather(v)
/// and bcast honour each rank's own type map (pmpi/Datatypes.h): a buffer
/// whose type map is not its bytes in order goes through a packed copy, so
/// ranks may use different layouts of one signature. What the library does
/// not run goes to PMPI_* unchanged: reductions on datatypes with holes or
/// a lower bound (but the MAXLOC/MINLOC pair types; a reduction's datatype
/// is the same on every rank, so every rank decides alike),
/// intercommunicator broadcasts and reductions, groups outside
/// MPI_COMM_WORLD. Each call has its int and its MPI-4 `_c` (MPI_Count)
/// form, one path for both (pmpi/Calls.h). MPI_Finalize frees the
/// library's state first. Debian's libmpich.so.12 defines MPI_* as weak
/// symbols over PMPI_*, so these take their place under LD_PRELOAD or when
/// linked before -lmpich, for C and Fortran callers alike.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Calls.h"
#include "pmpi/Datatypes.h"
#include "pmpi/Progress.h"

#include <cstring>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// Whether Comm is an intercommunicator (Inter) and, if so, whether the
/// library can tell its low group A (which it merges first): Low.
bool interOk(MPI_Comm Comm, bool &Inter, bool &Low) {
  Inter = commIsInter(Comm);
  Low = true;
  if (!Inter)
    return true;
  std::optional<bool> L = inLowGroup(Comm);
  Low = L.value_or(true);
  return L.has_value();
}

/// Whether call C has a root; whether it gives every rank a slice (each
/// asked of the call's spec once).
struct CallTraits {
  bool Rooted = false, Sliced = false;
};
const CallTraits &traitsOf(MpiCall C) {
  static const std::vector<CallTraits> Table = [] {
    std::vector<CallTraits> T;
    for (const MpiBinding &B : allBindings())
      T.push_back({B.spec().Rooted, B.spec().knowsSizes("slices")});
    return T;
  }();
  return Table[size_t(C)];
}
bool rooted(MpiCall C) { return traitsOf(C).Rooted; }
bool sliced(MpiCall C) { return traitsOf(C).Sliced; }

/// Whether Op commutes: MPI's predefined operators do; a user's operator
/// is asked of MPI on every call (its handle may later name another).
bool opCommutes(MPI_Op Op) {
  if (Op == MPI_SUM || Op == MPI_PROD || Op == MPI_MAX || Op == MPI_MIN ||
      Op == MPI_LAND || Op == MPI_LOR || Op == MPI_LXOR || Op == MPI_BAND ||
      Op == MPI_BOR || Op == MPI_BXOR || Op == MPI_MAXLOC || Op == MPI_MINLOC)
    return true;
  int Commutes = 1;
  PMPI_Op_commutative(Op, &Commutes);
  return Commutes;
}

/// Runs, starts or prepares R's plan on Comm as L says (pmpi/Calls.h).
Outcome launch(MPI_Comm Comm, Request &R, int &Rc, const Launch &L) {
  R.Do = L.Do;
  R.Out = L.Out;
  if (L.Do != Mode::Prepare)
    return run(Comm, R, Rc);
  // Every start runs the call as prepared here: with the arguments the
  // ranks exchanged once (MPI fixes a persistent call's arguments).
  Request Copy = R;
  MpiArgs Done;
  R.Completed = &Done;
  Outcome O = run(Comm, R, Rc);
  if (O == Outcome::Ran) {
    Copy.Args = std::move(Done);
    Copy.Exchange = nullptr;
    Copy.ExchangeParts = nullptr;
    Copy.Heard = nullptr;
    Copy.StartParts = nullptr;
    Copy.RootSizes = Copy.ExchangeSizes = false;
    Rc = makePersistent(Comm, std::move(Copy), L.NativeStart, L.Out);
  }
  return O;
}

} // namespace

int pmpi::runPacked(MPI_Comm Comm, Request &R, const NativeFn &Native,
                    const Launch &L, std::shared_ptr<void> Keep,
                    std::function<bool()> Pack, std::function<bool()> Unpack) {
  if (L.Do != Mode::Prepare && Pack && !Pack())
    return Native();
  if (L.Do != Mode::Execute) {
    R.Keep = std::move(Keep);
    R.Finish = Unpack;
    if (L.Do == Mode::Prepare)
      R.BeforeStart = std::move(Pack);
  }
  int Rc = MPI_SUCCESS;
  switch (launch(Comm, R, Rc, L)) {
  case Outcome::Failed:
    return Rc;
  case Outcome::Native:
    return Native();
  case Outcome::Ran:
    break;
  }
  if (Rc == MPI_SUCCESS && L.Do == Mode::Execute && Unpack && !Unpack())
    return MPI_ERR_TYPE;
  return Rc;
}

int pmpi::runOrNative(MPI_Comm Comm, Request &R, const NativeFn &Native,
                      const Launch &L) {
  int Rc = MPI_SUCCESS;
  switch (launch(Comm, R, Rc, L)) {
  case Outcome::Ran:
  case Outcome::Failed:
    return Rc;
  case Outcome::Native:
    break;
  }
  return Native();
}

/// Allgather and allgatherv, intra and inter. Counts == null: allgather
/// (RecvCount per member); else allgatherv (Counts, Displs).
int pmpi::gatherCall(MpiCall C, const void *SendBuf, int64_t SendCount,
                     MPI_Datatype SendType, void *RecvBuf, int64_t RecvCount,
                     CountArray Counts, CountArray Displs,
                     MPI_Datatype RecvType, MPI_Comm Comm,
                     const NativeFn &Native, const Launch &L) {
  const char *Name = bindingOf(C).MpiName;
  bool InPlace = SendBuf == MPI_IN_PLACE;
  bool Inter, Low;
  if (Comm == MPI_COMM_NULL)
    return Native(); // erroneous: let MPICH say so
  if (!interOk(Comm, Inter, Low)) {
    noteNative(Comm, Name, "intercommunicator groups outside MPI_COMM_WORLD");
    return Native();
  }
  if (Inter && InPlace)
    return Native(); // erroneous in MPI: let MPICH say so
  // Each rank's buffers map to the packed bytes the schedule moves by its
  // own type map: directly when in order, else through a packed copy.
  int SendSize = 0, RecvSize = 0;
  bool SendDirect = InPlace || typeInOrder(SendType, SendSize);
  bool RecvDirect = typeInOrder(RecvType, RecvSize);
  MPI_Aint RecvExt = RecvDirect ? RecvSize : typeExtent(RecvType);
  if (SendCount < 0 || RecvCount < 0 || RecvExt < 0 ||
      (!RecvDirect && RecvExt == 0 && RecvSize != 0))
    return Native();
  Guard G;
  int Me, N, Remote = 0;
  Me = commRank(Comm);
  N = commSize(Comm);
  if (Inter)
    PMPI_Comm_remote_size(Comm, &Remote);
  if (!Inter) {
    // MPI_Allgather(v) handed to MPICH before: found by its members' bytes
    // before the buffers' places are read, with no allocation (the
    // arguments' vector is this thread's, reused; the same arguments the
    // path below binds).
    static MpiArgs Which; // (no thread calls here beside another: enabled)
    Which.Call = C;
    Which.InPlace = InPlace;
    Which.SizesA.resize(size_t(N));
    bool Known = true;
    uint64_t Sum = 0;
    for (int I = 0; I < N && Known; ++I) {
      Known = bytesOf(Counts ? Counts[I] : RecvCount, RecvSize,
                      Which.SizesA[I]);
      Sum += Which.SizesA[I];
    }
    if (Known && Sum && handedOver(Comm, Which))
      return Native();
  }
  int Members = Inter ? Remote : N; // members whose data Recv holds
  std::vector<uint64_t> RecvBytes(Members);
  std::vector<uint64_t> DisplBytes;
  uint64_t RecvEnd = 0;
  for (int I = 0; I < Members; ++I) {
    int64_t Cnt = Counts ? Counts[I] : RecvCount;
    // In the user's buffer: elements of RecvExt bytes.
    uint64_t At = 0;
    if (!bytesOf(Cnt, RecvSize, RecvBytes[I]) ||
        !bytesOf(Counts ? Displs[I] : I * Cnt, RecvExt, At))
      return Native();
    if (Counts)
      DisplBytes.push_back(At);
    RecvEnd = std::max(RecvEnd, At + RecvBytes[I]);
  }
  // The user's receive buffer in elements: where member I's data sits.
  std::vector<uint64_t> UserAt;
  if (!RecvDirect) {
    for (int I = 0; I < Members; ++I)
      UserAt.push_back(Counts ? DisplBytes[I]
                              : I * uint64_t(RecvCount) * RecvExt);
    // The plan works on the packed copy: members in order.
    DisplBytes.clear();
    RecvEnd = 0;
    for (int I = 0; I < Members; ++I)
      RecvEnd += RecvBytes[I];
  }
  // Contiguous in member order needs no displacements.
  if (Counts && RecvDirect) {
    bool Plain = true;
    uint64_t At = 0;
    for (int I = 0; I < Members; ++I) {
      Plain &= DisplBytes[I] == At;
      At += RecvBytes[I];
    }
    if (Plain)
      DisplBytes.clear();
  }
  Request R;
  R.Args.Call = C;
  R.Args.Inter = Inter;
  R.Args.InPlace = InPlace;
  uint64_t Own = 0;
  if (!InPlace && !bytesOf(SendCount, SendSize, Own))
    return Native();
  if (InPlace)
    Own = RecvBytes[Me];
  uint64_t Total = 0;
  if (!Inter) {
    // MPI requires the send and receive signatures to match; a send buffer
    // shorter than the rank's share is refused when the plan is made.
    R.Args.SizesA = RecvBytes;
    for (uint64_t B : RecvBytes)
      Total += B;
  } else {
    std::vector<uint64_t> Mine(N, Own);
    Total = uint64_t(N) * Own;
    for (uint64_t B : RecvBytes)
      Total += B;
    R.Args.SizesA = Low ? Mine : RecvBytes;
    R.Args.SizesB = Low ? RecvBytes : Mine;
    if (Counts && (N > 1 || Remote > 1)) {
      // Only the remote members' sizes are known here: run exchanges them.
      // (With one rank on each side, each rank knows both groups' sizes,
      // its own and its recvcounts; every rank sees that alike. Counts that
      // do not match what the other side sends give the two ranks different
      // calls, which their first call's agreement refuses.)
      R.ExchangeSizes = true;
      R.LocalBytes = Own;
      R.RemoteBytes = RecvBytes;
    }
  }
  if (!R.ExchangeSizes && Total == 0)
    return L.Do == Mode::Execute ? MPI_SUCCESS : Native();
  if (handedOver(Comm, R.Args, R.ExchangeSizes))
    return Native();
  // Packed copies (a type map that is not its bytes in order) live as long
  // as the run: a non-blocking call's until it completes, a persistent
  // call's until it is freed (packed again at every start).
  auto Pk = std::make_shared<PackedCopies>();
  char *Recv = static_cast<char *>(RecvBuf);
  uint64_t OwnAt = 0; // this rank's member bytes in the packed copy
  if (!RecvDirect) {
    Pk->Recv.resize(RecvEnd);
    for (int I = 0; I < Me && !Inter; ++I)
      OwnAt += RecvBytes[I];
    Recv = Pk->Recv.data();
  }
  if (!SendDirect)
    Pk->Send.resize(Own);
  int64_t MyCount = Counts ? Counts[Me] : RecvCount;
  uint64_t MyAt = RecvDirect ? 0 : UserAt[Me], MyBytes = RecvBytes[Me];
  auto Pack = [=]() {
    if (!RecvDirect && InPlace &&
        !packInto(static_cast<char *>(RecvBuf) + MyAt, MyCount, RecvType,
                  Pk->Recv.data() + OwnAt, MyBytes))
      return false;
    return SendDirect ||
           packInto(SendBuf, SendCount, SendType, Pk->Send.data(), Own);
  };
  // The packed copy back into the user's buffer, member by member.
  std::vector<int64_t> MemberCounts;
  for (int I = 0; I < Members && !RecvDirect; ++I)
    MemberCounts.push_back(Counts ? Counts[I] : RecvCount);
  auto Unpack = [=]() {
    uint64_t At = 0;
    for (int I = 0; I < Members && !RecvDirect; At += RecvBytes[I], ++I)
      if (!unpackFrom(Pk->Recv.data() + At, RecvBytes[I],
                      static_cast<char *>(RecvBuf) + UserAt[I], MemberCounts[I],
                      RecvType))
        return false;
    return true;
  };
  R.Buffers.Send = InPlace      ? Recv + (!RecvDirect ? OwnAt
                                          : Counts ? uint64_t(Displs[Me]) * RecvSize
                                                   : uint64_t(Me) * RecvBytes[Me])
                   : SendDirect ? SendBuf
                                : Pk->Send.data();
  R.Buffers.SendBytes = Own;
  R.Buffers.Recv = Recv;
  R.Buffers.RecvBytes = RecvEnd;
  R.Buffers.RecvDispls = DisplBytes;
  if (SendDirect && RecvDirect)
    return runPacked(Comm, R, Native, L, nullptr, nullptr, nullptr);
  return runPacked(Comm, R, Native, L, Pk, Pack, Unpack);
}

namespace {

/// The MPI pair types of MPI_MAXLOC and MPI_MINLOC: a value and an int,
/// padded to the alignment of the value. Handled by extent: the padding
/// travels with the element and is never part of a user's data.
bool pairType(MPI_Datatype T) {
  return T == MPI_FLOAT_INT || T == MPI_DOUBLE_INT || T == MPI_LONG_INT ||
         T == MPI_SHORT_INT || T == MPI_2INT || T == MPI_LONG_DOUBLE_INT;
}

} // namespace

/// The four reductions on intracommunicators. Counts == null: Count
/// elements (MPI_Reduce, MPI_Allreduce: the vector; MPI_Reduce_scatter_block:
/// each rank's slice); else MPI_Reduce_scatter's recvcounts.
///
/// MPI_IN_PLACE: MPI_Allreduce and the MPI_Reduce root take their input
/// from recvbuf and leave the result there (the working vector is recvbuf
/// itself); MPI_Reduce_scatter(_block) take the whole input vector from
/// recvbuf and leave the rank's slice at its start (the executor works in
/// its scratch vector and copies the slice out at the end).
int pmpi::reduceCall(MpiCall C, const void *SendBuf, void *RecvBuf,
                     int64_t Count, CountArray Counts, MPI_Datatype Type,
                     MPI_Op Op, int Root, MPI_Comm Comm, const NativeFn &Native,
                     const Launch &L) {
  const char *Name = bindingOf(C).MpiName;
  if (Comm == MPI_COMM_NULL || Op == MPI_OP_NULL || Type == MPI_DATATYPE_NULL ||
      Count < 0)
    return Native(); // erroneous: let MPICH say so
  bool Inter = commIsInter(Comm);
  if (Inter && Counts) {
    noteNative(Comm, Name, "an intercommunicator (no generator)");
    return Native();
  }
  int Size = 0;
  MPI_Aint Lb = 0, Extent = 0;
  bool Contiguous;
  if (const NamedType *F = namedType(Type)) {
    Lb = F->Lb;
    Extent = F->Extent;
    Contiguous = F->Contiguous;
  } else {
    PMPI_Type_get_extent(Type, &Lb, &Extent);
    Contiguous = contiguous(Type, Size);
  }
  if (!Contiguous && !(pairType(Type) && Lb == 0 && Extent > 0)) {
    noteNative(Comm, Name, "a reduction datatype with holes or a lower bound");
    return Native();
  }
  if (Inter)
    return interReduceCall(C, SendBuf, RecvBuf, uint64_t(Count) * Extent,
                           Extent, opCommutes(Op), Type, Op, Root, Comm,
                           Native, L);
  int N = commSize(Comm), Me = commRank(Comm);
  bool Rooted = rooted(C), Sliced = sliced(C);
  if (Rooted && (Root < 0 || Root >= N))
    return Native();
  uint64_t Ext = uint64_t(Extent);
  bool InPlace = SendBuf == MPI_IN_PLACE;
  // The call's arguments, first found among those handed to MPICH before
  // without a Request (no allocation: no thread calls here beside
  // another, enabled).
  static MpiArgs A;
  A.Call = C;
  A.ElemBytes = Ext;
  A.Commutative = opCommutes(Op);
  // Only the root knows whether an MPI_Reduce is in place: the call (what
  // the selection sees) says not, alike on every rank.
  A.InPlace = InPlace && !Rooted;
  A.Root = Rooted ? Root : 0;
  uint64_t Total = 0;
  if (Sliced) {
    A.Ranks = 0;
    A.Bytes = 0;
    A.SizesA.resize(size_t(N));
    for (int I = 0; I < N; ++I) {
      if (!bytesOf(Counts ? Counts[I] : Count, Ext, A.SizesA[I]))
        return Native();
      Total += A.SizesA[I];
    }
  } else {
    A.SizesA.clear();
    A.Ranks = N;
    if (!bytesOf(Count, Ext, Total))
      return Native();
    A.Bytes = Total;
  }
  if (Total == 0)
    return L.Do == Mode::Execute ? MPI_SUCCESS : Native();
  if (handedOver(Comm, A))
    return Native();
  Request R;
  R.Args = A;
  Guard G;
  // The input vector: recvbuf in place (a non-root MPI_Reduce passing
  // MPI_IN_PLACE is erroneous: no send buffer, which the plan refuses on
  // every rank).
  bool HasResult = !Rooted || Me == Root;
  R.Buffers.Send = InPlace ? (HasResult ? RecvBuf : nullptr) : SendBuf;
  R.Buffers.SendBytes = Total;
  R.Buffers.Recv = HasResult ? RecvBuf : nullptr;
  R.Buffers.RecvBytes =
      !HasResult ? 0 : (Sliced && !InPlace ? R.Args.SizesA[Me] : Total);
  R.Buffers.ReduceType = Type;
  R.Buffers.ReduceOp = Op;
  return runOrNative(Comm, R, Native, L);
}

/// MPI_Bcast: each rank maps its buffer to the packed bytes by its own type
/// map (the root's and the others' may differ; only signatures match).
int pmpi::bcastCall(void *buffer, int64_t count, MPI_Datatype datatype,
                    int root, MPI_Comm comm, const NativeFn &Native,
                    const Launch &L) {
  int Size = 0, N = 0;
  if (commIsInter(comm))
    return interBcastCall(buffer, count, datatype, root, comm, Native, L);
  // The root's and every other rank's type maps may differ (only the
  // signatures match): each rank maps its buffer to the packed bytes alone.
  bool Direct = typeInOrder(datatype, Size);
  N = commSize(comm);
  uint64_t Bytes = 0;
  if (!bytesOf(count, Size, Bytes) || root < 0 || root >= N)
    return Native();
  if (Bytes == 0)
    return L.Do == Mode::Execute ? MPI_SUCCESS : Native();
  // Handed to MPICH before: found without a Request (no thread calls here
  // beside another: enabled).
  static MpiArgs A;
  A.Call = MpiCall::Bcast;
  A.Ranks = N;
  A.Bytes = Bytes;
  A.Root = root;
  if (handedOver(comm, A))
    return Native();
  Request R;
  R.Args = A;
  int Me = commRank(comm);
  Guard G;
  auto Pk = std::make_shared<PackedCopies>();
  if (!Direct)
    Pk->Recv.resize(Bytes);
  auto Pack = [=]() {
    return Direct || Me != root ||
           packInto(buffer, count, datatype, Pk->Recv.data(), Bytes);
  };
  auto Unpack = [=]() {
    return Direct || Me == root ||
           unpackFrom(Pk->Recv.data(), Bytes, buffer, count, datatype);
  };
  R.Buffers.Recv = Direct ? buffer : Pk->Recv.data();
  R.Buffers.RecvBytes = Bytes;
  if (Direct)
    return runPacked(comm, R, Native, L, nullptr, nullptr, nullptr);
  return runPacked(comm, R, Native, L, Pk, Pack, Unpack);
}

extern "C" {

// Each call in its int and `_c` (MPI_Count) forms: one path (pmpi/Calls.h).

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm) {
  return allgather(blocking(PMPI_Allgather, PMPI_Iallgather), sendbuf,
                   sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather(blocking(PMPI_Allgather_c, PMPI_Iallgather_c), sendbuf,
                   sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv(blocking(PMPI_Allgatherv, PMPI_Iallgatherv), sendbuf,
                    sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                    comm);
}
int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[],
                     MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv(blocking(PMPI_Allgatherv_c, PMPI_Iallgatherv_c), sendbuf,
                    sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                    comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm) {
  return bcast(blocking(PMPI_Bcast, PMPI_Ibcast), buffer, count, datatype, root,
               comm);
}
int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                MPI_Comm comm) {
  return bcast(blocking(PMPI_Bcast_c, PMPI_Ibcast_c), buffer, count, datatype,
               root, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  return reduce(blocking(PMPI_Reduce, PMPI_Ireduce), sendbuf, recvbuf, count,
                datatype, op, root, comm);
}
int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  return reduce(blocking(PMPI_Reduce_c, PMPI_Ireduce_c), sendbuf, recvbuf,
                count, datatype, op, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return allreduce(blocking(PMPI_Allreduce, PMPI_Iallreduce), sendbuf, recvbuf,
                   count, datatype, op, comm);
}
int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return allreduce(blocking(PMPI_Allreduce_c, PMPI_Iallreduce_c), sendbuf,
                   recvbuf, count, datatype, op, comm);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                       const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  return reduceScatter(blocking(PMPI_Reduce_scatter, PMPI_Ireduce_scatter),
                       sendbuf, recvbuf, recvcounts, datatype, op, comm);
}
int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
                         const MPI_Count recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  return reduceScatter(blocking(PMPI_Reduce_scatter_c, PMPI_Ireduce_scatter_c),
                       sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return reduceScatterBlock(
      blocking(PMPI_Reduce_scatter_block, PMPI_Ireduce_scatter_block), sendbuf,
      recvbuf, recvcount, datatype, op, comm);
}
int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm) {
  return reduceScatterBlock(
      blocking(PMPI_Reduce_scatter_block_c, PMPI_Ireduce_scatter_block_c),
      sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int MPI_Finalize(void) {
  if (!Guard::active()) {
    // Runs whose requests the application freed complete first (every
    // rank drains its own: their peers are here too).
    drainRuns();
    shutdown();
    finalizing();
  }
  return PMPI_Finalize();
}

} // extern "C"
