//===- tools/choreo-calibrate/choreo-calibrate.cpp - Measure the model ----===//
///
/// \file
/// `mpiexec -n N choreo-calibrate [-o FILE] [--seconds S] [--max-bytes N]`:
/// measures the cost model's parameters on the machine the job runs on and
/// writes a machine file (cost/Machine.h, docs/machine.md):
///  - the job's nodes (MPI_Comm_split_type shared); a pair of ranks on one
///    node and, when the job spans nodes, a pair on two nodes;
///  - per pair and message size (8 B up to --max-bytes, powers of 8), the
///    time of a one-way message (half a ping-pong) and of an exchange (both
///    ranks send and receive at once: MPI_Sendrecv), each the median of
///    repetitions that fill the time budget; the other ranks wait asleep,
///    so that the pair has the cores;
///  - alpha and beta fitted to the exchanges (what the model prices in
///    full), f_alpha and f_beta from the one-way fit over it (within 0.5
///    and 1); alpha the 8-byte median, beta the least-squares slope of the
///    mean times (a batch's wall time over its repetitions, the lower
///    median of the batches) over the sizes of 32 KiB and more;
///  - eager sends: per size, from the smallest up, whether the model's
///    pair's MPI_Isend completes within a tenth of the message's own time
///    (or 1 ms) though its receive is posted well after; eager_bytes is the
///    largest that does, every size (UINT64_MAX) when all do;
///  - gamma per built-in operator: MPI_Reduce_local over the largest size;
///  - the step start-up (the start-up of a receive a rank waits for): every
///    rank of the job sends 8 bytes right and receives 8 from the left
///    around a ring, step after step; what the slowest rank's step takes
///    beyond the 8-byte exchange of the pair (0 at least);
///  - the MPI library's own step start-up (library_step_startup): its own
///    8-byte MPI_Bcast (a binomial tree, ceil(log2 p) waited steps) after
///    an MPI_Barrier, the slowest rank's median time, per step beyond the
///    8-byte exchange; the library's collectives busy-poll where the
///    executor yields.
/// The model's alpha and beta are the two-node pair's when there is one,
/// else the one-node pair's. Rank 0 writes the file and prints a summary.
/// Exit codes: 0 written, 2 refused (arguments, one rank, a file that
/// cannot be written), on every rank.
///
//===----------------------------------------------------------------------===//

#include "cost/Machine.h"
#include "executor/Agree.h"
#include "executor/Yielding.h"
#include "ir/ExitCodes.h"
#include "options/Command.h"
#include "options/Help.h"
#include "options/Parse.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <mpi.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

using namespace choreo;

namespace {

const CommandDoc CalibrateDoc = {
    "usage: mpiexec -n N choreo-calibrate [-o FILE] [--seconds S] "
    "[--max-bytes N]\n",
    R"(Measures the cost model's alpha, beta, f_alpha, f_beta, gamma, step
start-up (choreo's executor's and the MPI library's own collectives', which
wait busy-polling) and eager threshold on this machine and writes a machine file (JSON, docs/machine.md) that `choreo cost`,
`compare`, `select` (--machine FILE or CHOREO_MACHINE) and the drop-in
library (CHOREO_MACHINE) read. Run it with at least 2 ranks; with ranks on
several nodes it measures both a pair on one node and a pair on two nodes.
The step start-ups are measured with every rank of the job: run it with the
ranks per node and cores of the jobs it is for. The nodes are those of
MPI_Comm_split_type (shared memory), or CHOREO_NODES=N ranks per node where
that does not tell them apart. The ranks outside the measured pair wait
asleep, so that the pair has the cores.
)",
    R"(example: mpiexec -n 2 choreo-calibrate -o machine.json --seconds 5
exit codes: 0 written, 2 refused (arguments, one rank, an unwritable file).
)"};

struct CalibrateOptionSet {
  Option<std::string> Out =
      textOption("o",
                 "write the machine file to FILE (default: standard "
                 "output)",
                 "FILE")
          .singleDash();
  Option<uint64_t> Seconds =
      countOption("seconds", "time budget of the measurements, about")
          .withMetavar("S")
          .withDefault("10")
          .parsedBy(numberParser(1, 3600, "a number of seconds, 1 to 3600"));
  Option<Size> MaxBytes =
      sizeOption("max-bytes", "the largest message (64 bytes to 1G)")
          .withMetavar("N")
          .withDefault("4M");

  std::vector<OptionDecl> decls() const { return {Out, Seconds, MaxBytes}; }
};

const CalibrateOptionSet &opts() {
  static const CalibrateOptionSet O;
  return O;
}

