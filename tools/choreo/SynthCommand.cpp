//===- tools/choreo/SynthCommand.cpp - choreo synth -----------------------===//
///
/// \file
/// `choreo synth`: reads the instance's options into a SynthRequest, asks
/// verifier/smt/Synth.h for a schedule of --steps T (or the fewest steps
/// with --minimize) and reports each query; writes a found schedule with -o.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "generators/CommonOptions.h"
#include "ir/BoundedFile.h"
#include "ir/ScheduleIO.h"
#include "ir/TopologyJson.h"
#include "verifier/smt/Synth.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace choreo;
using llvm::formatv;

namespace {

const CommandDoc SynthDoc = {
    R"(usage: choreo synth --collective C --p P [--q Q] [--root R]
                    [--topology full|ring|FILE] [--ports S,R] [--no-duplex]
                    [--nodes LIST | --node-of LIST] [--node-ports S,R]
                    [--chunks K] (--steps T | --minimize [--from T]
                    [--max-steps M]) [--timeout S] [--json]
                    [-o FILE] [--format json|cbor]
)",
    R"(Asks Z3 for a schedule of at most T steps: every contribution is one
indivisible unit (--chunks K cuts each into K), an op carries one unit, per
step a rank sends at most S ops and receives at most R (--ports, default
1,1; --no-duplex: never both in one step), and ops run on the topology's
links only. With --nodes (or --node-of) the ranks share compute nodes, and
per step at most S ops leave a node and at most R enter it (--node-ports,
default 1,1; ops inside a node take no node port): seed 003's clustered
single-port model, the schedule's `nodes` and `node_ports`. sat: a schedule (format v1, which `choreo verify` proves),
written with -o; unsat: no schedule of T steps exists, a machine-checked
lower bound of T + 1.

--minimize asks T = L - 1, L, L + 1, ... (one incremental solver), where L
is the lower bound that distances, receive ports and doubling give (or from
--from, if larger), until a query is sat, and prints each query's answer and
time and the optimum; Z3 itself proves the step before the optimum
impossible. --max-steps caps the search (default 64).

Bounds: one op per step always makes a schedule (each unit handed along
shortest paths; a reduction's partials combined along a tree, the result
handed on), so its op count is an upper bound U on the optimum: --steps T
with T >= U is answered by that schedule without Z3, and --minimize stops
at U at the latest. An encoding is at most 1,000,000 Boolean variables (T
times the variables of a step, about 6 GB for Z3): more is refused before
anything is encoded (--minimize: that T is unknown, not asked).

C: allgather, allgatherv, inter_allgather, inter_allgatherv, half_allgather,
   bcast, gather, scatter, barrier (one unit per rank), and the reductions
   reduce, allreduce, reduce_scatter
   (commutative operator, one receive port: --ports S,1). A reduction's
   vector is --chunks K units (reduce_scatter: K per rank's slice); every
   rank holds a partial of each unit with its contributor set, an op
   combines its set into the receiver's (disjoint: every contribution once)
   or replaces the receiver's partial.
)",
    R"(examples:
  choreo synth --collective half_allgather --p 4 --q 4 --topology ring --minimize
  choreo synth --collective bcast --p 8 --steps 3 -o bcast8.json
  choreo synth --collective allgather --p 4 --ports 2,2 --nodes 2,2 --minimize
  choreo synth --collective allreduce --p 5 --minimize -o ar5.json

exit codes: 0 a schedule was found, 1 none exists in the steps asked (or a
query was unknown), 2 invalid arguments.
)"};

const Option<std::string> &collectiveOpt() {
  static const Option<std::string> O =
      textOption("collective", "the collective (C below)", "C")
          .parsedBy([](const OptionDecl &D, llvm::StringRef V)
                        -> llvm::Expected<OptionValue> {
            if (!parseCollective(V))
              return optionError(D, "unknown collective '" + V + "'");
            return OptionValue(V.str());
          });
  return O;
}

/// A count of synth's: positive, or any (ZeroOk).
Option<uint64_t> synthCount(llvm::StringRef Name, llvm::StringRef Help,
                            llvm::StringRef Meta, bool ZeroOk = false) {
  return countOption(Name, Help)
      .withMetavar(Meta)
      .parsedBy(numberParser(ZeroOk ? 0 : 1, UINT32_MAX,
                             ZeroOk ? "a count" : "a positive count"));
}

