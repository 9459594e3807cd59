//===- pmpi/Library.cpp - The drop-in library's engine --------------------===//
///
/// \file
/// Configuration, per-communicator state and plan cache, a plan's first
/// call (selection and its agreement, then the runtime's pipeline with the
/// chosen generator as builder and CHOREO_CACHE_DIR as verdict cache),
/// execution, fallback and error reporting.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Library.h"

#include "executor/Clock.h"
#include "executor/Pipeline.h"
#include "executor/Yielding.h"
#include "generators/Generator.h"
#include "ir/PairMatrix.h"
#include "generators/alltoall/AlltoallOptions.h"
#include "pmpi/Config.h"
#include "pmpi/Datatypes.h"
#include "pmpi/JobCost.h"
#include "pmpi/Nodes.h"
#include "pmpi/PrivateComm.h"
#include "pmpi/Progress.h"
#include "pmpi/RootSizes.h"
#include "pmpi/StartedCounts.h"
#include "pmpi/Selection.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <map>
#include <memory>
#include <new>
#include <sched.h>
#include <set>

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

namespace {

/// Set by MPI_Finalize's wrapper (finalizing): no call is looked at after.
bool Finalizing = false;

// Initial-exec: the library is loaded at start-up (LD_PRELOAD or linked),
// so its counter is a load relative to the thread pointer, not a call of
// __tls_get_addr on every intercepted call.
thread_local int Depth __attribute__((tls_model("initial-exec"))) = 0;

struct CommState;

/// The states of the last communicators a call named, so that a call on
/// one of them (a handed-over call above all) finds its state without
/// MPI_Comm_get_attr. A state leaves it when it is deleted (the
/// communicator freed, MPI_Finalize), before its handle can name another
/// communicator.
struct RecentComm {
  MPI_Comm Comm;
  CommState *S;
};
RecentComm Recent[4] = {{MPI_COMM_NULL, nullptr},
                        {MPI_COMM_NULL, nullptr},
                        {MPI_COMM_NULL, nullptr},
                        {MPI_COMM_NULL, nullptr}};
unsigned RecentNext = 0;

void forgetRecent(const CommState *S) {
  for (RecentComm &R : Recent)
    if (R.S == S)
      R = {MPI_COMM_NULL, nullptr};
}

/// One cached call on one communicator.
struct Entry {
  bool Native = false;
  std::string Algorithm, Why;
  /// This rank's ops of the proved schedule (to rebind on new buffers).
  Schedule Mine;
  /// The plans of the call: one, and one more for each run of the call
  /// outstanding at once (a run holds its plan, so evicting the entry
  /// never frees a running plan).
  struct Instance {
    std::shared_ptr<Plan> P;
    /// The buffers the plan is bound to (valid when Bound).
    bool Bound = false;
    UserBuffers At;
  };
  std::vector<Instance> Plans;
  /// Where the entry is in its communicator's LRU list (moved to the end
  /// in O(1) on every call of it).
  std::list<std::pair<uint64_t, uint64_t>>::iterator Pos;
};

/// Whether a plan bound to A runs on B as it is (no rebinding).
bool sameBinding(const UserBuffers &A, const UserBuffers &B) {
  return A.Send == B.Send && A.Recv == B.Recv && A.SendBytes == B.SendBytes &&
         A.RecvBytes == B.RecvBytes && A.RecvDispls == B.RecvDispls &&
         A.SendDispls == B.SendDispls && A.ReduceType == B.ReduceType &&
         A.ReduceOp == B.ReduceOp;
}

/// A call's key (BoundCall::key).
using Key = std::pair<uint64_t, uint64_t>;

/// Whether two sizes vectors are equal: their lengths and end entries
/// first, inline (the calls whose arguments differ only in their sizes,
/// an MPI_Reduce_scatter_block's or an MPI_Allgather's of another count,
/// differ there), then every entry.
bool sameSizes(const std::vector<uint64_t> &X, const std::vector<uint64_t> &Y) {
  size_t N = X.size();
  if (N != Y.size())
    return false;
  if (N == 0)
    return true;
  if (X[0] != Y[0] || X[N - 1] != Y[N - 1])
    return false;
  return N <= 2 || std::equal(X.begin() + 1, X.end() - 1, Y.begin() + 1);
}

/// Whether two calls' arguments are the same (bindCall makes the same
/// header of them, so they have the same key). The scalars first, the
/// sizes last: a lookup passes over the fast cache's other calls of the
/// same kind (docs/pmpi.md, "What a handed-over call asks MPI").
bool sameArgs(const MpiArgs &X, const MpiArgs &Y) {
  return X.Call == Y.Call && X.Inter == Y.Inter && X.Ranks == Y.Ranks &&
         X.Bytes == Y.Bytes && X.Root == Y.Root &&
         X.Commutative == Y.Commutative && X.ElemBytes == Y.ElemBytes &&
         X.InPlace == Y.InPlace && bool(X.Part) == bool(Y.Part) &&
         X.MatrixKey == Y.MatrixKey && sameSizes(X.SizesA, Y.SizesA) &&
         sameSizes(X.SizesB, Y.SizesB);
}

/// The fast path's cache: a communicator's last few calls by their
/// arguments (MpiArgs, compared field by field), each with its key and
/// entry. A repeated call finds its entry here without binding the call to
/// its header or digesting it (docs/pmpi.md, "Calls handed to MPICH by the
/// margin"). Calls with more than MaxSizes sizes (an alltoallv's matrix at
/// p > 16) take the full path: comparing them costs what digesting does.
struct FastCache {
  static constexpr size_t Slots = 8, MaxSizes = 256;
  static_assert(Slots <= 256, "a hint is a slot's number in a byte");
  struct Slot {
    MpiArgs Args;
    Key K{0, 0};
    Entry *E = nullptr;
  };
  std::array<Slot, Slots> S;
  size_t Next = 0;
  /// By call (MpiCall's number): the slot its last lookup found or its
  /// last call was put in, compared first. A loop of one call shape, or of
  /// a few calls each of one shape (a barrier and a reduction), finds its
  /// slot at the first comparison instead of after the slots before it:
  /// an MPI_Reduce_scatter_block's of other counts differ from it only in
  /// their sizes, the last fields compared.
  std::array<uint8_t, 256> Hint{};