llvm::ArrayRef<OptionDecl> decls() {
  static const std::vector<OptionDecl> D = opts().decls();
  return D;
}

/// Waits for R testing it and sleeping in between (1 to 16 ms): a
/// rank outside the measured pair. A yielding wait is not enough with more
/// ranks than cores: the scheduler still runs the yielding ranks, and a
/// pair that needs both its ranks at once (a ping-pong's every half) waits
/// for a core each time (16 ranks on 2 cores: a one-way 8-byte message
/// measured 14 ms against the exchange's 27 us, docs/machine.md).
void calibrateSleepWait(MPI_Request &R) {
  // 1 ms, doubling up to 16 ms: a rank that wakes takes a core from the
  // pair (the scheduler favours a waking sleeper), so it wakes rarely.
  long Nanos = 1000000;
  for (int Done = 0;;) {
    MPI_Test(&R, &Done, MPI_STATUS_IGNORE);
    if (Done)
      return;
    struct timespec T = {0, Nanos};
    nanosleep(&T, nullptr);
    Nanos = std::min(2 * Nanos, 16000000L);
  }
}

/// Time of one message each way (Exchange: both at once) between A and B,
/// the median of the repetitions, on every rank (the others wait asleep).
struct PairTime {
  /// The median repetition, and the mean: the lower median of the
  /// batches' means (a batch's wall time over its repetitions).
  double Median = 0, Mean = 0;
};
PairTime pairTime(MPI_Comm Comm, int A, int B, std::vector<char> &Buf,
                  uint64_t Bytes, bool Exchange, double Budget) {
  int Me;
  MPI_Comm_rank(Comm, &Me);
  int Count = int(Bytes);
  std::vector<char> Other(Exchange ? Bytes : 0);
  auto Once = [&] {
    double T0 = MPI_Wtime();
    if (Exchange) {
      int Peer = Me == A ? B : A;
      MPI_Sendrecv(Buf.data(), Count, MPI_BYTE, Peer, 7, Other.data(), Count,
                   MPI_BYTE, Peer, 7, Comm, MPI_STATUS_IGNORE);
    } else if (Me == A) {
      MPI_Send(Buf.data(), Count, MPI_BYTE, B, 7, Comm);
      MPI_Recv(Buf.data(), Count, MPI_BYTE, B, 7, Comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(Buf.data(), Count, MPI_BYTE, A, 7, Comm, MPI_STATUS_IGNORE);
      MPI_Send(Buf.data(), Count, MPI_BYTE, A, 7, Comm);
    }
    double T = MPI_Wtime() - T0;
    return Exchange ? T : T / 2;
  };
  double Times[2] = {0, 0}; // the median, the mean
  if (Me != A && Me != B) {
    // Outside the pair: wait asleep, so that the pair has the cores.
    MPI_Request R;
    MPI_Ibcast(Times, 2, MPI_DOUBLE, A, Comm, &R);
    calibrateSleepWait(R);
    return {Times[0], Times[1]};
  }
  {
    // A warm-up, then runs in batches of 1, 2, 4, ... (at most 1024) until
    // the budget is spent on either rank (3 to 10000 runs): after each
    // batch the two ranks swap whether to go on, outside the timed runs.
    // (A count fixed from the first run's time ran for minutes when that
    // run was fast and the later ones waited for a core: 8 ranks on 2
    // cores, the other ranks yielding.)
    Once();
    int Peer = Me == A ? B : A;
    std::vector<double> T;
    double Start = MPI_Wtime();
    std::vector<double> BatchMeans;
    for (size_t Batch = 1;; Batch = std::min<size_t>(2 * Batch, 1024)) {
      double B0 = MPI_Wtime();
      size_t Before = T.size();
      for (size_t I = 0; I < Batch && T.size() < 10000; ++I)
        T.push_back(Once());
      if (T.size() > Before)
        BatchMeans.push_back((MPI_Wtime() - B0) / double(T.size() - Before) /
                             (Exchange ? 1 : 2));
      int Go = T.size() < 3 ||
               (T.size() < 10000 && MPI_Wtime() - Start < Budget);
      int TheirGo = 0;
      MPI_Sendrecv(&Go, 1, MPI_INT, Peer, 8, &TheirGo, 1, MPI_INT, Peer, 8,
                   Comm, MPI_STATUS_IGNORE);
      if (!Go || !TheirGo)
        break;
    }
    size_t Runs = T.size();
    std::nth_element(T.begin(), T.begin() + Runs / 2, T.end());
    Times[0] = T[Runs / 2];
    // The lower median of the batches' means: a batch starts with both
    // ranks together (they just swapped whether to go on), so its wall
    // time cannot beat the network, and one batch slowed by the scheduler
    // does not count.
    std::sort(BatchMeans.begin(), BatchMeans.end());
    Times[1] = BatchMeans[(BatchMeans.size() - 1) / 2];
  }
  // Every rank learns A's times.
  MPI_Request R;
  MPI_Ibcast(Times, 2, MPI_DOUBLE, A, Comm, &R);
  yielding::wait(R);
  return {Times[0], Times[1]};
}

struct Fit {
  double Alpha = 0, Beta = 0, MaxRelError = 0;
};

/// Alpha: the smallest size's median time (T); beta: the least-squares
/// slope of the mean times (Mean: a batch's wall time over its
/// repetitions, the lower median of the batches) over the
/// sizes of at least 32 KiB (the largest two when there are fewer). A
/// repetition of an exchange can look fast when its rank was held up
/// before it and found the peer's message there: with ranks waiting for
/// cores the median 256 KiB exchange took 0.29 ms on a 200 Mbit/s port,
/// whose bytes take 10.5 ms (docs/machine.md); the wall time of a batch of
/// back-to-back repetitions that starts with both ranks together cannot
/// beat the port, and the median batch leaves out one slowed by the
/// scheduler (the mean of all: 32 KiB slower than 256 KiB, beta 0, on
/// shared memory under load).
Fit fitLine(const std::vector<uint64_t> &Sizes, const std::vector<double> &T,
            const std::vector<double> &Mean) {
  Fit F;
  F.Alpha = T.front();
  size_t First = 0;
  while (First + 2 < Sizes.size() && Sizes[First] < (32u << 10))
    ++First;
  double N = 0, Sx = 0, Sy = 0, Sxx = 0, Sxy = 0;
  for (size_t I = First; I < Sizes.size(); ++I) {
    double X = double(Sizes[I]), Y = Mean[I];
    N += 1, Sx += X, Sy += Y, Sxx += X * X, Sxy += X * Y;
  }
  double Den = N * Sxx - Sx * Sx;
  F.Beta = Den > 0 ? std::max(0.0, (N * Sxy - Sx * Sy) / Den) : 0;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    double Model = F.Alpha + double(Sizes[I]) * F.Beta;
    F.MaxRelError = std::max(F.MaxRelError, std::abs(Model - T[I]) / T[I]);
  }
  return F;
}

