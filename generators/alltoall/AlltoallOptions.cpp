//===- generators/alltoall/AlltoallOptions.cpp - Alltoall options ---------===//
///
/// \file
/// Declarations of the alltoall generators' options and the reader of the
/// sizes.
///
//===----------------------------------------------------------------------===//

#include "generators/alltoall/AlltoallOptions.h"

#include "generators/CommonOptions.h"
#include "ir/PairMatrix.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

const Option<Size> &opt::pairBytes() {
  static const Option<Size> O = sizeOption(
      "bytes", "bytes each rank sends every rank (alltoall)", SizedGroup::All);
  return O;
}

const Option<SizeList> &opt::pairs() {
  static const Option<SizeList> O = sizeListOption(
      "pairs",
      "comma list of p x p sizes, row-major: entry i*p+j is the bytes rank i "
      "sends rank j (alltoallv)",
      SizedGroup::All);
  return O;
}

const Option<SizeList> &opt::rankPart() {
  static const Option<SizeList> O = sizeListOption(
      "rank-part",
      "one rank's part of an alltoallv, built from its row and column "
      "alone (a rank form): rank, where its row starts in buffer all, the "
      "buffer's length, then p entries each of its row, its column, where "
      "each block of its column starts, and the used offsets (docs/alltoall.md)");
  return O;
}

const Option<SizeList> &opt::relayed() {
  static const Option<SizeList> O = sizeListOption(
      "relayed",
      "with --rank-part: the blocks the rank relays in Bruck's rounds: the "
      "radix, then the start in buffer all and the bytes of each block it "
      "receives, round by round, offsets in increasing order "
      "(docs/alltoall.md)");
  return O;
}

std::vector<uint64_t> choreo::rankPartList(const RankSizes &Rs) {
  std::vector<uint64_t> L = {Rs.Me, Rs.RowAt, Rs.Total};
  for (const std::vector<uint64_t> *V : {&Rs.Row, &Rs.Column, &Rs.ColumnAt,
                                         &Rs.Used})
    L.insert(L.end(), V->begin(), V->end());
  return L;
}

std::optional<RankSizes> choreo::rankPartOf(llvm::ArrayRef<uint64_t> L,
                                            uint64_t P) {
  if (L.size() != 3 + 4 * P || L[0] >= P)
    return std::nullopt;
  RankSizes Rs;
  Rs.Me = Rank(L[0]);
  Rs.RowAt = L[1];
  Rs.Total = L[2];
  for (auto [I, V] : {std::pair{0, &Rs.Row}, std::pair{1, &Rs.Column},
                      std::pair{2, &Rs.ColumnAt}, std::pair{3, &Rs.Used}})
    V->assign(L.begin() + 3 + I * P, L.begin() + 3 + (I + 1) * P);
  return Rs;
}

llvm::Expected<RankSizes>
choreo::rankPartOption(llvm::ArrayRef<uint64_t> L, uint64_t N, bool Inter) {
  if (std::optional<RankSizes> Rs = rankPartOf(L, N))
    return std::move(*Rs);
  const char *Ranks = Inter ? "p + q" : "p";
  if (L.size() == 3 + 4 * N)
    return optionError("rank-part",
                       formatv("its rank (the first entry) is {0}, not below "
                               "{1} = {2}",
                               L[0], Ranks, N));
  return optionError(
      "rank-part",
      formatv("{0} entries; {1} need{2} 3 + 4 {3} = {4} (rank below {5}, row "
              "start, length, then row, column, column starts and used {6}, "
              "{5} each)",
              L.size(),
              Inter ? formatv("p + q = {0} ranks", N).str()
                    : formatv("--p {0}", N).str(),
              Inter ? "" : "s", Inter ? "(p + q)" : "p", 3 + 4 * N, Ranks,
              Inter ? "steps" : "offsets"));
}

const Option<uint64_t> &opt::radix() {
  static const Option<uint64_t> O =
      countOption("radix", "radix k: ceil(log_k p) rounds of k - 1 "
                           "messages, blocks moved by digit")
          .withDefault("2");
  return O;
}

const Option<OneOf<bool>> &opt::concurrent() {
  static const Option<OneOf<bool>> O =
      choiceOption<bool>("concurrent",
                         "on: a round's k - 1 messages in one step (ports "
                         "k - 1); off: one step each, single-port",
                         {{"on", true}, {"off", false}})
          .withDefault("off");
  return O;
}