  static bool fits(const MpiArgs &A) {
    return A.SizesA.size() + A.SizesB.size() <= MaxSizes;
  }
  Slot *find(const MpiArgs &A) {
    uint8_t &H = Hint[uint8_t(A.Call)];
    if (S[H].E && sameArgs(S[H].Args, A))
      return &S[H];
    for (size_t I = 0; I < Slots; ++I)
      if (I != H && S[I].E && sameArgs(S[I].Args, A)) {
        H = uint8_t(I);
        return &S[I];
      }
    return nullptr;
  }
  void put(const MpiArgs &A, Key K, Entry *E) {
    Hint[uint8_t(A.Call)] = uint8_t(Next);
    Slot &X = S[Next];
    Next = (Next + 1) % Slots;
    X.Args = A;
    X.K = K;
    X.E = E;
  }
  /// An entry leaving the plan cache leaves this one too.
  void drop(Key K) {
    for (Slot &X : S)
      if (X.E && X.K == K)
        X.E = nullptr;
  }
};

struct CommState {
  MPI_Comm User = MPI_COMM_NULL;
  /// Where choreo's messages travel (pmpi/PrivateComm.h): shared by the
  /// user communicators of one group; null when none could be made (every
  /// call then goes to MPICH, NoPrivate says why).
  PrivateComm *Priv = nullptr;
  std::string NoPrivate;
  /// Without one: calls since, and the call that tries again (after 1, 2,
  /// 4, ... up to 1024 calls; every rank counts the same calls).
  uint64_t Calls = 0, NextTry = 1, Backoff = 1;
  bool Inter = false, Low = true;
  int Rank = 0;
  /// The user communicator's own rank and size (remote group aside).
  int UserRank = 0, Size = 0;
  /// This communicator's number on its private communicator and its runs
  /// so far: a run's slot (Plan::tagBase) is both, in call order, so that
  /// runs outstanding at once never match each other's messages.
  uint32_t Id = 0, Seq = 0;
  std::map<Key, std::unique_ptr<Entry>> Entries;
  std::list<Key> Lru;
  FastCache Fast;
  /// The v forms' hand-over without their counts, by (call, inter): empty,
  /// the ranks exchange the counts and decide by them; else why MPICH
  /// serves every such call (withoutCounts).
  std::map<std::pair<int, bool>, std::string> WithoutCounts;
  /// By the same key: the algorithm chosen without the counts builds only
  /// from the whole matrix (an intracommunicator MPI_Alltoallv: every rank
  /// then learns every row, Request::Exchange, instead of its own part's
  /// needs, Request::ExchangeParts).
  std::map<std::pair<int, bool>, bool> WholeMatrix;
  /// By the same key: the radix of the Bruck round of the sizes an
  /// MPI_Alltoallv's part needs (relayRadixOf the algorithm chosen without
  /// the counts), or 0.
  std::map<std::pair<int, bool>, uint64_t> RelayRadix;
  /// A started MPI_Igatherv's, MPI_Iscatterv's or MPI_Ialltoallv's
  /// algorithm, chosen without
  /// the counts and agreed with WithoutCounts (keyed alike, the call's
  /// number + StartedKey).
  std::map<std::pair<int, bool>, Choice> StartedChoice;
  std::set<std::string> Printed;

  MPI_Comm comm() const { return Priv->Comm; }

