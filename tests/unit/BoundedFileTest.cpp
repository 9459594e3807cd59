//===- tests/unit/BoundedFileTest.cpp - Bounded whole-file reads ----------===//
///
/// \file
/// ir/BoundedFile.h: a regular file is read whole up to its bound and
/// refused past it; a directory, a FIFO and a device are refused before
/// they are read, naming the path; standard input (a pipe or a regular
/// file put on descriptor 0 here) is read up to its bound, refused past it
/// or at its first bytes, and refused when it is a device.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "ir/BoundedFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace choreo;
using namespace choreo::test;

namespace {

/// A fresh directory, removed with the object.
class TempDir {
public:
  TempDir() { llvm::sys::fs::createUniqueDirectory("bounded-file", Path); }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string file(llvm::StringRef Name, llvm::StringRef Bytes) const {
    std::string P = (Path + "/" + Name).str();
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    OS << Bytes;
    return P;
  }
  std::string path(llvm::StringRef Name) const {
    return (Path + "/" + Name).str();
  }
  std::string dir() const { return std::string(Path); }

private:
  llvm::SmallString<128> Path;
};

/// Descriptor 0 replaced by Fd while the object lives.
class StdinFrom {
public:
  explicit StdinFrom(int Fd) : Saved(::dup(0)) {
    ::dup2(Fd, 0);
    ::close(Fd);
  }
  ~StdinFrom() {
    ::dup2(Saved, 0);
    ::close(Saved);
  }

private:
  int Saved;
};

/// Standard input as a pipe that holds Bytes (at most a pipe's buffer).
int pipeOf(llvm::StringRef Bytes) {
  int P[2];
  EXPECT_EQ(::pipe(P), 0);
  EXPECT_EQ(::write(P[1], Bytes.data(), Bytes.size()), ssize_t(Bytes.size()));
  ::close(P[1]);
  return P[0];
}

} // namespace

TEST(BoundedFile, RegularFilesUpToTheBound) {
  TempDir D;
  std::string F = D.file("ten.json", "0123456789");
  auto Whole = readBoundedFile(F, 10);
  ASSERT_TRUE(bool(Whole)) << errorText(std::move(Whole));
  EXPECT_EQ((*Whole)->getBuffer(), "0123456789");
  EXPECT_EQ(errorText(readBoundedFile(F, 9)),
            F + " is 10 bytes, larger than the limit of 9 bytes");
  EXPECT_EQ(errorText(readBoundedFile(D.path("none.json"), 9)),
            "cannot open " + D.path("none.json") +
                ": No such file or directory");
  auto Empty = readBoundedFile(D.file("empty", ""), 0);
  ASSERT_TRUE(bool(Empty));
  EXPECT_EQ((*Empty)->getBufferSize(), 0u);
}

TEST(BoundedFile, WhatIsNotARegularFileIsRefused) {
  TempDir D;
  std::string Fifo = D.path("fifo");
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  // Opening a FIFO without a writer would block: refused before.
  EXPECT_EQ(errorText(readBoundedFile(Fifo, 100)),
            Fifo + " is not a regular file");
  EXPECT_EQ(errorText(readBoundedFile("/dev/zero", 100)),
            "/dev/zero is not a regular file");
  EXPECT_EQ(errorText(readBoundedFile(D.dir(), 100)),
            D.dir() + " is not a regular file");
}

TEST(BoundedFile, StandardInputUpToTheBound) {
  {
    StdinFrom In(pipeOf(std::string(100, 'x')));
    auto B = readBoundedStdin(100);
    ASSERT_TRUE(bool(B)) << errorText(std::move(B));
    EXPECT_EQ((*B)->getBufferSize(), 100u);
  }
  {
    StdinFrom In(pipeOf(std::string(100, 'x')));
    EXPECT_EQ(errorText(readBoundedStdin(99)),
              "standard input holds more than 99 bytes, the limit (give a "
              "larger schedule as a file)");
  }
  {
    TempDir D;
    StdinFrom In(::open(D.file("f", std::string(50, 'y')).c_str(), O_RDONLY));
    EXPECT_EQ(errorText(readBoundedStdin(49)),
              "standard input holds more than 49 bytes, the limit (give a "
              "larger schedule as a file)");
  }
  {
    TempDir D;
    StdinFrom In(::open(D.file("f", std::string(50, 'y')).c_str(), O_RDONLY));
    auto B = readBoundedFileOrStdin("-", 0, 50);
    ASSERT_TRUE(bool(B)) << errorText(std::move(B));
    EXPECT_EQ((*B)->getBuffer(), std::string(50, 'y'));
  }
}

TEST(BoundedFile, StandardInputRefusedAtItsStartOrAsADevice) {
  {
    StdinFrom In(pipeOf(std::string(10, '\0')));
    auto NoNul = [](llvm::StringRef Start) -> llvm::Error {
      if (Start.contains('\0'))
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "a NUL byte");
      return llvm::Error::success();
    };
    EXPECT_EQ(errorText(readBoundedStdin(1 << 20, NoNul)), "a NUL byte");
  }
  {
    StdinFrom In(::open("/dev/zero", O_RDONLY));
    EXPECT_EQ(errorText(readBoundedStdin(1 << 20)),
              "standard input is not a file or a pipe (a device or a "
              "directory)");
  }
}
