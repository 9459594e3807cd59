//===- pmpi/Calls.h - The wrappers' shared call paths -----------*- C++ -*-===//
///
/// \file
/// What the blocking, non-blocking and persistent wrappers of one
/// collective share (pmpi/Wrappers.cpp, pmpi/NonblockingWrappers.cpp): a
/// call's arguments described in bytes and handed to pmpi::run, to run the
/// plan (blocking), start it (MPI_I*: a request the run completes) or find
/// or build it once (MPI_*_init: a persistent request that MPI_Start runs).
/// Counts and displacements are 64-bit here: the classic int forms and the
/// MPI-4 `_c` large-count forms (MPI_Count counts, MPI_Aint displacements)
/// share one path, and each form's wrapper differs only in MPICH's own
/// function it falls back to (Form).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_CALLS_H
#define CHOREO_PMPI_CALLS_H

#include "executor/Yielding.h"
#include "pmpi/Config.h"
#include "pmpi/Library.h"
#include "pmpi/Progress.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mpi.h>
#include <tuple>
#include <type_traits>
#include <vector>

namespace choreo {
namespace pmpi {

/// MPICH's own call with the wrapper's arguments: a reference to the
/// wrapper's lambda, called before the wrapper returns (no copy, no
/// allocation on the hand-over's path).
using NativeFn = llvm::function_ref<int()>;

/// What a wrapper asks of run (Library.h's Mode) and, for a started or
/// persistent call, where its request goes; NativeStart: MPICH's
/// non-blocking call, what a start of a persistent call does when the
/// library hands the call to MPICH after all.
struct Launch {
  Mode Do = Mode::Execute;
  MPI_Request *Out = nullptr;
  std::function<int(MPI_Request *)> NativeStart;
};

/// A call's counts or displacements as the application passes them: int
/// (the classic forms), MPI_Count or MPI_Aint (the `_c` forms); null when
/// the call has none.
class CountArray {
public:
  CountArray() = default;
  CountArray(std::nullptr_t) {}
  template <class T>
  CountArray(const T *P) : P(P), Get(P ? &read<T> : nullptr) {}
  explicit operator bool() const { return P != nullptr; }
  int64_t operator[](size_t I) const { return Get(P, I); }

private:
  template <class T> static int64_t read(const void *P, size_t I) {
    return static_cast<const T *>(P)[I];
  }
  const void *P = nullptr;
  int64_t (*Get)(const void *, size_t) = nullptr;
};

/// Count elements of Size bytes, in bytes: false for a negative count or
/// more than 2^62 bytes (no buffer holds them; MPICH's call says what is
/// wrong).
inline bool bytesOf(int64_t Count, int64_t Size, uint64_t &Bytes) {
  int64_t B = 0;
  if (Count < 0 || Size < 0 || __builtin_mul_overflow(Count, Size, &B) ||
      B > (int64_t(1) << 62))
    return false;
  Bytes = uint64_t(B);
  return true;
}

/// Allgather and allgatherv, intra and inter, blocking, started and
/// persistent. Counts null: allgather (RecvCount per member); else
/// allgatherv (Counts, Displs). An intercommunicator allgatherv exchanges
/// the local group's sizes inside the call (pmpi::run): a started one
/// blocks until both groups made it, a persistent one exchanges once, in
/// MPI_Allgatherv_init.
int gatherCall(MpiCall C, const void *SendBuf, int64_t SendCount,
               MPI_Datatype SendType, void *RecvBuf, int64_t RecvCount,
               CountArray Counts, CountArray Displs, MPI_Datatype RecvType,
               MPI_Comm Comm, const NativeFn &Native, const Launch &L);

/// The four reductions on intracommunicators. Counts null: Count
/// elements; else MPI_Reduce_scatter's recvcounts.
int reduceCall(MpiCall C, const void *SendBuf, void *RecvBuf, int64_t Count,
               CountArray Counts, MPI_Datatype Type, MPI_Op Op, int Root,
               MPI_Comm Comm, const NativeFn &Native, const Launch &L);

/// Runs, starts or prepares R's plan on Comm as L says; MPICH's own call
/// (Native) where the library says native.
int runOrNative(MPI_Comm Comm, Request &R, const NativeFn &Native,
                const Launch &L);

/// A call's packed copies of the user's buffers (pmpi/Datatypes.h), kept
/// alive as long as its run (runPacked's Keep).
struct PackedCopies {
  std::vector<char> Send, Recv;
};

/// runOrNative for a call with packed copies of the user's buffers
/// (pmpi/Datatypes.h): Pack fills them (before a blocking or started run;
/// at every start of a persistent call), Unpack copies the results back
/// (after a blocking run; when a started run completes), Keep holds them as
/// long as the run. Either may be null (nothing to pack or unpack). A
/// buffer that does not pack hands the call to MPICH; results that do not
/// unpack are MPI_ERR_TYPE.
int runPacked(MPI_Comm Comm, Request &R, const NativeFn &Native,
              const Launch &L, std::shared_ptr<void> Keep,
              std::function<bool()> Pack, std::function<bool()> Unpack);

/// MPI_Bcast on an intracommunicator.
int bcastCall(void *Buffer, int64_t Count, MPI_Datatype Type, int Root,
              MPI_Comm Comm, const NativeFn &Native, const Launch &L);

/// MPI_Bcast, MPI_Reduce and MPI_Allreduce on an intercommunicator
/// (pmpi/InterWrappers.cpp; Root MPI_ROOT, MPI_PROC_NULL or the root's rank
/// in the other group): blocking, started and persistent.
int interBcastCall(void *Buffer, int64_t Count, MPI_Datatype Type, int Root,
                   MPI_Comm Comm, const NativeFn &Native, const Launch &L);
int interReduceCall(MpiCall C, const void *SendBuf, void *RecvBuf,
                    uint64_t Bytes, uint64_t ElemBytes, bool Commutes,
                    MPI_Datatype Type, MPI_Op Op, int Root, MPI_Comm Comm,
                    const NativeFn &Native, const Launch &L);

/// Whether the wrappers should describe this call at all (else PMPI).
inline bool intercept() { return !Guard::active() && enabled(); }

/// One form of a call: MPICH's own function of it (MPI_Allreduce,
/// MPI_Iallreduce_c, MPI_Allreduce_init, ...), what the library does with
/// it (run, start or prepare its plan), and for a persistent form its
/// non-blocking function (what a start runs when the library hands the
/// call to MPICH after all) with the info and request arguments.
template <class F, class S = std::nullptr_t, class Y = std::nullptr_t>
struct Form {
  F Pmpi;
  S PmpiStart = nullptr;
  Mode Do = Mode::Execute;
  MPI_Info Info = MPI_INFO_NULL;
  MPI_Request *Req = nullptr;
  /// A blocking form's non-blocking twin (MPI_Ibcast for MPI_Bcast): what
  /// a handed-over call runs and waits on yielding when nativeWaitYields.
  Y PmpiYield = nullptr;