struct PairResult {
  int A, B;
  /// Per size: the median and the mean time.
  std::vector<double> OneWay, Exchange, OneWayMean, ExchangeMean;
  Fit Uni, Bi;
};

PairResult measurePair(MPI_Comm Comm, int A, int B,
                       const std::vector<uint64_t> &Sizes, double Budget) {
  PairResult R{A, B, {}, {}, {}, {}, {}, {}};
  std::vector<char> Buf(Sizes.back(), 1);
  double Each = Budget / double(2 * Sizes.size());
  for (uint64_t N : Sizes) {
    PairTime One = pairTime(Comm, A, B, Buf, N, false, Each);
    PairTime Ex = pairTime(Comm, A, B, Buf, N, true, Each);
    R.OneWay.push_back(One.Median);
    R.OneWayMean.push_back(One.Mean);
    R.Exchange.push_back(Ex.Median);
    R.ExchangeMean.push_back(Ex.Mean);
  }
  R.Uni = fitLine(Sizes, R.OneWay, R.OneWayMean);
  R.Bi = fitLine(Sizes, R.Exchange, R.ExchangeMean);
  return R;
}

/// A one-way factor (seed 004's f_alpha, f_beta: one way over exchange),
/// kept within 0.5 (a simplex network, where an exchange is two one-way
/// messages in turn) and 1 (full duplex). Outside, the timing saw the
/// scheduler rather than the network: a ping-pong needs its two ranks to
/// run in turn, an exchange only each once, so with ranks waiting for
/// cores the one-way time came out up to 600 times the exchange's (16
/// ranks on 2 cores, docs/machine.md).
double oneWayFactor(double OneWay, double Exchange) {
  if (!(Exchange > 0))
    return 1;
  return std::clamp(OneWay / Exchange, 0.5, 1.0);
}

