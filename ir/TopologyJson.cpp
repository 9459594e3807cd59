//===- ir/TopologyJson.cpp - A topology object of format v1 ---------------===//
///
/// \file
/// Decodes a topology object (full, ring with an optional order, graph with
/// its links), naming the JSON pointer of the first value that is wrong.
///
//===----------------------------------------------------------------------===//

#include "ir/TopologyJson.h"
#include "ir/JsonDecode.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;
using ojson = nlohmann::ordered_json;

/// Fills Topo from T (at pointer P); false after D has reported the failure.
static bool decodeInto(JsonDecoder &D, const ojson &T, const std::string &P,
                       Topology &Topo) {
  if (!T.is_object())
    return D.fail(P + ": expected an object, got " + D.describe(T));
  auto Kind = T.find("kind");
  if (Kind == T.end())
    return D.fail(P + "/kind: missing (full, ring or graph)");
  if (*Kind == "full") {
    Topo = Topology::full();
  } else if (*Kind == "ring") {
    Topo = Topology::ring();
    if (auto Order = T.find("order"); Order != T.end()) {
      std::vector<uint64_t> O;
      if (!D.unsignedList(*Order, P + "/order", O,
                          std::numeric_limits<Rank>::max()))
        return false;
      Topo.Order.assign(O.begin(), O.end());
    }
  } else if (*Kind == "graph") {
    Topo.K = Topology::Kind::Graph;
    auto Edges = T.find("edges");
    if (Edges == T.end() || !Edges->is_array())
      return D.fail(P + "/edges: a graph topology needs an array of [u, v] "
                        "links");
    for (size_t I = 0; I < Edges->size(); ++I) {
      std::vector<uint64_t> E;
      std::string EP = formatv("{0}/edges/{1}", P, I);
      if (!D.unsignedList((*Edges)[I], EP, E, std::numeric_limits<Rank>::max()))
        return false;
      if (E.size() != 2)
        return D.fail(EP + ": a link is a [u, v] pair");
      Topo.Edges.push_back({static_cast<Rank>(E[0]), static_cast<Rank>(E[1])});
    }
  } else {
    return D.fail(P + "/kind: expected full, ring or graph, got " +
                  D.describe(*Kind));
  }
  return true;
}

llvm::Expected<Topology> choreo::decodeTopology(const ojson &V,
                                                llvm::StringRef Pointer) {
  std::vector<Diagnostic> Errors;
  JsonDecoder D(Errors);
  Topology Topo;
  if (!decodeInto(D, V, Pointer.str(), Topo))
    return llvm::make_error<DiagnosticError>(std::move(Errors));
  return Topo;
}
