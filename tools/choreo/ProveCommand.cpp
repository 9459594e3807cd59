//===- tools/choreo/ProveCommand.cpp - choreo prove -----------------------===//
///
/// \file
/// `choreo prove ALGO|TEMPLATE` proves one generator's templates (and that
/// their domains cover every value) or one template; `choreo prove --all`
/// proves every template choreo ships, each generator's (in the registry's
/// order) and then the built-in ones no generator declares, and prints them
/// as one table (views/ProveTable.h), as text or Markdown.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "generators/Generator.h"
#include "template/Template.h"
#include "verifier/smt/Prover.h"
#include "views/ProveReport.h"
#include "views/ProveTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

using namespace choreo;

namespace {

const CommandDoc ProveDoc = {
    R"(usage: choreo prove ALGO|TEMPLATE [--timeout SECONDS] [--bound B]
                    [--first] [--verbose] [--json]
       choreo prove --all [--markdown] [--allow-bounded LIST] [--skip LIST]
                    [--timeout SECONDS] [--bound B] [--verbose] [--json]
)",
    R"(Proves a schedule template — affine loop nests over symbolic parameters, the
form of the papers' listings (docs/templates.md) — for every parameter value
in its domain: ports (no two ops of a step share a sender, or a receiver),
topology (ranks exist, no self-send, ring links on a ring), message indices,
availability (each sender is the message's origin or received it earlier)
and completeness (every goal rank receives every goal message), each refuted
with Z3. A counterexample gives concrete p, q, step and rank, and is replayed
by the explicit engine on the expanded schedule.

ALGO: a generator that declares templates (`choreo prove --all` lists them:
half-allgather-ring, half-allgather-ring-opt, inter-allgather-kang,
allreduce-ring, reduce-scatter-ring, ...). Where its templates take the
counts p (and q) only, a last line says which p, q their domains cover
(proved with Z3, together with their disjointness).
TEMPLATE: a built-in template's name (ring-equal, ring-senders-first,
ring-receivers-first, ring-single-receiver, ring-senders-first-odd,
ring-receivers-first-odd, ring-opt, ring-opt-wide, ring-opt-one-sender,
kang-divisible, allgatherv-ring-uniform, bcast-flat, bcast-chain,
bcast-pipeline, bcast-hier-flat, bcast-hier-chain, reduce-scatter-ring,
allreduce-ring, allreduce-recursive-doubling, reduce-chain) or a file. A
reduction template is proved exactly-once (no contribution combined twice),
in rank order where its operator is not commutative, and complete, with the
induction of its `holds` (initial, transition, frame, link).

--all proves every registered template: each generator's (and the cover of
its domains), then every built-in template no generator declares, and
prints a table: per template its obligations, how many are proved for every
parameter value, the bounded ones and the ones not proved by name, and the
time. It fails (exit 1) if any obligation is bounded, unknown, timed out or
refuted, unless --allow-bounded names it. Example:
  choreo prove --all --markdown > table.md
)",
    R"(exit codes: 0 proved, 1 a counterexample, an unknown, a timed-out or (with
--all) a bounded obligation, 2 unreadable template or bad arguments.
)"};

const Option<uint64_t> &proveTimeout() {
  static const Option<uint64_t> O = timeoutOpt(
      "bounds each query and the whole run; an obligation it leaves "
      "undecided, or not attempted by then, is reported as timed out, apart "
      "from unknown ones (default: 60 s per query, no limit on the run)",
      "SECONDS");
  return O;
}

const Option<uint64_t> &proveBound() {
  static const Option<uint64_t> O =
      countOption("bound", "a query unknown to Z3 (a timeout, a nonlinear "
                           "term) is proved for every parameter value in "
                           "[1, B] instead, and reported as bounded")
          .withMetavar("B")
          .withDefault("24")
          .parsedBy(numberParser(1, UINT32_MAX, "a positive count"));
  return O;
}

const Option<bool> &proveFirst() {
  static const Option<bool> O =
      flagOption("first", "stop at the first counterexample");
  return O;
}

const Option<bool> &proveVerbose() {
  static const Option<bool> O =
      flagOption("verbose", "every obligation, not only the failures");
  return O;
}

const Option<bool> &proveJson() {
  static const Option<bool> O =
      flagOption("json", "the proofs as one JSON array as well");
  return O;
}

const Option<bool> &proveAll() {
  static const Option<bool> O =
      flagOption("all", "prove every registered template and print the table");
  return O;
}

const Option<bool> &proveMarkdown() {
  static const Option<bool> O =
      flagOption("markdown", "with --all: the table in Markdown");
  return O;
}

