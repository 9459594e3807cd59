//===- pmpi/InterWrappers.cpp - Intercommunicator bcast and reductions ----===//
///
/// \file
/// MPI_Bcast, MPI_Reduce and MPI_Allreduce on an intercommunicator (MPI-4
/// 6.2.2), served as inter_bcast, inter_reduce and inter_allreduce: the
/// schedule's ranks are the merged communicator's (the low group A first).
/// A rooted call's root passes MPI_ROOT, the rest of its group
/// MPI_PROC_NULL and the other group the root's rank in the root's group;
/// the ranks passing MPI_PROC_NULL do not know the root, so every rank
/// learns it (and the vector's length, which is not significant there)
/// from one MPI_MAX allreduce over choreo's private communicator before the
/// call is bound. The started (MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce)
/// and persistent (MPI_*_init) forms take the same path (pmpi/Calls.h's
/// Launch): a rooted call's exchange runs inside the MPI_I* call (it
/// blocks until every rank of both groups made it) and, for a persistent
/// call, once at MPI_*_init (MPI_Start reuses its answer: the arguments
/// are fixed); a broadcast buffer that needs a packed copy keeps it for the
/// run and is unpacked when the run completes.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Calls.h"
#include "pmpi/Datatypes.h"

#include "executor/Agree.h"
#include "executor/Yielding.h"

#include "llvm/Support/FormatVariadic.h"

#include <memory>
#include <optional>
#include <utility>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// The groups' sizes and where this rank's and the other group's ranks
/// start among the p + q ranks (A low).
struct InterShape {
  int Me = 0, Local = 0, Remote = 0;
  bool Low = true;
  uint64_t P = 0, Q = 0;
  int64_t MyBase = 0, RemoteBase = 0;
};

bool shapeOf(MPI_Comm Comm, InterShape &S) {
  std::optional<bool> Low = inLowGroup(Comm);
  if (!Low)
    return false;
  S.Low = *Low;
  PMPI_Comm_rank(Comm, &S.Me);
  PMPI_Comm_size(Comm, &S.Local);
  PMPI_Comm_remote_size(Comm, &S.Remote);
  S.P = S.Low ? S.Local : S.Remote;
  S.Q = S.Low ? S.Remote : S.Local;
  S.MyBase = S.Low ? 0 : int64_t(S.P);
  S.RemoteBase = S.Low ? int64_t(S.P) : 0;
  return true;
}

/// The root among the p + q ranks as this rank knows it (-1: MPI_PROC_NULL,
/// it does not); -2 for a root MPI does not allow.
int64_t globalRoot(const InterShape &S, int Root) {
  if (Root == MPI_ROOT)
    return S.MyBase + S.Me;
  if (Root == MPI_PROC_NULL)
    return -1;
  if (Root < 0 || Root >= S.Remote)
    return -2;
  return S.RemoteBase + Root;
}

/// Sets Args' groups (no member sizes) and, for a rooted call, the
/// exchange that completes its root and length on every rank. The answer
/// is kept with the exchange: a persistent call's copy of R (taken before
/// its MPI_*_init runs, pmpi/Wrappers.cpp) shares it, so MPI_Start does not
/// exchange again.
void setCall(Request &R, const InterShape &S, MpiCall C, uint64_t Bytes,
             int64_t Root) {
  R.Args.Call = C;
  R.Args.Inter = true;
  R.Args.SizesA.assign(S.P, 0);
  R.Args.SizesB.assign(S.Q, 0);
  R.Args.Bytes = Bytes;
  if (!bindingOf(C).spec().Rooted)
    return;
  const char *Name = bindingOf(C).MpiName;
  auto Known = std::make_shared<std::optional<std::pair<Rank, uint64_t>>>();
  R.Exchange = [Root, Bytes, Name, Known](MPI_Comm Priv,
                                          MpiArgs &A) -> std::string {
    if (!*Known) {
      int64_t Mine[2] = {Root, int64_t(Bytes)}, All[2] = {0, 0};
      if (yielding::allreduce(Mine, All, 2, MPI_INT64_T, MPI_MAX, Priv) !=
          MPI_SUCCESS)
        return std::string(Name) + " on an intercommunicator: the exchange "
                                   "of the root failed";
      if (All[0] < 0)
        return std::string(Name) + " on an intercommunicator: no rank "
                                   "passed MPI_ROOT or the root's rank";
      *Known = std::make_pair(Rank(All[0]), uint64_t(All[1]));
    }
    A.Root = (*Known)->first;
    A.Bytes = (*Known)->second;
    return "";
  };
}

} // namespace