/// Seconds per byte of MPI_Reduce_local with (T, Op) over Bytes bytes.
double gammaOf(MPI_Datatype T, MPI_Op Op, uint64_t Bytes) {
  // Bytes of buffer per element: the extent (MPI_DOUBLE_INT: 16, of
  // which 12 are data).
  MPI_Aint Lb, Extent;
  MPI_Type_get_extent(T, &Lb, &Extent);
  int TypeBytes = int(Extent);
  int Count = int(Bytes / TypeBytes);
  std::vector<char> In(size_t(Count) * TypeBytes, 0),
      InOut(size_t(Count) * TypeBytes, 0);
  double Best = 1e300;
  for (int Run = 0; Run < 7; ++Run) {
    double T0 = MPI_Wtime();
    MPI_Reduce_local(In.data(), InOut.data(), Count, T, Op);
    Best = std::min(Best, MPI_Wtime() - T0);
  }
  return Best / double(size_t(Count) * TypeBytes);
}

/// Seconds of one step of the whole job: every rank sends 8 bytes to its
/// right ring neighbour and receives 8 from its left one (Irecv, Isend,
/// then each waited on with PMPI_Test and sched_yield, as the executor
/// waits), repeated; the slowest rank's time per step, on every rank. Each
/// step is one receive every rank waits for, so the step costs the model's
/// 8-byte message and one start-up (CostModel::StepStartup, startUpWake).
/// Unlike the pair, it sees what a step costs when every rank of the job
/// takes part: with more ranks than cores, the wait for a core.
/// Seconds per step of Step (one step of every rank of Comm), repeated to
/// fill Budget: the slowest rank's time per step, on every rank.
template <typename StepFn>
double timedSteps(MPI_Comm Comm, double Budget, StepFn Step) {
  auto Steps = [&](int K) {
    for (int I = 0; I < K; ++I)
      Step();
  };
  auto Timed = [&](int K) {
    yielding::barrier(Comm);
    double T0 = MPI_Wtime();
    Steps(K);
    double T = (MPI_Wtime() - T0) / K, Slowest = 0;
    yielding::allreduce(&T, &Slowest, 1, MPI_DOUBLE, MPI_MAX, Comm);
    return Slowest;
  };
  Steps(3);
  // As many steps as fill the budget (10 to 100000), by rank 0's estimate.
  double First = std::max(Timed(10), 1e-7);
  int K = int(std::clamp(Budget / First, 10.0, 100000.0));
  yielding::bcast(&K, 1, MPI_INT, 0, Comm);
  return Timed(K);
}

/// One ring step (8 bytes from the left neighbour, 8 to the right), timed
/// per step. Yielding: as the executor waits (non-blocking calls, tested
/// and yielding). Otherwise as the MPI library's own collectives wait: one
/// blocking MPI_Sendrecv (MPICH's algorithms wait in its progress engine,
/// busy-polling). With more ranks than cores a rank that busy-polls holds
/// its core until the scheduler takes it away, so a step can cost time
/// slices (kept in `measured`).
double ringStepTime(MPI_Comm Comm, double Budget, bool Yielding) {
  int Me, P;
  MPI_Comm_rank(Comm, &Me);
  MPI_Comm_size(Comm, &P);
  int Left = (Me + P - 1) % P, Right = (Me + 1) % P;
  uint64_t Out = 1, In = 0;
  return timedSteps(Comm, Budget, [&] {
    if (!Yielding) {
      MPI_Sendrecv(&Out, 8, MPI_BYTE, Right, 10, &In, 8, MPI_BYTE, Left, 10,
                   Comm, MPI_STATUS_IGNORE);
      return;
    }
    MPI_Request R[2];
    MPI_Irecv(&In, 8, MPI_BYTE, Left, 9, Comm, &R[0]);
    MPI_Isend(&Out, 8, MPI_BYTE, Right, 9, Comm, &R[1]);
    for (MPI_Request &X : R)
      yielding::wait(X);
  });
}

/// Seconds of one MPI_Bcast of 8 bytes from rank 0, the MPI library's own
/// (MPICH 4.0.2's binomial tree for every communicator size at 8 bytes,
/// without a tuning file: ceil(log2 p) steps on its longest path, each a
/// receive its rank waits for), each after an MPI_Barrier as a benchmark
/// times it: the median over repetitions filling Budget of the slowest
/// rank's time, on every rank.
double libraryBcastTime(MPI_Comm Comm, double Budget) {
  uint64_t X = 0;
  auto Once = [&] {
    MPI_Barrier(Comm);
    double T0 = MPI_Wtime();
    MPI_Bcast(&X, 8, MPI_BYTE, 0, Comm);
    return MPI_Wtime() - T0;
  };
  auto Slowest = [&](std::vector<double> &T) {
    std::vector<double> Max(T.size());
    yielding::allreduce(T.data(), Max.data(), int(T.size()), MPI_DOUBLE,
                        MPI_MAX, Comm);
    std::sort(Max.begin(), Max.end());
    return Max[Max.size() / 2];
  };
  std::vector<double> T;
  double W0 = MPI_Wtime();
  for (int I = 0; I < 5; ++I)
    T.push_back(Once());
  // As many as fill the budget (5 to 10000), by rank 0's wall time of the
  // first five, barriers included (on oversubscribed cores a barrier can
  // take far longer than the broadcast).
  double Each = std::max((MPI_Wtime() - W0) / 5, 1e-7);
  Slowest(T);
  int K = int(std::clamp(Budget / Each, 5.0, 10000.0));
  yielding::bcast(&K, 1, MPI_INT, 0, Comm);
  T.clear();
  for (int I = 0; I < K; ++I)
    T.push_back(Once());
  return Slowest(T);
}

