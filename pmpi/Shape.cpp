//===- pmpi/Shape.cpp - A generator asked to build for a call -------------===//
///
/// \file
/// The options a generator is given for a call's header (from the
/// generator's declarations) and the build that checks its header.
///
//===----------------------------------------------------------------------===//

#include "pmpi/Shape.h"

#include "generators/CommonOptions.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using namespace choreo::pmpi;
using llvm::formatv;

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

Rank groupSize(const CallHeader &H, llvm::StringRef Name) {
  const Group *G = H.group(Name);
  return G ? G->Members.size() : 0;
}

} // namespace

llvm::Expected<std::vector<std::string>>
pmpi::generatorArgs(const Generator &G, const CallHeader &H, uint64_t ElemBytes,
                    llvm::ArrayRef<std::string> Extra) {
  const CollectiveSpec &Spec = specOf(H.Kind);
  llvm::ArrayRef<OptionDecl> Decls = G.options();
  auto Declared = [&](llvm::StringRef Name) {
    return llvm::any_of(Decls,
                        [&](const OptionDecl &D) { return D.Name == Name; });
  };
  auto Declares = [&](OptionKind K, SizedGroup Sz) -> const OptionDecl * {
    for (const OptionDecl &D : Decls)
      if (D.Kind == K && D.Sizes == Sz)
        return &D;
    return nullptr;
  };
  bool GenInter = Declares(OptionKind::Size, SizedGroup::A) ||
                  Declares(OptionKind::SizeList, SizedGroup::A);
  if (GenInter != Spec.Intergroup)
    return makeDiagError("pmpi", formatv("{0} is an {1}group algorithm", G.id(),
                                         GenInter ? "inter" : "intra"));
  std::vector<std::string> Args;
  auto Add = [&](llvm::StringRef Name, const std::string &Value) {
    if (llvm::is_contained(Extra, ("--" + Name).str()))
      return;
    Args.push_back(("--" + Name).str());
    Args.push_back(Value);
  };
  Rank P = groupSize(H, Spec.Intergroup ? "A" : "all");
  // Reductions: --p, --bytes (n), --slices (reduce_scatter),
  // --element-bytes, --op and --root, as the generator declares them.
  if (Spec.isReduction() || declares(Decls, opt::elementBytes())) {
    if (!Spec.isReduction() || !declares(Decls, opt::elementBytes()) ||
        !declares(Decls, opt::reductionOp()))
      return makeDiagError("pmpi", formatv("{0} is not an algorithm for {1}",
                                           G.id(), Spec.MpiName));
    auto AddDeclared = [&](llvm::StringRef Name, const std::string &Value) {
      if (Declared(Name))
        Add(Name, Value);
    };
    AddDeclared("p", std::to_string(P));
    AddDeclared("bytes", std::to_string(Spec.vectorLength(H)));
    if (const std::vector<uint64_t> *Sl = H.sizes("slices"))
      AddDeclared("slices", listText(*Sl));
    AddDeclared("element-bytes", std::to_string(ElemBytes));
    AddDeclared("op", H.commutative() ? "commutative" : "noncommutative");
    if (Spec.Rooted)
      AddDeclared("root", std::to_string(H.Root.value_or(0)));
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    return Args;
  }
  // Members' sizes: the size option when every member is alike (a
  // broadcast's one message), else the size list.
  bool Bcast = Spec.Data == DataKind::Broadcast;
  auto AddSizes = [&](SizedGroup Sz, llvm::StringRef Group) -> bool {
    const std::vector<uint64_t> *Got = H.sizes(Group);
    llvm::ArrayRef<uint64_t> V;
    if (Got)
      V = *Got;
    const OptionDecl *One = Declares(OptionKind::Size, Sz);
    const OptionDecl *List = Declares(OptionKind::SizeList, Sz);
    if (One && (allEqual(V) || Bcast)) {
      Add(One->Name, std::to_string(V.empty() ? 0 : V.front()));
      return true;
    }
    if (List && !Bcast) {
      Add(List->Name, listText(V));
      return true;
    }
    return false;
  };
  for (const OptionDecl &D : Decls) {
    if (D.Kind == OptionKind::Count && D.Name == "p")
      Add("p", std::to_string(P));
    else if (D.Kind == OptionKind::Count && D.Name == "q" && Spec.Intergroup)
      Add("q", std::to_string(groupSize(H, "B")));
    else if (D.Kind == OptionKind::Rank && D.Name == "root")
      Add("root", std::to_string(H.Root.value_or(0)));
  }
  bool Sized = Spec.Intergroup ? AddSizes(SizedGroup::A, "A") &&
                                     AddSizes(SizedGroup::B, "B")
                               : AddSizes(SizedGroup::All, "all");
  if (!Sized)
    return makeDiagError(
        "pmpi", formatv("{0} takes no message-size option that describes "
                        "this call (irregular sizes need a size list)",
                        G.id()));
  Args.insert(Args.end(), Extra.begin(), Extra.end());
  return Args;
}

llvm::Expected<Schedule> pmpi::buildFor(llvm::StringRef Id,
                                        llvm::ArrayRef<std::string> Extra,
                                        const CallHeader &H, uint64_t ElemBytes,
                                        std::optional<Rank> Only) {
  const Generator *G = findGenerator(Id);
  if (!G)
    return makeDiagError("pmpi", formatv("no generator {0}", Id));
  auto Args = generatorArgs(*G, H, ElemBytes, Extra);
  if (!Args)
    return Args.takeError();
  auto V = parseGenArgs(*Args);
  if (!V)
    return V.takeError();
  auto S =
      Only && G->hasRankForm() ? G->generateRank(*V, *Only) : G->generate(*V);
  if (!S)
    return S.takeError();
  std::string Why = headerMismatch(H, *S);
  if (!Why.empty())
    return makeDiagError("pmpi", formatv("{0} cannot serve {1}: {2}", Id,
                                         describeHeader(H), Why));
  return S;
}
