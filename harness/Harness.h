//===- harness/Harness.h - Running a schedule as an MPI job ----*- C++ -*-===//
///
/// \file
/// What choreo-run and the executor benchmarks need around a Plan: the
/// communicators a schedule's groups describe (built from MPI_COMM_WORLD,
/// world rank r playing schedule rank r), send buffers filled with bytes
/// that depend on the buffer and offset, the expected result to check
/// against, MPICH's own collective for the same operation, and timing with
/// the slowest rank per iteration.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_HARNESS_HARNESS_H
#define CHOREO_HARNESS_HARNESS_H

#include "executor/Plan.h"
#include "harness/Reductions.h"

#include <functional>

namespace choreo::harness {

/// The communicators of a schedule. Run is what Plan::create takes: an
/// intercommunicator of A and B for intergroup collectives, else a
/// duplicate of MPI_COMM_WORLD.
struct Communicators {
  MPI_Comm Run = MPI_COMM_NULL;
  MPI_Comm Local = MPI_COMM_NULL; ///< intergroup: this rank's group
  bool Inter = false;
  bool InA = false;
  Communicators() = default;
  Communicators(const Communicators &) = delete;
  Communicators(Communicators &&O) noexcept;
  ~Communicators();
};

/// Why S cannot run on MPI_COMM_WORLD (the job's size is not the
/// schedule's), or "".
std::string jobMismatch(const Schedule &S);

/// Collective over MPI_COMM_WORLD, whose size must be the schedule's.
llvm::Expected<Communicators> makeCommunicators(const Schedule &S);

/// A rank's buffers for a schedule: the send buffer filled with its
/// contribution, the receive buffer sized for the result.
struct RankBuffers {
  std::vector<char> Send, Recv;
  MPI_Datatype ReduceType = MPI_DATATYPE_NULL;
  MPI_Op ReduceOp = MPI_OP_NULL;
  ReduceData Data = ReduceData::SumInt;
  UserBuffers user();
};

/// Reductions are run with the elements and operator of D (default 4-byte
/// ints with MPI_SUM); the vector length and every rank's result must be
/// whole elements.
llvm::Expected<RankBuffers> makeBuffers(const Schedule &S, Rank Me,
                                        ReduceData D = ReduceData::SumInt);

/// Overwrites the receive buffer with 0xEE (bcast: non-roots' only buffer).
void poison(const Schedule &S, Rank Me, RankBuffers &B);

/// The first byte of Recv that differs from the collective's result, as a
/// message naming the rank, offset, buffer and member; nullopt when equal.
std::optional<std::string> checkResult(const Schedule &S, Rank Me,
                                       llvm::ArrayRef<char> Recv,
                                       ReduceData D = ReduceData::SumInt);

/// MPICH's collective for the schedule's operation (the MPI binding's,
/// executor/MpiBinding.h), on the same communicators and buffers: blocking,
/// or non-blocking waited on with MPI_Test and sched_yield.
llvm::Error runNative(const Schedule &S, const Communicators &C, Rank Me,
                      RankBuffers &B, bool NonBlocking);
/// Its name: "MPI_Allgatherv".
llvm::StringRef nativeName(const Schedule &S);

/// Times Iterations runs of Fn after Warmup untimed ones; each iteration
/// starts after a barrier (MPI_Ibarrier waited with yield) and its time is
/// the slowest rank's. Collective over Comm; every rank gets the times.
/// With Makespan, also each iteration's makespan on one clock: the latest
/// rank's end minus the earliest rank's start in MPI_Wtime, meaningful when
/// every rank reads the same clock (sharedClock). Ranks leave the barrier
/// at different moments, so a rank that starts late can finish its own part
/// quickly and the slowest rank's time undercounts the collective.
llvm::Expected<std::vector<double>>
timeIterations(MPI_Comm Comm, unsigned Warmup, unsigned Iterations,
               const std::function<llvm::Error()> &Fn,
               std::vector<double> *Makespan = nullptr);

/// Whether every rank of Comm runs on one host (the same processor name),
/// so that MPI_Wtime is one clock for all of them. Collective over Comm.
bool sharedClock(MPI_Comm Comm);

double median(std::vector<double> V);

} // namespace choreo::harness

#endif
