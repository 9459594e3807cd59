//===- tools/choreo/choreo.cpp - The choreo command-line driver -----------===//
///
/// \file
/// `choreo list | gen | verify | show | stats | prove | cost | compare |
/// export`: parses each command's arguments into
/// options and calls one library entry point. Exit codes: 0 success (for
/// verify: proved), 1 a property fails, 2 unreadable or invalid input or bad
/// arguments.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "cost/Stats.h"
#include "generators/Generator.h"
#include "ir/ScheduleIO.h"
#include "views/ProveReport.h"
#include "views/ScheduleTable.h"
#include "template/Template.h"
#include "verifier/smt/Prover.h"
#include "verifier/smt/Smt.h"
#include "verifier/Verifier.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatAdapters.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace choreo;

bool choreo::wantsHelp(llvm::ArrayRef<std::string> Args) {
  for (const std::string &A : Args)
    if (A == "--help" || A == "-h")
      return true;
  return false;
}

int choreo::usageError(const llvm::Twine &Msg, const char *Usage) {
  llvm::errs() << "error: " << Msg << "\n\n" << Usage;
  return ExitInvalid;
}

std::optional<Schedule>
choreo::readArgument(llvm::ArrayRef<std::string> Args, const char *Usage,
                     int &Exit) {
  if (Args.size() != 1) {
    Exit = usageError(Args.empty() ? "missing the schedule file (or - for "
                                     "standard input)"
                                   : "expected one schedule file",
                      Usage);
    return std::nullopt;
  }
  auto S = readScheduleFile(Args[0]);
  if (!S) {
    printError(llvm::errs(), S.takeError());
    Exit = ExitInvalid;
    return std::nullopt;
  }
  return std::move(*S);
}

namespace {

const char *MainUsage =
    R"(usage: choreo <command> [arguments]

Generate, prove and inspect MPI collective-communication schedules.

commands:
  list                      the algorithms choreo generates
  gen ALGO [OPTIONS]        generate a schedule (format v1, JSON or CBOR)
  verify FILE|-             prove a schedule: availability, ports, topology,
                            completeness (and exactly-once for reductions)
  show FILE|-               a step-by-step table of who sends what to whom
  stats FILE|- [--json]     steps, bytes of the busiest sender and receiver,
                            bytes moved, lock-step bandwidth term
  prove ALGO|TEMPLATE       prove a template (affine loop nests over p, q)
                            for every p and q in its domain
  cost FILE|-               predicted time under the alpha-beta(-gamma)
                            model: lock step and asynchronous
  compare ALGO... OPTIONS   predicted times and speed-ups of algorithms over
                            message sizes (--sizes), as a table or a chart
  export --goal FILE|-      the schedule in LogGOPSim's GOAL format
  synth --collective C ...  the fewest steps of a small instance, found by
                            Z3 (a schedule, or a proof that none exists)
  select --collective C --p P --bytes N
                            the fastest reduction algorithms under the model
                            (or a map of the winners: --plot FILE.svg)

`choreo <command> --help` describes a command.
exit codes: 0 success or proved, 1 a property fails, 2 invalid input.
)";

const char *VerifyUsage =
    R"(usage: choreo verify FILE|- [--engine explicit|smt|both] [--timeout S]

Proves a schedule (JSON or CBOR, "-" reads standard input) with the explicit
engine: every op's sender holds what it sends (availability), per step no
rank exceeds its send/recv ports (and, unless duplex, never both sends and
receives), every op is a link of the topology, every rank ends with what the
collective requires (completeness), and reductions combine each contribution
exactly once. With `nodes`, per step no node sends more ops to other nodes
(or receives more from them) than `node_ports` allow; with a non-commutative
`op`, every combination joins two adjacent rank intervals (operand order).
Reports the first failure of each kind with its step, rank and block.

--engine explicit (default) replays the schedule over interval sets; smt
encodes the same properties for Z3 and proves them by refutation (timeout
--timeout seconds, default 60); both runs the two and fails if they disagree.

exit codes: 0 proved, 1 a property fails (or the SMT engine cannot decide,
or the engines disagree), 2 unreadable or invalid schedule.
)";

