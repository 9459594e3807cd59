//===- ir/ScheduleReader.cpp - Streaming reader of format v1 --------------===//
///
/// \file
/// A SAX handler for nlohmann's JSON and CBOR parsers. The `steps` array is
/// decoded straight into a StepList (ops of any size never become a JSON
/// tree); every other top-level member is small and becomes a JSON tree that
/// is decoded once the document is complete (members may come in any order).
/// Errors carry the JSON pointer of the offending value.
///
//===----------------------------------------------------------------------===//

#include "ir/ScheduleIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <limits>
#include <memory>

using namespace choreo;
using llvm::formatv;
using ojson = nlohmann::ordered_json;

namespace {

/// Escapes a JSON pointer segment (RFC 6901).
std::string pointerSegment(llvm::StringRef Key) {
  std::string Out;
  for (char C : Key) {
    if (C == '~')
      Out += "~0";
    else if (C == '/')
      Out += "~1";
    else
      Out += C;
  }
  return Out;
}

std::string describe(const ojson &V) {
  // JSON's "-0" is a signed zero; "got 0" would not say what is wrong.
  if (V.is_number_integer() && !V.is_number_unsigned() && V.get<int64_t>() == 0)
    return "-0";
  std::string S = jsonText(V);
  if (S.size() > 40)
    S = S.substr(0, 37) + "...";
  return S;
}

class ScheduleSax {
public:
  using number_integer_t = ojson::number_integer_t;
  using number_unsigned_t = ojson::number_unsigned_t;
  using number_float_t = ojson::number_float_t;
  using string_t = ojson::string_t;
  using binary_t = ojson::binary_t;

  ojson Header = ojson::object();
  StepList Steps;
  std::optional<uint64_t> OnlyRank;
  bool SawSteps = false;
  /// The steps' digest of every step, op and block (Schedule::StepsDigest).
  StepHasher Digest;
  std::vector<Diagnostic> Errors;

  /// Buffer names met in blocks, interned; Block::Buf holds the index until
  /// the header says which buffers exist.
  llvm::StringMap<uint32_t> BufIndex;
  std::vector<std::string> BufNames;
  std::vector<std::string> BufFirstUse;

