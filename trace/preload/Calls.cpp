//===- trace/preload/Calls.cpp - The traced MPI collective calls --------===//
///
/// \file
/// PMPI wrappers of the collectives a trace can record (MPI_Bcast,
/// MPI_Gather, MPI_Allgather, MPI_Allgatherv, MPI_Reduce, MPI_Allreduce,
/// MPI_Reduce_scatter, MPI_Reduce_scatter_block; the rest in
/// ExchangeCalls.cpp; MPI_Finalize frees what the traced call made).
/// The call the environment names (CHOREO_TRACE_CALL, its
/// CHOREO_TRACE_INDEX-th occurrence) runs once on content-tagged buffers of
/// the same byte sizes (trace/Encoding.h) inside the recording window, by
/// MPICH (PMPI) or by the implementation CHOREO_TRACE_IMPL=LIB:SYMBOL names
/// (a function with the MPI call's signature), then once more on the
/// program's own buffers by MPICH, so the program goes on with MPI's
/// answer. Every other call passes straight to PMPI.
///
//===----------------------------------------------------------------------===//

#include "trace/preload/Calls.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace choreo::trace;

namespace {

struct Config {
  const char *Dir = getenv("CHOREO_TRACE_DIR");
  std::string Call = getenv("CHOREO_TRACE_CALL") ?: "";
  uint64_t Index = strtoull(getenv("CHOREO_TRACE_INDEX") ?: "0", nullptr, 10);
  std::string Impl = getenv("CHOREO_TRACE_IMPL") ?: "";
  std::string Encoding = getenv("CHOREO_TRACE_ENCODING") ?: "auto";
};

const Config &config() {
  static Config C;
  return C;
}

uint64_t Seen = 0;

} // namespace

bool &choreo::trace::insideTracedCall() {
  static bool Inside = false;
  return Inside;
}

bool choreo::trace::traceThis(const char *Coll) {
  const Config &C = config();
  if (insideTracedCall() || !C.Dir || C.Call != Coll)
    return false;
  return Seen++ == C.Index;
}

void *choreo::trace::implSymbol(std::string &Name) {
  const std::string &Spec = config().Impl;
  Name = "mpich";
  if (Spec.empty())
    return nullptr;
  size_t Colon = Spec.rfind(':');
  if (Colon == std::string::npos) {
    recordRefusal("CHOREO_TRACE_IMPL=" + Spec + " is not LIB:SYMBOL");
    return nullptr;
  }
  std::string Lib = Spec.substr(0, Colon), Sym = Spec.substr(Colon + 1);
  void *H = dlopen(Lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  void *F = H ? dlsym(H, Sym.c_str()) : nullptr;
  if (!F) {
    const char *Err = dlerror();
    recordRefusal("cannot load " + Spec + ": " + (Err ? Err : "not found"));
    return nullptr;
  }
  size_t Slash = Lib.rfind('/');
  Name = (Slash == std::string::npos ? Lib : Lib.substr(Slash + 1)) + ":" + Sym;
  return F;
}

int choreo::trace::worldRank() {
  int R = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &R);
  return R;
}

std::string choreo::trace::callHeader(const char *Coll, MPI_Comm Comm, int Root,
                                      const std::string &Impl) {
  int Size = 0, Me = 0;
  PMPI_Comm_size(Comm, &Size);
  PMPI_Comm_rank(Comm, &Me);
  MPI_Group G, W;
  PMPI_Comm_group(Comm, &G);
  PMPI_Comm_group(MPI_COMM_WORLD, &W);
  std::vector<int> Local(Size), World(Size);
  for (int I = 0; I < Size; ++I)
    Local[I] = I;
  PMPI_Group_translate_ranks(G, Size, Local.data(), W, World.data());
  PMPI_Group_free(&G);
  PMPI_Group_free(&W);
  std::string H = "call " + std::string(Coll) + " " + std::to_string(Size) +
                  " " + std::to_string(Me) + " " +
                  (Root < 0 ? "-" : std::to_string(Root)) + "\nmembers";
  for (int X : World)
    H.append(" ").append(std::to_string(X));
  return H.append("\nimpl ").append(Impl).append("\n");
}