const char *ShowUsage =
    R"(usage: choreo show FILE|-

Prints a schedule step by step: every op as `src -> dst  blocks  messages`,
ranks of intergroup collectives named a0.., b0.., blocks as buffer byte ranges
and the member messages they carry (m_A3 is a3's whole message, m_B0[0,3) its
first three bytes).
)";

int cmdList(llvm::ArrayRef<std::string> Args) {
  if (wantsHelp(Args)) {
    llvm::outs() << "usage: choreo list\n\nLists the generators by id with "
                    "a one-line description.\n";
    return ExitOk;
  }
  size_t W = 0;
  for (const Generator *G : allGenerators())
    W = std::max(W, G->id().size());
  for (const Generator *G : allGenerators())
    llvm::outs() << llvm::formatv("{0}  {1}\n",
                                  llvm::fmt_align(G->id(),
                                                  llvm::AlignStyle::Left, W),
                                  G->summary());
  return ExitOk;
}

/// `choreo gen ALGO --help` (G) or `choreo help gen` (null): the options
/// table derived from the declarations.
std::string genUsage(const Generator *G) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (G) {
    OS << "usage: choreo gen " << G->id()
       << " [OPTIONS] [-o FILE] [--format json|cbor]\n\n"
       << G->summary() << "\n\noptions:\n";
  } else {
    OS << "usage: choreo gen ALGO [OPTIONS] [-o FILE] [--format json|cbor]\n\n"
          "Generates a schedule of algorithm ALGO (see `choreo list`) and "
          "writes it\nin format v1: to standard output by default, to FILE "
          "with -o; as CBOR\nwith --format cbor or a .cbor file name.\n\n"
          "options (each algorithm takes some of them; `choreo gen ALGO "
          "--help` lists\nits own, with the values and defaults it "
          "admits):\n";
  }
  std::vector<HelpRow> Rows =
      optionHelpRows(G ? G->options() : allGenOptions());
  Rows.push_back({"-o FILE", "write to FILE instead of standard output"});
  Rows.push_back({"--format F", "json (default) or cbor"});
  printHelpRows(OS, Rows);
  OS << "\nsizes take K, M and G suffixes (1K = 1024 bytes).\n";
  return S;
}

