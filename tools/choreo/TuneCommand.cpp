//===- tools/choreo/TuneCommand.cpp - choreo tune -------------------------===//
///
/// \file
/// `choreo tune`: the drop-in library's selection file (docs/pmpi.md, "The
/// selection file") from the cost model, usually a calibrated machine file
/// (docs/machine.md). For every MPI call the library serves on
/// intracommunicators, every communicator size of a grid and every message
/// size 8 B, 16 B, ... up to --max-bytes, it asks the library's own `auto`
/// (pmpi::chooseByModel, whole schedules priced as a job prices them) and
/// applies the margin (CHOREO_MARGIN's rule: MPICH's collective when its
/// model is not beaten by the margin), then writes the choices as
/// first-match rules: per call, one `comm_size<=P` subtree per grid size
/// (the last `comm_size=any`), in it one rule per run of sizes with the
/// same choice. A job with CHOREO_SELECTION set to the file then decides
/// without pricing on its first calls. With --mpich and --ompi it writes
/// MPICH's and Open MPI's own tuning files instead (TuneFiles.h).
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "TuneFiles.h"
#include "ir/CallBinding.h"
#include "pmpi/Selection.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace choreo;
using llvm::formatv;

namespace {

const CommandDoc TuneDoc = {
    R"(usage: choreo tune [--machine FILE] [model options] [--p LIST]
                   [--max-bytes N] [--calls LIST] [--margin M]
                   [--element-bytes E] [-o FILE]
                   [--mpich FILE] [--ompi FILE]
)",
    R"(Writes the drop-in library's selection file (CHOREO_SELECTION, docs/pmpi.md)
from the cost model: for each call, each communicator size of --p and each
message size 8 B, 16 B, ... up to --max-bytes (total bytes for bcast and the
reductions, bytes per member or per block for the others), the algorithm the
library's auto would choose, or native where MPICH's own algorithm is not
beaten by the margin (the rule of CHOREO_MARGIN). Reductions are tuned for
commutative operators with E-byte elements; non-commutative calls get a
subtree of their own for the order-keeping algorithms. A size between two
grid points takes the larger one's rules.

--mpich FILE writes MPICH 4.0.2's JSON tuning file
(MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): for bcast, reduce, allreduce,
reduce_scatter_block, allgather and alltoall on intracommunicators (and
the non-blocking forms but ireduce_scatter_block), the MPICH algorithm
whose model is cheapest per communicator size and message size; MPICH's
default choice for every other collective (all of them are in the file,
as MPICH requires). --ompi FILE writes Open MPI 4.1's
coll_tuned dynamic rules (coll_tuned_dynamic_rules_filename) for
allgather, allreduce, alltoall, barrier, bcast, gather, reduce,
reduce_scatter and scatter among Open MPI's algorithms. With either, the
selection file is written only when -o is given. The library's own
algorithms (these files' and, in the selection file, the margin's model
of MPICH's) are priced with the machine file's library_step_startup, once
per step a rank waits in (the library busy-polls), where the file has one;
choreo's schedules with its step_startup. docs/machine.md.
)",
    R"(example: choreo tune --machine machine.json --p 2,4,8 --max-bytes 1M -o sel.json
         CHOREO_SELECTION=$PWD/sel.json mpiexec -n 8 env LD_PRELOAD=... ./app
         choreo tune --machine machine.json --mpich mpich.json --ompi ompi.rules
         mpiexec -n 8 env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$PWD/mpich.json ./app
)"};

const Option<SizeList> &pOpt() {
  static const Option<SizeList> O =
      sizeListOption("p", "communicator sizes of the grid (default "
                          "2,4,8,16,32,64)")
          .withMetavar("LIST");
  return O;
}
const Option<Size> &maxBytesOpt() {
  static const Option<Size> O =
      sizeOption("max-bytes", "the largest message size (default 16M)")
          .withMetavar("N")
          .withDefault("16M");
  return O;
}
const Option<std::string> &callsOpt() {
  static const Option<std::string> O = textOption(
      "calls",
      "comma list of calls (default: bcast, reduce, allreduce, "
      "reduce_scatter_block, allgather, gather, scatter, alltoall, barrier)",
      "LIST");
  return O;
}
const Option<double> &marginOpt() {
  static const Option<double> O =
      realOption("margin", "MPICH's collective where choreo's best is not "
                           "predicted this fraction faster; -1: never "
                           "(default 0.1)")
          .withMetavar("M")
          .withDefault("0.1")
          .parsedBy(anyRealParser());
  return O;
}
const Option<uint64_t> &elemOpt() {
  static const Option<uint64_t> O =
      countOption("element-bytes", "reductions: bytes per element")
          .withMetavar("E")
          .withDefault("8");
  return O;
}
const Option<std::string> &outOpt() {
  static const Option<std::string> O =
      textOption("o", "write to FILE instead of standard output", "FILE")
          .singleDash();
  return O;
}

