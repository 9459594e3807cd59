//===- pmpi/Library.h - The drop-in library's engine ------------*- C++ -*-===//
///
/// \file
/// What the MPI_* wrappers (pmpi/Wrappers.cpp) call: the configuration read
/// from the environment once (pmpi/Config.h), the per-communicator state
/// (the plan cache and the private communicator of the communicator's
/// group, pmpi/PrivateComm.h, kept as an attribute of the user's
/// communicator), and `run`, which binds the call to its header
/// (ir/CallBinding.h), finds or builds its plan (selection, agreement
/// of every rank, then the pipeline of executor/Pipeline.h with the chosen
/// generator as its builder and CHOREO_CACHE_DIR as its verdict cache) and
/// executes it, or tells the wrapper to call PMPI_*.
///
/// The engine calls MPI only through PMPI_* and through choreo's executor;
/// while it runs, a thread-local guard sends the executor's own MPI calls
/// (MPI_Allreduce, MPI_Bcast, ...) straight to PMPI_*.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_LIBRARY_H
#define CHOREO_PMPI_LIBRARY_H

#include "executor/MpiBinding.h"
#include "executor/Plan.h"

#include <functional>
#include <memory>
#include <mpi.h>

namespace choreo {
namespace pmpi {

struct Choice;      // pmpi/Selection.h
struct PrivateComm; // pmpi/PrivateComm.h

/// Marks choreo's own MPI calls: while one is alive on this thread, the
/// wrappers pass everything to PMPI_*.
class Guard {
public:
  Guard();
  ~Guard();
  static bool active();
};

/// Whether the wrappers should look at calls at all: MPI is initialized, not
/// finalized, and not in MPI_THREAD_MULTIPLE (the cache is not thread-safe).
bool enabled();
/// MPI_Comm_test_inter, MPI_Comm_size and MPI_Comm_rank of a communicator
/// the library has seen (from its state, without asking MPI), else MPI's.
bool commIsInter(MPI_Comm Comm);
int commSize(MPI_Comm Comm);
int commRank(MPI_Comm Comm);

/// MPI_Finalize's wrapper, before MPICH's: the wrappers look at no call
/// from now on.
void finalizing();

/// What a wrapper does next.
enum class Outcome {
  Ran,    ///< the plan ran; return Rc
  Native, ///< call PMPI_* with the original arguments
  Failed, ///< an error was reported (stderr, error handler); return Rc
};

/// What run does with the call's plan: run it (a blocking call), start it
/// and hand out a request (non-blocking calls, MPI_Start), or only find or
/// build it (persistent calls' MPI_*_init).
enum class Mode { Execute, Start, Prepare };

/// A wrapper's request: the call's arguments (the same on every rank) and
/// this rank's buffers. For inter-allgatherv, the local group's sizes are
/// not yet known: LocalBytes is this rank's contribution and run exchanges
/// it.
struct Request {
  MpiArgs Args;
  UserBuffers Buffers;
  /// Inter-allgatherv: this rank's bytes, and the remote members' bytes
  /// from recvcounts (checked against what they send).
  bool ExchangeSizes = false;
  uint64_t LocalBytes = 0;
  std::vector<uint64_t> RemoteBytes;
  /// Arguments only the ranks together know (MPI_Alltoallv's matrix):
  /// called by run, collectively, with choreo's private communicator
  /// before the call is bound; it completes Args, or returns an error text
  /// that must be the same on every rank (the call then fails everywhere).
  std::function<std::string(MPI_Comm, MpiArgs &)> Exchange;
  /// MPI_Alltoallv on an intracommunicator: the exchange of what this
  /// rank's part needs (its column's places, the used offsets, the
  /// matrix's key: MpiArgs::Part), O(p) a rank; run calls it instead of
  /// Exchange unless the algorithm agreed without the counts builds only
  /// from the whole matrix (then Exchange, which is empty above 4096 ranks:
  /// the call goes to MPICH). RelayRadix: the agreed algorithm's radix when
  /// its part relays blocks of other ranks (alltoall-bruck,
  /// relayRadixOf): the exchange then learns them too (a Bruck round of
  /// the sizes, MpiArgs::Part's Relay); else 0, and the exchange decides
  /// by the call's sizes whether the round runs (auto, which prices
  /// alltoall-bruck, or a rule that reads them: relayRadixAfter,
  /// pmpi/AlltoallWrappers.cpp).
  std::function<std::string(MPI_Comm, MpiArgs &, uint64_t RelayRadix)>
      ExchangeParts;
  /// MPI_Gatherv, MPI_Scatterv: only the root knows every member's bytes
  /// (Args.SizesA); LocalBytes is this rank's, and run exchanges them
  /// (pmpi/RootSizes.h).
  bool RootSizes = false;
  /// A started MPI_Alltoallv, or a started MPI_Igatherv or MPI_Iscatterv
  /// on an intercommunicator, whose counts travel in the run's first step
  /// (pmpi/StartedCounts.h): what this rank says (an alltoallv's row and
  /// its column's digest; an intercommunicator gatherv's or scatterv's
  /// root and counts), and how every rank's words complete Args (or, alike
  /// on every rank, why they do not fit). SaidMax: the ranks' words are
  /// combined by MPI_MAX into one vector of Said's length (heard as that),
  /// not gathered.
  std::vector<uint64_t> Said;
  std::function<std::string(llvm::ArrayRef<uint64_t>, MpiArgs &)> Heard;
  bool SaidMax = false;
  /// A started MPI_Ialltoallv on an intracommunicator built from each
  /// rank's row and column (pmpi/StartedParts.h): starts the run on Priv in
  /// run slot Slot with the choice every rank agreed (an algorithm with a
  /// rank form from a row and column, or auto); the return code. run calls
  /// it instead of the Said/Heard path unless the agreed algorithm needs
  /// the whole matrix (then Said/Heard when set, else MPICH's).
  std::function<int(PrivateComm *Priv, MPI_Comm User, std::string CommName,
                    uint32_t Slot, const Choice &Ch, Request &R)>
      StartParts;
  Mode Do = Mode::Execute;
  /// Mode::Start: where the request goes (a generalized request,
  /// pmpi/Progress.h); Persistent: the status is a persistent collective's.
  MPI_Request *Out = nullptr;
  bool Persistent = false;
  /// Started and persistent calls whose buffers go through packed copies:
  /// what keeps the copies alive, what packs them before each start
  /// (persistent) and unpacks them when the run completes (false: a
  /// datatype error).
  std::shared_ptr<void> Keep;
  std::function<bool()> BeforeStart, Finish;
  /// Mode::Prepare: where run leaves the call's arguments as the ranks'
  /// exchanges completed them (Exchange, RootSizes), so that every start
  /// of the persistent call binds them without exchanging again.
  MpiArgs *Completed = nullptr;
};

/// The radix of the Bruck round of the sizes that Ch's rank part of an
/// MPI_Alltoallv needs (an algorithm that declares --relayed:
/// alltoall-bruck, its --radix), or 0 (no relayed blocks, or not an
/// algorithm).
uint64_t relayRadixOf(const Choice &Ch);

/// Finds or builds the plan for R on Comm and runs it (Outcome::Ran), or
/// says to call PMPI_* (Native) or reports an error (Failed). Rc is the MPI
/// return code for Ran and Failed.
Outcome run(MPI_Comm Comm, Request &R, int &Rc);

/// The hand-over's fast path, for a wrapper before it describes the call's
/// buffers: whether a call with arguments A (as run would see them; with
/// CountsUnknown, a v form before its counts are exchanged) was handed to
/// MPICH before on Comm, so that it goes there again. True does what run
/// does for such a call (the outstanding runs progressed, the call counted
/// and its plan kept recent, alike on every rank): the wrapper then calls
/// PMPI_*. False (a new call, a plan of choreo's, CHOREO_CHECK=always, no
/// state on Comm yet): run decides.
/// Started: a started MPI_Igatherv or MPI_Iscatterv on an
/// intracommunicator, whose decision is its own (pmpi/StartedCounts.h).
bool handedOver(MPI_Comm Comm, const MpiArgs &A, bool CountsUnknown = false,
                bool Started = false);

/// Reports Msg (stderr, as every library error) and calls Comm's error
/// handler; the error code.
int failReported(MPI_Comm Comm, const std::string &Msg);

/// A call the library will not run, with the reason (CHOREO_VERBOSE).
void noteNative(MPI_Comm Comm, const char *Call, const char *Why);

/// Frees every communicator's state (from MPI_Finalize, before PMPI).
void shutdown();

/// Whether the datatype is contiguous (true extent = size, lower bound 0),
/// and its size.
bool contiguous(MPI_Datatype T, int &Size);

} // namespace pmpi
} // namespace choreo

#endif
