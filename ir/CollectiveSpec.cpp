//===- ir/CollectiveSpec.cpp - What each collective means -----------------===//
///
/// \file
/// The table of collective specs and the rules derived from an entry:
/// buffers, initial holdings, results and slices.
///
//===----------------------------------------------------------------------===//

#include "ir/CollectiveSpec.h"
#include "ir/CallHeader.h"
#include "ir/PairMatrix.h"

#include <cassert>

using namespace choreo;

namespace {

// One entry per collective, in the order of enum Collective.
const CollectiveSpec Specs[] = {
    {Collective::Allgather, "allgather", DataKind::Gather, false, false, false,
     ResultRule::Everyone, MpiCall::Allgather, "MPI_Allgather",
     "allgather: every rank must hold all of buffer all"},
    {Collective::Allgatherv, "allgatherv", DataKind::Gather, false, false,
     false, ResultRule::Everyone, MpiCall::Allgatherv, "MPI_Allgatherv",
     "allgatherv: every rank must hold all of buffer all"},
    {Collective::InterAllgather, "inter_allgather", DataKind::Gather, true,
     false, false, ResultRule::OtherGroup, MpiCall::Allgather, "MPI_Allgather",
     "inter_allgather: every rank of A must hold all of buffer B, every rank "
     "of B all of buffer A"},
    {Collective::InterAllgatherv, "inter_allgatherv", DataKind::Gather, true,
     false, false, ResultRule::OtherGroup, MpiCall::Allgatherv,
     "MPI_Allgatherv",
     "inter_allgatherv: every rank of A must hold all of buffer B, every rank "
     "of B all of buffer A"},
    {Collective::HalfAllgather, "half_allgather", DataKind::Gather, true, false,
     true, ResultRule::GroupB, MpiCall::Allgatherv, "MPI_Allgatherv",
     "half_allgather: every rank of B must hold all of buffer A"},
    {Collective::Gather, "gather", DataKind::Gather, false, true, false,
     ResultRule::Root, MpiCall::Gatherv, "MPI_Gatherv",
     "gather: the root must hold all of buffer all"},
    {Collective::Bcast, "bcast", DataKind::Broadcast, false, true, false,
     ResultRule::Everyone, MpiCall::Bcast, "MPI_Bcast",
     "bcast: every rank must hold all of buffer all"},
    {Collective::Reduce, "reduce", DataKind::Reduction, false, true, false,
     ResultRule::Root, MpiCall::Reduce, "MPI_Reduce",
     "reduce: the root must hold all[0,n) combined over every rank"},
    {Collective::Allreduce, "allreduce", DataKind::Reduction, false, false,
     false, ResultRule::Everyone, MpiCall::Allreduce, "MPI_Allreduce",
     "allreduce: every rank must hold all[0,n) combined over every rank"},
    {Collective::ReduceScatter, "reduce_scatter", DataKind::Reduction, false,
     false, false, ResultRule::OwnSlice, MpiCall::ReduceScatter,
     "MPI_Reduce_scatter",
     "reduce_scatter: rank i must hold its slice combined over every rank"},
    {Collective::Alltoall, "alltoall", DataKind::Alltoall, false, false, false,
     ResultRule::Column, MpiCall::Alltoall, "MPI_Alltoall",
     "alltoall: every rank j must hold every block (i, j) of buffer all"},
    {Collective::Alltoallv, "alltoallv", DataKind::Alltoall, false, false,
     false, ResultRule::Column, MpiCall::Alltoallv, "MPI_Alltoallv",
     "alltoallv: every rank j must hold every block (i, j) of buffer all"},
    {Collective::Scatter, "scatter", DataKind::Scatter, false, true, false,
     ResultRule::OwnSegment, MpiCall::Scatterv, "MPI_Scatterv",
     "scatter: member i must hold its own slice of buffer all"},
    {Collective::Barrier, "barrier", DataKind::Gather, false, false, false,
     ResultRule::Everyone, MpiCall::Barrier, "MPI_Barrier",
     "barrier: every rank must hold all of buffer all (know that every rank "
     "arrived)",
     /*NoPayload=*/true},
    // Intercommunicator bcast and reductions (MPI-4 6.2.2): sizes.all is
    // the vector; the root's group receives nothing, a group's result
    // combines the other group's vectors (contributorsOf).
    {Collective::InterBcast, "inter_bcast", DataKind::Broadcast, true, true,
     false, ResultRule::RootsOther, MpiCall::Bcast, "MPI_Bcast",
     "inter_bcast: every rank of the group without the root must hold all of "
     "buffer all"},
    {Collective::InterReduce, "inter_reduce", DataKind::Reduction, true, true,
     false, ResultRule::Root, MpiCall::Reduce, "MPI_Reduce",
     "inter_reduce: the root must hold all[0,n) combined over every rank of "
     "the other group"},
    {Collective::InterAllreduce, "inter_allreduce", DataKind::Reduction, true,
     false, false, ResultRule::Everyone, MpiCall::Allreduce, "MPI_Allreduce",
     "inter_allreduce: every rank must hold all[0,n) combined over every rank "
     "of the other group"},
    {Collective::Scan, "scan", DataKind::Reduction, false, false, false,
     ResultRule::Prefix, MpiCall::Scan, "MPI_Scan",
     "scan: rank i must hold all[0,n) combined over ranks 0..i"},
    {Collective::Exscan, "exscan", DataKind::Reduction, false, false, false,
     ResultRule::Prefix, MpiCall::Exscan, "MPI_Exscan",
     "exscan: rank i must hold all[0,n) combined over ranks 0..i-1"},
    // Intercommunicator alltoall, gather, scatter and barrier (MPI-4 6.2.2):
    // what a rank sends or receives is the other group's.
    {Collective::InterAlltoall, "inter_alltoall", DataKind::Alltoall, true,
     false, false, ResultRule::Column, MpiCall::Alltoall, "MPI_Alltoall",
     "inter_alltoall: every rank j must hold every block (i, j) of buffer "
     "all (i of the other group)"},
    {Collective::InterGather, "inter_gather", DataKind::Gather, true, true,
     false, ResultRule::Root, MpiCall::Gatherv, "MPI_Gatherv",
     "inter_gather: the root must hold all of the other group's buffer"},
    {Collective::InterScatter, "inter_scatter", DataKind::Scatter, true, true,
     false, ResultRule::OwnSegment, MpiCall::Scatterv, "MPI_Scatterv",
     "inter_scatter: member i of the group without the root must hold its "
     "own slice of its group's buffer"},
    {Collective::InterBarrier, "inter_barrier", DataKind::Gather, true, false,
     false, ResultRule::OtherGroup, MpiCall::Barrier, "MPI_Barrier",
     "inter_barrier: every rank of A must hold all of buffer B, every rank "
     "of B all of buffer A (know that every rank of the other group "
     "arrived)",
     /*NoPayload=*/true},
};

const llvm::StringRef IntergroupNames[] = {"A", "B"};

/// Whether ranks X and Y are members of one group (intergroup: A or B).
bool sameGroup(const CallHeader &S, Rank X, Rank Y) {
  for (const Group &G : S.Groups)
    if (llvm::is_contained(G.Members, X))
      return llvm::is_contained(G.Members, Y);
  return false;
}
const llvm::StringRef IntragroupNames[] = {"all"};

/// The group holding rank R, if any.
const Group *groupOf(const CallHeader &S, Rank R) {
  for (const Group &G : S.Groups)
    if (llvm::is_contained(G.Members, R))
      return &G;
  return nullptr;
}

/// The name of the group without rank R (intergroup), else "all".
llvm::StringRef otherGroupName(const CallHeader &S, Rank R) {
  const Group *G = groupOf(S, R);
  if (!G || G->Name == "all")
    return "all";
  return G->Name == "A" ? "B" : "A";
}

uint64_t sumOf(const std::vector<uint64_t> *V) {
  uint64_t Sum = 0;
  if (V)
    for (uint64_t X : *V)
      Sum += X;
  return Sum;
}

} // namespace

