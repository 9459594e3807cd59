//===- pmpi/PrivateComm.h - Private communicators, one per group -*- C++
//-*-===//
///
/// \file
/// Where the library's messages travel: a private intracommunicator per
/// distinct group of processes (a duplicate of the first user communicator
/// of that group the library serves, or for an intercommunicator the merge
/// of its groups, A first), shared by every user communicator whose group
/// is the same processes in the same rank order, and freed with the last of
/// them. An application that duplicates MPI_COMM_WORLD 2,046 times costs
/// the library one context id, not 2,046.
///
/// Sharing is safe because MPI requires the ranks to call the collectives
/// of communicators that share processes in an order without cycles: the
/// communicators of one group are used in the same order on every rank, so
/// the library's messages on their shared communicator (agreement
/// collectives, and plans whose tags derive from their steps) follow one
/// sequence on every rank, as the calls of a single communicator do.
///
/// Whether a group's private communicator exists is agreed by every rank of
/// the user communicator (a rank may have freed it with its last user while
/// another still uses it), and so is the success of making one: a failure
/// (no context id left) is every rank's, and the caller hands the calls of
/// that communicator to MPICH.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_PMPI_PRIVATECOMM_H
#define CHOREO_PMPI_PRIVATECOMM_H

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace choreo {
namespace pmpi {

/// A private intracommunicator and the number of user communicators on it.
struct PrivateComm {
  MPI_Comm Comm = MPI_COMM_NULL;
  /// This process's rank in Comm.
  int Rank = 0;
  /// Its members' MPI_COMM_WORLD ranks in Comm's order (empty when some are
  /// outside MPI_COMM_WORLD: then it is never shared).
  std::vector<int> Members;
  int Users = 0;
  /// The number the next user communicator takes (CommState::Id): every
  /// member acquires in the same order, so every member numbers alike.
  uint32_t NextId = 0;
  /// The node of each rank of Comm, learned by the first `auto` call of an
  /// intracommunicator on it (pmpi/Nodes.h; empty: one node).
  bool NodesKnown = false;
  std::vector<uint32_t> NodeOf;
  /// Every member's configuration has handed-over blocking calls wait
  /// yielding (Config::NativeYields), agreed when the communicator was made:
  /// MPI's blocking and non-blocking collectives do not match each other,
  /// so the ranks of a call must all take the same form.
  bool NativeYields = false;
  /// Every member's flow-control threshold (Config::FlowControl), agreed
  /// when the communicator was made: the plans on it use it.
  uint64_t FlowControl = 0;
  /// The tag bound its plans use (MPI_TAG_UB, or CHOREO_TAG_UB when
  /// lower), agreed when it was made: the runs' slots fold into
  /// Plan::slotBits of it (pmpi/Library.cpp, nextSlot).
  int TagUb = 32767;
  /// The plans of the started v forms on this communicator
  /// (pmpi/StartedCounts.h), freed before the communicator.
  std::shared_ptr<void> Started;
};

/// Collective over User (an intracommunicator, or an intercommunicator
/// whose groups are in MPI_COMM_WORLD, Low telling whether this process is
/// in group A): the private communicator for User's group, shared or new,
/// with one more user. Every rank also says whether it could keep its state
/// on User (KeepOk); on return KeepOk tells whether every rank could, and
/// unless every rank could, nobody takes a communicator. Returns null on
/// every rank alike, with Why, when no communicator is taken (a rank could
/// not keep its state, or making the communicator failed on some rank); the
/// return code of every MPI call is checked, and User's error handler is
/// left as it was.
PrivateComm *acquirePrivate(MPI_Comm User, bool Inter, bool Low, bool &KeepOk,
                            std::string &Why);

/// One user fewer; the communicator is freed with its last user. Local.
void releasePrivate(PrivateComm *P);

/// C's error handler set to MPI_ERRORS_RETURN while alive: the default
/// handler would abort the job on a failure the library answers itself.
class ReturnErrors {
public:
  explicit ReturnErrors(MPI_Comm C);
  ~ReturnErrors();
  ReturnErrors(const ReturnErrors &) = delete;
  ReturnErrors &operator=(const ReturnErrors &) = delete;

private:
  MPI_Comm C;
  MPI_Errhandler Old = MPI_ERRHANDLER_NULL;
};

/// MPI's error string for Rc, on one line.
std::string mpiErrorText(int Rc);

} // namespace pmpi
} // namespace choreo

#endif
