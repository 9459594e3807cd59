//===- trace/Encoding.h - Content tags of a traced call ---------*- C++ -*-===//
///
/// \file
/// The words a traced collective call is fed, so that the bytes of every
/// message say what they carry (docs/trace.md, "Content tags"). Header-only
/// and free of choreo's other libraries: the preload library fills buffers
/// with it inside the MPI job, the reconstruction decodes messages with it.
///
/// Gather-type data (bcast, gather, allgather, allgatherv): the collective's
/// buffer (schedule-format.md: `all`, the members' contributions one after
/// the other; for bcast the root's vector) is a stream of u-byte words,
/// u in {1, 2, 4, 8}; word k names k and carries a check of it, so a run of
/// bytes of the stream names its own offset. Reductions: one 64-bit word per
/// element for a built-in bitwise-or (a position tag in the high half, one
/// bit per contributing rank in the low half: at most 32 ranks), one for a
/// built-in sum (a 2-bit count per rank, so a contribution added twice
/// shows: at most 16 ranks), or four
/// words per element for the ordered operator (a position tag, a 64-bit
/// contributor set, a 2x2 matrix over Z/(2^31 - 1) whose product is an
/// order fingerprint: at most 64 ranks).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_TRACE_ENCODING_H
#define CHOREO_TRACE_ENCODING_H

#include <cstdint>
#include <cstring>

