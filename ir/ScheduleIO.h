//===- ir/ScheduleIO.h - Reading and writing format v1 ----------*- C++ -*-===//
///
/// \file
/// Format v1 (schedule-format.md) as JSON and as CBOR. Reading streams the
/// document through a SAX parser straight into the flat StepList, so a
/// schedule of millions of ops never exists as a JSON tree; writing streams
/// too. Every reading error is a DiagnosticError naming a JSON pointer or a
/// byte offset; a schedule that is read is also structurally verified.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_SCHEDULEIO_H
#define CHOREO_IR_SCHEDULEIO_H

#include "ir/Schedule.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace choreo {

enum class FileFormat { Json, Cbor };

/// CBOR when the first byte is a CBOR map or the self-describe tag, else JSON.
FileFormat sniffFormat(llvm::StringRef Data);
/// From a file name's extension: ".cbor" is CBOR, anything else JSON.
FileFormat formatForPath(llvm::StringRef Path);
/// The value of a --format option: "json" or "cbor"; anything else is an
/// error naming the option.
llvm::Expected<FileFormat> parseFileFormat(llvm::StringRef Name);

struct ReadOptions {
  /// Keep only the ops this rank sends or receives (steps keep their
  /// numbering): what one process of an MPI job needs to build its plan,
  /// without holding every other rank's ops. The structural checks then see
  /// only those ops; prove the whole schedule elsewhere.
  std::optional<Rank> OnlyRank;
};

/// Parses a document (format sniffed from its first byte) and verifies its
/// structure.
llvm::Expected<Schedule> parseSchedule(llvm::StringRef Data,
                                       const ReadOptions &Opts = {});
/// What parseSchedule refuses from a document's first bytes alone (a JSON
/// document holding a NUL byte): lets a reader of standard input stop at
/// once (ir/BoundedFile.h).
llvm::Error checkScheduleStart(llvm::StringRef Start);
/// Reads a file ("-" is stdin) and parses it. Both are bounded
/// (ir/BoundedFile.h): a regular file of MaxScheduleFileBytes, standard
/// input of MaxScheduleStdinBytes.
llvm::Expected<Schedule> readScheduleFile(llvm::StringRef Path,
                                          const ReadOptions &Opts = {});

void writeSchedule(const Schedule &S, llvm::raw_ostream &OS, FileFormat F);
/// Writes to a file ("-" is stdout).
llvm::Error writeScheduleFile(const Schedule &S, llvm::StringRef Path,
                              FileFormat F);

} // namespace choreo

#endif
