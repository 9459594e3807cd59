//===- tests/fuzz/ReaderFuzzer.cpp - libFuzzer target: the schedule reader ===//
///
/// \file
/// Any bytes into parseSchedule (JSON or CBOR): a schedule or a diagnostic,
/// never a crash, a hang or a sanitizer report. A schedule that reads is
/// written back in both forms and must read again, and small ones are
/// replayed by the explicit engine.
///
//===----------------------------------------------------------------------===//

#include "ir/ScheduleIO.h"
#include "verifier/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace choreo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  auto S = parseSchedule(In);
  if (!S) {
    llvm::consumeError(S.takeError());
    return 0;
  }
  for (FileFormat F : {FileFormat::Json, FileFormat::Cbor}) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    writeSchedule(*S, OS, F);
    OS.flush();
    auto Again = parseSchedule(Out);
    if (!Again) {
      llvm::errs() << "a schedule that reads did not read again after "
                      "writing: "
                   << llvm::toString(Again.takeError()) << '\n';
      abort();
    }
  }
  // The replay keeps state per rank and buffer: small schedules only.
  if (S->NumRanks <= 4096 && S->Steps.numOps() <= 100000)
    (void)checkExplicit(*S);
  return 0;
}