const Option<std::string> &proveAllowBounded() {
  static const Option<std::string> O =
      textOption("allow-bounded",
                 "with --all: bounded obligations that do not fail the run, "
                 "comma-separated, each TEMPLATE (all of its bounded ones) or "
                 "TEMPLATE:OBLIGATION ('bcast-hier-flat:completeness goal 1'); "
                 "counterexamples, unknown and timed-out ones still fail",
                 "LIST");
  return O;
}

const Option<std::string> &proveSkip() {
  static const Option<std::string> O = textOption(
      "skip",
      "with --all: templates not proved (comma-separated names), listed as "
      "skipped",
      "LIST");
  return O;
}

llvm::ArrayRef<OptionDecl> proveDecls() {
  static const OptionDecl Decls[] = {
      proveTimeout(),  proveBound(),        proveFirst(),
      proveVerbose(),  proveJson(),         proveAll(),
      proveMarkdown(), proveAllowBounded(), proveSkip()};
  return Decls;
}

/// `choreo prove`'s options.
struct ProveCommand {
  std::string Target; ///< empty with --all
  bool All = false;
  std::vector<std::string> Skip;
  ProveOptions Prove;
  ProveReportOptions View;
  ProveTableOptions Table;
};

/// The names of a comma-separated list, each a built-in template's
/// (before a ':' for --allow-bounded).
std::optional<std::string> readNames(llvm::StringRef Option,
                                     llvm::StringRef List,
                                     std::vector<std::string> &Out) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  List.split(Parts, ',', -1, false);
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    llvm::StringRef Name = P.split(':').first.trim();
    bool Known = llvm::any_of(builtinTemplates(),
                              [&](const auto &B) { return Name == B.first; });
    if (!Known)
      return "--" + Option.str() + ": no built-in template '" + Name.str() +
             "'";
    Out.push_back(P.str());
  }
  return std::nullopt;
}

/// Fills C from the arguments; returns the problem with them, if any.
std::optional<std::string> parseProveArgs(llvm::ArrayRef<std::string> Args,
                                          ProveCommand &C) {
  auto L = parseCommandLine(Args, proveDecls());
  if (!L)
    return llvm::toString(L.takeError());
  const OptionValues &V = L->Values;
  if (auto N = V.lookup(proveTimeout())) {
    // Each query's limit and the whole run's (proveTarget and the cover
    // proof share the deadline).
    C.Prove.TimeoutMs = *N * 1000;
    C.Prove.Deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(*N);
  }
  C.Prove.Bound = V.get(proveBound());
  C.Prove.StopAtFirst = V.get(proveFirst());
  C.View.Verbose = V.get(proveVerbose());
  C.View.Json = V.get(proveJson());
  C.View.Bound = C.Prove.Bound;
  C.All = V.get(proveAll());
  C.Table.Bound = C.Prove.Bound;
  C.Table.Markdown = V.get(proveMarkdown());
  auto Allow = V.lookup(proveAllowBounded());
  auto Skip = V.lookup(proveSkip());
  if (!C.All) {
    for (const OptionBase *Opt :
         {static_cast<const OptionBase *>(&proveMarkdown()),
          static_cast<const OptionBase *>(&proveAllowBounded()),
          static_cast<const OptionBase *>(&proveSkip())})
      if (V.has(*Opt))
        return "--" + Opt->name().str() + " goes with --all";
    if (L->Positionals.size() != 1)
      return std::string("expected one algorithm or template (or --all)");
    C.Target = L->Positionals[0];
    return std::nullopt;
  }
  if (!L->Positionals.empty())
    return "--all proves every template: unexpected '" + L->Positionals[0] +
           "'";
  if (C.Prove.StopAtFirst)
    return std::string("--first does not go with --all");
  if (Allow)
    if (auto E = readNames("allow-bounded", *Allow, C.Table.AllowBounded))
      return E;
  if (Skip)
    if (auto E = readNames("skip", *Skip, C.Skip))
      return E;
  return std::nullopt;
}

/// Whether the domains of a generator's templates are proved to cover
/// every value: where they take the same parameters, counts only (p, or p
/// and q). The broadcasts' templates differ in their parameters (the
/// hierarchical ones are for `--groups G`), so no cover is claimed.
bool coverApplies(llvm::ArrayRef<std::string> Templates) {
  std::optional<std::vector<std::string>> Params;
  for (const std::string &Name : Templates) {
    auto T = loadTemplate(Name);
    if (!T) {
      llvm::consumeError(T.takeError());
      return false;
    }
    if (Params && *Params != T->Params)
      return false;
    Params = T->Params;
    for (const std::string &P : T->Params)
      if (P != "p" && P != "q")
        return false;
  }
  return Params.has_value();
}

/// A generator's templates, or every built-in template no generator
/// declares (Family empty, one template each).
struct ProveFamily {
  std::string Family;
  std::vector<std::string> Templates;
};

