//===- pmpi/PrivateComm.cpp - Private communicators, one per group --------===//
///
/// \file
/// The table of private communicators by group, the agreement of a user
/// communicator's ranks on taking one, and their release.
///
//===----------------------------------------------------------------------===//

#include "pmpi/PrivateComm.h"

#include "pmpi/Config.h"

#include "executor/Plan.h"
#include "executor/Yielding.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <map>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// The communicator each group uses now (a group's older one lives on
/// until its last user goes).
std::map<std::vector<int>, PrivateComm *> &current() {
  static std::map<std::vector<int>, PrivateComm *> M;
  return M;
}

/// The MPI_COMM_WORLD ranks of Group's members, in order; empty when one is
/// outside MPI_COMM_WORLD or MPI cannot tell.
bool worldRanks(MPI_Group Group, std::vector<int> &Out) {
  MPI_Group World;
  int N = 0;
  if (PMPI_Group_size(Group, &N) != MPI_SUCCESS ||
      PMPI_Comm_group(MPI_COMM_WORLD, &World) != MPI_SUCCESS)
    return false;
  std::vector<int> Ranks(N), In(N);
  for (int I = 0; I < N; ++I)
    Ranks[I] = I;
  int Rc = PMPI_Group_translate_ranks(Group, N, Ranks.data(), World, In.data());
  PMPI_Group_free(&World);
  if (Rc != MPI_SUCCESS ||
      std::find(In.begin(), In.end(), MPI_UNDEFINED) != In.end())
    return false;
  Out.insert(Out.end(), In.begin(), In.end());
  return true;
}

/// The private communicator's members as MPI_COMM_WORLD ranks: User's group
/// (intra), or group A then group B (inter); empty when unknown.
std::vector<int> membersOf(MPI_Comm User, bool Inter, bool Low) {
  std::vector<int> Out;
  MPI_Group Local, Remote = MPI_GROUP_NULL;
  if (PMPI_Comm_group(User, &Local) != MPI_SUCCESS)
    return {};
  bool Ok = !Inter || PMPI_Comm_remote_group(User, &Remote) == MPI_SUCCESS;
  if (Ok && !Inter)
    Ok = worldRanks(Local, Out);
  else if (Ok)
    Ok = worldRanks(Low ? Local : Remote, Out) &&
         worldRanks(Low ? Remote : Local, Out);
  PMPI_Group_free(&Local);
  if (Remote != MPI_GROUP_NULL)
    PMPI_Group_free(&Remote);
  return Ok ? Out : std::vector<int>();
}

/// The minimum over every rank of User of each of V's N values (on an
/// intercommunicator, where each group receives the other's reduction,
/// twice: the second reduces what the remote group received, the own
/// group's minimum). The MPI return code.
int allMin(MPI_Comm User, bool Inter, int *V, int N) {
  if (!Inter)
    return yielding::allreduce(MPI_IN_PLACE, V, N, MPI_INT, MPI_MIN, User);
  std::vector<int> Remote(N), Own(N);
  int Rc = yielding::allreduce(V, Remote.data(), N, MPI_INT, MPI_MIN, User);
  if (Rc == MPI_SUCCESS)
    Rc = yielding::allreduce(Remote.data(), Own.data(), N, MPI_INT, MPI_MIN,
                             User);
  for (int I = 0; I < N; ++I)
    V[I] = std::min(Remote[I], Own[I]);
  return Rc;
}

} // namespace

ReturnErrors::ReturnErrors(MPI_Comm C) : C(C) {
  if (PMPI_Comm_get_errhandler(C, &Old) != MPI_SUCCESS)
    Old = MPI_ERRHANDLER_NULL;
  else
    PMPI_Comm_set_errhandler(C, MPI_ERRORS_RETURN);
}

ReturnErrors::~ReturnErrors() {
  if (Old == MPI_ERRHANDLER_NULL)
    return;
  PMPI_Comm_set_errhandler(C, Old);
  PMPI_Errhandler_free(&Old);
}

std::string pmpi::mpiErrorText(int Rc) {
  char Msg[MPI_MAX_ERROR_STRING];
  int Len = 0;
  if (PMPI_Error_string(Rc, Msg, &Len) != MPI_SUCCESS)
    return "MPI error " + std::to_string(Rc);
  llvm::StringRef S = llvm::StringRef(Msg, Len).trim();
  // MPICH's error stacks: the class, then one line per frame
  // ("FUNCTION(LINE)...: message"), the innermost, which says why, last.
  auto [Class, Stack] = S.split('\n');
  Class.consume_back(", error stack:");
  llvm::StringRef Last = Stack.rsplit('\n').second;
  if (Last.empty())
    Last = Stack;
  Last = Last.split(": ").second.trim();
  if (Last.empty())
    return Class.trim().str();
  return Class.trim().str() + ": " + Last.str();
}

