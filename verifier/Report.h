//===- verifier/Report.h - The wording of property failures -----*- C++ -*-===//
///
/// \file
/// One place for the diagnostics of every property, used by both engines so
/// that they report the same failure in the same words (the differential
/// tests compare them).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_VERIFIER_REPORT_H
#define CHOREO_VERIFIER_REPORT_H

#include "verifier/Verifier.h"

namespace choreo::report {

/// "/steps/3/ops/0: 5 -> 6 A[24,32)".
std::string opNote(const Schedule &S, unsigned St, size_t Index);

/// An opNote that names its op by the step alone ("step 3: 5 -> 6
/// A[24,32)"), for a rank whose op indices are not the whole schedule's.
std::string stepNote(llvm::StringRef Note);

Diagnostic topology(const Schedule &S, unsigned St, size_t Index);
/// Rank R exceeds its send (recv) ports at op Index; First is its first op.
Diagnostic sendPort(const Schedule &S, unsigned St, Rank R, unsigned Count,
                    size_t First, size_t Index);
Diagnostic recvPort(const Schedule &S, unsigned St, Rank R, unsigned Count,
                    size_t First, size_t Index);
Diagnostic duplex(const Schedule &S, unsigned St, Rank R, size_t SendOp,
                  size_t RecvOp);
/// Gather-type: Missing is the part of B the sender does not hold.
Diagnostic availability(const Schedule &S, unsigned St, size_t Index,
                        const Block &B, const IntervalSet &Missing);
/// Reductions: the sender holds [Lo, Hi) with Held, not Want.
Diagnostic partialAvailability(const Schedule &S, unsigned St, size_t Index,
                               Rank Src, BufferId Buf, uint64_t Lo, uint64_t Hi,
                               const RankSet &Want, const RankSet &Held);
Diagnostic exactlyOnce(const Schedule &S, unsigned St, Rank Dst, BufferId Buf,
                       uint64_t Lo, uint64_t Hi, const RankSet &Twice,
                       const RankSet &Held);

/// Node Node exceeds its off-node send (recv) ports at op Index; First is
/// its first off-node op of the step.
Diagnostic nodeSendPort(const Schedule &S, unsigned St, uint32_t Node,
                        unsigned Count, size_t First, size_t Index);
Diagnostic nodeRecvPort(const Schedule &S, unsigned St, uint32_t Node,
                        unsigned Count, size_t First, size_t Index);
/// The same with the notes given: a node's lowest rank in a job holds its
/// own ops only, and the members render theirs (Send: the send ports).
Diagnostic nodePort(const Schedule &S, bool Send, unsigned St, uint32_t Node,
                    unsigned Count, std::vector<std::string> Notes);

/// Non-commutative reductions: combining In into Held keeps rank order when
/// both are one rank interval and one ends where the other begins.
bool keepsRankOrder(const RankSet &In, const RankSet &Held);
/// Op Index of step St combines In into Dst's partial Held over [Lo, Hi)
/// and keepsRankOrder(In, Held) is false.
Diagnostic operandOrder(const Schedule &S, unsigned St, size_t Index, Rank Dst,
                        BufferId Buf, uint64_t Lo, uint64_t Hi,
                        const RankSet &In, const RankSet &Held);

/// Rank R fails the collective's completeness rule (its CollectiveSpec's
/// requirements). Lack: "lacks A[0,4)" or "all[0,8) combines only {0}
/// (missing {1-2})". Incomplete: how many ranks fail in all.
Diagnostic completeness(const Schedule &S, Rank R, const std::string &Lack,
                        size_t Incomplete);
std::string lackOfBytes(const Schedule &S, BufferId Buf,
                        const IntervalSet &Missing);
/// R: whose requirement it is (the set it must combine is the spec's
/// contributorsOf(R): every rank, the other group, a scan's prefix 0..R).
std::string lackOfContributors(const Schedule &S, Rank R, BufferId Buf,
                               uint64_t Lo, uint64_t Hi, const RankSet &Held);

} // namespace choreo::report

#endif