  /// MPICH's call with the wrapper's arguments Args and the form's tail
  /// (none; the request; the info and the request).
  template <class... A> int native(A... Args) const {
    if constexpr (!std::is_same_v<Y, std::nullptr_t>) {
      // The communicator is the last argument of every blocking call.
      if (nativeWaitYields(std::get<sizeof...(A) - 1>(std::tuple(Args...)))) {
        MPI_Request R = MPI_REQUEST_NULL;
        int Rc = PmpiYield(Args..., &R);
        return Rc == MPI_SUCCESS ? yielding::wait(R) : Rc;
      }
    }
    if constexpr (std::is_invocable_v<F, A..., MPI_Info, MPI_Request *>)
      return Pmpi(Args..., Info, Req);
    else if constexpr (std::is_invocable_v<F, A..., MPI_Request *>)
      return Pmpi(Args..., Req);
    else {
      // MPICH's blocking call advances none of the library's runs.
      finishRunsBeforeBlocking();
      return Pmpi(Args...);
    }
  }
  /// What run is asked to do, with the call's arguments Args.
  template <class... A> Launch launch(A... Args) const {
    Launch L{Do, Req, nullptr};
    if constexpr (!std::is_same_v<S, std::nullptr_t>) {
      S Start = PmpiStart;
      L.NativeStart = [=](MPI_Request *R) { return Start(Args..., R); };
    }
    return L;
  }
};
template <class F> Form<F> blocking(F P) { return {P}; }
/// A blocking form that, handed to MPICH, may wait yielding on I.
template <class F, class I>
Form<F, std::nullptr_t, I> blocking(F P, I Started) {
  return {P, nullptr, Mode::Execute, MPI_INFO_NULL, nullptr, Started};
}
template <class F> Form<F> started(F P, MPI_Request *R) {
  return {P, nullptr, Mode::Start, MPI_INFO_NULL, R};
}
template <class F, class S>
Form<F, S> persistent(F P, S Start, MPI_Info Info, MPI_Request *R) {
  return {P, Start, Mode::Prepare, Info, R};
}

// Every form of the seven calls the library serves blocking, started and
// persistent, with int or MPI_Count counts: W is the form, the other
// arguments the call's own.

template <class W, class Cnt>
int allgather(const W &F, const void *sendbuf, Cnt sendcount,
              MPI_Datatype sendtype, void *recvbuf, Cnt recvcount,
              MPI_Datatype recvtype, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    comm);
  };
  if (!intercept())
    return Native();
  return gatherCall(MpiCall::Allgather, sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, nullptr, nullptr, recvtype, comm, Native,
                    F.launch(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, comm));
}

