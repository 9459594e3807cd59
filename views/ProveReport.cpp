//===- views/ProveReport.cpp - choreo prove's report ----------------------===//
///
/// \file
/// Text and JSON renderings of a template's proof.
///
//===----------------------------------------------------------------------===//

#include "views/ProveReport.h"

#include "llvm/Support/FormatVariadic.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using llvm::formatv;

namespace {

const char *verdict(Obligation::Result R) {
  switch (R) {
  case Obligation::Result::Proved:
    return "proved";
  case Obligation::Result::ProvedBounded:
    return "proved (bounded)";
  case Obligation::Result::Counterexample:
    return "counterexample";
  case Obligation::Result::Unknown:
    return "unknown";
  case Obligation::Result::Timeout:
    return "timeout";
  }
  return "unknown";
}

/// A counterexample's values: "p = 4, q = 2".
std::string modelValues(const Obligation &Ob) {
  std::string Vals;
  for (auto [K, V] : Ob.Model)
    Vals += (Vals.empty() ? "" : ", ") + K + " = " + std::to_string(V);
  return Vals;
}

/// `error: T: OB fails: CLAIM does not hold for p = 4, ... (step s, rank
/// r)`, and the replay as a note.
void printCounterexample(const TemplateProof &P, const Obligation &Ob,
                         const std::string &Replay, llvm::raw_ostream &Err) {
  Err << "error: " << P.Name << ": " << Ob.Name << " fails: " << Ob.Claim
      << " does not hold for " << modelValues(Ob);
  if (Ob.Step)
    Err << " (step " << *Ob.Step
        << (Ob.Rank ? ", rank " + std::to_string(*Ob.Rank) : "") << ")";
  else if (Ob.Rank)
    Err << " (rank " << *Ob.Rank << ")";
  Err << "\n";
  if (!Replay.empty())
    Err << "note: " << Replay << "\n";
}

} // namespace

void choreo::printProof(const TemplateProof &P, const ProveReportOptions &O,
                        llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  size_t Bounded = 0, Unknown = 0, TimedOut = 0, Failed = 0;
  const std::vector<Obligation> &Obs = P.Report.Obligations;
  for (size_t I = 0; I < Obs.size(); ++I) {
    const Obligation &Ob = Obs[I];
    Bounded += Ob.R == Obligation::Result::ProvedBounded;
    Failed += Ob.R == Obligation::Result::Counterexample;
    Unknown += Ob.R == Obligation::Result::Unknown;
    TimedOut += Ob.R == Obligation::Result::Timeout;
    if (O.Verbose && !O.Json)
      Out << formatv("  {0,-16} {1}  ({2:f3} s){3}\n", verdict(Ob.R), Ob.Name,
                     Ob.Seconds, Ob.Why.empty() ? "" : "  " + Ob.Why);
    if (Ob.R == Obligation::Result::Counterexample)
      printCounterexample(P, Ob, I < P.Replays.size() ? P.Replays[I] : "", Err);
    else if (Ob.R == Obligation::Result::Unknown)
      Err << "error: " << P.Name << ": " << Ob.Name << " is unknown: " << Ob.Why
          << "\n";
    else if (Ob.R == Obligation::Result::Timeout)
      Err << "error: " << P.Name << ": " << Ob.Name << " timed out: " << Ob.Why
          << "\n";
  }
  if (O.Json)
    return;
  std::string Undecided;
  if (Unknown)
    Undecided = formatv("{0} unknown", Unknown).str();
  if (TimedOut)
    Undecided += formatv("{0}{1} timed out", Unknown ? ", " : "", TimedOut);
  std::string Result =
      Failed               ? formatv("{0} counterexample(s)", Failed).str()
      : !Undecided.empty() ? Undecided
      : Bounded ? formatv("proved; {0} obligation(s) only up to the bound {1}",
                          Bounded, O.Bound)
                      .str()
                : std::string("proved for every parameter value");
  Out << formatv("{0}: {1} ({2} obligations, {3:f2} s; domain: {4})\n", P.Name,
                 Result, Obs.size(), P.Report.Seconds, P.Domain);
}

nlohmann::ordered_json choreo::proofJson(const TemplateProof &P) {
  nlohmann::ordered_json Obs = nlohmann::ordered_json::array();
  for (const Obligation &Ob : P.Report.Obligations)
    Obs.push_back({{"obligation", Ob.Name},
                   {"result", verdict(Ob.R)},
                   {"seconds", Ob.Seconds}});
  return {{"template", P.Name},
          {"domain", P.Domain},
          {"seconds", P.Report.Seconds},
          {"obligations", std::move(Obs)}};
}

std::string choreo::coverText(const ProveReport &Cover, size_t NumTemplates,
                              int64_t Bound) {
  bool Disjoint = true, DisjointBounded = false;
  std::string Covers;
  for (const Obligation &Ob : Cover.Obligations) {
    if (Ob.Kind == "cover") {
      // The claim names the region: "every parameter value with p >= 1,
      // q >= 1 lies in ...".
      llvm::StringRef Region = llvm::StringRef(Ob.Claim)
                                   .split(" with ")
                                   .second.split(" lies in")
                                   .first;
      Covers = Ob.R == Obligation::Result::Proved
                   ? "every " + Region.str() +
                         " lies in one of the domains above (proved)"
               : Ob.R == Obligation::Result::ProvedBounded
                   ? llvm::formatv("every p, q in [1, {0}] lies in one of the "
                                   "domains above (bounded: {1})",
                                   Bound, Ob.Why)
                         .str()
               : Ob.R == Obligation::Result::Counterexample
                   ? "proved only on the domain(s) above: " + modelValues(Ob) +
                         " (for one) lies in none of them"
                   : "whether the domains cover every p, q is unknown (" +
                         Ob.Why + ")";
      continue;
    }
    DisjointBounded |= Ob.R == Obligation::Result::ProvedBounded;
    Disjoint &= Ob.R == Obligation::Result::Proved ||
                Ob.R == Obligation::Result::ProvedBounded;
  }
  return Covers +
         (NumTemplates < 2 || !Disjoint ? ""
          : DisjointBounded
              ? llvm::formatv("; the domains are disjoint for every p, q "
                              "in [1, {0}]",
                              Bound)
                    .str()
              : "; the domains are disjoint (proved)");
}

bool choreo::printCover(llvm::StringRef Target, const ProveReport &Cover,
                        size_t NumTemplates, const ProveReportOptions &O,
                        llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  bool Disjoint = true;
  for (const Obligation &Ob : Cover.Obligations) {
    if (Ob.Kind == "cover" || Ob.R == Obligation::Result::Proved ||
        Ob.R == Obligation::Result::ProvedBounded)
      continue;
    Disjoint = false;
    Err << "error: " << Target << ": " << Ob.Name << " fails: " << Ob.Claim
        << " does not hold"
        << (Ob.Model.empty() ? " (" + Ob.Why + ")" : " for " + modelValues(Ob))
        << "\n";
  }
  if (!O.Json)
    Out << Target << ": " << coverText(Cover, NumTemplates, O.Bound) << "\n";
  return Disjoint;
}
