//===- pmpi/RootedWrappers.cpp - MPI_Gather(v), MPI_Scatter(v) ------------===//
///
/// \file
/// MPI_Gather, MPI_Gatherv, MPI_Scatter and MPI_Scatterv on
/// intracommunicators: calls of collective `gather` and `scatter`, one
/// member's bytes per rank. MPI_Gather and MPI_Scatter give every member
/// the same bytes, so each rank knows them all from its own count; the v
/// forms give the counts to the root only, so every call first exchanges
/// each rank's bytes (pmpi/RootSizes.h). The root's buffer of every
/// member's data (a gather's receive buffer, a scatter's send buffer) and a
/// member's own buffer map to the packed bytes by the rank's own type map
/// (pmpi/Datatypes.h): directly when in order, else through a packed copy;
/// a gather root's displacements are the plan's receive displacements, a
/// scatter root's displacements other than member order go through a
/// packed copy. MPI_IN_PLACE at the root leaves its own data where it is.
/// Intercommunicators: pmpi/InterRooted.h. The `_c` (MPI_Count), non-blocking
/// and persistent forms take the same path (pmpi/Calls.h, Form); MPI_Igatherv
/// and MPI_Iscatterv exchange their counts in the run's first step
/// (pmpi/StartedCounts.h), their `_init` forms exchange them once.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Calls.h"
#include "pmpi/Datatypes.h"
#include "pmpi/InterRooted.h"

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// The bytes and in-order-ness of Count elements of T (Size 0 and false when
/// MPI cannot tell).
struct TypeInfo {
  bool Direct = false;
  int Size = 0;
  MPI_Aint Extent = 0;
};
TypeInfo infoOf(MPI_Datatype T) {
  TypeInfo I;
  if (T == MPI_DATATYPE_NULL)
    return I;
  I.Direct = typeInOrder(T, I.Size);
  // (A named type's size is typeInOrder's.)
  if (!namedType(T) && PMPI_Type_size(T, &I.Size) != MPI_SUCCESS)
    I.Size = -1;
  I.Extent = I.Direct ? I.Size : typeExtent(T);
  return I;
}

/// Whether Comm is an intercommunicator (its calls: pmpi/InterRooted.h).
bool isInter(MPI_Comm Comm) {
  return Comm != MPI_COMM_NULL && commIsInter(Comm);
}

/// Whether the call can be described at all; else PMPI.
bool describable(MPI_Comm Comm, int Root, int &N, int &Me) {
  N = commSize(Comm);
  Me = commRank(Comm);
  return Root >= 0 && Root < N;
}

/// The root's buffer of every member's data: Count(i) elements of T at
/// displacement Displ(i) (in extents). Packed: a copy in member order.
struct RootLayout {
  std::vector<uint64_t> Bytes, UserAt, Displs;
  uint64_t End = 0;
  bool Packed = false;
};
template <class CountFn, class DisplFn>
bool rootLayout(int N, const TypeInfo &T, CountFn Count, DisplFn Displ,
                bool HasDispls, RootLayout &L) {
  uint64_t Plain = 0;
  bool InOrder = true;
  for (int I = 0; I < N; ++I) {
    uint64_t B = 0, At = 0;
    if (!bytesOf(Count(I), T.Size, B) || !bytesOf(Displ(I), T.Extent, At))
      return false;
    L.Bytes.push_back(B);
    L.UserAt.push_back(At);
    InOrder &= At == Plain;
    Plain += B;
  }
  L.Packed = !T.Direct;
  if (T.Direct && !InOrder)
    L.Displs = L.UserAt;
  L.End = 0;
  for (int I = 0; I < N; ++I)
    L.End = L.Packed ? L.End + L.Bytes[I]
                     : std::max(L.End, L.UserAt[I] + L.Bytes[I]);
  return true;
}

