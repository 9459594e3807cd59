//===- tools/choreo/SelectCommand.cpp - choreo select ---------------------===//
///
/// \file
/// `choreo select`: the fastest reduction or alltoall algorithms at one p
/// and n under the cost model (studies/Select.h), or a map of the winners
/// as SVG.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "cost/Model.h"
#include "generators/CommonOptions.h"
#include "ir/ScheduleIO.h"
#include "studies/Select.h"
#include "views/CompareText.h"
#include "views/SelectChart.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using llvm::formatv;

namespace {

const CommandDoc SelectDoc = {
    R"(usage: choreo select --collective C --p P [--q Q] --bytes N
                     [--element-bytes E] [--op commutative|noncommutative]
                     [--lockstep] [--machine FILE] [--alpha A] [--beta B]
                     [--gamma G] [--f-alpha F] [--f-beta F]
                     [--step-startup S] [--machine-ports N] [--json]
       choreo select --collective C --plot FILE.svg [--p-max P] [--q Q]
                     [--max-bytes N] [model options]
)",
    R"(Builds every algorithm of the collective C (any collective of the format:
allgather, allgatherv, half_allgather, gather, scatter, bcast, reduce,
allreduce, reduce_scatter, scan, exscan, alltoall, alltoallv, barrier, and
the intercommunicator ones inter_allgather, inter_allgatherv, inter_bcast,
inter_reduce, inter_allreduce, inter_alltoall, inter_gather, inter_scatter,
inter_barrier; `choreo list` names their algorithms) for p ranks (an
intercommunicator collective: p in group A and --q Q in group B) and an
N-byte vector of E-byte elements (allgather(v), gather, scatter: N bytes per
member; alltoall(v): N bytes each rank sends each rank, of the other group
on an intercommunicator; barrier: no --bytes; bcast: the broadcast vector,
the segmented ones in their default 8K segments) and prints them fastest
first under the cost model (asynchronous time, or lock step): the winner and
the runner-up first, with predicted times and steps. Rooted collectives are
built for root 0 (on an intercommunicator A's first rank: B contributes to a
gather or reduce, receives a scatter or broadcast). --op noncommutative
prices an operator that does not commute: only the algorithms that keep
rank order build. --machine-ports 1 prices a schedule written for more
ports (the scattered alltoall's batch) on a machine with one, as the
drop-in library's auto does. The drop-in library's `auto` prices the same
generators (and their node-aware forms) for a call.

With --plot, draws the winner for every p = 2..P-max (q = --q, or q = p on
an intercommunicator) and every n = 8 B, 16 B, ... up to --max-bytes as an
SVG map, as seed 004's Fig. 4 does for measured times.
)",
    R"(example: choreo select --collective allreduce --p 13 --bytes 1M --gamma 1e-10
         choreo select --collective scatter --p 24 --bytes 64K
         choreo select --collective barrier --p 48
         choreo select --collective alltoall --p 64 --bytes 64 --machine-ports 1
         choreo select --collective scan --p 12 --bytes 64K --op noncommutative
         choreo select --collective bcast --p 48 --bytes 1M
         choreo select --collective allgather --p 24 --bytes 4K
         choreo select --collective inter_allgather --p 6 --q 2 --bytes 64K
         choreo select --collective inter_allreduce --p 8 --q 4 --bytes 1M
         choreo select --collective inter_barrier --p 5 --q 3
)"};

const Option<OneOf<Collective>> &collectiveOpt() {
  static const Option<OneOf<Collective>> O = [] {
    // Every collective of the format, by its name there.
    std::vector<Option<OneOf<Collective>>::Word> Words;
    std::string Names;
    for (unsigned I = 0; I <= unsigned(Collective::InterBarrier); ++I) {
      Collective K = Collective(I);
      Words.push_back({collectiveName(K), K});
      Names += (Names.empty() ? "" : ", ") + collectiveName(K).str();
    }
    return choiceOption<Collective>("collective", "the collective to rank",
                                    Words)
        .withMetavar("C")
        .parsedBy(choiceParser([Names](llvm::StringRef V) {
          return ("--collective: '" + V +
                  "' is not a collective of the format (" + Names + ")")
              .str();
        }));
  }();
  return O;
}

