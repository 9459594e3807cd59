//===- tests/unit/TemplateTest.cpp - Templates and their proofs -----------===//

#include "TestUtil.h"

#include "verifier/smt/Prover.h"

using namespace choreo;
using namespace choreo::test;

namespace {

Template builtin(llvm::StringRef Name) {
  for (auto [N, Text] : builtinTemplates())
    if (Name == N) {
      auto T = parseTemplate(Text, N);
      EXPECT_TRUE(bool(T)) << llvm::toString(T.takeError());
      return T ? std::move(*T) : Template();
    }
  ADD_FAILURE() << "no built-in template " << Name.str();
  return Template();
}

const char *Nonlinear = R"(
template nonlinear
collective half_allgather
params p q
let r = p / q
domain q >= 1, p >= q, p % q == 0
ranks p + q
group A [0, p)
group B [p, p + q)
topology full
message m[x] for x in [0, p) from x is A.x
goal ranks [p, p + q) get m[x] for x in [0, p)
stage exchange steps r
  for j in [0, q): send m[r * j + i] from r * j + i to p + j
stage gather steps q - 1
  for j in [0, q) if i < q - 1: send m[x] for x in [r * ((j + q - i) mod q), r * ((j + q - i) mod q) + r) from p + j to p + (j + 1) mod q
)";

} // namespace

TEST(Template, ParseErrorsNameTheLine) {
  EXPECT_EQ(
      errorText(parseTemplate("template t\ncollective frob\n", "x.choreo")),
      "x.choreo:2: unknown collective 'frob' (at end of line)");
  EXPECT_EQ(errorText(parseTemplate("template t\nsend m[0] from 0 to 1\n",
                                    "x.choreo")),
            "x.choreo:2: an op outside a stage (start one with 'stage NAME "
            "steps N') (at 'send')");
  EXPECT_EQ(errorText(parseTemplate("template t\nranks 4 +\n", "x.choreo")),
            "x.choreo:2: expected an expression (at end of line)");
  std::string NoFamily = "template t\ncollective half_allgather\nparams p\n"
                         "ranks 2\nmessage m[j] for j in [0, 1) from j is A.j\n"
                         "stage s steps 1\n  send z[0] from 0 to 1\n";
  EXPECT_EQ(errorText(parseTemplate(NoFamily, "x.choreo")),
            "x.choreo:7: unknown message family 'z'");
}

TEST(Template, CollectiveRulesNameTheCollectives) {
  // Gather is rooted: its template names the root.
  EXPECT_EQ(errorText(parseTemplate("template t\ncollective gather\nranks 2\n"
                                    "group all [0, 2)\n"
                                    "message m[j] for j in [0, 2) from j is "
                                    "all.j\nstage s steps 1\n"
                                    "  send m[0] from 0 to 1\n",
                                    "x.choreo")),
            "x.choreo: gather needs 'root EXPR'");
  // Alltoallv's blocks are a matrix of sizes: no template states it.
  EXPECT_EQ(
      errorText(parseTemplate("template t\ncollective alltoallv\nranks 2\n"
                              "group all [0, 2)\n"
                              "message m[j] for j in [0, 2) from j is "
                              "all.j\nstage s steps 1\n"
                              "  send m[0] from 0 to 1\n",
                              "x.choreo")),
      "x.choreo: templates state the gather-type collectives (allgather(v), "
      "inter_allgather(v), half_allgather, gather, barrier, inter_gather, "
      "inter_barrier), bcast, scatter, alltoall and the reductions of one "
      "group, not alltoallv");
  // The intercommunicator's rooted collectives and alltoall: none yet.
  for (const char *C : {"inter_gather", "inter_scatter", "inter_alltoall"})
    EXPECT_EQ(errorText(parseTemplate(
                  std::string("template t\ncollective ") + C +
                      "\nranks 2\nroot 0\ngroup A [0, 1)\ngroup B [1, 2)\n"
                      "message m[j] for j in [0, 1) from j is A.j\n"
                      "stage s steps 1\n  send m[0] from 0 to 1\n",
                  "x.choreo")),
              std::string("x.choreo: ") + C +
                  " has no template form (gather, scatter and alltoall "
                  "templates are of one group)")
        << C;
  EXPECT_EQ(errorText(parseTemplate("template t\ncollective allgather\n"
                                    "ranks 2\ngroup all [0, 2)\n"
                                    "segment x[j] for j in [0, 1)\n"
                                    "stage s steps 1\n"
                                    "  send x[0] from 0 to 1\n",
                                    "x.choreo")),
            "x.choreo:5: 'segment' is for reductions (reduce, allreduce, "
            "reduce_scatter, scan, exscan)");
}

TEST(Template, DomainIsChecked) {
  Template T = builtin("ring-equal");
  EXPECT_EQ(errorText(bindParams(T, {{"p", 4}, {"q", 6}})),
            "p = 4, q = 6 is outside the domain of ring-equal: `p == q` does "
            "not hold");
  EXPECT_EQ(errorText(bindParams(T, {{"p", 4}})), "ring-equal needs --q");
}

// The generators against the templates, op for op: TemplateEquivalenceTest.

