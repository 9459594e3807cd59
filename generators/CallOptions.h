//===- generators/CallOptions.h - A call's header as a generator's options -*-
//C++ -*-===//
///
/// \file
/// A generator builds for a call header (ir/CallHeader.h) by its own
/// declarations: the header's group sizes become the values of its counts
/// (`p`, `q`), the members' bytes those of its message-size options (a size
/// when every member is alike, else a size list), the root `root`, a
/// reduction's vector length, slices, element size and operator its
/// `bytes`, `slices`, `element-bytes` and `op`. The values are set as typed
/// values on the generator's own declarations, not written as text and
/// parsed back. Generator::generateFor builds from them and checks that the
/// schedule's header is the call's.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_GENERATORS_CALLOPTIONS_H
#define CHOREO_GENERATORS_CALLOPTIONS_H

#include "generators/Generator.h"

namespace choreo {

/// The values generator G is given for header H (ElemBytes: a reduction's
/// element size) on top of Own, G's own options (the algorithm's choices:
/// `--intra`, `--segment`, ...), which win over what the header would give
/// an option of the same name. An error when G declares none of what the
/// call needs (an intergroup generator for an intragroup call, a size
/// option for irregular members, a gather-type generator for a reduction).
llvm::Expected<OptionValues> callOptions(const Generator &G,
                                         const CallHeader &H,
                                         uint64_t ElemBytes,
                                         const OptionValues &Own);

/// A generator with its own options as one word, "id" or
/// "id:name=value:..." (the library's CHOREO_ALLREDUCE_INTER=
/// inter-allreduce-kang:intra=bruck, `choreo select`'s candidates): Id and
/// Args, "--name", "value" pairs, as parseGenArgs takes them.
std::string variantText(llvm::StringRef Id, llvm::ArrayRef<std::string> Args);

/// The id and "--name", "value" pairs of a variantText. An error (kind
/// Kind, message starting with Why) names a piece that is not NAME=VALUE;
/// the id is not looked up.
struct VariantWord {
  std::string Id;
  std::vector<std::string> Args;
};
llvm::Expected<VariantWord> splitVariantText(llvm::StringRef Text,
                                             llvm::StringRef Kind,
                                             llvm::StringRef Why);

} // namespace choreo

#endif