  ~CommState() {
    forgetRecent(this);
    Entries.clear();
    releasePrivate(Priv);
  }
};

int Keyval = MPI_KEYVAL_INVALID;

/// Comm's state, or null when it has none yet.
CommState *findState(MPI_Comm Comm) {
  for (RecentComm &R : Recent)
    if (R.S && R.Comm == Comm)
      return R.S;
  if (Keyval == MPI_KEYVAL_INVALID)
    return nullptr;
  void *Attr = nullptr;
  int Found = 0;
  if (PMPI_Comm_get_attr(Comm, Keyval, &Attr, &Found) != MPI_SUCCESS || !Found)
    return nullptr;
  auto *S = static_cast<CommState *>(Attr);
  Recent[RecentNext++ % 4] = {Comm, S};
  return S;
}

/// This run's slot (Plan::tagBase), the same on every rank: every rank
/// numbers a communicator's calls alike. The slot bits the private
/// communicator's tag bound leaves (Plan::slotBits: 6 at MPI's least bound
/// 32767, 19 at MPICH's 2^28 - 1 here) hold the call's number modulo a
/// window of 2^SeqBits (64 to 16,384) and, above it, the communicator's
/// number among those sharing the private one (modulo what is left, 0 to 5
/// bits). Two runs whose slots coincide never overlap on a rank: a run
/// whose slot an outstanding run on the private communicator holds starts
/// only when that run completed there (a started one is queued, a blocking
/// one progresses the others first), so each pair of ranks sends and posts
/// the two runs' messages of one tag in the same order, and MPI matches
/// them in that order. docs/pmpi.md, "Tags".
uint32_t nextSlot(CommState &St) {
  unsigned SlotBits = Plan::slotBits(St.Priv->TagUb);
  unsigned SeqBits = SlotBits >= 19
                         ? 14
                         : std::max(std::min(SlotBits, 6u), SlotBits - 5);
  uint32_t Seq = St.Seq++ & ((uint32_t(1) << SeqBits) - 1);
  uint32_t Id = St.Id & ((uint32_t(1) << (SlotBits - SeqBits)) - 1);
  return (Id << SeqBits) | Seq;
}

/// A blocking run (or an abandoned one) in slot Slot waits for the
/// outstanding runs holding it, progressing every run.
void waitForSlot(PrivateComm *Priv, uint32_t Slot) {
  while (slotHeld(Priv, Slot)) {
    progressAll();
    sched_yield();
  }
}
std::set<CommState *> Live;

int deleteState(MPI_Comm, int, void *Attr, void *) {
  auto *S = static_cast<CommState *>(Attr);
  Guard G;
  Live.erase(S);
  delete S;
  return MPI_SUCCESS;
}

/// The state of Comm, made on its first intercepted call (collective over
/// Comm: every rank calls, and every rank ends with a state alike, or every
/// rank with none and Why). A state whose private communicator could not be
/// made is kept (its calls go to MPICH, and every rank tries again after 1,
/// 2, 4, ... calls); when a rank cannot keep a state at all, no rank does,
/// and the next call tries again on every rank.
CommState *stateOf(MPI_Comm Comm, std::string &Why) {
  if (Keyval == MPI_KEYVAL_INVALID &&
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteState, &Keyval,
                              nullptr) != MPI_SUCCESS)
    Keyval = MPI_KEYVAL_INVALID;
  if (Keyval != MPI_KEYVAL_INVALID) {
    if (CommState *S = findState(Comm)) {
      if (!S->Priv && ++S->Calls == S->NextTry) {
        // Context ids may have been freed since: every rank tries again.
        S->Backoff = std::min<uint64_t>(2 * S->Backoff, 1024);
        S->NextTry = S->Calls + S->Backoff;
        bool Kept = true;
        S->Priv = acquirePrivate(Comm, S->Inter, S->Low, Kept, S->NoPrivate);
        if (S->Priv) {
          S->Rank = S->Priv->Rank;
          S->Id = S->Priv->NextId++;
        }
      }
      return S;
    }
  }
  auto *S = new CommState();
  S->User = Comm;
  int IsInter = 0;
  PMPI_Comm_test_inter(Comm, &IsInter);
  S->Inter = IsInter;
  PMPI_Comm_rank(Comm, &S->UserRank);
  PMPI_Comm_size(Comm, &S->Size);
  // Callers checked that an intercommunicator's groups are in
  // MPI_COMM_WORLD.
  if (IsInter)
    S->Low = inLowGroup(Comm).value_or(true);
  bool Kept = Keyval != MPI_KEYVAL_INVALID &&
              PMPI_Comm_set_attr(Comm, Keyval, S) == MPI_SUCCESS;
  if (Kept)
    Live.insert(S);
  bool Everyone = Kept;
  S->Priv = acquirePrivate(Comm, S->Inter, S->Low, Everyone, S->NoPrivate);
  if (!Everyone) {
    Why = S->NoPrivate;
    // Deleting the attribute deletes S.
    if (!Kept || PMPI_Comm_delete_attr(Comm, Keyval) != MPI_SUCCESS) {
      Live.erase(S);
      delete S;
    }
    return nullptr;
  }
  if (S->Priv) {
    S->Rank = S->Priv->Rank;
    S->Id = S->Priv->NextId++;
  }
  return S;
}

} // namespace

bool pmpi::commIsInter(MPI_Comm Comm) {
  if (const CommState *S = findState(Comm))
    return S->Inter;
  int Inter = 0;
  return PMPI_Comm_test_inter(Comm, &Inter) == MPI_SUCCESS && Inter;
}

int pmpi::commSize(MPI_Comm Comm) {
  if (const CommState *S = findState(Comm))
    return S->Size;
  int N = 0;
  PMPI_Comm_size(Comm, &N);
  return N;
}

int pmpi::commRank(MPI_Comm Comm) {
  if (const CommState *S = findState(Comm))
    return S->UserRank;
  int Me = 0;
  PMPI_Comm_rank(Comm, &Me);
  return Me;
}

bool pmpi::nativeWaitYields(MPI_Comm Comm) {
  if (!config().NativeYields)
    return false;
  const CommState *S = findState(Comm);
  return S && !S->Inter && S->Priv && S->Priv->NativeYields;
}

namespace {

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
  if (Comm != MPI_COMM_NULL)
    PMPI_Comm_call_errhandler(Comm, Code);
  return Code;
}

/// A digest of a list of sizes (what a rank tells the others it expects).
uint64_t sizesDigest(llvm::ArrayRef<uint64_t> V) {
  Hasher H;
  H.mix(V.size());
  for (uint64_t X : V)
    H.mix(X);
  return H.digest().H1;
}

/// Once per (communicator, collective, algorithm and why, commutativity of
/// the operator): the first call that ran it.
void verbose(CommState &St, const BoundCall &Call, const std::string &Algo,
             const std::string &What) {
  const Config &C = config();
  if (!C.Verbose || (C.Verbose < 2 && St.Rank != 0))
    return;
  if (!St.Printed
           .insert(Call.mpiName().str() + "|" + Algo +
                   (Call.commutative() ? "" : "|noncommutative"))
           .second)
    return;
  std::string Line =
      formatv("{0} on {1}: {2}", Call.describe(), commName(St.User), What);
  std::fprintf(stderr, "choreo-mpi: %s\n", Line.c_str());
  std::fflush(stderr);
}

/// "20,20,20,20": every rank's bytes as the call gives them, the first
/// eight.
std::string sizesText(const BoundCall &Call) {
  std::vector<uint64_t> V = Call.memberBytes();
  std::string Sizes;
  for (size_t I = 0; I < V.size(); ++I) {
    if (I == 8) {
      Sizes += ",...";
      break;
    }
    Sizes += (I ? "," : "") + std::to_string(V[I]);
  }
  return Sizes;
}

