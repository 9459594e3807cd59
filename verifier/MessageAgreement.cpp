//===- verifier/MessageAgreement.cpp - Both ends see one message ----------===//
///
/// \file
/// The ranks' agreement on their messages: the additive term a job sums in
/// one allreduce, the in-process comparison of every rank's sends with its
/// peers' expects, and, for a pair that disagrees, the first step at which
/// the two parts differ, named in the schedule's words.
///
//===----------------------------------------------------------------------===//

#include "verifier/MessageAgreement.h"
#include "verifier/DistributedCheck.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace choreo;

namespace {

Digest128 pairTerm(Rank Src, Rank Dst, Digest128 D) {
  Hasher H;
  H.mix(uint64_t(Src) << 32 | Dst);
  H.mix(D.H1);
  H.mix(D.H2);
  return H.digest();
}

const PeerDigest *find(llvm::ArrayRef<PeerDigest> L, Rank Peer) {
  auto It =
      std::lower_bound(L.begin(), L.end(), Peer,
                       [](const PeerDigest &P, Rank R) { return P.Peer < R; });
  return It != L.end() && It->Peer == Peer ? &*It : nullptr;
}

std::string textOf(llvm::ArrayRef<PairMessage> Ms, unsigned Step) {
  std::string Out;
  for (const PairMessage &M : Ms)
    if (M.Step == Step)
      Out += (Out.empty() ? "" : "; ") + M.Text;
  return Out.empty() ? "nothing" : Out;
}

} // namespace

std::vector<PairMessage> choreo::pairMessages(const Schedule &S,
                                              llvm::ArrayRef<OpAt> Mine,
                                              Rank Src, Rank Dst) {
  std::vector<PairMessage> Out;
  for (OpAt At : Mine) {
    const Op &O = S.Steps.step(At.Step)[At.Index];
    if (O.Src != Src || O.Dst != Dst)
      continue;
    PairMessage M{At.Step, {}, S.blocksString(S.Steps.blocks(O))};
    for (const Block &B : S.Steps.blocks(O))
      M.Key += llvm::formatv("{0}:{1}:{2}:{3}:{4};", B.Buf, B.Lo, B.Hi,
                             int(B.Reduce),
                             !B.hasContrib() ||
                                     B.Contrib >= S.Steps.numContribs()
                                 ? std::string("-")
                             : S.Steps.subtree(B.Contrib)
                                 ? llvm::formatv("subtree({0},{1})",
                                                 S.Steps.subtree(B.Contrib)->Tree,
                                                 S.Steps.subtree(B.Contrib)->Of)
                                       .str()
                                 : S.Steps.contrib(B.Contrib).str());
    Out.push_back(std::move(M));
  }
  return Out;
}

Diagnostic choreo::describeMismatch(llvm::ArrayRef<PairMessage> Sent,
                                    llvm::ArrayRef<PairMessage> Expected,
                                    Rank Src, Rank Dst, unsigned &Step) {
  // The first step whose messages differ.
  std::map<unsigned, std::pair<std::vector<std::string>,
                               std::vector<std::string>>>
      ByStep;
  for (const PairMessage &M : Sent)
    ByStep[M.Step].first.push_back(M.Key);
  for (const PairMessage &M : Expected)
    ByStep[M.Step].second.push_back(M.Key);
  Step = 0;
  for (const auto &[St, Pair] : ByStep)
    if (Pair.first != Pair.second) {
      Step = St;
      break;
    }
  return Diagnostic(
      property::MessageAgreement,
      llvm::formatv("step {0}: rank {1} sends {2} to rank {3}, but rank {3} "
                    "expects {4}",
                    Step, Src, textOf(Sent, Step), Dst,
                    textOf(Expected, Step)),
      {"both ends of every message must see it alike (blocks, byte ranges, "
       "contributor sets, combine or replace)"});
}

Digest128 choreo::sendsTerm(const LocalResult &R) {
  Digest128 T = R.Own;
  for (const PeerDigest &P : R.Sends) {
    Digest128 X = pairTerm(R.Me, P.Peer, P.D);
    T.H1 += X.H1;
    T.H2 += X.H2;
  }
  return T;
}

Digest128 choreo::agreementTerm(const LocalResult &R) {
  Digest128 T;
  for (const PeerDigest &P : R.Sends) {
    Digest128 X = pairTerm(R.Me, P.Peer, P.D);
    T.H1 += X.H1;
    T.H2 += X.H2;
  }
  for (const PeerDigest &P : R.Expects) {
    Digest128 X = pairTerm(P.Peer, R.Me, P.D);
    T.H1 -= X.H1;
    T.H2 -= X.H2;
  }
  return T;
}

std::vector<DigestMismatch>
choreo::compareDigests(llvm::ArrayRef<LocalResult> Results, size_t &Compared) {
  std::vector<DigestMismatch> Out;
  auto Peer = [&](Rank R) -> const LocalResult * {
    return R < Results.size() ? &Results[R] : nullptr;
  };
  for (const LocalResult &Me : Results) {
    for (const PeerDigest &P : Me.Sends) {
      ++Compared;
      const LocalResult *Other = Peer(P.Peer);
      const PeerDigest *E = Other ? find(Other->Expects, Me.Me) : nullptr;
      if (!E || !(E->D == P.D))
        Out.push_back({Me.Me, P.Peer});
    }
    for (const PeerDigest &P : Me.Expects) {
      const LocalResult *Other = Peer(P.Peer);
      if (!Other || !find(Other->Sends, Me.Me))
        Out.push_back({P.Peer, Me.Me});
    }
  }
  llvm::sort(Out, [](const DigestMismatch &A, const DigestMismatch &B) {
    return std::pair(A.Src, A.Dst) < std::pair(B.Src, B.Dst);
  });
  return Out;
}

Diagnostic choreo::locateMismatch(const RankPart &Sender,
                                  const RankPart &Receiver, Rank Src, Rank Dst,
                                  unsigned &Step) {
  return describeMismatch(pairMessages(*Sender.S, Sender.Mine, Src, Dst),
                          pairMessages(*Receiver.S, Receiver.Mine, Src, Dst),
                          Src, Dst, Step);
}
