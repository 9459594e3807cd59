//===- ir/BoundedFile.h - Input files read whole, within a bound -*- C++
//-*-===//
///
/// \file
/// How the tools read an input whole where a regular file is expected (a
/// schedule, a topology, a template, a selection file): within a size
/// bound, and only from a regular file. What is not one (a directory, a
/// FIFO, `/dev/zero`) is refused before it is opened (opening a FIFO
/// blocks) and again once open, and so is a file larger than the bound;
/// the error names the path. Standard input (`-`, where a command takes it)
/// is a regular file, a pipe, a socket or a terminal, and is read in pieces
/// up to the bound: never more than the bound and one byte.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_BOUNDEDFILE_H
#define CHOREO_IR_BOUNDEDFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>

namespace choreo {

/// A schedule file (format v1, JSON or CBOR): mapped, not copied; 4 GiB is
/// about 40 million ops in JSON, where generators stop at 2·10^8 ops
/// in memory.
inline constexpr uint64_t MaxScheduleFileBytes = 4ull << 30;
/// A schedule on standard input: copied into memory, so a smaller bound.
inline constexpr uint64_t MaxScheduleStdinBytes = 1ull << 30;
/// A small text input: a topology object (a few kilobytes over 64 ranks), a
/// template.
inline constexpr uint64_t MaxSmallFileBytes = 4ull << 20;

/// The regular file Path, whole, if it has at most MaxBytes bytes. Errors
/// (kind "unreadable", ir/Diagnostics.h): "cannot open PATH: REASON",
/// "PATH is not a regular file", "PATH is N bytes, larger than the limit of
/// M bytes".
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readBoundedFile(llvm::StringRef Path, uint64_t MaxBytes);

/// What a reader of standard input may refuse from the first bytes alone
/// (checked once, on the first piece read), so that a pipe of junk is
/// refused at once rather than at the bound.
using StartCheck = llvm::function_ref<llvm::Error(llvm::StringRef Start)>;

/// Standard input, whole, if it holds at most MaxBytes bytes. Errors:
/// "standard input is not a file or a pipe" (a device, a directory),
/// "standard input holds more than M bytes", "cannot read standard input:
/// REASON", or CheckStart's.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readBoundedStdin(uint64_t MaxBytes, StartCheck CheckStart = nullptr);

/// readBoundedStdin for "-", else readBoundedFile.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readBoundedFileOrStdin(llvm::StringRef Path, uint64_t FileMaxBytes,
                       uint64_t StdinMaxBytes, StartCheck CheckStart = nullptr);

} // namespace choreo

#endif