/// Whether a call whose counts no rank knows alone (an MPI_Alltoallv's
/// matrix, an intercommunicator MPI_Allgatherv's own group, an
/// MPI_Gatherv's or MPI_Scatterv's at the root: Request::Exchange,
/// ExchangeSizes, RootSizes) goes to MPICH without exchanging them. Decided
/// from what every rank knows alike, never from the counts (which differ
/// from rank to rank by design): the selection without the sizes
/// (selectWithoutSizes: the environment, a rule that does not read them,
/// the default), the margin and the call. `native` hands the call over; so
/// does `auto` from CHOREO_DEFAULT for an intracommunicator MPI_Alltoallv
/// while the margin is on (its model's choice would need the matrix, an
/// allgather every call, more than MPICH's own call at small sizes); any
/// other choice exchanges the counts as before. The decision is made on the
/// communicator's first such call, agreed by every rank then (one
/// allreduce: an environment that differs between ranks fails every rank
/// instead of sending some to MPICH and others into the exchange) and kept,
/// so later calls decide by a lookup. Why: the reason MPICH serves, or
/// empty (exchange); returns an error text alike on every rank.
/// WithoutCounts' key of a started call: its call's number plus this.
constexpr int StartedKey = 1000;

/// Started (MPI_Igatherv, MPI_Iscatterv, MPI_Ialltoallv, whose counts
/// travel in the run's first step, pmpi/StartedCounts.h): the
/// decision is kept apart from the blocking call's, a rule that reads the
/// sizes hands the call to MPICH (the start cannot wait for them), and the
/// ranks agree on the algorithm too (StartedChoice), which every rank then
/// applies alone once the counts arrived.
std::string withoutCounts(CommState &St, const MpiArgs &A, std::string &Why,
                          bool Started = false, bool *Whole = nullptr,
                          uint64_t *Relay = nullptr) {
  std::pair<int, bool> PK{int(A.Call) + (Started ? StartedKey : 0), A.Inter};
  if (auto It = St.WithoutCounts.find(PK); It != St.WithoutCounts.end()) {
    Why = It->second;
    if (Whole)
      *Whole = St.WholeMatrix[PK];
    if (Relay)
      *Relay = St.RelayRadix[PK];
    return "";
  }
  const Config &C = config();
  // The call's groups, root and operator without its sizes.
  MpiArgs S = A;
  if ((A.Call == MpiCall::Gatherv || A.Call == MpiCall::Scatterv) &&
      !A.Inter) {
    // (An intercommunicator's groups are sized already, with no bytes.)
    int N = 0;
    PMPI_Comm_size(St.comm(), &N);
    S.SizesA.assign(size_t(N), 0);
  } else if (A.Call == MpiCall::Alltoallv) {
    S.SizesA.clear();
    S.Bytes = 0;
  }
  std::string Text, Chosen;
  std::optional<Choice> Pick;
  // An MPI_Alltoallv whose algorithm, chosen without the counts, has no
  // rank form from a row and column (none registered now; alltoall-bruck
  // until its Bruck round of the sizes): every rank learns the whole
  // matrix.
  bool NeedsWhole = false;
  // Its part relays blocks of other ranks (alltoall-bruck): their sizes
  // travel in a Bruck round of the sizes, of this radix.
  uint64_t RelayRadix = 0;
  if (C.Error.empty()) {
    auto B = bindCall(std::move(S));
    if (!B)
      llvm::consumeError(B.takeError());
    else if (auto Ch = selectWithoutSizes(*B, C.Sel); !Ch && Started)
      Text = "a non-blocking v form: the selection's rule for it reads the "
             "sizes, which its ranks learn only after the start";
    else if (Ch) {
      if (Started && Ch->K != Choice::Native) {
        Pick = *Ch;
        // Every rank applies the choice alone once the counts arrived: the
        // model too must be the same everywhere.
        Chosen = formatv("{0} ({1}; alpha {2:e6} beta {3:e6} gamma {4:e6} "
                         "margin {5})",
                         Ch->K == Choice::Auto ? std::string("auto") : Ch->Text,
                         Ch->Why, C.Sel.Model.Alpha, C.Sel.Model.Beta,
                         C.Sel.Model.Gamma, C.Sel.Margin);
      }
      if (A.Call == MpiCall::Alltoallv && !Started &&
          Ch->K == Choice::Algorithm)
        if (const Generator *G = findGenerator(Ch->Id)) {
          NeedsWhole = !declares(G->options(), opt::rankPart());
          RelayRadix = relayRadixOf(*Ch);
        }
      if (Ch->K == Choice::Native)
        Text = Ch->Why;
      else if (Ch->K == Choice::Auto && Ch->Why == "CHOREO_DEFAULT" &&
               C.Sel.Margin >= 0 && A.Call == MpiCall::Alltoallv && !A.Inter)
        Text = "auto: the matrix is known to no rank alone and learning it "
               "would cost every call an allgather; CHOREO_ALLTOALLV=auto "
               "prices it (CHOREO_MARGIN)";
    }
  }
  const char *Name = bindingOf(A.Call).MpiName;
  Hasher H;
  H.mix(Text);
  H.mix(Chosen);
  H.mix(uint64_t(NeedsWhole));
  H.mix(RelayRadix);
  std::string Err = agreeOnKey(
      St.comm(), H.digest(),
      Text.empty() ? (Started ? "exchange the counts in the run: " + Chosen
                      : NeedsWhole
                          ? std::string("exchange the whole matrix")
                          : std::string("exchange the counts"))
                   : "native (" + Text + ")",
      formatv("whether {0}{1} goes to MPICH without its counts", Name,
              Started ? " (started)" : "")
          .str());
  if (!Err.empty())
    return formatv("{0} on {1}: {2}", Name, commName(St.User), Err);
  St.WithoutCounts[PK] = Text;
  St.WholeMatrix[PK] = NeedsWhole;
  St.RelayRadix[PK] = RelayRadix;
  if (Text.empty() && Pick)
    St.StartedChoice[PK] = *Pick;
  // A started intracommunicator MPI_Ialltoallv under auto prices its
  // candidates in its run with the job's nodes, as the blocking call: they
  // are learnt here, once per communicator, where its ranks already agree
  // (every rank of it chose auto: agreed above).
  if (Text.empty() && Pick && Pick->K == Choice::Auto &&
      A.Call == MpiCall::Alltoallv && !A.Inter && !St.Inter &&
      !St.Priv->NodesKnown) {
    std::string NodesErr;
    St.Priv->NodeOf = learnNodes(St.comm(), C.Nodes, NodesErr);
    if (!NodesErr.empty())
      return formatv("{0} on {1}: {2}", Name, commName(St.User), NodesErr);
    St.Priv->NodesKnown = true;
  }
  Why = Text;
  if (Whole)
    *Whole = NeedsWhole;
  if (Relay)
    *Relay = RelayRadix;
  return "";
}

