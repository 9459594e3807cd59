//===- views/ProveTable.cpp - choreo prove --all's table ------------------===//
///
/// \file
/// The rows of `choreo prove --all` as a text or Markdown table, the
/// obligations that are bounded or not proved by name, the domains, and
/// the total; and the rule of what fails the run.
///
//===----------------------------------------------------------------------===//

#include "views/ProveTable.h"
#include "views/ProveReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace choreo;
using llvm::formatv;

namespace {

using Result = Obligation::Result;

/// S padded with spaces to W characters.
std::string pad(llvm::StringRef S, size_t W) {
  return S.str() + std::string(W > S.size() ? W - S.size() : 0, ' ');
}

/// An allowance names the template, or the template and the obligation.
bool allows(llvm::StringRef Entry, llvm::StringRef Template,
            llvm::StringRef Obligation) {
  auto [T, Ob] = Entry.split(':');
  return T == Template && (Ob.empty() || Ob == Obligation);
}

bool allowed(const ProveTableOptions &O, const ProveRow &Row,
             const Obligation &Ob) {
  return llvm::any_of(O.AllowBounded, [&](const std::string &E) {
    return allows(E, Row.Template, Ob.Name);
  });
}

const char *notProvedWord(Result R) {
  switch (R) {
  case Result::Counterexample:
    return "counterexample";
  case Result::Timeout:
    return "timeout";
  default:
    return "unknown";
  }
}

/// A cover counterexample on a domain row: the value outside every domain,
/// a limit of what the family proves, not counted as an obligation.
bool isLimit(const ProveRow &Row, const Obligation &Ob) {
  return Row.Domains && Ob.Kind == "cover" && Ob.R == Result::Counterexample;
}

/// The cells of one row: bounded and not-proved obligations by name.
struct Cells {
  size_t Obligations = 0, Unbounded = 0;
  std::vector<std::string> Bounded, NotProved;
};

Cells cellsOf(const ProveRow &Row, const ProveTableOptions &O) {
  Cells C;
  for (const Obligation &Ob : Row.Report.Obligations) {
    if (isLimit(Row, Ob))
      continue;
    ++C.Obligations;
    if (Ob.R == Result::Proved)
      ++C.Unbounded;
    else if (Ob.R == Result::ProvedBounded)
      C.Bounded.push_back(Ob.Name + (allowed(O, Row, Ob) ? " (allowed)" : ""));
    else
      C.NotProved.push_back(Ob.Name + " (" + notProvedWord(Ob.R) + ")");
  }
  return C;
}

std::string quoted(const std::vector<std::string> &Names, bool Markdown) {
  if (Names.empty())
    return Markdown ? "none" : "-";
  std::vector<std::string> Q;
  for (const std::string &N : Names)
    Q.push_back(Markdown ? "`" + N + "`" : N);
  return llvm::join(Q, ", ");
}

} // namespace

bool choreo::obligationFails(const ProveRow &Row, const Obligation &Ob,
                             const ProveTableOptions &O) {
  if (Ob.R == Result::Proved || isLimit(Row, Ob))
    return false;
  if (Ob.R == Result::ProvedBounded)
    return !allowed(O, Row, Ob);
  return true;
}

ProveTally choreo::tallyRows(const std::vector<ProveRow> &Rows,
                             const ProveTableOptions &O) {
  ProveTally T;
  std::vector<bool> Used(O.AllowBounded.size(), false);
  for (const ProveRow &Row : Rows) {
    T.Seconds += Row.Report.Seconds;
    if (Row.Skipped) {
      ++T.Skipped;
      continue;
    }
    T.Templates += !Row.Domains;
    for (const Obligation &Ob : Row.Report.Obligations) {
      if (isLimit(Row, Ob))
        continue;
      ++T.Obligations;
      if (Ob.R == Result::Proved) {
        ++T.Unbounded;
        continue;
      }
      if (Ob.R != Result::ProvedBounded) {
        ++T.NotProved;
        continue;
      }
      ++T.Bounded;
      for (size_t K = 0; K < O.AllowBounded.size(); ++K)
        if (allows(O.AllowBounded[K], Row.Template, Ob.Name)) {
          Used[K] = true;
          ++T.Allowed;
          break;
        }
    }
  }
  for (size_t K = 0; K < O.AllowBounded.size(); ++K)
    if (!Used[K])
      T.Stale.push_back(O.AllowBounded[K]);
  return T;
}

