//===- harness/Reductions.cpp - Reduction data for choreo-run -------------===//
///
/// \file
/// Element patterns, expected folds, datatypes and the user-defined 2x2
/// matrix product of choreo-run's reductions.
///
//===----------------------------------------------------------------------===//

#include "harness/Reductions.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

using namespace choreo;
using namespace choreo::harness;
using llvm::formatv;

namespace {

struct DoubleInt {
  double V;
  int32_t I;
  int32_t Pad;
};
static_assert(sizeof(DoubleInt) == 16);

struct Mat {
  uint32_t A, B, C, D; // [A B; C D], row-major
};

Mat mul(const Mat &X, const Mat &Y) {
  return {X.A * Y.A + X.B * Y.C, X.A * Y.B + X.B * Y.D, X.C * Y.A + X.D * Y.C,
          X.C * Y.B + X.D * Y.D};
}

/// MPI user function: inout[i] = in[i] x inout[i] (in holds the lower
/// ranks).
void matmulFn(void *In, void *InOut, int *Len, MPI_Datatype *) {
  auto *X = static_cast<const Mat *>(In);
  auto *Y = static_cast<Mat *>(InOut);
  for (int I = 0; I < *Len; ++I)
    Y[I] = mul(X[I], Y[I]);
}

int32_t intOf(Rank R, uint64_t I) { return (R + 1) * 1000 + I % 1000; }
double doubleOf(Rank R, uint64_t I) {
  return 1.0 / (R + 3) + double(I % 997) * 1e-3;
}
DoubleInt maxlocOf(Rank R, uint64_t I) {
  // Values repeat over ranks, so ties are common.
  return {double((R * 7 + I) % 5) + 0.25, int32_t(R), 0};
}
Mat matOf(Rank R, uint64_t I) {
  return {uint32_t(1 + (R + I) % 3), uint32_t(R + 1), uint32_t((I + 2 * R) % 4),
          uint32_t(1 + R % 2)};
}

template <typename T> T load(const char *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}

} // namespace

llvm::StringRef harness::reduceDataName(ReduceData D) {
  switch (D) {
  case ReduceData::SumInt:
    return "sum-int";
  case ReduceData::SumDouble:
    return "sum-double";
  case ReduceData::MaxlocDoubleInt:
    return "maxloc-double-int";
  case ReduceData::Matmul2x2:
    return "matmul-2x2";
  }
  return "";
}

std::optional<ReduceData> harness::parseReduceData(llvm::StringRef Name) {
  for (ReduceData D : {ReduceData::SumInt, ReduceData::SumDouble,
                       ReduceData::MaxlocDoubleInt, ReduceData::Matmul2x2})
    if (reduceDataName(D) == Name)
      return D;
  return std::nullopt;
}

namespace {
MPI_Datatype MatType = MPI_DATATYPE_NULL;
MPI_Op MatOp = MPI_OP_NULL;
} // namespace

void harness::freeReduceElements() {
  if (MatType != MPI_DATATYPE_NULL)
    MPI_Type_free(&MatType);
  if (MatOp != MPI_OP_NULL)
    MPI_Op_free(&MatOp);
}

ReduceElements harness::reduceElements(ReduceData D) {
  switch (D) {
  case ReduceData::SumInt:
    return {MPI_INT, MPI_SUM, 4, "4-byte ints (MPI_INT, MPI_SUM)"};
  case ReduceData::SumDouble:
    return {MPI_DOUBLE, MPI_SUM, 8, "doubles (MPI_DOUBLE, MPI_SUM)"};
  case ReduceData::MaxlocDoubleInt:
    return {MPI_DOUBLE_INT, MPI_MAXLOC, 16,
            "MPI_DOUBLE_INT pairs (MPI_MAXLOC; extent 16 bytes)"};
  case ReduceData::Matmul2x2: {
    if (MatType == MPI_DATATYPE_NULL) {
      MPI_Type_contiguous(4, MPI_INT, &MatType);
      MPI_Type_commit(&MatType);
      MPI_Op_create(matmulFn, /*commute=*/0, &MatOp);
    }
    return {MatType, MatOp, 16,
            "2x2 int matrices (a user-defined non-commutative product)"};
  }
  }
  return {MPI_INT, MPI_SUM, 4, ""};
}

