//===- trace/preload/ExchangeCalls.cpp - Scatter, alltoall, barrier -----===//
///
/// \file
/// PMPI wrappers of the traced collectives added after the first ones
/// (Calls.cpp): MPI_Scatter, MPI_Scatterv, MPI_Gatherv, MPI_Alltoall,
/// MPI_Alltoallv and MPI_Barrier. Each runs the call once on
/// content-tagged buffers of the same byte sizes (schedule-format.md's
/// buffer `all` as a stream of words: the root's scatter vector, each
/// rank's alltoall row), then on the program's own. The v forms' sizes are
/// known in part on each rank (a scatterv's at its root, an alltoallv's
/// rows at their senders); the header every rank writes needs all of them,
/// so they are exchanged before the recording window opens. A barrier's
/// record has one byte of "has arrived" per rank and no buffers: its
/// messages carry no bytes (docs/trace.md, "Barriers").
///
//===----------------------------------------------------------------------===//

#include "trace/preload/Calls.h"

#include <algorithm>
#include <functional>

using namespace choreo::trace;

namespace {

int commSize(MPI_Comm Comm) {
  int N = 0;
  PMPI_Comm_size(Comm, &N);
  return N;
}

int commRank(MPI_Comm Comm) {
  int R = 0;
  PMPI_Comm_rank(Comm, &R);
  return R;
}

/// The largest word size dividing every non-empty size.
unsigned unitOf(const std::vector<uint64_t> &Sizes) {
  unsigned U = 8;
  for (uint64_t S : Sizes)
    if (S)
      U = std::min(U, unitDividing(S));
  return U;
}

/// Offsets of consecutive sizes, and their total.
std::vector<int> offsets(const std::vector<uint64_t> &Sizes, uint64_t &Total) {
  std::vector<int> Off(Sizes.size());
  Total = 0;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    Off[I] = int(Total);
    Total += Sizes[I];
  }
  return Off;
}

std::vector<int> asInts(const std::vector<uint64_t> &V) {
  return std::vector<int>(V.begin(), V.end());
}

/// A rooted call's member sizes in bytes, which only the root knows
/// (scatterv's send counts, gatherv's receive counts): broadcast before
/// the window opens.
std::vector<uint64_t> rootSizes(const int *Counts, MPI_Datatype T, int Root,
                                MPI_Comm Comm) {
  int N = commSize(Comm);
  std::vector<uint64_t> S(N);
  if (commRank(Comm) == Root)
    for (int I = 0; I < N; ++I)
      S[I] = typeBytes(T, Counts[I]);
  PMPI_Bcast(S.data(), N, MPI_UINT64_T, Root, Comm);
  return S;
}

/// Scatter and scatterv on tagged buffers: the root's send buffer is the
/// whole stream, each member records its own slice.
int tracedScatter(const std::vector<uint64_t> &Sizes, bool Vector, int Root,
                  MPI_Comm Comm, const std::function<int()> &Plain) {
  std::string Impl;
  void *F = implSymbol(Impl);
  int Me = commRank(Comm);
  unsigned U = unitOf(Sizes);
  uint64_t Total = 0;
  std::vector<int> Off = offsets(Sizes, Total), Counts = asInts(Sizes);
  std::string H = callHeader("scatter", Comm, Root, Impl) + sizesLine(Sizes, U);
  return traced(
      H, Comm,
      [&] {
        std::vector<unsigned char> S(Me == Root ? Total + 1 : 1),
            R(Sizes[Me] + 1, 0xff);
        if (Me == Root)
          fillStream(U, 0, Total, S.data());
        if (Vector) {
          using Fn =
              int (*)(const void *, const int[], const int[], MPI_Datatype,
                      void *, int, MPI_Datatype, int, MPI_Comm);
          (F ? reinterpret_cast<Fn>(F)
             : PMPI_Scatterv)(S.data(), Counts.data(), Off.data(), MPI_BYTE,
                              R.data(), Counts[Me], MPI_BYTE, Root, Comm);
        } else {
          using Fn = int (*)(const void *, int, MPI_Datatype, void *, int,
                             MPI_Datatype, int, MPI_Comm);
          (F ? reinterpret_cast<Fn>(F)
             : PMPI_Scatter)(S.data(), Counts[Me], MPI_BYTE, R.data(),
                             Counts[Me], MPI_BYTE, Root, Comm);
        }
        recordResult(R.data(), Sizes[Me]);
      },
      Plain);
}

