//===- tests/unit/GeneratorOptionsTest.cpp - Declared generator options ---===//
///
/// \file
/// The option machinery on declarations of its own (parsing, binding,
/// defaults, choices, merging, help, params echo) and the declarations of
/// the registered generators (every name one kind, every default admitted,
/// compare's sweep taken from them), and a command's arguments read by
/// declaration (flags, values, positionals, pass-through, help).
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "generators/CommonOptions.h"
#include "options/Command.h"
#include "studies/Compare.h"

#include "llvm/ADT/STLExtras.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::test;

namespace {

std::vector<std::string> words(llvm::StringRef Args) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::SplitString(Args, Parts);
  return std::vector<std::string>(Parts.begin(), Parts.end());
}

/// The options of a made-up generator "demo", each a typed handle.
enum class Shape { Flat, Binomial, Chain };
struct Demo {
  Option<uint64_t> N = countOption("n", "number of ranks");
  Option<Size> Len = sizeOption("len", "bytes per rank", SizedGroup::All);
  Option<SizeList> Lens =
      sizeListOption("lens", "bytes, one per rank", SizedGroup::All);
  Option<uint64_t> Root = rankOption("root", "root rank").withDefault("0");
  Option<OneOf<Shape>> TreeShape =
      choiceOption<Shape>("shape", "shape of the tree",
                          {{"flat", Shape::Flat},
                           {"binomial", Shape::Binomial},
                           {"chain", Shape::Chain}})
          .only({"flat", "binomial"})
          .withDefault("binomial")
          .refusing("chain", "demo cannot build chains");
  Option<std::string> Mode = wordOption("mode", "how to run", {"fast", "slow"})
                                 .withDefaultNote("fast for small n");
};
const Demo &demo() {
  static const Demo D;
  return D;
}
const std::vector<OptionDecl> &demoDecls() {
  static const std::vector<OptionDecl> Decls = {
      demo().N,    demo().Len,       demo().Lens,
      demo().Root, demo().TreeShape, demo().Mode};
  return Decls;
}

llvm::Expected<OptionValues> parseDemo(llvm::StringRef Args) {
  return parseOptions(words(Args), demoDecls());
}

llvm::Expected<OptionValues> bindDemo(llvm::StringRef Args) {
  auto V = parseDemo(Args);
  if (!V)
    return V.takeError();
  return bindOptions(*V, demoDecls(), "demo");
}

std::string helpText(llvm::ArrayRef<HelpRow> Rows) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printHelpRows(OS, Rows);
  return S;
}

} // namespace

TEST(GeneratorOptions, ValuesParseByTheirKind) {
  auto V = parseDemo("--lens 1,2K,0 --n 4 --len=3M --shape flat --root 2");
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const Demo &D = demo();
  EXPECT_EQ(V->lookup(D.N), 4u);
  EXPECT_EQ(V->lookup(D.Len), 3u << 20);
  EXPECT_EQ(V->lookup(D.Lens), (std::vector<uint64_t>{1, 2048, 0}));
  EXPECT_EQ(V->get(D.Root), 2u);
  EXPECT_EQ(V->lookup(D.TreeShape), Shape::Flat);
  EXPECT_FALSE(V->has(D.Mode));
  // Entries follow the declarations, not the command line.
  std::vector<std::string> Order;
  for (const OptionEntry &E : V->entries())
    Order.push_back(E.Decl->Name);
  EXPECT_EQ(Order,
            (std::vector<std::string>{"n", "len", "lens", "root", "shape"}));
}

TEST(GeneratorOptions, ParseErrorsNameTheOption) {
  EXPECT_EQ(errorText(parseDemo("--n 4 --depth 2")), "--depth: unknown option");
  EXPECT_EQ(errorText(parseDemo("--n 4 --n=5")), "--n: given twice");
  EXPECT_EQ(errorText(parseDemo("--n 4 --len")), "--len: missing value");
  EXPECT_EQ(errorText(parseDemo("--n 4 len 3")),
            "unexpected argument 'len' (options are --name value)");
  EXPECT_EQ(errorText(parseDemo("--n four")),
            "--n: 'four' is not a non-negative integer");
  EXPECT_EQ(errorText(parseDemo("--root -1")),
            "--root: '-1' is not a non-negative integer");
  EXPECT_EQ(errorText(parseDemo("--lens 1,x,3")),
            "--lens: 'x' is not a size (a non-negative integer, optionally "
            "with K, M or G)");
  EXPECT_EQ(errorText(parseDemo("--len 20000000000G")),
            "--len: '20000000000G' is too large");
}

