//===- pmpi/Completion.cpp - MPI's completion rules over any requests -----===//
///
/// \file
/// MPI_Testall, Testany and Testsome request by request (pmpi/Completion.h),
/// and the set of MPICH's persistent requests that are active.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Completion.h"

#include <unordered_map>
#include <vector>

using namespace choreo;
using namespace choreo::pmpi;

namespace {

/// MPICH's persistent requests that MPI_Start(all) started at least once
/// and nobody freed: whether each is active.
std::unordered_map<MPI_Request, bool> &known() {
  static std::unordered_map<MPI_Request, bool> K;
  return K;
}

/// Persistent request R completed: whether it was active (inactive again).
bool deactivate(MPI_Request R) {
  auto It = known().find(R);
  if (It == known().end() || !It->second)
    return false;
  It->second = false;
  return true;
}

/// Whether R, not null, is complete (or inactive); completes nothing. A
/// request that failed is complete too: its error is PMPI_Test's to return.
bool isComplete(MPI_Request R) {
  int Flag = 0;
  int Rc = PMPI_Request_get_status(R, &Flag, MPI_STATUS_IGNORE);
  return Flag || Rc != MPI_SUCCESS;
}

/// Completes R, which isComplete says is: its status in *St and the code
/// in *Code; whether R was active (a started request, not a persistent one
/// that nobody started).
bool completeOne(MPI_Request &R, MPI_Status *St, int *Code) {
  MPI_Request Before = R;
  int Flag = 0;
  *Code = PMPI_Test(&R, &Flag, St);
  if (!Flag && *Code == MPI_SUCCESS)
    return false; // cannot happen: completion does not go back
  if (R == MPI_REQUEST_NULL)
    return true;
  return deactivate(Before);
}

/// MPI's statuses when a request failed: every MPI_ERROR set.
int inStatus(int N, MPI_Status *Sts, const std::vector<int> &Codes, int First) {
  if (Sts == MPI_STATUSES_IGNORE)
    return First;
  for (int I = 0; I < N; ++I)
    Sts[I].MPI_ERROR = Codes[I];
  return MPI_ERR_IN_STATUS;
}

} // namespace

void pmpi::noteStarted(MPI_Request R) {
  if (R != MPI_REQUEST_NULL)
    known()[R] = true;
}

void pmpi::noteFreed(MPI_Request R) {
  if (!known().empty())
    known().erase(R);
}

void pmpi::noteCompleted(MPI_Request Before, MPI_Request After) {
  if (After != MPI_REQUEST_NULL)
    deactivate(Before);
}

bool pmpi::anyKnown(int N, const MPI_Request *R) {
  if (known().empty())
    return false;
  for (int I = 0; I < N; ++I)
    if (known().count(R[I]))
      return true;
  return false;
}

int pmpi::testOne(MPI_Request *R, int *Flag, MPI_Status *St) {
  MPI_Request Before = *R;
  int Rc = PMPI_Test(R, Flag, St);
  if (*Flag && *R != MPI_REQUEST_NULL)
    deactivate(Before); // a persistent request, inactive again
  return Rc;
}

int pmpi::testAll(int N, MPI_Request *R, int *Flag, MPI_Status *Sts) {
  *Flag = 0;
  for (int I = 0; I < N; ++I)
    if (R[I] != MPI_REQUEST_NULL && !isComplete(R[I]))
      return MPI_SUCCESS; // no request modified
  *Flag = 1;
  std::vector<int> Codes(N, MPI_SUCCESS);
  int First = MPI_SUCCESS;
  for (int I = 0; I < N; ++I) {
    MPI_Status Own;
    MPI_Status *St = Sts == MPI_STATUSES_IGNORE ? &Own : &Sts[I];
    // A null request's status is empty, and PMPI_Test says so.
    completeOne(R[I], St, &Codes[I]);
    if (Codes[I] != MPI_SUCCESS && First == MPI_SUCCESS)
      First = Codes[I];
  }
  return First == MPI_SUCCESS ? MPI_SUCCESS : inStatus(N, Sts, Codes, First);
}

int pmpi::testAny(int N, MPI_Request *R, int *Index, int *Flag,
                  MPI_Status *St) {
  *Index = MPI_UNDEFINED;
  *Flag = 0;
  bool AnyActive = false;
  MPI_Status Own;
  MPI_Status *Out = St == MPI_STATUS_IGNORE ? &Own : St;
  for (int I = 0; I < N; ++I) {
    if (R[I] == MPI_REQUEST_NULL)
      continue;
    if (!isComplete(R[I])) {
      AnyActive = true;
      continue;
    }
    int Code = MPI_SUCCESS;
    if (!completeOne(R[I], Out, &Code))
      continue; // inactive: MPI ignores it
    *Index = I;
    *Flag = 1;
    return Code;
  }
  if (!AnyActive) {
    // No active request: flag 1, MPI_UNDEFINED and an empty status.
    *Flag = 1;
    MPI_Request Null = MPI_REQUEST_NULL;
    int F = 0;
    PMPI_Test(&Null, &F, Out);
  }
  return MPI_SUCCESS;
}

int pmpi::testSome(int N, MPI_Request *R, int *OutCount, int *Indices,
                   MPI_Status *Sts) {
  *OutCount = 0;
  bool AnyActive = false;
  std::vector<int> Codes;
  int First = MPI_SUCCESS;
  for (int I = 0; I < N; ++I) {
    if (R[I] == MPI_REQUEST_NULL)
      continue;
    if (!isComplete(R[I])) {
      AnyActive = true;
      continue;
    }
    MPI_Status Own;
    MPI_Status *St = Sts == MPI_STATUSES_IGNORE ? &Own : &Sts[*OutCount];
    int Code = MPI_SUCCESS;
    if (!completeOne(R[I], St, &Code))
      continue; // inactive: MPI ignores it
    AnyActive = true;
    Indices[*OutCount] = I;
    ++*OutCount;
    Codes.push_back(Code);
    if (Code != MPI_SUCCESS && First == MPI_SUCCESS)
      First = Code;
  }
  if (!AnyActive) {
    *OutCount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  return First == MPI_SUCCESS ? MPI_SUCCESS
                              : inStatus(*OutCount, Sts, Codes, First);
}
