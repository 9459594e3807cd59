//===- executor/JobProof.cpp - The distributed proof in a job -------------===//
///
/// \file
/// proveInJob: the header's agreement, one allreduce of the digest sums,
/// the verdict cache, every rank's local check, the node checks, and on
/// failure the location of disagreeing pairs and the gathering of what the
/// ranks found on rank 0, which merges and broadcasts it.
///
//===----------------------------------------------------------------------===//

#include "executor/JobProof.h"

#include "executor/Agree.h"
#include "executor/Clock.h"
#include "executor/Yielding.h"
#include "verifier/DistributedCheck.h"
#include "verifier/MessageAgreement.h"
#include "verifier/Report.h"
#include "ir/PairMatrix.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <climits>
#include <cstring>
#include <new>
#include <optional>
#include <sched.h>
#include <set>
#include <unistd.h>

using namespace choreo;
using llvm::formatv;

namespace {

//===----------------------------------------------------------------------===//
// What ranks send each other, as bytes
//===----------------------------------------------------------------------===//

class Writer {
public:
  std::string B;
  void u64(uint64_t V) { B.append(reinterpret_cast<const char *>(&V), 8); }
  void str(llvm::StringRef S) {
    u64(S.size());
    B.append(S.data(), S.size());
  }
  void diag(const Diagnostic &D) {
    str(D.Kind);
    str(D.Message);
    u64(D.Notes.size());
    for (const std::string &N : D.Notes)
      str(N);
  }
  void finding(const Finding &F) {
    u64(F.Key.Step);
    u64(F.Key.Ph);
    u64(F.Key.Op);
    u64(F.Key.Sub);
    diag(F.D);
  }
};

/// Reads what a Writer wrote; Ok turns false (and every read yields zero)
/// on bytes that end early.
class Reader {
public:
  explicit Reader(llvm::StringRef B) : B(B) {}
  bool Ok = true;
  uint64_t u64() {
    if (B.size() < 8) {
      Ok = false;
      B = {};
      return 0;
    }
    uint64_t V;
    std::memcpy(&V, B.data(), 8);
    B = B.drop_front(8);
    return V;
  }
  std::string str() {
    uint64_t N = u64();
    if (N > B.size()) {
      Ok = false;
      B = {};
      return {};
    }
    std::string S = B.take_front(N).str();
    B = B.drop_front(N);
    return S;
  }
  Diagnostic diag() {
    Diagnostic D;
    D.Kind = str();
    D.Message = str();
    uint64_t N = u64();
    for (uint64_t I = 0; I < N && Ok; ++I)
      D.Notes.push_back(str());
    return D;
  }
  Finding finding() {
    Finding F;
    F.Key.Step = u64();
    F.Key.Ph = EventKey::Phase(u64());
    F.Key.Op = u64();
    F.Key.Sub = u64();
    F.D = diag();
    return F;
  }
  bool done() const { return B.empty(); }

private:
  llvm::StringRef B;
};

/// Gathers every rank's bytes on rank 0 (empty elsewhere).
std::vector<std::string> gatherBytes(MPI_Comm Comm, const std::string &Mine) {
  int Me, N;
  MPI_Comm_rank(Comm, &Me);
  MPI_Comm_size(Comm, &N);
  int Len = int(std::min<size_t>(Mine.size(), INT_MAX / 2));
  std::vector<int> Lens(Me == 0 ? N : 0), Displs(Me == 0 ? N : 0);
  yielding::gather(&Len, 1, MPI_INT, Lens.data(), 1, MPI_INT, 0, Comm);
  std::string All;
  if (Me == 0) {
    long long Total = 0;
    for (int R = 0; R < N; ++R) {
      Displs[R] = int(std::min<long long>(Total, INT_MAX));
      Total += Lens[R];
    }
    All.resize(size_t(std::min<long long>(Total, INT_MAX)));
  }
  yielding::gatherv(Mine.data(), Len, MPI_CHAR, All.data(), Lens.data(),
                    Displs.data(), MPI_CHAR, 0, Comm);
  std::vector<std::string> Out;
  if (Me == 0)
    for (int R = 0; R < N; ++R)
      Out.push_back(All.substr(Displs[R], Lens[R]));
  return Out;
}

std::string verdictPath(const VerdictCache &C, const std::string &Digest) {
  llvm::SmallString<256> P(C.Dir);
  llvm::sys::path::append(P, Digest + ".proved");
  return std::string(P);
}

void recordVerdict(VerdictCache &C, const std::string &Digest,
                   const Schedule &Part, uint64_t Ops, int Ranks) {
  if (C.Dir.empty())
    return;
  std::string Final = verdictPath(C, Digest);
  std::string Tmp = Final + ".tmp" + std::to_string(::getpid());
  std::error_code EC;
  {
    llvm::raw_fd_ostream OS(Tmp, EC);
    if (!EC)
      OS << "proved " << Part.Algorithm << " " << Ops << " ops by " << Ranks
         << " ranks (the distributed proof)\n";
  }
  if (!EC)
    llvm::sys::fs::rename(Tmp, Final);
}

/// One job's proof, on one rank.
class JobProof {
public:
  JobProof(MPI_Comm Comm, const Schedule &Part, Rank Me,
           llvm::ArrayRef<Rank> RankOf, VerdictCache *Cache)
      : Comm(Comm), Part(Part), Me(Me), Cache(Cache) {
    MPI_Comm_rank(Comm, &CommRank);
    MPI_Comm_size(Comm, &CommSize);
    if (!RankOf.empty()) {
      CommOf.assign(Part.NumRanks, -1);
      for (size_t C = 0; C < RankOf.size(); ++C)
        if (RankOf[C] < Part.NumRanks)
          CommOf[RankOf[C]] = int(C);
    }
  }