std::string choreo::trace::sizesLine(const std::vector<uint64_t> &Sizes,
                                     unsigned Unit) {
  std::string L = "sizes";
  for (uint64_t S : Sizes)
    L.append(" ").append(std::to_string(S));
  return L.append("\nunit ").append(std::to_string(Unit)).append("\n");
}

uint64_t choreo::trace::typeBytes(MPI_Datatype T, MPI_Aint Count) {
  int Size = 0;
  PMPI_Type_size(T, &Size);
  return uint64_t(Size) * uint64_t(Count);
}

namespace {

//===-- Reductions --------------------------------------------------------===//

bool builtinOp(MPI_Op Op) {
  for (MPI_Op B :
       {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
        MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC})
    if (Op == B)
      return true;
  return false;
}

void orderedFn(void *In, void *InOut, int *Len, MPI_Datatype *) {
  uint64_t *A = static_cast<uint64_t *>(In),
           *B = static_cast<uint64_t *>(InOut);
  for (int I = 0; I < *Len; ++I)
    orderedCombine(A + OrderedWords * I, B + OrderedWords * I);
}

/// The ordered operator's element type and operator, made once.
MPI_Datatype OrderedType = MPI_DATATYPE_NULL;
MPI_Op OrderedOp = MPI_OP_NULL;

/// The traced form of a reduction: its encoding, datatype, operator and
/// buffers.
struct TracedReduction {
  std::string Encoding;
  MPI_Datatype Type = MPI_UINT64_T;
  MPI_Op Op = MPI_BOR;
  uint64_t ElemBytes = 8, Count = 0;
  std::vector<uint64_t> Send, Recv;
  std::string Header;
  bool Ok = true;
};

/// CHOREO_TRACE_ENCODING (or, sum, ordered), or by the program's operator: a
/// built-in one traces as a sum (bitwise-or beyond 16 ranks), a user's as
/// the ordered operator.
std::string encodingFor(MPI_Op UserOp, int Size) {
  const std::string &Mode = config().Encoding;
  if (Mode == "or" || Mode == "sum" || Mode == "ordered")
    return Mode;
  if (!builtinOp(UserOp))
    return "ordered";
  return Size <= int(MaxSumRanks) ? "sum" : "or";
}

TracedReduction prepareReduction(const char *Coll, MPI_Comm Comm, int Root,
                                 uint64_t Bytes, MPI_Op UserOp,
                                 const std::string &Impl) {
  TracedReduction T;
  int Size = 0, Me = 0;
  PMPI_Comm_size(Comm, &Size);
  PMPI_Comm_rank(Comm, &Me);
  T.Encoding = encodingFor(UserOp, Size);
  unsigned MaxRanks = MaxOrRanks;
  uint64_t MaxCount = MaxElements;
  if (T.Encoding == "ordered") {
    if (OrderedType == MPI_DATATYPE_NULL) {
      PMPI_Type_contiguous(OrderedWords, MPI_UINT64_T, &OrderedType);
      PMPI_Type_commit(&OrderedType);
      PMPI_Op_create(orderedFn, 0, &OrderedOp);
    }
    T.Type = OrderedType;
    T.Op = OrderedOp;
    T.ElemBytes = 8 * OrderedWords;
    MaxRanks = MaxOrderedRanks;
  } else if (T.Encoding == "sum") {
    T.Op = MPI_SUM;
    MaxRanks = MaxSumRanks;
    MaxCount = MaxSumElements;
  }
  T.Header = callHeader(Coll, Comm, Root, Impl) + "vector " +
             std::to_string(Bytes) + "\nop " + T.Encoding + " " +
             std::to_string(T.ElemBytes) + "\n";
  if (unsigned(Size) > MaxRanks) {
    recordRefusal(std::to_string(Size) + " ranks: the " + T.Encoding +
                  " encoding names at most " + std::to_string(MaxRanks) +
                  " contributors");
    T.Ok = false;
  } else if (Bytes % T.ElemBytes || Bytes / T.ElemBytes > MaxCount) {
    recordRefusal("a vector of " + std::to_string(Bytes) + " bytes: the " +
                  T.Encoding + " encoding needs a multiple of " +
                  std::to_string(T.ElemBytes) + " bytes, at most " +
                  std::to_string(MaxCount) + " elements");
    T.Ok = false;
  }
  if (!T.Ok)
    return T;
  T.Count = Bytes / T.ElemBytes;
  bool Ordered = T.Encoding == "ordered";
  uint64_t Words = T.Count * (Ordered ? OrderedWords : 1);
  T.Send.resize(Words);
  T.Recv.assign(Words, ~uint64_t(0));
  for (uint64_t I = 0; I < T.Count; ++I) {
    if (Ordered)
      orderedElement(Me, I, &T.Send[OrderedWords * I]);
    else if (T.Encoding == "sum")
      T.Send[I] = sumElement(Me, I);
    else
      T.Send[I] = orElement(Me, I);
  }
  return T;
}

/// MPI_Reduce_scatter and MPI_Reduce_scatter_block: the slices in bytes
/// (each a whole number of the encoding's elements), Me's result its slice.
int tracedReduceScatter(const void *SBuf, void *RBuf, const int *RCounts,
                        int BlockCount, MPI_Datatype Type, MPI_Op Op,
                        MPI_Comm Comm, const std::function<int()> &Plain) {
  std::string Impl;
  void *F = implSymbol(Impl);
  int Size = 0, Me = 0;
  PMPI_Comm_size(Comm, &Size);
  PMPI_Comm_rank(Comm, &Me);
  std::vector<uint64_t> Slices(Size);
  uint64_t N = 0;
  for (int I = 0; I < Size; ++I)
    N += Slices[I] = typeBytes(Type, RCounts ? RCounts[I] : BlockCount);
  TracedReduction T = prepareReduction("reduce_scatter", Comm, -1, N, Op, Impl);
  std::string L = "slices";
  for (uint64_t X : Slices)
    L.append(" ").append(std::to_string(X));
  T.Header.append(L).append("\n");
  std::vector<int> Counts(Size);
  for (int I = 0; I < Size; ++I) {
    Counts[I] = int(Slices[I] / T.ElemBytes);
    if (T.Ok && Slices[I] % T.ElemBytes) {
      recordRefusal("rank " + std::to_string(I) + "'s slice of " +
                    std::to_string(Slices[I]) +
                    " bytes is no whole number "
                    "of the encoding's " +
                    std::to_string(T.ElemBytes) + "-byte elements");
      T.Ok = false;
    }
  }
  return traced(
      T.Header, Comm,
      [&] {
        if (!T.Ok)
          return;
        uint64_t Words = T.ElemBytes / 8;
        std::vector<uint64_t> R(Counts[Me] * Words + 1, ~uint64_t(0));
        if (!RCounts) {
          using Fn = int (*)(const void *, void *, int, MPI_Datatype, MPI_Op,
                             MPI_Comm);
          (F ? reinterpret_cast<Fn>(F) : PMPI_Reduce_scatter_block)(
              T.Send.data(), R.data(), Counts[Me], T.Type, T.Op, Comm);
        } else {
          using Fn = int (*)(const void *, void *, const int[], MPI_Datatype,
                             MPI_Op, MPI_Comm);
          (F ? reinterpret_cast<Fn>(F) : PMPI_Reduce_scatter)(
              T.Send.data(), R.data(), Counts.data(), T.Type, T.Op, Comm);
        }
        recordResult(R.data(), 8 * Counts[Me] * Words);
      },
      Plain);
}

} // namespace

