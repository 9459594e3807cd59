//===- ir/ScheduleWriter.cpp - Streaming writer of format v1 --------------===//
///
/// \file
/// Writes a Schedule as JSON (one op per line, readable and diffable) or as
/// CBOR (definite-length maps and arrays). The header is small and goes
/// through nlohmann; the steps are streamed without building a tree.
///
//===----------------------------------------------------------------------===//

#include "ir/ScheduleIO.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using ojson = nlohmann::ordered_json;

namespace {

/// The members of the document before "steps", in the order of the format.
ojson headerOf(const Schedule &S) {
  ojson H = ojson::object();
  H["format"] = "choreo-schedule";
  H["version"] = 1;
  H["collective"] = collectiveName(S.Kind).str();
  H["algorithm"] = S.Algorithm;
  H["params"] = S.Params.json();
  H["ranks"] = S.NumRanks;
  ojson G = ojson::object();
  for (const Group &Gr : S.Groups)
    G[Gr.Name] = Gr.Members;
  H["groups"] = G;
  ojson Sz = ojson::object();
  for (const NamedSizes &NS : S.Sizes)
    Sz[NS.Name] = NS.Values;
  H["sizes"] = Sz;
  H["root"] = S.Root ? ojson(*S.Root) : ojson(nullptr);
  ojson T = ojson::object();
  T["kind"] = S.Topo.kindName().str();
  if (S.Topo.K == Topology::Kind::Ring && !S.Topo.Order.empty())
    T["order"] = S.Topo.Order;
  if (S.Topo.K == Topology::Kind::Graph) {
    ojson E = ojson::array();
    for (auto [U, V] : S.Topo.Edges)
      E.push_back({U, V});
    T["edges"] = E;
  }
  H["topology"] = T;
  H["ports"] = {{"send", S.Port.Send},
                {"recv", S.Port.Recv},
                {"duplex", S.Port.Duplex}};
  // The optional members, only when the schedule has them.
  if (S.Nodes) {
    ojson N = ojson::array();
    for (const std::vector<Rank> &Node : *S.Nodes)
      N.push_back(Node);
    H["nodes"] = N;
  }
  if (S.NodePort)
    H["node_ports"] = {{"send", S.NodePort->Send}, {"recv", S.NodePort->Recv}};
  if (S.ReduceOp)
    H["op"] = {{"commutative", S.ReduceOp->Commutative}};
  return H;
}

/// Compact JSON with a space after ':' and ','.
void writeCompact(llvm::raw_ostream &OS, const ojson &V) {
  if (V.is_object()) {
    OS << '{';
    bool First = true;
    for (auto It = V.begin(); It != V.end(); ++It) {
      OS << (First ? "" : ", ") << jsonText(ojson(It.key())) << ": ";
      writeCompact(OS, It.value());
      First = false;
    }
    OS << '}';
  } else if (V.is_array()) {
    OS << '[';
    bool First = true;
    for (const ojson &E : V) {
      OS << (First ? "" : ", ");
      writeCompact(OS, E);
      First = false;
    }
    OS << ']';
  } else {
    OS << jsonText(V);
  }
}

void writeJson(const Schedule &S, llvm::raw_ostream &OS) {
  ojson H = headerOf(S);
  OS << "{\n";
  for (auto It = H.begin(); It != H.end(); ++It) {
    OS << "  " << jsonText(ojson(It.key())) << ": ";
    writeCompact(OS, It.value());
    OS << ",\n";
  }
  std::vector<std::string> BufNames;
  for (const Buffer &B : S.buffers())
    BufNames.push_back(jsonText(ojson(B.Name)));
  const StepList &L = S.Steps;
  OS << "  \"steps\": [";
  for (unsigned St = 0; St < L.numSteps(); ++St) {
    OS << (St ? ",\n" : "\n") << "    {\"ops\": [";
    llvm::ArrayRef<Op> Ops = L.step(St);
    for (size_t I = 0; I < Ops.size(); ++I) {
      const Op &O = Ops[I];
      OS << (I ? ",\n" : "\n") << "      {\"src\": " << O.Src
         << ", \"dst\": " << O.Dst << ", \"blocks\": [";
      bool First = true;
      for (const Block &B : L.blocks(O)) {
        OS << (First ? "" : ", ") << "{\"buf\": "
           << (B.Buf < BufNames.size() ? BufNames[B.Buf] : "\"?\"")
           << ", \"lo\": " << B.Lo;
        if (L.validLattice(B)) { // docs/format.md, "Lattice blocks"
          const Lattice &X = L.lattice(B);
          OS << ", \"lattice\": {\"elem\": " << X.Elem
             << ", \"rows\": " << X.Rows << ", \"row_stride\": " << X.RowStride
             << ", \"cols\": " << X.Cols << ", \"col_stride\": " << X.ColStride
             << '}';
        } else {
          OS << ", \"hi\": " << B.Hi;
        }
        if (B.hasContrib()) {
          OS << ", \"contrib\": [";
          bool FirstI = true;
          // A set named by a subtree (a rank part's) is written as ranks.
          RankSet Named;
          if (L.subtree(B.Contrib))
            Named = L.contribRanks(B.Contrib);
          const RankSet &RS =
              L.subtree(B.Contrib) ? Named : L.contrib(B.Contrib);
          for (const Interval &R : RS.intervals()) {
            OS << (FirstI ? "" : ", ") << '[' << R.Lo << ", " << R.Hi << ']';
            FirstI = false;
          }
          OS << ']';
        }
        if (B.Reduce)
          OS << ", \"reduce\": true";
        if (B.fromAcc())
          OS << ", \"from\": " << B.fromAcc();
        if (B.Acc & 15) {
          OS << ", \"acc\": [";
          for (unsigned K = 0, N = 0; K < Block::MaxAcc; ++K)
            if (B.intoMask() >> K & 1)
              OS << (N++ ? ", " : "") << K;
          OS << ']';
        }
        OS << '}';
        First = false;
      }
      OS << "]}";
    }
    OS << (Ops.empty() ? "]}" : "\n    ]}");
  }
  OS << (L.numSteps() ? "\n  ]\n}\n" : "]\n}\n");
}

/// A minimal CBOR encoder (RFC 8949) for the step stream.
class CborOut {
public:
  explicit CborOut(llvm::raw_ostream &OS) : OS(OS) {}
  void head(uint8_t Major, uint64_t V) {
    uint8_t M = Major << 5;
    if (V < 24) {
      OS << char(M | V);
    } else if (V <= 0xff) {
      OS << char(M | 24) << char(V);
    } else if (V <= 0xffff) {
      OS << char(M | 25);
      bigEndian(V, 2);
    } else if (V <= 0xffffffffULL) {
      OS << char(M | 26);
      bigEndian(V, 4);
    } else {
      OS << char(M | 27);
      bigEndian(V, 8);
    }
  }
  void uint(uint64_t V) { head(0, V); }
  void text(llvm::StringRef S) {
    head(3, S.size());
    OS << S;
  }
  void array(uint64_t N) { head(4, N); }
  void map(uint64_t N) { head(5, N); }
  void boolean(bool B) { OS << char(B ? 0xf5 : 0xf4); }
  void json(const ojson &V) {
    std::vector<uint8_t> Bytes = ojson::to_cbor(V);
    OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  }

private:
  llvm::raw_ostream &OS;
  void bigEndian(uint64_t V, unsigned N) {
    for (unsigned I = N; I-- > 0;)
      OS << char((V >> (8 * I)) & 0xff);
  }
};

void writeCbor(const Schedule &S, llvm::raw_ostream &OS) {
  CborOut C(OS);
  ojson H = headerOf(S);
  C.map(H.size() + 1);
  for (auto It = H.begin(); It != H.end(); ++It) {
    C.text(It.key());
    C.json(It.value());
  }
  std::vector<std::string> BufNames;
  for (const Buffer &B : S.buffers())
    BufNames.push_back(B.Name);
  const StepList &L = S.Steps;
  C.text("steps");
  C.array(L.numSteps());
  for (unsigned St = 0; St < L.numSteps(); ++St) {
    llvm::ArrayRef<Op> Ops = L.step(St);
    C.map(1);
    C.text("ops");
    C.array(Ops.size());
    for (const Op &O : Ops) {
      C.map(3);
      C.text("src");
      C.uint(O.Src);
      C.text("dst");
      C.uint(O.Dst);
      C.text("blocks");
      C.array(O.NumBlocks);
      for (const Block &B : L.blocks(O)) {
        C.map(3 + B.hasContrib() + B.Reduce + (B.fromAcc() != 0) +
              ((B.Acc & 15) != 0));
        C.text("buf");
        C.text(B.Buf < BufNames.size() ? BufNames[B.Buf] : "?");
        C.text("lo");
        C.uint(B.Lo);
        if (L.validLattice(B)) { // docs/format.md, "Lattice blocks"
          const Lattice &X = L.lattice(B);
          C.text("lattice");
          C.map(5);
          for (auto [Name, V] :
               {std::pair<const char *, uint64_t>{"elem", X.Elem},
                {"rows", X.Rows},
                {"row_stride", X.RowStride},
                {"cols", X.Cols},
                {"col_stride", X.ColStride}}) {
            C.text(Name);
            C.uint(V);
          }
        } else {
          C.text("hi");
          C.uint(B.Hi);
        }
        if (B.hasContrib()) {
          RankSet Named;
          if (L.subtree(B.Contrib))
            Named = L.contribRanks(B.Contrib);
          const RankSet &RS =
              L.subtree(B.Contrib) ? Named : L.contrib(B.Contrib);
          C.text("contrib");
          C.array(RS.numIntervals());
          for (const Interval &R : RS.intervals()) {
            C.array(2);
            C.uint(R.Lo);
            C.uint(R.Hi);
          }
        }
        if (B.Reduce) {
          C.text("reduce");
          C.boolean(true);
        }
        if (B.fromAcc()) {
          C.text("from");
          C.uint(B.fromAcc());
        }
        if (B.Acc & 15) {
          C.text("acc");
          C.array(llvm::popcount(B.intoMask()));
          for (unsigned K = 0; K < Block::MaxAcc; ++K)
            if (B.intoMask() >> K & 1)
              C.uint(K);
        }
      }
    }
  }
}

} // namespace

void choreo::writeSchedule(const Schedule &S, llvm::raw_ostream &OS,
                           FileFormat F) {
  if (F == FileFormat::Cbor)
    writeCbor(S, OS);
  else
    writeJson(S, OS);
}

llvm::Error choreo::writeScheduleFile(const Schedule &S, llvm::StringRef Path,
                                      FileFormat F) {
  if (Path == "-") {
    writeSchedule(S, llvm::outs(), F);
    llvm::outs().flush();
    return llvm::Error::success();
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC,
                          F == FileFormat::Cbor ? llvm::sys::fs::OF_None
                                                : llvm::sys::fs::OF_Text);
  if (EC)
    return makeDiagError("io", llvm::formatv("cannot write {0}: {1}", Path,
                                             EC.message()));
  writeSchedule(S, OS, F);
  OS.close();
  if (OS.has_error())
    return makeDiagError("io", llvm::formatv("cannot write {0}: {1}", Path,
                                             OS.error().message()));
  return llvm::Error::success();
}