int pmpi::interBcastCall(void *Buffer, int64_t Count, MPI_Datatype Type,
                         int Root, MPI_Comm Comm, const NativeFn &Native,
                         const Launch &L) {
  InterShape S;
  if (!shapeOf(Comm, S)) {
    noteNative(Comm, bindingOf(MpiCall::Bcast).MpiName,
               "intercommunicator groups outside MPI_COMM_WORLD");
    return Native();
  }
  int64_t GRoot = globalRoot(S, Root);
  bool Acts = Root != MPI_PROC_NULL; // the root or the other group
  int Size = 0;
  bool Direct = typeInOrder(Type, Size);
  if (GRoot == -2 || (Acts && Count < 0))
    return Native(); // erroneous: let MPICH say so
  uint64_t Bytes = Acts ? uint64_t(Count) * Size : 0;
  Guard G;
  // A packed copy lives as long as the run (a started or persistent call's
  // outlives this function); the root packs before each start, the other
  // group unpacks when the run completes.
  auto Pk = std::make_shared<PackedCopies>();
  bool Copies = Acts && !Direct;
  if (Copies)
    Pk->Recv.resize(Bytes);
  auto Pack = [=]() {
    return Root != MPI_ROOT ||
           packInto(Buffer, Count, Type, Pk->Recv.data(), Bytes);
  };
  auto Unpack = [=]() {
    return Root == MPI_ROOT ||
           unpackFrom(Pk->Recv.data(), Bytes, Buffer, Count, Type);
  };
  Request R;
  setCall(R, S, MpiCall::Bcast, Bytes, GRoot);
  R.Buffers.Recv = !Acts ? nullptr : Direct ? Buffer : Pk->Recv.data();
  R.Buffers.RecvBytes = Bytes;
  // MPICH's call (the selection said native) fills Buffer itself: runPacked
  // unpacks only after choreo's run.
  if (!Copies)
    return runPacked(Comm, R, Native, L, nullptr, nullptr, nullptr);
  return runPacked(Comm, R, Native, L, Pk, Pack, Unpack);
}

int pmpi::interReduceCall(MpiCall C, const void *SendBuf, void *RecvBuf,
                          uint64_t Bytes, uint64_t ElemBytes, bool Commutes,
                          MPI_Datatype Type, MPI_Op Op, int Root, MPI_Comm Comm,
                          const NativeFn &Native, const Launch &L) {
  const char *Name = bindingOf(C).MpiName;
  InterShape S;
  if (SendBuf == MPI_IN_PLACE)
    return Native(); // erroneous on an intercommunicator: MPICH says so
  if (!shapeOf(Comm, S)) {
    noteNative(Comm, Name, "intercommunicator groups outside MPI_COMM_WORLD");
    return Native();
  }
  bool Rooted = bindingOf(C).spec().Rooted;
  int64_t GRoot = Rooted ? globalRoot(S, Root) : 0;
  if (GRoot == -2)
    return Native();
  Guard G;
  Request R;
  setCall(R, S, C, Bytes, GRoot);
  R.Args.ElemBytes = ElemBytes;
  R.Args.Commutative = Commutes;
  R.Args.Root = GRoot >= 0 ? Rank(GRoot) : 0;
  // The root's group gives no vector; the root alone gets the result.
  bool Gives = !Rooted || (Root != MPI_ROOT && Root != MPI_PROC_NULL);
  bool Gets = !Rooted || Root == MPI_ROOT;
  R.Buffers.Send = Gives ? SendBuf : nullptr;
  R.Buffers.SendBytes = Gives ? Bytes : 0;
  R.Buffers.Recv = Gets ? RecvBuf : nullptr;
  R.Buffers.RecvBytes = Gets ? Bytes : 0;
  R.Buffers.ReduceType = Type;
  R.Buffers.ReduceOp = Op;
  return runOrNative(Comm, R, Native, L);
}