const CollectiveSpec &choreo::specOf(Collective C) {
  const CollectiveSpec &S = Specs[static_cast<size_t>(C)];
  assert(S.Kind == C && "spec table out of order");
  return S;
}

llvm::ArrayRef<CollectiveSpec> choreo::allCollectiveSpecs() { return Specs; }

llvm::ArrayRef<llvm::StringRef> CollectiveSpec::groupNames() const {
  if (Intergroup)
    return IntergroupNames;
  return IntragroupNames;
}

bool CollectiveSpec::contributes(llvm::StringRef G) const {
  return isGatherType() && !(OnlyAContributes && G == "B");
}

namespace {
/// Whether the collective has one buffer per group (gather type; an
/// intergroup scatter's slices per group).
bool bufferPerGroup(const CollectiveSpec &C) {
  return C.isGatherType() || (C.Data == DataKind::Scatter && C.Intergroup);
}
} // namespace

bool CollectiveSpec::knowsSizes(llvm::StringRef Name) const {
  for (llvm::StringRef G : groupNames())
    if (G == Name)
      return true;
  if (Intergroup && Name == "all") // an intergroup vector's length
    return Data == DataKind::Broadcast || Data == DataKind::Reduction;
  return (Result == ResultRule::OwnSlice && Name == "slices") ||
         (Data == DataKind::Alltoall &&
          (Name == "pairs" || Name == "block" ||
           isPerRankSizesName(Name) || Name == "used"));
}