template <class W, class Cnt, class Dsp>
int allgatherv(const W &F, const void *sendbuf, Cnt sendcount,
               MPI_Datatype sendtype, void *recvbuf, const Cnt *recvcounts,
               const Dsp *displs, MPI_Datatype recvtype, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                    recvtype, comm);
  };
  if (!intercept() || !recvcounts || !displs)
    return Native();
  return gatherCall(MpiCall::Allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                    0, recvcounts, displs, recvtype, comm, Native,
                    F.launch(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                             displs, recvtype, comm));
}

template <class W, class Cnt>
int bcast(const W &F, void *buffer, Cnt count, MPI_Datatype datatype, int root,
          MPI_Comm comm) {
  auto Native = [&] { return F.native(buffer, count, datatype, root, comm); };
  if (!intercept() || comm == MPI_COMM_NULL)
    return Native();
  return bcastCall(buffer, count, datatype, root, comm, Native,
                   F.launch(buffer, count, datatype, root, comm));
}

template <class W, class Cnt>
int reduce(const W &F, const void *sendbuf, void *recvbuf, Cnt count,
           MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, recvbuf, count, datatype, op, root, comm);
  };
  if (!intercept())
    return Native();
  return reduceCall(
      MpiCall::Reduce, sendbuf, recvbuf, count, nullptr, datatype, op, root,
      comm, Native,
      F.launch(sendbuf, recvbuf, count, datatype, op, root, comm));
}

template <class W, class Cnt>
int allreduce(const W &F, const void *sendbuf, void *recvbuf, Cnt count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, recvbuf, count, datatype, op, comm);
  };
  if (!intercept())
    return Native();
  return reduceCall(MpiCall::Allreduce, sendbuf, recvbuf, count, nullptr,
                    datatype, op, 0, comm, Native,
                    F.launch(sendbuf, recvbuf, count, datatype, op, comm));
}

template <class W, class Cnt>
int reduceScatter(const W &F, const void *sendbuf, void *recvbuf,
                  const Cnt *recvcounts, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  };
  if (!intercept() || !recvcounts)
    return Native();
  return reduceCall(MpiCall::ReduceScatter, sendbuf, recvbuf, 0, recvcounts,
                    datatype, op, 0, comm, Native,
                    F.launch(sendbuf, recvbuf, recvcounts, datatype, op, comm));
}

template <class W, class Cnt>
int reduceScatterBlock(const W &F, const void *sendbuf, void *recvbuf,
                       Cnt recvcount, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  auto Native = [&] {
    return F.native(sendbuf, recvbuf, recvcount, datatype, op, comm);
  };
  if (!intercept())
    return Native();
  return reduceCall(MpiCall::ReduceScatterBlock, sendbuf, recvbuf, recvcount,
                    nullptr, datatype, op, 0, comm, Native,
                    F.launch(sendbuf, recvbuf, recvcount, datatype, op, comm));
}

} // namespace pmpi
} // namespace choreo

#endif