  llvm::Expected<std::string> run();

private:
  MPI_Comm Comm;
  const Schedule &Part;
  Rank Me;
  VerdictCache *Cache;
  int CommRank = 0, CommSize = 1;
  /// Schedule rank -> comm rank (empty: the same).
  std::vector<int> CommOf;
  std::vector<OpAt> Mine;

  int commOf(Rank R) const { return CommOf.empty() ? int(R) : CommOf[R]; }

  /// The error of every rank when Ranks ranks ran out of memory Doing
  /// (Counted: Ranks is a count, else only whether any did).
  llvm::Error outOfMemory(uint64_t Ranks, llvm::StringRef Doing,
                          bool Counted = true) const {
    if (!Ranks)
      return llvm::Error::success();
    std::string Who = !Counted     ? "at least one rank"
                      : Ranks == 1 ? "1 rank"
                                   : formatv("{0} ranks", Ranks).str();
    return makeDiagError("executor",
                         formatv("{0} ran out of memory {1} for the proof of "
                                 "the schedule's parts; it is not run",
                                 Who, Doing));
  }

  llvm::Error rowsApart();
  std::vector<Finding> nodeCheck(const HeaderFacts &Facts,
                                 const LocalResult &L);
  std::vector<PairMismatch> locate(const LocalResult &L);
  std::string failure(const HeaderFacts &Facts, LocalResult &L,
                      std::vector<Finding> NodeFindings,
                      std::vector<PairMismatch> Mismatches);
};

std::string diagnosticsText(const VerifyResult &R) {
  std::string Diags;
  llvm::raw_string_ostream OS(Diags);
  printDiagnostics(OS, R.Diags);
  return "the schedule does not verify; it is not run:\n" +
         llvm::StringRef(Diags).rtrim().str();
}

/// Digest128 arithmetic of the agreement terms (each word mod 2^64).
Digest128 jobDigestPlus(Digest128 A, Digest128 B) {
  return {A.H1 + B.H1, A.H2 + B.H2};
}
Digest128 jobDigestMinus(Digest128 A, Digest128 B) {
  return {A.H1 - B.H1, A.H2 - B.H2};
}
/// A rank's row seen as an edge of the chain of rows: "row Index starts at
/// byte At".
Digest128 jobRowEdge(uint64_t Index, uint64_t At) {
  Hasher H;
  H.mix(0x524f57ull); // "ROW"
  H.mix(Index);
  H.mix(At);
  return H.digest();
}

/// This rank's own problems with its header, found before any message:
/// the header's rules, which every rank runs (alike on every rank unless
/// the header holds an alltoallv rank's own row and column), and whether
/// such a part is this rank's. The words of the simulation
/// (checkDistributedViews), which names the rank of a part's own failure.
std::vector<Diagnostic> jobOwnHeaderProblems(const Schedule &Part, Rank Me) {
  std::vector<Diagnostic> D = Part.verifyHeader();
  if (!hasRankSizes(Part))
    return D;
  // (Rank 0's header rules are the ones every rank's header is compared
  // with: the simulation names no part for them.)
  if (Me != 0)
    for (Diagnostic &X : D)
      X.Notes.push_back(formatv("in rank {0}'s part", Me));
  if (D.empty() && PairMatrix(Part).viewRank() != Me)
    D.push_back(Diagnostic(
        "sizes",
        formatv("/sizes/part/0: rank {0} holds the row and column of rank {1}",
                Me, PairMatrix(Part).viewRank()),
        {formatv("in rank {0}'s part", Me).str()}));
  return D;
}

llvm::Expected<std::string> JobProof::run() {
  // The parts must share the header and the step numbering: one allreduce
  // (the minimum of the digest and of its complement), and only when they
  // differ, rank 0's digest compared to name the ranks. The same allreduce
  // tells every rank the first rank whose own header fails its rules (an
  // alltoallv rank's row and column are its own: only that rank can check
  // them), so that every rank refuses with that rank's words and nobody
  // waits for a rank that stopped.
  std::vector<Diagnostic> Own = jobOwnHeaderProblems(Part, Me);
  Digest128 HD = partHeaderDigest(Part);
  // (The fifth word stays below 2^63: MPICH's MPI_MIN of MPI_UINT64_T
  // compares as signed.)
  uint64_t Fp[5] = {HD.H1, HD.H2, ~HD.H1, ~HD.H2,
                    Own.empty() ? uint64_t(INT64_MAX)
                                : uint64_t(Me) << 32 | uint32_t(CommRank)};
  yielding::allreduce(MPI_IN_PLACE, Fp, 5, MPI_UINT64_T, MPI_MIN, Comm);
  if (Fp[0] != ~Fp[2] || Fp[1] != ~Fp[3])
    if (auto E =
            agreeOnFingerprint(Comm, HD, "another call header or step count"))
      return std::move(E);
  if (Fp[4] != uint64_t(INT64_MAX)) {
    int First = int(uint32_t(Fp[4]));
    std::string Text;
    if (First == CommRank) {
      VerifyResult R;
      R.St = VerifyResult::Status::Invalid;
      R.Diags = std::move(Own);
      Text = diagnosticsText(R);
    }
    return makeDiagError("executor", yielding::bcastText(Text, First, Comm));
  }
  // From here every rank decides alike what depends on the header alone.
  if (Part.NumRanks != Rank(CommSize))
    return makeDiagError(
        "executor",
        formatv("the schedule has {0} ranks but the job has {1} processes "
                "(run it with mpiexec -n {0})",
                Part.NumRanks, CommSize));
  double T0 = steadySeconds();
  // The job's digest and the message agreement: one allreduce (with the
  // count of ranks that ran out of memory, so that nobody waits for them).
  // With an alltoallv rank's own row and column, the same allreduce checks
  // that the rows lie one after another in buffer all (the simulation's
  // rule): the sum over the ranks of jobRowEdge(r, where r's row starts) -
  // jobRowEdge(r + 1, where it ends), plus jobRowEdge(p, the length of all) -
  // jobRowEdge(0, 0), is zero iff each row starts where the one before it
  // ends and the last ends at the length of all.
  uint64_t Sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (hasRankSizes(Part)) {
    Interval Row = PairMatrix(Part).row(Me);
    Digest128 T = jobDigestMinus(jobRowEdge(Me, Row.Lo), jobRowEdge(Me + 1, Row.Hi));
    if (CommRank == 0)
      T = jobDigestPlus(T, jobDigestMinus(jobRowEdge(Part.NumRanks,
                                            alltoallLength(Part)),
                                    jobRowEdge(0, 0)));
    Sums[6] = T.H1;
    Sums[7] = T.H2;
  }
  try {
    Mine = opsOf(Part, Me);
    LocalResult Digests = messageDigests(Part, Me, Mine);
    Digest128 Sends = sendsTerm(Digests), Agree = agreementTerm(Digests);
    Sums[0] = Sends.H1;
    Sums[1] = Sends.H2;
    Sums[2] = Agree.H1;
    Sums[3] = Agree.H2;
    for (OpAt At : Mine)
      Sums[4] += Part.Steps.step(At.Step)[At.Index].Src == Me;
  } catch (const std::bad_alloc &) {
    Sums[5] = 1;
  }
  double Local = steadySeconds() - T0;
  yielding::allreduce(MPI_IN_PLACE, Sums, 8, MPI_UINT64_T, MPI_SUM, Comm);
  if (auto E = outOfMemory(Sums[5], "hashing its ops"))
    return std::move(E);
  if (Sums[6] || Sums[7])
    return rowsApart();
  bool Agreed = Sums[2] == 0 && Sums[3] == 0;
  uint64_t TotalOps = Sums[4];
  Hasher JobH;
  JobH.mix(HD.H1);
  JobH.mix(HD.H2);
  JobH.mix(Sums[0]);
  JobH.mix(Sums[1]);
  std::string JobDigest = JobH.digest().hex();
  // A verdict known by digest (rank 0 decides, for everyone).
  int Known = 0;
  if (Cache && CommRank == 0) {
    if (Cache->Proved.count(JobDigest))
      Known = 1;
    else if (!Cache->Dir.empty() &&
             llvm::sys::fs::exists(verdictPath(*Cache, JobDigest)))
      Known = 2;
  }
  if (Cache)
    yielding::bcast(&Known, 1, MPI_INT, 0, Comm);
  if (Known && Agreed) {
    Cache->Proved.insert(JobDigest);
    return Known == 1 ? std::string("proof known in this job")
                      : std::string("proof cached in CHOREO_CACHE_DIR");
  }
  // The local check, the node checks, and whether anything failed.
  std::optional<HeaderFacts> Facts;
  LocalResult L;
  int Oom = 0;
  double T1 = steadySeconds();
  try {
    Facts.emplace(Part);
    L = checkLocal(Part, Me, Mine, *Facts, /*GlobalIndex=*/false);
  } catch (const std::bad_alloc &) {
    Oom = 1;
  }
  Local += steadySeconds() - T1;
  // The node checks need every rank's tables: a rank out of memory stops
  // them before they start.
  if (Part.hasNodes()) {
    yielding::allreduce(MPI_IN_PLACE, &Oom, 1, MPI_INT, MPI_SUM, Comm);
    if (auto E = outOfMemory(Oom, "checking its ops"))
      return std::move(E);
  }
  std::vector<Finding> NodeFindings;
  if (Part.hasNodes())
    NodeFindings = nodeCheck(*Facts, L);
  uint64_t Flags[5] = {!L.Structure.empty(),
                       !L.Findings.empty() || L.Lack || !NodeFindings.empty(),
                       Mine.size(), uint64_t(Local * 1e6), uint64_t(Oom)};
  yielding::allreduce(MPI_IN_PLACE, Flags, 5, MPI_UINT64_T, MPI_MAX, Comm);
  if (auto E = outOfMemory(Flags[4], "checking its ops", /*Counted=*/false))
    return std::move(E);
  std::vector<PairMismatch> Mismatches;
  if (!Agreed && !Flags[0])
    Mismatches = locate(L);
  if (Flags[0] || Flags[1] || !Agreed)
    return makeDiagError("executor", failure(*Facts, L, std::move(NodeFindings),
                                             std::move(Mismatches)));
  if (Cache) {
    Cache->Proved.insert(JobDigest);
    if (CommRank == 0)
      recordVerdict(*Cache, JobDigest, Part, TotalOps, CommSize);
  }
  return formatv("proved by {0} ranks ({1} ops, at most {2} on a rank; "
                 "{3:f2} ms of checking on the slowest)",
                 CommSize, TotalOps, Flags[2], Flags[3] / 1e3)
      .str();
}

/// The rows of alltoallv parts that are not laid out one after another
/// (the sum of their edges is not zero): an exclusive scan of the rows'
/// lengths tells each rank where its row should start; the first rank
/// whose row does not (or the last, whose row does not end at the length
/// of all) says so, in the simulation's words, to every rank.
llvm::Error JobProof::rowsApart() {
  Interval Row = PairMatrix(Part).row(Me);
  uint64_t Len = Row.size(), Before = 0;
  MPI_Request Req;
  PMPI_Iexscan(&Len, &Before, 1, MPI_UINT64_T, MPI_SUM, Comm, &Req);
  yielding::wait(Req);
  if (CommRank == 0)
    Before = 0;
  uint64_t Total = alltoallLength(Part);
  std::string Text;
  uint64_t Where = INT64_MAX; // (below 2^63, as above)
  if (Row.Lo != Before) {
    Where = Me;
    Text = formatv("rank {0}'s row starts at byte {1} of all, but the rows "
                   "before it end at byte {2}",
                   Me, Row.Lo, Before);
  } else if (Me + 1 == Part.NumRanks && Row.Hi != Total) {
    Where = Part.NumRanks;
    Text = formatv("the ranks' rows end at byte {0} of all, but all has {1} "
                   "bytes",
                   Row.Hi, Total);
  }
  uint64_t First = Where == uint64_t(INT64_MAX)
                       ? Where
                       : Where << 32 | uint32_t(CommRank);
  yielding::allreduce(MPI_IN_PLACE, &First, 1, MPI_UINT64_T, MPI_MIN, Comm);
  if (First == uint64_t(INT64_MAX)) // a collision of the edges' sums: say so
    Text = "the ranks' rows are not laid out one after another in buffer all";
  else
    Text = yielding::bcastText(Text, int(uint32_t(First)), Comm);
  VerifyResult V;
  V.St = VerifyResult::Status::Failed;
  V.Diags.push_back(Diagnostic(
      property::MessageAgreement, Text,
      {"the blocks of all are every rank's row, in rank order"}));
  return makeDiagError("executor", diagnosticsText(V));
}

/// The node check: every rank of a node sends its off-node ops to the
/// node's lowest rank, which counts them per step; the ranks whose ops a
/// failure names render them for the note.
std::vector<Finding> JobProof::nodeCheck(const HeaderFacts &Facts,
                                         const LocalResult &L) {
  MPI_Comm Node;
  MPI_Comm_split(Comm, int(Facts.nodeOf(Me)), int(Me), &Node);
  int NodeRank, NodeSize;
  MPI_Comm_rank(Node, &NodeRank);
  MPI_Comm_size(Node, &NodeSize);
  Writer W;
  W.u64(Me);
  W.u64(L.OffNode.size());
  for (const OffNodeOp &O : L.OffNode) {
    W.u64(O.Step);
    W.u64(O.Index);
    W.u64(O.Send);
  }
  std::vector<std::string> Got = gatherBytes(Node, W.B);
  // The leader's failures, sent back to the members.
  std::vector<NodePortFailure> Failures;
  Writer FW;
  if (NodeRank == 0) {
    std::vector<std::vector<OffNodeOp>> Ops(Got.size());
    std::vector<MemberOffNode> Members;
    for (size_t K = 0; K < Got.size(); ++K) {
      Reader R(Got[K]);
      Rank Who = Rank(R.u64());
      uint64_t N = R.u64();
      for (uint64_t I = 0; I < N && R.Ok; ++I) {
        OffNodeOp O;
        O.Step = uint32_t(R.u64());
        O.Index = uint32_t(R.u64());
        O.Send = R.u64();
        Ops[K].push_back(O);
      }
      Members.push_back({Who, Ops[K]});
    }
    Failures = checkNodePorts(Part, Facts.nodeOf(Me), Members);
    FW.u64(Failures.size());
    for (const NodePortFailure &F : Failures) {
      FW.u64(llvm::StringRef(F.Kind) == property::NodeSendPort);
      for (uint64_t V : {uint64_t(F.Node), uint64_t(F.Step), uint64_t(F.Count),
                         uint64_t(F.FirstRank), uint64_t(F.AtRank),
                         uint64_t(F.First.Index), uint64_t(F.At.Index)})
        FW.u64(V);
    }
  }
  std::string Back = yielding::bcastText(FW.B, 0, Node);
  Reader R(Back);
  uint64_t N = R.u64();
  struct Failure {
    bool Send;
    uint64_t Node, Step, Count, FirstRank, AtRank, FirstIndex, AtIndex;
  };
  std::vector<Failure> Fs;
  for (uint64_t I = 0; I < N && R.Ok; ++I) {
    Failure F;
    F.Send = R.u64();
    F.Node = R.u64();
    F.Step = R.u64();
    F.Count = R.u64();
    F.FirstRank = R.u64();
    F.AtRank = R.u64();
    F.FirstIndex = R.u64();
    F.AtIndex = R.u64();
    Fs.push_back(F);
  }
  // Each member renders the notes of its own ops; the leader assembles.
  Writer NW;
  for (const Failure &F : Fs)
    for (auto [Who, Index] :
         {std::pair(F.FirstRank, F.FirstIndex), std::pair(F.AtRank, F.AtIndex)})
      NW.str(Who == Me && F.Step < Part.Steps.numSteps() &&
                     Index < Part.Steps.step(F.Step).size()
                 ? report::stepNote(report::opNote(Part, F.Step, Index))
                 : std::string());
  std::vector<std::string> Notes = gatherBytes(Node, NW.B);
  MPI_Comm_free(&Node);
  std::vector<Finding> Out;
  if (NodeRank != 0)
    return Out;
  std::vector<Reader> Rs;
  for (const std::string &B : Notes)
    Rs.emplace_back(B);
  for (const Failure &F : Fs) {
    std::string Note[2];
    for (Reader &X : Rs)
      for (std::string &S : Note)
        if (std::string T = X.str(); !T.empty())
          S = T;
    Diagnostic D =
        report::nodePort(Part, F.Send, unsigned(F.Step), uint32_t(F.Node),
                         unsigned(F.Count), {Note[0], Note[1]});
    Out.push_back(
        {{uint32_t(F.Step), EventKey::Ops, F.AtIndex, F.Send ? 4u : 5u},
         std::move(D)});
  }
  return Out;
}

/// The pairs whose ends see a message differently: every rank sends each
/// peer it sends to its messages to that peer; each receiver compares them
/// with what it expects (nothing, when the sender sent it nothing).
std::vector<PairMismatch> JobProof::locate(const LocalResult &L) {
  MPI_Comm X;
  MPI_Comm_dup(Comm, &X);
  std::vector<int> To(CommSize, 0);
  std::vector<std::string> Out;
  std::vector<int> OutPeer;
  for (const PeerDigest &P : L.Sends) {
    if (P.Peer >= Part.NumRanks || commOf(P.Peer) < 0)
      continue;
    Writer W;
    std::vector<PairMessage> Ms = pairMessages(Part, Mine, Me, P.Peer);
    W.u64(Me);
    W.u64(Ms.size());
    for (const PairMessage &M : Ms) {
      W.u64(M.Step);
      W.str(M.Key);
      W.str(M.Text);
    }
    To[commOf(P.Peer)] = 1;
    Out.push_back(std::move(W.B));
    OutPeer.push_back(commOf(P.Peer));
  }
  int Incoming = 0;
  yielding::reduceScatterBlock(To.data(), &Incoming, 1, MPI_INT, MPI_SUM, X);
  std::vector<MPI_Request> Reqs(Out.size());
  for (size_t I = 0; I < Out.size(); ++I)
    MPI_Isend(Out[I].data(), int(Out[I].size()), MPI_CHAR, OutPeer[I], 1, X,
              &Reqs[I]);
  std::vector<PairMismatch> Found;
  std::set<Rank> Heard;
  auto Compare = [&](Rank Src, const std::vector<PairMessage> &Sent) {
    std::vector<PairMessage> Expected = pairMessages(Part, Mine, Src, Me);
    bool Same = Sent.size() == Expected.size();
    for (size_t I = 0; Same && I < Sent.size(); ++I)
      Same = Sent[I].Step == Expected[I].Step && Sent[I].Key == Expected[I].Key;
    if (Same)
      return;
    unsigned Step = 0;
    Diagnostic D = describeMismatch(Sent, Expected, Src, Me, Step);
    Found.push_back({Step, Src, Me, std::move(D)});
  };
  for (int I = 0; I < Incoming; ++I) {
    MPI_Status St;
    for (int Flag = 0; !Flag;) {
      MPI_Iprobe(MPI_ANY_SOURCE, 1, X, &Flag, &St);
      if (!Flag)
        sched_yield();
    }
    int Len = 0;
    MPI_Get_count(&St, MPI_CHAR, &Len);
    std::string B(size_t(Len), '\0');
    MPI_Recv(B.data(), Len, MPI_CHAR, St.MPI_SOURCE, 1, X, MPI_STATUS_IGNORE);
    Reader R(B);
    Rank Src = Rank(R.u64());
    uint64_t N = R.u64();
    std::vector<PairMessage> Sent;
    for (uint64_t K = 0; K < N && R.Ok; ++K) {
      PairMessage M;
      M.Step = uint32_t(R.u64());
      M.Key = R.str();
      M.Text = R.str();
      Sent.push_back(std::move(M));
    }
    Heard.insert(Src);
    Compare(Src, Sent);
  }
  for (const PeerDigest &P : L.Expects)
    if (!Heard.count(P.Peer))
      Compare(P.Peer, {});
  for (MPI_Request &R : Reqs)
    yielding::wait(R);
  MPI_Comm_free(&X);
  return Found;
}

/// Gathers every rank's findings on rank 0, which merges them into the
/// explicit checker's diagnostics; the text on every rank.
std::string JobProof::failure(const HeaderFacts &Facts, LocalResult &L,
                              std::vector<Finding> NodeFindings,
                              std::vector<PairMismatch> Mismatches) {
  Writer W;
  W.u64(L.Structure.size());
  for (const Finding &F : L.Structure)
    W.finding(F);
  W.u64(L.Findings.size() + NodeFindings.size());
  for (const Finding &F : L.Findings)
    W.finding(F);
  for (const Finding &F : NodeFindings)
    W.finding(F);
  W.u64(Mismatches.size());
  for (const PairMismatch &M : Mismatches) {
    W.u64(M.Step);
    W.u64(M.Src);
    W.u64(M.Dst);
    W.diag(M.D);
  }
  W.u64(bool(L.Lack));
  if (L.Lack) {
    W.u64(Me);
    W.str(*L.Lack);
  }
  std::vector<std::string> All = gatherBytes(Comm, W.B);
  std::string Text;
  if (CommRank == 0) {
    GatheredFindings G;
    for (const std::string &B : All) {
      Reader R(B);
      for (uint64_t N = R.u64(), I = 0; I < N && R.Ok; ++I)
        G.Structure.push_back(R.finding());
      for (uint64_t N = R.u64(), I = 0; I < N && R.Ok; ++I)
        G.Findings.push_back(R.finding());
      for (uint64_t N = R.u64(), I = 0; I < N && R.Ok; ++I) {
        PairMismatch M;
        M.Step = uint32_t(R.u64());
        M.Src = Rank(R.u64());
        M.Dst = Rank(R.u64());
        M.D = R.diag();
        G.Mismatches.push_back(std::move(M));
      }
      if (R.u64()) {
        Rank Who = Rank(R.u64());
        G.Lacks.push_back({Who, R.str()});
      }
    }
    VerifyResult V = mergeFindings(Part, Facts, std::move(G));
    if (V.Diags.empty()) {
      // The digests did not sum to zero, yet no pair differs.
      V.St = VerifyResult::Status::Failed;
      V.Diags.push_back(Diagnostic(
          property::MessageAgreement,
          "the ranks' message digests disagree, but no pair of ranks sees a "
          "message differently"));
    }
    Text = diagnosticsText(V);
  }
  return yielding::bcastText(std::move(Text), 0, Comm);
}

} // namespace