void harness::fillReduceInput(ReduceData D, Rank R, uint64_t FirstElem,
                              llvm::MutableArrayRef<char> Out) {
  unsigned Sz = reduceElements(D).Bytes;
  for (uint64_t K = 0; K * Sz < Out.size(); ++K) {
    uint64_t I = FirstElem + K;
    char *P = Out.data() + K * Sz;
    switch (D) {
    case ReduceData::SumInt: {
      int32_t V = intOf(R, I);
      std::memcpy(P, &V, 4);
      break;
    }
    case ReduceData::SumDouble: {
      double V = doubleOf(R, I);
      std::memcpy(P, &V, 8);
      break;
    }
    case ReduceData::MaxlocDoubleInt: {
      DoubleInt V = maxlocOf(R, I);
      std::memcpy(P, &V, 16);
      break;
    }
    case ReduceData::Matmul2x2: {
      Mat V = matOf(R, I);
      std::memcpy(P, &V, 16);
      break;
    }
    }
  }
}

bool harness::reduceIsExact(ReduceData D) { return D != ReduceData::SumDouble; }

bool harness::reduceByteIsData(ReduceData D, uint64_t Offset) {
  return D != ReduceData::MaxlocDoubleInt || Offset % 16 < 12;
}

std::optional<std::string>
harness::checkReduceResult(ReduceData D, Rank From, Rank To, uint64_t FirstElem,
                           llvm::ArrayRef<char> Got, Rank Me) {
  // "over 6 ranks" (from rank 0), "over ranks 3..5".
  std::string Over = From == 0 ? formatv("{0} ranks", To).str()
                               : formatv("ranks {0}..{1}", From, To - 1).str();
  unsigned Sz = reduceElements(D).Bytes;
  for (uint64_t K = 0; K * Sz < Got.size(); ++K) {
    uint64_t I = FirstElem + K;
    const char *P = Got.data() + K * Sz;
    switch (D) {
    case ReduceData::SumInt: {
      int32_t Want = 0;
      for (Rank R = From; R < To; ++R)
        Want += intOf(R, I);
      int32_t V = load<int32_t>(P);
      if (V != Want)
        return formatv("rank {0}: element {1} of the result is {2}, expected "
                       "{3} (the sum over {4})",
                       Me, I, V, Want, Over)
            .str();
      break;
    }
    case ReduceData::SumDouble: {
      double Want = 0;
      for (Rank R = From; R < To; ++R)
        Want += doubleOf(R, I);
      double V = load<double>(P);
      if (!(std::fabs(V - Want) <= SumDoubleTolerance * std::fabs(Want)))
        return formatv("rank {0}: element {1} of the result is {2:e17}, "
                       "expected {3:e17} within a relative {4:e1} (the sum "
                       "over {5})",
                       Me, I, V, Want, SumDoubleTolerance, Over)
            .str();
      break;
    }
    case ReduceData::MaxlocDoubleInt: {
      DoubleInt Want = maxlocOf(From, I);
      for (Rank R = From + 1; R < To; ++R) {
        DoubleInt X = maxlocOf(R, I);
        if (X.V > Want.V)
          Want = X;
      }
      DoubleInt V = load<DoubleInt>(P);
      if (V.V != Want.V || V.I != Want.I)
        return formatv("rank {0}: element {1} of the result is ({2}, {3}), "
                       "expected ({4}, {5}) (MPI_MAXLOC over {6})",
                       Me, I, V.V, V.I, Want.V, Want.I, Over)
            .str();
      break;
    }
    case ReduceData::Matmul2x2: {
      Mat Want = matOf(From, I);
      for (Rank R = From + 1; R < To; ++R)
        Want = mul(Want, matOf(R, I));
      Mat V = load<Mat>(P);
      if (std::memcmp(&V, &Want, 16))
        return formatv("rank {0}: element {1} of the result is [{2} {3}; {4} "
                       "{5}], expected [{6} {7}; {8} {9}] (the product over "
                       "ranks {10}..{11} in rank order)",
                       Me, I, V.A, V.B, V.C, V.D, Want.A, Want.B, Want.C,
                       Want.D, From, To - 1)
            .str();
      break;
    }
    }
  }
  return std::nullopt;
}