/// What a gather or scatter call is, checked before a request is built
/// (false: MPICH serves it). Own is a member's side (the send buffer of a
/// gather, the receive buffer of a scatter; MPI_IN_PLACE only at the root),
/// the root's side holds every member's slice: RootCount each, or Counts at
/// Displs for the v forms.
struct RootedCall {
  int N = 0, Me = 0;
  bool IsRoot = false, InPlace = false;
  TypeInfo Own, RootSide;
  RootLayout L;
};
bool rootedCall(MpiCall C, MPI_Comm Comm, int Root, bool InPlace,
                int64_t OwnCount, MPI_Datatype OwnType, int64_t RootCount,
                CountArray Counts, CountArray Displs, MPI_Datatype RootType,
                RootedCall &R) {
  if (Comm == MPI_COMM_NULL || !describable(Comm, Root, R.N, R.Me))
    return false;
  R.IsRoot = R.Me == Root;
  R.InPlace = InPlace;
  if (InPlace && !R.IsRoot)
    return false; // erroneous: let MPICH say so
  R.Own = InPlace ? TypeInfo() : infoOf(OwnType);
  R.RootSide = R.IsRoot ? infoOf(RootType) : TypeInfo();
  const TypeInfo &T = R.RootSide;
  if ((!InPlace && (R.Own.Size < 0 || OwnCount < 0)) ||
      (R.IsRoot &&
       (T.Size < 0 || RootCount < 0 || T.Extent < 0 ||
        (!T.Direct && T.Extent == 0 && T.Size != 0) || (Counts && !Displs))))
    return false;
  return !R.IsRoot ||
         rootLayout(
             R.N, T, [&](int I) { return Counts ? Counts[I] : RootCount; },
             [&](int I) { return Counts ? Displs[I] : int64_t(I) * RootCount; },
             bool(Counts), R.L);
}

/// The hand-over's fast path for MPI_Gather and MPI_Scatter (Library.h,
/// handedOver), before the buffers' types and places are read: every
/// member's bytes from this rank's count (the root's side at the root), the
/// arguments rootedGather and rootedScatter give run.
bool rootedHandedOver(MpiCall C, MPI_Comm Comm, int Root, bool InPlace,
                      int64_t OwnCount, MPI_Datatype OwnType, int64_t RootCount,
                      MPI_Datatype RootType) {
  int N = 0, Me = 0, Size = 0;
  if (Comm == MPI_COMM_NULL || !describable(Comm, Root, N, Me))
    return false;
  bool IsRoot = Me == Root;
  MPI_Datatype T = IsRoot ? RootType : OwnType;
  uint64_t Each = 0;
  if ((InPlace && !IsRoot) || T == MPI_DATATYPE_NULL)
    return false;
  if (const NamedType *F = namedType(T))
    Size = F->Size;
  else if (PMPI_Type_size(T, &Size) != MPI_SUCCESS)
    return false;
  if (!bytesOf(IsRoot ? RootCount : OwnCount, Size, Each) || Each == 0)
    return false;
  // No allocation (no thread calls here beside another: enabled).
  static MpiArgs A;
  A.Call = C;
  A.Root = Root;
  A.SizesA.assign(size_t(N), Each);
  return handedOver(Comm, A);
}

/// A v form's counts at the root, copied (a started or persistent run
/// unpacks by them later); the plain form's RootCount for every member.
std::vector<int64_t> rootCounts(const RootedCall &RC, CountArray Counts,
                                int64_t RootCount) {
  std::vector<int64_t> V;
  for (int I = 0; I < RC.N && RC.IsRoot; ++I)
    V.push_back(Counts ? Counts[I] : RootCount);
  return V;
}

