//===- pmpi/Library.cpp - The drop-in library's engine --------------------===//
///
/// \file
/// Configuration, per-communicator state and plan cache, the agreement
/// protocol of a plan's first call, proof once (and CHOREO_CACHE_DIR),
/// execution, fallback and error reporting.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Library.h"

#include "pmpi/Selection.h"
#include "verifier/Verifier.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <set>

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

namespace {

thread_local int Depth = 0;

enum class Fallback { Error, Print, Silent };

struct Config {
  bool Loaded = false;
  int Verbose = 0;
  Fallback OnFallback = Fallback::Print;
  bool CheckAlways = false;
  size_t MaxPlans = 16;
  std::string CacheDir;
  SelectionConfig Sel;
  /// A problem with the environment itself (every call reports it).
  std::string Error;
};

Config &config() {
  static Config C;
  if (C.Loaded)
    return C;
  C.Loaded = true;
  auto Env = [](const char *N) -> llvm::StringRef {
    const char *V = std::getenv(N);
    return V ? llvm::StringRef(V) : llvm::StringRef();
  };
  llvm::StringRef V = Env("CHOREO_VERBOSE");
  C.Verbose = V.empty() || V == "0" ? 0 : (V == "2" ? 2 : 1);
  llvm::StringRef F = Env("CHOREO_FALLBACK");
  if (F == "error")
    C.OnFallback = Fallback::Error;
  else if (F == "silent")
    C.OnFallback = Fallback::Silent;
  else if (F.empty() || F == "print")
    C.OnFallback = Fallback::Print;
  else
    C.Error =
        formatv("CHOREO_FALLBACK={0}: expected error, print or silent", F);
  llvm::StringRef Chk = Env("CHOREO_CHECK");
  if (Chk == "always")
    C.CheckAlways = true;
  else if (!Chk.empty() && Chk != "first")
    C.Error = formatv("CHOREO_CHECK={0}: expected first or always", Chk);
  if (llvm::StringRef M = Env("CHOREO_PLANS_PER_COMM"); !M.empty()) {
    unsigned long long N = 0;
    if (M.getAsInteger(10, N) || N == 0)
      C.Error = formatv("CHOREO_PLANS_PER_COMM={0}: expected a positive "
                        "number",
                        M);
    else
      C.MaxPlans = N;
  }
  C.CacheDir = Env("CHOREO_CACHE_DIR").str();
  if (llvm::StringRef D = Env("CHOREO_DEFAULT"); !D.empty()) {
    if (auto Ch = parseChoice(D, "CHOREO_DEFAULT"))
      C.Sel.Default = D.str();
    else
      C.Error = llvm::toString(Ch.takeError());
  }
  for (auto [Name, Ptr] : {std::pair{"CHOREO_ALPHA", &C.Sel.Alpha},
                           std::pair{"CHOREO_BETA", &C.Sel.Beta},
                           std::pair{"CHOREO_GAMMA", &C.Sel.Gamma}}) {
    llvm::StringRef T = Env(Name);
    if (T.empty())
      continue;
    double X;
    if (T.getAsDouble(X) || !(X >= 0) || X > 1e6)
      C.Error = formatv("{0}={1}: expected a non-negative number of seconds",
                        Name, T);
    else
      *Ptr = X;
  }
  if (llvm::StringRef R = Env("CHOREO_SELECTION"); !R.empty()) {
    auto Rules = readRulesFile(R);
    if (Rules) {
      C.Sel.Rules = std::move(*Rules);
      C.Sel.RulesFile = R.str();
    } else {
      C.Error = llvm::toString(Rules.takeError());
    }
  }
  return C;
}

/// One cached call shape on one communicator.
struct Entry {
  bool Native = false;
  std::string Algorithm, Why;
  /// This rank's ops of the proved schedule (to rebind on new buffers).
  Schedule Mine;
  std::unique_ptr<Plan> P;
  /// The buffers the plan is bound to (valid when Bound).
  bool Bound = false;
  UserBuffers At;
};

/// Whether a plan bound to A runs on B as it is (no rebinding).
bool sameBinding(const UserBuffers &A, const UserBuffers &B) {
  return A.Send == B.Send && A.Recv == B.Recv &&
         A.SendBytes == B.SendBytes && A.RecvBytes == B.RecvBytes &&
         A.RecvDispls == B.RecvDispls && A.ReduceType == B.ReduceType &&
         A.ReduceOp == B.ReduceOp;
}

struct CommState {
  MPI_Comm User = MPI_COMM_NULL;
  /// Private intracommunicator: a duplicate (intra) or the merge with the
  /// low group first (inter).
  MPI_Comm Private = MPI_COMM_NULL;
  bool Inter = false, Low = true;
  int Rank = 0;
  std::map<std::string, std::unique_ptr<Entry>> Entries;
  std::list<std::string> Lru;
  std::set<std::string> Printed;