/// One step of p - 1 receives the library's way: every rank posts a
/// receive from and a send to every other rank and waits for all of them
/// in one MPI_Waitall (MPICH's scattered alltoall). Kept in `measured`
/// beside the ring step: about one ring step, not p - 1, is why the
/// library's start-up is charged per waited step (CostModel::library()).
double libraryAllStepTime(MPI_Comm Comm, double Budget) {
  int Me, P;
  MPI_Comm_rank(Comm, &Me);
  MPI_Comm_size(Comm, &P);
  std::vector<uint64_t> Out(P, 1), In(P, 0);
  std::vector<MPI_Request> R;
  return timedSteps(Comm, Budget, [&] {
    R.clear();
    for (int K = 1; K < P; ++K) {
      int From = (Me + K) % P;
      R.emplace_back();
      MPI_Irecv(&In[From], 8, MPI_BYTE, From, 11, Comm, &R.back());
    }
    for (int K = 1; K < P; ++K) {
      int To = (Me + P - K) % P;
      R.emplace_back();
      MPI_Isend(&Out[To], 8, MPI_BYTE, To, 11, Comm, &R.back());
    }
    MPI_Waitall(int(R.size()), R.data(), MPI_STATUSES_IGNORE);
  });
}

/// Whether a message of Bytes from A to B is sent eagerly: A's MPI_Isend
/// completes before B posts its receive, which B does Delay seconds after
/// the two started together (the other ranks wait asleep). Returns A's
/// completion time after the start, on every rank. A rendezvous send
/// completes no earlier than Delay; an eager one once the transport has
/// taken its bytes (TCP's socket buffer, UCX's eager protocol), so Delay
/// is chosen well beyond the message's own transfer time.
double eagerSendTime(MPI_Comm Comm, int A, int B, std::vector<char> &Buf,
                     uint64_t Bytes, double Delay) {
  int Me;
  MPI_Comm_rank(Comm, &Me);
  double Done = 0;
  if (Me != A && Me != B) {
    MPI_Request R;
    MPI_Ibcast(&Done, 1, MPI_DOUBLE, A, Comm, &R);
    calibrateSleepWait(R);
    return Done;
  }
  int Peer = Me == A ? B : A, Go = 1, TheirGo = 0;
  // Start together.
  MPI_Sendrecv(&Go, 1, MPI_INT, Peer, 10, &TheirGo, 1, MPI_INT, Peer, 10,
               Comm, MPI_STATUS_IGNORE);
  double T0 = MPI_Wtime();
  if (Me == A) {
    MPI_Request R;
    MPI_Isend(Buf.data(), int(Bytes), MPI_BYTE, B, 11, Comm, &R);
    yielding::wait(R);
    Done = MPI_Wtime() - T0;
  } else {
    struct timespec T = {long(Delay), long((Delay - double(long(Delay))) * 1e9)};
    nanosleep(&T, nullptr);
    MPI_Recv(Buf.data(), int(Bytes), MPI_BYTE, A, 11, Comm, MPI_STATUS_IGNORE);
  }
  MPI_Request R;
  MPI_Ibcast(&Done, 1, MPI_DOUBLE, A, Comm, &R);
  yielding::wait(R);
  return Done;
}

