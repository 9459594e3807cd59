//===- pmpi/Shape.cpp - What an intercepted MPI call asks for -------------===//
///
/// \file
/// The cache key of a call, the options a generator is given for it (from
/// the generator's declarations), the check that a schedule serves the call,
/// a digest of a schedule and its restriction to one rank's ops.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Shape.h"

#include "generators/CommonOptions.h"

#include "llvm/Support/FormatVariadic.h"

#include <numeric>

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

const char *pmpi::collName(Coll C) {
  switch (C) {
  case Coll::Allgather:
    return "allgather";
  case Coll::Allgatherv:
    return "allgatherv";
  case Coll::Bcast:
    return "bcast";
  case Coll::Reduce:
    return "reduce";
  case Coll::Allreduce:
    return "allreduce";
  case Coll::ReduceScatter:
    return "reduce_scatter";
  case Coll::ReduceScatterBlock:
    return "reduce_scatter_block";
  }
  return "?";
}

const char *pmpi::mpiName(Coll C) {
  switch (C) {
  case Coll::Allgather:
    return "MPI_Allgather";
  case Coll::Allgatherv:
    return "MPI_Allgatherv";
  case Coll::Bcast:
    return "MPI_Bcast";
  case Coll::Reduce:
    return "MPI_Reduce";
  case Coll::Allreduce:
    return "MPI_Allreduce";
  case Coll::ReduceScatter:
    return "MPI_Reduce_scatter";
  case Coll::ReduceScatterBlock:
    return "MPI_Reduce_scatter_block";
  }
  return "?";
}

uint64_t CallShape::totalBytes() const {
  uint64_t T = std::accumulate(SizesA.begin(), SizesA.end(), uint64_t(0));
  return std::accumulate(SizesB.begin(), SizesB.end(), T);
}

uint64_t CallShape::averageBytes() const {
  size_t N = SizesA.size() + SizesB.size();
  return N ? totalBytes() / N : 0;
}

std::string CallShape::key() const {
  std::string K = formatv("{0}|{1}|{2}|{3}|{4}|", collName(C), Inter ? 1 : 0,
                          Root, Commutative ? 1 : 0, ElemBytes);
  for (uint64_t V : SizesA)
    K += std::to_string(V) + ",";
  K += "|";
  for (uint64_t V : SizesB)
    K += std::to_string(V) + ",";
  return K;
}

std::string CallShape::describe() const {
  std::string Where =
      Inter ? std::string(formatv("intercommunicator {0} + {1}", commSize(),
                                  remoteSize()))
            : std::string(formatv("communicator of {0}", commSize()));
  const char *Op =
      isReduction() && !Commutative ? ", an operator that does not commute"
                                    : "";
  if (C == Coll::Bcast || C == Coll::Reduce)
    return formatv("{0} ({1}, {2} bytes, root {3}{4})", mpiName(C), Where,
                   totalBytes(), Root, Op);
  if (isReduction())
    return formatv("{0} ({1}, {2} bytes{3})", mpiName(C), Where, totalBytes(),
                   Op);
  return formatv("{0} ({1}, {2} bytes in all)", mpiName(C), Where,
                 totalBytes());
}

namespace {

bool allEqual(llvm::ArrayRef<uint64_t> V) {
  return llvm::all_of(V, [&](uint64_t X) { return X == V.front(); });
}

std::string listText(llvm::ArrayRef<uint64_t> V) {
  std::string S;
  for (uint64_t X : V)
    S += (S.empty() ? "" : ",") + std::to_string(X);
  return S;
}

/// generatorArgs for a reduction call or a reduction generator: --p, --bytes
/// (n), --slices (reduce_scatter), --element-bytes, --op and --root, as
/// the generator declares them.
llvm::Expected<std::vector<std::string>>
reductionArgs(const Generator &G, const CallShape &Shape,
              llvm::ArrayRef<std::string> Extra) {
  auto Declared = [&](llvm::StringRef Name) {
    return llvm::any_of(G.options(),
                        [&](const OptionDecl &D) { return D.Name == Name; });
  };
  if (!Shape.isReduction() || !declares(G.options(), opt::elementBytes()) ||
      !declares(G.options(), opt::reductionOp()))
    return makeDiagError("pmpi", formatv("{0} is not an algorithm for {1}",
                                         G.id(), mpiName(Shape.C)));
  std::vector<std::string> Args;
  auto Add = [&](llvm::StringRef Name, const std::string &Value) {
    if (!Declared(Name) || llvm::is_contained(Extra, ("--" + Name).str()))
      return;
    Args.push_back(("--" + Name).str());
    Args.push_back(Value);
  };
  bool Sliced =
      Shape.C == Coll::ReduceScatter || Shape.C == Coll::ReduceScatterBlock;
  Add("p", std::to_string(Shape.commSize()));
  Add("bytes", std::to_string(Shape.totalBytes()));
  if (Sliced)
    Add("slices", listText(Shape.SizesA));
  Add("element-bytes", std::to_string(Shape.ElemBytes));
  Add("op", Shape.Commutative ? "commutative" : "noncommutative");
  if (Shape.C == Coll::Reduce)
    Add("root", std::to_string(Shape.Root));
  Args.insert(Args.end(), Extra.begin(), Extra.end());
  return Args;
}

} // namespace

