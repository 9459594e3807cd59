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
#include "ir/ScheduleIO.h"
#include "ir/TopologyJson.h"
#include "verifier/smt/Synth.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace choreo;
using llvm::formatv;

const char *choreo::SynthUsage =
    R"(usage: choreo synth --collective C --p P [--q Q] [--root R]
                    [--topology full|ring|FILE] [--ports S,R] [--no-duplex]
                    [--nodes LIST | --node-of LIST] [--node-ports S,R]
                    [--chunks K] (--steps T | --minimize [--from T]
                    [--max-steps M]) [--timeout S] [--json]
                    [-o FILE] [--format json|cbor]

Asks Z3 for a schedule of at most T steps: every contribution is one
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

C: allgather, allgatherv, inter_allgather, inter_allgatherv, half_allgather,
   bcast, gather, and the reductions reduce, allreduce, reduce_scatter
   (commutative operator, one receive port: --ports S,1). A reduction's
   vector is --chunks K units (reduce_scatter: K per rank's slice); every
   rank holds a partial of each unit with its contributor set, an op
   combines its set into the receiver's (disjoint: every contribution once)
   or replaces the receiver's partial.
--p: the ranks of an intragroup collective, the senders (group A, ranks
   0..P-1) of an intergroup one; --q: group B (ranks P..P+Q-1).
--root: the root of bcast, gather and reduce (default 0).
--topology: full (default), ring (0, 1, ..., n-1), or a JSON file holding a
   format-v1 topology object ({"kind": "graph", "edges": [[0, 1], ...]} or
   {"kind": "ring", "order": [...]}).
--nodes LIST: ranks per compute node, consecutive ranks (2,2: ranks 0-1 and
   2-3); --node-of LIST: the node of every rank (0,1,0,1: round robin). They
   cover every rank (p + q of an intergroup collective), as the generators'
   --nodes and --node-of do.
--timeout S: give up a query after S seconds (answer unknown).
--json: the report as one JSON object.

examples:
  choreo synth --collective half_allgather --p 4 --q 4 --topology ring --minimize
  choreo synth --collective bcast --p 8 --steps 3 -o bcast8.json
  choreo synth --collective allgather --p 4 --ports 2,2 --nodes 2,2 --minimize
  choreo synth --collective allreduce --p 5 --minimize -o ar5.json

exit codes: 0 a schedule was found, 1 none exists in the steps asked (or a
query was unknown), 2 invalid arguments.
)";

namespace {

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
  /// --nodes / --node-of, read by the generators' declarations and reader.
  OptionValues NodeOpts{nodeDecls()};
  bool HaveNodePorts = false;

  static llvm::ArrayRef<OptionDecl> nodeDecls() {
    static const OptionDecl Decls[] = {opt::nodes(), opt::nodeOf()};
    return Decls;
  }
};

/// "S,R": two positive counts (--ports, --node-ports).
bool parsePortPair(llvm::StringRef V, uint32_t &Send, uint32_t &Recv) {
  llvm::SmallVector<llvm::StringRef, 2> Parts;
  V.split(Parts, ',');
  return Parts.size() == 2 && !Parts[0].getAsInteger(10, Send) &&
         !Parts[1].getAsInteger(10, Recv) && Send != 0 && Recv != 0;
}

/// A topology object of format v1 read from Path (ir/TopologyJson.h).
llvm::Expected<Topology> readTopology(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(),
                                   "--topology: cannot read '%s': %s",
                                   Path.str().c_str(),
                                   Buf.getError().message().c_str());
  auto Fail = [&](const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--topology: " + Path + Msg);
  };
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
  bool HaveCollective = false, HaveP = false;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (A == "--minimize") {
      C.Minimize = true;
      continue;
    }
    if (A == "--json") {
      C.Json = true;
      continue;
    }
    if (A == "--no-duplex") {
      C.Req.Port.Duplex = false;
      continue;
    }
    if (!A.starts_with("-") || A == "-")
      return ("unexpected argument '" + A + "'").str();
    if (I + 1 >= Args.size())
      return (A + ": missing value").str();
    llvm::StringRef V = Args[++I];
    unsigned N = 0;
    auto Count = [&](bool ZeroOk) -> std::optional<std::string> {
      if (V.getAsInteger(10, N) || (!ZeroOk && N == 0))
        return (A + ": expected a " + (ZeroOk ? "" : "positive ") +
                "count, got '" + V + "'")
            .str();
      return std::nullopt;
    };
    if (A == "--collective") {
      auto K = parseCollective(V);
      if (!K)
        return ("--collective: unknown collective '" + V + "'").str();
      C.Req.Kind = *K;
      HaveCollective = true;
    } else if (A == "--p" || A == "--q" || A == "--chunks" ||
               A == "--max-steps") {
      if (auto E = Count(false))
        return E;
      (A == "--p"        ? C.Req.P
       : A == "--q"      ? C.Req.Q
       : A == "--chunks" ? C.Req.Chunks
                         : C.MaxSteps) = N;
      HaveP |= A == "--p";
    } else if (A == "--root" || A == "--steps" || A == "--from") {
      if (auto E = Count(true))
        return E;
      if (A == "--root")
        C.Req.Root = N;
      else if (A == "--steps")
        C.Steps = N;
      else
        C.From = N;
    } else if (A == "--timeout") {
      if (auto E = Count(false))
        return E;
      C.Opts.TimeoutMs = N * 1000;
    } else if (A == "--ports" || A == "--node-ports") {
      bool Node = A == "--node-ports";
      if (!parsePortPair(V, Node ? C.Req.NodePort.Send : C.Req.Port.Send,
                         Node ? C.Req.NodePort.Recv : C.Req.Port.Recv))
        return (A + ": expected SEND,RECV (two positive counts), got '" + V +
                "'")
            .str();
      C.HaveNodePorts |= Node;
    } else if (A == "--nodes" || A == "--node-of") {
      const OptionDecl *D = C.NodeOpts.decl(A.drop_front(2));
      auto X = parseOptionValue(*D, V);
      if (!X)
        return llvm::toString(X.takeError());
      C.NodeOpts.set(*D, std::move(*X));
    } else if (A == "--topology") {
      if (V == "full") {
        C.Req.Topo = Topology::full();
      } else if (V == "ring") {
        C.Req.Topo = Topology::ring();
      } else {
        C.TopologyFile = V.str();
      }
    } else if (A == "-o") {
      C.Out = V.str();
    } else if (A == "--format") {
      auto F = parseFileFormat(V);
      if (!F)
        return llvm::toString(F.takeError());
      C.Format = *F;
    } else {
      return ("unknown option " + A).str();
    }
  }
  if (!HaveCollective)
    return std::string("--collective: missing");
  if (!HaveP)
    return std::string("--p: missing");
  if (C.Steps.has_value() == C.Minimize)
    return std::string("give --steps T or --minimize (one of them)");
  auto NodeOf = nodeOfRanks(C.NodeOpts, C.Req.P + C.Req.Q,
                            C.Req.Q ? "--p + --q" : "--p");
  if (!NodeOf)
    return llvm::toString(NodeOf.takeError());
  if (*NodeOf)
    C.Req.Nodes = nodePartition(**NodeOf);
  else if (C.HaveNodePorts)
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
  if (wantsHelp(Args)) {
    llvm::outs() << SynthUsage;
    return ExitOk;
  }
  SynthCommand C;
  if (std::optional<std::string> Err = parseSynthArgs(Args, C))
    return usageError(*Err, SynthUsage);
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
  if (!C.Minimize)
    for (const SynthQuery &Q : R->Queries)
      OnQuery(Q);
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