/// MPI_Gather (Counts null: RecvCount from every member) and MPI_Gatherv,
/// run, started or prepared as L says.
int rootedGather(const void *SendBuf, int64_t SendCount, MPI_Datatype SendType,
                 void *RecvBuf, int64_t RecvCount, CountArray Counts,
                 CountArray Displs, MPI_Datatype RecvType, int Root,
                 MPI_Comm Comm, const NativeFn &Native, const Launch &Ln) {
  MpiCall C = Counts ? MpiCall::Gatherv : MpiCall::Gather;
  if (isInter(Comm))
    return interRootedCall(C, {SendBuf, SendCount, nullptr, nullptr, SendType},
                           {RecvBuf, RecvCount, Counts, Displs, RecvType}, Root,
                           Comm, Native, Ln);
  if (!Counts && rootedHandedOver(C, Comm, Root, SendBuf == MPI_IN_PLACE,
                                  SendCount, SendType, RecvCount, RecvType))
    return Native();
  RootedCall RC;
  if (!rootedCall(C, Comm, Root, SendBuf == MPI_IN_PLACE, SendCount, SendType,
                  RecvCount, Counts, Displs, RecvType, RC))
    return Native();
  const int N = RC.N, Me = RC.Me;
  const bool IsRoot = RC.IsRoot, InPlace = RC.InPlace;
  const TypeInfo ST = RC.Own, RT = RC.RootSide;
  const RootLayout L = RC.L;
  uint64_t Own = 0;
  if (!InPlace && !bytesOf(SendCount, ST.Size, Own))
    return Native();
  if (InPlace)
    Own = L.Bytes[Me];
  Guard G;
  Request R;
  R.Args.Call = C;
  R.Args.Root = Root;
  // Only the root knows whether it is in place: the call (what the
  // selection sees) says not, alike on every rank.
  R.Args.InPlace = false;
  if (Counts) {
    // Only the root knows every member's bytes: run exchanges them.
    R.RootSizes = true;
    R.LocalBytes = Own;
    if (IsRoot)
      R.Args.SizesA = L.Bytes;
  } else {
    // Every member sends what the root receives from each.
    uint64_t Each = IsRoot ? uint64_t(RecvCount) * RT.Size : Own;
    R.Args.SizesA.assign(N, Each);
    if (Each == 0)
      return Ln.Do == Mode::Execute ? MPI_SUCCESS : Native();
  }
  if (handedOver(Comm, R.Args, R.RootSizes,
                 R.RootSizes && Ln.Do == Mode::Start))
    return Native();
  auto Pk = std::make_shared<PackedCopies>();
  char *Recv = static_cast<char *>(RecvBuf);
  uint64_t OwnAt = 0; // the root's own bytes in the packed copy
  bool PackRoot = IsRoot && L.Packed, PackOwn = !InPlace && !ST.Direct && Own;
  if (PackRoot) {
    Pk->Recv.resize(L.End);
    for (int I = 0; I < Me; ++I)
      OwnAt += L.Bytes[I];
    Recv = Pk->Recv.data();
  }
  if (PackOwn)
    Pk->Send.resize(Own);
  std::vector<int64_t> Cnt = rootCounts(RC, Counts, RecvCount);
  std::function<bool()> Pack, Unpack;
  if ((PackRoot && InPlace) || PackOwn)
    Pack = [=] {
      if (PackRoot && InPlace &&
          !packInto(static_cast<char *>(RecvBuf) + L.UserAt[Me], Cnt[Me],
                    RecvType, Pk->Recv.data() + OwnAt, L.Bytes[Me]))
        return false;
      return !PackOwn ||
             packInto(SendBuf, SendCount, SendType, Pk->Send.data(), Own);
    };
  if (PackRoot)
    Unpack = [=] {
      uint64_t At = 0;
      for (int I = 0; I < N; At += L.Bytes[I], ++I)
        if (!unpackFrom(Pk->Recv.data() + At, L.Bytes[I],
                        static_cast<char *>(RecvBuf) + L.UserAt[I], Cnt[I],
                        RecvType))
          return false;
      return true;
    };
  R.Buffers.Send = InPlace   ? Recv + (L.Packed ? OwnAt : L.UserAt[Me])
                   : PackOwn ? Pk->Send.data()
                             : SendBuf;
  R.Buffers.SendBytes = Own;
  if (IsRoot) {
    R.Buffers.Recv = Recv;
    R.Buffers.RecvBytes = L.End;
    R.Buffers.RecvDispls = L.Displs;
  }
  return runPacked(Comm, R, Native, Ln, Pk, Pack, Unpack);
}