Option<Size> selectSize(llvm::StringRef Name, llvm::StringRef Help,
                        llvm::StringRef Meta) {
  return sizeOption(Name, Help).withMetavar(Meta);
}

const Option<Size> &selectP() {
  static const Option<Size> O = selectSize("p", "number of ranks", "P");
  return O;
}
const Option<Size> &selectQ() {
  static const Option<Size> O = selectSize(
      "q", "ranks of group B (intercommunicator collectives only)", "Q");
  return O;
}
const Option<Size> &selectBytes() {
  static const Option<Size> O =
      selectSize("bytes", "vector length n in bytes", "N");
  return O;
}
const Option<Size> &selectElementBytes() {
  static const Option<Size> O =
      selectSize("element-bytes", "bytes per element", "E").withDefault("8");
  return O;
}
const Option<Size> &selectPMax() {
  static const Option<Size> O =
      selectSize("p-max", "with --plot: the largest p", "P").withDefault("128");
  return O;
}
const Option<Size> &selectMaxBytes() {
  static const Option<Size> O =
      selectSize("max-bytes", "with --plot: the largest n", "N")
          .withDefault("16M");
  return O;
}
const Option<std::string> &selectPlot() {
  static const Option<std::string> O = textOption(
      "plot", "draw the winner of every p and n as an SVG map", "FILE.svg");
  return O;
}

llvm::ArrayRef<OptionDecl> selectDecls() {
  static const std::vector<OptionDecl> Decls = [] {
    std::vector<OptionDecl> D = {
        collectiveOpt(), selectP(),    selectQ(),     selectBytes(),
        selectElementBytes(), opt::reductionOp(), lockstepOpt(),
        selectPlot(),    selectPMax(), selectMaxBytes()};
    D.insert(D.end(), modelopt::all().begin(), modelopt::all().end());
    D.push_back(jsonOpt());
    return D;
  }();
  return Decls;
}

} // namespace