/// `choreo gen --template FILE|NAME --p P --q Q [sizes] [-o FILE]`.
int genTemplate(llvm::ArrayRef<std::string> Args) {
  std::string Out = "-";
  std::optional<FileFormat> Format;
  std::vector<std::string> Rest;
  std::string TemplateArg = Args[1];
  for (size_t I = 2; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (A != "-o" && A != "--format") {
      Rest.push_back(A.str());
      continue;
    }
    if (I + 1 >= Args.size())
      return usageError(A + ": missing value", genUsage(nullptr).c_str());
    if (A == "-o") {
      Out = Args[++I];
      continue;
    }
    auto F = parseFileFormat(Args[++I]);
    if (!F)
      return usageError(llvm::toString(F.takeError()),
                        genUsage(nullptr).c_str());
    Format = *F;
  }
  auto T = loadTemplate(TemplateArg);
  if (!T) {
    printError(llvm::errs(), T.takeError());
    return ExitInvalid;
  }
  // Parameters other than p and q (a broadcast's root, segments, groups)
  // are read here as --NAME N, before the generator options.
  Env Params;
  for (const std::string &Name : T->Params) {
    if (Name == "p" || Name == "q")
      continue;
    for (size_t I = 0; I + 1 < Rest.size(); ++I) {
      if (Rest[I] != "--" + Name)
        continue;
      int64_t X;
      if (llvm::StringRef(Rest[I + 1]).getAsInteger(10, X)) {
        llvm::errs() << "error: --" << Name << ": '" << Rest[I + 1]
                     << "' is not an integer\n";
        return ExitInvalid;
      }
      Params[Name] = X;
      Rest.erase(Rest.begin() + I, Rest.begin() + I + 2);
      break;
    }
  }
  auto P = parseGenArgs(Rest);
  if (!P) {
    printError(llvm::errs(), P.takeError());
    return ExitInvalid;
  }
  for (const std::string &Name : T->Params) {
    if (Params.count(Name))
      continue;
    std::optional<uint64_t> V;
    if (Name == "p" || Name == "q")
      V = P->number(Name);
    if (!V) {
      llvm::errs() << "error: --" << Name << ": missing (template " << T->Name
                   << " takes " << llvm::join(T->Params, ", ") << ")\n";
      return ExitInvalid;
    }
    Params[Name] = *V;
  }
  if (auto E = checkTemplateBudget(*T, Params)) {
    printError(llvm::errs(), std::move(E));
    return ExitInvalid;
  }
  auto [UnitA, UnitB] = unitSizes(*T, Params);
  auto Sized = [&](llvm::StringRef BytesOpt, llvm::StringRef CountsOpt,
                   std::vector<uint64_t> Unit) {
    if (auto Counts = P->sizeList(CountsOpt))
      return *Counts;
    if (auto Bytes = P->number(BytesOpt))
      for (uint64_t &X : Unit)
        X = *Bytes;
    return Unit;
  };
  // A broadcast's or reduction's one size is the vector length; a
  // reduction's segments are cut on --element-bytes boundaries (default 8,
  // as the generators'; 1 without --bytes: one byte per segment).
  bool OneVector = specOf(T->Kind).Data == DataKind::Broadcast ||
                   T->isReduction();
  uint64_t Elem = P->number("element-bytes").value_or(
      P->number("bytes") ? 8 : 1);
  auto S = expandTemplate(*T, Params,
                          OneVector ? Sized("bytes", "counts", UnitA)
                                    : Sized("bytes-a", "counts-a", UnitA),
                          Sized("bytes-b", "counts-b", UnitB),
                          TemplateOpBudget, Elem);
  if (!S) {
    printError(llvm::errs(), S.takeError());
    return ExitInvalid;
  }
  if (auto E = writeScheduleFile(*S, Out, Format ? *Format : formatForPath(Out))) {
    printError(llvm::errs(), std::move(E));
    return ExitInvalid;
  }
  return ExitOk;
}

int cmdGen(llvm::ArrayRef<std::string> Args) {
  if (Args.size() >= 2 && Args[0] == "--template")
    return genTemplate(Args);
  if (Args.empty() || Args[0].starts_with("-")) {
    if (wantsHelp(Args)) {
      llvm::outs() << genUsage(nullptr);
      return ExitOk;
    }
    return usageError("missing the algorithm (see `choreo list`)",
                      genUsage(nullptr).c_str());
  }
  const Generator *G = findGenerator(Args[0]);
  if (!G)
    return usageError(llvm::formatv("unknown algorithm '{0}' (see `choreo "
                                    "list`)",
                                    Args[0]),
                      genUsage(nullptr).c_str());
  if (wantsHelp(Args)) {
    llvm::outs() << genUsage(G);
    return ExitOk;
  }
  std::string Out = "-";
  std::optional<FileFormat> Format;
  std::vector<std::string> GenArgs;
  for (size_t I = 1; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (A == "-o" || A == "--format") {
      if (I + 1 >= Args.size())
        return usageError(A + ": missing value", genUsage(G).c_str());
      llvm::StringRef V = Args[++I];
      if (A == "-o") {
        Out = V.str();
      } else if (V == "json" || V == "cbor") {
        Format = V == "json" ? FileFormat::Json : FileFormat::Cbor;
      } else {
        return usageError("--format: expected json or cbor, got '" + V + "'",
                          genUsage(G).c_str());
      }
      continue;
    }
    GenArgs.push_back(A.str());
  }
  auto Params = parseGenArgs(GenArgs);
  if (!Params) {
    printError(llvm::errs(), Params.takeError());
    return ExitInvalid;
  }
  auto S = G->generate(*Params);
  if (!S) {
    printError(llvm::errs(), S.takeError());
    return ExitInvalid;
  }
  FileFormat F = Format ? *Format : formatForPath(Out);
  if (auto E = writeScheduleFile(*S, Out, F)) {
    printError(llvm::errs(), std::move(E));
    return ExitInvalid;
  }
  return ExitOk;
}

