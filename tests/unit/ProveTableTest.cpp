//===- tests/unit/ProveTableTest.cpp - choreo prove --all's verdict -------===//
///
/// \file
/// The rule `choreo prove --all` exits by (views/ProveTable.h): a bounded
/// obligation fails the run unless allowed by template or by name, an
/// unknown, timed-out or refuted one always does, a domain row's cover
/// counterexample (the value outside every domain) does not, and an
/// allowance that matches nothing is reported; and the table names the
/// bounded and not-proved obligations.
///
//===----------------------------------------------------------------------===//

#include "views/ProveTable.h"

#include "gtest/gtest.h"

using namespace choreo;

namespace {

using Result = Obligation::Result;

Obligation ob(const char *Name, Result R, const char *Kind = "range") {
  Obligation O;
  O.Name = Name;
  O.Kind = Kind;
  O.R = R;
  return O;
}

ProveRow row(const char *Template, std::vector<Obligation> Obs) {
  ProveRow R;
  R.Family = "fam";
  R.Template = Template;
  R.Report.Template = Template;
  R.Report.Obligations = std::move(Obs);
  return R;
}

} // namespace

TEST(ProveTable, StrictByDefault) {
  std::vector<ProveRow> Rows{
      row("a", {ob("range #1", Result::Proved),
                ob("availability #1", Result::ProvedBounded)}),
      row("b", {ob("range #1", Result::Proved)})};
  ProveTableOptions O;
  ProveTally T = tallyRows(Rows, O);
  EXPECT_EQ(T.Templates, 2u);
  EXPECT_EQ(T.Obligations, 3u);
  EXPECT_EQ(T.Unbounded, 2u);
  EXPECT_EQ(T.Bounded, 1u);
  EXPECT_FALSE(T.passed());
  EXPECT_TRUE(obligationFails(Rows[0], Rows[0].Report.Obligations[1], O));

  O.AllowBounded = {"a:availability #1"};
  EXPECT_TRUE(tallyRows(Rows, O).passed());
  O.AllowBounded = {"a"};
  EXPECT_TRUE(tallyRows(Rows, O).passed());
  O.AllowBounded = {"a:availability #2", "b"};
  T = tallyRows(Rows, O);
  EXPECT_FALSE(T.passed());
  EXPECT_EQ(T.Stale, (std::vector<std::string>{"a:availability #2", "b"}));
}

TEST(ProveTable, UndecidedAndRefutedAlwaysFail) {
  for (Result R : {Result::Unknown, Result::Timeout, Result::Counterexample}) {
    std::vector<ProveRow> Rows{row("a", {ob("frame s1", R)})};
    ProveTableOptions O;
    O.AllowBounded = {"a"};
    EXPECT_FALSE(tallyRows(Rows, O).passed());
    EXPECT_EQ(tallyRows(Rows, O).NotProved, 1u);
  }
}

TEST(ProveTable, ADomainLimitIsNotAFailure) {
  ProveRow D = row("(domains)", {ob("cover", Result::Counterexample, "cover")});
  D.Domains = true;
  D.DomainTemplates = 1;
  D.Report.Obligations[0].Model = {{"p", 1}, {"q", 2}};
  ProveTableOptions O;
  ProveTally T = tallyRows({D}, O);
  EXPECT_TRUE(T.passed());
  EXPECT_EQ(T.Obligations, 0u);
  // Overlapping domains are.
  D.Report.Obligations.push_back(
      ob("disjoint x y", Result::Counterexample, "disjoint"));
  EXPECT_FALSE(tallyRows({D}, O).passed());
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printProveTable({D}, O, OS);
  EXPECT_NE(Text.find("domains: fam: proved only on the domain(s) above: p = "
                      "1, q = 2 (for one) lies in none of them"),
            std::string::npos)
      << Text;
}

TEST(ProveTable, TheTableNamesWhatIsNotProved) {
  std::vector<ProveRow> Rows{
      row("a", {ob("range #1", Result::Proved),
                ob("availability #1", Result::ProvedBounded),
                ob("frame s1", Result::Timeout)})};
  Rows.push_back(row("c", {}));
  Rows.back().Skipped = true;
  ProveTableOptions O;
  O.Bound = 4;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printProveTable(Rows, O, OS);
  EXPECT_NE(Text.find("bounded: a: availability #1\n"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("not proved: a: frame s1 (timeout)\n"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("total: 1 templates, 3 obligations: 1 proved for every "
                      "parameter value, 1 bounded, 1 not proved; 1 skipped"),
            std::string::npos)
      << Text;
  Text.clear();
  O.Markdown = true;
  printProveTable(Rows, O, OS);
  EXPECT_NE(Text.find("| `fam` | `a` |  | 3 | 1 | `availability #1` | `frame "
                      "s1 (timeout)` |"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("bounded (every parameter in [1, 4])"),
            std::string::npos);
}