PrivateComm *pmpi::acquirePrivate(MPI_Comm User, bool Inter, bool Low,
                                  bool &KeepOk, std::string &Why) {
  ReturnErrors Returns(User);
  std::vector<int> Members = membersOf(User, Inter, Low);
  auto It = Members.empty() ? current().end() : current().find(Members);
  // 1. Every rank kept its state, and every rank has the group's
  // communicator (a rank may have freed it with its last user already).
  // The flow-control threshold too (below 2^31, pmpi/Config.cpp): a gated
  // send waits for a clear-to-send only a rank with the same threshold sends.
  // And the tag bound the plans use (CHOREO_TAG_UB may lower MPI_TAG_UB):
  // the runs' slots fold into it alike on every rank.
  int FlowControl = int(config().FlowControl);
  int *Ub = nullptr, HasUb = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &Ub, &HasUb);
  int TagUb = Plan::usableTagUb(HasUb && Ub ? *Ub : 32767);
  int Agreed[7] = {KeepOk,      It != current().end(), config().NativeYields,
                   FlowControl, -FlowControl,          TagUb,
                   -TagUb};
  if (int Rc = allMin(User, Inter, Agreed, 7); Rc != MPI_SUCCESS) {
    Why = "the agreement on a private communicator failed: " + mpiErrorText(Rc);
    return nullptr;
  }
  KeepOk = Agreed[0];
  if (!KeepOk) {
    Why = "a rank could not keep the library's state on the communicator";
    return nullptr;
  }
  if (Agreed[3] != -Agreed[4]) {
    Why = "the ranks' flow-control thresholds differ (CHOREO_FLOW_CONTROL, "
          "or the machine file's flow_control_bytes: from " +
          std::to_string(Agreed[3]) + " to " + std::to_string(-Agreed[4]) +
          " bytes, 0 is off)";
    return nullptr;
  }
  if (Agreed[5] != -Agreed[6]) {
    Why = "the ranks' tag bounds differ (CHOREO_TAG_UB, from " +
          std::to_string(Agreed[5]) + " to " + std::to_string(-Agreed[6]) +
          ")";
    return nullptr;
  }
  if (Agreed[1]) {
    ++It->second->Users;
    return It->second;
  }
  // 2. A new one, made by every rank; it counts only if every rank made it.
  auto *P = new PrivateComm();
  int Rc = Inter ? PMPI_Intercomm_merge(User, Low ? 0 : 1, &P->Comm)
                 : PMPI_Comm_dup(User, &P->Comm);
  const char *What = Inter ? "MPI_Intercomm_merge" : "MPI_Comm_dup";
  if (Rc == MPI_SUCCESS) {
    What = "MPI_Comm_set_errhandler";
    Rc = PMPI_Comm_set_errhandler(P->Comm, MPI_ERRORS_RETURN);
  }
  if (Rc == MPI_SUCCESS) {
    What = "MPI_Comm_rank";
    Rc = PMPI_Comm_rank(P->Comm, &P->Rank);
  }
  int Made = Rc == MPI_SUCCESS;
  int AgreeRc = allMin(User, Inter, &Made, 1);
  if (Rc != MPI_SUCCESS || AgreeRc != MPI_SUCCESS || !Made) {
    if (Rc != MPI_SUCCESS)
      Why = std::string(What) + " failed: " + mpiErrorText(Rc);
    else if (AgreeRc != MPI_SUCCESS)
      Why = "the agreement on a private communicator failed: " +
            mpiErrorText(AgreeRc);
    else
      Why = std::string(Inter ? "MPI_Intercomm_merge" : "MPI_Comm_dup") +
            " failed on another rank";
    if (P->Comm != MPI_COMM_NULL)
      PMPI_Comm_free(&P->Comm);
    delete P;
    return nullptr;
  }
  P->Members = std::move(Members);
  P->Users = 1;
  P->NativeYields = Agreed[2];
  P->FlowControl = uint64_t(Agreed[3]);
  P->TagUb = Agreed[5];
  if (!P->Members.empty())
    current()[P->Members] = P;
  return P;
}

void pmpi::releasePrivate(PrivateComm *P) {
  if (!P || --P->Users > 0)
    return;
  auto It = current().find(P->Members);
  if (It != current().end() && It->second == P)
    current().erase(It);
  P->Started.reset();
  int Fin = 0;
  PMPI_Finalized(&Fin);
  if (P->Comm != MPI_COMM_NULL && !Fin)
    PMPI_Comm_free(&P->Comm);
  delete P;
}