  ~CommState() {
    Entries.clear();
    int Fin = 0;
    PMPI_Finalized(&Fin);
    if (Private != MPI_COMM_NULL && !Fin)
      PMPI_Comm_free(&Private);
  }
};

int Keyval = MPI_KEYVAL_INVALID;
std::set<CommState *> Live;
/// Digests proved in this process (any communicator; rank 0 of a
/// communicator asks).
std::set<std::string> ProvedHere;

int deleteState(MPI_Comm, int, void *Attr, void *) {
  auto *S = static_cast<CommState *>(Attr);
  Guard G;
  Live.erase(S);
  delete S;
  return MPI_SUCCESS;
}

/// The state of Comm, made on first use (collective over Comm).
CommState *stateOf(MPI_Comm Comm) {
  if (Keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteState, &Keyval,
                            nullptr);
  void *Attr = nullptr;
  int Found = 0;
  PMPI_Comm_get_attr(Comm, Keyval, &Attr, &Found);
  if (Found)
    return static_cast<CommState *>(Attr);
  auto *S = new CommState();
  S->User = Comm;
  int IsInter = 0;
  PMPI_Comm_test_inter(Comm, &IsInter);
  S->Inter = IsInter;
  if (IsInter) {
    // Callers checked that the groups are in MPI_COMM_WORLD.
    S->Low = inLowGroup(Comm).value_or(true);
    PMPI_Intercomm_merge(Comm, S->Low ? 0 : 1, &S->Private);
  } else {
    PMPI_Comm_dup(Comm, &S->Private);
  }
  PMPI_Comm_set_errhandler(S->Private, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(S->Private, &S->Rank);
  PMPI_Comm_set_attr(Comm, Keyval, S);
  Live.insert(S);
  return S;
}

std::string commName(MPI_Comm Comm) {
  char Name[MPI_MAX_OBJECT_NAME] = "";
  int Len = 0;
  PMPI_Comm_get_name(Comm, Name, &Len);
  return Len ? std::string(Name, Len) : std::string("a communicator");
}

/// Reports Msg on this rank and calls Comm's error handler; the return code.
int fail(MPI_Comm Comm, const std::string &Msg) {
  int WorldRank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &WorldRank);
  std::string Text = "choreo-mpi: " + Msg;
  std::fprintf(stderr, "%s (world rank %d)\n", Text.c_str(), WorldRank);
  std::fflush(stderr);
  static int Class = -1;
  if (Class < 0 && PMPI_Add_error_class(&Class) != MPI_SUCCESS)
    Class = MPI_ERR_OTHER;
  int Code = MPI_ERR_OTHER;
  if (Class != MPI_ERR_OTHER &&
      PMPI_Add_error_code(Class, &Code) == MPI_SUCCESS)
    PMPI_Add_error_string(Code, Text.c_str());
  else
    Code = MPI_ERR_OTHER;
  PMPI_Comm_call_errhandler(Comm, Code);
  return Code;
}

uint64_t hashText(llvm::StringRef T) {
  uint64_t H = 1469598103934665603ull;
  for (char C : T)
    H = (H ^ uint8_t(C)) * 1099511628211ull;
  return H;
}

/// Collective over Priv: every rank's Key must be the same; else every
/// rank gets a message listing what the ranks said (their Text).
std::string agreeOnText(MPI_Comm Priv, const std::string &Key,
                        const std::string &Text) {
  uint64_t H = hashText(Key);
  uint64_t V[2] = {H, ~H};
  PMPI_Allreduce(MPI_IN_PLACE, V, 2, MPI_UINT64_T, MPI_MIN, Priv);
  if (V[0] == ~V[1])
    return "";
  // Disagreement (rare): gather everyone's text, cut to a fixed width.
  constexpr int W = 200;
  int N;
  PMPI_Comm_size(Priv, &N);
  std::vector<char> All(size_t(N) * W, 0), Mine(W, 0);
  std::strncpy(Mine.data(), Text.c_str(), W - 1);
  PMPI_Allgather(Mine.data(), W, MPI_CHAR, All.data(), W, MPI_CHAR, Priv);
  std::string Msg = "the ranks disagree on this call:";
  std::string Prev;
  int Shown = 0;
  for (int R = 0; R < N; ++R) {
    std::string T(&All[size_t(R) * W]);
    if (R > 0 && T == Prev)
      continue;
    if (++Shown > 6) {
      Msg += "; ...";
      break;
    }
    Msg += formatv("{0} rank {1}: {2}", Shown > 1 ? ";" : "", R, T).str();
    Prev = T;
  }
  return Msg;
}

/// Collective over Priv: the lowest rank's non-empty error, or "".
std::string agreeOnError(MPI_Comm Priv, int Me, const std::string &Err) {
  int First = Err.empty() ? INT_MAX : Me;
  PMPI_Allreduce(MPI_IN_PLACE, &First, 1, MPI_INT, MPI_MIN, Priv);
  if (First == INT_MAX)
    return "";
  unsigned long long Len = Me == First ? Err.size() : 0;
  PMPI_Bcast(&Len, 1, MPI_UNSIGNED_LONG_LONG, First, Priv);
  std::string Msg = Me == First ? Err : std::string(Len, '\0');
  PMPI_Bcast(Msg.data(), int(Len), MPI_CHAR, First, Priv);
  return Msg;
}

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string verdictPath(const std::string &Digest) {
  llvm::SmallString<256> P(config().CacheDir);
  llvm::sys::path::append(P, Digest + ".proved");
  return std::string(P);
}

/// Rank 0's proof of S (or the verdict of an earlier job); "" when proved.
std::string proveOnce(const Schedule &S, const std::string &Digest,
                      std::string &How) {
  const Config &C = config();
  if (!C.CacheDir.empty() && llvm::sys::fs::exists(verdictPath(Digest))) {
    How = "proof cached in CHOREO_CACHE_DIR";
    return "";
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
  if (!C.CacheDir.empty()) {
    std::string Tmp = verdictPath(Digest) + ".tmp" + std::to_string(::getpid());
    std::error_code EC;
    {
      llvm::raw_fd_ostream OS(Tmp, EC);
      if (!EC)
        OS << "proved " << S.Algorithm << " " << S.Steps.numOps()
           << " ops by the explicit engine\n";
    }
    if (!EC)
      llvm::sys::fs::rename(Tmp, verdictPath(Digest));
  }
  return "";
}

/// Once per (communicator, collective, algorithm and why, commutativity of
/// the operator): the first call shape that ran it.
void verbose(CommState &St, const CallShape &Shape, const std::string &Algo,
             const std::string &What) {
  const Config &C = config();
  if (!C.Verbose || (C.Verbose < 2 && St.Rank != 0))
    return;
  if (!St.Printed
           .insert(std::string(mpiName(Shape.C)) + "|" + Algo +
                   (Shape.Commutative ? "" : "|noncommutative"))
           .second)
    return;
  std::string Line =
      formatv("{0} on {1}: {2}", Shape.describe(), commName(St.User), What);
  std::fprintf(stderr, "choreo-mpi: %s\n", Line.c_str());
  std::fflush(stderr);
}

/// Builds the entry for R's shape: the first call of this shape on this
/// communicator, collective over St.Private. Returns an error text agreed
/// by every rank ("" when Out is ready).
std::string buildEntry(CommState &St, Request &R, Entry &Out) {
  Config &C = config();
  const CallShape &Shape = R.Shape;
  // 1. Every rank must ask for the same call and choose alike.
  std::string ChoiceText;
  std::optional<Choice> Ch;
  if (!C.Error.empty()) {
    ChoiceText = "error: " + C.Error;
  } else if (auto X = select(Shape, C.Sel)) {
    Ch = std::move(*X);
    ChoiceText = Ch->Text + " (" + Ch->Why + ")";
  } else {
    ChoiceText = "error: " + llvm::toString(X.takeError());
  }
  std::string Sizes;
  for (size_t I = 0; I < Shape.SizesA.size() + Shape.SizesB.size(); ++I) {
    if (I == 8) {
      Sizes += ",...";
      break;
    }
    size_t A = Shape.SizesA.size();
    Sizes += (I ? "," : "") +
             std::to_string(I < A ? Shape.SizesA[I] : Shape.SizesB[I - A]);
  }
  std::string Said =
      formatv("{0} sizes [{1}] -> {2}", Shape.describe(), Sizes, ChoiceText);
  std::string Agreed =
      agreeOnText(St.Private, Shape.key() + "#" + ChoiceText, Said);
  if (!Agreed.empty())
    return Agreed;
  if (!Ch)
    return ChoiceText.substr(7);
  Out.Why = Ch->Why;
  if (Ch->K == Choice::Native) {
    Out.Native = true;
    verbose(St, Shape, "native|" + Ch->Why, "native (" + Ch->Why + ")");
    return "";
  }
  // 2. Build. Rank 0 (the prover) builds the whole schedule; every other
  // rank builds only its own ops when the generator has a rank form. Auto:
  // rank 0 asks the model and tells the others the winner.
  double T0 = now();
  std::string LocalErr, Detail;
  std::optional<Schedule> S;
  bool Prover = St.Rank == 0;
  std::string Id = Ch->K == Choice::Algorithm ? Ch->Id : std::string();
  if (Ch->K == Choice::Auto) {
    if (Prover) {
      if (auto A = chooseByModel(Shape, C.Sel)) {
        Id = A->Id;
        Detail = formatv("auto: model time {0:e3} s, best of {1}", A->Time,
                         A->Candidates);
        S = std::move(A->S);
      } else {
        llvm::consumeError(A.takeError());
      }
    }
    unsigned long long Len = Id.size();
    PMPI_Bcast(&Len, 1, MPI_UNSIGNED_LONG_LONG, 0, St.Private);
    Id.resize(Len);
    PMPI_Bcast(Id.data(), int(Len), MPI_CHAR, 0, St.Private);
    // Nothing serves the call: MPICH's own, as if chosen.
    if (Id.empty()) {
      Out.Native = true;
      verbose(St, Shape, "native|auto",
              "native (auto: no generator serves this call)");
      return "";
    }
  }
  Out.Algorithm = Id;
  if (!S) {
    auto B = buildFor(
        Id, Ch->K == Choice::Algorithm ? Ch->Extra : std::vector<std::string>(),
        Shape, Prover ? std::nullopt : std::optional<Rank>(St.Rank));
    if (B)
      S = std::move(*B);
    else
      LocalErr = llvm::toString(B.takeError());
  }
  double BuildMs = (now() - T0) * 1e3;
  // 3. Proof once (rank 0: unless this process or CHOREO_CACHE_DIR knows
  // the verdict), and every rank's ops checked against rank 0's schedule.
  std::string How = "proof known in this job";
  std::vector<uint64_t> Digests;
  if (Prover && S) {
    std::string Digest = scheduleDigest(*S).hex();
    if (!ProvedHere.count(Digest))
      LocalErr = proveOnce(*S, Digest, How);
    if (LocalErr.empty())
      ProvedHere.insert(Digest);
    Digests = rankDigests(*S);
  }
  int N;
  PMPI_Comm_size(St.Private, &N);
  if (Digests.size() != 2 * size_t(N))
    Digests.assign(2 * size_t(N), 0);
  uint64_t Expected[2];
  PMPI_Scatter(Digests.data(), 2, MPI_UINT64_T, Expected, 2, MPI_UINT64_T, 0,
               St.Private);
  if (S && LocalErr.empty()) {
    std::vector<uint64_t> Mine = rankDigests(*S);
    if (Mine.size() < 2 * size_t(St.Rank) + 2 ||
        Mine[2 * St.Rank] != Expected[0] ||
        Mine[2 * St.Rank + 1] != Expected[1])
      LocalErr = "the ops this rank built are not its ops of the schedule "
                 "rank 0 proved";
  }
  if (!LocalErr.empty())
    LocalErr = formatv("rank {0}: {1}", St.Rank, LocalErr);
  std::string Err = agreeOnError(St.Private, St.Rank, LocalErr);
  if (!Err.empty()) {
    if (C.OnFallback == Fallback::Error)
      return formatv("{0} was requested ({1}) but cannot serve {2}: {3}",
                     Out.Algorithm, Ch->Why, Shape.describe(), Err);
    if (C.OnFallback == Fallback::Print && St.Rank == 0)
      std::fprintf(stderr,
                   "choreo-mpi: %s: %s (%s) cannot serve it, MPICH's own "
                   "collective runs instead: %s\n",
                   Shape.describe().c_str(), Out.Algorithm.c_str(),
                   Ch->Why.c_str(), Err.c_str());
    Out.Native = true;
    verbose(St, Shape, "native|" + Out.Algorithm,
            "native (fallback from " + Out.Algorithm + ")");
    return "";
  }
  // 4. The plan, on the private communicator; this rank keeps its own ops.
  int Me;
  PMPI_Comm_rank(St.Private, &Me);
  Out.Mine = onlyRank(*S, Me);
  S.reset();
  PlanOptions PO;
  PO.Verify = false;
  PO.UseComm = true;
  auto P = Plan::create(Out.Mine, St.Private, R.Buffers, PO);
  if (!P)
    return llvm::toString(P.takeError());
  Out.P = std::move(*P);
  Out.Bound = true;
  Out.At = R.Buffers;
  verbose(St, Shape, Out.Algorithm + "|" + Out.Why,
          formatv("{0} ({1}{2}{3}); {4}; built in {5:f2} ms", Out.Algorithm,
                  Out.Why, Detail.empty() ? "" : "; ", Detail, How, BuildMs));
  return "";
}

} // namespace

Guard::Guard() { ++Depth; }
Guard::~Guard() { --Depth; }
bool Guard::active() { return Depth > 0; }

bool pmpi::enabled() {
  int Init = 0, Fin = 0;
  PMPI_Initialized(&Init);
  PMPI_Finalized(&Fin);
  if (!Init || Fin)
    return false;
  static int Level = -1;
  if (Level < 0)
    PMPI_Query_thread(&Level);
  return Level != MPI_THREAD_MULTIPLE;
}

bool pmpi::contiguous(MPI_Datatype T, int &Size) {
  MPI_Aint Lb, Ext, TLb, TExt;
  if (PMPI_Type_size(T, &Size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(T, &Lb, &Ext) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(T, &TLb, &TExt) != MPI_SUCCESS)
    return false;
  return Lb == 0 && TLb == 0 && Ext == Size && TExt == Size;
}

void pmpi::noteNative(MPI_Comm Comm, const char *Call, const char *Why) {
  const Config &C = config();
  if (!C.Verbose)
    return;
  int Rank = 0;
  PMPI_Comm_rank(Comm, &Rank);
  if (Rank != 0 && C.Verbose < 2)
    return;
  static std::set<std::string> Seen;
  if (Seen.insert(std::string(Call) + Why).second) {
    std::fprintf(stderr, "choreo-mpi: %s on %s: native (%s)\n", Call,
                 commName(Comm).c_str(), Why);
    std::fflush(stderr);
  }
}

Outcome pmpi::run(MPI_Comm Comm, Request &R, int &Rc) {
  Config &C = config();
  CommState *St = stateOf(Comm);
  if (R.ExchangeSizes) {
    // Inter-allgatherv: each rank knows its own bytes and, from recvcounts,
    // what it expects of the remote group. Exchange both over the merged
    // communicator (A first); every rank then checks every rank alike.
    int N;
    PMPI_Comm_size(St->Private, &N);
    uint64_t Mine[2] = {
        R.LocalBytes, hashText(llvm::StringRef(
                          reinterpret_cast<const char *>(R.RemoteBytes.data()),
                          R.RemoteBytes.size() * 8))};
    std::vector<uint64_t> All(2 * size_t(N));
    PMPI_Allgather(Mine, 2, MPI_UINT64_T, All.data(), 2, MPI_UINT64_T,
                   St->Private);
    size_t P = R.Shape.SizesA.size(), Q = R.Shape.SizesB.size();
    std::vector<uint64_t> A(P), B(Q);
    for (size_t I = 0; I < P + Q; ++I)
      (I < P ? A[I] : B[I - P]) = All[2 * I];
    auto H = [](const std::vector<uint64_t> &V) {
      return hashText(llvm::StringRef(reinterpret_cast<const char *>(V.data()),
                                      V.size() * 8));
    };
    uint64_t HA = H(A), HB = H(B);
    for (size_t I = 0; I < P + Q; ++I)
      if (All[2 * I + 1] != (I < P ? HB : HA))
        return Rc = fail(Comm,
                         formatv("MPI_Allgatherv on an intercommunicator: the "
                                 "recvcounts of {0} rank {1} do not match "
                                 "what the other group sends",
                                 I < P ? "group A (low)" : "group B (high)",
                                 I < P ? I : I - P)),
               Outcome::Failed;
    R.Shape.SizesA = std::move(A);
    R.Shape.SizesB = std::move(B);
  }
  std::string Key = R.Shape.key();
  if (C.CheckAlways) {
    std::string Err = agreeOnText(St->Private, Key, R.Shape.describe());
    if (!Err.empty())
      return Rc = fail(Comm, Err), Outcome::Failed;
  }
  auto It = St->Entries.find(Key);
  Entry *E;
  if (It == St->Entries.end()) {
    auto New = std::make_unique<Entry>();
    std::string Err = buildEntry(*St, R, *New);
    if (!Err.empty())
      return Rc = fail(Comm, formatv("{0} on {1}: {2}", R.Shape.describe(),
                                     commName(Comm), Err)),
             Outcome::Failed;
    // The least recently used plan goes (every rank sees the same calls,
    // so every rank evicts the same one).
    if (St->Entries.size() >= C.MaxPlans) {
      St->Entries.erase(St->Lru.front());
      St->Lru.pop_front();
    }
    E = New.get();
    St->Entries[Key] = std::move(New);
    St->Lru.push_back(Key);
  } else {
    E = It->second.get();
    St->Lru.remove(Key);
    St->Lru.push_back(Key);
  }
  if (E->Native)
    return Outcome::Native;
  if (!E->Bound || !sameBinding(E->At, R.Buffers)) {
    // Local: the same plan on other buffers (every rank runs it next).
    if (auto Err = E->P->rebind(E->Mine, R.Buffers)) {
      E->Bound = false;
      return Rc = fail(Comm, formatv("{0}: rank {1}: {2}", R.Shape.describe(),
                                     St->Rank, llvm::toString(std::move(Err)))),
             Outcome::Failed;
    }
    E->Bound = true;
    E->At = R.Buffers;
  }
  if (auto Err = E->P->execute())
    return Rc = fail(Comm, formatv("{0}: {1}", R.Shape.describe(),
                                   llvm::toString(std::move(Err)))),
           Outcome::Failed;
  Rc = MPI_SUCCESS;
  return Outcome::Ran;
}

void pmpi::shutdown() {
  Guard G;
  // Deleting the attribute frees the state (and removes it from Live).
  while (!Live.empty()) {
    CommState *S = *Live.begin();
    MPI_Comm User = S->User;
    if (PMPI_Comm_delete_attr(User, Keyval) != MPI_SUCCESS) {
      Live.erase(S);
      delete S;
    }
  }
  if (Keyval != MPI_KEYVAL_INVALID)
    PMPI_Comm_free_keyval(&Keyval);
}