/// Builds the entry for Call: the first call of its key on this
/// communicator, collective over St.comm(). Returns an error text agreed
/// by every rank ("" when Out is ready).
std::string buildEntry(CommState &St, const BoundCall &Call,
                       const UserBuffers &Buffers, Entry &Out) {
  Config &C = config();
  // 1. Every rank must ask for the same call and choose alike.
  std::string ChoiceText;
  std::optional<Choice> Ch;
  if (!C.Error.empty()) {
    ChoiceText = "error: " + C.Error;
  } else if (auto X = select(Call, C.Sel)) {
    Ch = std::move(*X);
    ChoiceText = Ch->Text + " (" + Ch->Why + ")";
  } else {
    ChoiceText = "error: " + llvm::toString(X.takeError());
  }
  std::string Said = formatv("{0} sizes [{1}] -> {2}", Call.describe(),
                             sizesText(Call), ChoiceText);
  Hasher Asked;
  Digest128 K = Call.key();
  Asked.mix(K.H1);
  Asked.mix(K.H2);
  Asked.mix(ChoiceText);
  std::string Agreed = agreeOnKey(St.comm(), Asked.digest(), Said, "this call");
  if (!Agreed.empty())
    return Agreed;
  if (!Ch)
    return ChoiceText.substr(7);
  Out.Why = Ch->Why;
  if (Ch->K == Choice::Native) {
    Out.Native = true;
    verbose(St, Call, "native|" + Ch->Why, "native (" + Ch->Why + ")");
    return "";
  }
  // 2. The generator. Auto: every rank builds its own part of every
  // candidate and the ranks price them together (pmpi/JobCost.h); the
  // winner's part is kept for the pipeline.
  double T0 = steadySeconds();
  std::string Detail;
  ScheduleSource Src;
  std::string Id = Ch->K == Choice::Algorithm ? Ch->Id : std::string();
  std::string AutoText;
  std::optional<Schedule> Kept;
  std::vector<std::string> AutoExtra;
  if (Ch->K == Choice::Auto) {
    // The communicator's nodes, once per group (collective: every rank of
    // the group is here, choosing auto alike).
    if (!St.Inter && !St.Priv->NodesKnown) {
      std::string Err;
      St.Priv->NodeOf = learnNodes(St.comm(), C.Nodes, Err);
      if (!Err.empty())
        return Err;
      St.Priv->NodesKnown = true;
      if (!St.Priv->NodeOf.empty())
        verbose(
            St, Call, "nodes",
            "auto sees " + nodesText(St.Priv->NodeOf) + " (" +
                (C.Nodes.K == NodesSource::PerNode
                     ? "CHOREO_NODES=" + std::to_string(C.Nodes.RanksPerNode)
                     : std::string("MPI_Comm_split_type")) +
                ")");
    }
    std::vector<uint32_t> NoNodes;
    const std::vector<uint32_t> &NodeOf = St.Inter ? NoNodes : St.Priv->NodeOf;
    if (auto A = chooseInJob(St.comm(), Rank(St.Rank), Call, C.Sel, NodeOf)) {
      // Never slower than MPI by choice: MPICH's own runs unless choreo's
      // best is predicted faster than its model by the margin.
      if (handedToMpich(A->Time, A->MpichTime, C.Sel.Margin)) {
        Out.Native = true;
        std::string Why = formatv(
            "auto: {0} predicted {1:e3} s, MPICH's own ({2}) {3:e3} s: not "
            "{4:F0} % faster (CHOREO_MARGIN)",
            A->Id, A->Time, A->MpichId, *A->MpichTime, C.Sel.Margin * 100);
        if (nativeWaitYields(St.User))
          Why += "; a blocking call waits yielding, " + config().NativeWhy;
        verbose(St, Call, "native|auto", "native (" + Why + ")");
        return "";
      }
      Id = A->Id;
      AutoExtra = A->Extra;
      AutoText = A->Text;
      Kept = std::move(A->Part);
      Detail = formatv("auto: model time {0:e3} s, best of {1} priced in "
                       "the job",
                       A->Time, A->Candidates);
    } else {
      // Nothing serves the call: MPICH's own, as if chosen.
      Out.Native = true;
      verbose(St, Call, "native|auto",
              "native (auto: no generator serves this call)");
      return "";
    }
  }
  Out.Algorithm = AutoText.empty() ? Id : AutoText;
  // 3. The pipeline: every rank builds only its own ops (the generator's
  // rank form) and the ranks prove their parts together, unless this
  // process or CHOREO_CACHE_DIR knows the job's digest; every rank keeps
  // its own ops.
  std::vector<std::string> Extra =
      Ch->K == Choice::Algorithm ? Ch->Extra : AutoExtra;
  Src.Build = [&](std::optional<Rank> Only) -> llvm::Expected<Schedule> {
    if (Kept && Only == Rank(St.Rank)) {
      Schedule S = std::move(*Kept);
      Kept.reset();
      return S;
    }
    return buildFor(Id, Extra, Call.Header, Call.ElemBytes, Only);
  };
  double T1 = steadySeconds();
  auto Proved = proveAndAgree(St.comm(), std::move(Src), &C.Verdicts);
  if (!Proved) {
    std::string Err = llvm::toString(Proved.takeError());
    if (C.OnFallback == Fallback::Error)
      return formatv("{0} was requested ({1}) but cannot serve {2}: {3}",
                     Out.Algorithm, Ch->Why, Call.describe(), Err);
    if (C.OnFallback == Fallback::Print && St.Rank == 0)
      std::fprintf(stderr,
                   "choreo-mpi: %s: %s (%s) cannot serve it, MPICH's own "
                   "collective runs instead: %s\n",
                   Call.describe().c_str(), Out.Algorithm.c_str(),
                   Ch->Why.c_str(), Err.c_str());
    Out.Native = true;
    verbose(St, Call, "native|" + Out.Algorithm,
            "native (fallback from " + Out.Algorithm + ")");
    return "";
  }
  double BuildMs = (T1 - T0 + Proved->AcquireSeconds) * 1e3;
  // 4. The plan, on the private communicator, from this rank's ops.
  Out.Mine = std::move(Proved->S);
  PlanOptions PO;
  PO.Verify = false;
  PO.UseComm = true;
  PO.FlowControlBytes = St.Priv->FlowControl;
  auto P = Plan::create(Out.Mine, St.comm(), Buffers, PO);
  if (!P)
    return llvm::toString(P.takeError());
  Out.Plans.push_back({std::shared_ptr<Plan>(std::move(*P)), true, Buffers});
  verbose(St, Call, Out.Algorithm + "|" + Out.Why,
          formatv("{0} ({1}{2}{3}); {4}; built in {5:f2} ms{6}{7}",
                  Out.Algorithm, Out.Why, Detail.empty() ? "" : "; ", Detail,
                  Proved->How, BuildMs,
                  hasRankSizes(Call.Header)
                      ? "; each rank's part from its row and column"
                      : "",
                  St.Priv->FlowControl
                      ? formatv("; flow control from {0} bytes",
                                St.Priv->FlowControl)
                            .str()
                      : std::string()));
  return "";
}

} // namespace

