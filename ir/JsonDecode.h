//===- ir/JsonDecode.h - Decoding small JSON trees of format v1 -*- C++ -*-===//
///
/// \file
/// What the decoders of format v1's small JSON trees (the header, a
/// topology object) share: how a value is quoted in a message, how a key
/// becomes a JSON pointer segment, and checked reads of counts and rank
/// lists that report an "invalid" diagnostic naming the value's pointer.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_JSONDECODE_H
#define CHOREO_IR_JSONDECODE_H

#include "ir/Collective.h"
#include "ir/Diagnostics.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <string>
#include <vector>

namespace choreo {

/// A decoder of one JSON tree: every failure appends one diagnostic (kind
/// "invalid") to Errors and returns false, so decoding stops at the first.
class JsonDecoder {
public:
  using ojson = nlohmann::ordered_json;

  explicit JsonDecoder(std::vector<Diagnostic> &Errors) : Errors(Errors) {}

  /// V as a message quotes it: compact JSON, cut at 40 characters; a
  /// negative zero is "-0".
  static std::string describe(const ojson &V);
  /// Escapes a JSON pointer segment (RFC 6901).
  static std::string pointerSegment(llvm::StringRef Key);

  bool fail(std::string Msg);
  /// A non-negative integer at most Max at pointer Path.
  bool unsignedValue(const ojson &V, const std::string &Path, uint64_t &Out,
                     uint64_t Max = std::numeric_limits<Rank>::max());
  /// An array of non-negative integers at most Max at pointer Path.
  bool unsignedList(const ojson &V, const std::string &Path,
                    std::vector<uint64_t> &Out, uint64_t Max);

protected:
  std::vector<Diagnostic> &Errors;
};

} // namespace choreo

#endif