TEST(GeneratorOptions, BindingFillsDefaultsAndChecksChoices) {
  const Demo &D = demo();
  auto V = bindDemo("--n 4");
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_EQ(V->lookup(D.Root), 0u);
  EXPECT_FALSE(V->given(D.Root));
  EXPECT_EQ(V->get(D.TreeShape), Shape::Binomial);
  // A default the generator computes is no value.
  EXPECT_FALSE(V->has(D.Mode));
  EXPECT_EQ(V->lookup(D.Mode), std::nullopt);
  // A given value wins over the default.
  auto W = bindDemo("--n 4 --shape flat --root 3");
  ASSERT_TRUE(bool(W));
  EXPECT_EQ(W->get(D.TreeShape), Shape::Flat);
  EXPECT_EQ(W->get(D.Root), 3u);
  EXPECT_TRUE(W->given(D.Root));

  EXPECT_EQ(errorText(bindDemo("--shape star")),
            "--shape: 'star' is not one of flat, binomial");
  EXPECT_EQ(errorText(bindDemo("--shape chain")),
            "--shape: demo cannot build chains");
  EXPECT_EQ(errorText(bindDemo("--mode medium")),
            "--mode: 'medium' is not one of fast, slow");
}

TEST(GeneratorOptions, BindingRefusesOptionsNotDeclared) {
  // Parsed by the union of several generators' options, bound to one.
  std::vector<OptionDecl> Wider = demoDecls();
  Wider.push_back(countOption("q", "size of group B"));
  auto V = parseOptions(words("--n 2 --q 3"), Wider);
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(errorText(bindOptions(*V, demoDecls(), "demo")),
            "--q: demo does not take this option (it takes --n, --len, "
            "--lens, --root, --shape, --mode)");
  EXPECT_EQ(errorText(bindOptions(*V, {}, "nothing")),
            "--n: nothing does not take this option (it takes none)");
  // A default that is not one of the choices is a bug the binding reports.
  std::vector<OptionDecl> Bad = {
      wordOption("shape", "shape", {"flat"}).withDefault("round")};
  EXPECT_EQ(errorText(bindOptions(OptionValues(), Bad, "bad")),
            "--shape: 'round' is not one of flat");
}

TEST(GeneratorOptions, EchoIsTheGivenOptionsInDeclarationOrder) {
  auto V = bindDemo("--shape flat --lens 1,2 --n 2");
  ASSERT_TRUE(bool(V));
  // root has a default, which is not echoed.
  EXPECT_EQ(V->toJson().dump(), R"({"n":2,"lens":[1,2],"shape":"flat"})");
  EXPECT_EQ(OptionValues().toJson().dump(), "{}");
}

TEST(GeneratorOptions, SetReplacesAndKeepsTheOrder) {
  auto V = parseDemo("--root 1 --n 2");
  ASSERT_TRUE(bool(V));
  V->set(demoDecls()[1], uint64_t(64));
  V->set(demoDecls()[0], uint64_t(8));
  EXPECT_EQ(V->toJson().dump(), R"({"n":8,"len":64,"root":1})");
}

TEST(GeneratorOptions, MergeUnitesDeclarations) {
  std::vector<OptionDecl> A = {
      wordOption("shape", "shape of the tree", {"flat"}).withDefault("flat"),
      countOption("n", "number of ranks"),
      rankOption("root", "root rank").withDefault("0")};
  std::vector<OptionDecl> B = {
      countOption("n", "size of group A"),
      sizeOption("len", "bytes", SizedGroup::All),
      wordOption("shape", "shape of the tree", {"flat", "star"})
          .withDefault("star"),
      rankOption("root", "root rank").withDefault("0")};
  auto M = mergeOptionDecls({A, B});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  std::vector<std::string> Names;
  for (const OptionDecl &D : *M)
    Names.push_back(D.Name);
  // Counts, sizes, ranks, choices; first declaration within a kind.
  EXPECT_EQ(Names, (std::vector<std::string>{"n", "len", "root", "shape"}));
  EXPECT_EQ((*M)[0].Help, "number of ranks, or size of group A");
  EXPECT_EQ((*M)[2].Default, "0");
  EXPECT_EQ((*M)[3].Choices, (std::vector<std::string>{"flat", "star"}));
  EXPECT_EQ((*M)[3].Default, "");
  EXPECT_EQ((*M)[3].Help, "shape of the tree; the values admitted and the "
                          "default depend on the algorithm");

  std::vector<OptionDecl> C = {sizeOption("n", "bytes", SizedGroup::A)};
  EXPECT_EQ(errorText(mergeOptionDecls({A, C})),
            "--n: declared as a count and as a size");
  std::vector<OptionDecl> D = {sizeOption("len", "b", SizedGroup::B)};
  EXPECT_EQ(errorText(mergeOptionDecls({B, D})),
            "--len: declared as sizes of different groups");
}