Guard::Guard() { ++Depth; }
Guard::~Guard() { --Depth; }
bool Guard::active() { return Depth > 0; }

bool pmpi::enabled() {
  // MPI is initialized once and finalized once: asked until it is up, and
  // told when it goes down (finalizing, by MPI_Finalize's wrapper).
  static bool Up = false;
  static int Level = -1;
  if (!Up) {
    int Init = 0, Fin = 0;
    PMPI_Initialized(&Init);
    PMPI_Finalized(&Fin);
    if (!Init || Fin)
      return false;
    Up = true;
    PMPI_Query_thread(&Level);
  }
  return !Finalizing && Level != MPI_THREAD_MULTIPLE;
}

void pmpi::finalizing() { Finalizing = true; }

bool pmpi::contiguous(MPI_Datatype T, int &Size) {
  if (const NamedType *F = namedType(T)) {
    Size = F->Size;
    return F->Contiguous;
  }
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
  MpiArgs &A = R.Args;
  const char *Name = bindingOf(A.Call).MpiName;
  std::string NoState;
  // Any served call advances the outstanding runs.
  progressAll();
  CommState *St = stateOf(Comm, NoState);
  if (!St || !St->Priv) {
    // Without a private communicator (no context id left, say) the call is
    // MPICH's, on every rank alike.
    std::string Why =
        "no private communicator for choreo: " + (St ? St->NoPrivate : NoState);
    noteNative(Comm, Name, Why.c_str());
    return Outcome::Native;
  }
  // A started MPI_Igatherv, MPI_Iscatterv or MPI_Ialltoallv: its counts
  // travel in the run's first step (pmpi/StartedCounts.h).
  bool CountsInRun =
      (R.RootSizes || R.Heard || R.StartParts) && R.Do == Mode::Start;
  // Whether an MPI_Alltoallv learns the whole matrix
  // (its algorithm, agreed without the counts, needs it), not only what
  // its rank's part needs.
  bool Whole = false;
  uint64_t RelayRadix = 0;
  if (R.ExchangeSizes || R.Exchange || R.ExchangeParts || R.RootSizes ||
      R.Heard || R.StartParts) {
    // Counts no rank knows alone: MPICH's without them, decided alike on
    // every rank without a message (but on the communicator's first such
    // call).
    std::string Why;
    if (std::string Err =
            withoutCounts(*St, A, Why, CountsInRun, &Whole, &RelayRadix);
        !Err.empty())
      return Rc = fail(Comm, Err), Outcome::Failed;
    if (!Why.empty()) {
      noteNative(Comm, Name, Why.c_str());
      return Outcome::Native;
    }
    if (R.ExchangeParts && Whole && !R.Exchange) {
      noteNative(Comm, Name,
                 "more than 4096 ranks: its algorithm needs the whole "
                 "matrix (a header of p^2 sizes)");
      return Outcome::Native;
    }
  }
  if (CountsInRun) {
    if (C.CheckAlways) {
      // The per-call check is a collective the start must not wait for.
      noteNative(Comm, Name,
                 "a non-blocking v form under CHOREO_CHECK=always (its "
                 "per-call check would wait for the other ranks at the "
                 "start)");
      return Outcome::Native;
    }
    auto Picked = St->StartedChoice.find({int(A.Call) + StartedKey, A.Inter});
    if (Picked == St->StartedChoice.end())
      // The environment is wrong (alike on every rank: it was agreed).
      return Rc = fail(Comm, formatv("{0} on {1}: {2}", Name, commName(Comm),
                                     C.Error.empty()
                                         ? std::string("no algorithm serves it")
                                         : C.Error)),
             Outcome::Failed;
    const Choice &Ch = Picked->second;
    uint32_t Slot = nextSlot(*St);
    // Its exchange starts at once: it waits for the slot here (only with
    // more runs outstanding on the communicator than its window).
    waitForSlot(St->Priv, Slot);
    std::vector<uint32_t> NodeOf;
    if (St->Priv->NodesKnown)
      NodeOf = St->Priv->NodeOf;
    // A started MPI_Ialltoallv builds each rank's part from its row and
    // column unless its algorithm needs the whole matrix (alike on every
    // rank: the choice was agreed).
    bool PartsServe = false;
    if (R.StartParts) {
      PartsServe = Ch.K != Choice::Algorithm;
      if (const Generator *G =
              Ch.K == Choice::Algorithm ? findGenerator(Ch.Id) : nullptr)
        PartsServe = declares(G->options(), opt::rankPart());
    }
    if (R.StartParts && !PartsServe && !R.Heard) {
      noteNative(Comm, Name,
                 "a non-blocking v form over more than 256 ranks whose "
                 "algorithm needs the whole matrix (every rank would "
                 "receive it in its run's first step)");
      return Outcome::Native;
    }
    if (PartsServe)
      Rc = R.StartParts(St->Priv, Comm, commName(Comm), Slot, Ch, R);
    else
      Rc = startWithCounts(St->Priv, Comm, commName(Comm), Slot, Ch,
                           std::move(NodeOf), R);
    return Rc == MPI_SUCCESS ? Outcome::Ran : Outcome::Failed;
  }
  if (R.ExchangeSizes) {
    // Inter-allgatherv: each rank knows its own bytes and, from recvcounts,
    // what it expects of the remote group. Exchange both over the merged
    // communicator (A first); every rank then checks every rank alike.
    int N;
    PMPI_Comm_size(St->comm(), &N);
    uint64_t Mine[2] = {R.LocalBytes, sizesDigest(R.RemoteBytes)};
    std::vector<uint64_t> All(2 * size_t(N));
    yielding::allgather(Mine, 2, MPI_UINT64_T, All.data(), 2, MPI_UINT64_T,
                        St->comm());
    size_t P = A.SizesA.size(), Q = A.SizesB.size();
    std::vector<uint64_t> SA(P), SB(Q);
    for (size_t I = 0; I < P + Q; ++I)
      (I < P ? SA[I] : SB[I - P]) = All[2 * I];
    uint64_t HA = sizesDigest(SA), HB = sizesDigest(SB);
    for (size_t I = 0; I < P + Q; ++I)
      if (All[2 * I + 1] != (I < P ? HB : HA))
        return Rc = fail(Comm,
                         formatv("MPI_Allgatherv on an intercommunicator: the "
                                 "recvcounts of {0} rank {1} do not match "
                                 "what the other group sends",
                                 I < P ? "group A (low)" : "group B (high)",
                                 I < P ? I : I - P)),
               Outcome::Failed;
    A.SizesA = std::move(SA);
    A.SizesB = std::move(SB);
  }
  if (R.ExchangeParts && !Whole) {
    std::string Err = R.ExchangeParts(St->comm(), A, RelayRadix);
    if (!Err.empty())
      return Rc = fail(Comm, Err), Outcome::Failed;
  } else if (R.Exchange) {
    std::string Err = R.Exchange(St->comm(), A);
    if (!Err.empty())
      return Rc = fail(Comm, Err), Outcome::Failed;
  }
  if (R.RootSizes)
    if (std::string Err = exchangeRootSizes(St->comm(), R); !Err.empty())
      return Rc = fail(Comm, Err), Outcome::Failed;
  if (R.Completed)
    *R.Completed = A;
  // The call's key and entry: from the fast cache when these arguments came
  // before (no header, no digest), else bound to its header and looked up.
  std::optional<BoundCall> Bound;
  Key K;
  Entry *E = nullptr;
  bool Fits = FastCache::fits(A);
  FastCache::Slot *F = Fits ? St->Fast.find(A) : nullptr;
  std::optional<MpiArgs> Args; // what the fast cache keeps of a new call
  if (F) {
    K = F->K;
    E = F->E;
  } else {
    if (Fits)
      Args = A;
    auto B = bindCall(std::move(A));
    if (!B)
      return Rc = fail(Comm, llvm::toString(B.takeError())), Outcome::Failed;
    Bound = std::move(*B);
    Digest128 D = Bound->key();
    K = {D.H1, D.H2};
    auto It = St->Entries.find(K);
    E = It == St->Entries.end() ? nullptr : It->second.get();
    if (E && Args)
      St->Fast.put(*Args, K, E);
  }
  // The call bound to its header, where a message or a new entry needs it
  // (a fast-cache hit bound the same arguments before: it cannot fail).
  auto call = [&]() -> const BoundCall & {
    if (!Bound)
      Bound = llvm::cantFail(bindCall(F->Args));
    return *Bound;
  };
  // This run's slot: every rank numbers the communicator's calls alike.
  uint32_t Slot = nextSlot(*St);
  if (E && E->Native && !C.CheckAlways) {
    // Handed to MPICH before: a lookup, and the LRU order every rank keeps.
    St->Lru.splice(St->Lru.end(), St->Lru, E->Pos);
    return Outcome::Native;
  }
  // The plan to run: an idle one, bound to these buffers if one is; a new
  // sibling when every plan of the call is running (non-blocking calls).
  Entry::Instance *I = nullptr;
  if (E && !E->Native) {
    for (Entry::Instance &X : E->Plans)
      if (!X.P->running() && !planQueued(X.P.get()) &&
          (!I || (X.Bound && sameBinding(X.At, R.Buffers))))
        I = &X;
    if (!I) {
      E->Plans.push_back({std::shared_ptr<Plan>(E->Plans[0].P->sibling()),
                          false, UserBuffers()});
      I = &E->Plans.back();
    }
  }
  // What can fail once messages flow is decided before any: whether
  // MPI_Reduce_local takes the operator on the datatype (checked when a plan
  // is bound to a new pair), and this rank's binding of a cached plan to
  // its buffers. The first is alike on every rank (MPI requires the same
  // datatype and operator everywhere); the second is this rank's alone.
  bool Binds =
      !E || (!E->Native && (!I->Bound || !sameBinding(I->At, R.Buffers)));
  std::string Undefined, Unbound;
  if (Binds && R.Buffers.ReduceOp != MPI_OP_NULL)
    Undefined = reductionUndefined(R.Buffers.ReduceType, R.Buffers.ReduceOp);
  if (E && Binds && Undefined.empty()) {
    if (auto Err = I->P->rebind(E->Mine, R.Buffers)) {
      I->Bound = false;
      Unbound = formatv("{0}: rank {1}: {2}", call().describe(), St->Rank,
                        llvm::toString(std::move(Err)));
    } else {
      I->Bound = true;
      I->At = R.Buffers;
    }
  }
  if (C.CheckAlways) {
    // One 16-byte allreduce: the call's key, or this rank's problem with it.
    std::string Text = call().describe();
    Digest128 D{K.first, K.second};
    Digest128 Said = D;
    if (!Undefined.empty() || !Unbound.empty()) {
      Text = Unbound.empty() ? Text + ": " + Undefined : Unbound;
      Said = {~D.H1, D.H2 ^ (Unbound.empty() ? 1 : 2)};
    }
    std::string Err = agreeOnKey(St->comm(), Said, Text, "this call");
    if (!Err.empty())
      return Rc = fail(Comm, Err), Outcome::Failed;
  }
  if (!Undefined.empty()) {
    // MPICH reports it, on every rank, as it would without the library.
    noteNative(Comm, Name,
               ("the operator is not defined on the datatype: " + Undefined +
                "; MPICH reports it")
                   .c_str());
    return Outcome::Native;
  }
  if (!Unbound.empty()) {
    // The other ranks run the plan: this rank runs its messages empty, so
    // that nobody waits for it and every rank whose result depends on it
    // fails too.
    waitForSlot(St->Priv, Slot);
    llvm::consumeError(I->P->abandon(Slot));
    return Rc = fail(Comm, Unbound), Outcome::Failed;
  }
  if (!E) {
    auto New = std::make_unique<Entry>();
    std::string Err = buildEntry(*St, call(), R.Buffers, *New);
    if (!Err.empty())
      return Rc = fail(Comm, formatv("{0} on {1}: {2}", call().describe(),
                                     commName(Comm), Err)),
             Outcome::Failed;
    // The least recently used plan goes (every rank sees the same calls,
    // so every rank evicts the same one).
    if (St->Entries.size() >= C.MaxPlans) {
      St->Fast.drop(St->Lru.front());
      St->Entries.erase(St->Lru.front());
      St->Lru.pop_front();
    }
    E = New.get();
    St->Entries[K] = std::move(New);
    E->Pos = St->Lru.insert(St->Lru.end(), K);
    if (Args)
      St->Fast.put(*Args, K, E);
    if (!E->Native)
      I = &E->Plans[0];
  } else {
    St->Lru.splice(St->Lru.end(), St->Lru, E->Pos);
  }
  if (E->Native)
    return Outcome::Native;
  Rc = MPI_SUCCESS;
  if (R.Do == Mode::Prepare)
    return Outcome::Ran;
  if (R.Do == Mode::Start) {
    // Started now, or queued behind the outstanding run holding its slot.
    Rc = startedRun(I->P, St->Priv, Comm, call().describe(), R, Slot);
    return Rc == MPI_SUCCESS ? Outcome::Ran : Outcome::Failed;
  }
  // Blocking: the plan's run, other outstanding runs progressing beside it.
  waitForSlot(St->Priv, Slot);
  if (auto Err = I->P->start(Slot))
    return Rc = fail(Comm, formatv("{0}: {1}", call().describe(),
                                   llvm::toString(std::move(Err)))),
           Outcome::Failed;
  for (;;) {
    auto Done = I->P->progress();
    if (!Done)
      return Rc = fail(Comm, formatv("{0}: {1}", call().describe(),
                                     llvm::toString(Done.takeError()))),
             Outcome::Failed;
    if (*Done)
      break;
    progressAll();
    sched_yield();
  }
  return Outcome::Ran;
}