void choreo::printProveTable(const std::vector<ProveRow> &Rows,
                             const ProveTableOptions &O,
                             llvm::raw_ostream &Out) {
  const std::string BoundedHead =
      formatv("bounded (every parameter in [1, {0}])", O.Bound).str();
  if (O.Markdown) {
    Out << "| family | template | domain | obligations | proved for every "
           "value | "
        << BoundedHead << " | not proved | seconds |\n"
        << "|---|---|---|---|---|---|---|---|\n";
    for (const ProveRow &Row : Rows) {
      Cells C = cellsOf(Row, O);
      std::string Fam = Row.Family.empty() ? "none" : "`" + Row.Family + "`";
      std::string Tpl = Row.Domains ? "(domains)" : "`" + Row.Template + "`";
      std::string Dom = Row.Domain.empty() ? "" : "`" + Row.Domain + "`";
      if (Row.Skipped) {
        Out << formatv("| {0} | {1} | {2} | skipped | | | | |\n", Fam, Tpl,
                       Dom);
        continue;
      }
      Out << formatv("| {0} | {1} | {2} | {3} | {4} | {5} | {6} | {7:f1} |\n",
                     Fam, Tpl, Dom, C.Obligations, C.Unbounded,
                     quoted(C.Bounded, true), quoted(C.NotProved, true),
                     Row.Report.Seconds);
    }
  } else {
    size_t FW = 6, TW = 8;
    for (const ProveRow &Row : Rows) {
      FW = std::max(FW, Row.Family.size());
      TW = std::max(TW, Row.Template.size());
    }
    Out << formatv("{0} {1} {2,11} {3,9} {4,7} {5,10} {6,9}\n",
                   pad("family", FW), pad("template", TW), "obligations",
                   "unbounded", "bounded", "not proved", "seconds");
    for (const ProveRow &Row : Rows) {
      Cells C = cellsOf(Row, O);
      std::string Fam = Row.Family.empty() ? "-" : Row.Family;
      if (Row.Skipped) {
        Out << formatv("{0} {1} {2,11}\n", pad(Fam, FW), pad(Row.Template, TW),
                       "skipped");
        continue;
      }
      Out << formatv("{0} {1} {2,11} {3,9} {4,7} {5,10} {6,9:f2}\n",
                     pad(Fam, FW), pad(Row.Template, TW), C.Obligations,
                     C.Unbounded, C.Bounded.size(), C.NotProved.size(),
                     Row.Report.Seconds);
    }
    Out << "\n";
    for (const ProveRow &Row : Rows) {
      Cells C = cellsOf(Row, O);
      for (const std::string &N : C.Bounded)
        Out << "bounded: " << Row.Template << ": " << N << "\n";
      for (const std::string &N : C.NotProved)
        Out << "not proved: " << Row.Template << ": " << N << "\n";
    }
  }
  if (O.Markdown)
    Out << "\n";
  for (const ProveRow &Row : Rows)
    if (Row.Domains && !Row.Skipped)
      Out << (O.Markdown ? "- `" + Row.Family + "`: "
                         : "domains: " + Row.Family + ": ")
          << coverText(Row.Report, Row.DomainTemplates, O.Bound) << "\n";
  ProveTally T = tallyRows(Rows, O);
  Out << (O.Markdown ? "\n" : "")
      << formatv("total: {0} templates, {1} obligations: {2} proved for "
                 "every parameter value, {3} bounded{4}, {5} not proved{6} "
                 "({7:f1} s)\n",
                 T.Templates, T.Obligations, T.Unbounded, T.Bounded,
                 T.Allowed ? formatv(" ({0} allowed)", T.Allowed).str() : "",
                 T.NotProved,
                 T.Skipped ? formatv("; {0} skipped", T.Skipped).str() : "",
                 T.Seconds);
}