/// Whether two engines' results agree: the same status and the same
/// diagnostics.
bool sameResult(const VerifyResult &A, const VerifyResult &B) {
  if (A.St != B.St || A.Diags.size() != B.Diags.size())
    return false;
  for (size_t I = 0; I < A.Diags.size(); ++I)
    if (A.Diags[I].Kind != B.Diags[I].Kind ||
        A.Diags[I].Message != B.Diags[I].Message)
      return false;
  return true;
}

int cmdVerify(llvm::ArrayRef<std::string> Args) {
  if (wantsHelp(Args)) {
    llvm::outs() << VerifyUsage;
    return ExitOk;
  }
  std::string Engine = "explicit";
  SmtOptions SO;
  std::vector<std::string> Files;
  for (size_t I = 0; I < Args.size(); ++I) {
    unsigned N;
    if (Args[I] == "--engine" && I + 1 < Args.size()) {
      Engine = Args[++I];
      if (Engine != "explicit" && Engine != "smt" && Engine != "both")
        return usageError("--engine: expected explicit, smt or both, got '" +
                              Engine + "'",
                          VerifyUsage);
    } else if (Args[I] == "--timeout" && I + 1 < Args.size() &&
               !llvm::StringRef(Args[I + 1]).getAsInteger(10, N) && N > 0) {
      SO.TimeoutMs = N * 1000;
      ++I;
    } else {
      Files.push_back(Args[I]);
    }
  }
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(Files, VerifyUsage, Exit);
  if (!S)
    return Exit;
  VerifyResult R = Engine == "smt" ? checkSmt(*S, SO) : checkExplicit(*S);
  if (Engine == "both") {
    VerifyResult Z = checkSmt(*S, SO);
    if (!sameResult(R, Z)) {
      llvm::errs() << "error: the engines disagree\n";
      llvm::errs() << "note: explicit engine:\n";
      printDiagnostics(llvm::errs(), R.Diags);
      llvm::errs() << "note: SMT engine:\n";
      printDiagnostics(llvm::errs(), Z.Diags);
      return ExitFailed;
    }
  }
  printDiagnostics(llvm::errs(), R.Diags);
  std::string What = llvm::formatv(
      "{0} ({1}, {2} ranks, {3} steps, {4} ops)",
      S->Algorithm.empty() ? "schedule" : S->Algorithm,
      collectiveName(S->Kind), S->NumRanks, S->Steps.numSteps(),
      S->Steps.numOps());
  if (R.proved()) {
    llvm::outs() << "proved: " << What << ": availability, ports, topology, "
                 << (S->spec().isReduction() ? "completeness, exactly-once"
                                          : "completeness")
                 << (S->hasNodes() ? ", node ports" : "")
                 << (S->commutative() ? "" : ", operand order")
                 << (Engine == "explicit" ? "" : " (" + Engine + ")") << "\n";
  } else {
    llvm::outs() << "not proved: " << What << ": " << R.Diags.size()
                 << (R.Diags.size() == 1 ? " property fails\n"
                                         : " properties fail\n");
  }
  return R.exitCode();
}

int cmdShow(llvm::ArrayRef<std::string> Args) {
  if (wantsHelp(Args)) {
    llvm::outs() << ShowUsage;
    return ExitOk;
  }
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(Args, ShowUsage, Exit);
  if (!S)
    return Exit;
  printScheduleTable(*S, llvm::outs());
  return ExitOk;
}

const char *StatsUsage =
    R"(usage: choreo stats FILE|- [--json]

Counts what a schedule moves: steps (start-ups in lock step), ops, bytes
moved in all, the bytes the busiest rank sends and receives, the most
messages any rank receives, and the lock-step bandwidth term (the sum over
steps of each step's largest message, in bytes).
)";

const char *ProveUsage =
    R"(usage: choreo prove ALGO|TEMPLATE [--timeout SECONDS] [--bound B]
                    [--first] [--verbose] [--json]

