//===- ir/ScheduleSax.cpp - The streaming pass of the reader --------------===//
///
/// \file
/// A SAX handler for nlohmann's JSON and CBOR parsers. The `steps` array is
/// decoded straight into a StepList (ops of any size never become a JSON
/// tree); every other top-level member is small and becomes a JSON tree that
/// the header decoder reads once the document is complete (members may come
/// in any order). Errors carry the JSON pointer of the offending value;
/// nesting is limited, as the CBOR parser recurses.
///
//===----------------------------------------------------------------------===//

#include "ir/JsonDecode.h"
#include "ir/ScheduleReading.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>
#include <memory>

using namespace choreo;
using llvm::formatv;
using ojson = nlohmann::ordered_json;

namespace {

class ScheduleSax : public StreamedSchedule {
public:
  using number_integer_t = ojson::number_integer_t;
  using number_unsigned_t = ojson::number_unsigned_t;
  using number_float_t = ojson::number_float_t;
  using string_t = ojson::string_t;
  using binary_t = ojson::binary_t;

  std::optional<uint64_t> OnlyRank;

  /// Buffer names met in blocks, interned (StreamedSchedule::BufNames).
  llvm::StringMap<uint32_t> BufIndex;

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
    } else if ((F.C == Ctx::Op || F.C == Ctx::Block || F.C == Ctx::Step ||
                F.C == Ctx::Lattice) &&
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
    AccList,
    Lattice,
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
    Contrib,
    From,
    Acc,
    Lattice,
    Elem,
    Rows,
    RowStride,
    Cols,
    ColStride
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
        .Case("from", Key::From)
        .Case("acc", Key::Acc)
        .Case("lattice", Key::Lattice)
        .Case("elem", Key::Elem)
        .Case("rows", Key::Rows)
        .Case("row_stride", Key::RowStride)
        .Case("cols", Key::Cols)
        .Case("col_stride", Key::ColStride)
        .Default(Key::Other);
  }
  static const char *keyName(Key K) {
    static const char *Names[] = {"",        "steps", "ops", "src", "dst",
                                  "blocks",  "buf",   "lo",  "hi",  "reduce",
                                  "contrib", "from",  "acc", "lattice",
                                  "elem",    "rows",  "row_stride", "cols",
                                  "col_stride"};
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
                          : JsonDecoder::describe(toJson());
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
  /// The contributor sets of OpBlocks (a block's Contrib indexes this until
  /// finishOp): interned into Steps only when the op is kept, so that a
  /// reader with OnlyRank holds no set of another rank's ops.
  llvm::SmallVector<RankSet, 4> OpContribs;
  /// The lattices of OpBlocks (a lattice block's id indexes this until
  /// finishOp), added to Steps only when the op is kept.
  llvm::SmallVector<Lattice, 4> OpLattices;
  /// One more than the largest end of an op so far (EndRecords).
  uint64_t MaxEnd = 0;
  std::optional<uint64_t> Lo, Hi;
  std::optional<uint32_t> Buf;
  bool Reduce = false, HasContrib = false, HasLattice = false;
  /// The block's lattice (docs/format.md, "Lattice blocks"): elem, rows,
  /// row_stride, cols, col_stride as read.
  std::optional<uint64_t> LatticeField[5];
  /// The block's accumulators (docs/format.md): sender's, receivers' mask.
  unsigned FromAcc = 0, IntoMask = 0;
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
    return JsonDecoder::pointerSegment(F.K == Key::Other || F.C == Ctx::Root ||
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
      return error(path() + ": nested deeper than " + std::to_string(MaxDepth) +
                   " levels");
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
      OpContribs.clear();
      OpLattices.clear();
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
      HasLattice = false;
      for (std::optional<uint64_t> &X : LatticeField)
        X.reset();
      FromAcc = IntoMask = 0;
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
      } else if (P.K == Key::Acc && IsArray) {
        Child = Ctx::AccList;
      } else if (P.K == Key::Lattice) {
        if (IsArray)
          return error(path() + ": expected a lattice object (elem, rows, "
                                "row_stride, cols, col_stride), got an array");
        HasLattice = true;
        Child = Ctx::Lattice;
      } else if (P.K == Key::Buf || P.K == Key::Lo || P.K == Key::Hi ||
                 P.K == Key::Reduce || P.K == Key::From || P.K == Key::Acc) {
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
    case Ctx::AccList:
      return error(path() + ": expected an accumulator (0.." +
                   std::to_string(Block::MaxAcc - 1) + "), got " + What);
    case Ctx::Lattice:
      if (P.K != Key::Other)
        return error(path() + ": expected a non-negative integer, got " + What);
      break;
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
    for (const Block &B : OpBlocks) {
      Digest.block(BufNames[B.Buf], B.Lo, B.Hi, B.Reduce,
                   B.hasContrib() ? &OpContribs[B.Contrib] : nullptr, B.Acc);
      if (B.isLattice()) {
        const Lattice &X = OpLattices[B.latticeId()];
        Digest.lattice(X.Start, X.Elem, X.RowStride, X.Rows, X.ColStride,
                       X.Cols);
      }
    }
    if (OnlyRank && std::max(*Src, *Dst) >= MaxEnd) {
      MaxEnd = std::max(*Src, *Dst) + 1;
      EndRecords.push_back({path(), *Src, *Dst});
    }
    if (OnlyRank && *Src != *OnlyRank && *Dst != *OnlyRank)
      return true;
    if (OnlyRank)
      FileOpIndex.push_back(static_cast<uint32_t>(Stack.back().Index));
    for (Block &B : OpBlocks)
      if (B.hasContrib()) {
        B.Contrib = Steps.addContrib(OpContribs[B.Contrib]);
      } else if (B.isLattice()) {
        Block Kept = Steps.latticeBlock(B.Buf, OpLattices[B.latticeId()]);
        Kept.Reduce = B.Reduce;
        Kept.Acc = B.Acc;
        B = Kept;
      }
    Steps.addOp(static_cast<Rank>(*Src), static_cast<Rank>(*Dst), OpBlocks);
    return true;
  }

  bool finishBlock() {
    if (!Buf)
      return error(path() + ": missing \"buf\"");
    if (!Lo)
      return error(path() + ": missing \"lo\"");
    if (HasLattice)
      return finishLatticeBlock();
    if (!Hi)
      return error(path() + ": missing \"hi\"");
    Block B;
    B.Buf = static_cast<BufferId>(*Buf);
    B.Lo = *Lo;
    B.Hi = *Hi;
    B.Reduce = Reduce;
    B.setAcc(FromAcc, IntoMask ? IntoMask : 1);
    if (HasContrib) {
      B.Contrib = static_cast<uint32_t>(OpContribs.size());
      OpContribs.push_back(Contrib);
    }
    OpBlocks.push_back(B);
    return true;
  }

  /// A block with "lattice": lo is its first byte, and no hi (its bytes
  /// follow from the lattice).
  bool finishLatticeBlock() {
    if (Hi)
      return error(path() + ": a lattice block has no \"hi\" (its bytes "
                            "follow from \"lattice\")");
    if (HasContrib)
      return error(path() + ": a lattice block carries no \"contrib\"");
    static const char *Names[] = {"elem", "rows", "row_stride", "cols",
                                  "col_stride"};
    for (unsigned K = 0; K < 5; ++K)
      if (!LatticeField[K])
        return error(formatv("{0}/lattice: missing \"{1}\"", path(),
                             Names[K]));
    Lattice X;
    X.Start = *Lo;
    X.Elem = *LatticeField[0];
    X.RowStride = *LatticeField[2];
    X.ColStride = *LatticeField[4];
    X.Rows = uint32_t(*LatticeField[1]);
    X.Cols = uint32_t(*LatticeField[3]);
    using U = unsigned __int128;
    if (X.count() && X.Elem &&
        U(X.Start) + U(X.Rows - 1) * X.RowStride +
                U(X.Cols - 1) * X.ColStride + X.Elem >
            U(~uint64_t(0)))
      return error(path() + "/lattice: its last byte is past 2^64");
    Block B;
    B.Buf = static_cast<BufferId>(*Buf);
    B.Lo = X.Start;
    B.Hi = X.end();
    B.Reduce = Reduce;
    B.setAcc(FromAcc, IntoMask ? IntoMask : 1);
    B.Contrib = Block::LatticeBit | uint32_t(OpLattices.size());
    OpLattices.push_back(X);
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
      return error(formatv("{0}: {1} is too large for {2}", path(), Out, What));
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
      } else if (P.K == Key::From || P.K == Key::Acc) {
        if (!expectUnsigned(V, U, Block::MaxAcc - 1, "an accumulator"))
          return false;
        if (P.K == Key::From)
          FromAcc = unsigned(U);
        else
          IntoMask = 1u << U;
      } else if (P.K == Key::Lattice) {
        return error(path() + ": expected a lattice object (elem, rows, "
                              "row_stride, cols, col_stride), got " +
                     V.describe());
      } else if (P.K == Key::Contrib) {
        return error(path() +
                     ": expected an array of [first, end) rank "
                     "intervals, got " +
                     V.describe());
      }
      break;
    case Ctx::Contrib:
      return error(path() + ": expected a [first, end) pair, got " +
                   V.describe());
    case Ctx::AccList:
      if (!expectUnsigned(V, U, Block::MaxAcc - 1, "an accumulator"))
        return false;
      IntoMask |= 1u << U;
      break;
    case Ctx::Lattice:
      if (P.K == Key::Elem || P.K == Key::RowStride ||
          P.K == Key::ColStride) {
        if (!expectUnsigned(V, U, std::numeric_limits<uint64_t>::max(),
                            "a byte count"))
          return false;
      } else if (P.K == Key::Rows || P.K == Key::Cols) {
        if (!expectUnsigned(V, U, std::numeric_limits<uint32_t>::max(),
                            "a count"))
          return false;
      } else {
        break;
      }
      LatticeField[P.K == Key::Elem        ? 0
                   : P.K == Key::Rows      ? 1
                   : P.K == Key::RowStride ? 2
                   : P.K == Key::Cols      ? 3
                                           : 4] = U;
      break;
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

} // namespace

std::optional<Diagnostic> choreo::firstOpOutOfRange(const StreamedSchedule &Sax,
                                                    uint64_t Ranks) {
  for (const StreamedSchedule::EndRecord &R : Sax.EndRecords)
    if (R.Src >= Ranks || R.Dst >= Ranks) {
      bool SrcOut = R.Src >= Ranks;
      return Diagnostic(
          "rank-range",
          formatv("{0}/{1}: rank {2} is out of range (ranks: {3})", R.Pointer,
                  SrcOut ? "src" : "dst", SrcOut ? R.Src : R.Dst, Ranks)
              .str());
    }
  return std::nullopt;
}

StreamedSchedule choreo::streamSchedule(llvm::StringRef Data, FileFormat F,
                                        std::optional<uint64_t> OnlyRank) {
  ScheduleSax Sax;
  Sax.OnlyRank = OnlyRank;
  const char *Begin = Data.data(), *End = Data.data() + Data.size();
  try {
    ojson::sax_parse(Begin, End, &Sax,
                     F == FileFormat::Cbor ? ojson::input_format_t::cbor
                                           : ojson::input_format_t::json);
  } catch (const std::exception &E) {
    Sax.Errors.emplace_back(
        "unreadable", std::string("cannot read the schedule: ") + E.what());
  }
  return std::move(static_cast<StreamedSchedule &>(Sax));
}