/// "S,R": two positive counts (--ports, --node-ports).
Option<SizeList> portPair(llvm::StringRef Name, llvm::StringRef Help) {
  return sizeListOption(Name, Help)
      .withMetavar("S,R")
      .parsedBy([](const OptionDecl &D,
                   llvm::StringRef V) -> llvm::Expected<OptionValue> {
        llvm::SmallVector<llvm::StringRef, 2> Parts;
        V.split(Parts, ',');
        uint32_t Send, Recv;
        if (Parts.size() != 2 || Parts[0].getAsInteger(10, Send) ||
            Parts[1].getAsInteger(10, Recv) || Send == 0 || Recv == 0)
          return optionError(D, "expected SEND,RECV (two positive counts), "
                                "got '" + V + "'");
        return OptionValue(SizeList{Send, Recv});
      });
}

/// synth's options, declared once.
struct SynthOptionSet {
  Option<uint64_t> P = synthCount(
      "p", "the ranks of an intragroup collective, the senders (group A, "
           "ranks 0..P-1) of an intergroup one",
      "P");
  Option<uint64_t> Q = synthCount("q", "group B (ranks P..P+Q-1)", "Q");
  Option<uint64_t> Root =
      synthCount("root", "the root of bcast, gather and reduce", "R", true)
          .withDefault("0");
  Option<std::string> Topology = textOption(
      "topology", "full (default), ring (0, 1, ..., n-1), or a JSON file "
                  "holding a format-v1 topology object ({\"kind\": "
                  "\"graph\", \"edges\": [[0, 1], ...]} or {\"kind\": "
                  "\"ring\", \"order\": [...]})",
      "full|ring|FILE");
  Option<SizeList> Ports =
      portPair("ports", "per step a rank sends at most S ops and receives "
                        "at most R (default 1,1)");
  Option<bool> NoDuplex = flagOption(
      "no-duplex", "a rank never both sends and receives in one step");
  Option<SizeList> Nodes = opt::nodes().withHelp(
      "ranks per compute node, consecutive ranks (2,2: ranks 0-1 and 2-3); "
      "they cover every rank (p + q of an intergroup collective)");
  Option<SizeList> NodeOf = opt::nodeOf().withHelp(
      "the node of every rank (0,1,0,1: round robin)");
  Option<SizeList> NodePorts =
      portPair("node-ports", "per step at most S ops leave a node and at "
                             "most R enter it (default 1,1)");
  Option<uint64_t> Chunks = synthCount(
      "chunks", "cut each contribution into K units (default 1)", "K");
  Option<uint64_t> Steps =
      synthCount("steps", "ask for a schedule of at most T steps", "T", true);
  Option<bool> Minimize = flagOption("minimize", "the fewest steps (above)");
  Option<uint64_t> From = synthCount(
      "from", "with --minimize: start at T if above the lower bound", "T",
      true);
  Option<uint64_t> MaxSteps =
      synthCount("max-steps", "with --minimize: the last T asked", "M")
          .withDefault("64");
  Option<uint64_t> Timeout = synthCount(
      "timeout", "give up a query after S seconds (answer unknown)", "S");
  Option<bool> Json = flagOption("json", "the report as one JSON object");
  Option<std::string> Out =
      textOption("o", "write the schedule found to FILE", "FILE")
          .singleDash();

  std::vector<OptionDecl> decls() const {
    return {collectiveOpt(), P,         Q,        Root,     Topology,
            Ports,           NoDuplex,  Nodes,    NodeOf,   NodePorts,
            Chunks,          Steps,     Minimize, From,     MaxSteps,
            Timeout,         Json,      Out,      formatOpt()};
  }
};

const SynthOptionSet &synthOpts() {
  static const SynthOptionSet O;
  return O;
}

llvm::ArrayRef<OptionDecl> synthDecls() {
  static const std::vector<OptionDecl> Decls = synthOpts().decls();
  return Decls;
}

/// `choreo synth`'s options.
struct SynthCommand {
  SynthRequest Req;
  SynthOptions Opts;
  std::optional<unsigned> Steps;
  bool Minimize = false;
  unsigned From = 0, MaxSteps = 64;
  bool Json = false;
  std::string Out;
  std::optional<FileFormat> Format;
  std::string TopologyFile;
};