extern "C" {

int MPI_Bcast(void *Buf, int Count, MPI_Datatype Type, int Root,
              MPI_Comm Comm) {
  auto Plain = [&] { return PMPI_Bcast(Buf, Count, Type, Root, Comm); };
  if (!traceThis("bcast"))
    return Plain();
  std::string Impl;
  using Fn = int (*)(void *, int, MPI_Datatype, int, MPI_Comm);
  Fn F = reinterpret_cast<Fn>(implSymbol(Impl));
  uint64_t N = typeBytes(Type, Count);
  int Me = 0;
  PMPI_Comm_rank(Comm, &Me);
  std::string H = callHeader("bcast", Comm, Root, Impl) + sizesLine({N}, 8);
  return traced(
      H, Comm,
      [&] {
        std::vector<unsigned char> T(N, 0xff);
        if (N / 8 >= wordCapacity(8))
          recordRefusal("a vector of " + std::to_string(N) +
                        " bytes is longer than the encoding names");
        if (Me == Root)
          fillStream(8, 0, N, T.data());
        (F ? F : PMPI_Bcast)(T.data(), int(N), MPI_BYTE, Root, Comm);
        recordResult(T.data(), N);
      },
      Plain);
}

int MPI_Gather(const void *SBuf, int SCount, MPI_Datatype SType, void *RBuf,
               int RCount, MPI_Datatype RType, int Root, MPI_Comm Comm) {
  auto Plain = [&] {
    return PMPI_Gather(SBuf, SCount, SType, RBuf, RCount, RType, Root, Comm);
  };
  if (!traceThis("gather"))
    return Plain();
  std::string Impl;
  using Fn = int (*)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
                     int, MPI_Comm);
  Fn F = reinterpret_cast<Fn>(implSymbol(Impl));
  int Size = 0, Me = 0;
  PMPI_Comm_size(Comm, &Size);
  PMPI_Comm_rank(Comm, &Me);
  uint64_t C = SBuf == MPI_IN_PLACE ? typeBytes(RType, RCount)
                                    : typeBytes(SType, SCount);
  unsigned U = unitDividing(C);
  std::string H = callHeader("gather", Comm, Root, Impl) +
                  sizesLine(std::vector<uint64_t>(Size, C), U);
  return traced(
      H, Comm,
      [&] {
        std::vector<unsigned char> S(C), R(Me == Root ? C * Size : 0, 0xff);
        fillStream(U, C * Me, C, S.data());
        (F ? F : PMPI_Gather)(S.data(), int(C), MPI_BYTE, R.data(), int(C),
                              MPI_BYTE, Root, Comm);
        if (Me == Root)
          recordResult(R.data(), R.size());
      },
      Plain);
}