std::vector<Buffer> CollectiveSpec::buffers(const CallHeader &S) const {
  std::vector<Buffer> Out;
  if (Data == DataKind::Alltoall) {
    // The compact forms: a closed form or a rank's view (verify() refuses
    // a length past 2^64), O(1).
    return {{"all", alltoallLength(S)}};
  }
  if (Data == DataKind::Scatter && !Intergroup)
    return {{"all", sumOf(S.sizes("all"))}};
  if (!bufferPerGroup(*this))
    return {{"all", vectorLength(S)}};
  for (llvm::StringRef G : groupNames())
    if (contributes(G) || Data == DataKind::Scatter)
      Out.push_back({G.str(), sumOf(S.sizes(G))});
  return Out;
}

std::string CollectiveSpec::bufferName(BufferId B) const {
  if (!bufferPerGroup(*this))
    return B == 0 ? "all" : "buffer#" + std::to_string(B);
  BufferId I = 0;
  for (llvm::StringRef G : groupNames())
    if ((contributes(G) || Data == DataKind::Scatter) && I++ == B)
      return G.str();
  return "buffer#" + std::to_string(B);
}

std::optional<BufferId> CollectiveSpec::bufferId(const CallHeader &S,
                                                 llvm::StringRef Name) const {
  std::vector<Buffer> Bufs = buffers(S);
  for (size_t I = 0; I < Bufs.size(); ++I)
    if (Bufs[I].Name == Name)
      return static_cast<BufferId>(I);
  return std::nullopt;
}

uint64_t CollectiveSpec::vectorLength(const CallHeader &S) const {
  if (sizedPerMember() || Data == DataKind::Alltoall)
    return 0;
  const std::vector<uint64_t> *All = S.sizes("all");
  return All && !All->empty() ? (*All)[0] : 0;
}