const Option<std::string> &mpichOpt() {
  static const Option<std::string> O =
      textOption("mpich", "write MPICH's JSON tuning file to FILE", "FILE");
  return O;
}
const Option<std::string> &ompiOpt() {
  static const Option<std::string> O = textOption(
      "ompi", "write Open MPI's coll_tuned dynamic rules to FILE", "FILE");
  return O;
}

llvm::ArrayRef<OptionDecl> tuneDecls() {
  static const std::vector<OptionDecl> Decls = [] {
    std::vector<OptionDecl> D(modelopt::all().begin(), modelopt::all().end());
    for (OptionDecl X :
         {OptionDecl(pOpt()), OptionDecl(maxBytesOpt()), OptionDecl(callsOpt()),
          OptionDecl(marginOpt()), OptionDecl(elemOpt()), OptionDecl(outOpt()),
          OptionDecl(mpichOpt()), OptionDecl(ompiOpt())})
      D.push_back(X);
    return D;
  }();
  return Decls;
}

/// What a call's size grid measures: the whole message (bcast, the
/// reductions) or one member's (or one block's) bytes.
bool sizedByTotal(MpiCall C) {
  switch (C) {
  case MpiCall::Bcast:
  case MpiCall::Reduce:
  case MpiCall::Allreduce:
  case MpiCall::ReduceScatter:
  case MpiCall::ReduceScatterBlock:
    return true;
  default:
    return false;
  }
}

/// The arguments of an intracommunicator call of P ranks and Size bytes (as
/// sizedByTotal measures them), root 0.
MpiArgs argsOf(MpiCall C, Rank P, uint64_t Size, bool Commutative,
               uint64_t Elem) {
  MpiArgs A;
  A.Call = C;
  A.Ranks = P;
  A.Commutative = Commutative;
  A.ElemBytes = Elem;
  switch (C) {
  case MpiCall::Bcast:
  case MpiCall::Reduce:
  case MpiCall::Allreduce:
    A.Bytes = Size;
    break;
  case MpiCall::ReduceScatter:
  case MpiCall::ReduceScatterBlock: {
    // Every rank's slice: whole elements, at least one.
    uint64_t Slice = std::max<uint64_t>(Elem, Size / P / Elem * Elem);
    A.SizesA.assign(P, Slice);
    break;
  }
  case MpiCall::Alltoall:
    A.Bytes = Size;
    break;
  case MpiCall::Barrier:
    break;
  default:
    A.SizesA.assign(P, Size);
  }
  return A;
}

struct Cell {
  uint64_t Size;
  std::string Choice;
};

/// Writes Text to Path ("-": standard output); false after printing the
/// error.
bool writeTuneFile(const std::string &Path, llvm::StringRef Text) {
  if (Path == "-") {
    llvm::outs() << Text;
    return true;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (!EC) {
    OS << Text;
    OS.close();
    EC = OS.error();
  }
  if (EC) {
    llvm::errs() << "error: cannot write " << Path << ": " << EC.message()
                 << "\n";
    return false;
  }
  return true;
}

} // namespace

