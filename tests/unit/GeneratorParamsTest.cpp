//===- tests/unit/GeneratorParamsTest.cpp - Impossible parameters ---------===//

#include "TestUtil.h"

using namespace choreo;
using namespace choreo::test;

namespace {
std::string genError(llvm::StringRef Algo, llvm::StringRef Args) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::SplitString(Args, Parts);
  std::vector<std::string> V(Parts.begin(), Parts.end());
  auto P = parseGenArgs(V);
  if (!P)
    return llvm::toString(P.takeError());
  return errorText(findGenerator(Algo)->generate(*P));
}
} // namespace

TEST(GeneratorParams, Sizes) {
  EXPECT_EQ(*parseSize("64K", "bytes"), 65536u);
  EXPECT_EQ(*parseSize("3M", "bytes"), 3u << 20);
  EXPECT_EQ(*parseSize("0", "bytes"), 0u);
  EXPECT_EQ(errorText(parseSize("-5", "bytes")),
            "--bytes: '-5' is not a size (a non-negative integer, optionally "
            "with K, M or G)");
  EXPECT_EQ(errorText(parseSize("99999999999999999999", "bytes")),
            "--bytes: '99999999999999999999' is not a size (a non-negative "
            "integer, optionally with K, M or G)");
}

TEST(GeneratorParams, ImpossibleValuesAreErrors) {
  EXPECT_EQ(genError("inter-allgather-kang", "--p 0 --q 2 --bytes-a 1 --bytes-b 1"),
            "--p: the size of group A must be at least 1");
  EXPECT_EQ(genError("inter-allgather-kang", "--q 2 --bytes-a 1 --bytes-b 1"),
            "--p: missing: the size of group A");
  EXPECT_EQ(genError("inter-allgather-kang",
                     "--p 3 --q 2 --counts-a 1,2 --bytes-b 1"),
            "--counts-a: 2 counts for a group of 3");
  EXPECT_EQ(genError("inter-allgather-kang",
                     "--p 3 --q 2 --bytes-a -1 --bytes-b 1"),
            "--bytes-a: '-1' is not a size (a non-negative integer, optionally "
            "with K, M or G)");
  EXPECT_EQ(genError("inter-allgather-kang", "--p 3 --q 2 --bytes-a 1"),
            "--bytes-b: missing: give --bytes-b (every member alike) or "
            "--counts-b (one per member)");
  EXPECT_EQ(genError("inter-allgather-kang",
                     "--p 3 --q 2 --bytes-a 1 --bytes-b 1 --intra tree"),
            "--intra: 'tree' is not one of ring, bruck");
  EXPECT_EQ(genError("inter-allgather-kang",
                     "--p 3 --q 2 --bytes-a 1 --bytes-b 1 --topology ring"),
            "--topology: this algorithm needs links the ring does not have; "
            "use --topology full");
  EXPECT_EQ(genError("allgather-ring", "--p 3 --bytes 1 --q 2"),
            "--q: allgather-ring does not take this option (it takes --p, "
            "--bytes, --counts, --topology, --base, --distribution)");
  EXPECT_EQ(genError("allgather-ring", "--p 3 --bytes 1 --bytes 2"),
            "--bytes: given twice");
  EXPECT_EQ(genError("allgather-ring", "--p 3 --frob 1"),
            "--frob: unknown option");
  EXPECT_EQ(genError("allgather-ring", "--p 3 --bytes"),
            "--bytes: missing value");
  EXPECT_EQ(genError("allgather-ring", "--p 30000 --bytes 1"),
            "allgather-ring: these parameters give about 899970000 ops, more "
            "than choreo builds in memory (200000000)");
  EXPECT_EQ(genError("allgather-ring",
                     "--p 2 --counts 18446744073709551615,1"),
            "--counts: the sizes add up past 2^64 bytes");
}

TEST(GeneratorParams, ParamsAreEchoed) {
  Schedule S = gen("inter-allgather-kang", "--p 4 --q 2 --bytes-a 8 --bytes-b 2K");
  EXPECT_EQ(S.Algorithm, "inter-allgather-kang");
  EXPECT_EQ(S.Params.dump(),
            R"({"p":4,"q":2,"bytes-a":8,"bytes-b":2048})");
}
