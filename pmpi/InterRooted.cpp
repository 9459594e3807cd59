//===- pmpi/InterRooted.cpp - Intercommunicator gather and scatter --------===//
///
/// \file
/// interRootedCall: the root, the members' bytes and the buffers of an
/// intercommunicator MPI_Gather(v) or MPI_Scatter(v); a started call's
/// words travel in its run's first step (pmpi/StartedCounts.h).
///
//===----------------------------------------------------------------------===//

#include "pmpi/InterRooted.h"
#include "pmpi/Datatypes.h"

#include "executor/Agree.h"
#include "executor/Yielding.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <memory>

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

namespace {

/// A side's bytes per element, extent and in-order-ness; false when MPI
/// cannot tell.
struct Typed {
  bool Direct = false;
  int Size = 0;
  MPI_Aint Extent = 0;
};
bool typed(MPI_Datatype T, Typed &I) {
  if (T == MPI_DATATYPE_NULL)
    return false;
  I.Direct = typeInOrder(T, I.Size);
  if (PMPI_Type_size(T, &I.Size) != MPI_SUCCESS || I.Size < 0)
    return false;
  I.Extent = I.Direct ? I.Size : typeExtent(T);
  return I.Extent >= 0;
}

/// What every rank heard: the MPI_MAX over the T merged ranks of their
/// words {root, own bytes, the root's count for each rank}, each word 1 +
/// its value (0: not this rank's to say). Completes A (the root, the
/// members' bytes), or says, alike on every rank, why the call fails.
std::string heardInterRooted(llvm::ArrayRef<uint64_t> All, MpiArgs &A,
                             uint32_t P, uint32_t T, const char *Name) {
  if (All.size() != 1 + 2 * size_t(T))
    return formatv("{0} on an intercommunicator: the exchange of the root "
                   "and sizes failed",
                   Name);
  if (All[0] == 0)
    return formatv("{0} on an intercommunicator: no rank passed MPI_ROOT",
                   Name);
  Rank Root = Rank(All[0] - 1);
  bool RootInA = Root < P;
  A.Root = Root;
  A.SizesA.assign(P, 0);
  A.SizesB.assign(T - P, 0);
  for (uint32_t G = 0; G < T; ++G) {
    if ((G < P) == RootInA)
      continue; // the root's group moves nothing
    int64_t Own = int64_t(All[1 + G]) - 1, Said = int64_t(All[1 + T + G]) - 1;
    if (Own != Said)
      return formatv("{0} on an intercommunicator: the root's count for rank "
                     "{1} of group {2} is {3} bytes, but that rank passes {4}",
                     Name, G < P ? G : G - P, G < P ? "A (low)" : "B (high)",
                     Said, Own);
    (G < P ? A.SizesA[G] : A.SizesB[G - P]) = uint64_t(Own);
  }
  return "";
}

/// The blocking exchange of those words (a persistent call's at its
/// MPI_*_init).
std::string exchangeInterRooted(MPI_Comm Priv, MpiArgs &A,
                                std::vector<uint64_t> Mine, uint32_t P,
                                uint32_t T, const char *Name) {
  std::vector<uint64_t> All(Mine.size());
  if (yielding::allreduce(Mine.data(), All.data(), int(Mine.size()),
                          MPI_UINT64_T, MPI_MAX, Priv) != MPI_SUCCESS)
    return formatv("{0} on an intercommunicator: the exchange of the root "
                   "and sizes failed",
                   Name);
  return heardInterRooted(All, A, P, T, Name);
}

} // namespace

