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
/// Intercommunicators go to PMPI_*. The `_c` (MPI_Count) forms take the
/// same path.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Calls.h"
#include "pmpi/Datatypes.h"

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
  if (PMPI_Type_size(T, &I.Size) != MPI_SUCCESS)
    I.Size = -1;
  I.Extent = I.Direct ? I.Size : typeExtent(T);
  return I;
}

/// Whether the call can be described at all; else PMPI with a note.
bool describable(MPI_Comm Comm, const char *Name, int Root, int &N, int &Me) {
  int Inter = 0;
  PMPI_Comm_test_inter(Comm, &Inter);
  if (Inter) {
    noteNative(Comm, Name, "an intercommunicator (no generator)");
    return false;
  }
  PMPI_Comm_size(Comm, &N);
  PMPI_Comm_rank(Comm, &Me);
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
  if (Comm == MPI_COMM_NULL ||
      !describable(Comm, bindingOf(C).MpiName, Root, R.N, R.Me))
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

/// Runs R; Native() when the library says so.
int runRequest(MPI_Comm Comm, Request &R, const NativeFn &Native, bool &Ran) {
  int Rc = MPI_SUCCESS;
  Ran = false;
  switch (run(Comm, R, Rc)) {
  case Outcome::Failed:
    return Rc;
  case Outcome::Native:
    return Native();
  case Outcome::Ran:
    Ran = true;
    break;
  }
  return Rc;
}

/// MPI_Gather (Counts null: RecvCount from every member) and MPI_Gatherv.
int rootedGather(const void *SendBuf, int64_t SendCount, MPI_Datatype SendType,
                 void *RecvBuf, int64_t RecvCount, CountArray Counts,
                 CountArray Displs, MPI_Datatype RecvType, int Root,
                 MPI_Comm Comm, const NativeFn &Native) {
  MpiCall C = Counts ? MpiCall::Gatherv : MpiCall::Gather;
  RootedCall RC;
  if (!rootedCall(C, Comm, Root, SendBuf == MPI_IN_PLACE, SendCount, SendType,
                  RecvCount, Counts, Displs, RecvType, RC))
    return Native();
  const int N = RC.N, Me = RC.Me;
  const bool IsRoot = RC.IsRoot, InPlace = RC.InPlace;
  const TypeInfo &ST = RC.Own, &RT = RC.RootSide;
  RootLayout &L = RC.L;
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
      return MPI_SUCCESS;
  }
  std::vector<char> PackedSend, PackedRecv;
  char *Recv = static_cast<char *>(RecvBuf);
  uint64_t OwnAt = 0; // the root's own bytes in the packed copy
  if (IsRoot && L.Packed) {
    PackedRecv.resize(L.End);
    for (int I = 0; I < Me; ++I)
      OwnAt += L.Bytes[I];
    if (InPlace &&
        !packInto(Recv + L.UserAt[Me], Counts ? Counts[Me] : RecvCount,
                  RecvType, PackedRecv.data() + OwnAt, L.Bytes[Me]))
      return Native();
    Recv = PackedRecv.data();
  }
  if (!InPlace && !ST.Direct && Own) {
    PackedSend.resize(Own);
    if (!packInto(SendBuf, SendCount, SendType, PackedSend.data(), Own))
      return Native();
  }
  R.Buffers.Send = InPlace ? Recv + (L.Packed ? OwnAt : L.UserAt[Me])
                   : ST.Direct || !Own ? SendBuf
                                       : PackedSend.data();
  R.Buffers.SendBytes = Own;
  if (IsRoot) {
    R.Buffers.Recv = Recv;
    R.Buffers.RecvBytes = L.End;
    R.Buffers.RecvDispls = L.Displs;
  }
  bool Ran = false;
  int Rc = runRequest(Comm, R, Native, Ran);
  if (!Ran || !IsRoot || !L.Packed)
    return Rc;
  uint64_t At = 0;
  for (int I = 0; I < N; At += L.Bytes[I], ++I)
    if (!unpackFrom(PackedRecv.data() + At, L.Bytes[I],
                    static_cast<char *>(RecvBuf) + L.UserAt[I],
                    Counts ? Counts[I] : RecvCount, RecvType))
      return MPI_ERR_TYPE;
  return Rc;
}

