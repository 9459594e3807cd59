//===- tests/options/TypedReads.cpp - Reads that must (not) compile -------===//
///
/// \file
/// Compiled by ctest (tests/CMakeLists.txt), never linked: with READ=0 the
/// reads by typed handle compile and have their handles' types; each READ=N
/// above 0 reads an option as another type, which must not compile (the
/// string-keyed accessors are gone too).
///
//===----------------------------------------------------------------------===//

#include "generators/CommonOptions.h"

#include <type_traits>

using namespace choreo;

void reads(const OptionValues &V) {
#if READ == 0
  static_assert(std::is_same_v<decltype(V.get(opt::root())), uint64_t>);
  static_assert(std::is_same_v<decltype(V.get(opt::bytes())), uint64_t>);
  static_assert(std::is_same_v<decltype(V.lookup(opt::counts())),
                               std::optional<std::vector<uint64_t>>>);
  static_assert(std::is_same_v<decltype(V.lookup(opt::anyTopology())),
                               std::optional<Topology::Kind>>);
  static_assert(
      std::is_same_v<decltype(V.get(opt::intraAny())), IntraAlgorithm>);
  static_assert(
      std::is_same_v<decltype(V.get(opt::reductionOp())), OperatorKind>);
  uint64_t Root = V.get(opt::root());
  std::optional<std::vector<uint64_t>> Counts = V.lookup(opt::counts());
  (void)Root;
  (void)Counts;
#elif READ == 1
  std::string Root = V.get(opt::root()); // a rank is no text
#elif READ == 2
  uint64_t Counts = *V.lookup(opt::counts()); // a list is no number
#elif READ == 3
  llvm::StringRef Topo = V.get(opt::anyTopology()); // an enumerator, no word
#elif READ == 4
  auto P = V.number("p"); // no read by name
#elif READ == 5
  IntraAlgorithm A = V.get(opt::distribution()); // another enumeration
#endif
}