int pmpi::interRootedCall(MpiCall C, RootedSide Own, RootedSide RootSide,
                          int Root, MPI_Comm Comm, const NativeFn &Native,
                          const Launch &Ln) {
  const char *Name = bindingOf(C).MpiName;
  bool Gather = bindingOf(C).Inter == Collective::InterGather;
  std::optional<bool> Low = inLowGroup(Comm);
  if (!Low) {
    noteNative(Comm, Name, "intercommunicator groups outside MPI_COMM_WORLD");
    return Native();
  }
  int Me = 0, Local = 0, Remote = 0;
  PMPI_Comm_rank(Comm, &Me);
  PMPI_Comm_size(Comm, &Local);
  PMPI_Comm_remote_size(Comm, &Remote);
  uint32_t P = *Low ? Local : Remote, T = uint32_t(Local + Remote);
  uint32_t MyBase = *Low ? 0 : P, RemoteBase = *Low ? P : 0;
  bool IsRoot = Root == MPI_ROOT, Idle = Root == MPI_PROC_NULL;
  if (!IsRoot && !Idle && (Root < 0 || Root >= Remote))
    return Native(); // erroneous: let MPICH say so
  if (Own.Buf == MPI_IN_PLACE || RootSide.Buf == MPI_IN_PLACE)
    return Native(); // erroneous on an intercommunicator
  // What this rank says: the root (global), its own bytes (a member), the
  // root's count for each member, each 1 + the value (0: not this rank's).
  std::vector<uint64_t> Mine(1 + 2 * size_t(T), 0);
  Typed OT, RT;
  uint64_t OwnBytes = 0;
  std::vector<uint64_t> Bytes, UserAt; // the root's, per member
  bool InOrder = true;
  uint64_t End = 0;
  if (IsRoot) {
    Mine[0] = 1 + MyBase + Me;
    if (!typed(RootSide.Type, RT) || (RootSide.Counts && !RootSide.Displs))
      return Native();
    uint64_t Plain = 0;
    for (int I = 0; I < Remote; ++I) {
      int64_t Cn = RootSide.Counts ? RootSide.Counts[I] : RootSide.Count;
      int64_t Dp = RootSide.Counts ? RootSide.Displs[I] : I * RootSide.Count;
      uint64_t B = 0, At = 0;
      if (!bytesOf(Cn, RT.Size, B) || !bytesOf(Dp, RT.Extent, At))
        return Native();
      Bytes.push_back(B);
      UserAt.push_back(At);
      InOrder &= At == Plain;
      Plain += B;
      End = std::max(End, At + B);
      Mine[1 + T + RemoteBase + I] = 1 + B;
    }
    // A packed copy in member order: a type not in order, or a scatter
    // root's displacements other than member order.
    if (!RT.Direct || (!Gather && !InOrder))
      End = Plain;
  } else if (!Idle) {
    Mine[0] = 1 + RemoteBase + Root;
    if (!typed(Own.Type, OT) || !bytesOf(Own.Count, OT.Size, OwnBytes))
      return Native();
    Mine[1 + MyBase + Me] = 1 + OwnBytes;
  }
  Guard G;
  Request R;
  R.Args.Call = C;
  R.Args.Inter = true;
  R.Args.SizesA.assign(P, 0);
  R.Args.SizesB.assign(T - P, 0);
  if (Ln.Do == Mode::Start) {
    // A started call: the words travel in its run's first step, combined
    // by MPI_MAX (pmpi/StartedCounts.h), so that the start waits for no
    // other rank.
    R.Said = std::move(Mine);
    R.SaidMax = true;
    R.Heard = [P, T, Name](llvm::ArrayRef<uint64_t> All, MpiArgs &A) {
      return heardInterRooted(All, A, P, T, Name);
    };
  } else {
    R.Exchange = [Mine, P, T, Name](MPI_Comm Priv, MpiArgs &A) {
      return exchangeInterRooted(Priv, A, Mine, P, T, Name);
    };
  }
  auto Pk = std::make_shared<PackedCopies>();
  std::function<bool()> Pack, Unpack;
  if (IsRoot) {
    bool Packed = !RT.Direct || (!Gather && !InOrder);
    std::vector<int64_t> Cnt;
    for (int I = 0; I < Remote; ++I)
      Cnt.push_back(RootSide.Counts ? RootSide.Counts[I] : RootSide.Count);
    char *User = const_cast<char *>(static_cast<const char *>(RootSide.Buf));
    MPI_Datatype Ty = RootSide.Type;
    bool Direct = RT.Direct;
    char *Buf = User;
    if (Packed) {
      Pk->Recv.resize(End);
      Buf = Pk->Recv.data();
      // Member I's bytes at its place in the packed copy and the user's.
      auto Each = [=](bool In) {
        uint64_t At = 0;
        for (size_t I = 0; I < Bytes.size(); At += Bytes[I], ++I) {
          if (!Bytes[I])
            continue;
          char *Pkd = Pk->Recv.data() + At, *Usr = User + UserAt[I];
          bool Ok = Direct ? (In ? std::memcpy(Pkd, Usr, Bytes[I])
                                 : std::memcpy(Usr, Pkd, Bytes[I])) != nullptr
                    : In   ? packInto(Usr, Cnt[I], Ty, Pkd, Bytes[I])
                           : unpackFrom(Pkd, Bytes[I], Usr, Cnt[I], Ty);
          if (!Ok)
            return false;
        }
        return true;
      };
      (Gather ? Unpack : Pack) = [=] { return Each(!Gather); };
    }
    if (Gather) {
      R.Buffers.Recv = Buf;
      R.Buffers.RecvBytes = End;
      if (!Packed && !InOrder)
        R.Buffers.RecvDispls = UserAt;
    } else {
      R.Buffers.Send = Buf;
      R.Buffers.SendBytes = End;
    }
  } else if (!Idle && OwnBytes) {
    char *User = const_cast<char *>(static_cast<const char *>(Own.Buf));
    char *Buf = User;
    if (!OT.Direct) {
      Pk->Send.resize(OwnBytes);
      Buf = Pk->Send.data();
      int64_t Cn = Own.Count;
      MPI_Datatype Ty = Own.Type;
      uint64_t N = OwnBytes;
      if (Gather)
        Pack = [=] { return packInto(User, Cn, Ty, Pk->Send.data(), N); };
      else
        Unpack = [=] { return unpackFrom(Pk->Send.data(), N, User, Cn, Ty); };
    }
    if (Gather) {
      R.Buffers.Send = Buf;
      R.Buffers.SendBytes = OwnBytes;
    } else {
      R.Buffers.Recv = Buf;
      R.Buffers.RecvBytes = OwnBytes;
    }
  }
  return runPacked(Comm, R, Native, Ln, Pk, Pack, Unpack);
}