llvm::Expected<std::vector<std::string>>
pmpi::generatorArgs(const Generator &G, const CallShape &Shape,
                    llvm::ArrayRef<std::string> Extra) {
  llvm::ArrayRef<OptionDecl> Decls = G.options();
  auto Declares = [&](OptionKind K, SizedGroup Sz) -> const OptionDecl * {
    for (const OptionDecl &D : Decls)
      if (D.Kind == K && D.Sizes == Sz)
        return &D;
    return nullptr;
  };
  bool GenInter = Declares(OptionKind::Size, SizedGroup::A) ||
                  Declares(OptionKind::SizeList, SizedGroup::A);
  if (GenInter != Shape.Inter)
    return makeDiagError("pmpi", formatv("{0} is an {1}group algorithm", G.id(),
                                         GenInter ? "inter" : "intra"));
  std::vector<std::string> Args;
  auto Given = [&](llvm::StringRef Name) {
    return llvm::is_contained(Extra, ("--" + Name).str());
  };
  auto Add = [&](llvm::StringRef Name, const std::string &Value) {
    if (Given(Name))
      return;
    Args.push_back(("--" + Name).str());
    Args.push_back(Value);
  };
  // Members' sizes: the size option when every member is alike, else the
  // size list.
  auto AddSizes = [&](SizedGroup Sz, llvm::ArrayRef<uint64_t> V) -> bool {
    const OptionDecl *One = Declares(OptionKind::Size, Sz);
    const OptionDecl *List = Declares(OptionKind::SizeList, Sz);
    if (One && (allEqual(V) || Shape.C == Coll::Bcast)) {
      Add(One->Name, std::to_string(V.empty() ? 0 : V.front()));
      return true;
    }
    if (List && Shape.C != Coll::Bcast) {
      Add(List->Name, listText(V));
      return true;
    }
    return false;
  };
  if (Shape.isReduction() || declares(Decls, opt::elementBytes()))
    return reductionArgs(G, Shape, Extra);
  for (const OptionDecl &D : Decls) {
    if (D.Kind == OptionKind::Count && D.Name == "p")
      Add("p", std::to_string(Shape.commSize()));
    else if (D.Kind == OptionKind::Count && D.Name == "q" && Shape.Inter)
      Add("q", std::to_string(Shape.remoteSize()));
    else if (D.Kind == OptionKind::Rank && D.Name == "root")
      Add("root", std::to_string(Shape.Root));
  }
  bool Sized =
      Shape.Inter
          ? AddSizes(SizedGroup::A, Shape.SizesA) &&
                AddSizes(SizedGroup::B, Shape.SizesB)
          : AddSizes(SizedGroup::All,
                     Shape.C == Coll::Bcast
                         ? llvm::ArrayRef<uint64_t>(Shape.SizesA).take_front(1)
                         : llvm::ArrayRef<uint64_t>(Shape.SizesA));
  if (!Sized)
    return makeDiagError(
        "pmpi", formatv("{0} takes no message-size option that describes "
                        "this call (irregular sizes need a size list)",
                        G.id()));
  Args.insert(Args.end(), Extra.begin(), Extra.end());
  return Args;
}

