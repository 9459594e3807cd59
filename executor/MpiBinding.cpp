//===- executor/MpiBinding.cpp - MPICH's own call for a header ------------===//
///
/// \file
/// A header and a rank's buffers as MPICH's own collective call.
///
//===----------------------------------------------------------------------===//

#include "executor/MpiBinding.h"

#include "ir/PairMatrix.h"

#include "llvm/Support/FormatVariadic.h"

#include <climits>

using namespace choreo;

namespace {

/// The counts and displacements (in bytes) of a group's contributions;
/// zero counts when Zero (a group that contributes nothing).
struct Layout {
  std::vector<int> Counts, Displs;
};
Layout groupLayout(NativeArgs &A, const Group &G, bool Zero) {
  const std::vector<uint64_t> *Sz = A.H.sizes(G.Name);
  Layout L;
  int Off = 0;
  for (size_t I = 0; I < G.Members.size(); ++I) {
    int Cn = Zero || !Sz ? 0 : A.count((*Sz)[I], "a contribution");
    L.Counts.push_back(Cn);
    L.Displs.push_back(Off);
    Off += Cn;
  }
  return L;
}

/// The group whose contributions rank Me receives: the other group on an
/// intercommunicator, else `all`; null (and the error) when an intergroup
/// collective is given an intracommunicator.
const Group *remoteGroup(NativeArgs &A, std::string &Err) {
  int IsInter = 0;
  MPI_Comm_test_inter(A.Comm, &IsInter);
  if (IsInter) {
    const Group *GA = A.H.group("A");
    bool InA = GA && llvm::is_contained(GA->Members, A.Me);
    return A.H.group(InA ? "B" : "A");
  }
  if (specOf(A.H.Kind).Intergroup) {
    Err = "MPICH's collective needs the intercommunicator of A and B";
    return nullptr;
  }
  return A.H.group("all");
}

/// A rooted call's root argument and the group whose slices it gathers or
/// scatters: `all` and the root's rank, or on an intercommunicator the
/// group without the root and MPI_ROOT (the root), MPI_PROC_NULL (the rest
/// of its group) or the root's rank in its group (the other group).
int rootArg(const NativeArgs &A, const Group *&Data) {
  Rank Root = *A.H.Root;
  if (!specOf(A.H.Kind).Intergroup) {
    Data = A.H.group("all");
    return int(Root);
  }
  const Group *GA = A.H.group("A"), *GB = A.H.group("B");
  bool RootInA = llvm::is_contained(GA->Members, Root);
  const Group &Mine = RootInA ? *GA : *GB;
  Data = RootInA ? GB : GA;
  if (A.Me == Root)
    return MPI_ROOT;
  if (llvm::is_contained(Mine.Members, A.Me))
    return MPI_PROC_NULL;
  return int(llvm::find(Mine.Members, Root) - Mine.Members.begin());
}

void *recvPtr(const NativeArgs &A) { return A.B.Recv; }
const void *sendPtr(const NativeArgs &A) { return A.B.Send; }

/// The reductions' element count of Bytes (the datatype's extent).
int elements(NativeArgs &A, uint64_t Bytes, const char *What) {
  MPI_Aint Lb = 0, Ext = 0;
  if (A.B.ReduceType != MPI_DATATYPE_NULL)
    MPI_Type_get_extent(A.B.ReduceType, &Lb, &Ext);
  return Ext > 0 ? A.count(Bytes / uint64_t(Ext), What) : 0;
}

/// The result of a native call: TooLarge first (the call was not made),
/// then MPI's return code.
llvm::Error finish(NativeArgs &A, MpiCall C, int Rc) {
  if (!A.TooLarge.empty())
    return makeDiagError("executor", A.TooLarge);
  if (Rc != MPI_SUCCESS)
    return makeDiagError("mpi",
                         (llvm::Twine(bindingOf(C).MpiName) + " failed").str());
  return llvm::Error::success();
}

llvm::Error allgatherNative(NativeArgs &A, bool V) {
  int SendN = A.count(A.B.SendBytes, "the send buffer");
  std::string Err;
  const Group *Remote = remoteGroup(A, Err);
  if (!Remote)
    return makeDiagError("executor", A.TooLarge.empty() ? Err : A.TooLarge);
  Layout L =
      groupLayout(A, *Remote, !specOf(A.H.Kind).contributes(Remote->Name));
  MpiCall C = V ? MpiCall::Allgatherv : MpiCall::Allgather;
  if (!A.TooLarge.empty())
    return finish(A, C, MPI_SUCCESS);
  int Rc;
  if (!V) {
    int Each = L.Counts.empty() ? 0 : L.Counts[0];
    Rc = A.Req ? MPI_Iallgather(sendPtr(A), SendN, MPI_BYTE, recvPtr(A), Each,
                                MPI_BYTE, A.Comm, A.Req)
               : MPI_Allgather(sendPtr(A), SendN, MPI_BYTE, recvPtr(A), Each,
                               MPI_BYTE, A.Comm);
  } else {
    Rc = A.Req ? MPI_Iallgatherv(sendPtr(A), SendN, MPI_BYTE, recvPtr(A),
                                 L.Counts.data(), L.Displs.data(), MPI_BYTE,
                                 A.Comm, A.Req)
               : MPI_Allgatherv(sendPtr(A), SendN, MPI_BYTE, recvPtr(A),
                                L.Counts.data(), L.Displs.data(), MPI_BYTE,
                                A.Comm);
  }
  return finish(A, C, Rc);
}

llvm::Error gathervNative(NativeArgs &A) {
  int SendN = A.count(A.B.SendBytes, "the send buffer");
  const Group *Data = nullptr;
  int Root = rootArg(A, Data);
  Layout L = groupLayout(A, *Data, false);
  if (!A.TooLarge.empty())
    return finish(A, MpiCall::Gatherv, MPI_SUCCESS);
  int Rc = A.Req ? MPI_Igatherv(sendPtr(A), SendN, MPI_BYTE, recvPtr(A),
                                L.Counts.data(), L.Displs.data(), MPI_BYTE,
                                Root, A.Comm, A.Req)
                 : MPI_Gatherv(sendPtr(A), SendN, MPI_BYTE, recvPtr(A),
                               L.Counts.data(), L.Displs.data(), MPI_BYTE, Root,
                               A.Comm);
  return finish(A, MpiCall::Gatherv, Rc);
}

/// MPI_Gather: the members' bytes alike (the first member's count).
llvm::Error gatherNative(NativeArgs &A) {
  int SendN = A.count(A.B.SendBytes, "the send buffer");
  const Group *Data = nullptr;
  int Root = rootArg(A, Data);
  Layout L = groupLayout(A, *Data, false);
  if (!A.TooLarge.empty())
    return finish(A, MpiCall::Gather, MPI_SUCCESS);
  int Each = L.Counts.empty() ? 0 : L.Counts[0];
  int Rc = A.Req ? MPI_Igather(sendPtr(A), SendN, MPI_BYTE, recvPtr(A), Each,
                               MPI_BYTE, Root, A.Comm, A.Req)
                 : MPI_Gather(sendPtr(A), SendN, MPI_BYTE, recvPtr(A), Each,
                              MPI_BYTE, Root, A.Comm);
  return finish(A, MpiCall::Gather, Rc);
}

/// MPI_Scatter (V false: every member's bytes alike) and MPI_Scatterv: the
/// root's send buffer holds buffer `all`, every member's receive buffer its
/// own slice.
llvm::Error scatterNative(NativeArgs &A, bool V) {
  int RecvN = A.count(A.B.RecvBytes, "the receive buffer");
  const Group *Data = nullptr;
  int Root = rootArg(A, Data);
  Layout L = groupLayout(A, *Data, false);
  MpiCall C = V ? MpiCall::Scatterv : MpiCall::Scatter;
  if (!A.TooLarge.empty())
    return finish(A, C, MPI_SUCCESS);
  int Rc;
  if (!V) {
    int Each = L.Counts.empty() ? 0 : L.Counts[0];
    Rc = A.Req ? MPI_Iscatter(sendPtr(A), Each, MPI_BYTE, recvPtr(A), RecvN,
                              MPI_BYTE, Root, A.Comm, A.Req)
               : MPI_Scatter(sendPtr(A), Each, MPI_BYTE, recvPtr(A), RecvN,
                             MPI_BYTE, Root, A.Comm);
  } else {
    Rc = A.Req ? MPI_Iscatterv(sendPtr(A), L.Counts.data(), L.Displs.data(),
                               MPI_BYTE, recvPtr(A), RecvN, MPI_BYTE, Root,
                               A.Comm, A.Req)
               : MPI_Scatterv(sendPtr(A), L.Counts.data(), L.Displs.data(),
                              MPI_BYTE, recvPtr(A), RecvN, MPI_BYTE, Root,
                              A.Comm);
  }
  return finish(A, C, Rc);
}

/// MPI_Barrier: no buffers.
llvm::Error barrierNative(NativeArgs &A) {
  int Rc = A.Req ? MPI_Ibarrier(A.Comm, A.Req) : MPI_Barrier(A.Comm);
  return finish(A, MpiCall::Barrier, Rc);
}

llvm::Error bcastNative(NativeArgs &A) {
  A.count(A.B.SendBytes, "the send buffer");
  int N = A.count(A.B.RecvBytes, "the broadcast");
  if (!A.TooLarge.empty())
    return finish(A, MpiCall::Bcast, MPI_SUCCESS);
  const Group *Data = nullptr;
  int Root = rootArg(A, Data);
  int Rc = A.Req ? MPI_Ibcast(recvPtr(A), N, MPI_BYTE, Root, A.Comm, A.Req)
                 : MPI_Bcast(recvPtr(A), N, MPI_BYTE, Root, A.Comm);
  return finish(A, MpiCall::Bcast, Rc);
}

/// MPI_Scan and MPI_Exscan: the whole vector of the send buffer.
llvm::Error scanNative(NativeArgs &A, bool Ex) {
  A.count(A.B.SendBytes, "the send buffer");
  int N = elements(A, A.B.SendBytes, "the send buffer");
  MpiCall C = Ex ? MpiCall::Exscan : MpiCall::Scan;
  if (!A.TooLarge.empty())
    return finish(A, C, MPI_SUCCESS);
  MPI_Datatype T = A.B.ReduceType;
  MPI_Op Op = A.B.ReduceOp;
  int Rc;
  // Exscan's rank 0 has no result, but MPICH refuses a null receive buffer
  // (and never writes rank 0's).
  static char Unused[16];
  void *Recv = recvPtr(A) ? recvPtr(A) : Unused;
  if (Ex)
    Rc = A.Req ? MPI_Iexscan(sendPtr(A), Recv, N, T, Op, A.Comm, A.Req)
               : MPI_Exscan(sendPtr(A), Recv, N, T, Op, A.Comm);
  else
    Rc = A.Req ? MPI_Iscan(sendPtr(A), recvPtr(A), N, T, Op, A.Comm, A.Req)
               : MPI_Scan(sendPtr(A), recvPtr(A), N, T, Op, A.Comm);
  return finish(A, C, Rc);
}

/// MPI_Reduce and MPI_Allreduce: the whole vector of the send buffer.
llvm::Error reduceNative(NativeArgs &A, bool All) {
  A.count(A.B.SendBytes, "the send buffer");
  int N = elements(A, A.B.SendBytes, "the send buffer");
  MpiCall C = All ? MpiCall::Allreduce : MpiCall::Reduce;
  if (!A.TooLarge.empty())
    return finish(A, C, MPI_SUCCESS);
  MPI_Datatype T = A.B.ReduceType;
  MPI_Op Op = A.B.ReduceOp;
  const Group *Data = nullptr;
  int Root = All ? 0 : rootArg(A, Data);
  int Rc;
  if (All)
    Rc = A.Req ? MPI_Iallreduce(sendPtr(A), recvPtr(A), N, T, Op, A.Comm, A.Req)
               : MPI_Allreduce(sendPtr(A), recvPtr(A), N, T, Op, A.Comm);
  else
    Rc = A.Req
             ? MPI_Ireduce(sendPtr(A), recvPtr(A), N, T, Op, Root, A.Comm, A.Req)
             : MPI_Reduce(sendPtr(A), recvPtr(A), N, T, Op, Root, A.Comm);
  return finish(A, C, Rc);
}

/// MPI_Reduce_scatter (every rank's slice) and MPI_Reduce_scatter_block
/// (the first slice's count for all).
llvm::Error reduceScatterNative(NativeArgs &A, bool Block) {
  A.count(A.B.SendBytes, "the send buffer");
  std::vector<int> Counts;
  if (const std::vector<uint64_t> *Sl = A.H.sizes("slices"))
    for (uint64_t V : *Sl)
      Counts.push_back(elements(A, V, "a slice"));
  MpiCall C = Block ? MpiCall::ReduceScatterBlock : MpiCall::ReduceScatter;
  if (!A.TooLarge.empty())
    return finish(A, C, MPI_SUCCESS);
  MPI_Datatype T = A.B.ReduceType;
  MPI_Op Op = A.B.ReduceOp;
  int Rc;
  if (Block) {
    int Each = Counts.empty() ? 0 : Counts[0];
    Rc = A.Req ? MPI_Ireduce_scatter_block(sendPtr(A), recvPtr(A), Each, T, Op,
                                           A.Comm, A.Req)
               : MPI_Reduce_scatter_block(sendPtr(A), recvPtr(A), Each, T, Op,
                                          A.Comm);
  } else {
    Rc = A.Req ? MPI_Ireduce_scatter(sendPtr(A), recvPtr(A), Counts.data(), T,
                                     Op, A.Comm, A.Req)
               : MPI_Reduce_scatter(sendPtr(A), recvPtr(A), Counts.data(), T,
                                    Op, A.Comm);
  }
  return finish(A, C, Rc);
}

/// MPI_Alltoall (every block alike, no displacements) and MPI_Alltoallv:
/// rank Me's row from the send buffer, its column into the receive buffer,
/// at the buffers' displacements or packed in rank order.
llvm::Error alltoallNative(NativeArgs &A, bool V) {
  PairMatrix M(A.H);
  Rank P = M.ranks();
  V |= !A.B.SendDispls.empty() || !A.B.RecvDispls.empty();
  // The ranks Me exchanges with: every rank, or the other group's.
  std::vector<Rank> Peers;
  std::string Err;
  if (specOf(A.H.Kind).Intergroup) {
    const Group *Remote = remoteGroup(A, Err);
    if (!Remote)
      return makeDiagError("executor", Err);
    Peers = Remote->Members;
  } else {
    for (Rank J = 0; J < P; ++J)
      Peers.push_back(J);
  }
  std::vector<int> SC, SD, RC, RD;
  uint64_t SendAt = 0, RecvAt = 0;
  for (Rank J : Peers) {
    SC.push_back(A.count(M.size(A.Me, J), "a block"));
    SD.push_back(A.count(A.B.SendDispls.empty() ? SendAt : A.B.SendDispls[J],
                         "a send displacement"));
    SendAt += M.size(A.Me, J);
    RC.push_back(A.count(M.size(J, A.Me), "a block"));
    RD.push_back(A.count(A.B.RecvDispls.empty() ? RecvAt : A.B.RecvDispls[J],
                         "a receive displacement"));
    RecvAt += M.size(J, A.Me);
  }
  MpiCall C = V ? MpiCall::Alltoallv : MpiCall::Alltoall;
  if (!A.TooLarge.empty() || P == 0)
    return finish(A, C, MPI_SUCCESS);
  int Rc;
  if (!V)
    Rc = A.Req ? MPI_Ialltoall(sendPtr(A), SC[0], MPI_BYTE, recvPtr(A), RC[0],
                               MPI_BYTE, A.Comm, A.Req)
               : MPI_Alltoall(sendPtr(A), SC[0], MPI_BYTE, recvPtr(A), RC[0],
                              MPI_BYTE, A.Comm);
  else
    Rc = A.Req ? MPI_Ialltoallv(sendPtr(A), SC.data(), SD.data(), MPI_BYTE,
                                recvPtr(A), RC.data(), RD.data(), MPI_BYTE,
                                A.Comm, A.Req)
               : MPI_Alltoallv(sendPtr(A), SC.data(), SD.data(), MPI_BYTE,
                               recvPtr(A), RC.data(), RD.data(), MPI_BYTE,
                               A.Comm);
  return finish(A, C, Rc);
}

} // namespace