int choreo::cmdSelect(llvm::ArrayRef<std::string> Args) {
  std::string SelectUsage = commandHelp(SelectDoc, selectDecls());
  if (wantsHelp(Args)) {
    llvm::outs() << SelectUsage;
    return ExitOk;
  }
  CommandRules NoPositionals;
  NoPositionals.Positionals = false;
  auto C = parseCommand(Args, selectDecls(), SelectUsage, NoPositionals);
  if (!C)
    return ExitInvalid;
  const OptionValues &V = C->Values;
  SelectSpec S;
  auto Model = modelOf(V);
  if (!Model)
    return usageError(llvm::toString(Model.takeError()), SelectUsage);
  S.Model = *Model;
  S.Lockstep = V.get(lockstepOpt());
  S.ElementBytes = V.get(selectElementBytes());
  std::optional<Collective> Kind = V.lookup(collectiveOpt());
  std::optional<uint64_t> P = V.lookup(selectP()),
                          Bytes = V.lookup(selectBytes());
  uint64_t PMax = V.get(selectPMax()), MaxBytes = V.get(selectMaxBytes());
  std::optional<std::string> Plot = V.lookup(selectPlot());
  bool Json = V.get(jsonOpt());
  if (!Kind)
    return usageError("missing --collective", SelectUsage);
  S.Kind = *Kind;
  const CollectiveSpec &Spec = specOf(S.Kind);
  std::optional<uint64_t> Q = V.lookup(selectQ());
  if (Spec.Intergroup && !Q && !Plot)
    return usageError(formatv("missing --q: {0} is an intercommunicator "
                              "collective (p ranks in A, q in B)",
                              collectiveName(S.Kind))
                          .str(),
                      SelectUsage);
  if (!Spec.Intergroup && Q)
    return usageError(formatv("--q: {0} has one group of p ranks; only the "
                              "intercommunicator collectives take --q",
                              collectiveName(S.Kind))
                          .str(),
                      SelectUsage);
  if (Q && (*Q == 0 || *Q > (1u << 20)))
    return usageError("--q: must be 1..1048576", SelectUsage);
  S.Q = Q.value_or(0);
  if (V.get(opt::reductionOp()) == OperatorKind::Noncommutative) {
    if (!Spec.isReduction())
      return usageError(formatv("--op: {0} is not a reduction; only "
                                "reductions take an operator",
                                collectiveName(S.Kind))
                            .str(),
                        SelectUsage);
    S.Commutative = false;
  }
  if (Plot) {
    if (PMax < 2 || PMax > 4096)
      return usageError("--p-max: must be 2..4096", SelectUsage);
    std::vector<uint32_t> Ps;
    for (uint32_t X = 2; X <= PMax; ++X)
      Ps.push_back(X);
    std::vector<uint64_t> Sizes;
    for (uint64_t N = std::max<uint64_t>(S.ElementBytes, 8); N <= MaxBytes;
         N *= 2)
      Sizes.push_back(N);
    auto M = selectMap(S, Ps, Sizes);
    if (!M) {
      printError(llvm::errs(), M.takeError());
      return ExitInvalid;
    }
    std::string Title =
        formatv("{0}: fastest algorithm by the model (alpha {1}, beta {2}, "
                "gamma {3}, f_alpha {4}, f_beta {5})",
                collectiveName(S.Kind), S.Model.Alpha, S.Model.Beta,
                S.Model.Gamma, S.Model.FAlpha, S.Model.FBeta);
    return writeText(*Plot, [&](llvm::raw_ostream &OS) {
      writeSelectSvg(*M, Title, OS);
      return llvm::Error::success();
    });
  }
  // A barrier moves no bytes.
  if (specOf(S.Kind).NoPayload && !Bytes)
    Bytes = 0;
  if (!P || !Bytes)
    return usageError("missing --p or --bytes (or --plot FILE.svg)",
                      SelectUsage);
  if (*P == 0 || *P > (1u << 20))
    return usageError("--p: must be 1..1048576", SelectUsage);
  S.P = *P;
  S.Bytes = *Bytes;
  auto R = rankAlgorithms(S);
  if (!R) {
    printError(llvm::errs(), R.takeError());
    return ExitInvalid;
  }
  if (Json) {
    nlohmann::ordered_json J;
    J["collective"] = collectiveName(S.Kind);
    J["p"] = S.P;
    if (Spec.Intergroup)
      J["q"] = S.Q;
    J["bytes"] = S.Bytes;
    if (Spec.isReduction())
      J["op"] = S.Commutative ? "commutative" : "noncommutative";
    J["model"] = S.Model.toJson();
    J["time"] = S.Lockstep ? "lockstep" : "async";
    for (const SelectEntry &E : *R)
      J["ranking"].push_back(
          {{"algorithm", E.Algorithm}, {"time", E.Time}, {"steps", E.Steps}});
    llvm::outs() << jsonText(J) << '\n';
    return ExitOk;
  }
  std::string Size =
      Spec.NoPayload ? std::string()
      : Spec.sizedPerMember()
          ? formatv(", {0} bytes per member", S.Bytes).str()
      : Spec.Data == DataKind::Alltoall
          ? formatv(", {0} bytes a block", S.Bytes).str()
          : formatv(", n = {0} bytes", S.Bytes).str();
  std::string Ranks = Spec.Intergroup
                          ? formatv("p = {0}, q = {1}", S.P, S.Q).str()
                          : formatv("p = {0}", S.P).str();
  llvm::outs() << formatv("{0}, {1}{2} ({3} time):\n",
                          collectiveName(S.Kind), Ranks, Size,
                          S.Lockstep ? "lock-step" : "asynchronous");
  const SelectEntry &Best = R->front();
  llvm::outs() << "winner:    " << Best.Algorithm << "  "
               << costNumber(Best.Time) << "  (" << Best.Steps << " steps)\n";
  if (R->size() > 1) {
    const SelectEntry &Next = (*R)[1];
    llvm::outs() << "runner-up: " << Next.Algorithm << "  "
                 << costNumber(Next.Time) << "  (" << Next.Steps << " steps, "
                 << costNumber(Next.Time / Best.Time) << "x)\n";
  }
  for (size_t I = 2; I < R->size(); ++I)
    llvm::outs() << "           " << (*R)[I].Algorithm << "  "
                 << costNumber((*R)[I].Time) << "  (" << (*R)[I].Steps
                 << " steps, " << costNumber((*R)[I].Time / Best.Time)
                 << "x)\n";
  return ExitOk;
}
