//===- generators/CallOptions.cpp - A call's header as a generator's options
//===//
///
/// \file
/// callOptions: the header's fields set on the generator's declarations.
///
//===----------------------------------------------------------------------===//

#include "generators/CallOptions.h"

#include "generators/CommonOptions.h"
#include "generators/alltoall/AlltoallOptions.h"
#include "ir/PairMatrix.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

namespace {

bool allEqual(llvm::ArrayRef<uint64_t> V) {
  return llvm::all_of(V, [&](uint64_t X) { return X == V.front(); });
}

Rank groupSize(const CallHeader &H, llvm::StringRef Name) {
  const Group *G = H.group(Name);
  return G ? G->Members.size() : 0;
}

/// The values being built: G's declarations, Own's given values first.
class Values {
public:
  Values(const Generator &G, const OptionValues &Own)
      : Decls(G.options()), Out(Decls) {
    for (const OptionEntry &E : Own.entries())
      if (E.Given)
        if (const OptionDecl *D = named(E.Decl->Name))
          Out.set(*D, E.Value);
        else
          Foreign.push_back(E);
  }

  /// G's declaration of Name, if any.
  const OptionDecl *named(llvm::StringRef Name) const {
    for (const OptionDecl &D : Decls)
      if (D.Name == Name)
        return &D;
    return nullptr;
  }
  /// G's first declaration of kind K sizing Sz.
  const OptionDecl *sizing(OptionKind K, SizedGroup Sz) const {
    for (const OptionDecl &D : Decls)
      if (D.Kind == K && D.Sizes == Sz)
        return &D;
    return nullptr;
  }
  bool declares(const OptionBase &H) const {
    return choreo::declares(Decls, H);
  }

  /// Sets D to V unless Own gave it.
  void set(const OptionDecl &D, OptionValue V) {
    if (!Out.given(D))
      Out.set(D, std::move(V));
  }
  /// Sets H (by G's declaration of its name) to X, if G declares it.
  template <class T>
  void setIfDeclared(const Option<T> &H, typename Option<T>::Value X) {
    const OptionDecl *D = named(H.name());
    if (!D)
      return;
    if constexpr (std::is_same_v<T, OneOf<OperatorKind>>)
      set(*D, std::string(H.word(X)));
    else
      set(*D, OptionValue(X));
  }

  /// The values, with Own's options G does not declare after them (binding
  /// refuses those, naming the option).
  OptionValues finish() {
    for (const OptionEntry &E : Foreign)
      Out.set(*E.Decl, E.Value);
    return std::move(Out);
  }

private:
  llvm::ArrayRef<OptionDecl> Decls;
  OptionValues Out;
  std::vector<OptionEntry> Foreign;
};

} // namespace