/// MPI_Scatter (Counts null: SendCount to every member) and MPI_Scatterv,
/// run, started or prepared as L says.
int rootedScatter(const void *SendBuf, int64_t SendCount, CountArray Counts,
                  CountArray Displs, MPI_Datatype SendType, void *RecvBuf,
                  int64_t RecvCount, MPI_Datatype RecvType, int Root,
                  MPI_Comm Comm, const NativeFn &Native, const Launch &Ln) {
  MpiCall C = Counts ? MpiCall::Scatterv : MpiCall::Scatter;
  if (isInter(Comm))
    return interRootedCall(C, {RecvBuf, RecvCount, nullptr, nullptr, RecvType},
                           {SendBuf, SendCount, Counts, Displs, SendType}, Root,
                           Comm, Native, Ln);
  if (!Counts && rootedHandedOver(C, Comm, Root, RecvBuf == MPI_IN_PLACE,
                                  RecvCount, RecvType, SendCount, SendType))
    return Native();
  RootedCall RC;
  if (!rootedCall(C, Comm, Root, RecvBuf == MPI_IN_PLACE, RecvCount, RecvType,
                  SendCount, Counts, Displs, SendType, RC))
    return Native();
  const int N = RC.N, Me = RC.Me;
  const bool IsRoot = RC.IsRoot, InPlace = RC.InPlace;
  const TypeInfo RT = RC.Own, ST = RC.RootSide;
  RootLayout L = RC.L;
  // The plan reads the root's data in member order: displacements other
  // than that go through a packed copy too.
  if (IsRoot && !L.Displs.empty()) {
    L.Packed = true;
    L.Displs.clear();
    L.End = 0;
    for (uint64_t B : L.Bytes)
      L.End += B;
  }
  uint64_t Own = 0;
  if (!InPlace && !bytesOf(RecvCount, RT.Size, Own))
    return Native();
  if (InPlace)
    Own = L.Bytes[Me];
  Guard G;
  Request R;
  R.Args.Call = C;
  R.Args.Root = Root;
  // Only the root knows whether it is in place: the call (what the
  // selection sees) says not, alike on every rank.
  R.Args.InPlace = false;
  if (Counts) {
    R.RootSizes = true;
    R.LocalBytes = Own;
    if (IsRoot)
      R.Args.SizesA = L.Bytes;
  } else {
    uint64_t Each = IsRoot ? uint64_t(SendCount) * ST.Size : Own;
    R.Args.SizesA.assign(N, Each);
    if (Each == 0)
      return Ln.Do == Mode::Execute ? MPI_SUCCESS : Native();
  }
  if (handedOver(Comm, R.Args, R.RootSizes,
                 R.RootSizes && Ln.Do == Mode::Start))
    return Native();
  auto Pk = std::make_shared<PackedCopies>();
  const char *Send = static_cast<const char *>(SendBuf);
  uint64_t OwnAt = 0; // the root's own slice in the plan's send buffer
  bool PackRoot = IsRoot && L.Packed, PackOwn = !InPlace && !RT.Direct && Own;
  std::vector<int64_t> Cnt = rootCounts(RC, Counts, SendCount);
  std::function<bool()> Pack, Unpack;
  if (IsRoot) {
    for (int I = 0; I < Me; ++I)
      OwnAt += L.Bytes[I];
    if (PackRoot) {
      Pk->Send.resize(L.End);
      Pack = [=] {
        uint64_t At = 0;
        for (int I = 0; I < N; At += L.Bytes[I], ++I)
          if (L.Bytes[I] &&
              !packInto(static_cast<const char *>(SendBuf) + L.UserAt[I],
                        Cnt[I], SendType, Pk->Send.data() + At, L.Bytes[I]))
            return false;
        return true;
      };
      Send = Pk->Send.data();
    } else {
      OwnAt = L.UserAt[Me];
    }
    R.Buffers.Send = Send;
    R.Buffers.SendBytes = L.End;
  }
  void *Recv = RecvBuf;
  if (InPlace) {
    // The root's slice stays in its send buffer: the plan's copy of it
    // into the receive buffer is a copy onto itself (or into the packed
    // copy, dropped afterwards).
    Recv = const_cast<char *>(Send) + OwnAt;
  } else if (PackOwn) {
    Pk->Recv.resize(Own);
    Recv = Pk->Recv.data();
    Unpack = [=] {
      return unpackFrom(Pk->Recv.data(), Own, RecvBuf, RecvCount, RecvType);
    };
  }
  R.Buffers.Recv = Recv;
  R.Buffers.RecvBytes = Own;
  return runPacked(Comm, R, Native, Ln, Pk, Pack, Unpack);
}

/// MPI_Gather, MPI_Gather_c (W: MPICH's own, pmpi/Calls.h).
template <class W, class Cnt>
int gather(const W &F, const void *sendbuf, Cnt sendcount,
           MPI_Datatype sendtype, void *recvbuf, Cnt recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    root, comm);
  };
  if (!intercept())
    return Native();
  return rootedGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                      nullptr, recvtype, root, comm, Native,
                      F.launch(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, comm));
}

/// MPI_Gatherv, MPI_Gatherv_c: recvcounts and displs count at the root only.
template <class W, class Cnt, class Dsp>
int gatherv(const W &F, const void *sendbuf, Cnt sendcount,
            MPI_Datatype sendtype, void *recvbuf, const Cnt *recvcounts,
            const Dsp *displs, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                    recvtype, root, comm);
  };
  if (!intercept())
    return Native();
  int Me = comm != MPI_COMM_NULL ? commRank(comm) : 0;
  if (Me == root && !recvcounts)
    return Native();
  static const int None = 0;
  return rootedGather(sendbuf, sendcount, sendtype, recvbuf, 0,
                      recvcounts ? CountArray(recvcounts) : CountArray(&None),
                      displs, recvtype, root, comm, Native,
                      F.launch(sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, root, comm));
}

/// MPI_Scatter, MPI_Scatter_c.
template <class W, class Cnt>
int scatter(const W &F, const void *sendbuf, Cnt sendcount,
            MPI_Datatype sendtype, void *recvbuf, Cnt recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    root, comm);
  };
  if (!intercept())
    return Native();
  return rootedScatter(sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                       recvcount, recvtype, root, comm, Native,
                       F.launch(sendbuf, sendcount, sendtype, recvbuf,
                                recvcount, recvtype, root, comm));
}

