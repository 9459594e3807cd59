//===- trace/Reconstruct.cpp - From a trace record to a schedule -------===//
///
/// \file
/// The header from the call's record, the messages' contents, the edges
/// the step rule and the port rule draw, the steps, and the ops in them.
/// Findings about results and operand order are in TraceFindings.cpp.
///
//===----------------------------------------------------------------------===//

#include "trace/Reconstruct.h"
#include "trace/Findings.h"
#include "trace/Knowledge.h"
#include "trace/Steps.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::trace;
using llvm::formatv;

namespace {

llvm::Expected<CallHeader> headerOf(const CallRecord &C) {
  CallHeader H;
  std::optional<Collective> K = parseCollective(C.Collective);
  if (!K)
    return makeDiagError("trace-record",
                         "the record is of an unknown collective '" +
                             C.Collective + "'");
  H.Kind = *K;
  if (C.isReduction()) {
    setIntragroup(H, C.Size, {C.Vector});
    if (!C.Slices.empty())
      H.Sizes.push_back({"slices", C.Slices});
    if (C.Op == "ordered")
      H.ReduceOp = ReductionOp{false};
  } else if (specOf(H.Kind).Data == DataKind::Alltoall) {
    if (C.Sizes.size() != uint64_t(C.Size) * C.Size)
      return makeDiagError("trace-record",
                           "the record's sizes are not the ranks x ranks "
                           "matrix an alltoall needs");
    setIntragroup(H, C.Size, {});
    H.Sizes = {{"pairs", C.Sizes}};
  } else {
    if (C.Sizes.empty() ||
        (H.Kind != Collective::Bcast && C.Sizes.size() != C.Size))
      return makeDiagError("trace-record",
                           "the record's sizes do not fit the collective");
    setIntragroup(H, C.Size, C.Sizes);
  }
  H.Root = C.Root;
  return H;
}

std::string describe(const Message &M) {
  return formatv("the message rank {0} sent rank {1} ({2} bytes, tag {3})",
                 M.Src, M.Dst, M.Bytes.size(), tagValue(M.Tag))
      .str();
}

bool overlaps(uint64_t A, uint64_t B, uint64_t C, uint64_t D) {
  return A < D && C < B;
}

/// Whether gather-type message M, sent by a rank that held Init at the
/// start, carries bytes that message R delivered.
bool carriesFrom(const Content &M, const Content &R,
                 const std::optional<Run> &Init) {
  for (const Run &X : M.Runs)
    for (const Run &Y : R.Runs) {
      uint64_t Lo = std::max(X.Lo, Y.Lo), Hi = std::min(X.Hi, Y.Hi);
      if (Lo >= Hi)
        continue;
      if (!Init || Lo < Init->Lo || Hi > Init->Hi)
        return true;
    }
  return false;
}

/// Whether reduction message M's partials include R's contributors over
/// elements both carry.
bool includes(const Content &M, const Content &R) {
  for (const Partial &X : M.Parts)
    for (const Partial &Y : R.Parts)
      if (overlaps(X.Lo, X.Hi, Y.Lo, Y.Hi) && (X.Bits & Y.Bits) == Y.Bits)
        return true;
  return false;
}

class Builder {
public:
  Builder(const TraceRecord &T, const ReconstructOptions &O) : T(T), O(O) {}
  llvm::Expected<Reconstruction> run();

private:
  llvm::Error decodeAll();
  llvm::Error barrierMessages(const std::vector<Message> &All,
                              std::optional<std::vector<uint32_t>> &Step);
  std::vector<std::vector<uint32_t>> predecessors() const;
  void buildSteps(const std::vector<uint32_t> &Step);
  std::optional<Run> initialRun(uint32_t R) const;