TEST(GeneratorOptions, HelpDerivesFromTheDeclarations) {
  std::vector<HelpRow> Rows = optionHelpRows(demoDecls());
  Rows.push_back({"-o FILE", "write to FILE"});
  EXPECT_EQ(helpText(Rows),
            "  --n N             number of ranks\n"
            "  --len SIZE        bytes per rank\n"
            "  --lens LIST       bytes, one per rank\n"
            "  --root RANK       root rank (default 0)\n"
            "  --shape flat|binomial\n"
            "                    shape of the tree (default binomial)\n"
            "  --mode fast|slow  how to run (default: fast for small n)\n"
            "  -o FILE           write to FILE\n");
  // Past 20 columns the left column puts its description on the next line
  // (--shape above); long descriptions wrap at 80 columns, under the
  // column.
  EXPECT_EQ(
      helpText({{"--a", std::string(30, 'x') + " " + std::string(30, 'y') +
                            " " + std::string(30, 'z')},
                {"--a-very-long-option-name N", "short"}}),
      "  --a  " + std::string(30, 'x') + " " + std::string(30, 'y') +
          "\n       " + std::string(30, 'z') +
          "\n  --a-very-long-option-name N\n       short\n");
}

TEST(GeneratorOptions, GeneratorDeclarationsAreConsistent) {
  std::vector<llvm::ArrayRef<OptionDecl>> Lists;
  for (const Generator *G : allGenerators()) {
    Lists.push_back(G->options());
    std::vector<std::string> Names;
    for (const OptionDecl &D : G->options()) {
      EXPECT_FALSE(llvm::is_contained(Names, D.Name))
          << G->id().str() << " declares --" << D.Name << " twice";
      Names.push_back(D.Name);
      EXPECT_FALSE(D.Help.empty()) << G->id().str() << " --" << D.Name;
      if (D.Kind == OptionKind::Choice)
        EXPECT_FALSE(D.Choices.empty() &&
                     D.AlsoAdmits == OptionDecl::Numbers::None)
            << G->id().str() << " --" << D.Name;
      // A group with a size list has a size option too (compare's sweep
      // sets that one); a list that is no message size (SizedGroup::None:
      // --nodes, an alltoallv's --rank-part) needs none.
      if (D.Kind == OptionKind::SizeList && D.Sizes != SizedGroup::None)
        EXPECT_TRUE(llvm::any_of(G->options(),
                                 [&](const OptionDecl &X) {
                                   return X.Kind == OptionKind::Size &&
                                          X.Sizes == D.Sizes;
                                 }))
            << G->id().str() << " --" << D.Name;
    }
    // Every default parses and is admitted: binding nothing succeeds.
    auto V = bindOptions(OptionValues(), G->options(), G->id());
    EXPECT_TRUE(bool(V)) << G->id().str() << ": "
                         << llvm::toString(V.takeError());
  }
  // Every name has one kind and sizes one group across the generators.
  auto M = mergeOptionDecls(Lists);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ(M->size(), allGenOptions().size());
}

TEST(GeneratorOptions, EveryGeneratorOptionIsInTheGlobalHelp) {
  for (const Generator *G : allGenerators())
    for (const OptionDecl &D : G->options())
      EXPECT_TRUE(llvm::any_of(allGenOptions(),
                               [&](const OptionDecl &X) {
                                 return X.Name == D.Name && X.Kind == D.Kind;
                               }))
          << G->id().str() << " --" << D.Name;
  // The global entry of --intra shows every algorithm some generator
  // admits.
  const OptionDecl *Intra = llvm::find_if(
      allGenOptions(), [](const OptionDecl &D) { return D.Name == "intra"; });
  ASSERT_NE(Intra, allGenOptions().end());
  EXPECT_EQ(Intra->metavar(), "ring|recdbl|bruck");
}

