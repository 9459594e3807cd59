//===- executor/Yielding.cpp - Collectives that wait yielding -------------===//
///
/// \file
/// Each collective of executor/Yielding.h: its non-blocking PMPI_ form,
/// then wait().
///
//===----------------------------------------------------------------------===//

#include "executor/Yielding.h"

#include <sched.h>

using namespace choreo;

namespace {
void (*Idle)() = nullptr;
} // namespace

void yielding::setIdle(void (*Fn)()) { Idle = Fn; }

int yielding::wait(MPI_Request &R, MPI_Status *St) {
  int Done = 0;
  int Rc;
  while ((Rc = PMPI_Test(&R, &Done, St)) == MPI_SUCCESS && !Done) {
    if (Idle)
      Idle();
    sched_yield();
  }
  return Rc;
}

namespace {
/// Rc of the start, or of the wait.
int finish(int Rc, MPI_Request &R) {
  return Rc == MPI_SUCCESS ? yielding::wait(R) : Rc;
}
} // namespace

int yielding::allreduce(const void *In, void *Out, int N, MPI_Datatype T,
                        MPI_Op Op, MPI_Comm C) {
  MPI_Request R;
  return finish(PMPI_Iallreduce(In, Out, N, T, Op, C, &R), R);
}

int yielding::bcast(void *Buf, int N, MPI_Datatype T, int Root, MPI_Comm C) {
  MPI_Request R;
  return finish(PMPI_Ibcast(Buf, N, T, Root, C, &R), R);
}

int yielding::gather(const void *In, int N, MPI_Datatype T, void *Out, int M,
                     MPI_Datatype U, int Root, MPI_Comm C) {
  MPI_Request R;
  return finish(PMPI_Igather(In, N, T, Out, M, U, Root, C, &R), R);
}

int yielding::gatherv(const void *In, int N, MPI_Datatype T, void *Out,
                      const int *Counts, const int *Displs, MPI_Datatype U,
                      int Root, MPI_Comm C) {
  MPI_Request R;
  return finish(PMPI_Igatherv(In, N, T, Out, Counts, Displs, U, Root, C, &R),
                R);
}

int yielding::allgather(const void *In, int N, MPI_Datatype T, void *Out, int M,
                        MPI_Datatype U, MPI_Comm C) {
  MPI_Request R;
  return finish(PMPI_Iallgather(In, N, T, Out, M, U, C, &R), R);
}

int yielding::reduceScatterBlock(const void *In, void *Out, int N,
                                 MPI_Datatype T, MPI_Op Op, MPI_Comm C) {
  MPI_Request R;
  return finish(PMPI_Ireduce_scatter_block(In, Out, N, T, Op, C, &R), R);
}

int yielding::barrier(MPI_Comm C) {
  MPI_Request R;
  return finish(PMPI_Ibarrier(C, &R), R);
}

std::string yielding::bcastText(std::string Text, int Root, MPI_Comm C) {
  unsigned long long Len = Text.size();
  bcast(&Len, 1, MPI_UNSIGNED_LONG_LONG, Root, C);
  Text.resize(Len);
  bcast(Text.data(), int(Len), MPI_CHAR, Root, C);
  return Text;
}
