//===- pmpi/Wrappers.cpp - The MPI_* functions libchoreo-mpi.so defines ---===//
///
/// \file
/// MPI_Allgather, MPI_Allgatherv (intra- and intercommunicators) and
/// MPI_Bcast (intracommunicators) describe the call (a CallShape and this
/// rank's buffers) and hand it to pmpi::run; what the library does not run
/// goes to PMPI_* unchanged: non-contiguous datatypes, intercommunicator
/// broadcasts, groups outside MPI_COMM_WORLD, the reductions (not wired in
/// yet), the large-count `_c` variants. MPI_Finalize frees the
/// library's state first. Debian's libmpich.so.12 defines MPI_* as weak
/// symbols over PMPI_*, so these take their place under LD_PRELOAD or when
/// linked before -lmpich, for C and Fortran callers alike.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Library.h"

#include <cstring>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// Whether the wrappers should describe this call at all (else PMPI).
bool intercept() { return !Guard::active() && enabled(); }

bool interOk(MPI_Comm Comm, bool &Inter) {
  int I = 0;
  PMPI_Comm_test_inter(Comm, &I);
  Inter = I;
  if (!Inter)
    return true;
  // The library merges the groups with A, the low group, first; it must
  // tell which is which.
  MPI_Group Local, Remote, World;
  PMPI_Comm_group(Comm, &Local);
  PMPI_Comm_remote_group(Comm, &Remote);
  PMPI_Comm_group(MPI_COMM_WORLD, &World);
  int Zero = 0, L = MPI_UNDEFINED, R = MPI_UNDEFINED;
  PMPI_Group_translate_ranks(Local, 1, &Zero, World, &L);
  PMPI_Group_translate_ranks(Remote, 1, &Zero, World, &R);
  PMPI_Group_free(&Local);
  PMPI_Group_free(&Remote);
  PMPI_Group_free(&World);
  return L != MPI_UNDEFINED && R != MPI_UNDEFINED;
}

bool isLow(MPI_Comm Inter) {
  MPI_Group Local, Remote, World;
  PMPI_Comm_group(Inter, &Local);
  PMPI_Comm_remote_group(Inter, &Remote);
  PMPI_Comm_group(MPI_COMM_WORLD, &World);
  int Zero = 0, L = 0, R = 0;
  PMPI_Group_translate_ranks(Local, 1, &Zero, World, &L);
  PMPI_Group_translate_ranks(Remote, 1, &Zero, World, &R);
  PMPI_Group_free(&Local);
  PMPI_Group_free(&Remote);
  PMPI_Group_free(&World);
  return L < R;
}

/// Allgather and allgatherv, intra and inter. Counts == null: allgather
/// (RecvCount per member); else allgatherv (Counts, Displs).
template <typename NativeFn>
int gatherCall(Coll C, const void *SendBuf, int SendCount,
               MPI_Datatype SendType, void *RecvBuf, int RecvCount,
               const int *Counts, const int *Displs, MPI_Datatype RecvType,
               MPI_Comm Comm, NativeFn Native) {
  const char *Name = mpiName(C);
  bool InPlace = SendBuf == MPI_IN_PLACE;
  bool Inter;
  if (Comm == MPI_COMM_NULL)
    return Native(); // erroneous: let MPICH say so
  if (!interOk(Comm, Inter)) {
    noteNative(Comm, Name, "intercommunicator groups outside MPI_COMM_WORLD");
    return Native();
  }
  if (Inter && InPlace)
    return Native(); // erroneous in MPI: let MPICH say so
  int SendSize = 0, RecvSize = 0;
  if ((!InPlace && !contiguous(SendType, SendSize)) ||
      !contiguous(RecvType, RecvSize)) {
    noteNative(Comm, Name, "a non-contiguous datatype");
    return Native();
  }
  if (SendCount < 0 || RecvCount < 0)
    return Native();
  Guard G;
  int Me, N, Remote = 0;
  PMPI_Comm_rank(Comm, &Me);
  PMPI_Comm_size(Comm, &N);
  if (Inter)
    PMPI_Comm_remote_size(Comm, &Remote);
  int Members = Inter ? Remote : N; // members whose data Recv holds
  std::vector<uint64_t> RecvBytes(Members);
  std::vector<uint64_t> DisplBytes;
  uint64_t RecvEnd = 0;
  for (int I = 0; I < Members; ++I) {
    int Cnt = Counts ? Counts[I] : RecvCount;
    if (Cnt < 0)
      return Native();
    RecvBytes[I] = uint64_t(Cnt) * RecvSize;
    uint64_t At =
        Counts ? uint64_t(Displs[I]) * RecvSize : uint64_t(I) * RecvBytes[I];
    if (Counts && Displs[I] < 0)
      return Native();
    if (Counts)
      DisplBytes.push_back(At);
    RecvEnd = std::max(RecvEnd, At + RecvBytes[I]);
  }
  // Contiguous in member order needs no displacements.
  if (Counts) {
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
  R.Shape.C = C;
  R.Shape.Inter = Inter;
  R.Shape.InPlace = InPlace;
  uint64_t Own = InPlace ? RecvBytes[Me] : uint64_t(SendCount) * SendSize;
  if (!Inter) {
    // MPI requires the send and receive signatures to match; a send buffer
    // shorter than the rank's share is refused when the plan is made.
    R.Shape.SizesA = RecvBytes;
  } else {
    bool Low = isLow(Comm);
    std::vector<uint64_t> Mine(N, Own);
    R.Shape.SizesA = Low ? Mine : RecvBytes;
    R.Shape.SizesB = Low ? RecvBytes : Mine;
    if (Counts) {
      // Only the remote members' sizes are known here: run exchanges them.
      R.ExchangeSizes = true;
      R.LocalBytes = Own;
      R.RemoteBytes = RecvBytes;
    }
  }
  uint64_t Total = R.Shape.totalBytes();
  if (!R.ExchangeSizes && Total == 0)
    return MPI_SUCCESS;
  char *Recv = static_cast<char *>(RecvBuf);
  R.Buffers.Send = InPlace ? Recv + (Counts ? uint64_t(Displs[Me]) * RecvSize
                                            : uint64_t(Me) * RecvBytes[Me])
                           : SendBuf;
  R.Buffers.SendBytes = Own;
  R.Buffers.Recv = Recv;
  R.Buffers.RecvBytes = RecvEnd;
  R.Buffers.RecvDispls = DisplBytes;
  int Rc = MPI_SUCCESS;
  switch (run(Comm, R, Rc)) {
  case Outcome::Ran:
  case Outcome::Failed:
    return Rc;
  case Outcome::Native:
    break;
  }
  return Native();
}

} // namespace