/// A topology object of format v1 read from Path (ir/TopologyJson.h).
llvm::Expected<Topology> readTopology(llvm::StringRef Path) {
  auto Fail = [&](const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--topology: " + Path + Msg);
  };
  // A topology over at most 64 ranks is a few kilobytes: a small file.
  auto Buf = readBoundedFile(Path, MaxSmallFileBytes);
  if (!Buf)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--topology: " +
                                       llvm::toString(Buf.takeError()));
  nlohmann::ordered_json J = nlohmann::ordered_json::parse(
      (*Buf)->getBuffer().begin(), (*Buf)->getBuffer().end(), nullptr, false);
  if (J.is_discarded())
    return Fail(": expected a JSON object (a format-v1 topology)");
  auto T = decodeTopology(J, "");
  if (!T)
    return Fail(llvm::toString(T.takeError()));
  return T;
}

std::optional<std::string> parseSynthArgs(llvm::ArrayRef<std::string> Args,
                                          SynthCommand &C) {
  CommandRules NoPositionals;
  NoPositionals.Positionals = false;
  auto L = parseCommandLine(Args, synthDecls(), NoPositionals);
  if (!L)
    return llvm::toString(L.takeError());
  const OptionValues &V = L->Values;
  const SynthOptionSet &O = synthOpts();
  C.Minimize = V.get(O.Minimize);
  C.Json = V.get(O.Json);
  C.Req.Port.Duplex = !V.get(O.NoDuplex);
  if (auto K = V.lookup(collectiveOpt()))
    C.Req.Kind = *parseCollective(*K);
  C.Req.P = V.get(O.P);
  C.Req.Q = V.get(O.Q);
  if (auto N = V.lookup(O.Chunks))
    C.Req.Chunks = *N;
  C.MaxSteps = V.get(O.MaxSteps);
  C.Req.Root = V.get(O.Root);
  if (auto N = V.lookup(O.Steps))
    C.Steps = *N;
  C.From = V.get(O.From);
  if (auto N = V.lookup(O.Timeout))
    C.Opts.TimeoutMs = *N * 1000;
  if (auto Pair = V.lookup(O.Ports)) {
    C.Req.Port.Send = (*Pair)[0];
    C.Req.Port.Recv = (*Pair)[1];
  }
  if (auto Pair = V.lookup(O.NodePorts)) {
    C.Req.NodePort.Send = (*Pair)[0];
    C.Req.NodePort.Recv = (*Pair)[1];
  }
  std::string Topo = V.lookup(O.Topology).value_or("full");
  if (Topo == "full")
    C.Req.Topo = Topology::full();
  else if (Topo == "ring")
    C.Req.Topo = Topology::ring();
  else
    C.TopologyFile = Topo;
  C.Out = V.lookup(O.Out).value_or("");
  C.Format = V.lookup(formatOpt());
  if (!V.has(collectiveOpt()))
    return std::string("--collective: missing");
  if (!V.has(O.P))
    return std::string("--p: missing");
  if (C.Steps.has_value() == C.Minimize)
    return std::string("give --steps T or --minimize (one of them)");
  auto NodeOf = nodeOfRanks(V, C.Req.P + C.Req.Q,
                            C.Req.Q ? "--p + --q" : "--p");
  if (!NodeOf)
    return llvm::toString(NodeOf.takeError());
  if (*NodeOf)
    C.Req.Nodes = nodePartition(**NodeOf);
  else if (V.has(O.NodePorts))
    return std::string("--node-ports: the ranks share no nodes (give "
                       "--nodes or --node-of)");
  return std::nullopt;
}

const char *answerName(SynthQuery::Answer A) {
  return A == SynthQuery::Answer::Sat     ? "sat"
         : A == SynthQuery::Answer::Unsat ? "unsat"
                                          : "unknown";
}

} // namespace