/// Alltoall and alltoallv on tagged buffers: Matrix is row-major, rank i's
/// row of buffer `all` its send buffer, its column (blocks in rank order)
/// its receive buffer and result.
int tracedAlltoall(const char *Coll, const std::vector<uint64_t> &Matrix,
                   bool Vector, MPI_Comm Comm,
                   const std::function<int()> &Plain) {
  std::string Impl;
  void *F = implSymbol(Impl);
  int N = commSize(Comm), Me = commRank(Comm);
  unsigned U = unitOf(Matrix);
  std::vector<uint64_t> Row(Matrix.begin() + size_t(Me) * N,
                            Matrix.begin() + size_t(Me + 1) * N),
      Col(N);
  uint64_t RowStart = 0, RowLen = 0, ColLen = 0;
  for (size_t I = 0; I < size_t(Me) * N; ++I)
    RowStart += Matrix[I];
  for (int I = 0; I < N; ++I)
    Col[I] = Matrix[size_t(I) * N + Me];
  std::vector<int> SOff = offsets(Row, RowLen), ROff = offsets(Col, ColLen),
                   SCounts = asInts(Row), RCounts = asInts(Col);
  std::string H = callHeader(Coll, Comm, -1, Impl) + sizesLine(Matrix, U);
  return traced(
      H, Comm,
      [&] {
        std::vector<unsigned char> S(RowLen + 1), R(ColLen + 1, 0xff);
        fillStream(U, RowStart, RowLen, S.data());
        if (Vector) {
          using Fn =
              int (*)(const void *, const int[], const int[], MPI_Datatype,
                      void *, const int[], const int[], MPI_Datatype, MPI_Comm);
          (F ? reinterpret_cast<Fn>(F) : PMPI_Alltoallv)(
              S.data(), SCounts.data(), SOff.data(), MPI_BYTE, R.data(),
              RCounts.data(), ROff.data(), MPI_BYTE, Comm);
        } else {
          using Fn = int (*)(const void *, int, MPI_Datatype, void *, int,
                             MPI_Datatype, MPI_Comm);
          (F ? reinterpret_cast<Fn>(F)
             : PMPI_Alltoall)(S.data(), SCounts[0], MPI_BYTE, R.data(),
                              RCounts[0], MPI_BYTE, Comm);
        }
        recordResult(R.data(), ColLen);
      },
      Plain);
}

} // namespace

