//===- executor/Pipeline.cpp - Prove once, agree, project -----------------===//
///
/// \file
/// The stages of executor/Pipeline.h: who proves, acquiring by reading or
/// building, the proof or the cached verdict, the two digest agreements
/// (a schedule as read, a rank's own build), and Plan::createFromFile.
///
//===----------------------------------------------------------------------===//

#include "executor/Pipeline.h"

#include "executor/Plan.h"
#include "ir/BoundedFile.h"
#include "ir/ScheduleIO.h"
#include "verifier/Verifier.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <new>
#include <unistd.h>

using namespace choreo;
using llvm::formatv;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Who proves, and which schedule rank this process plays by the format's
/// convention (rank r; on an intercommunicator A = 0..p-1, B = p..p+q-1).
struct Roles {
  bool Inter = false, InA = true, Prover = false;
  int LocalRank = 0;
  Rank Guess = 0;
};

Roles rolesOf(MPI_Comm Comm) {
  Roles R;
  int IsInter = 0;
  MPI_Comm_test_inter(Comm, &IsInter);
  MPI_Comm_rank(Comm, &R.LocalRank);
  R.Inter = IsInter;
  R.Prover = R.LocalRank == 0;
  R.Guess = R.LocalRank;
  if (R.Inter) {
    R.InA = inLowGroup(Comm).value_or(true);
    int RemoteSize = 0;
    MPI_Comm_remote_size(Comm, &RemoteSize);
    R.Prover = R.LocalRank == 0 && R.InA;
    R.Guess = R.InA ? R.LocalRank : RemoteSize + R.LocalRank;
  }
  return R;
}

std::string verdictPath(const VerdictCache &C, const std::string &Digest) {
  llvm::SmallString<256> P(C.Dir);
  llvm::sys::path::append(P, Digest + ".proved");
  return std::string(P);
}

/// Stage 2 on the prover: "" when S is proved (How says how: by the cache,
/// or by proving it now), else why it is not run.
std::string prove(const Schedule &S, VerdictCache *Cache, std::string &How) {
  std::string Digest;
  if (Cache) {
    Digest = scheduleDigest(S).hex();
    if (Cache->Proved.count(Digest))
      return "";
    if (!Cache->Dir.empty() &&
        llvm::sys::fs::exists(verdictPath(*Cache, Digest))) {
      How = "proof cached in CHOREO_CACHE_DIR";
      Cache->Proved.insert(Digest);
      return "";
    }
  }
  double T0 = now();
  VerifyResult R = checkExplicit(S);
  if (!R.proved()) {
    std::string Diags;
    llvm::raw_string_ostream OS(Diags);
    printDiagnostics(OS, R.Diags);
    return "the schedule does not verify; it is not run:\n" +
           llvm::StringRef(Diags).rtrim().str();
  }
  How = formatv("proved ({0} ops, {1:f2} ms)", S.Steps.numOps(),
                (now() - T0) * 1e3);
  if (!Cache)
    return "";
  Cache->Proved.insert(Digest);
  if (!Cache->Dir.empty()) {
    std::string Tmp =
        verdictPath(*Cache, Digest) + ".tmp" + std::to_string(::getpid());
    std::error_code EC;
    {
      llvm::raw_fd_ostream OS(Tmp, EC);
      if (!EC)
        OS << "proved " << S.Algorithm << " " << S.Steps.numOps()
           << " ops by the explicit engine\n";
    }
    if (!EC)
      llvm::sys::fs::rename(Tmp, verdictPath(*Cache, Digest));
  }
  return "";
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
  MPI_Bcast(&Len, 1, MPI_UNSIGNED_LONG_LONG, 0, Comm);
  if (Me != 0)
    Data.Received.resize(Len);
  constexpr unsigned long long Chunk = 1ull << 30;
  for (unsigned long long Off = 0; Off < Len; Off += Chunk)
    MPI_Bcast(const_cast<char *>(Data.bytes().data()) + Off,
              int(std::min(Chunk, Len - Off)), MPI_CHAR, 0, Comm);
  return llvm::Error::success();
}