std::vector<Holding>
CollectiveSpec::initialHoldings(const CallHeader &S) const {
  std::vector<Holding> Out;
  switch (Data) {
  case DataKind::Broadcast:
    if (S.Root)
      Out.push_back({*S.Root, 0, 0, vectorLength(S)});
    return Out;
  case DataKind::Reduction: {
    // An intergroup reduce: the root's group contributes nothing (its
    // members marked once: sameGroup per rank would be O(p) each).
    std::vector<bool> Silent(S.NumRanks, false);
    if (Intergroup && Rooted && S.Root)
      if (const Group *G = groupOf(S, *S.Root))
        for (Rank M : G->Members)
          if (M < S.NumRanks)
            Silent[M] = true;
    for (Rank R = 0; R < S.NumRanks; ++R)
      if (!Silent[R])
        Out.push_back({R, 0, 0, vectorLength(S)});
    return Out;
  }
  case DataKind::Alltoall: {
    // Every row (O(p) memory: a matrix's rows summed, not its p^2 prefix
    // sums).
    const std::vector<uint64_t> *Pairs = S.sizes("pairs");
    if (uniformBlockOf(S) || !Pairs) {
      PairMatrix M(S);
      if (M.isRankView()) { // only its own row is known
        Out.push_back({M.viewRank(), 0, M.row(M.viewRank()).Lo,
                       M.row(M.viewRank()).Hi});
        return Out;
      }
      for (Rank R = 0; R < M.ranks(); ++R)
        Out.push_back({R, 0, M.row(R).Lo, M.row(R).Hi});
      return Out;
    }
    Rank P = S.NumRanks;
    if (!P || Pairs->size() != uint64_t(P) * P)
      return Out;
    uint64_t At = 0;
    for (Rank R = 0; R < P; ++R) {
      uint64_t Lo = At;
      for (Rank J = 0; J < P; ++J)
        At += (*Pairs)[size_t(R) * P + J];
      Out.push_back({R, 0, Lo, At});
    }
    return Out;
  }
  case DataKind::Scatter:
    // The root holds its receivers' buffer: `all`, or the other group's.
    if (S.Root)
      if (std::optional<BufferId> B = bufferId(S, otherGroupName(S, *S.Root)))
        Out.push_back({*S.Root, *B, 0, buffers(S)[*B].Length});
    return Out;
  case DataKind::Gather:
    break;
  }
  std::vector<Buffer> Bufs = buffers(S);
  for (BufferId B = 0; B < Bufs.size(); ++B) {
    const Group *G = S.group(Bufs[B].Name);
    const std::vector<uint64_t> *Sz = S.sizes(Bufs[B].Name);
    if (!G || !Sz)
      continue;
    uint64_t Off = 0;
    for (size_t I = 0; I < G->Members.size() && I < Sz->size(); ++I) {
      Out.push_back({G->Members[I], B, Off, Off + (*Sz)[I]});
      Off += (*Sz)[I];
    }
  }
  return Out;
}

std::optional<Holding> CollectiveSpec::result(const CallHeader &S,
                                              Rank R) const {
  auto InGroup = [&](llvm::StringRef G) {
    const Group *Gr = S.group(G);
    return Gr && llvm::is_contained(Gr->Members, R);
  };
  auto Whole = [&](llvm::StringRef Name) -> std::optional<Holding> {
    std::optional<BufferId> B = bufferId(S, Name);
    if (!B)
      return std::nullopt;
    return Holding{R, *B, 0, buffers(S)[*B].Length};
  };
  switch (Result) {
  case ResultRule::Everyone:
    return Whole("all");
  case ResultRule::RootsOther:
    if (S.Root && !sameGroup(S, R, *S.Root))
      return Whole("all");
    return std::nullopt;
  case ResultRule::OtherGroup:
    return Whole(InGroup("A") ? "B" : "A");
  case ResultRule::GroupB:
    if (InGroup("B"))
      return Whole("A");
    return std::nullopt;
  case ResultRule::Root:
    // An intergroup gather's root: the other group's buffer.
    if (S.Root && *S.Root == R)
      return Whole(bufferPerGroup(*this) ? otherGroupName(S, R) : "all");
    return std::nullopt;
  case ResultRule::OwnSlice: {
    Interval Sl = slice(S, R);
    return Holding{R, 0, Sl.Lo, Sl.Hi};
  }
  case ResultRule::Column:
    break; // not one range: results()
  case ResultRule::Prefix:
    if (Kind == Collective::Exscan && R == 0)
      return std::nullopt;
    return Whole("all");
  case ResultRule::OwnSegment: {
    const Group *G = groupOf(S, R);
    std::optional<BufferId> B = G ? bufferId(S, G->Name) : std::nullopt;
    if (!B || (S.Root && sameGroup(S, R, *S.Root) && Intergroup))
      return std::nullopt;
    Interval Sg = segment(S, R);
    return Holding{R, *B, Sg.Lo, Sg.Hi};
  }
  }
  return std::nullopt;
}

