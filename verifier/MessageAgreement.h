//===- verifier/MessageAgreement.h - Both ends see one message --*- C++ -*-===//
///
/// \file
/// The in-process side of the ranks' agreement on their messages
/// (verifier/DistributedCheck.h): every rank's per-peer send digests
/// matched with its peers' expect digests, and a disagreeing pair located
/// at its first differing step. A job exchanges the same digests instead
/// (agreementTerm, then the per-peer lists).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_MESSAGEAGREEMENT_H
#define CHOREO_VERIFIER_MESSAGEAGREEMENT_H

#include "verifier/DistributedCheck.h"

namespace choreo {

/// A rank's part as a simulation holds it: the schedule holding its ops
/// (the whole, or the rank's own part) and where they are.
struct RankPart {
  const Schedule *S = nullptr;
  std::vector<OpAt> Mine;
};

/// The messages from Src to Dst that the two ends see differently.
struct DigestMismatch {
  Rank Src, Dst;
};

/// Matches every rank's sends with its peer's expects (Results[r].Me ==
/// r); the pairs that disagree, by sender then receiver. Compared counts
/// the digests matched.
std::vector<DigestMismatch> compareDigests(llvm::ArrayRef<LocalResult> Results,
                                           size_t &Compared);

/// One message from Src to Dst as one end sees it: its step, its blocks by
/// value (Key) and in the schedule's words (Text). What a job's ranks send
/// each other to locate a disagreement.
struct PairMessage {
  uint32_t Step = 0;
  std::string Key, Text;
};

/// The messages from Src to Dst among Mine (a rank's ops of S), in order.
std::vector<PairMessage> pairMessages(const Schedule &S,
                                      llvm::ArrayRef<OpAt> Mine, Rank Src,
                                      Rank Dst);

/// "step T: rank S sends X to rank R, but rank R expects Y" for the first
/// step at which Sent and Expected differ (Step is set to it).
Diagnostic describeMismatch(llvm::ArrayRef<PairMessage> Sent,
                            llvm::ArrayRef<PairMessage> Expected, Rank Src,
                            Rank Dst, unsigned &Step);

/// "step T: rank S sends X to rank R, but rank R expects Y": the first
/// step at which Sender's and Receiver's messages from Src to Dst differ
/// (Step is set to it).
Diagnostic locateMismatch(const RankPart &Sender, const RankPart &Receiver,
                          Rank Src, Rank Dst, unsigned &Step);

} // namespace choreo

#endif
