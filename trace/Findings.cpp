//===- trace/Findings.cpp - Results and operand order ------------------===//
///
/// \file
/// traceFindings (trace/Findings.h): gather-type results against the
/// stream, reduction results against every rank's contribution, and the
/// first partial the ordered operator shows combined out of rank order.
///
//===----------------------------------------------------------------------===//

#include "trace/Findings.h"
#include "trace/Encoding.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace choreo;
using namespace choreo::trace;
using llvm::formatv;

namespace {

std::string setString(uint64_t Bits) {
  IntervalSet S;
  for (unsigned R = 0; R < 64; ++R)
    if (Bits >> R & 1)
      S.insert(R, R + 1);
  return rankSetString(S);
}

std::string block(uint64_t Lo, uint64_t Hi) {
  return formatv("all[{0},{1})", Lo, Hi).str();
}

/// What bytes hold, in words: "all[8,16)" runs, or "no tag".
std::string provenance(llvm::StringRef Bytes, unsigned Unit, uint64_t Total) {
  auto Runs = decodeStream(Bytes, Unit, Total);
  if (!Runs) {
    llvm::consumeError(Runs.takeError());
    return "bytes that are no tag of the call's data";
  }
  std::string Out;
  for (const Run &R : *Runs) {
    if (!Out.empty())
      Out += ' ';
    Out += block(R.Lo, R.Hi);
  }
  return Out;
}

/// The first byte of Got (a rank's receive buffer: its results, one after
/// the other) that is not the stream's, against the ranges Need; the range
/// of buffer `all` it should hold, from the first wrong byte to the last
/// of that range (bytes in between may agree by chance, as the zeros of two
/// words do), and where it lies in Got.
std::optional<std::pair<Run, uint64_t>>
firstWrong(llvm::StringRef Got, const std::vector<Holding> &Need,
           unsigned Unit) {
  uint64_t Pos = 0;
  for (const Holding &N : Need) {
    std::vector<unsigned char> Want(N.Hi - N.Lo);
    fillStream(Unit, N.Lo, Want.size(), Want.data());
    auto At = [&](uint64_t X) {
      return Pos + X < Got.size() && (unsigned char)Got[Pos + X] == Want[X];
    };
    uint64_t X = 0;
    while (X < Want.size() && At(X))
      ++X;
    if (X < Want.size()) {
      uint64_t Y = Want.size();
      while (Y > X + 1 && !(Pos + Y - 1 < Got.size() && !At(Y - 1)))
        --Y;
      return std::make_pair(Run{N.Lo + X, N.Lo + Y}, Pos + X);
    }
    Pos += Want.size();
  }
  return std::nullopt;
}

void gatherResults(const TraceRecord &T, const Schedule &S,
                   std::vector<Diagnostic> &Out) {
  const CallRecord &C = T.call();
  uint64_t Total = S.vectorLength();
  if (S.Kind != Collective::Bcast) {
    Total = 0;
    for (uint64_t X : C.Sizes)
      Total += X;
  }
  for (uint32_t R = 0; R < C.Size; ++R) {
    std::vector<Holding> Need = S.spec().results(S.header(), R);
    const ProcessRecord &P = T.Ranks[R];
    if (Need.empty() || !P.Result)
      continue;
    llvm::StringRef Got = P.bytes(P.Result->second, P.Result->first);
    auto Wrong = firstWrong(Got, Need, C.Unit);
    if (!Wrong)
      continue;
    auto [Range, At] = *Wrong;
    uint64_t End = std::min<uint64_t>(At + Range.Hi - Range.Lo, Got.size());
    Out.push_back(Diagnostic(
        "trace-result",
        formatv("after the call: rank {0}'s result holds {1} at {2}, where "
                "the collective delivers {2}",
                R, provenance(Got.slice(At, End), C.Unit, Total),
                block(Range.Lo, Range.Hi))
            .str(),
        {"the messages may be right and the program placed bytes wrongly: "
         "no message shows a local copy"}));
    return;
  }
}

void reductionResults(const TraceRecord &T, const Schedule &S,
                      std::vector<Diagnostic> &Out) {
  const CallRecord &C = T.call();
  uint64_t Count = C.Vector / C.ElemBytes;
  uint64_t All = C.Size == 64 ? ~uint64_t(0) : (uint64_t(1) << C.Size) - 1;
  for (uint32_t R = 0; R < C.Size; ++R) {
    const ProcessRecord &P = T.Ranks[R];
    if (!S.spec().result(S.header(), R) || !P.Result)
      continue;
    auto Parts = decodeReduction(P.bytes(P.Result->second, P.Result->first),
                                 *parseEncoding(C.Op), Count);
    if (!Parts) {
      Out.push_back(Diagnostic(
          "trace-result",
          formatv("after the call: rank {0}'s result is not the call's data: "
                  "{1}",
                  R, llvm::toString(Parts.takeError()))
              .str()));
      return;
    }
    for (const Partial &X : *Parts) {
      std::string B = block(X.Lo * C.ElemBytes, X.Hi * C.ElemBytes);
      std::string Why;
      if (X.Bits != All)
        Why = formatv("contributors {0}; the collective requires {1}",
                      setString(X.Bits), setString(All));
      else if (!X.InOrder)
        Why = "every contribution, combined out of rank order";
      else if (X.Flags & FlagOverlap)
        Why = "a contribution combined twice";
      if (Why.empty())
        continue;
      Out.push_back(Diagnostic(
          "trace-result",
          formatv("after the call: rank {0} ends with {1} holding {2}", R, B,
                  Why)
              .str()));
      return;
    }
  }
}

/// What rank Src of message M combined into partial X: the in-order
/// partials it received before sending M, and its own contribution.
std::string inputs(const std::vector<Message> &Msgs,
                   const std::vector<Content> &Contents,
                   const std::vector<uint32_t> &Step, uint32_t M,
                   const Partial &X) {
  uint32_t Src = Msgs[M].Src;
  std::string Out;
  for (uint32_t R = 0; R < Msgs.size(); ++R) {
    if (Msgs[R].Dst != Src || Msgs[R].CompleteSeq > Msgs[M].SendSeq)
      continue;
    for (const Partial &Y : Contents[R].Parts)
      if (Y.Lo < X.Hi && X.Lo < Y.Hi && (X.Bits & Y.Bits) == Y.Bits &&
          Y.InOrder) {
        Out += formatv("{0} from rank {1} at step {2}, ", setString(Y.Bits),
                       Msgs[R].Src, Step[R]);
        break;
      }
  }
  if (X.Bits >> Src & 1)
    Out += formatv("and its own {0}", setString(uint64_t(1) << Src));
  return Out;
}

/// The first message (by step) whose partial the operator shows wrong:
/// out of rank order, a contributor twice (ordered and sum encodings),
/// elements of two places.
void operatorMessages(const TraceRecord &T, const std::vector<Message> &Msgs,
                      const std::vector<Content> &Contents,
                      const std::vector<uint32_t> &Step,
                      std::vector<Diagnostic> &Out) {
  const CallRecord &C = T.call();
  std::vector<uint32_t> Order(Msgs.size());
  for (uint32_t M = 0; M < Msgs.size(); ++M)
    Order[M] = M;
  std::stable_sort(Order.begin(), Order.end(), [&](uint32_t A, uint32_t B) {
    return std::tie(Step[A], Msgs[A].Src) < std::tie(Step[B], Msgs[B].Src);
  });
  for (uint32_t M : Order)
    for (const Partial &X : Contents[M].Parts) {
      std::string Why, Note;
      if (X.Flags & FlagMisplaced) {
        Why = "whose operator combined elements of different positions";
        Note = "a rank combined a partial with elements of another place of "
               "the vector";
      } else if (X.Flags & FlagOverlap) {
        Why = "in which a contribution was combined twice";
        Note = formatv("rank {0}, or a rank this partial came from, combined "
                       "a partial with one that shares a contributor",
                       Msgs[M].Src);
      } else if (!X.InOrder) {
        Why = "but its operands were combined out of rank order";
        Note = formatv("the partial's order fingerprint is not the product of "
                       "ranks {0} in rank order: rank {1} combined {2}, the "
                       "upper operand first",
                       setString(X.Bits), Msgs[M].Src,
                       inputs(Msgs, Contents, Step, M, X));
      }
      if (Why.empty())
        continue;
      Out.push_back(Diagnostic(
          "trace-order",
          formatv("step {0}: rank {1} sends {2} with contributors {3}, {4}",
                  Step[M], Msgs[M].Src,
                  block(X.Lo * C.ElemBytes, X.Hi * C.ElemBytes),
                  setString(X.Bits), Why)
              .str(),
          {Note}));
      return;
    }
}

} // namespace

std::vector<Diagnostic> choreo::trace::traceFindings(
    const TraceRecord &T, const std::vector<Message> &Msgs,
    const std::vector<Content> &Contents, const std::vector<uint32_t> &Step,
    const Schedule &S) {
  std::vector<Diagnostic> Out;
  if (T.call().isReduction()) {
    operatorMessages(T, Msgs, Contents, Step, Out);
    reductionResults(T, S, Out);
  } else {
    gatherResults(T, S, Out);
  }
  return Out;
}