const Option<OneOf<bool>> &opt::lattice() {
  static const Option<OneOf<bool>> O =
      choiceOption<bool>("lattice",
                         "on: each message as at most 8 rectangles of the "
                         "block matrix (lattice blocks; --bytes only); off: "
                         "byte ranges",
                         {{"on", true}, {"off", false}})
          .withDefault("on");
  return O;
}

const Option<uint64_t> &opt::batch() {
  static const Option<uint64_t> O =
      countOption("batch", "messages each rank has in flight per step (as "
                           "MPIR_CVAR_ALLTOALL_THROTTLE; 0: all p - 1)")
          .withDefault("32");
  return O;
}

llvm::Expected<Schedule> choreo::alltoallHeader(const OptionValues &V) {
  auto N = groupCount(V, opt::ranks());
  if (!N)
    return N.takeError();
  uint64_t P = *N, Entries = P * P;
  std::optional<uint64_t> Bytes = V.lookup(opt::pairBytes());
  std::optional<std::vector<uint64_t>> Pairs;
  if (V.decl(opt::pairs()))
    Pairs = V.lookup(opt::pairs());
  if (Pairs && Entries > MaxPairs)
    return optionError("p", formatv("{0} ranks make an alltoallv header of {1} "
                                    "sizes (p x p); choreo builds at most {2} "
                                    "(p up to 4096; --bytes takes any p)",
                                    P, Entries, MaxPairs));
  if (Bytes && Pairs)
    return optionError("pairs", "give --bytes or --pairs, not both");
  if (!Bytes && !Pairs && !(V.decl(opt::rankPart()) &&
                            V.lookup(opt::rankPart())))
    return optionError("bytes", V.decl(opt::pairs())
                                    ? "missing: give --bytes (every block "
                                      "alike) or --pairs (p x p sizes)"
                                    : "missing: the bytes each rank sends "
                                      "every rank");
  std::optional<std::vector<uint64_t>> Part;
  if (V.decl(opt::rankPart()))
    Part = V.lookup(opt::rankPart());
  if (Part && (Bytes || Pairs))
    return optionError("rank-part", "give --rank-part alone (a rank's row "
                                    "and column), not with --bytes or --pairs");
  std::optional<std::vector<uint64_t>> Relayed;
  if (V.decl(opt::relayed()))
    Relayed = V.lookup(opt::relayed());
  if (Relayed && !Part)
    return optionError("relayed", "goes with --rank-part (a rank's row and "
                                  "column and the blocks it relays)");
  Schedule S;
  S.Kind = Pairs || Part ? Collective::Alltoallv : Collective::Alltoall;
  setIntragroup(S, P, {});
  if (Part) {
    auto Rs = rankPartOption(*Part, P, /*Inter=*/false);
    if (!Rs)
      return Rs.takeError();
    if (Relayed) {
      BruckRelays Br(P, Relayed->empty() ? 0 : Relayed->front());
      if (Relayed->empty() || Relayed->front() < 2 ||
          Relayed->size() != 1 + 2 * Br.total())
        return optionError(
            "relayed",
            formatv("{0} entries; the radix (at least 2) first, then two for "
                    "each block a rank receives (radix {1} over --p {2}: {3})",
                    Relayed->size(), Relayed->empty() ? 0 : Relayed->front(),
                    P, 1 + 2 * Br.total()));
      Rs->Relay = std::move(*Relayed);
    }
    setRankSizes(S, std::move(*Rs));
    return S;
  }
  if (Bytes) {
    if (*Bytes != 0 && Entries > UINT64_MAX / *Bytes)
      return optionError("bytes", "the sizes add up past 2^64 bytes");
    setUniformBlock(S, *Bytes);
    return S;
  }
  std::vector<uint64_t> M;
  {
    if (Pairs->size() != Entries)
      return optionError("pairs", formatv("{0} sizes; --p {1} needs p x p = "
                                          "{2}, row-major (entry i*p+j is "
                                          "the bytes rank i sends rank j)",
                                          Pairs->size(), P, Entries));
    uint64_t Sum = 0;
    for (uint64_t X : *Pairs) {
      if (Sum + X < Sum)
        return optionError("pairs", "the sizes add up past 2^64 bytes");
      Sum += X;
    }
    M = std::move(*Pairs);
  }
  S.Sizes = {{"pairs", std::move(M)}};
  return S;
}