std::vector<Holding> CollectiveSpec::results(const CallHeader &S,
                                             Rank R) const {
  if (Result != ResultRule::Column) {
    if (std::optional<Holding> H = result(S, R))
      return {*H};
    return {};
  }
  std::vector<Holding> Out;
  const std::vector<uint64_t> *Pairs = S.sizes("pairs");
  if (uniformBlockOf(S) || !Pairs) {
    PairMatrix M(S);
    if (R >= M.ranks())
      return Out;
    for (Rank I = 0; I < M.ranks(); ++I)
      if (M.size(I, R))
        Out.push_back({R, 0, M.block(I, R).Lo, M.block(I, R).Hi});
    return Out;
  }
  // A matrix: block (I, R) starts after rows 0..I-1 and (I, 0..R-1), summed
  // as we go (O(p^2) time, O(p) memory: no p^2 prefix sums for one rank).
  Rank P = S.NumRanks;
  if (R >= P || Pairs->size() != uint64_t(P) * P)
    return Out;
  uint64_t At = 0;
  for (Rank I = 0; I < P; ++I)
    for (Rank J = 0; J < P; ++J) {
      uint64_t X = (*Pairs)[size_t(I) * P + J];
      if (J == R && X)
        Out.push_back({R, 0, At, At + X});
      At += X;
    }
  return Out;
}

std::vector<Holding> CollectiveSpec::requirements(const CallHeader &S) const {
  // Linear in the ranks: buffers computed once, groups walked in order.
  std::vector<Holding> Out;
  std::vector<Buffer> Bufs = buffers(S);
  auto WholeOf = [&](llvm::StringRef Name) -> std::optional<Holding> {
    for (BufferId B = 0; B < Bufs.size(); ++B)
      if (Bufs[B].Name == Name)
        return Holding{0, B, 0, Bufs[B].Length};
    return std::nullopt;
  };
  auto Members = [&](llvm::StringRef G, llvm::StringRef Buf) {
    const Group *Gr = S.group(G);
    std::optional<Holding> H = WholeOf(Buf);
    if (!Gr || !H)
      return;
    for (Rank R : Gr->Members)
      Out.push_back({R, H->Buf, H->Lo, H->Hi});
  };
  switch (Result) {
  case ResultRule::Everyone:
    for (llvm::StringRef G : groupNames())
      Members(G, "all");
    break;
  case ResultRule::RootsOther:
    for (llvm::StringRef G : groupNames())
      if (const Group *Gr = S.group(G);
          S.Root && Gr && !llvm::is_contained(Gr->Members, *S.Root))
        Members(G, "all");
    break;
  case ResultRule::OtherGroup:
    Members("A", "B");
    Members("B", "A");
    break;
  case ResultRule::GroupB:
    Members("B", "A");
    break;
  case ResultRule::Root:
    if (S.Root)
      if (std::optional<Holding> H = WholeOf(
              bufferPerGroup(*this) ? otherGroupName(S, *S.Root) : "all"))
        Out.push_back({*S.Root, H->Buf, H->Lo, H->Hi});
    break;
  case ResultRule::OwnSlice:
    if (const std::vector<uint64_t> *Sl = S.sizes("slices")) {
      uint64_t Off = 0;
      for (Rank R = 0; R < S.NumRanks && R < Sl->size(); ++R) {
        Out.push_back({R, 0, Off, Off + (*Sl)[R]});
        Off += (*Sl)[R];
      }
    }
    break;
  case ResultRule::Column: {
    PairMatrix M(S);
    if (M.isRankView()) { // its own column only
      for (Rank I = 0; I < M.ranks(); ++I)
        if (M.size(I, M.viewRank()))
          Out.push_back({M.viewRank(), 0, M.block(I, M.viewRank()).Lo,
                         M.block(I, M.viewRank()).Hi});
      break;
    }
    for (Rank J = 0; J < M.ranks(); ++J)
      for (Rank I = 0; I < M.ranks(); ++I)
        if (M.size(I, J))
          Out.push_back({J, 0, M.block(I, J).Lo, M.block(I, J).Hi});
    break;
  }
  case ResultRule::Prefix:
    if (std::optional<Holding> H = WholeOf("all"))
      for (Rank R = Kind == Collective::Exscan; R < S.NumRanks; ++R)
        Out.push_back({R, H->Buf, H->Lo, H->Hi});
    break;
  case ResultRule::OwnSegment:
    // Every group but an intergroup root's, in group order.
    for (llvm::StringRef Name : groupNames()) {
      const Group *G = S.group(Name);
      const std::vector<uint64_t> *Sz = S.sizes(Name);
      std::optional<Holding> H = WholeOf(Name);
      if (!G || !Sz || !H ||
          (Intergroup && S.Root && llvm::is_contained(G->Members, *S.Root)))
        continue;
      uint64_t Off = 0;
      for (size_t I = 0; I < G->Members.size() && I < Sz->size(); ++I) {
        Out.push_back({G->Members[I], H->Buf, Off, Off + (*Sz)[I]});
        Off += (*Sz)[I];
      }
    }
    break;
  }
  return Out;
}