extern "C" {

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm) {
  auto Native = [&] {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, comm);
  };
  if (!intercept())
    return Native();
  return gatherCall(Coll::Allgather, sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, nullptr, nullptr, recvtype, comm, Native);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, MPI_Comm comm) {
  auto Native = [&] {
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                           displs, recvtype, comm);
  };
  if (!intercept() || !recvcounts || !displs)
    return Native();
  return gatherCall(Coll::Allgatherv, sendbuf, sendcount, sendtype, recvbuf, 0,
                    recvcounts, displs, recvtype, comm, Native);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm) {
  if (!intercept() || comm == MPI_COMM_NULL)
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  int Inter = 0, Size = 0, N = 0;
  PMPI_Comm_test_inter(comm, &Inter);
  if (Inter) {
    noteNative(comm, "MPI_Bcast", "an intercommunicator (no generator)");
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  }
  if (!contiguous(datatype, Size)) {
    noteNative(comm, "MPI_Bcast", "a non-contiguous datatype");
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  }
  PMPI_Comm_size(comm, &N);
  if (count < 0 || root < 0 || root >= N)
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  uint64_t Bytes = uint64_t(count) * Size;
  if (Bytes == 0)
    return MPI_SUCCESS;
  Guard G;
  Request R;
  R.Shape.C = Coll::Bcast;
  R.Shape.SizesA.assign(N, 0);
  R.Shape.SizesA[0] = Bytes;
  R.Shape.Root = root;
  R.Buffers.Recv = buffer;
  R.Buffers.RecvBytes = Bytes;
  int Rc = MPI_SUCCESS;
  if (run(comm, R, Rc) != Outcome::Native)
    return Rc;
  return PMPI_Bcast(buffer, count, datatype, root, comm);
}

// The reductions: MPICH runs them until the reduction generators are wired
// in (docs/pmpi.md). They are defined here so that the library's list of
// intercepted calls is complete and CHOREO_VERBOSE can say so.
static const char *const NotWired =
    "reductions are not wired into the library yet";

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  if (intercept())
    noteNative(comm, "MPI_Reduce", NotWired);
  return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (intercept())
    noteNative(comm, "MPI_Allreduce", NotWired);
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                       const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  if (intercept())
    noteNative(comm, "MPI_Reduce_scatter", NotWired);
  return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (intercept())
    noteNative(comm, "MPI_Reduce_scatter_block", NotWired);
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                   comm);
}

// Large-count variants: passed to MPICH unchanged.

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, comm);
}

int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[],
                     MPI_Datatype recvtype, MPI_Comm comm) {
  return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                           displs, recvtype, comm);
}

int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                MPI_Comm comm) {
  return PMPI_Bcast_c(buffer, count, datatype, root, comm);
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  return PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
                         const MPI_Count recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op,
                               comm);
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm) {
  return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op,
                                     comm);
}

int MPI_Finalize(void) {
  if (!Guard::active())
    shutdown();
  return PMPI_Finalize();
}

} // extern "C"