TEST(Template, KangTemplateExpandsToAProvedSchedule) {
  Template T = builtin("kang-divisible");
  for (auto [P, Q] : {std::pair{6, 2}, {8, 4}, {9, 3}, {5, 5}}) {
    auto [A, B] = unitSizes(T, {{"p", P}, {"q", Q}});
    auto S = expandTemplate(T, {{"p", P}, {"q", Q}}, A, B);
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    VerifyResult R = checkExplicit(*S);
    EXPECT_TRUE(R.proved()) << P << " " << Q << ": " << firstMessage(R);
  }
}

// That every registered template is proved for every parameter value is the
// ctest prove.all (`choreo prove --all`), not repeated here.

TEST(Prover, OneIndexMutationGivesASmallConfirmedCounterexample) {
  // Algorithm 1, stage 3, #2 unpacks from 3h - i + 2j - 1; make it 3h - i +
  // 2j (one index off).
  std::string Text;
  for (auto [N, T] : builtinTemplates())
    if (llvm::StringRef(N) == "ring-equal")
      Text = T;
  size_t At = Text.find("from 3 * h - i + 2 * j - 1 to 3 * h - i + 2 * j - 2");
  ASSERT_NE(At, std::string::npos);
  Text.replace(At, 51, "from 3 * h - i + 2 * j to 3 * h - i + 2 * j - 1");
  auto T = parseTemplate(Text, "mutant");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  auto R = proveTemplate(*T);
  ASSERT_TRUE(bool(R));
  const Obligation *Cex = R->firstCounterexample();
  ASSERT_NE(Cex, nullptr);
  // Small parameters, in the domain, that the explicit engine refutes.
  int64_t P = Cex->Model.at("p"), Q = Cex->Model.at("q");
  EXPECT_LE(P + Q, 16);
  auto [A, B] = unitSizes(*T, {{"p", P}, {"q", Q}});
  auto S = expandTemplate(*T, {{"p", P}, {"q", Q}}, A, B);
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_FALSE(checkExplicit(*S).proved()) << Cex->Name;
}

TEST(Prover, NonlinearObligationsFallBackToABound) {
  auto T = parseTemplate(Nonlinear, "nonlinear");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  ProveOptions O;
  O.TimeoutMs = 2000;
  O.Bound = 6;
  auto R = proveTemplate(*T, O);
  ASSERT_TRUE(bool(R));
  EXPECT_TRUE(R->proved());
  bool AnyBounded = false;
  for (const Obligation &Ob : R->Obligations) {
    EXPECT_NE(Ob.R, Obligation::Result::Counterexample) << Ob.Name;
    AnyBounded |= Ob.R == Obligation::Result::ProvedBounded;
  }
  EXPECT_TRUE(AnyBounded);
}

namespace {
const Obligation *obligation(const ProveReport &R, llvm::StringRef Name) {
  for (const Obligation &O : R.Obligations)
    if (O.Name == Name)
      return &O;
  return nullptr;
}
} // namespace

TEST(Prover, RingDomainsPartitionEveryPAndQ) {
  std::vector<Template> Ts;
  for (const GeneratorTemplate &G :
       findGenerator("half-allgather-ring")->templates())
    Ts.push_back(builtin(G.Template));
  std::vector<const Template *> All;
  for (const Template &T : Ts)
    All.push_back(&T);
  auto R = proveDomainsCover(All);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  // Six templates: 15 pairs and the cover, each proved unboundedly.
  EXPECT_EQ(R->Obligations.size(), 16u);
  EXPECT_TRUE(R->unbounded());

  // Without the q = 1 pipeline, (p, q) = (1, 1) is the smallest gap.
  std::vector<const Template *> NoPipeline;
  for (const Template &T : Ts)
    if (T.Name != "ring-single-receiver")
      NoPipeline.push_back(&T);
  auto Gap = proveDomainsCover(NoPipeline);
  ASSERT_TRUE(bool(Gap));
  const Obligation *Cover = obligation(*Gap, "cover");
  ASSERT_NE(Cover, nullptr);
  EXPECT_EQ(Cover->R, Obligation::Result::Counterexample);
  EXPECT_EQ(Cover->Model, (std::map<std::string, int64_t>{{"p", 1}, {"q", 1}}));

  // Two domains that meet at p = q + 1 (odd q >= 3): (4, 3) first.
  std::string Text;
  for (auto [N, T] : builtinTemplates())
    if (llvm::StringRef(N) == "ring-receivers-first-odd")
      Text = T;
  size_t At = Text.find("p <= q\n");
  ASSERT_NE(At, std::string::npos);
  Text.replace(At, 6, "p <= q + 1");
  auto T = parseTemplate(Text, "wide");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  const Template *Pair[] = {&Ts[4], &*T};
  ASSERT_EQ(Ts[4].Name, "ring-senders-first-odd");
  auto Overlap = proveDomainsCover(Pair);
  ASSERT_TRUE(bool(Overlap));
  const Obligation *Dis =
      obligation(*Overlap, "disjoint ring-senders-first-odd "
                           "ring-receivers-first-odd");
  ASSERT_NE(Dis, nullptr);
  EXPECT_EQ(Dis->R, Obligation::Result::Counterexample);
  EXPECT_EQ(Dis->Model, (std::map<std::string, int64_t>{{"p", 4}, {"q", 3}}));
}