  bool null() { return scalar(Scalar{Scalar::Null}); }
  bool boolean(bool V) {
    Scalar S{Scalar::Bool};
    S.B = V;
    return scalar(S);
  }
  bool number_integer(number_integer_t V) {
    Scalar S{Scalar::Int};
    S.I = V;
    return scalar(S);
  }
  bool number_unsigned(number_unsigned_t V) {
    Scalar S{Scalar::Uint};
    S.U = V;
    return scalar(S);
  }
  bool number_float(number_float_t V, const string_t &) {
    Scalar S{Scalar::Float};
    S.D = V;
    return scalar(S);
  }
  bool string(string_t &V) {
    Scalar S{Scalar::Text};
    S.Str = &V;
    return scalar(S);
  }
  bool binary(binary_t &) {
    return error(path() + ": binary data is not part of format v1");
  }
  bool start_object(std::size_t) { return start(/*IsArray=*/false); }
  bool start_array(std::size_t) { return start(/*IsArray=*/true); }
  bool end_object() { return end(); }
  bool end_array() { return end(); }
  bool key(string_t &Name) {
    Frame &F = Stack.back();
    F.K = keyOf(Name);
    if (F.K == Key::Other || F.C == Ctx::Root || F.C == Ctx::Dom)
      F.Name = Name;
    // Every duplicate key is an error naming its pointer: the header keeps
    // its tree (last-wins otherwise), steps, ops and blocks their known
    // keys in a mask, anything else a set.
    bool Duplicate = false;
    if (F.C == Ctx::Root) {
      Duplicate = !RootKeys.insert(Name).second;
    } else if (F.C == Ctx::Dom) {
      Duplicate = F.Node->contains(Name);
    } else if ((F.C == Ctx::Op || F.C == Ctx::Block || F.C == Ctx::Step) &&
               F.K != Key::Other) {
      unsigned Bit = 1u << unsigned(F.K);
      Duplicate = F.SeenMask & Bit;
      F.SeenMask |= Bit;
    } else {
      if (!F.OtherKeys)
        F.OtherKeys = std::make_unique<llvm::StringSet<>>();
      Duplicate = !F.OtherKeys->insert(Name).second;
    }
    if (Duplicate)
      return error(path() + ": duplicate key");
    return true;
  }
  bool parse_error(std::size_t Pos, const std::string &Token,
                   const nlohmann::detail::exception &Ex) {
    std::string Msg = Ex.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
    size_t Close = Msg.find("] ");
    if (Msg.rfind("[json.exception", 0) == 0 && Close != std::string::npos)
      Msg = Msg.substr(Close + 2);
    Errors.emplace_back("unreadable", "cannot read the schedule: " + Msg);
    return false;
  }

private:
  enum class Ctx {
    Root,
    Steps,
    Step,
    Ops,
    Op,
    Blocks,
    Block,
    Contrib,
    ContribPair,
    Dom,
    Skip
  };
  /// The member names of steps, ops and blocks, recognised once per key.
  enum class Key : uint8_t {
    Other,
    Steps,
    Ops,
    Src,
    Dst,
    Blocks,
    Buf,
    Lo,
    Hi,
    Reduce,
    Contrib
  };
  static Key keyOf(llvm::StringRef Name) {
    return llvm::StringSwitch<Key>(Name)
        .Case("steps", Key::Steps)
        .Case("ops", Key::Ops)
        .Case("src", Key::Src)
        .Case("dst", Key::Dst)
        .Case("blocks", Key::Blocks)
        .Case("buf", Key::Buf)
        .Case("lo", Key::Lo)
        .Case("hi", Key::Hi)
        .Case("reduce", Key::Reduce)
        .Case("contrib", Key::Contrib)
        .Default(Key::Other);
  }
  static const char *keyName(Key K) {
    static const char *Names[] = {"",       "steps", "ops", "src",
                                  "dst",    "blocks", "buf", "lo",
                                  "hi",     "reduce", "contrib"};
    return Names[unsigned(K)];
  }
  struct Frame {
    Ctx C;
    bool IsArray;
    size_t Index = 0;      // arrays: index of the next element
    Key K = Key::Other;    // objects: the current key
    std::string Name;      // objects: the current key, when K is Other or in
                           // the header
    ojson *Node = nullptr; // header trees: the container being filled
    unsigned SeenMask = 0; // op and block objects: known keys seen
    /// Objects: the keys seen that SeenMask and the header tree do not
    /// record (made on the first such key).
    std::unique_ptr<llvm::StringSet<>> OtherKeys;
  };
  /// A scalar event, kept unboxed: only header values become JSON trees.
  struct Scalar {
    enum KindT { Null, Bool, Int, Uint, Float, Text } Kind;
    bool B = false;
    int64_t I = 0;
    uint64_t U = 0;
    double D = 0;
    std::string *Str = nullptr;
    ojson toJson() const {
      switch (Kind) {
      case Null:
        return ojson(nullptr);
      case Bool:
        return ojson(B);
      case Int:
        return ojson(I);
      case Uint:
        return ojson(U);
      case Float:
        return ojson(D);
      case Text:
        return ojson(std::move(*Str));
      }
      return ojson();
    }
    std::string describe() const {
      if (Kind == Int && I == 0)
        return "-0";
      return Kind == Text ? jsonText(ojson(*Str)).substr(0, 40)
                         : ::describe(toJson());
    }
  };
  std::vector<Frame> Stack;
  llvm::StringSet<> RootKeys;
  /// The format nests 6 levels deep; a limit keeps a hostile document from
  /// exhausting the stack of the (recursive) CBOR parser.
  static constexpr size_t MaxDepth = 64;

