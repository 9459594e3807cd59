//===- ir/CallBinding.cpp - MPI's collective calls and call headers -------===//
///
/// \file
/// The binding table, an MPI call's header (bindCall) and the comparison of
/// a built header with the call's.
///
//===----------------------------------------------------------------------===//

#include "ir/CallBinding.h"
#include "ir/Diagnostics.h"
#include "ir/PairMatrix.h"

#include "llvm/Support/FormatVariadic.h"

#include <cassert>
#include <numeric>

using namespace choreo;
using llvm::formatv;

namespace {

// One row per MpiCall, in its order.
const MpiBinding Bindings[] = {
    {MpiCall::Allgather, "allgather", "MPI_Allgather", Collective::Allgather,
     Collective::InterAllgather},
    {MpiCall::Allgatherv, "allgatherv", "MPI_Allgatherv",
     Collective::Allgatherv, Collective::InterAllgatherv},
    {MpiCall::Gatherv, "gatherv", "MPI_Gatherv", Collective::Gather,
     Collective::InterGather},
    {MpiCall::Bcast, "bcast", "MPI_Bcast", Collective::Bcast,
     Collective::InterBcast},
    {MpiCall::Reduce, "reduce", "MPI_Reduce", Collective::Reduce,
     Collective::InterReduce},
    {MpiCall::Allreduce, "allreduce", "MPI_Allreduce", Collective::Allreduce,
     Collective::InterAllreduce},
    {MpiCall::ReduceScatter, "reduce_scatter", "MPI_Reduce_scatter",
     Collective::ReduceScatter, std::nullopt},
    {MpiCall::ReduceScatterBlock, "reduce_scatter_block",
     "MPI_Reduce_scatter_block", Collective::ReduceScatter, std::nullopt},
    {MpiCall::Alltoall, "alltoall", "MPI_Alltoall", Collective::Alltoall,
     Collective::InterAlltoall},
    {MpiCall::Alltoallv, "alltoallv", "MPI_Alltoallv", Collective::Alltoallv,
     Collective::InterAlltoall},
    {MpiCall::Gather, "gather", "MPI_Gather", Collective::Gather,
     Collective::InterGather},
    {MpiCall::Scatter, "scatter", "MPI_Scatter", Collective::Scatter,
     Collective::InterScatter},
    {MpiCall::Scatterv, "scatterv", "MPI_Scatterv", Collective::Scatter,
     Collective::InterScatter},
    {MpiCall::Barrier, "barrier", "MPI_Barrier", Collective::Barrier,
     Collective::InterBarrier},
    {MpiCall::Scan, "scan", "MPI_Scan", Collective::Scan, std::nullopt},
    {MpiCall::Exscan, "exscan", "MPI_Exscan", Collective::Exscan, std::nullopt},
};

std::string listText(llvm::ArrayRef<uint64_t> V) {
  std::string S;
  for (size_t I = 0; I < V.size(); ++I) {
    if (I == 8)
      return S + ",...";
    S += (I ? "," : "") + std::to_string(V[I]);
  }
  return S;
}

std::string ranksText(llvm::ArrayRef<Rank> V) {
  std::vector<uint64_t> W(V.begin(), V.end());
  return listText(W);
}

/// describe() of a header whose call is named MpiName.
std::string describeAs(const CallHeader &H, llvm::StringRef MpiName,
                       uint64_t Total) {
  const CollectiveSpec &Spec = specOf(H.Kind);
  const Group *A = H.group(Spec.Intergroup ? "A" : "all");
  const Group *B = Spec.Intergroup ? H.group("B") : nullptr;
  size_t P = A ? A->Members.size() : 0, Q = B ? B->Members.size() : 0;
  std::string Where =
      Spec.Intergroup
          ? std::string(formatv("intercommunicator {0} + {1}", P, Q))
          : std::string(formatv("communicator of {0}", P));
  const char *Op = Spec.isReduction() && !H.commutative()
                       ? ", an operator that does not commute"
                       : "";
  if (Spec.NoPayload)
    return formatv("{0} ({1})", MpiName, Where);
  if (Spec.Rooted)
    return formatv("{0} ({1}, {2} bytes, root {3}{4})", MpiName, Where, Total,
                   H.Root ? *H.Root : 0, Op);
  if (Spec.isReduction())
    return formatv("{0} ({1}, {2} bytes{3})", MpiName, Where, Total, Op);
  return formatv("{0} ({1}, {2} bytes in all)", MpiName, Where, Total);
}

/// An alltoall's sizes in words: "sizes.block [n]" or "sizes.pairs [...]".
std::string pairSizesText(const CallHeader &H) {
  if (const std::vector<uint64_t> *R = H.sizes("row"))
    return "rank " +
           (H.sizes("part") && !H.sizes("part")->empty()
                ? std::to_string(H.sizes("part")->front())
                : std::string("?")) +
           "'s sizes.row [" + listText(*R) + "]";
  if (const std::vector<uint64_t> *B = H.sizes("block"))
    return "sizes.block [" + listText(*B) + "]";
  if (const std::vector<uint64_t> *P = H.sizes("pairs"))
    return "sizes.pairs [" + listText(*P) + "]";
  return "none";
}

/// An intergroup alltoall whose blocks from A to B are alike and whose
/// blocks from B to A are alike (MPI_Alltoall's one count per side).
bool interBlocksAlike(const CallHeader &H) {
  const Group *A = H.group("A"), *B = H.group("B");
  PairMatrix M(H);
  if (!A || !B || !M.ranks())
    return false;
  if (M.isInterUniform())
    return true;
  uint64_t AB = M.size(A->Members[0], B->Members[0]);
  uint64_t BA = M.size(B->Members[0], A->Members[0]);
  for (Rank I : A->Members)
    for (Rank J : B->Members)
      if (M.size(I, J) != AB || M.size(J, I) != BA)
        return false;
  return true;
}

uint64_t totalOf(const CallHeader &H) {
  uint64_t T = 0;
  for (const Buffer &B : specOf(H.Kind).buffers(H))
    T += B.Length;
  return T;
}

} // namespace