/// MPI_Scatterv, MPI_Scatterv_c: sendcounts and displs count at the root.
template <class W, class Cnt, class Dsp>
int scatterv(const W &F, const void *sendbuf, const Cnt *sendcounts,
             const Dsp *displs, MPI_Datatype sendtype, void *recvbuf,
             Cnt recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                    recvtype, root, comm);
  };
  if (!intercept())
    return Native();
  int Me = comm != MPI_COMM_NULL ? commRank(comm) : 0;
  if (Me == root && !sendcounts)
    return Native();
  static const int None = 0;
  return rootedScatter(
      sendbuf, 0, sendcounts ? CountArray(sendcounts) : CountArray(&None),
      displs, sendtype, recvbuf, recvcount, recvtype, root, comm, Native,
      F.launch(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
               recvtype, root, comm));
}

} // namespace

extern "C" {

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm) {
  return gather(blocking(PMPI_Gather, PMPI_Igather), sendbuf, sendcount,
                sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount,
                 MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather(blocking(PMPI_Gather_c, PMPI_Igather_c), sendbuf, sendcount,
                sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gatherv(blocking(PMPI_Gatherv, PMPI_Igatherv), sendbuf, sendcount,
                 sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}
int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gatherv(blocking(PMPI_Gatherv_c, PMPI_Igatherv_c), sendbuf, sendcount,
                 sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  return scatter(blocking(PMPI_Scatter, PMPI_Iscatter), sendbuf, sendcount,
                 sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter(blocking(PMPI_Scatter_c, PMPI_Iscatter_c), sendbuf, sendcount,
                 sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                 const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  return scatterv(blocking(PMPI_Scatterv, PMPI_Iscatterv), sendbuf, sendcounts,
                  displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                   const MPI_Aint displs[], MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  return scatterv(blocking(PMPI_Scatterv_c, PMPI_Iscatterv_c), sendbuf,
                  sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                  root, comm);
}

// The non-blocking and persistent forms (pmpi/Calls.h, Form).

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm, MPI_Request *request) {
  return gather(started(PMPI_Igather, request), sendbuf, sendcount, sendtype,
                recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request) {
  return gather(persistent(PMPI_Gather_init, PMPI_Igather, info, request),
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                root, comm);
}

int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request) {
  return gather(started(PMPI_Igather_c, request), sendbuf, sendcount, sendtype,
                recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request) {
  return gather(persistent(PMPI_Gather_init_c, PMPI_Igather_c, info, request),
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                root, comm);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request) {
  return gatherv(started(PMPI_Igatherv, request), sendbuf, sendcount, sendtype,
                 recvbuf, recvcounts, displs, recvtype, root, comm);
}
int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request) {
  return gatherv(persistent(PMPI_Gatherv_init, PMPI_Igatherv, info, request),
                 sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                 recvtype, root, comm);
}

int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[],
                   MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request) {
  return gatherv(started(PMPI_Igatherv_c, request), sendbuf, sendcount,
                 sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}
int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request) {
  return gatherv(
      persistent(PMPI_Gatherv_init_c, PMPI_Igatherv_c, info, request), sendbuf,
      sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request) {
  return scatter(started(PMPI_Iscatter, request), sendbuf, sendcount, sendtype,
                 recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request) {
  return scatter(persistent(PMPI_Scatter_init, PMPI_Iscatter, info, request),
                 sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                 root, comm);
}

int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request) {
  return scatter(started(PMPI_Iscatter_c, request), sendbuf, sendcount,
                 sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return scatter(
      persistent(PMPI_Scatter_init_c, PMPI_Iscatter_c, info, request), sendbuf,
      sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request) {
  return scatterv(started(PMPI_Iscatterv, request), sendbuf, sendcounts, displs,
                  sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[],
                      const int displs[], MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return scatterv(persistent(PMPI_Scatterv_init, PMPI_Iscatterv, info, request),
                  sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                  recvtype, root, comm);
}

int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                    const MPI_Aint displs[], MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request) {
  return scatterv(started(PMPI_Iscatterv_c, request), sendbuf, sendcounts,
                  displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                        const MPI_Aint displs[], MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request) {
  return scatterv(
      persistent(PMPI_Scatterv_init_c, PMPI_Iscatterv_c, info, request),
      sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
      comm);
}

} // extern "C"