/// Stages 1 and 2 of a file on this rank: the prover reads it whole and
/// proves it, every other rank reads its own ops (4, projected while
/// reading). Stdin is the bytes of `-` (readStdinOnce), when read already.
llvm::Expected<Schedule> readPart(const std::string &Path, const Roles &R,
                                  const StdinBytes *Stdin, VerdictCache *Cache,
                                  std::string &How) {
  ReadOptions RO;
  if (!R.Prover)
    RO.OnlyRank = R.Guess;
  auto Read = [&](const ReadOptions &O) {
    return Stdin ? parseSchedule(Stdin->bytes(), O) : readScheduleFile(Path, O);
  };
  auto S = Read(RO);
  if (!S)
    return S.takeError();
  if (R.Prover) {
    std::string Bad = prove(*S, Cache, How);
    if (Bad.empty())
      return S;
    return makeDiagError("executor", Bad);
  }
  // The schedule rank this process plays (as Plan::create maps it): member
  // LocalRank of its group on an intercommunicator. Groups that break the
  // convention (in any order, either group) make the guess wrong: read
  // again, whole.
  if (R.Inter) {
    const Group *Mine = S->group(R.InA ? "A" : "B");
    if (!Mine || size_t(R.LocalRank) >= Mine->Members.size() ||
        Mine->Members[R.LocalRank] != R.Guess)
      return Read(ReadOptions());
  }
  return S;
}

/// The pipeline of a file: read and prove (1, 2, 4), then agree on every
/// rank's problem and on the schedule as read (3).
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
  double T0 = now();
  try {
    auto S = readPart(Path, R, FromStdin ? &Stdin : nullptr, Cache, Out.How);
    if (!S) {
      Err = llvm::toString(S.takeError());
      if (Err.empty())
        Err = "the schedule could not be read";
    } else {
      Got = std::move(*S);
    }
  } catch (const std::bad_alloc &) {
    Err = formatv("rank {0}: out of memory reading and proving {1}",
                  R.LocalRank, Path == "-" ? "standard input" : Path);
  }
  Out.AcquireSeconds = now() - T0;
  if (auto E = agreeAcross(Comm, Err))
    return E;
  // Every rank read a schedule: the same one? (Different files with the
  // same header and step count would hang in the first step.)
  if (auto E = agreeOnFingerprint(Comm, sharedDigest(*Got),
                                  formatv("a different schedule ({0})",
                                          Path == "-" ? "standard input" : Path)
                                      .str()))
    return E;
  Out.S = std::move(*Got);
  return Out;
}

/// The pipeline of a builder: build (1) and prove on the prover (2), every
/// rank's own ops checked against the per-rank digests of the proved whole
/// and every rank's problem agreed (3), then each rank keeps its ops (4).
llvm::Expected<ProvedSchedule> fromBuild(MPI_Comm Comm, ScheduleSource &Src,
                                         VerdictCache *Cache) {
  int Me, N;
  MPI_Comm_rank(Comm, &Me);
  MPI_Comm_size(Comm, &N);
  bool Prover = Me == 0;
  ProvedSchedule Out;
  std::string LocalErr;
  std::optional<Schedule> S;
  std::vector<uint64_t> Digests;
  double T0 = now();
  try {
    if (Prover && Src.Built) {
      S = std::move(Src.Built);
    } else {
      auto B = Src.Build(Prover ? std::nullopt : std::optional<Rank>(Me));
      if (B)
        S = std::move(*B);
      else
        LocalErr = llvm::toString(B.takeError());
    }
    Out.AcquireSeconds = now() - T0;
    if (Prover && S) {
      LocalErr = prove(*S, Cache, Out.How);
      Digests = rankDigests(*S);
    }
  } catch (const std::bad_alloc &) {
    S.reset();
    LocalErr = "out of memory building and proving the schedule";
  }
  if (Digests.size() != 2 * size_t(N))
    Digests.assign(2 * size_t(N), 0);
  uint64_t Expected[2];
  MPI_Scatter(Digests.data(), 2, MPI_UINT64_T, Expected, 2, MPI_UINT64_T, 0,
              Comm);
  if (S && LocalErr.empty() && !Prover) {
    std::vector<uint64_t> Mine = rankDigests(*S);
    if (Mine.size() < 2 * size_t(Me) + 2 || Mine[2 * Me] != Expected[0] ||
        Mine[2 * Me + 1] != Expected[1])
      LocalErr = "the ops this rank built are not its ops of the schedule "
                 "rank 0 proved";
  }
  if (!LocalErr.empty())
    LocalErr = formatv("rank {0}: {1}", Me, LocalErr);
  if (auto E = agreeOnErrors(Comm, LocalErr))
    return E;
  Out.S = onlyRank(*S, Me);
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