  // The op and block being decoded.
  std::optional<uint64_t> Src, Dst;
  bool HasBlocks = false;
  llvm::SmallVector<Block, 4> OpBlocks;
  std::optional<uint64_t> Lo, Hi;
  std::optional<uint32_t> Buf;
  bool Reduce = false, HasContrib = false;
  RankSet Contrib;
  llvm::SmallVector<uint64_t, 2> Pair;

  bool error(std::string Msg) {
    Errors.emplace_back("invalid", std::move(Msg));
    return false;
  }

  /// The JSON pointer of the value being delivered now.
  /// Frames keep their current index or key while a child is open, so the
  /// path is read off the stack; it is built only for errors.
  std::string path() const {
    std::string P;
    for (const Frame &F : Stack)
      P += "/" + currentSegment(F);
    return P;
  }
  static std::string currentSegment(const Frame &F) {
    if (F.IsArray)
      return std::to_string(F.Index);
    return pointerSegment(F.K == Key::Other || F.C == Ctx::Root ||
                                  F.C == Ctx::Dom
                              ? llvm::StringRef(F.Name)
                              : llvm::StringRef(keyName(F.K)));
  }

  /// Called after a value (scalar or container) completes inside the top
  /// frame.
  void advance() {
    if (!Stack.empty() && Stack.back().IsArray)
      ++Stack.back().Index;
  }

  bool start(bool IsArray) {
    const char *What = IsArray ? "an array" : "an object";
    if (Stack.empty()) {
      if (IsArray)
        return error("the document is an array; a schedule is a JSON object");
      Stack.push_back({Ctx::Root, false, 0, Key::Other, "", nullptr, 0, {}});
      return true;
    }
    if (Stack.size() >= MaxDepth)
      return error(path() + ": nested deeper than " +
                   std::to_string(MaxDepth) + " levels");
    Frame &P = Stack.back();
    Ctx Child = Ctx::Skip;
    ojson *Node = nullptr;
    switch (P.C) {
    case Ctx::Root:
      if (P.K == Key::Steps) {
        if (!IsArray)
          return error(path() + ": expected an array of steps, got " + What);
        SawSteps = true;
        Child = Ctx::Steps;
      } else {
        Header[P.Name] = IsArray ? ojson::array() : ojson::object();
        Node = &Header[P.Name];
        Child = Ctx::Dom;
      }
      break;
    case Ctx::Dom: {
      ojson V = IsArray ? ojson::array() : ojson::object();
      if (P.IsArray) {
        P.Node->push_back(std::move(V));
        Node = &P.Node->back();
      } else {
        (*P.Node)[P.Name] = std::move(V);
        Node = &(*P.Node)[P.Name];
      }
      Child = Ctx::Dom;
      break;
    }
    case Ctx::Skip:
      Child = Ctx::Skip;
      break;
    case Ctx::Steps:
      if (IsArray)
        return error(path() + ": expected a step object, got an array");
      Steps.newStep();
      Digest.step();
      Child = Ctx::Step;
      break;
    case Ctx::Step:
      if (P.K == Key::Ops) {
        if (!IsArray)
          return error(path() + ": expected an array of ops, got an object");
        Child = Ctx::Ops;
      }
      break;
    case Ctx::Ops:
      if (IsArray)
        return error(path() + ": expected an op object, got an array");
      Src.reset();
      Dst.reset();
      HasBlocks = false;
      OpBlocks.clear();
      Child = Ctx::Op;
      break;
    case Ctx::Op:
      if (P.K == Key::Blocks) {
        if (!IsArray)
          return error(path() + ": expected an array of blocks, got an "
                                "object");
        HasBlocks = true;
        Child = Ctx::Blocks;
      } else if (P.K == Key::Src || P.K == Key::Dst) {
        return error(path() + ": expected a rank, got " + What);
      }
      break;
    case Ctx::Blocks:
      if (IsArray)
        return error(path() + ": expected a block object, got an array");
      Lo.reset();
      Hi.reset();
      Buf.reset();
      Reduce = false;
      HasContrib = false;
      Contrib.clear();
      Child = Ctx::Block;
      break;
    case Ctx::Block:
      if (P.K == Key::Contrib) {
        if (!IsArray)
          return error(path() + ": expected an array of [first, end) rank "
                                "intervals, got an object");
        HasContrib = true;
        Child = Ctx::Contrib;
      } else if (P.K == Key::Buf || P.K == Key::Lo || P.K == Key::Hi ||
                 P.K == Key::Reduce) {
        return error(path() + ": expected a scalar, got " + What);
      }
      break;
    case Ctx::Contrib:
      if (!IsArray)
        return error(path() + ": expected a [first, end) pair, got an object");
      Pair.clear();
      Child = Ctx::ContribPair;
      break;
    case Ctx::ContribPair:
      return error(path() + ": expected a rank, got " + What);
    }
    Stack.push_back({Child, IsArray, 0, Key::Other, "", Node, 0, {}});
    return true;
  }

