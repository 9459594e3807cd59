//===- trace/ReductionReplay.cpp - Combined or replaced? --------------===//
///
/// \file
/// decideCombines (trace/Reconstruct.h): what each receiver did with a
/// partial it received, read from the next thing it sent or kept over the
/// same elements. A partition of the vector into runs of one contributor
/// set per rank is replayed receive by receive. A received partial that its
/// receiver forwards as it came while its result still combines it with the
/// receiver's own (a second buffer) is reported: a schedule holds one
/// partial per rank and block.
///
//===----------------------------------------------------------------------===//

#include "trace/Encoding.h"
#include "trace/Reconstruct.h"

#include "ir/IntervalSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace choreo;
using namespace choreo::trace;

namespace {

/// A partition of [0, Count) into runs of one contributor set.
class SetMap {
public:
  SetMap(uint64_t Count, uint64_t Bits) : End(Count) { Runs[0] = Bits; }

  /// The runs over [Lo, Hi), clipped.
  std::vector<ReductionPiece> over(uint64_t Lo, uint64_t Hi) const {
    std::vector<ReductionPiece> Out;
    auto It = Runs.upper_bound(Lo);
    --It;
    for (; It != Runs.end() && It->first < Hi; ++It) {
      uint64_t Next = std::next(It) == Runs.end() ? End : std::next(It)->first;
      Out.push_back(
          {std::max(Lo, It->first), std::min(Hi, Next), It->second, false});
    }
    return Out;
  }

  void assign(uint64_t Lo, uint64_t Hi, uint64_t Bits) {
    // Split at Hi, then at Lo, then drop the runs inside.
    uint64_t After = valueAt(Hi);
    if (Hi < End)
      Runs[Hi] = After;
    Runs.erase(Runs.lower_bound(Lo), Runs.lower_bound(Hi));
    Runs[Lo] = Bits;
  }

private:
  uint64_t valueAt(uint64_t X) const {
    return std::prev(Runs.upper_bound(X))->second;
  }
  std::map<uint64_t, uint64_t> Runs;
  uint64_t End;
};

/// The contributor sets an observation (a list of partials) shows over
/// [Lo, Hi): the pieces it covers, and what it leaves uncovered.
void observe(const std::vector<Partial> &Obs, uint64_t Lo, uint64_t Hi,
             std::vector<Partial> &Covered,
             std::vector<std::pair<uint64_t, uint64_t>> &Left) {
  uint64_t X = Lo;
  std::vector<Partial> Sorted(Obs);
  std::sort(Sorted.begin(), Sorted.end(),
            [](const Partial &A, const Partial &B) { return A.Lo < B.Lo; });
  for (const Partial &P : Sorted) {
    if (P.Hi <= X || P.Lo >= Hi)
      continue;
    if (P.Lo > X)
      Left.push_back({X, P.Lo});
    uint64_t A = std::max(X, P.Lo), B = std::min(Hi, P.Hi);
    Partial C = P;
    C.Lo = A;
    C.Hi = B;
    Covered.push_back(C);
    X = B;
  }
  if (X < Hi)
    Left.push_back({X, Hi});
}

bool superset(uint64_t A, uint64_t B) { return (A & B) == B; }

std::string contributors(uint64_t Bits) {
  IntervalSet S;
  for (unsigned R = 0; R < 64; ++R)
    if (Bits >> R & 1)
      S.insert(R, R + 1);
  return rankSetString(S);
}

/// Whether C (a piece a rank sends) is, as it came, a partial the rank
/// received after At and before Before, other than In.
bool forwardsLater(const std::vector<Message> &Msgs,
                   const std::vector<Content> &Contents,
                   const std::vector<uint32_t> &Recvs, uint64_t At,
                   uint64_t Before, const Partial &C, uint64_t In) {
  if (C.Bits == In)
    return false;
  for (uint32_t R : Recvs) {
    if (Msgs[R].CompleteSeq <= At || Msgs[R].CompleteSeq >= Before)
      continue;
    for (const Partial &P : Contents[R].Parts)
      if (P.Bits == C.Bits && P.Lo <= C.Lo && P.Hi >= C.Hi)
        return true;
  }
  return false;
}

/// Whether Result shows, somewhere in [Lo, Hi), a partial holding Both.
bool resultHolds(const std::optional<std::vector<Partial>> &Result, uint64_t Lo,
                 uint64_t Hi, uint64_t Both) {
  if (!Result)
    return false;
  for (const Partial &P : *Result)
    if (P.Lo < Hi && P.Hi > Lo && superset(P.Bits, Both))
      return true;
  return false;
}

/// Combine or replace a received set In over a held set Held, given what
/// was observed next (none: nothing).
bool combines(uint64_t Held, uint64_t In, const Partial *Obs) {
  uint64_t Both = Held | In;
  if (!(Held & In))
    return !Obs || superset(Obs->Bits, Held);
  // Counting contributors twice is a combination only when what follows
  // shows both sets and the received one alone would not explain it, or
  // the operator saw a contribution twice (sum and ordered encodings).
  return Obs && superset(Obs->Bits, Both) &&
         ((Held & ~In) || (Obs->Flags & FlagOverlap));
}

} // namespace

