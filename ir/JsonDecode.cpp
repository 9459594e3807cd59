//===- ir/JsonDecode.cpp - Decoding small JSON trees of format v1 ---------===//
///
/// \file
/// The quoting of values in messages, JSON pointer segments, and the checked
/// reads of counts and lists that the header and topology decoders share.
///
//===----------------------------------------------------------------------===//

#include "ir/JsonDecode.h"
#include "ir/Schedule.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

std::string JsonDecoder::pointerSegment(llvm::StringRef Key) {
  std::string Out;
  for (char C : Key) {
    if (C == '~')
      Out += "~0";
    else if (C == '/')
      Out += "~1";
    else
      Out += C;
  }
  return Out;
}

std::string JsonDecoder::describe(const ojson &V) {
  // JSON's "-0" is a signed zero; "got 0" would not say what is wrong.
  if (V.is_number_integer() && !V.is_number_unsigned() && V.get<int64_t>() == 0)
    return "-0";
  std::string S = jsonText(V);
  if (S.size() > 40)
    S = S.substr(0, 37) + "...";
  return S;
}

bool JsonDecoder::fail(std::string Msg) {
  Errors.emplace_back("invalid", std::move(Msg));
  return false;
}

bool JsonDecoder::unsignedValue(const ojson &V, const std::string &Path,
                                uint64_t &Out, uint64_t Max) {
  if (!V.is_number_unsigned())
    return fail(formatv("{0}: expected a non-negative integer, got {1}", Path,
                        describe(V)));
  Out = V.get<uint64_t>();
  if (Out > Max)
    return fail(formatv("{0}: {1} is too large", Path, Out));
  return true;
}

bool JsonDecoder::unsignedList(const ojson &V, const std::string &Path,
                               std::vector<uint64_t> &Out, uint64_t Max) {
  if (!V.is_array())
    return fail(formatv("{0}: expected an array, got {1}", Path, describe(V)));
  for (size_t I = 0; I < V.size(); ++I) {
    uint64_t X;
    if (!unsignedValue(V[I], Path + "/" + std::to_string(I), X, Max))
      return false;
    Out.push_back(X);
  }
  return true;
}
