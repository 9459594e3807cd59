//===- tests/fuzz/FuzzMain.cpp - Replaying a corpus without libFuzzer -----===//
///
/// \file
/// For compilers without -fsanitize=fuzzer (GCC): runs the target's
/// LLVMFuzzerTestOneInput on every file named, or in a directory named, as
/// libFuzzer does on a corpus without fuzzing. The seed corpora's ctests
/// (label fuzz) use it; under CHOREO_SANITIZE they run instrumented.
///
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

int main(int Argc, char **Argv) {
  std::vector<std::filesystem::path> Files;
  for (int I = 1; I < Argc; ++I) {
    std::filesystem::path P(Argv[I]);
    if (std::filesystem::is_directory(P)) {
      for (const auto &E : std::filesystem::directory_iterator(P))
        if (E.is_regular_file())
          Files.push_back(E.path());
    } else {
      Files.push_back(P);
    }
  }
  for (const auto &F : Files) {
    std::ifstream In(F, std::ios::binary);
    std::string Data((std::istreambuf_iterator<char>(In)),
                     std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(Data.data()),
                           Data.size());
  }
  std::printf("replayed %zu inputs\n", Files.size());
  return Files.empty() ? 1 : 0;
}
