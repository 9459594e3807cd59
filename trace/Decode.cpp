//===- trace/Decode.cpp - Decoding content-tagged bytes ----------------===//
///
/// \file
/// Stream runs: a word read at some phase of the message names its offset
/// (its check makes a wrong phase show), the run is then extended as far
/// as the bytes follow the stream; a run too short to hold a whole word
/// must be the rest of the message, placed by trying every offset, and is
/// refused when none or several fit.
/// Reduction partials: one element at a time, merged while equal.
///
//===----------------------------------------------------------------------===//

#include "trace/Decode.h"
#include "trace/Encoding.h"

#include "ir/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"

#include <unordered_map>

using namespace choreo;
using namespace choreo::trace;
using llvm::formatv;
using llvm::StringRef;

namespace {

llvm::Error decodeError(const llvm::Twine &Msg) {
  return makeDiagError("trace-content", Msg.str());
}

/// How many bytes of M, from J, follow the stream from offset X (at most
/// to Total).
uint64_t matchLength(StringRef M, uint64_t J, unsigned U, uint64_t X,
                     uint64_t Total) {
  uint64_t N = 0, Max = std::min<uint64_t>(M.size() - J, Total - X);
  // Up to a word boundary byte by byte, then word by word.
  while (N < Max && (X + N) % U) {
    if ((unsigned char)M[J + N] != streamByte(U, X + N))
      return N;
    ++N;
  }
  while (N + U <= Max) {
    uint64_t W = streamWord(U, (X + N) / U), Have = 0;
    std::memcpy(&Have, M.data() + J + N, U < 8 ? U : 8);
    if (Have != W)
      break;
    N += U;
  }
  // A run ends on a word boundary when a whole word of another place
  // follows (packed blocks: its first bytes may equal the stream's next
  // ones by chance); a part of a word only ends a broadcast's chunk.
  if (N < Max && (X + N) % U == 0 && J + N + U <= M.size()) {
    uint64_t Have = 0;
    std::memcpy(&Have, M.data() + J + N, U);
    if (decodeWord(U, Have) >= 0)
      return N;
  }
  while (N < Max && (unsigned char)M[J + N] == streamByte(U, X + N))
    ++N;
  return N;
}

/// Where the run starting at M[J] lies in the stream (8-byte words), by a
/// whole word in its first 16 bytes; none when no word fits.
std::optional<uint64_t> phaseSearch(StringRef M, uint64_t J, uint64_t Total) {
  for (unsigned Phi = 0; Phi < 8 && J + Phi + 8 <= M.size(); ++Phi) {
    uint64_t W;
    std::memcpy(&W, M.data() + J + Phi, 8);
    int64_t K = decodeWord(8, W);
    if (K < 0 || uint64_t(K) * 8 < Phi || uint64_t(K) * 8 - Phi >= Total)
      continue;
    uint64_t X = uint64_t(K) * 8 - Phi;
    if (matchLength(M, J, 8, X, Total) >= Phi + 8)
      return X;
  }
  return std::nullopt;
}

} // namespace

llvm::Expected<std::vector<Run>>
choreo::trace::decodeStream(StringRef M, unsigned U, uint64_t Total) {
  std::vector<Run> Out;
  uint64_t J = 0;
  while (J < M.size()) {
    std::optional<uint64_t> X;
    if (U < 8) {
      if (J + U > M.size())
        return decodeError(formatv("byte {0} of {1}: the message ends inside "
                                   "a word of {2} bytes",
                                   J, M.size(), U));
      uint64_t W = 0;
      std::memcpy(&W, M.data() + J, U);
      int64_t K = decodeWord(U, W);
      if (K >= 0 && uint64_t(K) * U < Total)
        X = uint64_t(K) * U;
    } else {
      X = phaseSearch(M, J, Total);
    }
    if (!X) {
      // A run too short to hold a whole word: only as the rest of the
      // message (a short broadcast), placed by trying every offset.
      if (Total > (uint64_t(1) << 22))
        return decodeError(formatv("bytes {0}.. of a message of {1}: no tag "
                                   "of the collective's data",
                                   J, M.size()));
      uint64_t Rest = M.size() - J, Places = 0;
      for (uint64_t Y = 0; Y + Rest <= Total; ++Y)
        if (matchLength(M, J, U, Y, Total) == Rest && !Places++)
          X = Y;
      if (!Places)
        return decodeError(formatv("byte {0} of a message of {1} is no tag of "
                                   "the collective's data",
                                   J, M.size()));
      if (Places > 1)
        return decodeError(formatv(
            "bytes {0}..{1} of a message of {2} could lie at {3} places of the "
            "collective's data: the run is too short to place",
            J, M.size(), M.size(), Places));
    }
    uint64_t L = matchLength(M, J, U, *X, Total);
    if (!Out.empty() && Out.back().Hi == *X)
      Out.back().Hi += L;
    else
      Out.push_back({*X, *X + L});
    J += L;
  }
  return Out;
}

std::optional<ReductionEncoding> choreo::trace::parseEncoding(StringRef Name) {
  if (Name == "or")
    return ReductionEncoding::Or;
  if (Name == "sum")
    return ReductionEncoding::Sum;
  if (Name == "ordered")
    return ReductionEncoding::Ordered;
  return std::nullopt;
}

llvm::Expected<std::vector<Partial>>
choreo::trace::decodeReduction(StringRef M, ReductionEncoding Enc,
                               uint64_t Count) {
  bool Ordered = Enc == ReductionEncoding::Ordered;
  unsigned Words = Ordered ? OrderedWords : 1;
  uint64_t Elem = 8 * Words;
  if (M.size() % Elem)
    return decodeError(formatv("a message of {0} bytes is no whole number of "
                               "{1}-byte elements",
                               M.size(), Elem));
  std::unordered_map<uint64_t, Matrix> Products;
  std::vector<Partial> Out;
  for (uint64_t E = 0; E < M.size() / Elem; ++E) {
    uint64_t W[OrderedWords];
    std::memcpy(W, M.data() + E * Elem, Elem);
    Partial P;
    int64_t I = -1;
    if (Enc == ReductionEncoding::Sum) {
      uint64_t Index;
      bool Twice;
      if (decodeSumElement(W[0], Index, P.Bits, Twice))
        I = int64_t(Index);
      P.Flags = Twice ? FlagOverlap : 0;
    } else {
      I = decodePositionTag(uint32_t(W[0] >> 32));
      P.Bits = Ordered ? W[1] : W[0] & 0xffffffff;
    }
    if (I < 0 || uint64_t(I) >= Count)
      return decodeError(formatv("element {0} of the message (byte {1}) names "
                                 "no position of the vector",
                                 E, E * Elem));
    P.Lo = I;
    P.Hi = I + 1;
    if (Ordered) {
      P.Flags = W[0] & 0xffffffff;
      auto It = Products.find(P.Bits);
      if (It == Products.end())
        It = Products.emplace(P.Bits, orderedProduct(P.Bits)).first;
      P.InOrder = unpackMatrix(W + 2) == It->second;
    }
    if (!P.Bits)
      return decodeError(formatv("element {0} of the message (byte {1}) has "
                                 "no contributor",
                                 E, E * Elem));
    if (!Out.empty() && Out.back().Hi == P.Lo && Out.back().Bits == P.Bits &&
        Out.back().InOrder == P.InOrder && Out.back().Flags == P.Flags)
      Out.back().Hi = P.Hi;
    else
      Out.push_back(P);
  }
  return Out;
}