bool pmpi::handedOver(MPI_Comm Comm, const MpiArgs &A, bool CountsUnknown,
                      bool Started) {
  const Config &C = config();
  if (C.CheckAlways)
    return false;
  CommState *St = findState(Comm);
  if (!St || !St->Priv)
    return false; // run counts the calls until it tries again
  if (CountsUnknown) {
    auto It = St->WithoutCounts.find(
        {int(A.Call) + (Started ? StartedKey : 0), A.Inter});
    if (It == St->WithoutCounts.end() || It->second.empty())
      return false;
    // (run noted it on the communicator's first such call.)
    progressAll();
    return true;
  }
  if (!FastCache::fits(A))
    return false;
  FastCache::Slot *F = St->Fast.find(A);
  if (!F || !F->E->Native)
    return false;
  progressAll();
  ++St->Seq;
  St->Lru.splice(St->Lru.end(), St->Lru, F->E->Pos);
  return true;
}

int pmpi::failReported(MPI_Comm Comm, const std::string &Msg) {
  return fail(Comm, Msg);
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

uint64_t choreo::pmpi::relayRadixOf(const Choice &Ch) {
  if (Ch.K != Choice::Algorithm)
    return 0;
  const Generator *G = findGenerator(Ch.Id);
  if (!G || !declares(G->options(), opt::relayed()))
    return 0;
  OptionValues V;
  if (!Ch.Extra.empty()) {
    auto X = parseGenArgs(Ch.Extra);
    if (!X) { // (the generator refuses it too, alike on every rank)
      llvm::consumeError(X.takeError());
      return 0;
    }
    V = std::move(*X);
  }
  uint64_t K = V.get(opt::radix());
  return K >= 2 ? K : 0; // (the generator refuses a smaller one)
}