int choreo::cmdSynth(llvm::ArrayRef<std::string> Args) {
  std::string Usage = commandHelp(SynthDoc, synthDecls());
  if (wantsHelp(Args)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  SynthCommand C;
  if (std::optional<std::string> Err = parseSynthArgs(Args, C))
    return usageError(*Err, Usage);
  if (!C.TopologyFile.empty()) {
    auto T = readTopology(C.TopologyFile);
    if (!T) {
      printError(llvm::errs(), T.takeError());
      return ExitInvalid;
    }
    C.Req.Topo = *T;
  }
  auto H = synthInstance(C.Req);
  if (!H) {
    printError(llvm::errs(), H.takeError());
    return ExitInvalid;
  }
  // The report goes to standard error when the schedule goes to standard
  // output.
  llvm::raw_ostream &OS = C.Out == "-" ? llvm::errs() : llvm::outs();
  auto LB = synthLowerBound(*H);
  if (!LB) {
    printError(llvm::errs(), LB.takeError());
    return ExitInvalid;
  }
  if (!C.Json)
    OS << formatv("lower bound: {0} ({1})\n", LB->first, LB->second);
  auto OnQuery = [&](const SynthQuery &Q) {
    if (!C.Json)
      OS << formatv("T = {0}: {1} ({2:f3} s){3}\n", Q.Steps,
                    answerName(Q.A), Q.Seconds,
                    Q.Why.empty() ? "" : " (" + Q.Why + ")");
  };
  llvm::Expected<SynthResult> R =
      C.Minimize
          ? synthesizeMin(*H, C.From, C.MaxSteps, C.Opts, OnQuery)
          : synthesize(*H, *C.Steps, C.Opts);
  if (!R) {
    printError(llvm::errs(), R.takeError());
    return ExitInvalid;
  }
  if (!C.Minimize) {
    if (*C.Steps >= R->UpperBound && !C.Json)
      OS << formatv("upper bound: {0} ({1}); --steps {2} is answered by "
                    "that schedule, without Z3\n",
                    R->UpperBound, R->UpperBoundWhy, *C.Steps);
    for (const SynthQuery &Q : R->Queries)
      OnQuery(Q);
  }
  const SynthQuery &Last = R->Queries.back();
  std::string What = formatv(
      "{0}, {1} ranks, {2} topology, ports {3},{4}{5}, {6} unit(s) per "
      "contribution",
      collectiveName(H->Kind), H->NumRanks, H->Topo.kindName(), H->Port.Send,
      H->Port.Recv, H->Port.Duplex ? "" : " no duplex", C.Req.Chunks);
  if (H->hasNodes()) {
    What += formatv(", {0} nodes", H->Nodes->size()).str();
    for (size_t I = 0; I < H->Nodes->size(); ++I)
      What += " " + H->nodeRanksString(I);
    What += formatv(" with node ports {0},{1}", H->nodePorts().Send,
                    H->nodePorts().Recv)
                .str();
  }
  if (C.Json) {
    nlohmann::ordered_json J;
    J["instance"] = What;
    J["lower_bound"] = R->LowerBound;
    J["lower_bound_why"] = R->LowerBoundWhy;
    J["upper_bound"] = R->UpperBound;
    J["upper_bound_why"] = R->UpperBoundWhy;
    J["queries"] = nlohmann::ordered_json::array();
    for (const SynthQuery &Q : R->Queries)
      J["queries"].push_back({{"steps", Q.Steps},
                              {"answer", answerName(Q.A)},
                              {"seconds", Q.Seconds}});
    J["optimum"] = C.Minimize && R->Found ? nlohmann::ordered_json(Last.Steps)
                                          : nlohmann::ordered_json();
    J["variables"] = R->Variables;
    J["constraints"] = R->Constraints;
    OS << jsonText(J) << '\n';
  } else {
    if (R->Found && C.Minimize)
      OS << formatv("optimum: {0} steps ({1}){2}\n", Last.Steps, What,
                    R->Queries.size() > 1
                        ? formatv("; no schedule of {0} step{1} exists",
                                  Last.Steps - 1, Last.Steps == 2 ? "" : "s")
                              .str()
                        : std::string());
    else if (R->Found)
      OS << formatv("found: a schedule of {0} steps ({1})\n",
                    R->Found->Steps.numSteps(), What);
    else if (Last.A == SynthQuery::Answer::Unsat)
      OS << formatv("no schedule of {0} steps exists ({1})\n", Last.Steps,
                    What);
    else
      OS << formatv("unknown at {0} steps ({1})\n", Last.Steps, What);
  }
  if (!R->Found)
    return ExitFailed;
  if (!C.Out.empty()) {
    FileFormat F = C.Format ? *C.Format : formatForPath(C.Out);
    if (auto E = writeScheduleFile(*R->Found, C.Out, F)) {
      printError(llvm::errs(), std::move(E));
      return ExitInvalid;
    }
  }
  return ExitOk;
}