llvm::Expected<OptionValues> choreo::callOptions(const Generator &G,
                                                 const CallHeader &H,
                                                 uint64_t ElemBytes,
                                                 const OptionValues &Own) {
  const CollectiveSpec &Spec = specOf(H.Kind);
  Values V(G, Own);
  // Intergroup: sizes per member of A, or (one vector) --q.
  bool GenInter = V.sizing(OptionKind::Size, SizedGroup::A) ||
                  V.sizing(OptionKind::SizeList, SizedGroup::A) ||
                  V.declares(opt::groupB());
  if (GenInter != Spec.Intergroup)
    return makeDiagError("pmpi", formatv("{0} is an {1}group algorithm", G.id(),
                                         GenInter ? "inter" : "intra"));
  Rank P = groupSize(H, Spec.Intergroup ? "A" : "all");
  // Reductions: --p, --bytes (n), --slices (reduce_scatter),
  // --element-bytes, --op and --root, as the generator declares them.
  if (Spec.isReduction() || V.declares(opt::elementBytes())) {
    if (!Spec.isReduction() || !V.declares(opt::elementBytes()) ||
        !V.declares(opt::reductionOp()))
      return makeDiagError("pmpi", formatv("{0} is not an algorithm for {1}",
                                           G.id(), Spec.MpiName));
    V.setIfDeclared(opt::ranks(), P);
    if (Spec.Intergroup) {
      V.setIfDeclared(opt::groupA(), P);
      V.setIfDeclared(opt::groupB(), uint64_t(groupSize(H, "B")));
    }
    V.setIfDeclared(opt::vectorBytes(), Spec.vectorLength(H));
    if (const std::vector<uint64_t> *Sl = H.sizes("slices"))
      V.setIfDeclared(opt::slices(), *Sl);
    V.setIfDeclared(opt::elementBytes(), ElemBytes);
    V.setIfDeclared(opt::reductionOp(), H.commutative()
                                            ? OperatorKind::Commutative
                                            : OperatorKind::Noncommutative);
    if (Spec.Rooted)
      V.setIfDeclared(opt::root(), uint64_t(H.Root.value_or(0)));
    return V.finish();
  }
  // An alltoall: --p, and --bytes when every block is alike, else --pairs.
  if (Spec.Data == DataKind::Alltoall) {
    V.setIfDeclared(opt::ranks(), P);
    if (Spec.Intergroup) { // the matrix over p + q ranks
      V.setIfDeclared(opt::groupA(), P);
      V.setIfDeclared(opt::groupB(), uint64_t(groupSize(H, "B")));
    }
    PairMatrix M(H);
    const std::vector<uint64_t> *Pairs = H.sizes("pairs");
    if (M.isRankView()) {
      // One rank's row and column (a rank form only).
      if (!V.declares(opt::rankPart()))
        return makeDiagError(
            "pmpi", formatv("{0} cannot build a rank's part from its row and "
                            "column alone (it needs the whole matrix)",
                            G.id()));
      RankSizes Rs;
      Rs.Me = M.viewRank();
      Rs.RowAt = M.row(Rs.Me).Lo;
      Rs.Total = M.total();
      for (llvm::StringRef Name : {"row", "column", "column_at", "used"}) {
        const std::vector<uint64_t> &X = *H.sizes(Name);
        std::vector<uint64_t> &To = Name == "row"      ? Rs.Row
                                    : Name == "column" ? Rs.Column
                                    : Name == "used"   ? Rs.Used
                                                       : Rs.ColumnAt;
        To = X;
      }
      V.setIfDeclared(opt::rankPart(), rankPartList(Rs));
      // The blocks it relays, for an algorithm that relays (Bruck's).
      if (const std::vector<uint64_t> *Rl = H.sizes("relay"))
        V.setIfDeclared(opt::relayed(), *Rl);
      return V.finish();
    }
    if (M.isInterUniform() && V.declares(opt::bytesA()) &&
        V.declares(opt::bytesB())) {
      // An intergroup sizes.block: what A sends B and back.
      V.setIfDeclared(opt::bytesA(), M.size(0, M.ranks() - 1));
      V.setIfDeclared(opt::bytesB(), M.size(M.ranks() - 1, 0));
      return V.finish();
    }
    if (M.ranks() && M.allEqual() && V.declares(opt::pairBytes()))
      V.setIfDeclared(opt::pairBytes(), M.size(0, 0));
    else if (Pairs && V.declares(opt::pairs()))
      V.setIfDeclared(opt::pairs(), *Pairs);
    else
      return makeDiagError(
          "pmpi", formatv("{0} takes no message-size option that describes "
                          "this call ({1})",
                          G.id(),
                          V.declares(opt::pairBytes())
                              ? "blocks of different sizes need --pairs"
                              : "not an alltoall algorithm"));
    return V.finish();
  }
  // Members' sizes: the size option when every member is alike (a
  // broadcast's one message), else the size list.
  bool Bcast = Spec.Data == DataKind::Broadcast;
  auto SetSizes = [&](SizedGroup Sz, llvm::StringRef Group) -> bool {
    const std::vector<uint64_t> *Got = H.sizes(Group);
    llvm::ArrayRef<uint64_t> Sizes;
    if (Got)
      Sizes = *Got;
    const OptionDecl *One = V.sizing(OptionKind::Size, Sz);
    const OptionDecl *List = V.sizing(OptionKind::SizeList, Sz);
    if (One && (allEqual(Sizes) || Bcast)) {
      V.set(*One, Sizes.empty() ? uint64_t(0) : Sizes.front());
      return true;
    }
    if (List && !Bcast) {
      V.set(*List, std::vector<uint64_t>(Sizes.begin(), Sizes.end()));
      return true;
    }
    return false;
  };
  if (const OptionDecl *D = V.named("p"); D && D->Kind == OptionKind::Count)
    V.set(*D, uint64_t(P));
  if (const OptionDecl *D = V.named("q");
      D && D->Kind == OptionKind::Count && Spec.Intergroup)
    V.set(*D, uint64_t(groupSize(H, "B")));
  if (const OptionDecl *D = V.named("root"); D && D->Kind == OptionKind::Rank)
    V.set(*D, uint64_t(H.Root.value_or(0)));
  // An intergroup broadcast's one vector.
  if (Spec.Intergroup && !Spec.sizedPerMember())
    V.setIfDeclared(opt::vectorBytes(), Spec.vectorLength(H));
  // A group that contributes nothing (half_allgather's B) and an
  // intergroup vector need no size; an intergroup scatter's groups are
  // sized as a gather's.
  auto SetGroup = [&](SizedGroup Sz, llvm::StringRef Group) {
    return !Spec.sizedPerMember() ||
           (Spec.isGatherType() && !Spec.contributes(Group)) ||
           SetSizes(Sz, Group);
  };
  // A barrier's sizes are its layout's (one byte per rank), no option's.
  bool Sized = Spec.NoPayload    ? true
               : Spec.Intergroup ? SetGroup(SizedGroup::A, "A") &&
                                       SetGroup(SizedGroup::B, "B")
                                 : SetSizes(SizedGroup::All, "all");
  if (!Sized)
    return makeDiagError(
        "pmpi", formatv("{0} takes no message-size option that describes "
                        "this call (irregular sizes need a size list)",
                        G.id()));
  return V.finish();
}

std::string choreo::variantText(llvm::StringRef Id,
                                llvm::ArrayRef<std::string> Args) {
  std::string T = Id.str();
  for (size_t I = 0; I + 1 < Args.size(); I += 2)
    T += ":" + llvm::StringRef(Args[I]).drop_front(2).str() + "=" + Args[I + 1];
  return T;
}

llvm::Expected<VariantWord> choreo::splitVariantText(llvm::StringRef Text,
                                                     llvm::StringRef Kind,
                                                     llvm::StringRef Why) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Text.split(Parts, ':');
  VariantWord W;
  W.Id = Parts[0].str();
  for (llvm::StringRef P : llvm::ArrayRef(Parts).drop_front()) {
    auto [Name, Value] = P.split('=');
    if (Name.empty() || Value.empty())
      return makeDiagError(
          Kind.str(),
          formatv("{0}: '{1}' is not NAME=VALUE (in '{2}')", Why, P, Text));
    W.Args.push_back(("--" + Name).str());
    W.Args.push_back(Value.str());
  }
  return W;
}
