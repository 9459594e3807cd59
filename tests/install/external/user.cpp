//===- tests/install/external/user.cpp - A C++ user of an installed choreo ===//
///
/// \file
/// mpiexec -n P user-cxx SCHEDULE: reads and proves the schedule with the
/// runtime's C++ API (Plan::createFromFile, the pipeline of
/// executor/Pipeline.h), runs it, and checks every rank's result; a
/// schedule error prints with llvm::toString. Prints "user-cxx: passed" on
/// rank 0 when every rank passed.
///
//===----------------------------------------------------------------------===//

#include "executor/Plan.h"

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Me, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int Bad = argc < 2;
  std::vector<unsigned char> Mine(8), All(8 * P), Ref(8 * P);
  for (int I = 0; I < 8; ++I)
    Mine[I] = static_cast<unsigned char>(Me * 8 + I + 1);
  for (int I = 0; I < 8 * P; ++I)
    Ref[I] = static_cast<unsigned char>(I + 1);
  if (!Bad) {
    choreo::UserBuffers B;
    B.Send = Mine.data();
    B.SendBytes = Mine.size();
    B.Recv = All.data();
    B.RecvBytes = All.size();
    auto Plan = choreo::Plan::createFromFile(argv[1], MPI_COMM_WORLD, B);
    if (!Plan) {
      std::fprintf(stderr, "rank %d: %s\n", Me,
                   llvm::toString(Plan.takeError()).c_str());
      Bad = 1;
    } else if (auto E = (*Plan)->execute()) {
      std::fprintf(stderr, "rank %d: %s\n", Me,
                   llvm::toString(std::move(E)).c_str());
      Bad = 1;
    } else if (All != Ref) {
      Bad = 1;
    }
  }
  int AnyBad = 0;
  MPI_Allreduce(&Bad, &AnyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (Me == 0)
    std::printf(AnyBad ? "user-cxx: FAILED\n" : "user-cxx: passed\n");
  MPI_Finalize();
  return AnyBad;
}