ProofWords choreo::proofWords(const Schedule &Part, Rank Me, int CommRank) {
  ProofWords W;
  std::vector<Diagnostic> Own = jobOwnHeaderProblems(Part, Me);
  Digest128 HD = partHeaderDigest(Part);
  uint64_t Fp[5] = {HD.H1, HD.H2, ~HD.H1, ~HD.H2,
                    Own.empty() ? uint64_t(INT64_MAX)
                                : uint64_t(Me) << 32 | uint32_t(CommRank)};
  std::copy(Fp, Fp + 5, W.Min);
  W.NodesUnsupported = Part.hasNodes();
  if (hasRankSizes(Part)) {
    Interval Row = PairMatrix(Part).row(Me);
    Digest128 T =
        jobDigestMinus(jobRowEdge(Me, Row.Lo), jobRowEdge(Me + 1, Row.Hi));
    if (CommRank == 0)
      T = jobDigestPlus(T, jobDigestMinus(jobRowEdge(Part.NumRanks,
                                                     alltoallLength(Part)),
                                          jobRowEdge(0, 0)));
    W.Sum[6] = T.H1;
    W.Sum[7] = T.H2;
  }
  try {
    std::vector<OpAt> Mine = opsOf(Part, Me);
    LocalResult Digests = messageDigests(Part, Me, Mine);
    Digest128 Sends = sendsTerm(Digests), Agree = agreementTerm(Digests);
    W.Sum[0] = Sends.H1;
    W.Sum[1] = Sends.H2;
    W.Sum[2] = Agree.H1;
    W.Sum[3] = Agree.H2;
    for (OpAt At : Mine)
      W.Sum[4] += Part.Steps.step(At.Step)[At.Index].Src == Me;
    if (Own.empty()) {
      HeaderFacts Facts(Part);
      LocalResult L = checkLocal(Part, Me, Mine, Facts, /*GlobalIndex=*/false);
      W.Max[0] = !L.Structure.empty();
      W.Max[1] = !L.Findings.empty() || L.Lack;
    }
    W.Max[2] = Mine.size();
  } catch (const std::bad_alloc &) {
    W.Sum[5] = 1;
    W.Max[4] = 1;
  }
  return W;
}