int choreo::cmdTune(llvm::ArrayRef<std::string> Args) {
  std::string Usage = commandHelp(TuneDoc, tuneDecls());
  if (wantsHelp(Args)) {
    llvm::outs() << Usage;
    return ExitOk;
  }
  CommandRules NoPositionals;
  NoPositionals.Positionals = false;
  auto C = parseCommand(Args, tuneDecls(), Usage, NoPositionals);
  if (!C)
    return ExitInvalid;
  const OptionValues &V = C->Values;
  auto Model = modelOf(V);
  if (!Model)
    return usageError(llvm::toString(Model.takeError()), Usage);
  if (auto E = Model->check())
    return usageError(llvm::toString(std::move(E)), Usage);
  pmpi::SelectionConfig Cfg;
  Cfg.Model = *Model;
  double Margin = V.get(marginOpt());
  SizeList Ps = V.lookup(pOpt()).value_or(SizeList{2, 4, 8, 16, 32, 64});
  for (uint64_t P : Ps)
    if (P < 1 || P > 1024)
      return usageError(formatv("--p: {0} is not a communicator size from 1 "
                                "to 1024 (tune prices whole schedules)",
                                P),
                        Usage);
  std::sort(Ps.begin(), Ps.end());
  Ps.erase(std::unique(Ps.begin(), Ps.end()), Ps.end());
  uint64_t MaxBytes = V.get(maxBytesOpt());
  if (MaxBytes < 8 || MaxBytes > (1ull << 30))
    return usageError("--max-bytes: expected 8 bytes to 1G", Usage);
  uint64_t Elem = V.get(elemOpt());
  if (Elem < 1 || Elem > 4096)
    return usageError("--element-bytes: expected 1 to 4096", Usage);

  std::optional<std::string> MpichPath = V.lookup(mpichOpt());
  std::optional<std::string> OmpiPath = V.lookup(ompiOpt());
  if (MpichPath || OmpiPath) {
    tune::Grid G;
    G.Ps = Ps;
    G.MaxBytes = MaxBytes;
    G.Elem = Elem;
    G.Cfg = Cfg;
    if (MpichPath &&
        !writeTuneFile(*MpichPath, tune::mpichTuningFile(G).dump(2) + "\n"))
      return ExitInvalid;
    if (OmpiPath && !writeTuneFile(*OmpiPath, tune::ompiRulesFile(G)))
      return ExitInvalid;
    if (!V.lookup(outOpt()))
      return ExitOk;
  }

  std::vector<MpiCall> Calls;
  std::string CallList =
      V.lookup(callsOpt())
          .value_or(
              "bcast,reduce,allreduce,reduce_scatter_block,allgather,gather,"
              "scatter,alltoall,barrier");
  llvm::SmallVector<llvm::StringRef> Names;
  llvm::StringRef(CallList).split(Names, ',', -1, false);
  for (llvm::StringRef N : Names) {
    const MpiBinding *B = nullptr;
    for (const MpiBinding &X : allBindings())
      if (N.trim() == X.Name)
        B = &X;
    if (!B || B->Call == MpiCall::Allgatherv || B->Call == MpiCall::Gatherv ||
        B->Call == MpiCall::Scatterv || B->Call == MpiCall::Alltoallv ||
        B->Call == MpiCall::ReduceScatter)
      return usageError(
          formatv("--calls: '{0}' is not one of bcast, reduce, allreduce, "
                  "reduce_scatter_block, allgather, gather, scatter, "
                  "alltoall, barrier (the irregular calls are not tuned)",
                  N.trim()),
          Usage);
    Calls.push_back(B->Call);
  }

  nlohmann::ordered_json Out = nlohmann::ordered_json::object();
  for (MpiCall Call : Calls) {
    const MpiBinding &B = bindingOf(Call);
    bool Reduction = specOf(B.Intra).Data == DataKind::Reduction;
    nlohmann::ordered_json Coll = nlohmann::ordered_json::object();
    for (bool Commutative : {true, false}) {
      if (!Commutative && !Reduction)
        continue;
      nlohmann::ordered_json BySize = nlohmann::ordered_json::object();
      for (size_t PI = 0; PI < Ps.size(); ++PI) {
        Rank P = Rank(Ps[PI]);
        std::vector<Cell> Cells;
        std::vector<uint64_t> Sizes;
        if (Call == MpiCall::Barrier)
          Sizes = {0};
        else
          for (uint64_t S = 8; S <= MaxBytes; S *= 2)
            Sizes.push_back(S);
        for (uint64_t S : Sizes) {
          auto Bound = bindCall(argsOf(Call, P, S, Commutative, Elem));
          if (!Bound) {
            llvm::consumeError(Bound.takeError());
            continue;
          }
          auto A = pmpi::chooseByModel(*Bound, Cfg);
          std::string Choice;
          if (!A) {
            llvm::consumeError(A.takeError());
            Choice = "native";
          } else {
            Choice = pmpi::handedToMpich(A->Time, A->MpichTime, Margin)
                         ? "native"
                         : A->Id;
          }
          if (!Cells.empty() && Cells.back().Choice == Choice)
            Cells.back().Size = S;
          else
            Cells.push_back({S, Choice});
        }
        nlohmann::ordered_json Rules = nlohmann::ordered_json::object();
        const char *Measure =
            sizedByTotal(Call) ? "total_msg_size" : "avg_msg_size";
        for (size_t I = 0; I < Cells.size(); ++I) {
          std::string Key =
              I + 1 == Cells.size()
                  ? std::string(Measure) + "=any"
                  : formatv("{0}<={1}", Measure, Cells[I].Size).str();
          Rules[Key] = {{"algorithm=" + Cells[I].Choice,
                         nlohmann::ordered_json::object()}};
        }
        std::string PKey = PI + 1 == Ps.size()
                               ? std::string("comm_size=any")
                               : formatv("comm_size<={0}", P).str();
        BySize[PKey] = Rules;
      }
      if (Reduction)
        Coll[Commutative ? "is_commutative=yes" : "is_commutative=no"] = BySize;
      else
        Coll = BySize;
    }
    Out[std::string("collective=") + B.Name] = {{"comm_type=intra", Coll}};
  }
  std::string Path = V.lookup(outOpt()).value_or("-");
  return writeTuneFile(Path, Out.dump(2) + "\n") ? ExitOk : ExitInvalid;
}
