//===- tests/layering/SharedClient.cpp - An application of libchoreo.so ---===//
///
/// \file
/// A C++ MPI program linked against libchoreo.so and its own copy of LLVM
/// Support (static), as an application with an LLVM of its own is: it uses
/// only what libchoreo.so exports (the C API of executor/choreo.h and the
/// runtime's C++ API, docs/design.md), so it links only if those are
/// exported. mpiexec -n 2 choreo-shared-client DIR checks, on every rank:
///  1. the C API runs a 2-rank allgather and refuses a missing file with a
///     message naming it;
///  2. Plan::createFromFile runs the same schedule;
///  3. an error made inside libchoreo.so prints with the application's own
///     llvm::toString (llvm::Error's class identity crosses the library's
///     boundary), and is a choreo::DiagnosticError to llvm::handleErrors;
///  4. parseSchedule and checkExplicit: a schedule missing one op is not
///     proved.
/// Rank 0 prints "shared-client: passed" when every check held on every
/// rank.
///
//===----------------------------------------------------------------------===//

#include "executor/Pipeline.h"
#include "executor/Plan.h"
#include "executor/choreo.h"
#include "ir/ScheduleIO.h"
#include "verifier/Verifier.h"

#include "llvm/Support/Error.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

using namespace choreo;

namespace {

const char *const Ring = R"({
  "format": "choreo-schedule", "version": 1, "collective": "allgather",
  "ranks": 2, "groups": {"all": [0, 1]}, "sizes": {"all": [8, 8]},
  "root": null, "topology": {"kind": "full"},
  "ports": {"send": 1, "recv": 1, "duplex": true},
  "steps": [{"ops": [
    {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8}]},
    {"src": 1, "dst": 0, "blocks": [{"buf": "all", "lo": 8, "hi": 16}]}]}]
})";

const char *const HalfRing = R"({
  "format": "choreo-schedule", "version": 1, "collective": "allgather",
  "ranks": 2, "groups": {"all": [0, 1]}, "sizes": {"all": [8, 8]},
  "root": null, "topology": {"kind": "full"},
  "ports": {"send": 1, "recv": 1, "duplex": true},
  "steps": [{"ops": [
    {"src": 0, "dst": 1, "blocks": [{"buf": "all", "lo": 0, "hi": 8}]}]}]
})";

int Me = 0;
int Failures = 0;

void expect(bool Ok, const std::string &What) {
  if (!Ok) {
    std::fprintf(stderr, "shared-client: rank %d: %s\n", Me, What.c_str());
    ++Failures;
  }
}

/// This rank's 8 bytes, and whether Recv holds both ranks' after a run.
void fill(char *Send) {
  for (int I = 0; I < 8; ++I)
    Send[I] = static_cast<char>(Me * 16 + I + 1);
}
bool gathered(const char *Recv) {
  for (int R = 0; R < 2; ++R)
    for (int I = 0; I < 8; ++I)
      if (Recv[R * 8 + I] != static_cast<char>(R * 16 + I + 1))
        return false;
  return true;
}

void checkCApi(const std::string &File, const std::string &Missing) {
  char Send[8], Recv[16] = {};
  fill(Send);
  choreo_buffers B;
  choreo_buffers_init(&B);
  B.sendbuf = Send;
  B.sendbytes = sizeof Send;
  B.recvbuf = Recv;
  B.recvbytes = sizeof Recv;
  choreo_plan P = nullptr;
  int Rc = choreo_plan_create(File.c_str(), MPI_COMM_WORLD, &B, &P);
  expect(Rc == CHOREO_OK,
         std::string("choreo_plan_create: ") + choreo_last_error());
  if (Rc == CHOREO_OK) {
    expect(choreo_plan_execute(P) == CHOREO_OK, "choreo_plan_execute failed");
    expect(gathered(Recv), "the C API's allgather left wrong bytes");
  }
  choreo_plan_free(&P);
  Rc = choreo_plan_create(Missing.c_str(), MPI_COMM_WORLD, &B, &P);
  expect(Rc == CHOREO_ERR_PLAN &&
             std::strstr(choreo_last_error(), Missing.c_str()),
         std::string("a missing file: ") + choreo_last_error());
}

void checkCxxApi(const std::string &File, const std::string &Missing) {
  char Send[8], Recv[16] = {};
  fill(Send);
  UserBuffers B;
  B.Send = Send;
  B.SendBytes = sizeof Send;
  B.Recv = Recv;
  B.RecvBytes = sizeof Recv;
  auto P = Plan::createFromFile(File, MPI_COMM_WORLD, B);
  if (!P) {
    expect(false, "Plan::createFromFile: " + llvm::toString(P.takeError()));
  } else {
    llvm::Error E = (*P)->execute();
    expect(!E, "Plan::execute failed");
    llvm::consumeError(std::move(E));
    expect(gathered(Recv), "Plan's allgather left wrong bytes");
  }

  auto S = readProvedSchedule(Missing, MPI_COMM_WORLD);
  expect(!S, "readProvedSchedule read a file that does not exist");
  if (!S) {
    std::string Text = llvm::toString(S.takeError());
    expect(Text.find(Missing) != std::string::npos,
           "the error does not name the file: " + Text);
  }
  S = readProvedSchedule(Missing, MPI_COMM_WORLD);
  bool Diagnostic = false;
  llvm::Error Rest = llvm::handleErrors(
      S.takeError(), [&](const DiagnosticError &D) { Diagnostic = true; });
  expect(Diagnostic && !Rest, "the error is not a choreo::DiagnosticError");
  llvm::consumeError(std::move(Rest));
}

void checkEngine() {
  auto Whole = parseSchedule(Ring);
  auto Half = parseSchedule(HalfRing);
  expect(Whole && Half, "parseSchedule failed");
  if (!Whole || !Half) {
    llvm::consumeError(Whole.takeError());
    llvm::consumeError(Half.takeError());
    return;
  }
  expect(checkExplicit(*Whole).proved(),
         "checkExplicit does not prove the ring");
  expect(checkExplicit(*Half).St == VerifyResult::Status::Failed,
         "checkExplicit proves a ring missing an op");
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  if (Argc != 2) {
    std::fprintf(stderr, "usage: choreo-shared-client DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string Dir = Argv[1];
  std::string File = Dir + "/shared-client-ring.json";
  std::string Missing = Dir + "/shared-client-missing.json";
  if (Me == 0) {
    std::ofstream(File) << Ring;
    std::remove(Missing.c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);

  checkCApi(File, Missing);
  checkCxxApi(File, Missing);
  checkEngine();

  int All = 0;
  MPI_Allreduce(&Failures, &All, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Me == 0 && All == 0)
    std::printf("shared-client: passed\n");
  MPI_Finalize();
  return All == 0 ? 0 : 1;
}
