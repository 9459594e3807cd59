//===- verifier/Report.cpp - The wording of property failures -------------===//
///
/// \file
/// Diagnostics of the properties, shared by the explicit and SMT engines.
///
//===----------------------------------------------------------------------===//

#include "verifier/Report.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

std::string report::opNote(const Schedule &S, unsigned St, size_t Index) {
  const Op &O = S.Steps.step(St)[Index];
  return formatv("/steps/{0}/ops/{1}: {2} -> {3} {4}", St, Index, O.Src, O.Dst,
                 S.blocksString(S.Steps.blocks(O)));
}

std::string report::stepNote(llvm::StringRef Note) {
  llvm::StringRef T = Note;
  unsigned Step = 0;
  size_t Index = 0;
  if (!T.consume_front("/steps/") || T.consumeInteger(10, Step) ||
      !T.consume_front("/ops/") || T.consumeInteger(10, Index))
    return Note.str();
  return formatv("step {0}{1}", Step, T);
}

Diagnostic report::topology(const Schedule &S, unsigned St, size_t Index) {
  const Op &O = S.Steps.step(St)[Index];
  return {property::Topology,
          formatv("step {0}: rank {1} sends to rank {2}, which is not a link "
                  "of the {3} topology",
                  St, O.Src, O.Dst, S.Topo.kindName()),
          {opNote(S, St, Index)}};
}

Diagnostic report::sendPort(const Schedule &S, unsigned St, Rank R,
                            unsigned Count, size_t First, size_t Index) {
  return {property::SendPort,
          formatv("step {0}: rank {1} sends {2} messages, but ports allow {3} "
                  "per step",
                  St, R, Count, S.Port.Send),
          {opNote(S, St, First), opNote(S, St, Index)}};
}

Diagnostic report::recvPort(const Schedule &S, unsigned St, Rank R,
                            unsigned Count, size_t First, size_t Index) {
  return {property::RecvPort,
          formatv("step {0}: rank {1} receives {2} messages, but ports allow "
                  "{3} per step",
                  St, R, Count, S.Port.Recv),
          {opNote(S, St, First), opNote(S, St, Index)}};
}

Diagnostic report::duplex(const Schedule &S, unsigned St, Rank R, size_t SendOp,
                          size_t RecvOp) {
  return {property::Duplex,
          formatv("step {0}: rank {1} both sends and receives, but ports are "
                  "not duplex",
                  St, R),
          {opNote(S, St, SendOp), opNote(S, St, RecvOp)}};
}

Diagnostic report::availability(const Schedule &S, unsigned St, size_t Index,
                                const Block &B, const IntervalSet &Missing) {
  const Op &O = S.Steps.step(St)[Index];
  std::string What = S.blockString(B);
  std::string Msg =
      Missing.cardinality() == S.Steps.bytes(B)
          ? formatv("step {0}: rank {1} sends {2} before holding it", St, O.Src,
                    What)
                .str()
          : formatv("step {0}: rank {1} sends {2} before holding {3} of it", St,
                    O.Src, What, Missing.str(S.spec().bufferName(B.Buf)))
                .str();
  return {property::Availability, Msg, {opNote(S, St, Index)}};
}

Diagnostic report::partialAvailability(const Schedule &S, unsigned St,
                                       size_t Index, Rank Src, BufferId Buf,
                                       uint64_t Lo, uint64_t Hi,
                                       const RankSet &Want,
                                       const RankSet &Held) {
  return {property::Availability,
          formatv("step {0}: rank {1} sends {2}[{3},{4}) with contributors "
                  "{5}, but holds it with contributors {6}",
                  St, Src, S.spec().bufferName(Buf), Lo, Hi,
                  rankSetString(Want), rankSetString(Held)),
          {opNote(S, St, Index)}};
}

Diagnostic report::exactlyOnce(const Schedule &S, unsigned St, Rank Dst,
                               BufferId Buf, uint64_t Lo, uint64_t Hi,
                               const RankSet &Twice, const RankSet &Held) {
  std::string Name = S.spec().bufferName(Buf);
  return {property::ExactlyOnce,
          formatv("step {0}: rank {1} combines the contributions of ranks {2} "
                  "into {3}[{4},{5}) a second time",
                  St, Dst, rankSetString(Twice), Name, Lo, Hi),
          {formatv("rank {0} already held {3}[{1},{2}) with contributors {4}",
                   Dst, Lo, Hi, Name, rankSetString(Held))}};
}