extern "C" {

int MPI_Scatter(const void *SBuf, int SCount, MPI_Datatype SType, void *RBuf,
                int RCount, MPI_Datatype RType, int Root, MPI_Comm Comm) {
  std::function<int()> Plain = [&] {
    return PMPI_Scatter(SBuf, SCount, SType, RBuf, RCount, RType, Root, Comm);
  };
  if (!traceThis("scatter"))
    return Plain();
  bool AtRoot = commRank(Comm) == Root;
  uint64_t C = AtRoot ? typeBytes(SType, SCount) : typeBytes(RType, RCount);
  return tracedScatter(std::vector<uint64_t>(commSize(Comm), C), false, Root,
                       Comm, Plain);
}

int MPI_Scatterv(const void *SBuf, const int SCounts[], const int Displs[],
                 MPI_Datatype SType, void *RBuf, int RCount, MPI_Datatype RType,
                 int Root, MPI_Comm Comm) {
  std::function<int()> Plain = [&] {
    return PMPI_Scatterv(SBuf, SCounts, Displs, SType, RBuf, RCount, RType,
                         Root, Comm);
  };
  if (!traceThis("scatterv"))
    return Plain();
  return tracedScatter(rootSizes(SCounts, SType, Root, Comm), true, Root, Comm,
                       Plain);
}

int MPI_Gatherv(const void *SBuf, int SCount, MPI_Datatype SType, void *RBuf,
                const int RCounts[], const int Displs[], MPI_Datatype RType,
                int Root, MPI_Comm Comm) {
  auto Plain = [&] {
    return PMPI_Gatherv(SBuf, SCount, SType, RBuf, RCounts, Displs, RType, Root,
                        Comm);
  };
  if (!traceThis("gatherv"))
    return Plain();
  std::string Impl;
  using Fn = int (*)(const void *, int, MPI_Datatype, void *, const int[],
                     const int[], MPI_Datatype, int, MPI_Comm);
  Fn F = reinterpret_cast<Fn>(implSymbol(Impl));
  int Me = commRank(Comm);
  std::vector<uint64_t> Sizes = rootSizes(RCounts, RType, Root, Comm);
  unsigned U = unitOf(Sizes);
  uint64_t Total = 0;
  std::vector<int> Off = offsets(Sizes, Total), Counts = asInts(Sizes);
  std::string H = callHeader("gather", Comm, Root, Impl) + sizesLine(Sizes, U);
  return traced(
      H, Comm,
      [&] {
        std::vector<unsigned char> S(Sizes[Me] + 1),
            R(Me == Root ? Total + 1 : 1, 0xff);
        fillStream(U, Off[Me], Sizes[Me], S.data());
        (F ? F : PMPI_Gatherv)(S.data(), Counts[Me], MPI_BYTE, R.data(),
                               Counts.data(), Off.data(), MPI_BYTE, Root, Comm);
        if (Me == Root)
          recordResult(R.data(), Total);
      },
      Plain);
}

int MPI_Alltoall(const void *SBuf, int SCount, MPI_Datatype SType, void *RBuf,
                 int RCount, MPI_Datatype RType, MPI_Comm Comm) {
  std::function<int()> Plain = [&] {
    return PMPI_Alltoall(SBuf, SCount, SType, RBuf, RCount, RType, Comm);
  };
  if (!traceThis("alltoall"))
    return Plain();
  // In place, the bytes per block are the receive count's; the traced call
  // runs with separate buffers (MPICH's in-place algorithms are others).
  uint64_t C = SBuf == MPI_IN_PLACE ? typeBytes(RType, RCount)
                                    : typeBytes(SType, SCount);
  int N = commSize(Comm);
  return tracedAlltoall("alltoall", std::vector<uint64_t>(size_t(N) * N, C),
                        false, Comm, Plain);
}

int MPI_Alltoallv(const void *SBuf, const int SCounts[], const int SDispls[],
                  MPI_Datatype SType, void *RBuf, const int RCounts[],
                  const int RDispls[], MPI_Datatype RType, MPI_Comm Comm) {
  std::function<int()> Plain = [&] {
    return PMPI_Alltoallv(SBuf, SCounts, SDispls, SType, RBuf, RCounts, RDispls,
                          RType, Comm);
  };
  if (!traceThis("alltoallv"))
    return Plain();
  int N = commSize(Comm);
  // Each rank knows its row (what it sends); every header needs all rows.
  bool InPlace = SBuf == MPI_IN_PLACE;
  std::vector<uint64_t> Row(N), Matrix(size_t(N) * N);
  for (int I = 0; I < N; ++I)
    Row[I] =
        InPlace ? typeBytes(RType, RCounts[I]) : typeBytes(SType, SCounts[I]);
  PMPI_Allgather(Row.data(), N, MPI_UINT64_T, Matrix.data(), N, MPI_UINT64_T,
                 Comm);
  return tracedAlltoall("alltoallv", Matrix, true, Comm, Plain);
}

int MPI_Barrier(MPI_Comm Comm) {
  auto Plain = [&] { return PMPI_Barrier(Comm); };
  if (!traceThis("barrier"))
    return Plain();
  std::string Impl;
  using Fn = int (*)(MPI_Comm);
  Fn F = reinterpret_cast<Fn>(implSymbol(Impl));
  // schedule-format.md: one byte of "has arrived" per rank.
  std::string H = callHeader("barrier", Comm, -1, Impl) +
                  sizesLine(std::vector<uint64_t>(commSize(Comm), 1), 1);
  return traced(
      H, Comm, [&] { (F ? F : PMPI_Barrier)(Comm); }, Plain);
}

} // extern "C"