int MPI_Allgather(const void *SBuf, int SCount, MPI_Datatype SType, void *RBuf,
                  int RCount, MPI_Datatype RType, MPI_Comm Comm) {
  auto Plain = [&] {
    return PMPI_Allgather(SBuf, SCount, SType, RBuf, RCount, RType, Comm);
  };
  if (!traceThis("allgather"))
    return Plain();
  std::string Impl;
  using Fn = int (*)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
                     MPI_Comm);
  Fn F = reinterpret_cast<Fn>(implSymbol(Impl));
  int Size = 0, Me = 0;
  PMPI_Comm_size(Comm, &Size);
  PMPI_Comm_rank(Comm, &Me);
  uint64_t C = typeBytes(RType, RCount);
  unsigned U = unitDividing(C);
  std::string H = callHeader("allgather", Comm, -1, Impl) +
                  sizesLine(std::vector<uint64_t>(Size, C), U);
  return traced(
      H, Comm,
      [&] {
        std::vector<unsigned char> S(C), R(C * Size, 0xff);
        fillStream(U, C * Me, C, S.data());
        (F ? F : PMPI_Allgather)(S.data(), int(C), MPI_BYTE, R.data(), int(C),
                                 MPI_BYTE, Comm);
        recordResult(R.data(), R.size());
      },
      Plain);
}