Diagnostic report::nodePort(const Schedule &S, bool Send, unsigned St,
                            uint32_t Node, unsigned Count,
                            std::vector<std::string> Notes) {
  if (Send)
    return {property::NodeSendPort,
            formatv("step {0}: node {1} (ranks {2}) sends {3} messages "
                    "off-node, but node_ports allow {4} per step",
                    St, Node, S.nodeRanksString(Node), Count,
                    S.nodePorts().Send),
            std::move(Notes)};
  return {property::NodeRecvPort,
          formatv("step {0}: node {1} (ranks {2}) receives {3} messages "
                  "from other nodes, but node_ports allow {4} per step",
                  St, Node, S.nodeRanksString(Node), Count, S.nodePorts().Recv),
          std::move(Notes)};
}

Diagnostic report::nodeSendPort(const Schedule &S, unsigned St, uint32_t Node,
                                unsigned Count, size_t First, size_t Index) {
  return nodePort(S, true, St, Node, Count,
                  {opNote(S, St, First), opNote(S, St, Index)});
}

Diagnostic report::nodeRecvPort(const Schedule &S, unsigned St, uint32_t Node,
                                unsigned Count, size_t First, size_t Index) {
  return nodePort(S, false, St, Node, Count,
                  {opNote(S, St, First), opNote(S, St, Index)});
}

bool report::keepsRankOrder(const RankSet &In, const RankSet &Held) {
  if (In.numIntervals() != 1 || Held.numIntervals() != 1)
    return false;
  const Interval &A = In.intervals()[0], &B = Held.intervals()[0];
  return A.Hi == B.Lo || B.Hi == A.Lo;
}

Diagnostic report::operandOrder(const Schedule &S, unsigned St, size_t Index,
                                Rank Dst, BufferId Buf, uint64_t Lo,
                                uint64_t Hi, const RankSet &In,
                                const RankSet &Held) {
  std::string Why;
  if (In.numIntervals() != 1 || Held.numIntervals() != 1) {
    Why = formatv("{0} is not one rank interval",
                  rankSetString(In.numIntervals() != 1 ? In : Held));
  } else if (In.intersects(Held)) {
    const Interval &A = In.intervals()[0];
    Why = formatv("they overlap in {0}",
                  rankSetString(Held.clippedTo(A.Lo, A.Hi)));
  } else {
    Interval Lower = In.intervals()[0], Upper = Held.intervals()[0];
    if (Upper.Lo < Lower.Lo)
      std::swap(Lower, Upper);
    Why = Lower.Lo == 0 && Upper.Hi == S.NumRanks
              ? formatv("they meet only across the wrap from rank {0} to "
                        "rank 0",
                        S.NumRanks - 1)
                    .str()
              : formatv("ranks {0} lie between them",
                        rankSetString(RankSet(Lower.Hi, Upper.Lo)))
                    .str();
  }
  return {property::OperandOrder,
          formatv("step {0}: rank {1} combines {2}[{3},{4}) with contributors "
                  "{5} into its partial of {6}, but the operator is not "
                  "commutative and {7}",
                  St, Dst, S.spec().bufferName(Buf), Lo, Hi, rankSetString(In),
                  rankSetString(Held), Why),
          {opNote(S, St, Index)}};
}

Diagnostic report::completeness(const Schedule &S, Rank R,
                                const std::string &Lack, size_t Incomplete) {
  unsigned N = S.Steps.numSteps();
  std::string When =
      N == 0 ? std::string("with no steps")
             : formatv("after the last step (step {0})", N - 1).str();
  Diagnostic D(property::Completeness,
               formatv("{0}: rank {1} {2}", When, R, Lack), {S.spec().Rule});
  if (Incomplete > 1)
    D.Notes.push_back(formatv("{0} more ranks are incomplete", Incomplete - 1));
  return D;
}

std::string report::lackOfBytes(const Schedule &S, BufferId Buf,
                                const IntervalSet &Missing) {
  return "lacks " + Missing.str(S.spec().bufferName(Buf));
}

std::string report::lackOfContributors(const Schedule &S, Rank R, BufferId Buf,
                                       uint64_t Lo, uint64_t Hi,
                                       const RankSet &Held) {
  IntervalSet Want = S.spec().contributorsOf(S, R), Missing = Want;
  for (const Interval &I : Held.intervals())
    Missing.erase(I.Lo, I.Hi);
  if (Missing.empty()) // more than wanted: a scan's later ranks, or an
                       // intergroup result holding its own group's
    return formatv(S.spec().Intergroup
                       ? "{0}[{1},{2}) combines {3}, not {4} (the other group)"
                       : "{0}[{1},{2}) combines {3}, more than {4}",
                   S.spec().bufferName(Buf), Lo, Hi, rankSetString(Held),
                   rankSetString(Want));
  return formatv("{0}[{1},{2}) combines only {3} (missing {4})",
                 S.spec().bufferName(Buf), Lo, Hi, rankSetString(Held),
                 rankSetString(Missing));
}