namespace choreo::trace {

inline uint64_t mix64(uint64_t X) {
  X += 0x9e3779b97f4a7c15ull;
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ull;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebull;
  return X ^ (X >> 31);
}

/// A 64-bit digest of bytes (what a receive records of what it got).
inline uint64_t hashBytes(const void *Data, uint64_t Len) {
  const unsigned char *P = static_cast<const unsigned char *>(Data);
  uint64_t H = mix64(Len);
  uint64_t I = 0;
  for (; I + 8 <= Len; I += 8) {
    uint64_t W;
    std::memcpy(&W, P + I, 8);
    H = mix64(H ^ W);
  }
  uint64_t Tail = 0;
  std::memcpy(&Tail, P + I, Len - I);
  return mix64(H ^ Tail ^ (Len - I));
}

//===-- Gather-type words ------------------------------------------------===//

/// Bits of the index in a word of U bytes (the rest is its check).
inline unsigned indexBits(unsigned U) {
  return U == 8 ? 40 : U == 4 ? 24 : U == 2 ? 12 : 8;
}

/// How many words of U bytes the stream may hold: the all-ones word is
/// never one (it is what buffers that hold nothing yet are filled with).
inline uint64_t wordCapacity(unsigned U) {
  return (uint64_t(1) << indexBits(U)) - 1;
}

/// Word K of the stream of U-byte words, in its low 8U bits.
inline uint64_t streamWord(unsigned U, uint64_t K) {
  unsigned IB = indexBits(U);
  if (U == 1)
    return K & 0xff;
  uint64_t Check = mix64(K ^ 0x636b) & ((uint64_t(1) << (8 * U - IB)) - 1);
  uint64_t W = (Check << IB) | K;
  if (U < 8)
    W &= (uint64_t(1) << (8 * U)) - 1;
  return W;
}

/// The index of a U-byte word read from a message, or -1 when it is not a
/// word of the stream.
inline int64_t decodeWord(unsigned U, uint64_t W) {
  uint64_t K = W & ((uint64_t(1) << indexBits(U)) - 1);
  if (K >= wordCapacity(U) || streamWord(U, K) != W)
    return -1;
  return int64_t(K);
}

/// Byte X of the stream (little-endian words).
inline unsigned char streamByte(unsigned U, uint64_t X) {
  return static_cast<unsigned char>(streamWord(U, X / U) >> (8 * (X % U)));
}

/// Fills Out with bytes [Lo, Lo + Len) of the stream.
inline void fillStream(unsigned U, uint64_t Lo, uint64_t Len, void *Out) {
  unsigned char *P = static_cast<unsigned char *>(Out);
  uint64_t X = Lo;
  // Byte by byte up to a word boundary, then whole words.
  while (X < Lo + Len && X % U) {
    *P++ = streamByte(U, X);
    ++X;
  }
  unsigned N = U < 8 ? U : 8;
  for (; X + N <= Lo + Len; X += N, P += N) {
    uint64_t W = streamWord(N, X / N);
    std::memcpy(P, &W, N);
  }
  for (; X < Lo + Len; ++X)
    *P++ = streamByte(U, X);
}

/// The largest word size (8, 4, 2 or 1) dividing V.
inline unsigned unitDividing(uint64_t V) {
  for (unsigned U = 8; U > 1; U /= 2)
    if (V % U == 0)
      return U;
  return 1;
}

//===-- Reduction words --------------------------------------------------===//

/// The 32-bit position tag of element I (24 bits of index, 8 of check).
inline uint32_t positionTag(uint64_t I) {
  return uint32_t(I & 0xffffff) | uint32_t(mix64(I ^ 0x706f73) & 0xff) << 24;
}
inline constexpr uint64_t MaxElements = 0xffffff;

/// The element index a position tag names, or -1.
inline int64_t decodePositionTag(uint32_t T) {
  uint64_t I = T & 0xffffff;
  return positionTag(I) == T ? int64_t(I) : -1;
}

/// Bitwise-or elements: rank R's element I.
inline constexpr unsigned MaxOrRanks = 32;
inline uint64_t orElement(unsigned R, uint64_t I) {
  return uint64_t(positionTag(I)) << 32 | (uint64_t(1) << R);
}

/// Sum elements: a 2-bit count per rank in the low half (a contribution
/// added twice shows as 2), the element's index times the number of
/// contributions added in the high half.
inline constexpr unsigned MaxSumRanks = 16;
inline constexpr uint64_t MaxSumElements = (uint64_t(1) << 32) / 48;
inline uint64_t sumElement(unsigned R, uint64_t I) {
  return I << 32 | uint64_t(1) << (2 * R);
}

/// A sum element's index, contributors (a bit per rank) and whether some
/// contribution was added twice; false when the word is no sum of them.
inline bool decodeSumElement(uint64_t W, uint64_t &I, uint64_t &Bits,
                             bool &Twice) {
  uint64_t K = 0;
  Bits = 0;
  Twice = false;
  for (unsigned R = 0; R < MaxSumRanks; ++R) {
    uint64_t C = W >> (2 * R) & 3;
    K += C;
    if (C)
      Bits |= uint64_t(1) << R;
    if (C > 1)
      Twice = true;
  }
  uint64_t H = W >> 32;
  if (!K || H % K)
    return false;
  I = H / K;
  return true;
}

/// Ordered elements: four words (tag and flags, contributors, matrix).
inline constexpr unsigned MaxOrderedRanks = 64;
inline constexpr unsigned OrderedWords = 4;
inline constexpr uint64_t FlagOverlap = 1, FlagMisplaced = 2;
inline constexpr uint64_t Prime = 2147483647; // 2^31 - 1

struct Matrix {
  uint64_t A = 1, B = 0, C = 0, D = 1;
  friend bool operator==(const Matrix &, const Matrix &) = default;
};

inline Matrix multiply(const Matrix &X, const Matrix &Y) {
  return {(X.A * Y.A + X.B * Y.C) % Prime, (X.A * Y.B + X.B * Y.D) % Prime,
          (X.C * Y.A + X.D * Y.C) % Prime, (X.C * Y.B + X.D * Y.D) % Prime};
}

inline uint64_t powMod(uint64_t B, uint64_t E) {
  uint64_t R = 1;
  for (B %= Prime; E; E >>= 1, B = B * B % Prime)
    if (E & 1)
      R = R * B % Prime;
  return R;
}

/// Rank R's matrix: a pseudo-random element of SL(2, Z/p); products in
/// different orders differ (but for a negligible chance).
inline Matrix rankMatrix(unsigned R) {
  uint64_t S = mix64(0x6d6174ull + R);
  Matrix M;
  M.A = 1 + S % (Prime - 1);
  M.B = mix64(S) % Prime;
  M.C = mix64(S + 1) % Prime;
  // A D - B C = 1.
  M.D = (1 + M.B * M.C) % Prime * powMod(M.A, Prime - 2) % Prime;
  return M;
}

inline void packMatrix(const Matrix &M, uint64_t *W) {
  W[0] = M.A << 32 | M.B;
  W[1] = M.C << 32 | M.D;
}
inline Matrix unpackMatrix(const uint64_t *W) {
  return {W[0] >> 32, W[0] & 0xffffffff, W[1] >> 32, W[1] & 0xffffffff};
}

/// Rank R's ordered element I.
inline void orderedElement(unsigned R, uint64_t I, uint64_t *W) {
  W[0] = uint64_t(positionTag(I)) << 32;
  W[1] = uint64_t(1) << R;
  packMatrix(rankMatrix(R), W + 2);
}

/// The ordered operator: InOut = In op InOut, In the left operand (MPI's
/// user-function convention). Flags what a correct reduction never does:
/// operands of different positions, contributors counted twice.
inline void orderedCombine(const uint64_t *In, uint64_t *InOut) {
  uint64_t Flags = (In[0] | InOut[0]) & 0xffffffff;
  if ((In[0] >> 32) != (InOut[0] >> 32))
    Flags |= FlagMisplaced;
  if (In[1] & InOut[1])
    Flags |= FlagOverlap;
  InOut[0] = (InOut[0] & ~uint64_t(0xffffffff)) | Flags;
  InOut[1] |= In[1];
  packMatrix(multiply(unpackMatrix(In + 2), unpackMatrix(InOut + 2)),
             InOut + 2);
}

/// The product of the matrices of the ranks in Bits, in rank order.
inline Matrix orderedProduct(uint64_t Bits) {
  Matrix M;
  for (unsigned R = 0; R < 64; ++R)
    if (Bits >> R & 1)
      M = multiply(M, rankMatrix(R));
  return M;
}

} // namespace choreo::trace

#endif