  const TraceRecord &T;
  const ReconstructOptions &O;
  Reconstruction Out;
  std::vector<Message> Msgs;
  std::vector<Content> Contents;
  std::vector<std::optional<std::vector<Partial>>> Results;
  std::vector<std::vector<ReductionPiece>> Pieces;
};

std::optional<Run> Builder::initialRun(uint32_t R) const {
  const Schedule &S = Out.S;
  for (const Holding &H : S.spec().initialHoldings(S.header()))
    if (H.R == R)
      return Run{H.Lo, H.Hi};
  return std::nullopt;
}

llvm::Error Builder::decodeAll() {
  const CallRecord &C = T.call();
  uint64_t Total = Out.S.vectorLength();
  if (!C.isReduction()) {
    Total = 0;
    for (uint64_t X : C.Sizes)
      Total += X;
    if (Out.S.Kind == Collective::Bcast)
      Total = C.Sizes.front();
  }
  uint64_t Count = C.isReduction() ? C.Vector / C.ElemBytes : 0;
  for (const Message &M : Msgs) {
    Content X;
    llvm::Error E = llvm::Error::success();
    if (C.isReduction()) {
      auto P = decodeReduction(M.Bytes, *parseEncoding(C.Op), Count);
      if (P)
        X.Parts = std::move(*P);
      else
        E = P.takeError();
    } else {
      auto R = decodeStream(M.Bytes, C.Unit, Total);
      if (R)
        X.Runs = std::move(*R);
      else
        E = R.takeError();
    }
    if (E)
      return makeDiagError(
          "trace-content",
          formatv("{0}: {1}", describe(M), llvm::toString(std::move(E))).str(),
          {"the traced call's buffers hold content tags; a message that is "
           "not made of them was packed or computed from scratch data"});
    Contents.push_back(std::move(X));
  }
  Results.resize(C.Size);
  if (C.isReduction())
    for (uint32_t R = 0; R < C.Size; ++R) {
      const ProcessRecord &P = T.Ranks[R];
      if (!P.Result)
        continue;
      auto Parts = decodeReduction(P.bytes(P.Result->second, P.Result->first),
                                   *parseEncoding(C.Op), Count);
      if (Parts)
        Results[R] = std::move(*Parts);
      else
        llvm::consumeError(Parts.takeError());
    }
  return llvm::Error::success();
}

std::vector<std::vector<uint32_t>> Builder::predecessors() const {
  bool Reduction = T.call().isReduction();
  std::vector<std::vector<uint32_t>> Preds(Msgs.size());
  std::vector<std::vector<uint32_t>> RecvsAt(T.Ranks.size()),
      SendsAt(T.Ranks.size());
  for (uint32_t M = 0; M < Msgs.size(); ++M) {
    RecvsAt[Msgs[M].Dst].push_back(M);
    SendsAt[Msgs[M].Src].push_back(M);
  }
  for (uint32_t M = 0; M < Msgs.size(); ++M) {
    const Message &X = Msgs[M];
    std::optional<Run> Init = initialRun(X.Src);
    for (uint32_t R : RecvsAt[X.Src]) {
      if (Msgs[R].CompleteSeq > X.SendSeq)
        continue;
      bool Needed = O.Steps == StepRule::Time ||
                    (Reduction ? includes(Contents[M], Contents[R])
                               : carriesFrom(Contents[M], Contents[R], Init));
      if (Needed)
        Preds[M].push_back(R);
    }
  }
  if (O.Ports == PortRule::Single)
    for (uint32_t R = 0; R < T.Ranks.size(); ++R) {
      std::vector<uint32_t> S = SendsAt[R], V = RecvsAt[R];
      std::sort(S.begin(), S.end(), [&](uint32_t A, uint32_t B) {
        return Msgs[A].SendSeq < Msgs[B].SendSeq;
      });
      std::sort(V.begin(), V.end(), [&](uint32_t A, uint32_t B) {
        return Msgs[A].PostSeq < Msgs[B].PostSeq;
      });
      for (size_t I = 1; I < S.size(); ++I)
        Preds[S[I]].push_back(S[I - 1]);
      for (size_t I = 1; I < V.size(); ++I)
        Preds[V[I]].push_back(V[I - 1]);
    }
  return Preds;
}

void Builder::buildSteps(const std::vector<uint32_t> &Step) {
  Schedule &S = Out.S;
  bool Reduction = T.call().isReduction();
  uint64_t Elem = T.call().ElemBytes;
  std::vector<uint32_t> Order(Msgs.size());
  for (uint32_t M = 0; M < Msgs.size(); ++M)
    Order[M] = M;
  std::stable_sort(Order.begin(), Order.end(), [&](uint32_t A, uint32_t B) {
    return std::tie(Step[A], Msgs[A].Src) < std::tie(Step[B], Msgs[B].Src);
  });
  uint32_t Last = UINT32_MAX;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> Sends, Recvs;
  for (uint32_t M : Order) {
    // Steps are longest paths: every step up to the last has a message.
    if (Step[M] != Last) {
      S.Steps.newStep();
      Last = Step[M];
    }
    llvm::SmallVector<Block, 4> Blocks;
    if (Reduction) {
      for (const ReductionPiece &P : Pieces[M]) {
        Block B;
        B.Lo = P.Lo * Elem;
        B.Hi = P.Hi * Elem;
        B.Reduce = P.Combine;
        RankSet Set;
        for (unsigned R = 0; R < 64; ++R)
          if (P.Bits >> R & 1)
            Set.insert(R, R + 1);
        B.Contrib = S.Steps.addContrib(Set);
        Blocks.push_back(B);
      }
    } else {
      for (const Run &R : Contents[M].Runs)
        addPiece(Blocks, 0, R.Lo, R.Hi);
    }
    const Message &X = Msgs[M];
    S.Steps.addOp(X.Src, X.Dst, Blocks);
    ++Sends[{Step[M], X.Src}];
    ++Recvs[{Step[M], X.Dst}];
  }
  Ports P;
  for (const auto &[K, N] : Sends)
    P.Send = std::max(P.Send, N);
  for (const auto &[K, N] : Recvs)
    P.Recv = std::max(P.Recv, N);
  S.Port = P;
}

/// A barrier: no message has bytes; each tells its receiver what its
/// sender knew (docs/trace.md, "Barriers"). With --steps data and
/// --ports single the steps come from the port order alone and a message
/// carries what its sender held by its step (Step is set); otherwise it
/// carries all its sender knew when it sent it, and the steps follow.
llvm::Error
Builder::barrierMessages(const std::vector<Message> &All,
                         std::optional<std::vector<uint32_t>> &Step) {
  const CallRecord &C = T.call();
  std::vector<std::vector<Run>> Told;
  std::vector<uint32_t> ByPorts;
  if (O.Steps == StepRule::Data && O.Ports == PortRule::Single) {
    Msgs = All;
    Contents.assign(Msgs.size(), Content());
    auto S = longestPathSteps(predecessors(),
                              [&](uint32_t M) { return describe(Msgs[M]); });
    if (!S)
      return S.takeError();
    ByPorts = std::move(*S);
    Told = barrierKnowledgeByStep(All, C.Size, ByPorts);
    Step.emplace();
  } else {
    Told = barrierKnowledge(All, C.Size);
  }
  Msgs.clear();
  Contents.clear();
  for (uint32_t M = 0; M < All.size(); ++M) {
    Out.Bytes += All[M].Bytes.size();
    if (Told[M].empty()) {
      ++Out.EmptyMessages;
      continue;
    }
    Msgs.push_back(All[M]);
    Contents.push_back({std::move(Told[M]), {}});
    if (Step)
      Step->push_back(ByPorts[M]);
  }
  Out.Messages = All.size();
  Results.resize(C.Size);
  return llvm::Error::success();
}

llvm::Expected<Reconstruction> Builder::run() {
  const CallRecord &C = T.call();
  auto H = headerOf(C);
  if (!H)
    return H.takeError();
  Out.S.header() = *H;
  Out.S.Algorithm = "trace";
  auto All = pairMessages(T);
  if (!All)
    return All.takeError();
  for (const Message &M : *All)
    if (M.Src == M.Dst)
      ++Out.SelfMessages; // a local copy that went through UCX
  llvm::erase_if(*All, [](const Message &M) { return M.Src == M.Dst; });
  std::optional<std::vector<uint32_t>> Step;
  if (Out.S.spec().NoPayload) {
    if (auto E = barrierMessages(*All, Step))
      return E;
  } else {
    for (const Message &M : *All) {
      if (M.Bytes.empty()) {
        ++Out.EmptyMessages;
        continue;
      }
      Out.Bytes += M.Bytes.size();
      Msgs.push_back(M);
    }
    Out.Messages = Msgs.size();
    if (auto E = decodeAll())
      return E;
  }
  std::vector<Diagnostic> Replayed;
  if (C.isReduction())
    Pieces = decideCombines(Msgs, Contents, C.Size, C.Vector / C.ElemBytes,
                            C.ElemBytes, Results, Replayed);
  if (!Step) {
    auto S = longestPathSteps(predecessors(),
                              [&](uint32_t M) { return describe(Msgs[M]); });
    if (!S)
      return S.takeError();
    Step = std::move(*S);
  }
  buildSteps(*Step);
  Out.S.Params.json() = {
      {"impl", C.Impl},
      {"steps", O.Steps == StepRule::Data ? "data" : "time"},
      {"ports", O.Ports == PortRule::Single ? "single" : "observed"},
      {"messages", Out.Messages},
      {"empty_messages", Out.EmptyMessages},
      {"self_messages", Out.SelfMessages}};
  Out.Findings = traceFindings(T, Msgs, Contents, *Step, Out.S);
  Out.Findings.insert(Out.Findings.end(), Replayed.begin(), Replayed.end());
  return std::move(Out);
}

} // namespace

llvm::Expected<Reconstruction>
choreo::trace::reconstruct(const TraceRecord &T, const ReconstructOptions &O) {
  return Builder(T, O).run();
}
