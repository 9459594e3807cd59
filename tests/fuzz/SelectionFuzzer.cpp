//===- tests/fuzz/SelectionFuzzer.cpp - libFuzzer target: selection files -===//
///
/// \file
/// Any bytes as the text of a CHOREO_SELECTION file (parseRulesText, what
/// readRulesFile reads into): rules or an error, never a crash, a hang, a
/// stack overflow or a sanitizer report. Rules that read are matched
/// against calls of every collective, and the choice for each is made as
/// the library makes it (the environment's CHOREO_<COLL> unset); a rule deeper than the bound, or whose algorithm
/// no longer parses, is a bug.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Selection.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

std::vector<CallShape> shapes() {
  std::vector<CallShape> Out;
  for (Coll C : {Coll::Allgather, Coll::Allgatherv, Coll::Bcast, Coll::Reduce,
                 Coll::Allreduce, Coll::ReduceScatter,
                 Coll::ReduceScatterBlock}) {
    CallShape S;
    S.C = C;
    ::unsetenv(envName(S).c_str());
    S.SizesA = {4096, 0, 0, 0};
    Out.push_back(S);
    S.SizesA = {8, 8, 8};
    S.InPlace = true;
    S.Commutative = false;
    Out.push_back(S);
  }
  CallShape Inter;
  Inter.Inter = true;
  Inter.SizesA = {64, 64, 64};
  Inter.SizesB = {32, 32};
  ::unsetenv(envName(Inter).c_str());
  Out.push_back(Inter);
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
  static const std::vector<CallShape> Shapes = shapes();
  for (const CallShape &S : Shapes) {
    auto C = select(S, Cfg);
    if (!C)
      bug("select failed on rules that read: " +
          llvm::toString(C.takeError()));
  }
  return 0;
}
