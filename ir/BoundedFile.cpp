//===- ir/BoundedFile.cpp - Input files read whole, within a bound --------===//
///
/// \file
/// The bounded readers of ir/BoundedFile.h: a regular file checked by its
/// status before and after it is opened, and standard input read in pieces.
///
//===----------------------------------------------------------------------===//

#include "ir/BoundedFile.h"

#include "ir/Diagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <new>
#include <string>
#include <unistd.h>

using namespace choreo;
using llvm::formatv;
namespace fs = llvm::sys::fs;

namespace {

llvm::Error unreadable(const llvm::Twine &Msg) {
  return makeDiagError("unreadable", Msg.str());
}

llvm::Error cannotOpen(llvm::StringRef Path, std::error_code EC) {
  return unreadable(formatv("cannot open {0}: {1}", Path, EC.message()));
}

/// Why a file of status St is not read, or success.
llvm::Error refusal(llvm::StringRef Path, const fs::file_status &St,
                    uint64_t MaxBytes) {
  if (!fs::is_regular_file(St))
    return unreadable(formatv("{0} is not a regular file", Path));
  if (St.getSize() > MaxBytes)
    return unreadable(formatv("{0} is {1} bytes, larger than the limit of "
                              "{2} bytes",
                              Path, St.getSize(), MaxBytes));
  return llvm::Error::success();
}

/// A memory buffer that owns the bytes read from standard input.
class OwnedBuffer : public llvm::MemoryBuffer {
public:
  explicit OwnedBuffer(std::string Bytes) : Bytes(std::move(Bytes)) {
    init(this->Bytes.data(), this->Bytes.data() + this->Bytes.size(),
         /*RequiresNullTerminator=*/false);
  }
  BufferKind getBufferKind() const override { return MemoryBuffer_Malloc; }
  llvm::StringRef getBufferIdentifier() const override { return "<stdin>"; }

private:
  std::string Bytes;
};

} // namespace

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
choreo::readBoundedFile(llvm::StringRef Path, uint64_t MaxBytes) {
  // What is not a regular file is refused before it is opened (opening a
  // FIFO blocks, /dev/zero never ends), and again once open.
  fs::file_status St;
  if (std::error_code EC = fs::status(Path, St))
    return cannotOpen(Path, EC);
  if (llvm::Error E = refusal(Path, St, MaxBytes))
    return E;
  auto File = fs::openNativeFileForRead(Path);
  if (!File)
    return cannotOpen(Path, llvm::errorToErrorCode(File.takeError()));
  std::error_code EC = fs::status(*File, St);
  llvm::Error Why = EC ? llvm::Error::success() : refusal(Path, St, MaxBytes);
  std::unique_ptr<llvm::MemoryBuffer> Buf;
  if (!EC && !Why) {
    auto B = llvm::MemoryBuffer::getOpenFile(*File, Path, St.getSize(),
                                             /*RequiresNullTerminator=*/false);
    if (B)
      Buf = std::move(*B);
    else
      EC = B.getError();
  }
  fs::closeFile(*File);
  if (Why)
    return Why;
  if (EC)
    return cannotOpen(Path, EC);
  return Buf;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
choreo::readBoundedStdin(uint64_t MaxBytes, StartCheck CheckStart) {
  fs::file_status St;
  if (std::error_code EC = fs::status(STDIN_FILENO, St))
    return unreadable(formatv("cannot read standard input: {0}", EC.message()));
  fs::file_type T = St.type();
  bool Terminal = T == fs::file_type::character_file && ::isatty(STDIN_FILENO);
  if (T != fs::file_type::regular_file && T != fs::file_type::fifo_file &&
      T != fs::file_type::socket_file && !Terminal)
    return unreadable("standard input is not a file or a pipe (a device or "
                      "a directory)");
  auto TooLarge = [&] {
    return unreadable(
        formatv("standard input holds more than {0} bytes, the limit (give "
                "a larger schedule as a file)",
                MaxBytes));
  };
  if (T == fs::file_type::regular_file) {
    off_t At = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
    if (At >= 0 && St.getSize() > uint64_t(At) &&
        St.getSize() - uint64_t(At) > MaxBytes)
      return TooLarge();
  }
  std::string Data;
  try {
    constexpr size_t Piece = 1 << 16;
    for (;;) {
      size_t Old = Data.size();
      Data.resize(Old + Piece);
      auto N = fs::readNativeFile(
          fs::getStdinHandle(),
          llvm::MutableArrayRef<char>(Data.data() + Old, Piece));
      if (!N)
        return unreadable(formatv("cannot read standard input: {0}",
                                  llvm::toString(N.takeError())));
      Data.resize(Old + *N);
      if (CheckStart && Old == 0 && *N > 0)
        if (llvm::Error E = CheckStart(Data))
          return E;
      if (Data.size() > MaxBytes)
        return TooLarge();
      if (*N == 0)
        break;
    }
  } catch (const std::bad_alloc &) {
    return unreadable(formatv("out of memory reading standard input after "
                              "{0} bytes",
                              Data.size()));
  }
  return std::make_unique<OwnedBuffer>(std::move(Data));
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
choreo::readBoundedFileOrStdin(llvm::StringRef Path, uint64_t FileMaxBytes,
                               uint64_t StdinMaxBytes, StartCheck CheckStart) {
  if (Path == "-")
    return readBoundedStdin(StdinMaxBytes, CheckStart);
  return readBoundedFile(Path, FileMaxBytes);
}