int NativeArgs::count(uint64_t V, const char *What) {
  if (V <= INT_MAX)
    return static_cast<int>(V);
  if (TooLarge.empty())
    TooLarge = std::string(What) + " exceeds INT_MAX bytes";
  return 0;
}

llvm::Error choreo::callNative(const CallHeader &H, MPI_Comm Comm, Rank Me,
                               const UserBuffers &B, MPI_Request *Req) {
  NativeArgs A{H, Comm, Me, B, Req, {}};
  switch (nativeCall(H)) {
  case MpiCall::Allgather:
    return allgatherNative(A, false);
  case MpiCall::Allgatherv:
    return allgatherNative(A, true);
  case MpiCall::Gatherv:
    return gathervNative(A);
  case MpiCall::Bcast:
    return bcastNative(A);
  case MpiCall::Reduce:
    return reduceNative(A, false);
  case MpiCall::Allreduce:
    return reduceNative(A, true);
  case MpiCall::ReduceScatter:
    return reduceScatterNative(A, false);
  case MpiCall::ReduceScatterBlock:
    return reduceScatterNative(A, true);
  case MpiCall::Alltoall:
    return alltoallNative(A, false);
  case MpiCall::Alltoallv:
    return alltoallNative(A, true);
  case MpiCall::Gather:
    return gatherNative(A);
  case MpiCall::Scatter:
    return scatterNative(A, false);
  case MpiCall::Scatterv:
    return scatterNative(A, true);
  case MpiCall::Barrier:
    return barrierNative(A);
  case MpiCall::Scan:
    return scanNative(A, false);
  case MpiCall::Exscan:
    return scanNative(A, true);
  }
  return makeDiagError("executor", "no native call for this collective");
}
