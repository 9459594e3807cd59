//===- pmpi/Shape.cpp - A generator asked to build for a call -------------===//
///
/// \file
/// buildFor: the selection's options for an algorithm, parsed once, and the
/// generator's build for the call's header.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Shape.h"

#include "ir/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

llvm::Expected<Schedule> pmpi::buildFor(llvm::StringRef Id,
                                        llvm::ArrayRef<std::string> Extra,
                                        const CallHeader &H, uint64_t ElemBytes,
                                        std::optional<Rank> Only) {
  const Generator *G = findGenerator(Id);
  if (!G)
    return makeDiagError("pmpi", formatv("no generator {0}", Id));
  OptionValues Own;
  if (!Extra.empty()) {
    auto V = parseGenArgs(Extra);
    if (!V)
      return V.takeError();
    Own = std::move(*V);
  }
  return G->generateFor(H, ElemBytes, Own, Only);
}