Interval CollectiveSpec::slice(const CallHeader &S, Rank R) const {
  const std::vector<uint64_t> *Sl = S.sizes("slices");
  if (!Sl || R >= Sl->size())
    return {0, 0};
  uint64_t Off = 0;
  for (Rank X = 0; X < R; ++X)
    Off += (*Sl)[X];
  return {Off, Off + (*Sl)[R]};
}

Interval CollectiveSpec::segment(const CallHeader &S, Rank R) const {
  const Group *G = groupOf(S, R);
  const std::vector<uint64_t> *Sz = G ? S.sizes(G->Name) : nullptr;
  if (!G || !Sz)
    return {0, 0};
  uint64_t Off = 0;
  for (size_t I = 0; I < G->Members.size() && I < Sz->size(); ++I) {
    if (G->Members[I] == R)
      return {Off, Off + (*Sz)[I]};
    Off += (*Sz)[I];
  }
  return {0, 0};
}

IntervalSet CollectiveSpec::contributorsOf(const CallHeader &S, Rank R) const {
  if (Result == ResultRule::Prefix) {
    Interval W = wantedContributors(S, R);
    return W.empty() ? IntervalSet() : IntervalSet(W.Lo, W.Hi);
  }
  if (!Intergroup)
    return IntervalSet(0, S.NumRanks);
  IntervalSet Out;
  for (const Group &G : S.Groups)
    if (!llvm::is_contained(G.Members, R))
      for (Rank M : G.Members)
        Out.insert(M, M + 1);
  return Out;
}

Interval CollectiveSpec::wantedContributors(const CallHeader &S, Rank R) const {
  if (Result != ResultRule::Prefix)
    return {0, S.NumRanks};
  return {0, uint64_t(R) + (Kind == Collective::Scan)};
}

std::string choreo::collectiveNames(bool (*Keep)(const CollectiveSpec &)) {
  std::string Out;
  for (const CollectiveSpec &S : allCollectiveSpecs())
    if (!Keep || Keep(S))
      Out += (Out.empty() ? "" : ", ") + std::string(S.Name);
  return Out;
}

bool choreo::servesSameCalls(Collective X, Collective Y) {
  const CollectiveSpec &A = specOf(X), &B = specOf(Y);
  if ((A.usesAccumulators() || B.usesAccumulators()) && X != Y)
    return false; // a scan is no exscan
  return A.Data == B.Data && A.Intergroup == B.Intergroup &&
         A.Rooted == B.Rooted && A.OnlyAContributes == B.OnlyAContributes &&
         A.Result == B.Result && A.NoPayload == B.NoPayload;
}