std::string choreo::proofVerdict(const Schedule &Part, int CommSize,
                                 const ProofWords &R) {
  if (R.Min[0] != ~R.Min[2] || R.Min[1] != ~R.Min[3])
    return "the ranks' parts have different call headers or step counts";
  if (R.Min[4] != uint64_t(INT64_MAX))
    return formatv("rank {0}'s own part fails the header's rules",
                   R.Min[4] >> 32);
  if (Part.NumRanks != Rank(CommSize))
    return formatv("the schedule has {0} ranks but the job has {1} processes",
                   Part.NumRanks, CommSize);
  if (R.Sum[5] || R.Max[4])
    return "a rank ran out of memory checking its ops";
  if (R.Sum[6] || R.Sum[7])
    return "the ranks' rows are not laid out one after another in buffer all";
  if (R.Max[0] || R.Max[1])
    return "a rank's local check fails (its ops, availability or "
           "completeness)";
  if (R.Sum[2] || R.Sum[3])
    return "the two ends of some message see it differently";
  return "";
}

llvm::Expected<std::string> choreo::proveInJob(MPI_Comm Comm,
                                               const Schedule &Part, Rank Me,
                                               llvm::ArrayRef<Rank> RankOf,
                                               VerdictCache *Cache) {
  return JobProof(Comm, Part, Me, RankOf, Cache).run();
}
