//===- bench/PmpiOverhead.cpp - What the drop-in library adds to a plan ---===//
///
/// \file
/// Run under mpiexec with LD_PRELOAD=libchoreo-mpi.so and
/// CHOREO_ALLGATHER=ALGO (or CHOREO_ALLREDUCE=ALGO with COLL allreduce).
/// For each size it times, per call (the slowest rank's time, median of
/// the iterations):
///   - first: the first call of that size through the library (selection,
///     agreement, generation, proof on rank 0, plan creation, one
///     execution);
///   - library: later calls (cache lookup and execution);
///   - plan: Plan::execute of the same algorithm's plan made directly;
///   - native: PMPI_Allgather or PMPI_Allreduce (MPICH's own, the library
///     bypassed).
/// The steady-state overhead of the library is library - plan. COLL is
/// allgather (MPI_BYTE, bytes per rank) or allreduce (MPI_SUM of MPI_INT,
/// bytes of the vector).
///   mpiexec -n 4 env LD_PRELOAD=... CHOREO_ALLGATHER=allgather-ring
///     choreo-bench-pmpi-overhead [ITERATIONS] [ALGO] [COLL]  (one line)
///
//===----------------------------------------------------------------------===//

#include "executor/Plan.h"
#include "pmpi/Shape.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace choreo;

namespace {

/// The slowest rank's time of each iteration, then the median.
double medianOfMax(std::vector<double> &T, MPI_Comm C) {
  PMPI_Allreduce(MPI_IN_PLACE, T.data(), int(T.size()), MPI_DOUBLE, MPI_MAX, C);
  std::sort(T.begin(), T.end());
  return T[T.size() / 2];
}

template <typename F> std::vector<double> timeIt(int N, F Call) {
  std::vector<double> T(N);
  for (int I = 0; I < N; ++I) {
    PMPI_Barrier(MPI_COMM_WORLD);
    double T0 = PMPI_Wtime();
    Call();
    T[I] = PMPI_Wtime() - T0;
  }
  return T;
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Me, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int N = Argc > 1 ? std::atoi(Argv[1]) : 200;
  std::string Algo = Argc > 2 ? Argv[2] : "allgather-ring";
  bool Reduce = Argc > 3 && std::string(Argv[3]) == "allreduce";
  if (Me == 0)
    std::printf("| bytes %s | first call us | library us | "
                "Plan::execute us | overhead us | native us |\n"
                "|---|---|---|---|---|---|\n",
                Reduce ? "(vector)" : "per rank");
  for (int Bytes : {8, 1024, 65536}) {
    std::vector<char> Send(Bytes, char(Me)),
        Recv(Reduce ? size_t(Bytes) : size_t(Bytes) * P);
    auto LibCall = [&] {
      if (Reduce)
        MPI_Allreduce(Send.data(), Recv.data(), Bytes / 4, MPI_INT, MPI_SUM,
                      MPI_COMM_WORLD);
      else
        MPI_Allgather(Send.data(), Bytes, MPI_BYTE, Recv.data(), Bytes,
                      MPI_BYTE, MPI_COMM_WORLD);
    };
    auto NativeCall = [&] {
      if (Reduce)
        PMPI_Allreduce(Send.data(), Recv.data(), Bytes / 4, MPI_INT, MPI_SUM,
                       MPI_COMM_WORLD);
      else
        PMPI_Allgather(Send.data(), Bytes, MPI_BYTE, Recv.data(), Bytes,
                       MPI_BYTE, MPI_COMM_WORLD);
    };
    // The first call through the library.
    std::vector<double> First = timeIt(1, LibCall);
    double FirstT = medianOfMax(First, MPI_COMM_WORLD);
    std::vector<double> Lib = timeIt(N, LibCall);
    // The same algorithm's plan, made directly.
    MpiArgs Args;
    if (Reduce) {
      Args.Call = MpiCall::Allreduce;
      Args.Ranks = P;
      Args.Bytes = Bytes;
      Args.ElemBytes = 4;
    } else {
      Args.SizesA.assign(P, Bytes);
    }
    BoundCall Call = llvm::cantFail(bindCall(std::move(Args)));
    auto S = pmpi::buildFor(Algo, {}, Call.Header, Call.ElemBytes);
    if (!S) {
      std::fprintf(stderr, "%s\n", llvm::toString(S.takeError()).c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    UserBuffers B;
    B.Send = Send.data();
    B.SendBytes = Bytes;
    B.Recv = Recv.data();
    B.RecvBytes = Recv.size();
    if (Reduce) {
      B.ReduceType = MPI_INT;
      B.ReduceOp = MPI_SUM;
    }
    auto Pl = Plan::create(*S, MPI_COMM_WORLD, B);
    if (!Pl) {
      std::fprintf(stderr, "%s\n", llvm::toString(Pl.takeError()).c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    std::vector<double> PlanT = timeIt(N, [&] {
      if (auto E = (*Pl)->execute())
        llvm::consumeError(std::move(E));
    });
    std::vector<double> Native = timeIt(N, NativeCall);
    double L = medianOfMax(Lib, MPI_COMM_WORLD);
    double Pm = medianOfMax(PlanT, MPI_COMM_WORLD);
    double Nt = medianOfMax(Native, MPI_COMM_WORLD);
    if (Me == 0)
      std::printf("| %d | %.1f | %.2f | %.2f | %.2f | %.2f |\n", Bytes,
                  FirstT * 1e6, L * 1e6, Pm * 1e6, (L - Pm) * 1e6, Nt * 1e6);
  }
  MPI_Finalize();
  return 0;
}