Proves a schedule template — affine loop nests over symbolic parameters, the
form of the papers' listings (docs/templates.md) — for every parameter value
in its domain: ports (no two ops of a step share a sender, or a receiver),
topology (ranks exist, no self-send, ring links on a ring), message indices,
availability (each sender is the message's origin or received it earlier)
and completeness (every goal rank receives every goal message), each refuted
with Z3. A counterexample gives concrete p, q, step and rank, and is replayed
by the explicit engine on the expanded schedule.

ALGO: half-allgather-ring (its six cases: even q with p = q, p > q, p < q;
q = 1; odd q >= 3 with p > q, p <= q), half-allgather-ring-opt (p +
ceil(q/2) - 1 steps: ring-opt, ring-opt-wide, ring-opt-one-sender),
inter-allgather-kang (q | p), allreduce-ring, reduce-scatter-ring. For an
ALGO, a last line says which p, q its templates' domains cover (proved with
Z3, together with their disjointness).
TEMPLATE: a built-in template's name (ring-equal, ring-senders-first,
ring-receivers-first, ring-single-receiver, ring-senders-first-odd,
ring-receivers-first-odd, ring-opt, ring-opt-wide, ring-opt-one-sender,
kang-divisible, bcast-flat, bcast-chain, bcast-pipeline, bcast-hier-flat,
bcast-hier-chain, reduce-scatter-ring, allreduce-ring,
allreduce-recursive-doubling, reduce-chain) or a file. A reduction template
is proved exactly-once (no contribution combined twice), in rank order
where its operator is not commutative, and complete, with the induction of
its `holds` (initial, transition, frame, link).

When a query is unknown to Z3 (a timeout, a nonlinear term), it is proved for
every parameter value in [1, B] instead (default 24) and reported as bounded.
--timeout bounds each query and the whole run (default: 60 s per query, no
limit on the run); obligations not attempted by then are unknown.
--first stops at the first counterexample.
exit codes: 0 proved, 1 a counterexample or an unknown obligation,
2 unreadable template.
)";

/// `choreo prove`'s options.
struct ProveCommand {
  std::string Target;
  ProveOptions Prove;
  ProveReportOptions View;
};

/// Fills C from the arguments; returns the problem with them, if any.
std::optional<std::string> parseProveArgs(llvm::ArrayRef<std::string> Args,
                                          ProveCommand &C) {
  std::vector<std::string> Targets;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    unsigned N;
    if ((A == "--timeout" || A == "--bound") && I + 1 < Args.size() &&
        !llvm::StringRef(Args[I + 1]).getAsInteger(10, N) && N > 0) {
      if (A == "--timeout") {
        // Each query's limit and the whole run's (proveTarget and the
        // cover proof share the deadline).
        C.Prove.TimeoutMs = N * 1000;
        C.Prove.Deadline =
            std::chrono::steady_clock::now() + std::chrono::seconds(N);
      }
      else
        C.Prove.Bound = N;
      ++I;
    } else if (A == "--verbose") {
      C.View.Verbose = true;
    } else if (A == "--first") {
      C.Prove.StopAtFirst = true;
    } else if (A == "--json") {
      C.View.Json = true;
    } else if (A.starts_with("-")) {
      return ("unknown or incomplete option " + A).str();
    } else {
      Targets.push_back(A.str());
    }
  }
  if (Targets.size() != 1)
    return std::string("expected one algorithm or template");
  C.Target = Targets[0];
  C.View.Bound = C.Prove.Bound;
  return std::nullopt;
}

