//===- tests/unit/EntryPointsTest.cpp - What the drivers call -------------===//
///
/// \file
/// The library functions the drivers are thin over: loading a template by
/// name or file, the --format names, the templates of an algorithm, the
/// replay of a counterexample, and the prove and compare renderings.
///
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "verifier/smt/Prover.h"
#include "views/CompareText.h"
#include "views/ProveReport.h"
#include <nlohmann/json.hpp>

using namespace choreo;
using namespace choreo::test;

TEST(EntryPoints, LoadTemplateByBuiltinNameElseFile) {
  auto T = loadTemplate("kang-divisible");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(T->Name, "kang-divisible");
  EXPECT_EQ(T->Source, "<builtin kang-divisible>");
  std::string E = errorText(loadTemplate("no-such-template.choreo"));
  EXPECT_NE(E.find("cannot open no-such-template.choreo"), std::string::npos)
      << E;
}

TEST(EntryPoints, FileFormatNames) {
  auto J = parseFileFormat("json"), C = parseFileFormat("cbor");
  ASSERT_TRUE(bool(J));
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(*J, FileFormat::Json);
  EXPECT_EQ(*C, FileFormat::Cbor);
  EXPECT_EQ(errorText(parseFileFormat("JSON")),
            "--format: expected json or cbor, got 'JSON'");
  EXPECT_EQ(errorText(parseFileFormat("")),
            "--format: expected json or cbor, got ''");
}

TEST(EntryPoints, TemplatesOfAnAlgorithm) {
  auto Names = [](llvm::StringRef Id) {
    std::vector<std::string> Out;
    for (const GeneratorTemplate &T : findGenerator(Id)->templates())
      Out.push_back(T.Template);
    return Out;
  };
  EXPECT_EQ(Names("half-allgather-ring"),
            (std::vector<std::string>{
                "ring-equal", "ring-senders-first", "ring-receivers-first",
                "ring-single-receiver", "ring-senders-first-odd",
                "ring-receivers-first-odd"}));
  EXPECT_EQ(Names("inter-allgather-kang"),
            std::vector<std::string>{"kang-divisible"});
  EXPECT_EQ(Names("allreduce-recursive-doubling"),
            (std::vector<std::string>{"allreduce-recursive-doubling",
                                      "allreduce-recursive-doubling-fold"}));
  EXPECT_EQ(Names("allreduce-halving-doubling"),
            (std::vector<std::string>{"allreduce-halving-doubling",
                                      "allreduce-halving-doubling-fold"}));
  EXPECT_EQ(Names("scan-mpich"), std::vector<std::string>{});
}

TEST(EntryPoints, ReplayOfACounterexample) {
  auto T = loadTemplate("ring-equal");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  Obligation Ob;
  Ob.R = Obligation::Result::Counterexample;
  // The template is right: its expansion proves.
  Ob.Model = {{"p", 4}, {"q", 4}, {"i", 0}};
  EXPECT_EQ(replayCounterexample(*T, Ob),
            "the explicit engine proves the expanded schedule (choreo gen "
            "--template ring-equal --p 4 --q 4): the obligation is stronger "
            "than the schedule needs");
  // Outside the domain the expansion refuses.
  Ob.Model = {{"p", 4}, {"q", 6}};
  std::string R = replayCounterexample(*T, Ob);
  EXPECT_EQ(R.rfind("confirmed by the expansion at these parameters, which "
                    "refuses the template: ",
                    0),
            0u)
      << R;
  // A model without every parameter is not replayed (and does not throw).
  Ob.Model = {{"p", 4}};
  EXPECT_EQ(replayCounterexample(*T, Ob),
            "not replayed: the counterexample gives no value of q");
}

TEST(EntryPoints, ProveReportText) {
  TemplateProof P;
  P.Name = "t";
  P.Domain = "p >= 1";
  P.Report.Seconds = 1.5;
  Obligation Ok;
  Ok.Name = "ports.send s1#1";
  Ok.R = Obligation::Result::Proved;
  Obligation Cex;
  Cex.Name = "availability s2#1";
  Cex.Claim = "the sender holds the message";
  Cex.R = Obligation::Result::Counterexample;
  Cex.Model = {{"p", 3}, {"q", 2}};
  Cex.Step = 4; // and no rank
  Obligation Unk;
  Unk.Name = "complete";
  Unk.R = Obligation::Result::Unknown;
  Unk.Why = "timeout";
  P.Report.Obligations = {Ok, Cex, Unk};
  P.Replays = {"", "confirmed by the explicit engine", ""};
  std::string Out, Err;
  llvm::raw_string_ostream OS(Out), ES(Err);
  printProof(P, {}, OS, ES);
  EXPECT_EQ(Out, "t: 1 counterexample(s) (3 obligations, 1.50 s; domain: p "
                 ">= 1)\n");
  EXPECT_EQ(Err, "error: t: availability s2#1 fails: the sender holds the "
                 "message does not hold for p = 3, q = 2 (step 4)\n"
                 "note: confirmed by the explicit engine\n"
                 "error: t: complete is unknown: timeout\n");
  // JSON: the summary is left to proofJson; errors are still reported.
  Out.clear();
  Err.clear();
  ProveReportOptions J;
  J.Json = true;
  printProof(P, J, OS, ES);
  EXPECT_EQ(Out, "");
  EXPECT_NE(Err, "");
  EXPECT_EQ(
      jsonText(proofJson(P)["obligations"][1]),
      R"({"obligation":"availability s2#1","result":"counterexample","seconds":0.0})");
  // Bounded proofs name the bound.
  P.Report.Obligations = {Ok};
  P.Report.Obligations[0].R = Obligation::Result::ProvedBounded;
  Out.clear();
  ProveReportOptions B;
  B.Bound = 7;
  printProof(P, B, OS, ES);
  EXPECT_EQ(Out, "t: proved; 1 obligation(s) only up to the bound 7 (1 "
                 "obligations, 1.50 s; domain: p >= 1)\n");
}

TEST(EntryPoints, CompareTableText) {
  EXPECT_EQ(shortNames({"inter-allgather-root", "inter-allgather-kang"}),
            (std::vector<std::string>{"root", "kang"}));
  EXPECT_EQ(shortNames({"allgather-ring"}),
            std::vector<std::string>{"allgather-ring"});
  CompareTable T;
  T.Algorithms = {"allgather-ring", "allgather-bruck"};
  T.Sizes = {1024, 1 << 20};
  T.Cells = {{{4e-6, 5e-6, 7}, {2e-6, 3e-6, 3}},
             {{1e-3, 2e-3, 7}, {2e-3, 0, 3}}};
  CompareSpec Spec;
  auto Base = parseGenArgs({"--p", "8"});
  ASSERT_TRUE(bool(Base)) << llvm::toString(Base.takeError());
  Spec.Base = *Base;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  printCompareTable(T, Spec, /*Lockstep=*/false, OS);
  EXPECT_EQ(Out, "predicted time (asynchronous; alpha 0, beta 0, gamma 0, "
                 "f_alpha 1, f_beta 1), {\"p\":8}\n"
                 "size   ring  bruck  ring/bruck\n"
                 "1K    4e-06  2e-06       2.000\n"
                 "1M    0.001  0.002       0.500\n");
  // Lock step: a zero time has no speed-up (0, not a division by zero).
  nlohmann::ordered_json J = compareJson(T, Spec, /*Lockstep=*/true);
  EXPECT_EQ(J["evaluation"], "lockstep");
  EXPECT_EQ(jsonText(J["rows"][1]["speedup"]), "[1.0,0.0]");
}
