//===- tests/unit/GeneratorDeclarationTest.cpp - Declared = built ---------===//
///
/// \file
/// What every generator declares without building (Generator::collectives,
/// keepsRankOrder, mayServe, templates) against what it builds over a small
/// sweep of options: every schedule's collective is declared and each
/// declared collective is built; a generator keeps rank order exactly when
/// it builds for an operator that does not commute; mayServe accepts every
/// schedule the generator builds; its templates are built in, of a
/// collective it serves, their options its own. Controls: generators whose
/// declarations lie (a collective missing, one never built, rank order
/// claimed or denied wrongly) fail the same check.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "template/Template.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace choreo;
using namespace choreo::test;
using llvm::formatv;

namespace {

/// "3,0,1,...": N irregular sizes, a zero among them.
std::string irregular(uint32_t N) {
  std::string S;
  for (uint32_t I = 0; I < N; ++I)
    S += (I ? "," : "") + std::to_string((5 * I + 3) % 7);
  return S;
}

/// The option sets of the sweep: counts, sizes of every kind a generator
/// may take (none, one size, a size list, per group, a vector), with and
/// without a root and an operator that does not commute. A generator refuses
/// those it does not declare.
const std::vector<std::string> &sweep() {
  static const std::vector<std::string> All = [] {
    std::vector<std::string> Out;
    for (uint32_t P : {1, 2, 3, 4, 5, 8})
      for (uint32_t Q : {0, 1, 2, 3}) {
        std::string Counts = "--p " + std::to_string(P);
        if (Q)
          Counts += " --q " + std::to_string(Q);
        std::vector<std::string> Sizes = {"--bytes 24",
                                          "--counts " + irregular(P),
                                          "--pairs " + irregular(P * P)};
        // Collectives without sizes (a barrier), with and without a radix.
        if (!Q) {
          Out.push_back(Counts);
          Out.push_back(Counts + " --radix 3");
        }
        // An intergroup barrier; an intergroup gather or scatter, the root
        // in A (the other group's sizes alone).
        if (Q) {
          Out.push_back(Counts);
          Out.push_back(Counts + " --bytes-b 4 --root " +
                        std::to_string(P - 1));
          Out.push_back(Counts + " --counts-b " + irregular(Q) + " --root " +
                        std::to_string(P - 1));
        }
        if (Q) {
          Sizes.push_back("--bytes-a 6");
          Sizes.push_back("--bytes-a 6 --bytes-b 4");
          Sizes.push_back("--counts-a " + irregular(P));
          Sizes.push_back("--counts-a " + irregular(P) + " --counts-b " +
                          irregular(Q));
        }
        for (const std::string &Sz : Sizes)
          for (bool Root : {false, true})
            for (const char *Op : {"", " --op noncommutative"})
              Out.push_back(Counts + " " + Sz +
                            (Root ? " --root " + std::to_string(P - 1) : "") +
                            Op);
      }
    return Out;
  }();
  return All;
}

llvm::Expected<Schedule> build(const Generator &G, llvm::StringRef Args) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::SplitString(Args, Parts);
  auto V = parseGenArgs(std::vector<std::string>(Parts.begin(), Parts.end()));
  if (!V)
    return V.takeError();
  return G.generate(*V);
}

/// The first way G's declarations differ from what it builds over the
/// sweep, or "".
std::string declarationMismatch(const Generator &G) {
  std::set<Collective> Built;
  bool Ordered = false;
  for (const std::string &Args : sweep()) {
    auto S = build(G, Args);
    if (!S) {
      llvm::consumeError(S.takeError());
      continue;
    }
    if (!G.collectives().contains(S->Kind))
      return formatv("{0} {1} builds {2}, which it does not declare ({3})",
                     G.id(), Args, collectiveName(S->Kind),
                     G.collectives().str());
    if (!G.mayServe(*S))
      return formatv("{0} {1}: mayServe refuses its own schedule", G.id(),
                     Args);
    Built.insert(S->Kind);
    Ordered |= specOf(S->Kind).isReduction() && !S->commutative();
  }
  if (Built.empty())
    return formatv("{0} builds nothing in the sweep", G.id());
  for (Collective C : G.collectives().members())
    if (!Built.count(C))
      return formatv("{0} declares {1} but builds it nowhere in the sweep",
                     G.id(), collectiveName(C));
  if (Ordered != G.keepsRankOrder())
    return formatv("{0} says it {1} rank order, and it builds {2}for an "
                   "operator that does not commute",
                   G.id(), G.keepsRankOrder() ? "keeps" : "does not keep",
                   Ordered ? "" : "nothing ");
  return "";
}

/// A registered generator with other declarations: the controls.
class Lying final : public Generator {
public:
  Lying(llvm::StringRef Id, CollectiveSet Claim, bool Ordered)
      : Real(*findGenerator(Id)), Claim(Claim), Ordered(Ordered) {}
  llvm::StringRef id() const override { return Real.id(); }
  llvm::StringRef summary() const override { return Real.summary(); }
  CollectiveSet collectives() const override { return Claim; }
  bool keepsRankOrder() const override { return Ordered; }
  llvm::ArrayRef<OptionDecl> options() const override { return Real.options(); }
  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    return Real.build(V);
  }

private:
  const Generator &Real;
  CollectiveSet Claim;
  bool Ordered;
};

} // namespace

TEST(GeneratorDeclarations, EveryGeneratorDeclaresWhatItBuilds) {
  for (const Generator *G : allGenerators())
    EXPECT_EQ(declarationMismatch(*G), "");
}