  bool end() {
    Frame F = std::move(Stack.back());
    Stack.pop_back();
    switch (F.C) {
    case Ctx::Op:
      if (!finishOp())
        return false;
      break;
    case Ctx::Block:
      if (!finishBlock())
        return false;
      break;
    case Ctx::ContribPair:
      if (!finishPair())
        return false;
      break;
    default:
      break;
    }
    advance();
    return true;
  }

  /// The finish* functions run when an op, block or pair has been popped off
  /// the stack: path() is then the popped container's own pointer (its
  /// parent still holds its index).
  bool finishOp() {
    for (auto [Field, Value] : {std::pair{"src", &Src}, std::pair{"dst", &Dst}})
      if (!*Value)
        return error(formatv("{0}: missing \"{1}\"", path(), Field));
    if (!HasBlocks)
      return error(path() + ": missing \"blocks\"");
    Digest.op(*Src, *Dst);
    for (const Block &B : OpBlocks)
      Digest.block(BufNames[B.Buf], B.Lo, B.Hi, B.Reduce,
                   B.hasContrib() ? &Steps.contrib(B.Contrib) : nullptr);
    if (!OnlyRank || *Src == *OnlyRank || *Dst == *OnlyRank)
      Steps.addOp(static_cast<Rank>(*Src), static_cast<Rank>(*Dst), OpBlocks);
    return true;
  }

  bool finishBlock() {
    if (!Buf)
      return error(path() + ": missing \"buf\"");
    if (!Lo)
      return error(path() + ": missing \"lo\"");
    if (!Hi)
      return error(path() + ": missing \"hi\"");
    Block B;
    B.Buf = static_cast<BufferId>(*Buf);
    B.Lo = *Lo;
    B.Hi = *Hi;
    B.Reduce = Reduce;
    if (HasContrib)
      B.Contrib = Steps.addContrib(Contrib);
    OpBlocks.push_back(B);
    return true;
  }

  bool finishPair() {
    if (Pair.size() != 2)
      return error(formatv("{0}: a contributor interval is a [first, end) "
                           "pair, got {1} numbers",
                           path(), Pair.size()));
    if (Pair[0] >= Pair[1])
      return error(formatv("{0}: empty contributor interval [{1},{2})", path(),
                           Pair[0], Pair[1]));
    if (Contrib.intersects(Pair[0], Pair[1]))
      return error(formatv("{0}: ranks of [{1},{2}) are listed twice", path(),
                           Pair[0], Pair[1]));
    Contrib.insert(Pair[0], Pair[1]);
    return true;
  }

