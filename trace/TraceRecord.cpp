//===- trace/TraceRecord.cpp - Reading a trace directory ---------------===//
///
/// \file
/// Parses the `rank-W.events` lines the preload library writes and maps
/// each `rank-W.data`; checks that the files describe one call of one
/// communicator, one record per member.
///
//===----------------------------------------------------------------------===//

#include "trace/TraceRecord.h"

#include "ir/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace choreo;
using namespace choreo::trace;
using llvm::formatv;
using llvm::StringRef;

namespace {

llvm::Error lineError(StringRef Path, size_t Line, const llvm::Twine &Msg) {
  return makeDiagError("trace-record",
                       formatv("{0}:{1}: {2}", Path, Line, Msg.str()).str());
}

/// Reads the fields of one line; errors name the file and line.
class LineReader {
public:
  LineReader(StringRef Path, size_t No, StringRef Line) : Path(Path), No(No) {
    Line.split(Fields, ' ', -1, false);
  }
  size_t size() const { return Fields.size(); }
  StringRef operator[](size_t I) const { return Fields[I]; }
  llvm::Error need(size_t N) const {
    if (Fields.size() < N)
      return error(formatv("'{0}' needs {1} fields", Fields[0], N));
    return llvm::Error::success();
  }
  llvm::Expected<uint64_t> number(size_t I, unsigned Radix = 10) const {
    uint64_t V;
    if (I >= Fields.size() || Fields[I].getAsInteger(Radix, V))
      return error(formatv("field {0} is not a number", I + 1));
    return V;
  }
  llvm::Error error(const llvm::Twine &Msg) const {
    return lineError(Path, No, Msg);
  }

private:
  StringRef Path;
  size_t No;
  llvm::SmallVector<StringRef, 8> Fields;
};

#define TRY(Var, Expr)                                                         \
  auto Var##OrErr = (Expr);                                                    \
  if (!Var##OrErr)                                                             \
    return Var##OrErr.takeError();                                             \
  auto Var = *Var##OrErr;

llvm::Error parseCall(const LineReader &L, CallRecord &C) {
  if (auto E = L.need(5))
    return E;
  C.Collective = L[1].str();
  TRY(Size, L.number(2));
  TRY(Me, L.number(3));
  C.Size = Size;
  C.Me = Me;
  if (L[4] != "-") {
    TRY(Root, L.number(4));
    C.Root = Root;
  }
  if (C.Size == 0 || C.Me >= C.Size || (C.Root && *C.Root >= C.Size))
    return L.error("the call's ranks are out of range");
  return llvm::Error::success();
}

llvm::Error parseLine(const LineReader &L, ProcessRecord &P,
                      std::map<uint32_t, size_t> &RecvIndex) {
  StringRef K = L[0];
  CallRecord &C = P.Call;
  if (K == "process") {
    if (auto E = L.need(3))
      return E;
    TRY(W, L.number(1));
    P.World = W;
    P.Address = L[2].str();
  } else if (K == "ep") {
    if (auto E = L.need(3))
      return E;
    P.EpAddress.push_back(L[2].str());
  } else if (K == "call") {
    return parseCall(L, C);
  } else if (K == "members" || K == "sizes" || K == "slices") {
    std::vector<uint64_t> V;
    for (size_t I = 1; I < L.size(); ++I) {
      TRY(X, L.number(I));
      V.push_back(X);
    }
    if (K == "sizes")
      C.Sizes = V;
    else if (K == "slices")
      C.Slices = V;
    else
      C.Members.assign(V.begin(), V.end());
  } else if (K == "impl") {
    C.Impl = L.size() > 1 ? L[1].str() : "";
  } else if (K == "unit") {
    TRY(U, L.number(1));
    if (U != 1 && U != 2 && U != 4 && U != 8)
      return L.error("the word size must be 1, 2, 4 or 8");
    C.Unit = U;
  } else if (K == "vector") {
    TRY(N, L.number(1));
    C.Vector = N;
  } else if (K == "op") {
    if (auto E = L.need(3))
      return E;
    C.Op = L[1].str();
    TRY(EB, L.number(2));
    C.ElemBytes = EB;
    if (C.Op != "or" && C.Op != "sum" && C.Op != "ordered")
      return L.error("unknown encoding '" + C.Op + "'");
  } else if (K == "refuse") {
    llvm::SmallVector<StringRef, 8> Rest;
    for (size_t I = 1; I < L.size(); ++I)
      Rest.push_back(L[I]);
    P.Refusals.push_back(llvm::join(Rest, " "));
  } else if (K == "S") {
    if (auto E = L.need(6))
      return E;
    SendRecord S;
    TRY(Seq, L.number(1));
    TRY(Ep, L.number(2));
    TRY(Tag, L.number(3, 16));
    TRY(Len, L.number(4));
    S.Seq = Seq;
    S.Ep = Ep;
    S.Tag = Tag;
    S.Len = Len;
    if (L[5] != "-") {
      TRY(Off, L.number(5));
      S.Offset = Off;
    }
    S.Sync = L.size() > 6 && L[6] == "sync";
    P.Sends.push_back(S);
  } else if (K == "P") {
    if (auto E = L.need(6))
      return E;
    RecvRecord R;
    TRY(Seq, L.number(1));
    TRY(Id, L.number(2));
    TRY(Tag, L.number(3, 16));
    TRY(Mask, L.number(4, 16));
    TRY(Cap, L.number(5));
    R.PostSeq = Seq;
    R.Id = Id;
    R.Tag = Tag;
    R.Mask = Mask;
    R.Capacity = Cap;
    R.Packed = L.size() > 6 && L[6] == "packed";
    if (!RecvIndex.emplace(R.Id, P.Recvs.size()).second)
      return L.error(formatv("receive {0} is posted twice", R.Id));
    P.Recvs.push_back(R);
  } else if (K == "C") {
    if (auto E = L.need(7))
      return E;
    TRY(Seq, L.number(1));
    TRY(Id, L.number(2));
    auto It = RecvIndex.find(Id);
    if (It == RecvIndex.end())
      return L.error(formatv("receive {0} completes but was never posted", Id));
    RecvRecord &R = P.Recvs[It->second];
    R.Completed = true;
    R.CompleteSeq = Seq;
    R.Status = L[6].str();
    if (R.Status == "ok") {
      TRY(STag, L.number(3, 16));
      TRY(Len, L.number(4));
      TRY(Hash, L.number(5, 16));
      R.SenderTag = STag;
      R.Len = Len;
      R.Hash = Hash;
    }
  } else if (K == "R") {
    if (auto E = L.need(3))
      return E;
    TRY(Len, L.number(1));
    TRY(Off, L.number(2));
    P.Result = {Len, Off};
  } else if (K == "timing") {
    double A, B;
    if (L.size() < 3 || L[1].getAsDouble(A) || L[2].getAsDouble(B))
      return L.error("'timing' needs two times in seconds");
    P.Timing = {A, B};
  } else if (K != "end" && K != "choreo-trace") {
    return L.error("unknown record '" + K + "'");
  }
  return llvm::Error::success();
}

llvm::Expected<ProcessRecord> readProcess(StringRef EventsPath) {
  auto Buf = llvm::MemoryBuffer::getFile(EventsPath);
  if (!Buf)
    return makeDiagError(
        "trace-record",
        formatv("cannot read {0}: {1}", EventsPath, Buf.getError().message())
            .str());
  ProcessRecord P;
  P.Path = EventsPath.str();
  llvm::SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  if (Lines.empty() || Lines.front() != "choreo-trace 1")
    return lineError(EventsPath, 1, "not a choreo trace record (version 1)");
  if (Lines.back() != "end")
    return lineError(EventsPath, Lines.size(),
                     "the record is cut short (no 'end' line)");
  std::map<uint32_t, size_t> RecvIndex;
  for (size_t I = 0; I < Lines.size(); ++I)
    if (auto E =
            parseLine(LineReader(EventsPath, I + 1, Lines[I]), P, RecvIndex))
      return E;
  if (P.Call.Collective.empty())
    return lineError(EventsPath, 1, "the record has no 'call' line");
  std::string DataPath = (EventsPath.drop_back(7) + ".data").str();
  auto Data = llvm::MemoryBuffer::getFile(DataPath, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!Data)
    return makeDiagError(
        "trace-record",
        formatv("cannot read {0}: {1}", DataPath, Data.getError().message())
            .str());
  P.Data = std::move(*Data);
  uint64_t Have = P.Data->getBufferSize();
  for (const SendRecord &S : P.Sends)
    if (S.Offset && *S.Offset + S.Len > Have)
      return lineError(
          EventsPath, 0,
          formatv("send {0}'s bytes lie past the end of {1}", S.Seq, DataPath));
  if (P.Result && P.Result->first + P.Result->second > Have)
    return lineError(EventsPath, 0, "the result lies past the end of the data");
  return P;
}

/// The fields every member must agree on.
bool sameCall(const CallRecord &A, const CallRecord &B) {
  return A.Collective == B.Collective && A.Size == B.Size && A.Root == B.Root &&
         A.Members == B.Members && A.Impl == B.Impl && A.Sizes == B.Sizes &&
         A.Unit == B.Unit && A.Vector == B.Vector && A.Op == B.Op &&
         A.ElemBytes == B.ElemBytes;
}

} // namespace

llvm::Expected<TraceRecord> choreo::trace::readTraceDir(StringRef Dir) {
  std::error_code EC;
  std::vector<std::string> Files;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.starts_with("rank-") && Name.ends_with(".events"))
      Files.push_back(It->path());
  }
  if (EC)
    return makeDiagError("trace-record", formatv("cannot read the trace "
                                                 "directory {0}: {1}",
                                                 Dir, EC.message())
                                             .str());
  if (Files.empty())
    return makeDiagError(
        "trace-record",
        formatv("{0} holds no record (rank-W.events): did the program make "
                "the traced call, with the preload library loaded?",
                Dir)
            .str());
  std::sort(Files.begin(), Files.end());
  TraceRecord T;
  T.Dir = Dir.str();
  std::vector<std::optional<ProcessRecord>> ByRank;
  std::optional<CallRecord> First;
  for (const std::string &F : Files) {
    auto P = readProcess(F);
    if (!P)
      return P.takeError();
    const CallRecord &C = P->Call;
    if (!First) {
      First = C;
      ByRank.resize(C.Size);
    } else if (!sameCall(C, *First)) {
      return lineError(F, 0, "describes another call than the other records");
    }
    if (C.Members.size() != C.Size)
      return lineError(F, 0, "the members line does not list every rank");
    if (ByRank[C.Me])
      return lineError(F, 0, formatv("rank {0} has two records", C.Me).str());
    ByRank[C.Me] = std::move(*P);
  }
  for (size_t R = 0; R < ByRank.size(); ++R) {
    if (!ByRank[R])
      return makeDiagError(
          "trace-record",
          formatv("{0}: no record of rank {1} (world rank {2}): every member "
                  "of the communicator must make the traced call",
                  Dir, R, First->Members[R])
              .str());
    T.Ranks.push_back(std::move(*ByRank[R]));
  }
  return T;
}