int cmdProve(llvm::ArrayRef<std::string> Args) {
  if (wantsHelp(Args)) {
    llvm::outs() << ProveUsage;
    return ExitOk;
  }
  ProveCommand C;
  if (std::optional<std::string> Err = parseProveArgs(Args, C))
    return usageError(*Err, ProveUsage);
  int Exit = ExitOk;
  nlohmann::ordered_json All = nlohmann::ordered_json::array();
  auto E = proveTarget(C.Target, C.Prove, [&](const TemplateProof &P) {
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
  auto Cover = proveTargetCover(C.Target, C.Prove);
  if (!Cover) {
    printError(llvm::errs(), Cover.takeError());
    return ExitInvalid;
  }
  if (*Cover && !printCover(C.Target, **Cover, templatesFor(C.Target).size(),
                            C.View, llvm::outs(), llvm::errs()))
    Exit = ExitFailed;
  if (C.View.Json)
    llvm::outs() << jsonText(All) << '\n';
  return Exit;
}

int cmdStats(llvm::ArrayRef<std::string> Args) {
  if (wantsHelp(Args)) {
    llvm::outs() << StatsUsage;
    return ExitOk;
  }
  bool Json = false;
  std::vector<std::string> Files;
  for (const std::string &A : Args) {
    if (A == "--json")
      Json = true;
    else
      Files.push_back(A);
  }
  int Exit = ExitOk;
  std::optional<Schedule> S = readArgument(Files, StatsUsage, Exit);
  if (!S)
    return Exit;
  ScheduleStats St = computeStats(*S);
  if (Json) {
    nlohmann::ordered_json J = {{"algorithm", S->Algorithm},
                                {"steps", St.Steps},
                                {"ops", St.Ops},
                                {"bytes_moved", St.BytesMoved},
                                {"max_sent", St.MaxSent},
                                {"max_sent_rank", St.MaxSentRank},
                                {"max_received", St.MaxRecv},
                                {"max_received_rank", St.MaxRecvRank},
                                {"max_messages_received",
                                 St.MaxMessagesReceived},
                                {"lockstep_bytes", St.LockstepBytes}};
    llvm::outs() << jsonText(J) << '\n';
    return ExitOk;
  }
  llvm::outs() << llvm::formatv(
      "steps {0}, ops {1}, bytes moved {2}\n"
      "busiest sender: rank {3}, {4} bytes; busiest receiver: rank {5}, {6} "
      "bytes; at most {7} messages received by a rank\n"
      "lock-step bandwidth term: {8} bytes\n",
      St.Steps, St.Ops, St.BytesMoved, St.MaxSentRank, St.MaxSent,
      St.MaxRecvRank, St.MaxRecv, St.MaxMessagesReceived, St.LockstepBytes);
  return ExitOk;
}

} // namespace

int run(std::vector<std::string> Args) {
  if (Args.empty())
    return usageError("missing a command", MainUsage);
  std::string Cmd = Args[0];
  std::vector<std::string> Rest(Args.begin() + 1, Args.end());
  if (Cmd == "--help" || Cmd == "-h" || Cmd == "help") {
    if (Rest.empty()) {
      llvm::outs() << MainUsage;
      return ExitOk;
    }
    // `choreo help gen` is `choreo gen --help`.
    Cmd = Rest[0];
    Rest = {"--help"};
  }
  if (Cmd == "list")
    return cmdList(Rest);
  if (Cmd == "gen")
    return cmdGen(Rest);
  if (Cmd == "verify")
    return cmdVerify(Rest);
  if (Cmd == "show")
    return cmdShow(Rest);
  if (Cmd == "stats")
    return cmdStats(Rest);
  if (Cmd == "prove")
    return cmdProve(Rest);
  if (Cmd == "cost")
    return cmdCost(Rest);
  if (Cmd == "compare")
    return cmdCompare(Rest);
  if (Cmd == "export")
    return cmdExport(Rest);
  if (Cmd == "synth")
    return cmdSynth(Rest);
  if (Cmd == "select")
    return cmdSelect(Rest);
  return usageError("unknown command '" + Cmd + "'", MainUsage);
}

int main(int Argc, char **Argv) {
  // No input should reach this handler; it turns a bug into a clear exit 2
  // instead of an abort.
  try {
    return run(std::vector<std::string>(Argv + 1, Argv + Argc));
  } catch (const std::bad_alloc &) {
    // Running out of memory is not a bug: say what was too large.
    std::string Cmd;
    for (int I = 1; I < Argc; ++I)
      Cmd += std::string(I > 1 ? " " : "") + Argv[I];
    llvm::errs() << "error: out of memory: `choreo " << Cmd
                 << "` needs more memory than this process may use (try "
                    "fewer ranks, steps or ops)\n";
    return ExitInvalid;
  } catch (const std::exception &E) {
    llvm::errs() << "error: internal error: " << E.what() << '\n';
    return ExitInvalid;
  }
}