std::vector<ProveFamily> registeredFamilies() {
  std::vector<ProveFamily> Out;
  std::set<std::string> Declared;
  for (const Generator *G : allGenerators()) {
    if (G->templates().empty())
      continue;
    ProveFamily &F = Out.emplace_back();
    F.Family = G->id().str();
    for (const GeneratorTemplate &T : G->templates()) {
      F.Templates.push_back(T.Template);
      Declared.insert(T.Template);
    }
  }
  for (const auto &[Name, Text] : builtinTemplates())
    if (!Declared.count(Name))
      Out.push_back({"", {Name}});
  return Out;
}

int proveEverything(const ProveCommand &C) {
  std::vector<ProveRow> Rows;
  std::set<std::string> Proved;
  nlohmann::ordered_json All = nlohmann::ordered_json::array();
  for (const ProveFamily &F : registeredFamilies()) {
    std::vector<std::string> ToProve;
    for (const std::string &T : F.Templates) {
      if (!Proved.insert(T).second)
        continue; // declared by an earlier generator too
      if (llvm::is_contained(C.Skip, T)) {
        ProveRow R;
        R.Family = F.Family;
        R.Template = T;
        R.Skipped = true;
        Rows.push_back(std::move(R));
        continue;
      }
      ToProve.push_back(T);
    }
    auto E = proveTarget(ToProve, C.Prove, [&](const TemplateProof &P) {
      printProof(P, C.View, C.View.Verbose ? llvm::outs() : llvm::nulls(),
                 llvm::errs());
      Rows.push_back({F.Family, P.Name, P.Report, P.Domain});
      if (C.View.Json) {
        nlohmann::ordered_json J = proofJson(P);
        J["family"] = F.Family;
        All.push_back(std::move(J));
      }
    });
    if (E) {
      printError(llvm::errs(), std::move(E));
      return ExitInvalid;
    }
    if (F.Family.empty() || !coverApplies(F.Templates))
      continue;
    auto R = proveTargetCover(F.Templates, C.Prove);
    if (!R) {
      printError(llvm::errs(), R.takeError());
      return ExitInvalid;
    }
    // Errors for overlapping domains; the line itself is the table's.
    printCover(F.Family, *R, F.Templates.size(), C.View, llvm::nulls(),
               llvm::errs());
    ProveRow D;
    D.Family = F.Family;
    D.Template = "(domains)";
    D.Report = std::move(*R);
    D.Domains = true;
    D.DomainTemplates = F.Templates.size();
    Rows.push_back(std::move(D));
  }
  printProveTable(Rows, C.Table, llvm::outs());
  ProveTally T = tallyRows(Rows, C.Table);
  for (const std::string &S : T.Stale)
    llvm::errs() << "note: --allow-bounded " << S
                 << ": no such bounded obligation (proved for every value, or "
                    "misspelt)\n";
  if (C.View.Json)
    llvm::outs() << jsonText(All) << '\n';
  return T.passed() ? ExitOk : ExitFailed;
}

} // namespace

int choreo::cmdProve(llvm::ArrayRef<std::string> Args) {
  std::string Usage = commandHelp(ProveDoc, proveDecls());
  if (wantsHelp(Args)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  ProveCommand C;
  if (std::optional<std::string> Err = parseProveArgs(Args, C))
    return usageError(*Err, Usage);
  if (C.All)
    return proveEverything(C);
  // A generator's templates (their domains must cover every value), or
  // else the template Target names.
  const Generator *G = findGenerator(C.Target);
  std::vector<std::string> Templates;
  for (const GeneratorTemplate &T :
       G ? G->templates() : llvm::ArrayRef<GeneratorTemplate>())
    Templates.push_back(T.Template);
  bool Cover = !Templates.empty() && coverApplies(Templates);
  if (Templates.empty())
    Templates.push_back(C.Target);
  int Exit = ExitOk;
  nlohmann::ordered_json All = nlohmann::ordered_json::array();
  auto E = proveTarget(Templates, C.Prove, [&](const TemplateProof &P) {
    printProof(P, C.View, llvm::outs(), llvm::errs());
    if (C.View.Json)
      All.push_back(proofJson(P));
    if (!P.Report.proved())
      Exit = ExitFailed;
  });
  if (E) {
    printError(llvm::errs(), std::move(E));
    return ExitInvalid;
  }
  if (Cover) {
    auto R = proveTargetCover(Templates, C.Prove);
    if (!R) {
      printError(llvm::errs(), R.takeError());
      return ExitInvalid;
    }
    if (!printCover(C.Target, *R, Templates.size(), C.View, llvm::outs(),
                    llvm::errs()))
      Exit = ExitFailed;
  }
  if (C.View.Json)
    llvm::outs() << jsonText(All) << '\n';
  return Exit;
}
