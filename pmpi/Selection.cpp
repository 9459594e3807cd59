//===- pmpi/Selection.cpp - Which algorithm serves a call -----------------===//
///
/// \file
/// Choices from the environment, first-match rules of a selection file, and
/// `auto` by the cost model.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Selection.h"

#include "cost/Model.h"
#include "generators/CallOptions.h"
#include "ir/BoundedFile.h"
#include "pmpi/Candidates.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

llvm::Expected<Choice> pmpi::parseChoice(llvm::StringRef Text,
                                         llvm::StringRef Why) {
  Choice C;
  C.Why = Why.str();
  C.Text = Text.trim().str();
  llvm::StringRef T = C.Text;
  if (T == "native") {
    C.K = Choice::Native;
    return C;
  }
  if (T == "auto") {
    C.K = Choice::Auto;
    return C;
  }
  auto W = splitVariantText(T, "pmpi", Why);
  if (!W)
    return W.takeError();
  C.K = Choice::Algorithm;
  C.Id = W->Id;
  if (!findGenerator(C.Id)) {
    std::string Known;
    for (const Generator *G : allGenerators())
      Known += " " + G->id().str();
    return makeDiagError("pmpi",
                         formatv("{0}: unknown algorithm '{1}' (native, auto "
                                 "or one of:{2})",
                                 Why, C.Id, Known));
  }
  C.Extra = std::move(W->Args);
  return C;
}

namespace {

const char *const KnownNames[] = {
    "collective",   "comm_type",      "comm_size",      "remote_size",
    "avg_msg_size", "total_msg_size", "is_commutative", "in_place"};

llvm::Expected<Condition> parseCondition(llvm::StringRef Key,
                                         llvm::StringRef Path) {
  size_t At = Key.find_first_of("<>=");
  if (At == llvm::StringRef::npos || At == 0)
    return makeDiagError("pmpi", formatv("{0}: '{1}' is not a condition "
                                         "(NAME=VALUE, NAME<=VALUE, ...)",
                                         Path, Key));
  Condition C;
  C.Name = Key.take_front(At).str();
  llvm::StringRef Rest = Key.drop_front(At);
  for (llvm::StringRef Op : {"<=", ">=", "<", ">", "="})
    if (Rest.starts_with(Op)) {
      C.Op = Op.str();
      C.Value = Rest.drop_front(Op.size()).trim().str();
      break;
    }
  if (!llvm::is_contained(KnownNames, C.Name))
    return makeDiagError("pmpi", formatv("{0}: unknown condition '{1}' "
                                         "(collective, comm_type, comm_size, "
                                         "remote_size, avg_msg_size, "
                                         "total_msg_size, is_commutative, "
                                         "in_place)",
                                         Path, C.Name));
  if (C.Value == "any" || (C.Name == "comm_size" && C.Value == "pow2"))
    return C;
  bool Numeric = C.Name == "comm_size" || C.Name == "remote_size" ||
                 C.Name == "avg_msg_size" || C.Name == "total_msg_size";
  if (Numeric) {
    auto V = parseSize(C.Value, C.Name);
    if (!V)
      return makeDiagError(
          "pmpi", formatv("{0}: {1}", Path, llvm::toString(V.takeError())));
    C.Value = std::to_string(*V);
  } else if (C.Op != "=") {
    return makeDiagError("pmpi",
                         formatv("{0}: {1} takes '=' only", Path, C.Name));
  }
  return C;
}

/// Collects the rules under J, at JSON path Path, whose first TopLen
/// characters are the top-level key's part (for messages).
llvm::Error walk(const nlohmann::ordered_json &J, const std::string &Path,
                 size_t TopLen, std::vector<Condition> &Conds,
                 std::vector<Rule> &Out) {
  if (!J.is_object())
    return makeDiagError("pmpi",
                         formatv("{0}: expected an object of conditions",
                                 Path.empty() ? "/" : Path));
  for (auto It = J.begin(); It != J.end(); ++It) {
    std::string Key = It.key();
    std::string Here = Path + "/" + Key;
    if (llvm::StringRef(Key).starts_with("algorithm=")) {
      auto C = parseChoice(llvm::StringRef(Key).drop_front(10), Here);
      if (!C)
        return C.takeError();
      Out.push_back({Conds, C->Text, Here});
      continue;
    }
    auto C = parseCondition(Key, Here);
    if (!C)
      return C.takeError();
    // The path to the first key too deep names its top-level key and
    // itself: the 63 between would make the message unreadable.
    if (Conds.size() == MaxSelectionDepth)
      return makeDiagError(
          "pmpi", formatv("{0}/.../{1}: conditions nested deeper "
                          "than {2} levels",
                          Path.substr(0, TopLen), Key, MaxSelectionDepth));
    Conds.push_back(*C);
    if (auto E = walk(It.value(), Here, Path.empty() ? Here.size() : TopLen,
                      Conds, Out))
      return E;
    Conds.pop_back();
  }
  return llvm::Error::success();
}

bool compare(uint64_t X, llvm::StringRef Op, uint64_t V) {
  if (Op == "<=")
    return X <= V;
  if (Op == ">=")
    return X >= V;
  if (Op == "<")
    return X < V;
  if (Op == ">")
    return X > V;
  return X == V;
}

} // namespace