TEST(GeneratorOptions, DefaultsReachTheBuild) {
  // half-allgather-kang declares --intra bruck and --bcast scatter-allgather
  // as defaults: the same schedule as when given, and params echo only what
  // was given.
  Schedule Default = gen("half-allgather-kang", "--p 3 --q 7 --bytes-a 5");
  Schedule Given =
      gen("half-allgather-kang", "--p 3 --q 7 --bytes-a 5 --intra bruck "
                                 "--bcast scatter-allgather");
  Schedule Ring = gen("half-allgather-kang", "--p 3 --q 7 --bytes-a 5 "
                                             "--intra ring");
  EXPECT_EQ(Default.Params.dump(), R"({"p":3,"q":7,"bytes-a":5})");
  EXPECT_EQ(Given.Params.dump(), R"({"p":3,"q":7,"bytes-a":5,"intra":"bruck",)"
                                 R"("bcast":"scatter-allgather"})");
  Given.Params = Default.Params;
  EXPECT_EQ(toJsonText(Default), toJsonText(Given));
  Ring.Params = Default.Params;
  EXPECT_NE(toJsonText(Default), toJsonText(Ring));
  // bcast-binomial's --root defaults to 0 and is echoed only when given.
  EXPECT_EQ(gen("bcast-binomial", "--p 4 --bytes 8").Params.dump(),
            R"({"p":4,"bytes":8})");
  EXPECT_EQ(gen("bcast-binomial", "--p 4 --bytes 8 --root 0").Params.dump(),
            R"({"p":4,"bytes":8,"root":0})");
}

namespace {
/// A generator declaring a message size under a name no other generator
/// uses: an intragroup ring allgather whose --len compare must scale.
class LenAllgather final : public Generator {
public:
  llvm::StringRef id() const override { return "len-allgather"; }
  llvm::StringRef summary() const override { return "ring allgather"; }
  CollectiveSet collectives() const override { return {Collective::Allgather}; }
  llvm::ArrayRef<OptionDecl> options() const override { return Options; }
  llvm::Expected<Schedule> build(const OptionValues &V) const override {
    auto N = groupCount(V, Ranks);
    if (!N)
      return N.takeError();
    bool Irregular = false;
    auto Sizes = memberSizes(V, Len, Lens, *N, Irregular);
    if (!Sizes)
      return Sizes.takeError();
    Schedule S;
    S.Kind = Collective::Allgather;
    setIntragroup(S, *N, *Sizes);
    S.Steps = ringAllgatherv(*Sizes);
    return S;
  }

private:
  const Option<uint64_t> Ranks = countOption("n", "number of ranks");
  const Option<Size> Len =
      sizeOption("len", "bytes per rank", SizedGroup::All);
  const Option<SizeList> Lens =
      sizeListOption("lens", "bytes, one per rank", SizedGroup::All);
  const Option<uint64_t> Unrelated =
      countOption("unrelated", "a count compare leaves alone");
  const std::vector<OptionDecl> Options = {Ranks, Len, Unrelated};

public:
  const Option<Size> &len() const { return Len; }
  const Option<uint64_t> &unrelated() const { return Unrelated; }
};
} // namespace

TEST(GeneratorOptions, CompareScalesTheDeclaredMessageSizes) {
  LenAllgather G;
  auto Bare = parseOptions(words("--n 3 --unrelated 7"), G.options());
  ASSERT_TRUE(bool(Bare));
  auto P = paramsForSize(*Bare, G, 4096);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->toJson().dump(), R"({"n":3,"len":4096,"unrelated":7})");
  auto Shaped = parseOptions(words("--n 3 --len 2 --unrelated 7"), G.options());
  ASSERT_TRUE(bool(Shaped));
  auto Q = paramsForSize(*Shaped, G, 1 << 20);
  ASSERT_TRUE(bool(Q));
  EXPECT_EQ(Q->lookup(G.len()), 1u << 20);
  EXPECT_EQ(Q->lookup(G.unrelated()), 7u);
  auto S = G.generate(*Q);
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_EQ(S->Algorithm, "len-allgather");
  EXPECT_EQ(S->Params.dump(), R"({"n":3,"len":1048576,"unrelated":7})");
  EXPECT_TRUE(checkExplicit(*S).proved());
}