const MpiBinding &choreo::bindingOf(MpiCall C) {
  const MpiBinding &B = Bindings[static_cast<size_t>(C)];
  assert(B.Call == C && "binding table out of order");
  return B;
}

llvm::ArrayRef<MpiBinding> choreo::allBindings() { return Bindings; }

Rank BoundCall::commSize() const {
  const Group *G = Header.group(inter() ? "A" : "all");
  return G ? G->Members.size() : 0;
}

Rank BoundCall::remoteSize() const {
  const Group *G = inter() ? Header.group("B") : nullptr;
  return G ? G->Members.size() : 0;
}

std::vector<uint64_t> BoundCall::memberBytes() const {
  const CollectiveSpec &Spec = specOf(Header.Kind);
  std::vector<uint64_t> Out;
  if (Spec.sizedPerMember()) {
    for (llvm::StringRef G : Spec.groupNames())
      if (const std::vector<uint64_t> *Sz = Header.sizes(G))
        Out.insert(Out.end(), Sz->begin(), Sz->end());
    return Out;
  }
  if (const std::vector<uint64_t> *Sl = Header.sizes("slices"))
    return *Sl;
  if (Spec.Data == DataKind::Alltoall) {
    // What each rank sends, its row.
    PairMatrix M(Header);
    for (Rank R = 0; R < M.ranks(); ++R)
      Out.push_back(M.row(R).size());
    return Out;
  }
  Out.assign(Header.NumRanks, 0);
  if (!Out.empty())
    Out[0] = specOf(Header.Kind).vectorLength(Header);
  return Out;
}

uint64_t BoundCall::totalBytes() const { return totalOf(Header); }

uint64_t BoundCall::averageBytes() const {
  // An alltoall's messages are its blocks, as MPICH's avg_msg_size (the
  // bytes per destination).
  uint64_t Messages = Header.NumRanks;
  if (specOf(Header.Kind).Data == DataKind::Alltoall)
    Messages *= Header.NumRanks;
  return Messages ? totalBytes() / Messages : 0;
}

Digest128 BoundCall::key() const {
  Hasher H;
  Digest128 D;
  if (hasRankSizes(Header)) {
    // The rank's own entries differ from rank to rank; the matrix's key
    // names them all.
    CallHeader Shared = Header;
    llvm::erase_if(Shared.Sizes, [](const NamedSizes &NS) {
      return isPerRankSizesName(NS.Name);
    });
    D = headerDigest(Shared);
    H.mix(MatrixKey.H1);
    H.mix(MatrixKey.H2);
  } else {
    D = headerDigest(Header);
  }
  H.mix(uint64_t(Call));
  H.mix(D.H1);
  H.mix(D.H2);
  H.mix(ElemBytes);
  return H.digest();
}