  bool expectUnsigned(const Scalar &V, uint64_t &Out, uint64_t Max,
                      const char *What) {
    if (V.Kind != Scalar::Uint)
      return error(formatv("{0}: expected {1} (a non-negative integer), got "
                           "{2}",
                           path(), What, V.describe()));
    Out = V.U;
    if (Out > Max)
      return error(formatv("{0}: {1} is too large for {2}", path(), Out,
                           What));
    return true;
  }

  bool scalar(const Scalar &V) {
    if (Stack.empty())
      return error("the document is not a JSON object");
    Frame &P = Stack.back();
    uint64_t U = 0;
    switch (P.C) {
    case Ctx::Root:
      if (P.K == Key::Steps)
        return error(path() + ": expected an array of steps, got " +
                     V.describe());
      Header[P.Name] = V.toJson();
      break;
    case Ctx::Dom:
      if (P.IsArray)
        P.Node->push_back(V.toJson());
      else
        (*P.Node)[P.Name] = V.toJson();
      break;
    case Ctx::Skip:
      break;
    case Ctx::Steps:
      return error(path() + ": expected a step object, got " + V.describe());
    case Ctx::Step:
      if (P.K == Key::Ops)
        return error(path() + ": expected an array of ops, got " +
                     V.describe());
      break;
    case Ctx::Ops:
      return error(path() + ": expected an op object, got " + V.describe());
    case Ctx::Op:
      if (P.K == Key::Src || P.K == Key::Dst) {
        if (!expectUnsigned(V, U, std::numeric_limits<Rank>::max(), "a rank"))
          return false;
        (P.K == Key::Src ? Src : Dst) = U;
      } else if (P.K == Key::Blocks) {
        return error(path() + ": expected an array of blocks, got " +
                     V.describe());
      }
      break;
    case Ctx::Blocks:
      return error(path() + ": expected a block object, got " + V.describe());
    case Ctx::Block:
      if (P.K == Key::Lo || P.K == Key::Hi) {
        if (!expectUnsigned(V, U, std::numeric_limits<uint64_t>::max(),
                            "a byte offset"))
          return false;
        (P.K == Key::Lo ? Lo : Hi) = U;
      } else if (P.K == Key::Buf) {
        if (V.Kind != Scalar::Text)
          return error(path() + ": expected a buffer name, got " +
                       V.describe());
        Buf = internBuffer(*V.Str);
        if (*Buf > 255)
          return error(path() + ": too many distinct buffer names");
      } else if (P.K == Key::Reduce) {
        if (V.Kind != Scalar::Bool)
          return error(path() + ": expected true or false, got " +
                       V.describe());
        Reduce = V.B;
      } else if (P.K == Key::Contrib) {
        return error(path() + ": expected an array of [first, end) rank "
                              "intervals, got " +
                     V.describe());
      }
      break;
    case Ctx::Contrib:
      return error(path() + ": expected a [first, end) pair, got " +
                   V.describe());
    case Ctx::ContribPair:
      if (!expectUnsigned(V, U, std::numeric_limits<Rank>::max(), "a rank"))
        return false;
      if (Pair.size() < 3)
        Pair.push_back(U);
      break;
    }
    advance();
    return true;
  }

  uint32_t internBuffer(const std::string &Name) {
    auto [It, Inserted] = BufIndex.try_emplace(Name, BufNames.size());
    if (Inserted) {
      BufNames.push_back(Name);
      BufFirstUse.push_back(path());
    }
    return It->second;
  }
};

//===----------------------------------------------------------------------===//
// Decoding the header
//===----------------------------------------------------------------------===//

class HeaderDecoder {
public:
  HeaderDecoder(const ojson &H, std::vector<Diagnostic> &Errors)
      : H(H), Errors(Errors) {}

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
      return fail(formatv("/collective: unknown collective {0} (known: "
                          "allgather, allgatherv, inter_allgather, "
                          "inter_allgatherv, half_allgather, gather, bcast, "
                          "reduce, allreduce, reduce_scatter)",
                          describe(*Coll)));
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
  std::vector<Diagnostic> &Errors;