namespace {

MpiCall callOf(Coll C) {
  switch (C) {
  case Coll::Allgather:
    return MpiCall::Allgather;
  case Coll::Allgatherv:
    return MpiCall::Allgatherv;
  case Coll::Bcast:
    return MpiCall::Bcast;
  case Coll::Reduce:
    return MpiCall::Reduce;
  case Coll::Allreduce:
    return MpiCall::Allreduce;
  case Coll::ReduceScatter:
  case Coll::ReduceScatterBlock:
    return MpiCall::ReduceScatter;
  }
  return MpiCall::Allgather;
}

/// servesCall for the reductions: the call, n, the root, every rank's
/// slice, and rank order kept when the operator does not commute.
std::string servesReduction(const Schedule &S, const CallShape &Shape) {
  if (S.vectorLength() != Shape.totalBytes())
    return "its vector length is not the call's";
  if (Shape.C == Coll::Reduce && (!S.Root || *S.Root != Shape.Root))
    return "its root is not the call's";
  if (!Shape.Commutative && S.commutative())
    return "it is proved for a commutative operator only, and the call's "
           "operator does not commute";
  if (Shape.C == Coll::ReduceScatter || Shape.C == Coll::ReduceScatterBlock) {
    uint64_t At = 0;
    for (Rank R = 0; R < Shape.commSize(); ++R) {
      Interval I = S.spec().slice(S, R);
      if (I.Lo != At || I.Hi != At + Shape.SizesA[R])
        return formatv("rank {0}'s slice is not the call's", R);
      At = I.Hi;
    }
  }
  return "";
}

} // namespace

std::string pmpi::servesCall(const Schedule &S, const CallShape &Shape) {
  const CollectiveSpec &Spec = S.spec();
  if (Shape.isReduction()) {
    if (Spec.Call != callOf(Shape.C) || Spec.Intergroup || Shape.Inter)
      return formatv("it builds {0} ({1}), not {2}", collectiveName(S.Kind),
                     Spec.MpiName, Shape.describe());
    const Group *All = S.group("all");
    if (S.NumRanks != Shape.commSize() ||
        (All && All->Members.size() != Shape.commSize()))
      return "its group is not the communicator's ranks in order";
    return servesReduction(S, Shape);
  }
  bool Gather = Shape.C == Coll::Allgather || Shape.C == Coll::Allgatherv;
  bool CallOk = Gather
                    ? (Spec.Call == MpiCall::Allgather ||
                       Spec.Call == MpiCall::Allgatherv) &&
                          Spec.Result == (Shape.Inter ? ResultRule::OtherGroup
                                                      : ResultRule::Everyone)
                : Shape.C == Coll::Bcast ? Spec.Call == MpiCall::Bcast
                                         : false;
  if (!CallOk || Spec.Intergroup != Shape.Inter)
    return formatv("it builds {0} ({1}), not {2}", collectiveName(S.Kind),
                   Spec.MpiName, Shape.describe());
  auto Consecutive = [](const Group *G, Rank From, size_t N) {
    if (!G || G->Members.size() != N)
      return false;
    for (size_t I = 0; I < N; ++I)
      if (G->Members[I] != From + I)
        return false;
    return true;
  };
  auto SizesAre = [&](llvm::StringRef Name, llvm::ArrayRef<uint64_t> Want) {
    const std::vector<uint64_t> *Got = S.sizes(Name);
    return Got && llvm::ArrayRef<uint64_t>(*Got) == Want;
  };
  if (Shape.Inter) {
    if (!Consecutive(S.group("A"), 0, Shape.commSize()) ||
        !Consecutive(S.group("B"), Shape.commSize(), Shape.remoteSize()))
      return "its groups are not A = 0..p-1 and B = p..p+q-1 of the call";
    if (!SizesAre("A", Shape.SizesA) || !SizesAre("B", Shape.SizesB))
      return "its members' sizes are not the call's";
    return "";
  }
  if (!Consecutive(S.group("all"), 0, Shape.commSize()))
    return "its group is not the communicator's ranks in order";
  if (Shape.C == Coll::Bcast) {
    if (S.vectorLength() != Shape.SizesA.front() || !S.Root ||
        *S.Root != Shape.Root)
      return "its vector length or root is not the call's";
    return "";
  }
  if (!SizesAre("all", Shape.SizesA))
    return "its members' sizes are not the call's";
  return "";
}

llvm::Expected<Schedule> pmpi::buildFor(llvm::StringRef Id,
                                        llvm::ArrayRef<std::string> Extra,
                                        const CallShape &Shape,
                                        std::optional<Rank> Only) {
  const Generator *G = findGenerator(Id);
  if (!G)
    return makeDiagError("pmpi", formatv("no generator {0}", Id));
  auto Args = generatorArgs(*G, Shape, Extra);
  if (!Args)
    return Args.takeError();
  auto V = parseGenArgs(*Args);
  if (!V)
    return V.takeError();
  auto S =
      Only && G->hasRankForm() ? G->generateRank(*V, *Only) : G->generate(*V);
  if (!S)
    return S.takeError();
  std::string Why = servesCall(*S, Shape);
  if (!Why.empty())
    return makeDiagError("pmpi", formatv("{0} cannot serve {1}: {2}", Id,
                                         Shape.describe(), Why));
  return S;
}
