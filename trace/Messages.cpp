//===- trace/Messages.cpp - Pairing sends with receives ----------------===//
///
/// \file
/// Endpoints to ranks, receives to the sends they took, and the reasons a
/// record cannot be paired (refusals the processes noted, packed data, a
/// message nobody received, a receive no traced send explains).
///
//===----------------------------------------------------------------------===//

#include "trace/Messages.h"
#include "trace/Encoding.h"

#include "ir/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"

#include <deque>
#include <map>
#include <tuple>

using namespace choreo;
using namespace choreo::trace;
using llvm::formatv;

namespace {

llvm::Error pairError(const llvm::Twine &Msg,
                      std::vector<std::string> Notes = {}) {
  return makeDiagError("trace-match", Msg.str(), std::move(Notes));
}

std::string tagString(uint64_t T) {
  return formatv("context {0}, tag {1}", tagContext(T), tagValue(T)).str();
}

/// Endpoint index -> communicator rank of every process (-1: not a member).
std::vector<std::vector<int>> endpointRanks(const TraceRecord &T) {
  std::vector<std::vector<int>> Out(T.Ranks.size());
  for (size_t R = 0; R < T.Ranks.size(); ++R)
    for (const std::string &A : T.Ranks[R].EpAddress) {
      int Found = -1;
      for (size_t Q = 0; Q < T.Ranks.size() && Found < 0; ++Q) {
        llvm::StringRef Own = T.Ranks[Q].Address;
        // The recorded prefix is as long as the recorder's own address.
        if (!Own.empty() && A != "-" &&
            (Own.starts_with(A) || llvm::StringRef(A).starts_with(Own)))
          Found = int(Q);
      }
      Out[R].push_back(Found);
    }
  return Out;
}

} // namespace

llvm::Expected<std::vector<Message>>
choreo::trace::pairMessages(const TraceRecord &T) {
  uint32_t N = T.Ranks.size();
  for (const ProcessRecord &P : T.Ranks)
    if (!P.Refusals.empty())
      return makeDiagError(
          "trace-refused",
          formatv("rank {0}: {1}", P.Call.Me, P.Refusals.front()).str());
  std::vector<std::vector<int>> EpRank = endpointRanks(T);
  // Sends by (src, dst, tag), in the sender's order.
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, std::deque<Message>>
      Pending;
  for (uint32_t S = 0; S < N; ++S) {
    const ProcessRecord &P = T.Ranks[S];
    for (const SendRecord &X : P.Sends) {
      if (!X.Offset)
        return pairError(
            formatv("rank {0} sent {1} bytes ({2}) of a non-contiguous "
                    "datatype: UCX packs them, their content is not recorded",
                    S, X.Len, tagString(X.Tag)));
      if (X.Ep >= EpRank[S].size() || EpRank[S][X.Ep] < 0)
        return pairError(formatv("rank {0} sent a message ({1}) to a process "
                                 "outside the traced communicator",
                                 S, tagString(X.Tag)));
      if (tagSource(X.Tag) != S)
        return pairError(
            formatv("rank {0} sent a message whose tag names rank {1} as its "
                    "source: not a message of the traced communicator",
                    S, tagSource(X.Tag)));
      Message M;
      M.Src = S;
      M.Dst = uint32_t(EpRank[S][X.Ep]);
      M.Tag = X.Tag;
      M.Bytes = P.bytes(*X.Offset, X.Len);
      M.SendSeq = X.Seq;
      Pending[{M.Src, M.Dst, M.Tag}].push_back(M);
    }
  }
  std::vector<Message> Out;
  for (uint32_t D = 0; D < N; ++D) {
    const ProcessRecord &P = T.Ranks[D];
    std::vector<const RecvRecord *> Recvs;
    for (const RecvRecord &R : P.Recvs)
      Recvs.push_back(&R);
    std::sort(Recvs.begin(), Recvs.end(),
              [](auto *A, auto *B) { return A->PostSeq < B->PostSeq; });
    for (const RecvRecord *R : Recvs) {
      if (R->Packed)
        return pairError(formatv(
            "rank {0} received into a non-contiguous datatype ({1}): UCX "
            "unpacks it, its content is not recorded",
            D, tagString(R->Tag)));
      if (!R->Completed)
        return pairError(formatv("rank {0} posted a receive (from rank {1}, "
                                 "{2}) that did not complete during the call",
                                 D, tagSource(R->Tag), tagString(R->Tag)));
      if (R->Status != "ok")
        return pairError(formatv("rank {0}'s receive ({1}) ended with {2}", D,
                                 tagString(R->Tag), R->Status));
      uint32_t S = tagSource(R->SenderTag);
      if (S >= N)
        return pairError(formatv("rank {0} received a message whose tag names "
                                 "rank {1}, outside the communicator of {2}",
                                 D, S, N));
      auto It = Pending.find({S, D, R->SenderTag});
      if (It == Pending.end() || It->second.empty())
        return pairError(
            formatv("rank {0} received {1} bytes from rank {2} ({3}) that no "
                    "send of rank {2} during the call explains: its match "
                    "cannot be recovered",
                    D, R->Len, S, tagString(R->SenderTag)));
      Message M = It->second.front();
      It->second.pop_front();
      if (M.Bytes.size() != R->Len ||
          hashBytes(M.Bytes.data(), M.Bytes.size()) != R->Hash)
        return pairError(
            formatv("rank {0} received {1} bytes from rank {2} ({3}) that "
                    "differ from the message rank {2} sent it then ({4} "
                    "bytes): the match cannot be recovered",
                    D, R->Len, S, tagString(R->SenderTag), M.Bytes.size()),
            {"a wildcard receive may have taken a message meant for another "
             "receive, or the program changed the bytes while they were "
             "sent"});
      M.PostSeq = R->PostSeq;
      M.CompleteSeq = R->CompleteSeq;
      Out.push_back(M);
    }
  }
  for (const auto &[Key, Q] : Pending)
    if (!Q.empty())
      return pairError(formatv("rank {0} sent {1} bytes to rank {2} ({3}) "
                               "that no receive of the call took",
                               std::get<0>(Key), Q.front().Bytes.size(),
                               std::get<1>(Key), tagString(std::get<2>(Key))));
  std::sort(Out.begin(), Out.end(), [](const Message &A, const Message &B) {
    return std::tie(A.Src, A.SendSeq) < std::tie(B.Src, B.SendSeq);
  });
  return Out;
}