/// MPI_Scatter (Counts null: SendCount to every member) and MPI_Scatterv.
int rootedScatter(const void *SendBuf, int64_t SendCount, CountArray Counts,
                  CountArray Displs, MPI_Datatype SendType, void *RecvBuf,
                  int64_t RecvCount, MPI_Datatype RecvType, int Root,
                  MPI_Comm Comm, const NativeFn &Native) {
  MpiCall C = Counts ? MpiCall::Scatterv : MpiCall::Scatter;
  RootedCall RC;
  if (!rootedCall(C, Comm, Root, RecvBuf == MPI_IN_PLACE, RecvCount, RecvType,
                  SendCount, Counts, Displs, SendType, RC))
    return Native();
  const int N = RC.N, Me = RC.Me;
  const bool IsRoot = RC.IsRoot, InPlace = RC.InPlace;
  const TypeInfo &RT = RC.Own, &ST = RC.RootSide;
  RootLayout &L = RC.L;
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
      return MPI_SUCCESS;
  }
  std::vector<char> PackedSend, PackedRecv;
  const char *Send = static_cast<const char *>(SendBuf);
  uint64_t OwnAt = 0; // the root's own slice in the plan's send buffer
  if (IsRoot) {
    for (int I = 0; I < Me; ++I)
      OwnAt += L.Bytes[I];
    if (L.Packed) {
      PackedSend.resize(L.End);
      uint64_t At = 0;
      for (int I = 0; I < N; At += L.Bytes[I], ++I)
        if (L.Bytes[I] &&
            !packInto(Send + L.UserAt[I], Counts ? Counts[I] : SendCount,
                      SendType, PackedSend.data() + At, L.Bytes[I]))
          return Native();
      Send = PackedSend.data();
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
  } else if (!RT.Direct && Own) {
    PackedRecv.resize(Own);
    Recv = PackedRecv.data();
  }
  R.Buffers.Recv = Recv;
  R.Buffers.RecvBytes = Own;
  bool Ran = false;
  int Rc = runRequest(Comm, R, Native, Ran);
  if (Ran && !InPlace && !RT.Direct && Own &&
      !unpackFrom(PackedRecv.data(), Own, RecvBuf, RecvCount, RecvType))
    return MPI_ERR_TYPE;
  return Rc;
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
                      nullptr, recvtype, root, comm, Native);
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
  int Me = 0;
  if (comm != MPI_COMM_NULL)
    PMPI_Comm_rank(comm, &Me);
  if (Me == root && !recvcounts)
    return Native();
  static const int None = 0;
  return rootedGather(sendbuf, sendcount, sendtype, recvbuf, 0,
                      recvcounts ? CountArray(recvcounts) : CountArray(&None),
                      displs, recvtype, root, comm, Native);
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
                       recvcount, recvtype, root, comm, Native);
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
  int Me = 0;
  if (comm != MPI_COMM_NULL)
    PMPI_Comm_rank(comm, &Me);
  if (Me == root && !sendcounts)
    return Native();
  static const int None = 0;
  return rootedScatter(
      sendbuf, 0, sendcounts ? CountArray(sendcounts) : CountArray(&None),
      displs, sendtype, recvbuf, recvcount, recvtype, root, comm, Native);
}

} // namespace

extern "C" {

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm) {
  return gather(blocking(PMPI_Gather), sendbuf, sendcount, sendtype, recvbuf,
                recvcount, recvtype, root, comm);
}
int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount,
                 MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather(blocking(PMPI_Gather_c), sendbuf, sendcount, sendtype, recvbuf,
                recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gatherv(blocking(PMPI_Gatherv), sendbuf, sendcount, sendtype, recvbuf,
                 recvcounts, displs, recvtype, root, comm);
}
int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gatherv(blocking(PMPI_Gatherv_c), sendbuf, sendcount, sendtype,
                 recvbuf, recvcounts, displs, recvtype, root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  return scatter(blocking(PMPI_Scatter), sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, root, comm);
}
int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter(blocking(PMPI_Scatter_c), sendbuf, sendcount, sendtype,
                 recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                 const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  return scatterv(blocking(PMPI_Scatterv), sendbuf, sendcounts, displs,
                  sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                   const MPI_Aint displs[], MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  return scatterv(blocking(PMPI_Scatterv_c), sendbuf, sendcounts, displs,
                  sendtype, recvbuf, recvcount, recvtype, root, comm);
}

} // extern "C"