std::string BoundCall::describe() const {
  return describeAs(Header, mpiName(), totalBytes());
}

std::string choreo::describeHeader(const CallHeader &H) {
  return describeAs(H, specOf(H.Kind).MpiName, totalOf(H));
}

llvm::Expected<BoundCall> choreo::bindCall(MpiArgs A) {
  const MpiBinding &B = bindingOf(A.Call);
  if (A.Inter && !B.Inter)
    return makeDiagError("executor",
                         formatv("{0} on an intercommunicator: choreo has no "
                                 "such collective",
                                 B.MpiName));
  BoundCall C;
  C.Call = A.Call;
  C.ElemBytes = A.ElemBytes;
  C.InPlace = A.InPlace;
  CallHeader &H = C.Header;
  H.Kind = A.Inter ? *B.Inter : B.Intra;
  const CollectiveSpec &Spec = specOf(H.Kind);
  if (Spec.Intergroup && Spec.Data == DataKind::Alltoall) {
    // The matrix over the p + q ranks; B's size from SizesB.
    Rank Q = A.SizesB.size(), P = A.Ranks > Q ? A.Ranks - Q : 0;
    setIntergroup(H, std::vector<uint64_t>(P, 0), A.SizesB);
    // MPI_Alltoall's two counts: sizes.block [a, b], O(1); MPI_Alltoallv
    // from this rank's row and column over the p + q ranks: O(p + q).
    if (A.Part) {
      setRankSizes(H, *A.Part);
      C.MatrixKey = A.MatrixKey;
    } else if (A.SizesA.size() == 2)
      setInterUniformBlock(H, A.SizesA[0], A.SizesA[1]);
    else
      H.Sizes = {{"pairs", std::move(A.SizesA)}};
  } else if (Spec.Intergroup) {
    setIntergroup(H, A.SizesA, A.SizesB);
    if (!Spec.sizedPerMember()) // one vector: sizes.all
      H.Sizes = {{"all", {A.Bytes}}};
  } else if (Spec.sizedPerMember()) {
    setIntragroup(H, A.SizesA.size(), A.SizesA);
  } else if (Spec.Data == DataKind::Alltoall) {
    setIntragroup(H, A.Ranks, {});
    // MPI_Alltoall's one count: the uniform form, O(1) whatever the ranks.
    if (A.Part) {
      // MPI_Alltoallv from this rank's row and column: O(p).
      setRankSizes(H, *A.Part);
      C.MatrixKey = A.MatrixKey;
    } else if (A.SizesA.empty())
      setUniformBlock(H, A.Bytes);
    else
      H.Sizes = {{"pairs", std::move(A.SizesA)}};
  } else if (Spec.knowsSizes("slices")) {
    uint64_t N = std::accumulate(A.SizesA.begin(), A.SizesA.end(), uint64_t(0));
    setIntragroup(H, A.SizesA.size(), {N});
    H.Sizes.push_back({"slices", std::move(A.SizesA)});
  } else {
    setIntragroup(H, A.Ranks, {A.Bytes});
  }
  if (Spec.Rooted)
    H.Root = A.Root;
  if (Spec.isReduction() && !A.Commutative)
    H.ReduceOp = ReductionOp{false};
  return C;
}

