//===- executor/Pipeline.cpp - Acquire parts, agree, prove them -----------===//
///
/// \file
/// The stages of executor/Pipeline.h: which schedule rank a process plays,
/// reading or building its part, the agreement on a schedule as read, the
/// proof of the parts (executor/JobProof.h), and Plan::createFromFile.
///
//===----------------------------------------------------------------------===//

#include "executor/Pipeline.h"

#include "executor/Clock.h"
#include "executor/JobProof.h"
#include "executor/Plan.h"
#include "executor/Yielding.h"
#include "ir/BoundedFile.h"
#include "ir/ScheduleIO.h"
#include "verifier/DistributedCheck.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <new>
#include <unistd.h>

using namespace choreo;
using llvm::formatv;

namespace {

/// Which schedule rank this process plays by the format's convention (rank
/// r; on an intercommunicator A = 0..p-1, B = p..p+q-1).
struct Roles {
  bool Inter = false, InA = true;
  int LocalRank = 0;
  Rank Guess = 0;
};

Roles rolesOf(MPI_Comm Comm) {
  Roles R;
  int IsInter = 0;
  MPI_Comm_test_inter(Comm, &IsInter);
  MPI_Comm_rank(Comm, &R.LocalRank);
  R.Inter = IsInter;
  R.Guess = R.LocalRank;
  if (R.Inter) {
    R.InA = inLowGroup(Comm).value_or(true);
    int RemoteSize = 0;
    MPI_Comm_remote_size(Comm, &RemoteSize);
    R.Guess = R.InA ? R.LocalRank : RemoteSize + R.LocalRank;
  }
  return R;
}

/// "rank 3" or "ranks 0-2, 5": the ranks whose flag is Value.
std::string rankList(const std::vector<bool> &Flags, bool Value) {
  std::string Out;
  unsigned Count = 0;
  for (size_t R = 0; R < Flags.size();) {
    if (Flags[R] != Value) {
      ++R;
      continue;
    }
    size_t End = R;
    while (End + 1 < Flags.size() && Flags[End + 1] == Value)
      ++End;
    Out += (Out.empty() ? "" : ", ") + std::to_string(R);
    if (End > R)
      Out += "-" + std::to_string(End);
    Count += End - R + 1;
    R = End + 1;
  }
  return (Count == 1 ? "rank " : "ranks ") + Out;
}

/// Whether every rank reads the schedule alike: standard input ('-') on
/// all or none (rank 0 reads standard input and sends it to the others,
/// who must wait for it; a rank reading a file meanwhile would not).
/// Collective; the same answer on every rank, naming the ranks.
std::string stdinMismatch(MPI_Comm Comm, bool FromStdin) {
  std::vector<bool> Stdin = gatherFlags(Comm, FromStdin);
  bool Any = false, All = true;
  for (bool B : Stdin) {
    Any |= B;
    All &= B;
  }
  if (!Any || All)
    return "";
  return formatv("{0} given the schedule on standard input ('-') and {1} a "
                 "file; give every rank the same file, or '-' to every rank "
                 "(rank 0 reads it and sends it to the others)",
                 rankList(Stdin, true) +
                     (llvm::count(Stdin, true) == 1 ? " was" : " were"),
                 rankList(Stdin, false));
}

/// The bytes of standard input, as read (rank 0) or received (the others).
struct StdinBytes {
  std::unique_ptr<llvm::MemoryBuffer> Read; ///< rank 0's
  std::string Received;                     ///< every other rank's
  llvm::StringRef bytes() const {
    return Read ? Read->getBuffer() : llvm::StringRef(Received);
  }
};

/// Standard input on an intracommunicator of several ranks: rank 0 reads it
/// (at most MaxScheduleStdinBytes) and broadcasts the bytes (MPI launchers
/// give the other ranks no input, or an input that never ends). Data is
/// empty and the error set on the ranks when rank 0 cannot read it.
llvm::Error readStdinOnce(MPI_Comm Comm, StdinBytes &Data) {
  int Me;
  MPI_Comm_rank(Comm, &Me);
  std::string Err;
  unsigned long long Len = 0;
  if (Me == 0) {
    auto Buf = readBoundedStdin(MaxScheduleStdinBytes, checkScheduleStart);
    if (!Buf)
      Err = llvm::toString(Buf.takeError());
    else
      Data.Read = std::move(*Buf);
    Len = Data.bytes().size();
  }
  if (auto E = agreeOnErrors(Comm, Err))
    return E;
  yielding::bcast(&Len, 1, MPI_UNSIGNED_LONG_LONG, 0, Comm);
  if (Me != 0)
    Data.Received.resize(Len);
  constexpr unsigned long long Chunk = 1ull << 30;
  for (unsigned long long Off = 0; Off < Len; Off += Chunk)
    yielding::bcast(const_cast<char *>(Data.bytes().data()) + Off,
                    int(std::min(Chunk, Len - Off)), MPI_CHAR, 0, Comm);
  return llvm::Error::success();
}

/// Stage 1 of a file on this rank: its own ops (projected while reading),
/// or the whole file when an intercommunicator's groups break the format's
/// convention (then Me is this process's rank by the groups).
llvm::Expected<Schedule> readPart(const std::string &Path, const Roles &R,
                                  const StdinBytes *Stdin, Rank &Me) {
  ReadOptions RO;
  RO.OnlyRank = R.Guess;
  Me = R.Guess;
  auto Read = [&](const ReadOptions &O) {
    return Stdin ? parseSchedule(Stdin->bytes(), O) : readScheduleFile(Path, O);
  };
  auto S = Read(RO);
  if (!S || !R.Inter)
    return S;
  // The schedule rank this process plays (as Plan::create maps it): member
  // LocalRank of its group on an intercommunicator. Groups that break the
  // convention (in any order, either group) make the guess wrong: read
  // again, whole.
  const Group *Mine = S->group(R.InA ? "A" : "B");
  if (Mine && size_t(R.LocalRank) < Mine->Members.size() &&
      Mine->Members[R.LocalRank] == R.Guess)
    return S;
  auto Whole = Read(ReadOptions());
  if (Whole) {
    const Group *G = Whole->group(R.InA ? "A" : "B");
    if (G && size_t(R.LocalRank) < G->Members.size())
      Me = G->Members[R.LocalRank];
  }
  return Whole;
}

/// The proof of parts (stage 2), over an intracommunicator: Comm itself,
/// or an intercommunicator's groups merged (A first), whose ranks tell
/// each other which schedule rank they play.
llvm::Expected<std::string> proveParts(MPI_Comm Comm, const Schedule &Part,
                                       Rank Me, VerdictCache *Cache) {
  int IsInter = 0;
  MPI_Comm_test_inter(Comm, &IsInter);
  if (!IsInter)
    return proveInJob(Comm, Part, Me, {}, Cache);
  std::optional<bool> Low = inLowGroup(Comm);
  if (!Low)
    return makeDiagError("executor", "cannot tell group A from group B: the "
                                     "intercommunicator's groups are not "
                                     "in MPI_COMM_WORLD");
  if (std::string Bad = interMismatch(Part, Comm, *Low); !Bad.empty())
    return makeDiagError("executor", Bad);
  MPI_Comm Merged;
  MPI_Intercomm_merge(Comm, /*high=*/Low && !*Low, &Merged);
  int N;
  MPI_Comm_size(Merged, &N);
  std::vector<Rank> RankOf(N);
  yielding::allgather(&Me, 1, MPI_UINT32_T, RankOf.data(), 1, MPI_UINT32_T,
                      Merged);
  auto How = proveInJob(Merged, Part, Me, RankOf, Cache);
  MPI_Comm_free(&Merged);
  return How;
}

/// The pipeline of a file: every rank reads its own ops (1, 4), agrees on
/// every rank's problem and on the schedule as read (3), and the ranks
/// prove the parts together (2).
llvm::Expected<ProvedSchedule> fromFile(MPI_Comm Comm, const std::string &Path,
                                        VerdictCache *Cache) {
  int IsInter = 0, Size = 1;
  MPI_Comm_test_inter(Comm, &IsInter);
  MPI_Comm_size(Comm, &Size);
  StdinBytes Stdin;
  bool FromStdin = Path == "-" && (IsInter || Size > 1);
  if (IsInter || Size > 1)
    if (std::string Bad = stdinMismatch(Comm, Path == "-"); !Bad.empty())
      return makeDiagError("executor", Bad);
  if (FromStdin && IsInter)
    // Every rank decides this alike, without reading: nobody waits.
    return makeDiagError("executor",
                         "a schedule on standard input ('-') is read on one "
                         "rank and sent to the others over an "
                         "intracommunicator; give an intercommunicator's "
                         "ranks a file");
  if (FromStdin)
    if (auto E = readStdinOnce(Comm, Stdin))
      return E;
  Roles R = rolesOf(Comm);
  ProvedSchedule Out;
  std::string Err;
  std::optional<Schedule> Got;
  Rank Me = R.Guess;
  double T0 = steadySeconds();
  try {
    auto S = readPart(Path, R, FromStdin ? &Stdin : nullptr, Me);
    if (!S) {
      Err = llvm::toString(S.takeError());
      if (Err.empty())
        Err = "the schedule could not be read";
    } else {
      Got = std::move(*S);
    }
  } catch (const std::bad_alloc &) {
    Err = formatv("rank {0}: out of memory reading {1}", R.LocalRank,
                  Path == "-" ? "standard input" : Path);
  }
  Out.AcquireSeconds = steadySeconds() - T0;
  if (auto E = agreeAcross(Comm, Err))
    return E;
  // Every rank read a schedule: the same one? (Different files with the
  // same header and step count would hang in the first step.)
  if (auto E = agreeOnFingerprint(Comm, sharedDigest(*Got),
                                  formatv("a different schedule ({0})",
                                          Path == "-" ? "standard input" : Path)
                                      .str()))
    return E;
  auto How = proveParts(Comm, *Got, Me, Cache);
  if (!How)
    return How.takeError();
  Out.How = *How;
  Out.S = std::move(*Got);
  if (Out.S.Steps.numOps() > opsOf(Out.S, Me).size())
    Out.S = onlyRank(Out.S, Me);
  return Out;
}

/// The pipeline of a builder: every rank builds its own ops (1), every
/// rank's problem is agreed (3), the ranks prove the parts together (2),
/// and each keeps its ops (4).
llvm::Expected<ProvedSchedule> fromBuild(MPI_Comm Comm, ScheduleSource &Src,
                                         VerdictCache *Cache) {
  int Me;
  MPI_Comm_rank(Comm, &Me);
  ProvedSchedule Out;
  std::string LocalErr;
  std::optional<Schedule> S;
  double T0 = steadySeconds();
  try {
    auto B = Src.Build(Rank(Me));
    if (B)
      S = std::move(*B);
    else
      LocalErr = llvm::toString(B.takeError());
  } catch (const std::bad_alloc &) {
    S.reset();
    LocalErr = "out of memory building the schedule";
  }
  Out.AcquireSeconds = steadySeconds() - T0;
  if (!LocalErr.empty())
    LocalErr = formatv("rank {0}: {1}", Me, LocalErr);
  if (auto E = agreeOnErrors(Comm, LocalErr))
    return E;
  auto How = proveInJob(Comm, *S, Rank(Me), {}, Cache);
  if (!How)
    return How.takeError();
  Out.How = *How;
  Out.S = std::move(*S);
  if (Out.S.Steps.numOps() > opsOf(Out.S, Rank(Me)).size())
    Out.S = onlyRank(Out.S, Rank(Me));
  return Out;
}

} // namespace

llvm::Expected<ProvedSchedule>
choreo::proveAndAgree(MPI_Comm Comm, ScheduleSource Src, VerdictCache *Cache) {
  if (Src.Build)
    return fromBuild(Comm, Src, Cache);
  return fromFile(Comm, Src.Path, Cache);
}

llvm::Expected<Schedule> choreo::readProvedSchedule(llvm::StringRef Path,
                                                    MPI_Comm Comm) {
  auto P = proveAndAgree(Comm, ScheduleSource::file(Path));
  if (!P)
    return P.takeError();
  return std::move(P->S);
}

llvm::Expected<std::unique_ptr<Plan>>
Plan::createFromFile(llvm::StringRef Path, MPI_Comm Comm,
                     const UserBuffers &Buffers, const PlanOptions &Opts) {
  auto S = readProvedSchedule(Path, Comm);
  if (!S)
    return S.takeError();
  PlanOptions O = Opts;
  O.Verify = false;
  return create(*S, Comm, Buffers, O);
}