llvm::Expected<std::vector<Rule>>
pmpi::parseRules(const nlohmann::ordered_json &J, llvm::StringRef File) {
  std::vector<Rule> Out;
  std::vector<Condition> Conds;
  if (auto E = walk(J, "", 0, Conds, Out))
    return makeDiagError(
        "pmpi", formatv("{0}: {1}", File, llvm::toString(std::move(E))));
  return Out;
}

llvm::Expected<std::vector<Rule>> pmpi::parseRulesText(llvm::StringRef Text,
                                                       llvm::StringRef File) {
  auto J = nlohmann::ordered_json::parse(Text.begin(), Text.end(), nullptr,
                                         /*allow_exceptions=*/false);
  if (J.is_discarded())
    return makeDiagError("pmpi",
                         formatv("CHOREO_SELECTION: {0} is not JSON", File));
  return parseRules(J, File);
}

llvm::Expected<std::vector<Rule>> pmpi::readRulesFile(llvm::StringRef Path) {
  // A regular file within the bound, refused before it is opened otherwise
  // (opening a FIFO blocks, /dev/zero never ends) and again once open.
  auto Buf = readBoundedFile(Path, MaxSelectionFileBytes);
  if (!Buf)
    return makeDiagError("pmpi", "CHOREO_SELECTION: " +
                                     llvm::toString(Buf.takeError()));
  return parseRulesText((*Buf)->getBuffer(), Path);
}

bool pmpi::ruleMatches(const Rule &R, const BoundCall &Shape) {
  for (const Condition &C : R.Conds) {
    if (C.Value == "any")
      continue;
    if (C.Name == "collective") {
      if (C.Value != Shape.name())
        return false;
    } else if (C.Name == "comm_type") {
      if (C.Value != (Shape.inter() ? "inter" : "intra"))
        return false;
    } else if (C.Name == "is_commutative") {
      if ((C.Value == "yes") != Shape.commutative())
        return false;
    } else if (C.Name == "in_place") {
      if ((C.Value == "yes") != Shape.InPlace)
        return false;
    } else if (C.Name == "comm_size" && C.Value == "pow2") {
      uint32_t N = Shape.commSize();
      if (N == 0 || (N & (N - 1)))
        return false;
    } else {
      uint64_t X = C.Name == "comm_size"      ? Shape.commSize()
                   : C.Name == "remote_size"  ? Shape.remoteSize()
                   : C.Name == "avg_msg_size" ? Shape.averageBytes()
                                              : Shape.totalBytes();
      if (!compare(X, C.Op, std::stoull(C.Value)))
        return false;
    }
  }
  return true;
}

std::string pmpi::envName(const BoundCall &Shape) {
  std::string N = "CHOREO_" + Shape.name().upper();
  if (Shape.inter())
    N += "_INTER";
  return N;
}

llvm::Expected<Choice> pmpi::select(const BoundCall &Shape,
                                    const SelectionConfig &Cfg) {
  std::string Env = envName(Shape);
  if (const char *V = std::getenv(Env.c_str()); V && *V)
    return parseChoice(V, Env);
  for (size_t I = 0; I < Cfg.Rules.size(); ++I)
    if (ruleMatches(Cfg.Rules[I], Shape))
      return parseChoice(Cfg.Rules[I].Algorithm,
                         formatv("rule {0} of {1} ({2})", I + 1, Cfg.RulesFile,
                                 Cfg.Rules[I].Path)
                             .str());
  return parseChoice(Cfg.Default, "CHOREO_DEFAULT");
}

