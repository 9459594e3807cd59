//===- pmpi/Candidates.cpp - What auto prices for a call ------------------===//
///
/// \file
/// The plain and node-aware candidates of a call (pmpi/Candidates.h).
///
//===----------------------------------------------------------------------===//

#include "pmpi/Candidates.h"

#include "generators/CallOptions.h"
#include "generators/alltoall/AlltoallOptions.h"

#include "llvm/ADT/STLExtras.h"

#include <new>

using namespace choreo;
using namespace choreo::pmpi;

std::string Candidate::text() const { return variantText(G->id(), Extra); }

namespace {

const OptionDecl *declared(const Generator &G, llvm::StringRef Name) {
  for (const OptionDecl &D : G.options())
    if (D.Name == Name)
      return &D;
  return nullptr;
}

std::string listText(llvm::ArrayRef<uint64_t> V) {
  std::string T;
  for (uint64_t X : V)
    T += (T.empty() ? "" : ",") + std::to_string(X);
  return T;
}

} // namespace

std::vector<std::vector<std::string>>
pmpi::nodeAwareForms(const Generator &G, llvm::ArrayRef<uint32_t> NodeOf) {
  std::vector<std::vector<std::string>> Out;
  if (NodeOf.empty() || !declared(G, "nodes"))
    return Out;
  // Ranks per node when every node's ranks are consecutive.
  std::vector<uint64_t> PerNode;
  bool Consecutive = true;
  for (size_t R = 0; R < NodeOf.size() && Consecutive; ++R) {
    if (NodeOf[R] == PerNode.size())
      PerNode.push_back(0);
    else if (NodeOf[R] + 1 != PerNode.size())
      Consecutive = false;
    if (Consecutive)
      ++PerNode.back();
  }
  if (Consecutive && PerNode.size() < 2)
    return Out;
  if (Consecutive) {
    const OptionDecl *Groups = declared(G, "groups");
    if (Groups && llvm::is_contained(Groups->Choices, "nodes"))
      Out.push_back({"--nodes", listText(PerNode), "--groups", "nodes"});
    else
      Out.push_back({"--nodes", listText(PerNode)});
  } else if (declared(G, "node-of")) {
    std::vector<uint64_t> Of(NodeOf.begin(), NodeOf.end());
    Out.push_back({"--node-of", listText(Of)});
  }
  return Out;
}

std::vector<Candidate> pmpi::candidatesFor(const CallHeader &H,
                                           llvm::ArrayRef<uint32_t> NodeOf) {
  std::vector<Candidate> Out;
  for (const Generator *G : allGenerators()) {
    if (!G->mayServe(H))
      continue;
    Out.push_back({G, {}});
    for (std::vector<std::string> &V : G->pricedVariants())
      Out.push_back({G, std::move(V)});
    if (NodeOf.size() == H.NumRanks)
      for (std::vector<std::string> &F : nodeAwareForms(*G, NodeOf))
        Out.push_back({G, std::move(F)});
  }
  return Out;
}

std::optional<OptionValues> pmpi::candidateOptions(const Candidate &C,
                                                   const CallHeader &H,
                                                   uint64_t ElemBytes) {
  try {
    OptionValues Own;
    if (!C.Extra.empty()) {
      auto O = parseGenArgs(C.Extra);
      if (!O) {
        llvm::consumeError(O.takeError());
        return std::nullopt;
      }
      Own = std::move(*O);
    }
    auto V = callOptions(*C.G, H, ElemBytes, Own);
    if (!V) {
      llvm::consumeError(V.takeError());
      return std::nullopt;
    }
    if (C.G->partIsWhole(*V))
      return std::nullopt;
    return std::move(*V);
  } catch (const std::bad_alloc &) {
    return std::nullopt;
  }
}

uint64_t pmpi::autoRelayRadix(const CallHeader &H) {
  for (const Candidate &C : candidatesFor(H, {})) {
    if (!declares(C.G->options(), opt::relayed()))
      continue;
    OptionValues V;
    if (!C.Extra.empty()) {
      auto X = parseGenArgs(C.Extra);
      if (!X) { // (its build refuses it too)
        llvm::consumeError(X.takeError());
        continue;
      }
      V = std::move(*X);
    }
    uint64_t K = V.get(opt::radix());
    if (K >= 2)
      return K;
  }
  return 0;
}
