//===- tests/fuzz/SelectionFuzzer.cpp - libFuzzer target: selection files -===//
///
/// \file
/// Any bytes as the text of a CHOREO_SELECTION file (parseRulesText, what
/// readRulesFile reads into): rules or an error, never a crash, a hang, a
/// stack overflow or a sanitizer report. Rules that read are matched
/// against calls of every collective, and the choice for each is made as
/// the library makes it (the environment's CHOREO_<COLL> unset); a rule deeper
/// than the bound, or whose algorithm no longer parses, is a bug.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Selection.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

[[noreturn]] void bug(const std::string &What);

/// Every MPI call's header with regular and irregular sizes, a
/// non-commutative operator, in place; an intercommunicator allgather.
std::vector<BoundCall> calls() {
  std::vector<BoundCall> Out;
  auto Add = [&](const MpiArgs &A) {
    auto B = bindCall(A);
    if (!B)
      bug("bindCall refused a call the library makes: " +
          llvm::toString(B.takeError()));
    ::unsetenv(envName(*B).c_str());
    Out.push_back(std::move(*B));
  };
  for (const MpiBinding &Row : allBindings()) {
    MpiArgs A;
    A.Call = Row.Call;
    A.SizesA = {4096, 0, 0, 0};
    A.Ranks = 4;
    A.Bytes = 4096;
    A.ElemBytes = 8;
    Add(A);
    A.SizesA = {8, 8, 8};
    A.Ranks = 3;
    A.Bytes = 24;
    A.Root = 2;
    A.InPlace = true;
    A.Commutative = false;
    Add(A);
  }
  MpiArgs Inter;
  Inter.Inter = true;
  Inter.SizesA = {64, 64, 64};
  Inter.SizesB = {32, 32};
  Add(Inter);
  return Out;
}

[[noreturn]] void bug(const std::string &What) {
  llvm::errs() << What << '\n';
  abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  auto Rules = parseRulesText(In, "<fuzz>");
  if (!Rules) {
    llvm::consumeError(Rules.takeError());
    return 0;
  }
  SelectionConfig Cfg;
  Cfg.Rules = std::move(*Rules);
  Cfg.RulesFile = "<fuzz>";
  for (const Rule &R : Cfg.Rules) {
    if (R.Conds.size() > MaxSelectionDepth)
      bug("a rule nested deeper than the bound: " + R.Path);
    auto C = parseChoice(R.Algorithm, R.Path);
    if (!C)
      bug("a rule's algorithm does not parse again: " +
          llvm::toString(C.takeError()));
  }
  static const std::vector<BoundCall> Calls = calls();
  for (const BoundCall &S : Calls) {
    auto C = select(S, Cfg);
    if (!C)
      bug("select failed on rules that read: " + llvm::toString(C.takeError()));
  }
  return 0;
}