/// The largest message sent eagerly (eagerSendTime), over the sizes from
/// the smallest up, stopping at the first that is not: the machine file's
/// eager_bytes. A send is eager when it completes within a tenth of the
/// message's own time (alpha + n beta) or 1 ms, whichever is longer,
/// though its receive is posted only later: the sender went on while the
/// bytes were still to cross. A send that completes later waited for the
/// receiver (rendezvous) or for most of its bytes to leave (more than the
/// socket's buffer: on the emulated cluster a 2 MiB send completed in
/// 0.5 ms, a 4 MiB one after 34 of its 171 ms), and its sender cannot run
/// ahead by much. When every size is eager, every message is taken as
/// eager (UINT64_MAX). Rows: per size, the completion time, the receive's
/// delay and the verdict.
uint64_t measureEager(MPI_Comm Comm, int A, int B,
                      const std::vector<uint64_t> &Sizes, const Fit &F,
                      nlohmann::ordered_json &Rows) {
  std::vector<char> Buf(Sizes.back(), 1);
  uint64_t Largest = 0;
  for (uint64_t N : Sizes) {
    // Four times the message's own time, and 10 ms for the scheduler.
    double Delay = 0.01 + 4 * (F.Alpha + double(N) * F.Beta);
    double Done = eagerSendTime(Comm, A, B, Buf, N, Delay);
    bool Eager = Done < std::max(1e-3, 0.1 * (F.Alpha + double(N) * F.Beta)) &&
                 Done < Delay / 2;
    Rows.push_back({{"bytes", N},
                    {"sender_done_s", Done},
                    {"receive_posted_s", Delay},
                    {"eager", Eager}});
    if (!Eager)
      return Largest;
    Largest = N;
  }
  return UINT64_MAX;
}

nlohmann::ordered_json pairJson(const PairResult &R,
                                const std::vector<uint64_t> &Sizes) {
  nlohmann::ordered_json Rows = nlohmann::ordered_json::array();
  for (size_t I = 0; I < Sizes.size(); ++I)
    Rows.push_back({{"bytes", Sizes[I]},
                    {"one_way_s", R.OneWay[I]},
                    {"exchange_s", R.Exchange[I]},
                    {"one_way_mean_s", R.OneWayMean[I]},
                    {"exchange_mean_s", R.ExchangeMean[I]}});
  return {
      {"ranks", {R.A, R.B}},
      {"alpha", R.Bi.Alpha},
      {"beta", R.Bi.Beta},
      {"alpha_one_way", R.Uni.Alpha},
      {"beta_one_way", R.Uni.Beta},
      {"f_alpha_measured", R.Bi.Alpha > 0 ? R.Uni.Alpha / R.Bi.Alpha : 1.0},
      {"f_beta_measured", R.Bi.Beta > 0 ? R.Uni.Beta / R.Bi.Beta : 1.0},
      {"fit_max_relative_error", std::max(R.Uni.MaxRelError, R.Bi.MaxRelError)},
      {"times", Rows}};
}