std::string choreo::headerMismatch(const CallHeader &Call,
                                   const CallHeader &Built) {
  if (!servesSameCalls(Call.Kind, Built.Kind))
    return formatv("its collective is {0} ({1}), not the call's {2} ({3})",
                   collectiveName(Built.Kind), specOf(Built.Kind).MpiName,
                   collectiveName(Call.Kind), specOf(Call.Kind).MpiName);
  if (Built.NumRanks != Call.NumRanks)
    return formatv("it has {0} ranks, the call {1}", Built.NumRanks,
                   Call.NumRanks);
  for (const Group &G : Call.Groups) {
    const Group *Got = Built.group(G.Name);
    if (!Got || Got->Members != G.Members)
      return formatv("its group {0} is [{1}], the call's [{2}]", G.Name,
                     Got ? ranksText(Got->Members) : std::string(),
                     ranksText(G.Members));
  }
  // An alltoall's sizes as the same blocks, in either form (sizes.block
  // or a matrix of entries alike are one call).
  if (specOf(Call.Kind).Data == DataKind::Alltoall) {
    PairMatrix C(Call), B(Built);
    bool Same = C.ranks() == B.ranks();
    Rank N = C.ranks();
    if (Same && (C.isRankView() || B.isRankView())) {
      // One rank's part: its row, column and offsets as the call gave them.
      for (llvm::StringRef Name : {"part", "row", "column", "column_at", "used"})
        Same = Same && Call.sizes(Name) && Built.sizes(Name) &&
               *Call.sizes(Name) == *Built.sizes(Name);
    } else if (Same && C.isUniform() && B.isUniform()) {
      Same = C.size(0, 0) == B.size(0, 0);
    } else if (Same && N && C.isInterUniform() && B.isInterUniform()) {
      // The groups are alike (above): the two sizes.
      Same = C.size(0, N - 1) == B.size(0, N - 1) &&
             C.size(N - 1, 0) == B.size(N - 1, 0);
    } else
      for (Rank I = 0; Same && I < C.ranks(); ++I)
        for (Rank J = 0; Same && J < C.ranks(); ++J)
          Same = C.size(I, J) == B.size(I, J);
    if (!Same)
      return formatv("its block sizes ({0}) are not the call's ({1})",
                     pairSizesText(Built), pairSizesText(Call));
    if (Call.Root != Built.Root)
      return formatv("its root is {0}, the call's {1}",
                     Built.Root ? std::to_string(*Built.Root) : "none",
                     Call.Root ? std::to_string(*Call.Root) : "none");
    return "";
  }
  for (const NamedSizes &NS : Call.Sizes) {
    const std::vector<uint64_t> *Got = Built.sizes(NS.Name);
    if (!Got || *Got != NS.Values)
      return formatv("its sizes.{0} are [{1}], the call's [{2}]", NS.Name,
                     Got ? listText(*Got) : std::string(), listText(NS.Values));
  }
  if (Call.Root != Built.Root)
    return formatv("its root is {0}, the call's {1}",
                   Built.Root ? std::to_string(*Built.Root) : "none",
                   Call.Root ? std::to_string(*Call.Root) : "none");
  if (!Call.commutative() && Built.commutative())
    return "it is proved for a commutative operator only, and the call's "
           "operator does not commute";
  return "";
}

MpiCall choreo::nativeCall(const CallHeader &H) {
  const CollectiveSpec &Spec = specOf(H.Kind);
  if (Spec.Call == MpiCall::Alltoall && Spec.Intergroup)
    return interBlocksAlike(H) ? MpiCall::Alltoall : MpiCall::Alltoallv;
  if (Spec.Call == MpiCall::Alltoall)
    return PairMatrix(H).allEqual() ? MpiCall::Alltoall : MpiCall::Alltoallv;
  bool Alike = true;
  // An intergroup root's group moves nothing: only the other group counts.
  auto RootsGroup = [&](const Group *G) {
    return Spec.Intergroup && H.Root && llvm::is_contained(G->Members, *H.Root);
  };
  for (const NamedSizes &NS : H.Sizes)
    if (Spec.sizedPerMember() && H.group(NS.Name) &&
        !RootsGroup(H.group(NS.Name)) &&
        (Spec.contributes(NS.Name) || !Spec.isGatherType()))
      for (uint64_t V : NS.Values)
        Alike &= V == NS.Values.front();
  // MPICH runs other algorithms for the irregular forms (MPI_Gather is a
  // binomial tree, MPI_Gatherv linear): members alike take the regular one.
  switch (Spec.Call) {
  case MpiCall::Allgather:
    return Alike ? MpiCall::Allgather : MpiCall::Allgatherv;
  case MpiCall::Gatherv:
    return Alike ? MpiCall::Gather : MpiCall::Gatherv;
  case MpiCall::Scatterv:
    return Alike ? MpiCall::Scatter : MpiCall::Scatterv;
  default:
    return Spec.Call;
  }
}