int MPI_Allgatherv(const void *SBuf, int SCount, MPI_Datatype SType, void *RBuf,
                   const int RCounts[], const int Displs[], MPI_Datatype RType,
                   MPI_Comm Comm) {
  auto Plain = [&] {
    return PMPI_Allgatherv(SBuf, SCount, SType, RBuf, RCounts, Displs, RType,
                           Comm);
  };
  if (!traceThis("allgatherv"))
    return Plain();
  std::string Impl;
  using Fn = int (*)(const void *, int, MPI_Datatype, void *, const int[],
                     const int[], MPI_Datatype, MPI_Comm);
  Fn F = reinterpret_cast<Fn>(implSymbol(Impl));
  int Size = 0, Me = 0;
  PMPI_Comm_size(Comm, &Size);
  PMPI_Comm_rank(Comm, &Me);
  std::vector<uint64_t> Sizes(Size);
  std::vector<int> Counts(Size), Offs(Size);
  uint64_t Total = 0;
  unsigned U = 8;
  for (int I = 0; I < Size; ++I) {
    Sizes[I] = typeBytes(RType, RCounts[I]);
    Counts[I] = int(Sizes[I]);
    Offs[I] = int(Total);
    Total += Sizes[I];
    if (Sizes[I])
      U = std::min(U, unitDividing(Sizes[I]));
  }
  std::string H =
      callHeader("allgatherv", Comm, -1, Impl) + sizesLine(Sizes, U);
  return traced(
      H, Comm,
      [&] {
        std::vector<unsigned char> S(Sizes[Me] + 1), R(Total + 1, 0xff);
        fillStream(U, Offs[Me], Sizes[Me], S.data());
        (F ? F : PMPI_Allgatherv)(S.data(), Counts[Me], MPI_BYTE, R.data(),
                                  Counts.data(), Offs.data(), MPI_BYTE, Comm);
        recordResult(R.data(), Total);
      },
      Plain);
}

int MPI_Reduce(const void *SBuf, void *RBuf, int Count, MPI_Datatype Type,
               MPI_Op Op, int Root, MPI_Comm Comm) {
  auto Plain = [&] {
    return PMPI_Reduce(SBuf, RBuf, Count, Type, Op, Root, Comm);
  };
  if (!traceThis("reduce"))
    return Plain();
  std::string Impl;
  using Fn =
      int (*)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
  Fn F = reinterpret_cast<Fn>(implSymbol(Impl));
  int Me = 0;
  PMPI_Comm_rank(Comm, &Me);
  TracedReduction T =
      prepareReduction("reduce", Comm, Root, typeBytes(Type, Count), Op, Impl);
  return traced(
      T.Header, Comm,
      [&] {
        if (!T.Ok)
          return;
        (F ? F : PMPI_Reduce)(T.Send.data(), T.Recv.data(), int(T.Count),
                              T.Type, T.Op, Root, Comm);
        if (Me == Root)
          recordResult(T.Recv.data(), 8 * T.Recv.size());
      },
      Plain);
}

int MPI_Allreduce(const void *SBuf, void *RBuf, int Count, MPI_Datatype Type,
                  MPI_Op Op, MPI_Comm Comm) {
  auto Plain = [&] {
    return PMPI_Allreduce(SBuf, RBuf, Count, Type, Op, Comm);
  };
  if (!traceThis("allreduce"))
    return Plain();
  std::string Impl;
  using Fn = int (*)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
  Fn F = reinterpret_cast<Fn>(implSymbol(Impl));
  TracedReduction T =
      prepareReduction("allreduce", Comm, -1, typeBytes(Type, Count), Op, Impl);
  return traced(
      T.Header, Comm,
      [&] {
        if (!T.Ok)
          return;
        (F ? F : PMPI_Allreduce)(T.Send.data(), T.Recv.data(), int(T.Count),
                                 T.Type, T.Op, Comm);
        recordResult(T.Recv.data(), 8 * T.Recv.size());
      },
      Plain);
}

int MPI_Reduce_scatter_block(const void *SBuf, void *RBuf, int RCount,
                             MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm) {
  auto Plain = [&] {
    return PMPI_Reduce_scatter_block(SBuf, RBuf, RCount, Type, Op, Comm);
  };
  if (!traceThis("reduce_scatter_block"))
    return Plain();
  return tracedReduceScatter(SBuf, RBuf, nullptr, RCount, Type, Op, Comm,
                             Plain);
}

int MPI_Reduce_scatter(const void *SBuf, void *RBuf, const int RCounts[],
                       MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm) {
  auto Plain = [&] {
    return PMPI_Reduce_scatter(SBuf, RBuf, RCounts, Type, Op, Comm);
  };
  if (!traceThis("reduce_scatter"))
    return Plain();
  return tracedReduceScatter(SBuf, RBuf, RCounts, 0, Type, Op, Comm, Plain);
}

int MPI_Finalize(void) {
  if (OrderedType != MPI_DATATYPE_NULL) {
    PMPI_Type_free(&OrderedType);
    PMPI_Op_free(&OrderedOp);
  }
  return PMPI_Finalize();
}

} // extern "C"
