//===- generators/SizeChecks.cpp - Overflow-safe sizes, block budget ------===//
///
/// \file
/// The sum of a size list refused past 2^64 and the block budget.
///
//===----------------------------------------------------------------------===//

#include "generators/SizeChecks.h"

#include "ir/Diagnostics.h"
#include "options/Option.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;

llvm::Expected<uint64_t> choreo::sumOfSizes(llvm::ArrayRef<uint64_t> Sizes,
                                            llvm::StringRef Option) {
  uint64_t Sum = 0;
  for (uint64_t X : Sizes) {
    if (X > UINT64_MAX - Sum)
      return optionError(Option, "the sizes add up past 2^64 bytes");
    Sum += X;
  }
  return Sum;
}

llvm::Error choreo::checkBlockBudget(llvm::StringRef Id,
                                     uint64_t EstimatedBlocks) {
  if (EstimatedBlocks <= BuildLimit)
    return llvm::Error::success();
  return makeDiagError(
      "params", llvm::formatv("{0}: these parameters give about {1} blocks "
                              "(byte ranges the messages carry), more than "
                              "choreo builds in memory ({2})",
                              Id, EstimatedBlocks, BuildLimit));
}