  const ojson *member(const char *Name) const {
    auto It = H.find(Name);
    return It == H.end() ? nullptr : &*It;
  }

  bool fail(std::string Msg) {
    Errors.emplace_back("invalid", std::move(Msg));
    return false;
  }

  bool unsignedValue(const ojson &V, const std::string &Path, uint64_t &Out,
                     uint64_t Max = std::numeric_limits<Rank>::max()) {
    if (!V.is_number_unsigned())
      return fail(formatv("{0}: expected a non-negative integer, got {1}",
                          Path, describe(V)));
    Out = V.get<uint64_t>();
    if (Out > Max)
      return fail(formatv("{0}: {1} is too large", Path, Out));
    return true;
  }

  bool unsignedList(const ojson &V, const std::string &Path,
                    std::vector<uint64_t> &Out, uint64_t Max) {
    if (!V.is_array())
      return fail(formatv("{0}: expected an array, got {1}", Path,
                          describe(V)));
    for (size_t I = 0; I < V.size(); ++I) {
      uint64_t X;
      if (!unsignedValue(V[I], Path + "/" + std::to_string(I), X, Max))
        return false;
      Out.push_back(X);
    }
    return true;
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
    if (!T->is_object())
      return fail("/topology: expected an object, got " + describe(*T));
    auto Kind = T->find("kind");
    if (Kind == T->end())
      return fail("/topology/kind: missing (full, ring or graph)");
    if (*Kind == "full") {
      S.Topo = Topology::full();
    } else if (*Kind == "ring") {
      S.Topo = Topology::ring();
      if (auto Order = T->find("order"); Order != T->end()) {
        std::vector<uint64_t> O;
        if (!unsignedList(*Order, "/topology/order", O,
                          std::numeric_limits<Rank>::max()))
          return false;
        S.Topo.Order.assign(O.begin(), O.end());
      }
    } else if (*Kind == "graph") {
      S.Topo.K = Topology::Kind::Graph;
      auto Edges = T->find("edges");
      if (Edges == T->end() || !Edges->is_array())
        return fail("/topology/edges: a graph topology needs an array of "
                    "[u, v] links");
      for (size_t I = 0; I < Edges->size(); ++I) {
        std::vector<uint64_t> E;
        std::string P = "/topology/edges/" + std::to_string(I);
        if (!unsignedList((*Edges)[I], P, E, std::numeric_limits<Rank>::max()))
          return false;
        if (E.size() != 2)
          return fail(P + ": a link is a [u, v] pair");
        S.Topo.Edges.push_back({static_cast<Rank>(E[0]),
                                static_cast<Rank>(E[1])});
      }
    } else {
      return fail("/topology/kind: expected full, ring or graph, got " +
                  describe(*Kind));
    }
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

/// Replaces the reader's interned buffer indices by the schedule's BufferIds.
bool resolveBuffers(Schedule &S, const ScheduleSax &Sax,
                    std::vector<Diagnostic> &Errors) {
  std::vector<Buffer> Bufs = S.buffers();
  std::vector<BufferId> Map(Sax.BufNames.size());
  for (size_t I = 0; I < Sax.BufNames.size(); ++I) {
    std::optional<BufferId> Id = S.bufferId(Sax.BufNames[I]);
    if (!Id) {
      std::vector<std::string> Names;
      for (const Buffer &B : Bufs)
        Names.push_back(B.Name);
      Errors.emplace_back(
          "invalid", formatv("{0}: unknown buffer \"{1}\" ({2} has: {3})",
                             Sax.BufFirstUse[I], Sax.BufNames[I],
                             collectiveName(S.Kind), llvm::join(Names, ", ")));
      return false;
    }
    Map[I] = *Id;
  }
  S.Steps.remapBuffers(Map);
  return true;
}

} // namespace

FileFormat choreo::sniffFormat(llvm::StringRef Data) {
  if (Data.empty())
    return FileFormat::Json;
  unsigned char C = Data[0];
  // Major type 5 (map) or the self-describe tag 55799 (0xd9 0xd9 0xf7).
  if ((C >= 0xa0 && C <= 0xbf) || C == 0xd9)
    return FileFormat::Cbor;
  return FileFormat::Json;
}

FileFormat choreo::formatForPath(llvm::StringRef Path) {
  return Path.ends_with_insensitive(".cbor") ? FileFormat::Cbor
                                             : FileFormat::Json;
}

llvm::Expected<FileFormat> choreo::parseFileFormat(llvm::StringRef Name) {
  if (Name == "json")
    return FileFormat::Json;
  if (Name == "cbor")
    return FileFormat::Cbor;
  return makeDiagError("usage", formatv("--format: expected json or cbor, "
                                        "got '{0}'",
                                        Name));
}

llvm::Expected<Schedule> choreo::parseSchedule(llvm::StringRef Data,
                                               const ReadOptions &Opts) {
  if (Data.trim().empty())
    return makeDiagError("unreadable",
                         "cannot read the schedule: the input is empty");
  ScheduleSax Sax;
  Sax.OnlyRank = Opts.OnlyRank;
  FileFormat F = sniffFormat(Data);
  // nlohmann's SAX parse of CBOR has no tag handler: the self-describe tag
  // 55799 (d9 d9 f7), which only says "CBOR follows", is dropped here; any
  // other tag stays an error.
  if (F == FileFormat::Cbor && Data.starts_with("\xd9\xd9\xf7"))
    Data = Data.drop_front(3);
  if (F == FileFormat::Json)
    if (size_t Nul = Data.find('\0'); Nul != llvm::StringRef::npos)
      return makeDiagError("unreadable",
                           formatv("cannot read the schedule: byte {0} is a "
                                   "NUL character (a JSON schedule is text; "
                                   "a CBOR one starts with a map)",
                                   Nul));
  const char *Begin = Data.data(), *End = Data.data() + Data.size();
  try {
    ojson::sax_parse(Begin, End, &Sax,
                     F == FileFormat::Cbor ? ojson::input_format_t::cbor
                                           : ojson::input_format_t::json);
  } catch (const std::exception &E) {
    Sax.Errors.emplace_back("unreadable",
                            std::string("cannot read the schedule: ") +
                                E.what());
  }
  if (!Sax.Errors.empty())
    return llvm::make_error<DiagnosticError>(std::move(Sax.Errors));
  if (!Sax.SawSteps)
    Sax.Errors.emplace_back("invalid", "/steps: missing");

  Schedule S;
  std::vector<Diagnostic> Errors;
  if (!HeaderDecoder(Sax.Header, Errors).decode(S) || !Sax.Errors.empty()) {
    // A document that is not a schedule at all reports its header first.
    Errors.insert(Errors.end(), Sax.Errors.begin(), Sax.Errors.end());
    return llvm::make_error<DiagnosticError>(std::move(Errors));
  }
  S.Steps = std::move(Sax.Steps);
  S.StepsDigest = Sax.Digest.digest();
  if (!resolveBuffers(S, Sax, Errors))
    return llvm::make_error<DiagnosticError>(std::move(Errors));
  std::vector<Diagnostic> Invalid = S.verify();
  if (!Invalid.empty())
    return llvm::make_error<DiagnosticError>(std::move(Invalid));
  return S;
}

llvm::Expected<Schedule> choreo::readScheduleFile(llvm::StringRef Path,
                                                  const ReadOptions &Opts) {
  auto Buf = Path == "-" ? llvm::MemoryBuffer::getSTDIN()
                         : llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return makeDiagError("unreadable",
                         formatv("cannot open {0}: {1}",
                                 Path == "-" ? "standard input" : Path,
                                 Buf.getError().message()));
  return parseSchedule((*Buf)->getBuffer(), Opts);
}
