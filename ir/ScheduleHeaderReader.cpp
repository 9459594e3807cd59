//===- ir/ScheduleHeaderReader.cpp - The header of format v1 --------------===//
///
/// \file
/// Decodes the header members of a format-v1 document (format, version,
/// collective, groups, sizes, root, topology, ports, nodes, op), which the
/// streaming pass kept as a small JSON tree, into a Schedule. Errors name
/// the JSON pointer of the offending value.
///
//===----------------------------------------------------------------------===//

#include "ir/JsonDecode.h"
#include "ir/ScheduleReading.h"
#include "ir/TopologyJson.h"

#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace choreo;
using llvm::formatv;
using ojson = nlohmann::ordered_json;

namespace {

class HeaderDecoder : public JsonDecoder {
public:
  HeaderDecoder(const ojson &H, std::vector<Diagnostic> &Errors)
      : JsonDecoder(Errors), H(H) {}

  bool decode(Schedule &S) {
    const ojson *Format = member("format");
    if (!Format)
      return fail("/format: missing; this is not a choreo schedule (expected "
                  "\"format\": \"choreo-schedule\")");
    if (!Format->is_string() || *Format != "choreo-schedule")
      return fail(formatv("/format: expected \"choreo-schedule\", got {0}",
                          describe(*Format)));
    const ojson *Version = member("version");
    if (!Version)
      return fail("/version: missing (this reader reads version 1)");
    if (!Version->is_number_integer() || *Version != 1)
      return fail(formatv("/version: unsupported version {0} (this reader "
                          "reads version 1)",
                          describe(*Version)));
    const ojson *Coll = member("collective");
    if (!Coll)
      return fail("/collective: missing");
    std::optional<Collective> C;
    if (Coll->is_string())
      C = parseCollective(Coll->get<std::string>());
    if (!C)
      return fail(formatv("/collective: unknown collective {0} (known: {1})",
                          describe(*Coll), collectiveNames()));
    S.Kind = *C;
    if (const ojson *A = member("algorithm")) {
      if (!A->is_string())
        return fail("/algorithm: expected a string, got " + describe(*A));
      S.Algorithm = A->get<std::string>();
    }
    if (const ojson *P = member("params")) {
      if (!P->is_object())
        return fail("/params: expected an object, got " + describe(*P));
      S.Params = *P;
    }
    const ojson *Ranks = member("ranks");
    if (!Ranks)
      return fail("/ranks: missing");
    uint64_t N;
    if (!unsignedValue(*Ranks, "/ranks", N))
      return false;
    S.NumRanks = N;
    return decodeGroups(S) && decodeSizes(S) && decodeRoot(S) &&
           decodeTopology(S) && decodePorts(S) && decodeNodes(S) && decodeOp(S);
  }

private:
  const ojson &H;

  const ojson *member(const char *Name) const {
    auto It = H.find(Name);
    return It == H.end() ? nullptr : &*It;
  }

  bool decodeGroups(Schedule &S) {
    const ojson *G = member("groups");
    if (!G)
      return fail("/groups: missing");
    if (!G->is_object())
      return fail("/groups: expected an object of named rank lists, got " +
                  describe(*G));
    for (auto It = G->begin(); It != G->end(); ++It) {
      std::vector<uint64_t> Members;
      if (!unsignedList(It.value(), "/groups/" + pointerSegment(It.key()),
                        Members, std::numeric_limits<Rank>::max()))
        return false;
      S.Groups.push_back({It.key(), {Members.begin(), Members.end()}});
    }
    return true;
  }

  bool decodeSizes(Schedule &S) {
    const ojson *Sz = member("sizes");
    if (!Sz)
      return fail("/sizes: missing");
    if (!Sz->is_object())
      return fail("/sizes: expected an object of named size lists, got " +
                  describe(*Sz));
    for (auto It = Sz->begin(); It != Sz->end(); ++It) {
      NamedSizes NS{It.key(), {}};
      if (!unsignedList(It.value(), "/sizes/" + pointerSegment(It.key()),
                        NS.Values, std::numeric_limits<uint64_t>::max()))
        return false;
      S.Sizes.push_back(std::move(NS));
    }
    return true;
  }

  bool decodeRoot(Schedule &S) {
    const ojson *R = member("root");
    if (!R || R->is_null())
      return true;
    uint64_t V;
    if (!unsignedValue(*R, "/root", V))
      return false;
    S.Root = V;
    return true;
  }

  bool decodeTopology(Schedule &S) {
    const ojson *T = member("topology");
    if (!T)
      return true;
    auto Topo = choreo::decodeTopology(*T, "/topology");
    if (!Topo)
      return fail(llvm::toString(Topo.takeError()));
    S.Topo = std::move(*Topo);
    return true;
  }

  bool decodePorts(Schedule &S) {
    const ojson *P = member("ports");
    if (!P)
      return true;
    if (!P->is_object())
      return fail("/ports: expected an object, got " + describe(*P));
    uint64_t V;
    if (auto It = P->find("send"); It != P->end()) {
      if (!unsignedValue(*It, "/ports/send", V))
        return false;
      S.Port.Send = V;
    }
    if (auto It = P->find("recv"); It != P->end()) {
      if (!unsignedValue(*It, "/ports/recv", V))
        return false;
      S.Port.Recv = V;
    }
    if (auto It = P->find("duplex"); It != P->end()) {
      if (!It->is_boolean())
        return fail("/ports/duplex: expected true or false, got " +
                    describe(*It));
      S.Port.Duplex = It->get<bool>();
    }
    return true;
  }

  /// `nodes` (rank lists) and `node_ports`; whether they form a partition is
  /// Schedule::verify()'s rule.
  bool decodeNodes(Schedule &S) {
    if (const ojson *N = member("nodes")) {
      if (!N->is_array())
        return fail("/nodes: expected an array of rank lists (one per compute "
                    "node), got " +
                    describe(*N));
      std::vector<std::vector<Rank>> Nodes;
      for (size_t I = 0; I < N->size(); ++I) {
        std::vector<uint64_t> Members;
        if (!unsignedList((*N)[I], "/nodes/" + std::to_string(I), Members,
                          std::numeric_limits<Rank>::max()))
          return false;
        Nodes.emplace_back(Members.begin(), Members.end());
      }
      S.Nodes = std::move(Nodes);
    }
    const ojson *P = member("node_ports");
    if (!P)
      return true;
    if (!P->is_object())
      return fail("/node_ports: expected an object, got " + describe(*P));
    NodePorts NP;
    uint64_t V;
    if (auto It = P->find("send"); It != P->end()) {
      if (!unsignedValue(*It, "/node_ports/send", V))
        return false;
      NP.Send = V;
    }
    if (auto It = P->find("recv"); It != P->end()) {
      if (!unsignedValue(*It, "/node_ports/recv", V))
        return false;
      NP.Recv = V;
    }
    S.NodePort = NP;
    return true;
  }

  bool decodeOp(Schedule &S) {
    const ojson *O = member("op");
    if (!O)
      return true;
    if (!O->is_object())
      return fail("/op: expected an object, got " + describe(*O));
    ReductionOp Op;
    if (auto It = O->find("commutative"); It != O->end()) {
      if (!It->is_boolean())
        return fail("/op/commutative: expected true or false, got " +
                    describe(*It));
      Op.Commutative = It->get<bool>();
    }
    S.ReduceOp = Op;
    return true;
  }
};

} // namespace

bool choreo::decodeHeader(const ojson &Header, Schedule &S,
                          std::vector<Diagnostic> &Errors) {
  return HeaderDecoder(Header, Errors).decode(S);
}