std::string isoNow() {
  char Buf[32];
  std::time_t T = std::time(nullptr);
  std::strftime(Buf, sizeof Buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}

/// The whole measurement; every rank calls it, rank 0's result counts.
/// PerNode: the ranks per node from CHOREO_NODES (0: by shared memory).
MachineFile calibrate(MPI_Comm Comm, double Budget, uint64_t MaxBytes,
                      uint64_t PerNode) {
  int Me, P;
  MPI_Comm_rank(Comm, &Me);
  MPI_Comm_size(Comm, &P);
  // A node's id: the lowest rank on it.
  int Leader = Me;
  if (PerNode) {
    Leader = int(uint64_t(Me) / PerNode * PerNode);
  } else {
    MPI_Comm Node;
    MPI_Comm_split_type(Comm, MPI_COMM_TYPE_SHARED, Me, MPI_INFO_NULL, &Node);
    MPI_Bcast(&Leader, 1, MPI_INT, 0, Node);
    MPI_Comm_free(&Node);
  }
  std::vector<int> NodeOf(P);
  yielding::allgather(&Leader, 1, MPI_INT, NodeOf.data(), 1, MPI_INT, Comm);

  std::optional<std::pair<int, int>> IntraPair, InterPair;
  for (int R = 1; R < P && !InterPair; ++R)
    if (NodeOf[R] != NodeOf[0])
      InterPair = {0, R};
  for (int R = 0; R < P && !IntraPair; ++R)
    for (int S = R + 1; S < P; ++S)
      if (NodeOf[S] == NodeOf[R]) {
        IntraPair = {R, S};
        break;
      }
  std::vector<uint64_t> Sizes;
  for (uint64_t N = 8; N <= MaxBytes; N *= 8)
    Sizes.push_back(N);
  if (Sizes.back() != MaxBytes)
    Sizes.push_back(MaxBytes);

  int Pairs = int(bool(IntraPair)) + int(bool(InterPair));
  double PairBudget = Budget * 0.8 / Pairs;
  MachineFile M;
  std::optional<PairResult> Intra, Inter;
  if (IntraPair)
    Intra = measurePair(Comm, IntraPair->first, IntraPair->second, Sizes,
                        PairBudget);
  if (InterPair)
    Inter = measurePair(Comm, InterPair->first, InterPair->second, Sizes,
                        PairBudget);
  const PairResult &Used = Inter ? *Inter : *Intra;
  M.Model.Alpha = Used.Bi.Alpha;
  M.Model.Beta = Used.Bi.Beta;
  M.Model.FAlpha = oneWayFactor(Used.Uni.Alpha, Used.Bi.Alpha);
  M.Model.FBeta = oneWayFactor(Used.Uni.Beta, Used.Bi.Beta);
  if (Intra)
    M.Intra = MachineFile::Link{Intra->Bi.Alpha, Intra->Bi.Beta};
  if (Inter)
    M.Inter = MachineFile::Link{Inter->Bi.Alpha, Inter->Bi.Beta};
  // Eager sends (CostModel::EagerBytes): between the model's pair.
  nlohmann::ordered_json EagerRows = nlohmann::ordered_json::array();
  M.Model.EagerBytes = measureEager(Comm, Used.A, Used.B, Sizes, Used.Bi,
                                    EagerRows);
  // The step start-up: what a step of the whole job costs beyond the
  // slowest of its messages, an 8-byte exchange of the model's pair (of
  // either pair when the ring crosses nodes). The model prices such a ring
  // step (every rank sends and receives, so the op is bidirectional) at
  // alpha + sigma: each rank waits for its one receive and wakes sigma
  // after it (startUpWake), and its next send waits for the wake-up.
  double Step = ringStepTime(Comm, Budget * 0.1, /*Yielding=*/true);
  double Exchange8 = Used.Exchange.front();
  if (Intra && Inter)
    Exchange8 = std::max(Intra->Exchange.front(), Inter->Exchange.front());
  M.Model.StepStartup = std::max(0.0, Step - Exchange8);
  // The MPI library's own step start-up (CostModel::library()): its own
  // 8-byte broadcast, a binomial tree whose longest path is ceil(log2 p)
  // waited steps, per step beyond the same 8-byte exchange. The model
  // prices that tree at ceil(log2 p) (alpha + sigma) with sigma once per
  // waited step. The blocking ring and the one-step all-to-all are kept
  // for the record: every rank busy in every step, the ring's step costs
  // far more than a tree's on oversubscribed cores (4 ranks on 2: 10.1
  // against about 4 ms).
  int Depth = 0;
  while ((1 << Depth) < P)
    ++Depth;
  double LibBcast = libraryBcastTime(Comm, Budget * 0.05);
  double LibStep = ringStepTime(Comm, Budget * 0.03, /*Yielding=*/false);
  double LibAllStep = libraryAllStepTime(Comm, Budget * 0.03);
  M.Model.LibraryStepStartup =
      std::max(0.0, LibBcast / std::max(Depth, 1) - Exchange8);

  uint64_t GammaBytes = std::max<uint64_t>(MaxBytes, 64 << 10);
  M.GammaByOp["sum-int"] = gammaOf(MPI_INT, MPI_SUM, GammaBytes);
  M.GammaByOp["sum-double"] = gammaOf(MPI_DOUBLE, MPI_SUM, GammaBytes);
  M.GammaByOp["max-double"] = gammaOf(MPI_DOUBLE, MPI_MAX, GammaBytes);
  M.GammaByOp["maxloc-double-int"] =
      gammaOf(MPI_DOUBLE_INT, MPI_MAXLOC, GammaBytes);
  M.Model.Gamma = M.GammaByOp["sum-double"];

  std::vector<int> Leaders(NodeOf);
  std::sort(Leaders.begin(), Leaders.end());
  Leaders.erase(std::unique(Leaders.begin(), Leaders.end()), Leaders.end());
  char Host[256] = "";
  gethostname(Host, sizeof Host - 1);
  M.Measured = {{"by", "choreo-calibrate"},
                {"date", isoNow()},
                {"host_of_rank_0", Host},
                {"ranks", P},
                {"nodes", Leaders.size()},
                {"model_from", Inter ? "inter" : "intra"},
                {"nodes_from", PerNode ? "CHOREO_NODES" : "shared memory"},
                {"seconds_budget", Budget},
                {"ring_step_s", Step},
                {"library_bcast_8_bytes_s", LibBcast},
                {"library_bcast_steps", Depth},
                {"library_ring_step_s", LibStep},
                {"library_all_to_all_step_s", LibAllStep},
                {"exchange_8_bytes_s", Exchange8}};
  M.Measured["eager"] = EagerRows;
  if (Intra)
    M.Measured["intra"] = pairJson(*Intra, Sizes);
  if (Inter)
    M.Measured["inter"] = pairJson(*Inter, Sizes);
  return M;
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Me, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  std::string Usage = commandHelp(CalibrateDoc, decls());
  int Help = wantsHelp(Args), AnyHelp = 0;
  MPI_Allreduce(&Help, &AnyHelp, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (AnyHelp) {
    if (Me == 0)
      llvm::outs() << Usage;
    MPI_Finalize();
    return ExitOk;
  }
  CommandLine C;
  std::string Err;
  if (llvm::Error E = parseCommandLineInto(Args, decls(), {}, C))
    Err = llvm::toString(std::move(E));
  else if (!C.Positionals.empty())
    Err = "unexpected argument '" + C.Positionals.front() + "'";
  uint64_t MaxBytes = 0, PerNode = 0;
  double Seconds = 0;
  std::string Out;
  // The nodes as the drop-in library takes them (docs/pmpi.md, "Nodes"):
  // shared memory, or CHOREO_NODES=N ranks per node (world ranks 0 to
  // N - 1 on the first node, ...), where shared memory does not tell (an
  // emulated cluster's namespaces, MPICH without its shared memory).
  if (const char *E = getenv("CHOREO_NODES");
      Err.empty() && E && *E && llvm::StringRef(E) != "shared") {
    if (llvm::StringRef(E).getAsInteger(10, PerNode) || PerNode == 0 ||
        PerNode > (1u << 30))
      Err = std::string("CHOREO_NODES=") + E +
            ": expected shared or a positive number of ranks per node";
  }
  if (Err.empty()) {
    MaxBytes = C.Values.get(opts().MaxBytes);
    Seconds = double(C.Values.get(opts().Seconds));
    Out = C.Values.lookup(opts().Out).value_or("");
    if (MaxBytes < 64 || MaxBytes > (1u << 30))
      Err = "--max-bytes: expected 64 bytes to 1 GiB";
    else if (P < 2)
      Err = "needs at least 2 ranks (mpiexec -n 2 or more): it measures "
            "messages between a pair";
  }
  // Every rank must take the same nodes.
  uint64_t Said[2] = {PerNode, ~PerNode};
  MPI_Allreduce(MPI_IN_PLACE, Said, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (Err.empty() && Said[0] != ~Said[1])
    Err = "CHOREO_NODES is not the same on every rank";
  if (!Err.empty())
    Err = "rank " + std::to_string(Me) + ": " + Err;
  if (llvm::Error E = agreeOnErrors(MPI_COMM_WORLD, Err)) {
    if (Me == 0)
      llvm::errs() << "choreo-calibrate: error: "
                   << llvm::toString(std::move(E)) << "\n\n"
                   << Usage;
    MPI_Finalize();
    return ExitInvalid;
  }
  MachineFile M = calibrate(MPI_COMM_WORLD, Seconds, MaxBytes, PerNode);
  int Code = ExitOk;
  if (Me == 0) {
    std::string Text = M.toJson().dump(2) + "\n";
    if (Out.empty() || Out == "-") {
      llvm::outs() << Text;
    } else {
      std::error_code EC;
      llvm::raw_fd_ostream OS(Out, EC);
      if (!EC) {
        OS << Text;
        OS.close();
        EC = OS.error();
      }
      if (EC) {
        llvm::errs() << "choreo-calibrate: error: cannot write " << Out << ": "
                     << EC.message() << "\n";
        Code = ExitInvalid;
      }
    }
    llvm::errs() << llvm::formatv(
        "choreo-calibrate: {0} ranks on {1} node(s); alpha {2:e} s, beta "
        "{3:e} s/B ({4:F1} GB/s), f_alpha {5:F2}, f_beta {6:F2}, gamma "
        "{7:e} s/B (sum-double), step start-up {10:e} s (the MPI "
        "library's {11:e} s), from the {8} pair{9}\n",
        P, M.Measured["nodes"].get<size_t>(), M.Model.Alpha, M.Model.Beta,
        M.Model.Beta > 0 ? 1e-9 / M.Model.Beta : 0.0, M.Model.FAlpha,
        M.Model.FBeta, M.Model.Gamma,
        M.Measured["model_from"].get<std::string>(),
        Out.empty() || Out == "-" ? "" : "; written to " + Out,
        M.Model.StepStartup, M.Model.LibraryStepStartup.value_or(0));
  }
  yielding::bcast(&Code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return Code;
}
