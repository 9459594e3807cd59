//===- studies/Compare.h - Algorithms side by side over sizes -*- C++ -*-===//
///
/// \file
/// `choreo compare`: generates each algorithm at each message size and
/// evaluates it under one cost model. The message size is the largest block
/// a process contributes (seed 000 measures "maximum message sizes ... per
/// node"): the size options in the generator arguments give the shape
/// (--bytes-a 4 --bytes-b 1 is k_A = 4 k_B, --counts 1,2,3 an arithmetic
/// sequence) and every size is scaled so that the largest equals the message
/// size. Without size options, each group an algorithm declares a size
/// option for gets the message size through it.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_STUDIES_COMPARE_H
#define CHOREO_STUDIES_COMPARE_H

#include "cost/Model.h"
#include "generators/Generator.h"

#include <string>
#include <vector>

namespace choreo {

struct CompareSpec {
  std::vector<std::string> Algorithms;
  /// Parsed by parseGenArgs; bound to each algorithm in turn.
  OptionValues Base;
  std::vector<uint64_t> Sizes;
  CostModel Model;
  /// `--over NAME --values V1,...`: instead of message sizes, the rows are
  /// the values of generator option NAME (as given with --NAME V), at the
  /// one message size of Sizes (seed 002's time against G: --over groups).
  std::string Over;
  std::vector<uint64_t> OverValues;
};

struct CompareCell {
  double Async = 0, Lockstep = 0;
  unsigned Steps = 0;
};

struct CompareTable {
  std::vector<std::string> Algorithms;
  /// The message sizes, or the values of option Over.
  std::vector<uint64_t> Sizes;
  std::string Over;
  /// Cells[size][algorithm].
  std::vector<std::vector<CompareCell>> Cells;
};

/// Base with its message-size options (OptionDecl::isMessageSize) scaled so
/// the largest is Size; with none given, the size option of every group G
/// declares one for set to Size.
llvm::Expected<OptionValues> paramsForSize(const OptionValues &Base,
                                           const Generator &G, uint64_t Size);

llvm::Expected<CompareTable> compareAlgorithms(const CompareSpec &Spec);

/// "64K", "1M", "1536": powers of 1024 where exact.
std::string sizeLabel(uint64_t Bytes);
/// A row's label: sizeLabel, or the plain value when the rows are Over's.
std::string rowLabel(const CompareTable &T, size_t Row);

} // namespace choreo

#endif