std::vector<std::vector<ReductionPiece>> choreo::trace::decideCombines(
    const std::vector<Message> &Msgs, const std::vector<Content> &Contents,
    uint32_t Ranks, uint64_t Count, uint64_t ElemBytes,
    const std::vector<std::optional<std::vector<Partial>>> &Results,
    std::vector<Diagnostic> &Findings) {
  std::vector<std::vector<ReductionPiece>> Out(Msgs.size());
  for (uint32_t D = 0; D < Ranks; ++D) {
    std::vector<uint32_t> Recvs, Sends;
    for (uint32_t M = 0; M < Msgs.size(); ++M) {
      if (Msgs[M].Dst == D)
        Recvs.push_back(M);
      if (Msgs[M].Src == D)
        Sends.push_back(M);
    }
    std::sort(Recvs.begin(), Recvs.end(), [&](uint32_t A, uint32_t B) {
      return Msgs[A].CompleteSeq < Msgs[B].CompleteSeq;
    });
    std::sort(Sends.begin(), Sends.end(), [&](uint32_t A, uint32_t B) {
      return Msgs[A].SendSeq < Msgs[B].SendSeq;
    });
    SetMap State(Count, uint64_t(1) << D);
    for (uint32_t R : Recvs) {
      uint64_t At = Msgs[R].CompleteSeq;
      for (const Partial &In : Contents[R].Parts) {
        for (const ReductionPiece &Held : State.over(In.Lo, In.Hi)) {
          // Walk the later sends, then the result, for what follows.
          std::vector<std::pair<uint64_t, uint64_t>> Todo = {
              {Held.Lo, Held.Hi}};
          std::vector<ReductionPiece> Decided;
          for (uint32_t S : Sends) {
            if (Msgs[S].SendSeq < At || Todo.empty())
              continue;
            std::vector<std::pair<uint64_t, uint64_t>> Next;
            for (auto [Lo, Hi] : Todo) {
              std::vector<Partial> Cov;
              observe(Contents[S].Parts, Lo, Hi, Cov, Next);
              for (const Partial &C : Cov) {
                // A forward of a partial received later, as it came, says
                // nothing of this one: look further.
                if (forwardsLater(Msgs, Contents, Recvs, At, Msgs[S].SendSeq, C,
                                  In.Bits)) {
                  Next.push_back({C.Lo, C.Hi});
                  continue;
                }
                bool Combine = combines(Held.Bits, In.Bits, &C);
                // Forwarded as it came, yet combined with the receiver's
                // own partial in its result: two partials at once.
                if (!Combine && C.Bits == In.Bits && !(Held.Bits & In.Bits) &&
                    resultHolds(Results[D], C.Lo, C.Hi, Held.Bits | In.Bits))
                  Findings.push_back(Diagnostic(
                      "trace-second-partial",
                      llvm::formatv(
                          "rank {0} forwards to rank {1} all[{2},{3}) "
                          "with contributors {4}, received from rank {5}, "
                          "as they came, and keeps its own partial {6} of "
                          "them: its result combines both",
                          D, Msgs[S].Dst, C.Lo * ElemBytes, C.Hi * ElemBytes,
                          contributors(In.Bits), Msgs[R].Src,
                          contributors(Held.Bits))
                          .str(),
                      {"the rank holds two partials of these bytes at "
                       "once (a second buffer); a schedule holds one "
                       "partial per rank and block, so it takes the forward "
                       "as replacing the rank's own"}));
                Decided.push_back({C.Lo, C.Hi, In.Bits, Combine});
              }
            }
            Todo = std::move(Next);
          }
          for (auto [Lo, Hi] : Todo) {
            std::vector<Partial> Cov;
            std::vector<std::pair<uint64_t, uint64_t>> Rest;
            if (Results[D])
              observe(*Results[D], Lo, Hi, Cov, Rest);
            else
              Rest.push_back({Lo, Hi});
            for (const Partial &C : Cov)
              Decided.push_back(
                  {C.Lo, C.Hi, In.Bits, combines(Held.Bits, In.Bits, &C)});
            for (auto [A, B] : Rest)
              Decided.push_back(
                  {A, B, In.Bits, combines(Held.Bits, In.Bits, nullptr)});
          }
          for (const ReductionPiece &P : Decided) {
            State.assign(P.Lo, P.Hi,
                         P.Combine ? (Held.Bits | In.Bits) : In.Bits);
            Out[R].push_back(P);
          }
        }
      }
      std::sort(Out[R].begin(), Out[R].end(),
                [](const ReductionPiece &A, const ReductionPiece &B) {
                  return A.Lo < B.Lo;
                });
      // Merge neighbours that agree.
      std::vector<ReductionPiece> Merged;
      for (const ReductionPiece &P : Out[R]) {
        if (!Merged.empty() && Merged.back().Hi == P.Lo &&
            Merged.back().Bits == P.Bits && Merged.back().Combine == P.Combine)
          Merged.back().Hi = P.Hi;
        else
          Merged.push_back(P);
      }
      Out[R] = std::move(Merged);
    }
  }
  return Out;
}