TEST(GeneratorDeclarations, LyingDeclarationsFail) {
  // allgatherv with --counts, undeclared.
  EXPECT_NE(declarationMismatch(
                Lying("allgather-ring", {Collective::Allgather}, false)),
            "");
  // A collective it never builds.
  EXPECT_NE(declarationMismatch(Lying("bcast-binomial",
                                      {Collective::Bcast, Collective::Gather},
                                      false)),
            "");
  // The ring combines across the wrap; the tree keeps rank order.
  EXPECT_NE(
      declarationMismatch(Lying("reduce-ring", {Collective::Reduce}, true)),
      "");
  EXPECT_NE(declarationMismatch(
                Lying("allreduce-binary-tree", {Collective::Allreduce}, false)),
            "");
  // The truth passes.
  EXPECT_EQ(declarationMismatch(
                Lying("allgather-ring",
                      {Collective::Allgather, Collective::Allgatherv}, false)),
            "");
}

TEST(GeneratorDeclarations, MayServeByTheSpec) {
  const Generator &Ring = *findGenerator("allgather-ring");
  EXPECT_TRUE(Ring.mayServe(Collective::Allgather));
  EXPECT_TRUE(Ring.mayServe(Collective::Allgatherv));
  EXPECT_FALSE(Ring.mayServe(Collective::InterAllgather));
  EXPECT_FALSE(Ring.mayServe(Collective::Bcast));
  // Regular sizes only, and still a candidate for MPI_Allgatherv's kind.
  const Generator &Root = *findGenerator("inter-allgather-root");
  EXPECT_TRUE(Root.mayServe(Collective::InterAllgatherv));
  EXPECT_FALSE(Root.mayServe(Collective::HalfAllgather));
  EXPECT_FALSE(Root.mayServe(Collective::Allgather));
  // Rooted and not, reductions and not, commutative or not.
  EXPECT_FALSE(
      findGenerator("gather-binomial")->mayServe(Collective::Allgather));
  EXPECT_FALSE(findGenerator("reduce-mpich")->mayServe(Collective::Allreduce));
  EXPECT_TRUE(findGenerator("reduce-ring")->mayServe(Collective::Reduce));
  EXPECT_FALSE(
      findGenerator("reduce-ring")->mayServe(Collective::Reduce, false));
  EXPECT_TRUE(
      findGenerator("reduce-binary-tree")->mayServe(Collective::Reduce, false));
  // A header says the same: a non-commutative allreduce.
  CallHeader H;
  H.Kind = Collective::Allreduce;
  H.ReduceOp = ReductionOp{false};
  EXPECT_FALSE(findGenerator("allreduce-ring")->mayServe(H));
  EXPECT_TRUE(findGenerator("allreduce-mpich")->mayServe(H));
}

TEST(GeneratorDeclarations, TemplatesAreBuiltInAndOfADeclaredCollective) {
  std::set<std::string> Seen;
  unsigned Pairs = 0;
  for (const Generator *G : allGenerators())
    for (const GeneratorTemplate &GT : G->templates()) {
      ++Pairs;
      EXPECT_TRUE(Seen.insert(GT.Template).second)
          << GT.Template << ": declared by two generators";
      auto T = loadTemplate(GT.Template);
      ASSERT_TRUE(bool(T)) << G->id().str() << ": "
                           << llvm::toString(T.takeError());
      EXPECT_TRUE(llvm::any_of(builtinTemplates(),
                               [&](auto NT) { return NT.first == T->Name; }))
          << GT.Template << " is not built in";
      EXPECT_TRUE(G->mayServe(T->Kind))
          << G->id().str() << ": " << GT.Template << " is a "
          << collectiveName(T->Kind).str();
      // The options parse by the generator's own declarations.
      llvm::SmallVector<llvm::StringRef, 8> Words;
      llvm::SplitString(GT.Options, Words);
      auto V = parseOptions(
          std::vector<std::string>(Words.begin(), Words.end()), G->options());
      EXPECT_TRUE(bool(V)) << G->id().str() << " " << GT.Options << ": "
                           << llvm::toString(V.takeError());
      // Bind names the generator's options (or, empty, the template's
      // parameters do).
      std::vector<std::string> Bound = T->Params;
      if (*GT.Bind) {
        auto Bs = parseBindings(GT.Bind, GT.Template);
        ASSERT_TRUE(bool(Bs)) << llvm::toString(Bs.takeError());
        Bound.clear();
        for (const auto &B : *Bs)
          Bound.push_back(B.first);
      }
      for (const std::string &Name : Bound)
        EXPECT_TRUE(llvm::any_of(
            G->options(), [&](const OptionDecl &D) { return D.Name == Name; }))
            << G->id().str() << " has no option --" << Name << " ("
            << GT.Template << ")";
    }
  // half-allgather-ring's six, -opt's three, Kang's one, the two rings',
  // the broadcasts' five, the uniform allgatherv's, recursive doubling's two
  // (p = 2^k and the fold); the linear gather's and scatter's, the linear
  // and pairwise alltoall's, the chain scan's, and Bruck's and the
  // dissemination barrier's two each; the recursive-doubling allgather's
  // one and the recursive-doubling barrier's, the binomial gather's and
  // scatter's two each; the pairwise alltoall's second (p = 2^k, XOR
  // partners) and Bruck's alltoall's one; the halving-doubling
  // allreduce's two (p = 2^k, p = 2^k + m); the recursive-doubling scan's
  // and exscan's one each (p = 2^k) (docs/templates.md).
  EXPECT_EQ(Pairs, 42u);
}