namespace {
/// A command's options: a flag, a count with a default, a text spelled -o,
/// a choice in the command's own wording.
struct Cmd {
  Option<bool> Json = flagOption("json", "one JSON object");
  Option<uint64_t> Runs =
      countOption("runs", "how often").withDefault("3").parsedBy(
          numberParser(1, 100, "a count from 1 to 100"));
  Option<std::string> Out = textOption("o", "where", "FILE").singleDash();
  Option<OneOf<Shape>> TreeShape =
      choiceOption<Shape>("shape", "shape", {{"flat", Shape::Flat}})
          .parsedBy(choiceParser([](llvm::StringRef V) {
            return ("--shape needs flat, not " + V).str();
          }));
};
const Cmd &cmd() {
  static const Cmd C;
  return C;
}
llvm::ArrayRef<OptionDecl> cmdDecls() {
  static const std::vector<OptionDecl> D = {cmd().Json, cmd().Runs, cmd().Out,
                                            cmd().TreeShape};
  return D;
}
llvm::Expected<CommandLine> parseCmd(llvm::StringRef Args,
                                     CommandRules R = {}) {
  return parseCommandLine(words(Args), cmdDecls(), R);
}
} // namespace

TEST(CommandLine, FlagsValuesPositionalsAndDefaults) {
  auto C = parseCmd("a.json --json -o out.txt - --runs=7 --shape flat");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->Positionals, (std::vector<std::string>{"a.json", "-"}));
  EXPECT_TRUE(C->Values.get(cmd().Json));
  EXPECT_EQ(C->Values.get(cmd().Runs), 7u);
  EXPECT_EQ(C->Values.lookup(cmd().Out), std::string("out.txt"));
  EXPECT_EQ(C->Values.get(cmd().TreeShape), Shape::Flat);
  // Defaults are filled in, not given; a repeated option takes the last.
  auto D = parseCmd("--runs 2 --runs 5");
  ASSERT_TRUE(bool(D));
  EXPECT_EQ(D->Values.get(cmd().Runs), 5u);
  auto E = parseCmd("x");
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(E->Values.get(cmd().Runs), 3u);
  EXPECT_FALSE(E->Values.given(cmd().Runs));
  EXPECT_FALSE(E->Values.get(cmd().Json));
  EXPECT_EQ(E->Values.lookup(cmd().Out), std::nullopt);
}

TEST(CommandLine, ErrorsInTheCommandsWording) {
  EXPECT_EQ(errorText(parseCmd("--bogus 1")), "unknown option --bogus");
  EXPECT_EQ(errorText(parseCmd("-o")), "-o: missing value");
  EXPECT_EQ(errorText(parseCmd("--json=yes")), "--json: takes no value");
  EXPECT_EQ(errorText(parseCmd("--runs 0")),
            "--runs: expected a count from 1 to 100, got '0'");
  EXPECT_EQ(errorText(parseCmd("--shape star")), "--shape needs flat, not star");
  CommandRules NoPositionals;
  NoPositionals.Positionals = false;
  EXPECT_EQ(errorText(parseCmd("stray", NoPositionals)),
            "unexpected argument 'stray'");
}

TEST(CommandLine, PassThroughKeepsWhatNoDeclarationTakes) {
  CommandRules Rules;
  Rules.PassThrough = true;
  auto C = parseCmd("--p 4 --json --bytes 1K -o f", Rules);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->Rest, (std::vector<std::string>{"--p", "4", "--bytes", "1K"}));
  EXPECT_TRUE(C->Values.get(cmd().Json));
  EXPECT_EQ(C->Values.lookup(cmd().Out), std::string("f"));
}

TEST(CommandLine, HelpComesFromTheDeclarations) {
  CommandDoc Doc = {"usage: demo [options] FILE\n", "Does a demo.\n",
                    "exit codes: 0.\n"};
  EXPECT_EQ(commandHelp(Doc, cmdDecls()),
            "usage: demo [options] FILE\n\nDoes a demo.\n\noptions:\n"
            "  --json        one JSON object\n"
            "  --runs N      how often (default 3)\n"
            "  -o FILE       where\n"
            "  --shape flat  shape\n"
            "\nexit codes: 0.\n");
}
