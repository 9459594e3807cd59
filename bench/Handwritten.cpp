//===- bench/Handwritten.cpp - The same algorithms, written by hand -------===//
///
/// \file
/// Hand-written MPI implementations of two algorithms choreo generates, to
/// measure what executing a schedule costs over writing the algorithm
/// directly: the same messages, the same Isend/Irecv per step, the same
/// MPI_Testall + sched_yield waiting, no plan.
///
///   mpiexec -n P choreo-bench-handwritten ring P BYTES [ITER]
///   mpiexec -n P+Q choreo-bench-handwritten kang P Q BYTES [ITER]   (P >= Q)
///
/// Prints one JSON object (rank 0): the median over iterations of the
/// slowest rank's time, and whether the result was right.
///
//===----------------------------------------------------------------------===//

#include "harness/Harness.h"

#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <mpi.h>
#include <sched.h>

using namespace choreo;

namespace {

void waitAll(std::vector<MPI_Request> &Reqs) {
  int Done = 0;
  while (MPI_Testall(Reqs.size(), Reqs.data(), &Done, MPI_STATUSES_IGNORE) ==
             MPI_SUCCESS &&
         !Done)
    sched_yield();
  Reqs.clear();
}

char pattern(int Buffer, size_t X) {
  return static_cast<char>((X * 131 + (X >> 8) * 7 + Buffer * 89 + 17) & 0xFF);
}

/// Ring allgather over Comm: Me's block of Bytes is already in place.
void ringAllgather(MPI_Comm Comm, int Me, int N, char *Recv,
                   const std::vector<uint64_t> &Displ) {
  std::vector<MPI_Request> Reqs;
  int Right = (Me + 1) % N, Left = (Me + N - 1) % N;
  for (int S = 0; S + 1 < N; ++S) {
    int SendBlock = (Me - S + N) % N, RecvBlock = (Me - S - 1 + 2 * N) % N;
    uint64_t RecvLen = Displ[RecvBlock + 1] - Displ[RecvBlock];
    uint64_t SendLen = Displ[SendBlock + 1] - Displ[SendBlock];
    Reqs.resize(2);
    MPI_Irecv(Recv + Displ[RecvBlock], RecvLen, MPI_BYTE, Left, S, Comm,
              &Reqs[0]);
    MPI_Isend(Recv + Displ[SendBlock], SendLen, MPI_BYTE, Right, S, Comm,
              &Reqs[1]);
    waitAll(Reqs);
  }
}

uint64_t partStart(uint64_t K, uint64_t N, uint64_t I) {
  return I * (K / N) + std::min(I, K % N);
}

int ring(int P, uint64_t Bytes, unsigned Iter) {
  int Me;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  std::vector<char> Send(Bytes), Recv(Bytes * P);
  for (uint64_t X = 0; X < Bytes; ++X)
    Send[X] = pattern(0, Me * Bytes + X);
  std::vector<uint64_t> Displ(P + 1);
  for (int I = 0; I <= P; ++I)
    Displ[I] = I * Bytes;
  auto Times = harness::timeIterations(MPI_COMM_WORLD, 1, Iter, [&] {
    std::memcpy(&Recv[Me * Bytes], Send.data(), Bytes);
    ringAllgather(MPI_COMM_WORLD, Me, P, Recv.data(), Displ);
    return llvm::Error::success();
  });
  bool Ok = true;
  for (uint64_t X = 0; X < Recv.size(); ++X)
    Ok &= Recv[X] == pattern(0, X);
  int AllOk = Ok;
  MPI_Allreduce(MPI_IN_PLACE, &AllOk, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (Me == 0)
    llvm::outs() << "{\"algorithm\":\"ring\",\"p\":" << P
                 << ",\"bytes\":" << Bytes
                 << ",\"median_s\":" << harness::median(*Times)
                 << ",\"correct\":" << (AllOk ? "true" : "false") << "}\n";
  return AllOk ? 0 : 1;
}

/// Kang et al. Algorithm 1 for P >= Q, uniform sizes, ring allgathers.
int kang(int P, int Q, uint64_t Bytes, unsigned Iter) {
  int World;
  MPI_Comm_rank(MPI_COMM_WORLD, &World);
  bool InA = World < P;
  // A = world 0..P-1, B = P..P+Q-1, as in choreo's schedules; the merged
  // intracommunicator keeps those numbers.
  MPI_Comm Local, Inter, Comm;
  MPI_Comm_split(MPI_COMM_WORLD, InA ? 0 : 1, World, &Local);
  MPI_Intercomm_create(Local, 0, MPI_COMM_WORLD, InA ? P : 0, 9, &Inter);
  MPI_Intercomm_merge(Inter, InA ? 0 : 1, &Comm);
  int Me;
  MPI_Comm_rank(Comm, &Me);
  int Mine = InA ? Me : Me - P;
  std::vector<char> Send(Bytes), Recv(Bytes * (InA ? Q : P));
  for (uint64_t X = 0; X < Bytes; ++X)
    Send[X] = pattern(InA ? 0 : 1, Mine * Bytes + X);
  // Subgroup j of A: members [start(j), start(j+1)); segment i of m_B,j.
  auto Start = [&](int J) { return partStart(P, Q, J); };
  int Rounds = (P + Q - 1) / Q;
  // What each member contributes to its group's allgather (byte layout of
  // the receive buffer): A's members one segment of B each, B's members
  // the messages of their subgroup.
  std::vector<uint64_t> DisplA(P + 1), DisplB(Q + 1);
  for (int J = 0; J < Q; ++J) {
    uint64_t N = Start(J + 1) - Start(J);
    for (uint64_t I = 0; I < N; ++I)
      DisplA[Start(J) + I] = J * Bytes + partStart(Bytes, N, I);
    DisplB[J] = Start(J) * Bytes;
  }
  DisplA[P] = Q * Bytes;
  DisplB[Q] = P * Bytes;
  std::vector<MPI_Request> Reqs;
  auto Times = harness::timeIterations(MPI_COMM_WORLD, 1, Iter, [&] {
    for (int I = 0; I < Rounds; ++I) {
      Reqs.clear();
      if (InA) {
        int J = 0;
        while (Start(J + 1) <= uint64_t(Me))
          ++J;
        if (uint64_t(Me) == Start(J) + I) {
          Reqs.resize(2);
          uint64_t Lo = DisplA[Me], Hi = DisplA[Me + 1];
          MPI_Irecv(&Recv[Lo], Hi - Lo, MPI_BYTE, P + J, I, Comm, &Reqs[0]);
          MPI_Isend(Send.data(), Bytes, MPI_BYTE, P + J, I, Comm, &Reqs[1]);
        }
      } else if (uint64_t(I) < Start(Mine + 1) - Start(Mine)) {
        uint64_t X = Start(Mine) + I, N = Start(Mine + 1) - Start(Mine);
        Reqs.resize(2);
        MPI_Irecv(&Recv[X * Bytes], Bytes, MPI_BYTE, X, I, Comm, &Reqs[0]);
        uint64_t Lo = partStart(Bytes, N, I), Hi = partStart(Bytes, N, I + 1);
        MPI_Isend(&Send[Lo], Hi - Lo, MPI_BYTE, X, I, Comm, &Reqs[1]);
      }
      waitAll(Reqs);
    }
    ringAllgather(Local, Mine, InA ? P : Q, Recv.data(), InA ? DisplA : DisplB);
    return llvm::Error::success();
  });
  bool Ok = true;
  for (uint64_t X = 0; X < Recv.size(); ++X)
    Ok &= Recv[X] == pattern(InA ? 1 : 0, X);
  int AllOk = Ok;
  MPI_Allreduce(MPI_IN_PLACE, &AllOk, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (World == 0)
    llvm::outs() << "{\"algorithm\":\"kang\",\"p\":" << P << ",\"q\":" << Q
                 << ",\"bytes\":" << Bytes
                 << ",\"median_s\":" << harness::median(*Times)
                 << ",\"correct\":" << (AllOk ? "true" : "false") << "}\n";
  MPI_Comm_free(&Comm);
  MPI_Comm_free(&Inter);
  MPI_Comm_free(&Local);
  return AllOk ? 0 : 1;
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Code = 2;
  std::vector<std::string> A(Argv + 1, Argv + Argc);
  if (A.size() >= 3 && A[0] == "ring")
    Code = ring(std::stoi(A[1]), std::stoull(A[2]),
                A.size() > 3 ? std::stoi(A[3]) : 10);
  else if (A.size() >= 4 && A[0] == "kang")
    Code = kang(std::stoi(A[1]), std::stoi(A[2]), std::stoull(A[3]),
                A.size() > 4 ? std::stoi(A[4]) : 10);
  else
    llvm::errs() << "usage: choreo-bench-handwritten ring P BYTES [ITER] | "
                    "kang P Q BYTES [ITER]\n";
  MPI_Finalize();
  return Code;
}
