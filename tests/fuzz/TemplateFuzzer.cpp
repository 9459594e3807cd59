//===- tests/fuzz/TemplateFuzzer.cpp - libFuzzer target: templates -------===//
///
/// \file
/// Any text into parseTemplate; a template that parses is expanded for
/// every parameter in [1, 4] under a small op budget and the expansion is
/// replayed by the explicit engine. Refusals are fine; a crash, a hang, a
/// stack overflow or a sanitizer report (signed overflow included) is not.
///
//===----------------------------------------------------------------------===//

#include "template/Template.h"
#include "verifier/Verifier.h"

#include <functional>

using namespace choreo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  auto T = parseTemplate(In, "<fuzz>");
  if (!T) {
    llvm::consumeError(T.takeError());
    return 0;
  }
  if (T->Params.size() > 3)
    return 0;
  Env Params;
  std::function<void(size_t)> Each = [&](size_t K) {
    if (K < T->Params.size()) {
      for (int64_t X = 1; X <= 4; ++X) {
        Params[T->Params[K]] = X;
        Each(K + 1);
      }
      return;
    }
    constexpr uint64_t Budget = 20000;
    if (auto E = checkTemplateBudget(*T, Params, Budget)) {
      llvm::consumeError(std::move(E));
      return;
    }
    auto [A, B] = unitSizes(*T, Params);
    auto S = expandTemplate(*T, Params, A, B, Budget);
    if (!S) {
      llvm::consumeError(S.takeError());
      return;
    }
    (void)checkExplicit(*S);
  };
  Each(0);
  return 0;
}