std::optional<Choice> pmpi::selectWithoutSizes(const BoundCall &Shape,
                                               const SelectionConfig &Cfg) {
  auto Parsed = [](llvm::Expected<Choice> C) -> std::optional<Choice> {
    if (!C) {
      llvm::consumeError(C.takeError());
      return std::nullopt;
    }
    return std::move(*C);
  };
  std::string Env = envName(Shape);
  if (const char *V = std::getenv(Env.c_str()); V && *V)
    return Parsed(parseChoice(V, Env));
  for (size_t I = 0; I < Cfg.Rules.size(); ++I) {
    // The rule's other conditions decide whether it may match; one that
    // may and reads what this rank does not know leaves the choice open.
    Rule Known = Cfg.Rules[I];
    bool ReadsUnknown = false;
    llvm::erase_if(Known.Conds, [&](const Condition &C) {
      bool Unknown = C.Value != "any" &&
                     (C.Name == "avg_msg_size" || C.Name == "total_msg_size" ||
                      C.Name == "in_place");
      ReadsUnknown |= Unknown;
      return Unknown;
    });
    if (!ruleMatches(Known, Shape))
      continue;
    if (ReadsUnknown)
      return std::nullopt;
    return Parsed(parseChoice(Cfg.Rules[I].Algorithm,
                              formatv("rule {0} of {1} ({2})", I + 1,
                                      Cfg.RulesFile, Cfg.Rules[I].Path)
                                  .str()));
  }
  return Parsed(parseChoice(Cfg.Default, "CHOREO_DEFAULT"));
}

CostModel SelectionConfig::model(const CallHeader &Call,
                                 llvm::ArrayRef<uint32_t> NodeOf) const {
  CostModel M = Model;
  M.Ports = std::max<uint32_t>(1, std::max(Call.Port.Send, Call.Port.Recv));
  M.NodeOf.assign(NodeOf.begin(), NodeOf.end());
  return M;
}

llvm::Expected<AutoResult>
pmpi::chooseByModel(const BoundCall &Shape, const SelectionConfig &Cfg,
                    llvm::ArrayRef<uint32_t> NodeOf) {
  CostModel M = Cfg.model(Shape.Header, NodeOf);
  std::optional<AutoResult> Best;
  unsigned N = 0;
  std::string MpichId;
  std::optional<double> MpichTime;
  // Built: the candidates whose declared collective serves the call (an
  // intercommunicator's broadcast has none; their builds refuse it).
  for (const Candidate &C : candidatesFor(Shape.Header, NodeOf)) {
    // As in the job: a candidate whose part is the whole is left out.
    if (!candidateOptions(C, Shape.Header, Shape.ElemBytes))
      continue;
    auto S = buildFor(C.G->id(), C.Extra, Shape.Header, Shape.ElemBytes);
    if (!S) {
      llvm::consumeError(S.takeError());
      continue;
    }
    ++N;
    // Priced as in the job: each step's ops in (sender, receiver) order.
    Schedule Ordered = canonicalStepOrder(*S);
    double T = evaluateCost(Ordered, M).Async;
    // MPICH's own: its flat algorithm, or on a communicator spanning
    // nodes its node-aware composition (the `*-mpich` node-aware form),
    // run by MPICH: with the machine's `library_step_startup`, priced with
    // MPICH's own step start-up (CostModel::library()).
    if (C.G->id().ends_with("-mpich")) {
      double TM = M.LibraryStepStartup
                      ? evaluateCost(Ordered, M.library()).Async
                      : T;
      if (!MpichTime || TM < *MpichTime) {
        MpichId = C.text();
        MpichTime = TM;
      }
    }
    if (!Best || T < Best->Time)
      Best = AutoResult{std::move(*S), C.G->id().str(), T, 0, {}, {},
                        C.Extra,       C.text()};
  }
  if (!Best)
    return makeDiagError(
        "pmpi", formatv("auto: no algorithm serves {0}", Shape.describe()));
  Best->Candidates = N;
  Best->MpichId = MpichId;
  Best->MpichTime = MpichTime;
  return std::move(*Best);
}

Schedule pmpi::canonicalStepOrder(const Schedule &S) {
  Schedule Out;
  Out.header() = S.header();
  Out.Algorithm = S.Algorithm;
  Out.Params = S.Params;
  const StepList &L = S.Steps;
  for (size_t C = 0; C < L.numContribs(); ++C)
    Out.Steps.copyContrib(L, uint32_t(C));
  std::vector<const Op *> Ops;
  for (unsigned I = 0; I < L.numSteps(); ++I) {
    Out.Steps.newStep();
    Ops.clear();
    for (const Op &O : L.step(I))
      Ops.push_back(&O);
    std::stable_sort(Ops.begin(), Ops.end(), [](const Op *A, const Op *B) {
      return std::tie(A->Src, A->Dst) < std::tie(B->Src, B->Dst);
    });
    for (const Op *O : Ops) {
      llvm::SmallVector<Block, 8> Bs(L.blocks(*O).begin(), L.blocks(*O).end());
      for (Block &B : Bs) // a lattice is its block's own: copied anew
        if (L.validLattice(B))
          B = Out.Steps.latticeBlock(B.Buf, L.lattice(B));
      Out.Steps.addOp(O->Src, O->Dst, Bs);
    }
  }
  return Out;
}
